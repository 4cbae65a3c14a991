//! The typed gateway over one generic call: for each method, the request (its params for
//! the era, how long the gateway may hold it, whether it may be sent again after a drop)
//! and its answer, typed; and the spawn tree a host's N15 guard asks of a gateway it
//! reaches over a network (the WIT `tree` interface).

use std::collections::BTreeSet;

use serde_json::{json, Value};
use session_tools_contract::*;

use crate::answers;
use crate::era::Era;
use crate::errors::from_transport;
use crate::params;
use crate::sparse;
use crate::transport::{Request, Runs, Transport, TransportError};

/// Sessions one spawn-tree walk visits at most (a tree larger than this is cut, which only
/// hides sessions from a restricted caller: fail closed).
pub const MAX_TREE: usize = 10_000;

/// Pages one `sessions.list` follows at most on protocol 4 (E6: nothing is cut silently;
/// past this the list fails, saying so).
pub const MAX_PAGES: u32 = 100;

/// A request for `method` with `params`.
fn request(method: &str, params: Value, holds_ms: u64, resend_safe: bool) -> Request {
    Request { method: method.to_string(), params: params.to_string(), holds_ms, resend_safe }
}

/// A read: sent again after a drop.
fn read(method: &str, params: Value) -> Request {
    request(method, params, 0, true)
}

/// An answer's payload as JSON.
fn payload(method: &str, answer: Result<String, TransportError>) -> GatewayResult<Value> {
    parsed(method, answer, |text| serde_json::from_str(text))
}

fn parsed(method: &str, answer: Result<String, TransportError>, parse: fn(&str) -> serde_json::Result<Value>) -> GatewayResult<Value> {
    let text = answer.map_err(|e| from_transport(method, e))?;
    if text.trim().is_empty() {
        return Ok(Value::Null);
    }
    parse(&text).map_err(|e| GatewayError::new(format!("the gateway's answer to {method} is not JSON: {e}")))
}

/// `agent.wait` as a request: the gateway holds it up to its `timeoutMs`, and it is a read.
pub fn encode_wait(p: &WaitParams) -> Request {
    request("agent.wait", params::wait(p), p.timeout_ms, true)
}

/// The answer of `agent.wait`, typed.
pub fn decode_wait(answer: Result<String, TransportError>) -> GatewayResult<WaitResult> {
    payload("agent.wait", answer).map(|v| answers::wait_result(&v))
}

/// One page of a `sessions.list` as a request, in `era`: at `offset` (protocol 4), its limit
/// explicit there (E6). With [`next_page`], how the wire walks a list.
fn encode_list(era: Era, p: &ListParams, offset: u32) -> Request {
    read("sessions.list", params::list(era, p, offset))
}

/// Where a list continues after `answer`, its page at `offset` and the `page`-th (0 for the
/// first): `None` when the list is whole (protocol 3 answers in one page, and a list with a
/// limit of its own is one page); on protocol 4 the next offset while the gateway says
/// there is more, and an error past [`MAX_PAGES`] pages (E6: nothing is cut silently).
fn next_page(era: Era, p: &ListParams, offset: u32, page: u32, answer: &Value) -> GatewayResult<Option<u32>> {
    if era != Era::V4 || p.limit.is_some() {
        return Ok(None);
    }
    let Some(next) = answers::next_offset(answer).filter(|n| *n > offset) else { return Ok(None) };
    if page.saturating_add(1) >= MAX_PAGES {
        let rows = u64::from(MAX_PAGES) * u64::from(params::PAGE);
        return Err(GatewayError::of(
            ErrorKind::TooLarge,
            format!("the gateway lists more than {rows} sessions for one sessions.list; narrow it (a limit, an agent, a label)"),
        ));
    }
    Ok(Some(next))
}

/// How much of a list's rows a walk keeps: every field (a host showing a row as it is), or
/// what a row record reads (`sparse.rs`).
#[derive(Clone, Copy)]
enum Rows {
    Whole,
    Read,
}

impl Rows {
    /// A `sessions.list` page's payload, its rows kept as `self` says.
    fn payload(self, answer: Result<String, TransportError>) -> GatewayResult<Value> {
        match self {
            Rows::Whole => payload("sessions.list", answer),
            Rows::Read => parsed("sessions.list", answer, sparse::list_page),
        }
    }
}

/// The gateway, spoken in one era over a host's transport; it tells the host's runs of
/// each run it starts.
pub struct Wire<T, R> {
    transport: T,
    runs: R,
    era: Era,
}

impl<T: Transport, R: Runs> Wire<T, R> {
    pub fn new(transport: T, runs: R, era: Era) -> Self {
        Wire { transport, runs, era }
    }

    pub fn era(&self) -> Era {
        self.era
    }

    fn call(&self, request: Request) -> GatewayResult<Value> {
        let method = request.method.clone();
        payload(&method, self.transport.call(request))
    }

    /// Every row of a `sessions.list`: one answer on protocol 3; on protocol 4 a list
    /// without a limit of its own follows its pages (E6).
    fn list_all(&self, p: &ListParams) -> GatewayResult<SessionList> {
        let first = self.page(p, 0, Rows::Read)?;
        self.rest_of(p, first)
    }

    /// The page of a list at `offset`, its rows whole or as a row record reads them.
    fn page(&self, p: &ListParams, offset: u32, rows: Rows) -> GatewayResult<Value> {
        rows.payload(self.transport.call(encode_list(self.era, p, offset)))
    }

    /// The list of which `first` is the first page, with the pages that follow it.
    fn rest_of(&self, p: &ListParams, first: Value) -> GatewayResult<SessionList> {
        // The first page's rows are typed once: its path is the list's.
        let mut pages = self.pages(p, first, Rows::Read)?.into_iter();
        let mut list = pages.next().map(|page| answers::session_list(&page)).unwrap_or_default();
        for page in pages {
            list.sessions.extend(answers::session_list(&page).sessions);
        }
        Ok(list)
    }

    /// `first` and the answers of the pages that follow it, as [`next_page`] says.
    fn pages(&self, p: &ListParams, first: Value, rows: Rows) -> GatewayResult<Vec<Value>> {
        let mut next = next_page(self.era, p, 0, 0, &first)?;
        let mut pages = vec![first];
        while let Some(offset) = next {
            let page = self.page(p, offset, rows)?;
            next = next_page(self.era, p, offset, pages.len() as u32, &page)?;
            pages.push(page);
        }
        Ok(pages)
    }

    /// Every row of a `sessions.list` as the gateway gave it (every field it lists, for a
    /// host that shows a row as it is), its pages followed as [`Gateway::sessions_list`]
    /// follows them.
    pub fn listed_rows(&self, p: &ListParams) -> GatewayResult<Vec<Value>> {
        let first = self.page(p, 0, Rows::Whole)?;
        let pages = self.pages(p, first, Rows::Whole)?;
        Ok(pages
            .into_iter()
            .flat_map(|mut page| match page.get_mut("sessions").map(Value::take) {
                Some(Value::Array(rows)) => rows,
                _ => Vec::new(),
            })
            .collect())
    }

    /// Several lists at once, each with every row.
    fn lists(&self, params: &[ListParams]) -> Vec<GatewayResult<SessionList>> {
        let requests = params.iter().map(|p| encode_list(self.era, p, 0)).collect();
        let answers = self.transport.call_many(requests);
        params.iter().zip(answers).map(|(p, answer)| Rows::Read.payload(answer).and_then(|first| self.rest_of(p, first))).collect()
    }

    /// The sessions of the spawn trees of `roots` (canonical keys): the roots and every
    /// session spawned from one of them, transitively, a level at a time (the gateway's
    /// rows name their parent, not their children, so each level is one `sessions.list
    /// {spawnedBy}` a parent, at once). At most [`MAX_TREE`] sessions.
    pub fn spawned_trees(&self, roots: &BTreeSet<String>) -> GatewayResult<BTreeSet<String>> {
        let mut seen = roots.clone();
        let mut level: Vec<String> = seen.iter().cloned().collect();
        while !level.is_empty() && seen.len() < MAX_TREE {
            let asked: Vec<ListParams> =
                level.iter().map(|parent| ListParams { spawned_by: Some(parent.clone()), ..Default::default() }).collect();
            let mut next = Vec::new();
            for answer in self.lists(&asked) {
                for row in answer?.sessions {
                    if seen.len() < MAX_TREE && seen.insert(row.key.clone()) {
                        next.push(row.key);
                    }
                }
            }
            level = next;
        }
        Ok(seen)
    }

    /// The rows of these sessions (canonical keys): the gateway's `search` matches key
    /// substrings, and the exact key is picked from its answer.
    pub fn rows_of(&self, keys: &BTreeSet<String>) -> GatewayResult<Vec<SessionRow>> {
        let asked: Vec<ListParams> = keys.iter().map(|k| row_search(k)).collect();
        let mut rows = Vec::new();
        for (key, answer) in keys.iter().zip(self.lists(&asked)) {
            rows.extend(answer?.sessions.into_iter().filter(|row| &row.key == key));
        }
        Ok(rows)
    }

    /// Whether a session exists (canonical key).
    pub fn exists(&self, key: &str) -> GatewayResult<bool> {
        match self.call(read("sessions.resolve", json!({ "key": key }))) {
            Ok(answer) => Ok(!answers::resolved_key(&answer).is_empty()),
            Err(e) if e.kind == ErrorKind::NotFound => Ok(false),
            Err(e) => Err(e),
        }
    }

    /// The session a run belongs to, when the host knows it.
    pub fn run_session(&self, run_id: &str) -> Option<String> {
        self.runs.session_of(run_id)
    }
}

/// The `sessions.list` params that find one session by its key.
pub fn row_search(key: &str) -> ListParams {
    ListParams { search: Some(key.to_string()), include_global: Some(true), include_unknown: Some(true), ..Default::default() }
}

impl<T: Transport, R: Runs> Gateway for Wire<T, R> {
    fn sessions_list(&self, p: &ListParams) -> GatewayResult<SessionList> {
        self.list_all(p)
    }

    fn sessions_resolve(&self, p: &ResolveParams) -> GatewayResult<String> {
        self.call(read("sessions.resolve", params::resolve(p))).map(|v| answers::resolved_key(&v))
    }

    fn chat_history(&self, p: &HistoryParams) -> GatewayResult<History> {
        self.call(read("chat.history", params::history(self.era, p))).map(|v| answers::history(self.era, &v))
    }

    fn chat_histories(&self, ps: &[HistoryParams]) -> Vec<GatewayResult<History>> {
        let requests = ps.iter().map(|p| read("chat.history", params::history(self.era, p))).collect();
        let mut answers = self.transport.call_many(requests).into_iter();
        // One answer each, whatever the host gave back.
        ps.iter()
            .map(|_| match answers.next() {
                Some(answer) => payload("chat.history", answer).map(|v| answers::history(self.era, &v)),
                None => Err(GatewayError::new("the gateway gave no answer")),
            })
            .collect()
    }

    fn agent(&self, p: &AgentParams) -> GatewayResult<AgentAccepted> {
        if self.era == Era::V4 {
            // E5: protocol 4 makes a child with its lineage, then runs it. Not sent again
            // after a drop: a second create of the same key is refused.
            if let Some(create) = params::create(p) {
                self.call(request("sessions.create", create, 0, false))?;
            }
        }
        // The first answer (`accepted`) is the one the tools wait for; the idempotency key
        // makes a resend after a drop safe (the gateway answers its cached state).
        let answer = self.call(read("agent", params::agent(self.era, p)))?;
        let accepted = answers::agent_accepted(&answer);
        let run = accepted.run_id.clone().unwrap_or_else(|| p.idempotency_key.clone());
        // The gateway's word on whose run it is wins over the session asked for.
        let session = answers::run_owner(&answer).or_else(|| p.session_key.clone()).unwrap_or_else(|| "main".to_string());
        self.runs.started(&run, &session);
        Ok(accepted)
    }

    fn agent_wait(&self, p: &WaitParams) -> GatewayResult<WaitResult> {
        decode_wait(self.transport.call(encode_wait(p)))
    }

    fn send(&self, p: &SendParams) -> GatewayResult<()> {
        // De-duplicated by its idempotency key: safe to send again.
        self.call(read("send", params::send(p))).map(drop)
    }

    fn sessions_patch(&self, p: &PatchParams) -> GatewayResult<()> {
        // Not sent again after a drop: a label set twice is refused the second time.
        self.call(request("sessions.patch", params::patch(p), 0, false)).map(drop)
    }

    fn sessions_delete(&self, p: &DeleteParams) -> GatewayResult<()> {
        self.call(request("sessions.delete", params::delete(p), 0, false)).map(drop)
    }
}

#[cfg(test)]
mod tests {
    use std::cell::RefCell;

    use super::*;

    /// A gateway that answers from a function of (method, params) and keeps what it was asked.
    struct Fake<F> {
        answer: F,
        asked: RefCell<Vec<Request>>,
    }

    impl<F: Fn(&str, &Value) -> Result<Value, TransportError>> Transport for &Fake<F> {
        fn call(&self, request: Request) -> Result<String, TransportError> {
            let params: Value = serde_json::from_str(&request.params).unwrap();
            let answer = (self.answer)(&request.method, &params);
            self.asked.borrow_mut().push(request);
            answer.map(|v| v.to_string())
        }
    }

    #[derive(Default)]
    struct Kept(RefCell<Vec<(String, String)>>);

    impl Runs for &Kept {
        fn started(&self, run_id: &str, session_key: &str) {
            self.0.borrow_mut().push((run_id.into(), session_key.into()));
        }
        fn session_of(&self, run_id: &str) -> Option<String> {
            self.0.borrow().iter().find(|(r, _)| r == run_id).map(|(_, s)| s.clone())
        }
    }

    fn fake<F: Fn(&str, &Value) -> Result<Value, TransportError>>(answer: F) -> Fake<F> {
        Fake { answer, asked: RefCell::new(Vec::new()) }
    }

    #[test]
    fn a_run_is_kept_with_the_session_the_gateway_names() {
        let gw = fake(|_, p| Ok(json!({"runId": "r1", "sessionKey": if p["sessionKey"] == "b" { "agent:main:a" } else { "" }})));
        let runs = Kept::default();
        let wire = Wire::new(&gw, &runs, Era::V3);
        let p = AgentParams { message: "m".into(), session_key: Some("b".into()), idempotency_key: "k".into(), ..Default::default() };
        assert_eq!(wire.agent(&p).unwrap().run_id.as_deref(), Some("r1"));
        assert_eq!(wire.run_session("r1").as_deref(), Some("agent:main:a"));
        let asked = gw.asked.borrow();
        assert_eq!((asked[0].method.as_str(), asked[0].resend_safe), ("agent", true));
    }

    #[test]
    fn errors_are_typed_from_the_frame_and_a_missing_session_does_not_exist() {
        let gw = fake(|_, _| Err(TransportError::Gateway(r#"{"code":"INVALID_REQUEST","message":"No session found: x"}"#.into())));
        let runs = Kept::default();
        let wire = Wire::new(&gw, &runs, Era::V3);
        let e = wire.sessions_resolve(&ResolveParams { key: Some("x".into()), ..Default::default() }).unwrap_err();
        assert_eq!((e.kind, e.message.as_str()), (ErrorKind::NotFound, "No session found: x"));
        assert_eq!(wire.exists("x"), Ok(false));
    }

    #[test]
    fn a_wait_is_held_as_long_as_it_waits_and_writes_are_not_resent() {
        let request = encode_wait(&WaitParams { run_id: "r".into(), timeout_ms: 5000 });
        assert_eq!((request.method.as_str(), request.holds_ms, request.resend_safe), ("agent.wait", 5000, true));
        assert_eq!(decode_wait(Ok(r#"{"status":"timeout"}"#.into())).unwrap().status.as_deref(), Some("timeout"));
        assert_eq!(decode_wait(Err(TransportError::Timeout("late".into()))).unwrap_err().kind, ErrorKind::Timeout);
        let gw = fake(|_, _| Ok(json!({"ok": true})));
        let runs = Kept::default();
        let wire = Wire::new(&gw, &runs, Era::V3);
        wire.sessions_patch(&PatchParams { key: "k".into(), ..Default::default() }).unwrap();
        wire.sessions_delete(&DeleteParams { key: "k".into(), delete_transcript: true }).unwrap();
        assert!(gw.asked.borrow().iter().all(|r| !r.resend_safe && r.holds_ms == 0));
    }

    #[test]
    fn the_tree_is_walked_a_level_at_a_time_over_both_lineages() {
        let gw = fake(|_, p| {
            Ok(match p["spawnedBy"].as_str() {
                Some("root") => json!({"sessions": [{"key": "a", "spawnedBy": "root"}, {"key": "b", "parentSessionKey": "root"}]}),
                Some("a") => json!({"sessions": [{"key": "c"}]}),
                _ => json!({"sessions": []}),
            })
        });
        let runs = Kept::default();
        let wire = Wire::new(&gw, &runs, Era::V3);
        let tree = wire.spawned_trees(&BTreeSet::from(["root".to_string()])).unwrap();
        assert_eq!(tree.into_iter().collect::<Vec<_>>(), ["a", "b", "c", "root"]);
        assert_eq!(gw.asked.borrow()[0].params, r#"{"spawnedBy":"root"}"#, "protocol 3: today's params");
    }

    #[test]
    fn protocol_4_pages_a_list_without_a_limit_and_makes_a_child_before_its_run() {
        let gw = fake(|method, p| {
            Ok(match method {
                "sessions.list" if p.get("offset").is_none() => json!({"sessions": [{"key": "a"}], "hasMore": true, "nextOffset": 1000}),
                "sessions.list" => json!({"sessions": [{"key": "b"}], "hasMore": false}),
                "sessions.create" => json!({"ok": true}),
                _ => json!({"runId": "r"}),
            })
        });
        let runs = Kept::default();
        let wire = Wire::new(&gw, &runs, Era::V4);
        let list = wire.sessions_list(&ListParams::default()).unwrap();
        assert_eq!(list.sessions.iter().map(|r| r.key.as_str()).collect::<Vec<_>>(), ["a", "b"]);
        let spawn = AgentParams {
            message: "m".into(),
            session_key: Some("agent:main:subagent:1".into()),
            idempotency_key: "k".into(),
            spawned_by: Some("agent:main:main".into()),
            ..Default::default()
        };
        wire.agent(&spawn).unwrap();
        let asked = gw.asked.borrow();
        let methods: Vec<&str> = asked.iter().map(|r| r.method.as_str()).collect();
        assert_eq!(methods, ["sessions.list", "sessions.list", "sessions.create", "agent"]);
        assert_eq!(asked[0].params, json!({"limit": params::PAGE}).to_string());
        assert!(!asked[3].params.contains("spawnedBy"));
    }

    #[test]
    fn a_host_walks_a_list_with_the_wires_own_page_rule() {
        let all = ListParams { spawned_by: Some("p".into()), ..Default::default() };
        let more = json!({"sessions": [], "hasMore": true, "nextOffset": 1000});
        assert_eq!(encode_list(Era::V4, &all, 1000).params, json!({"limit": params::PAGE, "offset": 1000, "spawnedBy": "p"}).to_string());
        assert_eq!(encode_list(Era::V3, &all, 0).params, r#"{"spawnedBy":"p"}"#);
        assert_eq!(next_page(Era::V4, &all, 0, 0, &more), Ok(Some(1000)));
        assert_eq!(next_page(Era::V4, &all, 1000, 1, &more), Ok(None), "an offset that does not move on ends the walk");
        assert_eq!(next_page(Era::V3, &all, 0, 0, &more), Ok(None), "protocol 3 answers in one page");
        assert_eq!(next_page(Era::V4, &ListParams { limit: Some(3), ..all.clone() }, 0, 0, &more), Ok(None));
        assert_eq!(next_page(Era::V4, &all, 0, MAX_PAGES - 1, &more).unwrap_err().kind, ErrorKind::TooLarge);
    }

    #[test]
    fn a_list_past_its_last_allowed_page_fails_saying_so_and_raw_rows_page_too() {
        let endless = fake(|_, p| {
            let offset = p.get("offset").and_then(Value::as_u64).unwrap_or(0);
            Ok(json!({"sessions": [{"key": format!("k{offset}"), "parentSessionKey": "p"}], "hasMore": true, "nextOffset": offset + 1000}))
        });
        let runs = Kept::default();
        let wire = Wire::new(&endless, &runs, Era::V4);
        let e = wire.sessions_list(&ListParams::default()).unwrap_err();
        assert_eq!(e.kind, ErrorKind::TooLarge);
        assert!(e.message.contains("more than 100000 sessions") && e.message.contains("narrow it"), "{}", e.message);
        assert_eq!(endless.asked.borrow().len(), MAX_PAGES as usize, "E6: never cut silently, never asked without end");
        assert!(wire.spawned_trees(&BTreeSet::from(["p".to_string()])).is_err(), "a walk fails rather than missing rows");
        let limited = wire.sessions_list(&ListParams { limit: Some(5), ..Default::default() }).unwrap();
        assert_eq!(limited.sessions.len(), 1, "a list with a limit of its own is one page");

        let two = fake(|_, p| {
            Ok(match p.get("offset") {
                None => {
                    json!({"sessions": [{"key": "a", "parentSessionKey": "p", "chatType": "direct"}], "hasMore": true, "nextOffset": 1000})
                }
                Some(_) => json!({"sessions": [{"key": "b"}], "hasMore": false}),
            })
        });
        let wire = Wire::new(&two, &runs, Era::V4);
        let rows = wire.listed_rows(&row_search("a")).unwrap();
        assert_eq!(rows, [json!({"key": "a", "parentSessionKey": "p", "chatType": "direct"}), json!({"key": "b"})]);
        assert_eq!(wire.rows_of(&BTreeSet::from(["b".to_string()])).unwrap()[0].key, "b", "the exact key, on any page");
    }
}
