//! A scripted gateway: canned answers and a scripted agent runtime, recording every call
//! (the `gateway` object of a conformance case, `tests/conformance/FORMAT.md`).
//!
//! It is a plain mock: it does not canonicalise keys or evaluate the send policy, and its
//! runs finish at once in virtual time.

use std::collections::HashSet;
use std::sync::Mutex;

use serde_json::{json, Value};

use super::{wire, Gateway};
use crate::gateway::pattern::is_match;
use crate::gateway::*;
use session_tools_wire::Era;

/// A gateway call as it would go over the wire.
#[derive(Debug, Clone, PartialEq)]
pub struct RecordedCall {
    /// The gateway method.
    pub method: String,
    /// Its params, as they would go over the wire.
    pub params: Value,
}

struct Response {
    method: String,
    params: Option<Value>,
    answer: Result<Value, String>,
    times_left: Option<u64>,
}

struct RunRule {
    pattern: Value,
    reply: Option<String>,
    status: String,
    error: Option<String>,
    usage: Option<Value>,
    model: Option<String>,
    duration_ms: i64,
}

struct Run {
    id: String,
    session_key: String,
    message: String,
    reply: Option<String>,
    status: String,
    error: Option<String>,
    usage: Option<Value>,
    model: Option<String>,
    started_at: i64,
    ended_at: i64,
}

struct Script {
    responses: Vec<Response>,
    rules: Vec<RunRule>,
    runs: Vec<Run>,
    calls: Vec<RecordedCall>,
    now: i64,
}

/// The conformance format's mock gateway: answers from a script, runs in virtual time.
pub struct ScriptedGateway(Mutex<Script>);

fn field_str(v: &Value, key: &str) -> Option<String> {
    v.get(key).and_then(Value::as_str).map(str::to_string)
}

impl ScriptedGateway {
    /// Reads a case's `gateway` object; `now` is the virtual time runs start at.
    pub fn from_json(gateway: Option<&Value>, now: i64) -> Result<ScriptedGateway, String> {
        let empty = json!({});
        let gateway = gateway.unwrap_or(&empty);
        let mut responses = Vec::new();
        for (i, r) in gateway.get("responses").and_then(Value::as_array).into_iter().flatten().enumerate() {
            let method = field_str(r, "method").ok_or_else(|| format!("gateway.responses[{i}] has no method"))?;
            let answer = match (r.get("result"), r.get("error")) {
                (_, Some(Value::String(e))) => Err(e.clone()),
                (_, Some(other)) => Err(other.to_string()),
                (Some(result), None) => Ok(result.clone()),
                (None, None) => Ok(json!({})),
            };
            let times_left = r.get("times").and_then(Value::as_u64);
            responses.push(Response { method, params: r.get("params").cloned(), answer, times_left });
        }
        let mut rules = Vec::new();
        for (i, r) in gateway.get("runs").and_then(Value::as_array).into_iter().flatten().enumerate() {
            let status = field_str(r, "status").unwrap_or_else(|| "ok".into());
            if !matches!(status.as_str(), "ok" | "error" | "timeout") {
                return Err(format!("gateway.runs[{i}].status must be ok, error or timeout"));
            }
            rules.push(RunRule {
                pattern: r.get("match").cloned().unwrap_or_else(|| json!({})),
                reply: field_str(r, "reply"),
                status,
                error: field_str(r, "error"),
                usage: r.get("usage").cloned(),
                model: field_str(r, "model"),
                duration_ms: r.get("durationMs").and_then(Value::as_i64).unwrap_or(0),
            });
        }
        Ok(ScriptedGateway(Mutex::new(Script { responses, rules, runs: Vec::new(), calls: Vec::new(), now })))
    }

    /// Every call made so far, in order.
    pub fn calls(&self) -> Vec<RecordedCall> {
        self.lock().calls.clone()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Script> {
        crate::poison::lock_whole(&self.0)
    }

    /// Records a call and answers it from `responses` if an entry fits.
    fn scripted(&self, method: &str, params: Value) -> (Option<Result<Value, String>>, Value) {
        let mut script = self.lock();
        script.calls.push(RecordedCall { method: method.to_string(), params: params.clone() });
        let entry = script
            .responses
            .iter_mut()
            .find(|r| r.method == method && r.times_left != Some(0) && r.params.as_ref().is_none_or(|p| is_match(p, &params)));
        let answer = entry.map(|r| {
            if let Some(n) = r.times_left.as_mut() {
                *n -= 1;
            }
            r.answer.clone()
        });
        (answer, params)
    }
}

/// A scripted error. The conformance format writes errors as the reference's client
/// words them; the two it branches on carry their kind here: a client-side timeout
/// (`gateway timeout after …`, what the reference's `callGateway` throws) and a missing
/// session (`No session found…`). This is the test double reading its own script, never a
/// decision of the product.
fn error(message: String) -> GatewayError {
    let kind = if message.starts_with("gateway timeout") {
        ErrorKind::Timeout
    } else if message.starts_with("No session found") {
        ErrorKind::NotFound
    } else {
        ErrorKind::Other
    };
    GatewayError { kind, message }
}

impl Gateway for ScriptedGateway {
    fn sessions_list(&self, params: &ListParams) -> GatewayResult<SessionList> {
        match self.scripted("sessions.list", wire::params::list(Era::V3, params, 0)).0 {
            Some(Ok(v)) => Ok(wire::answers::session_list(&v)),
            Some(Err(e)) => Err(error(e)),
            None => Ok(SessionList::default()),
        }
    }

    fn sessions_resolve(&self, params: &ResolveParams) -> GatewayResult<String> {
        match self.scripted("sessions.resolve", wire::params::resolve(params)).0 {
            Some(Ok(v)) => Ok(wire::answers::resolved_key(&v)),
            Some(Err(e)) => Err(error(e)),
            None => Ok(String::new()),
        }
    }

    fn chat_histories(&self, params: &[HistoryParams]) -> Vec<GatewayResult<History>> {
        // One recorded `chat.history` call each, in order, as the cases record them.
        super::one_by_one(self, params)
    }

    fn chat_history(&self, params: &HistoryParams) -> GatewayResult<History> {
        match self.scripted("chat.history", wire::params::history(Era::V3, params)).0 {
            Some(Ok(v)) => Ok(wire::answers::history(Era::V3, &v)),
            Some(Err(e)) => Err(error(e)),
            None => {
                // The session's transcript, built from its runs.
                let script = self.lock();
                let mut messages = Vec::new();
                for run in script.runs.iter().filter(|r| r.session_key == params.session_key) {
                    messages.push(json!({"role": "user", "content": [{"type": "text", "text": run.message}]}));
                    if let (Some(reply), false) = (&run.reply, run.status == "timeout") {
                        messages.push(json!({"role": "assistant", "content": [{"type": "text", "text": reply}]}));
                    }
                }
                let limit = params.limit.map_or(messages.len(), |l| l as usize);
                let skip = messages.len().saturating_sub(limit);
                Ok(History { session_id: None, messages: messages.iter().skip(skip).map(wire::answers::transcript_message).collect() })
            }
        }
    }

    fn agent(&self, params: &AgentParams) -> GatewayResult<AgentAccepted> {
        let (answer, wire_params) = self.scripted("agent", wire::params::agent(Era::V3, params));
        match answer {
            Some(Ok(v)) => return Ok(wire::answers::agent_accepted(&v)),
            Some(Err(e)) => return Err(error(e)),
            None => {}
        }
        let mut script = self.lock();
        let id = format!("run-{}", script.runs.len() + 1);
        let rule = script.rules.iter().find(|r| is_match(&r.pattern, &wire_params));
        let run = Run {
            id: id.clone(),
            session_key: params.session_key.clone().unwrap_or_default(),
            message: params.message.clone(),
            reply: rule.and_then(|r| r.reply.clone()),
            status: rule.map_or_else(|| "ok".to_string(), |r| r.status.clone()),
            error: rule.and_then(|r| r.error.clone()),
            usage: rule.and_then(|r| r.usage.clone()),
            model: rule.and_then(|r| r.model.clone()),
            started_at: script.now,
            ended_at: script.now + rule.map_or(0, |r| r.duration_ms),
        };
        script.runs.push(run);
        Ok(AgentAccepted { run_id: Some(id) })
    }

    fn agent_wait(&self, params: &WaitParams) -> GatewayResult<WaitResult> {
        match self.scripted("agent.wait", wire::params::wait(params)).0 {
            Some(Ok(v)) => return Ok(wire::answers::wait_result(&v)),
            Some(Err(e)) => return Err(error(e)),
            None => {}
        }
        let script = self.lock();
        let Some(run) = script.runs.iter().find(|r| r.id == params.run_id) else {
            return Ok(WaitResult::default());
        };
        if run.status == "timeout" {
            return Ok(WaitResult { status: Some("timeout".into()), ..Default::default() });
        }
        Ok(WaitResult {
            status: Some(run.status.clone()),
            error: run.error.clone(),
            started_at: Some(run.started_at),
            ended_at: Some(run.ended_at),
            usage: run.usage.as_ref().and_then(wire::answers::usage),
            model: run.model.clone(),
        })
    }

    fn send(&self, params: &SendParams) -> GatewayResult<()> {
        match self.scripted("send", wire::params::send(params)).0 {
            Some(Err(e)) => Err(error(e)),
            _ => Ok(()),
        }
    }

    fn sessions_patch(&self, params: &PatchParams) -> GatewayResult<()> {
        match self.scripted("sessions.patch", wire::params::patch(params)).0 {
            Some(Err(e)) => Err(error(e)),
            _ => Ok(()),
        }
    }

    fn sessions_delete(&self, params: &DeleteParams) -> GatewayResult<()> {
        match self.scripted("sessions.delete", wire::params::delete(params)).0 {
            Some(Err(e)) => Err(error(e)),
            _ => Ok(()),
        }
    }
}

/// The scripted gateway knows no tree: it is a plain mock, and the host's guard (N15) is
/// not applied in conformance runs. A restricted caller over it sees its own session only.
impl SessionTree for ScriptedGateway {
    fn canonical_key(&self, key: &str) -> String {
        key.trim().to_string()
    }

    fn spawned_trees(&self, roots: &HashSet<String>) -> GatewayResult<HashSet<String>> {
        Ok(roots.clone())
    }

    fn rows_of(&self, _keys: &HashSet<String>) -> GatewayResult<Vec<SessionRow>> {
        Ok(Vec::new())
    }

    fn exists(&self, _key: &str) -> GatewayResult<bool> {
        Ok(false)
    }

    fn run_session(&self, run_id: &str) -> Option<String> {
        self.lock().runs.iter().find(|r| r.id == run_id).map(|r| r.session_key.clone())
    }

    /// A plain mock: its waits are made as a case scripts them (one `agent.wait` each).
    fn run_state(&self, _run_id: &str) -> RunState {
        RunState::Unknown
    }
}
