//! Arbitrary import arguments, as a guest may pass them, against the embedded gateway over a
//! copy of the sample state: up to 12 calls of the nine gateway methods (and a batched
//! `chat.histories`), with keys, ids, labels and text drawn from the sample state, from a
//! list of awkward values and from the input itself. The wait of `agent.wait` is cut to
//! 20 ms (the host's import layer bounds every wait by the call's time left).
//!
//! What must hold:
//! - no panic anywhere (a panic the host catches aborts too: libFuzzer's panic hook);
//! - every error has a message;
//! - `sessions.list` answers at most `limit` rows, newest first, each key once, matching
//!   its `label` and `spawnedBy` filters; `sessions.resolve` answers a key that exists;
//!   `chat.history` refuses a `limit` outside 1–1000 and otherwise answers at most `limit`
//!   messages; `chat.histories` answers what one `chat.history` after another does;
//! - an accepted `agent` run has the idempotency key as its id and its session exists; an
//!   accepted `send` is in the outbox; a `sessions.patch` leaves the session there with its
//!   label; a `sessions.delete` leaves it gone (and never deletes the main session);
//! - afterwards every store is JSON, every transcript starts with a session header, and
//!   nothing was written outside the agents' session directories and `session-tools/`.
#![no_main]

use std::collections::HashSet;
use std::path::Path;
use std::time::Duration;

use libfuzzer_sys::arbitrary::{Result, Unstructured};
use libfuzzer_sys::fuzz_target;
use session_tools_fuzz::host::*;
use session_tools_host::gateway::embedded::EmbeddedGateway;
use session_tools_host::gateway::*;

/// Values that have broken parsers before, or sit on a rule's edge.
const AWKWARD: [&str; 24] = [
    "",
    " ",
    "main",
    "MAIN",
    "global",
    "unknown",
    "agent:main:",
    "agent::main",
    "agent:Main:Main",
    "agent:ops:subagent:x",
    "agent:main:subagent:new",
    "discord:channel:1187421193829244938",
    "channel:1187421193829244938",
    "subagent:6f1e2d3c-4b5a-4978-8a6b-5c4d3e2f1a0b",
    "../../etc/passwd",
    "a/b",
    "a\u{0}b",
    "[message_id: 1]\nGracias, señor",
    "谢谢你的帮助，朋友们 🎉",
    "e\u{301}e\u{301}e\u{301}",
    "👩‍👩‍👧‍👦",
    "ééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééé",
    "discord",
    "webchat",
];

fn text(u: &mut Unstructured) -> Result<String> {
    Ok(match u.int_in_range(0..=4u8)? {
        0 => u.choose(&SAMPLE_KEYS)?.to_string(),
        1 => u.choose(&SAMPLE_SESSION_IDS)?.to_string(),
        2 => u.choose(&SAMPLE_LABELS)?.to_string(),
        3 => u.choose(&AWKWARD)?.to_string(),
        _ => u.arbitrary::<String>()?,
    })
}

fn maybe_text(u: &mut Unstructured) -> Result<Option<String>> {
    Ok(if u.arbitrary()? { Some(text(u)?) } else { None })
}

fn maybe<T>(u: &mut Unstructured, f: impl FnOnce(&mut Unstructured) -> Result<T>) -> Result<Option<T>> {
    Ok(if u.arbitrary()? { Some(f(u)?) } else { None })
}

fn small(u: &mut Unstructured) -> Result<u32> {
    Ok(match u.int_in_range(0..=3u8)? {
        0 => 0,
        1 => u.int_in_range(1..=5)?,
        2 => u.choose(&[999, 1000, 1001, u32::MAX])?.to_owned(),
        _ => u.arbitrary()?,
    })
}

fn history_params(u: &mut Unstructured) -> Result<HistoryParams> {
    Ok(HistoryParams { session_key: text(u)?, limit: maybe(u, small)? })
}

#[derive(Debug)]
enum Call {
    List(ListParams),
    Resolve(ResolveParams),
    History(HistoryParams),
    Histories(Vec<HistoryParams>),
    Agent(AgentParams),
    Wait(WaitParams),
    Send(SendParams),
    Patch(PatchParams),
    Delete(DeleteParams),
}

fn call(u: &mut Unstructured) -> Result<Call> {
    Ok(match u.int_in_range(0..=8u8)? {
        0 => Call::List(ListParams {
            limit: maybe(u, small)?,
            active_minutes: maybe(u, small)?,
            include_global: u.arbitrary()?,
            include_unknown: u.arbitrary()?,
            spawned_by: maybe_text(u)?,
            label: maybe_text(u)?,
            agent_id: maybe_text(u)?,
            search: maybe_text(u)?,
        }),
        1 => Call::Resolve(ResolveParams {
            key: maybe_text(u)?,
            session_id: maybe_text(u)?,
            label: maybe_text(u)?,
            agent_id: maybe_text(u)?,
            spawned_by: maybe_text(u)?,
            include_global: u.arbitrary()?,
            include_unknown: u.arbitrary()?,
        }),
        2 => Call::History(history_params(u)?),
        3 => {
            let n = u.int_in_range(0..=4)?;
            Call::Histories((0..n).map(|_| history_params(u)).collect::<Result<_>>()?)
        }
        4 => Call::Agent(AgentParams {
            message: text(u)?,
            session_key: maybe_text(u)?,
            idempotency_key: text(u)?,
            deliver: u.arbitrary()?,
            channel: maybe_text(u)?,
            lane: maybe_text(u)?,
            extra_system_prompt: maybe_text(u)?,
            thinking: maybe_text(u)?,
            timeout: maybe(u, small)?,
            label: maybe_text(u)?,
            spawned_by: maybe_text(u)?,
            group_id: maybe_text(u)?,
            group_channel: maybe_text(u)?,
            group_space: maybe_text(u)?,
        }),
        5 => Call::Wait(WaitParams { run_id: text(u)?, timeout_ms: u.int_in_range(0..=20)? }),
        6 => Call::Send(SendParams {
            to: text(u)?,
            message: text(u)?,
            channel: maybe_text(u)?,
            account_id: maybe_text(u)?,
            idempotency_key: text(u)?,
        }),
        7 => Call::Patch(PatchParams { key: text(u)?, label: maybe_text(u)?, model: maybe_text(u)? }),
        _ => Call::Delete(DeleteParams { key: text(u)?, delete_transcript: u.arbitrary()? }),
    })
}

fn calls(data: &[u8]) -> Result<Vec<Call>> {
    let mut u = Unstructured::new(data);
    let n = u.int_in_range(1..=12)?;
    let mut calls = Vec::new();
    for _ in 0..n {
        calls.push(call(&mut u)?);
    }
    Ok(calls)
}

fn has_message<T>(answer: &GatewayResult<T>) {
    if let Err(e) = answer {
        assert!(!e.message.trim().is_empty(), "an error without a message");
    }
}

fn check(gateway: &EmbeddedGateway, call: &Call) {
    match call {
        Call::List(p) => {
            let list = gateway.sessions_list(p).unwrap_or_else(|e| panic!("sessions.list failed: {e}"));
            let rows = &list.sessions;
            if let Some(limit) = p.limit {
                assert!(rows.len() <= limit.max(1) as usize, "{} rows for limit {limit}", rows.len());
            }
            assert!(rows.windows(2).all(|w| w[0].updated_at.unwrap_or(0) >= w[1].updated_at.unwrap_or(0)), "rows not newest first");
            let keys: HashSet<&str> = rows.iter().map(|r| r.key.as_str()).collect();
            assert_eq!(keys.len(), rows.len(), "a key listed twice");
            if let Some(label) = p.label.as_deref().map(str::trim).filter(|l| !l.is_empty()) {
                assert!(rows.iter().all(|r| r.label.as_deref() == Some(label)), "label filter {label:?}");
            }
            if let Some(parent) = p.spawned_by.as_deref().filter(|s| !s.is_empty()) {
                assert!(rows.iter().all(|r| r.spawned_by.as_deref() == Some(parent)), "spawnedBy filter {parent:?}");
            }
        }
        Call::Resolve(p) => {
            let resolved = gateway.sessions_resolve(p);
            has_message(&resolved);
            if let Ok(key) = resolved {
                assert!(!key.is_empty(), "resolved to an empty key");
                assert_eq!(gateway.exists(&key), Ok(true), "resolved to {key:?}, which does not exist");
            }
        }
        Call::History(p) => {
            let answer = gateway.chat_history(p);
            match p.limit {
                Some(0) => assert!(answer.is_err(), "limit 0 accepted"),
                Some(l) if l > 1000 => assert!(answer.is_err(), "limit {l} accepted"),
                limit => {
                    let history = answer.unwrap_or_else(|e| panic!("chat.history of {:?} failed: {e}", p.session_key));
                    assert!(history.messages.len() <= limit.unwrap_or(200) as usize);
                }
            }
        }
        Call::Histories(ps) => {
            let together = gateway.chat_histories(ps);
            assert_eq!(together.len(), ps.len());
            for (p, answer) in ps.iter().zip(together) {
                assert_eq!(answer, gateway.chat_history(p), "chat.histories differs from chat.history for {p:?}");
            }
        }
        Call::Agent(p) => {
            let accepted = gateway.agent(p);
            has_message(&accepted);
            assert!(gateway.runs().wait_idle(Duration::from_secs(5)), "an echo run did not end");
            if let Ok(accepted) = accepted {
                assert_eq!(accepted.run_id.as_deref(), Some(p.idempotency_key.as_str()));
                let key = p.session_key.clone().unwrap_or_else(|| "main".into());
                assert_eq!(gateway.exists(&key), Ok(true), "the session of an accepted run ({key:?}) does not exist");
            }
        }
        Call::Wait(p) => {
            let waited = gateway.agent_wait(p).unwrap_or_else(|e| panic!("agent.wait failed: {e}"));
            assert!(waited.status.is_some(), "agent.wait without a status");
        }
        Call::Send(p) => {
            let sent = gateway.send(p);
            has_message(&sent);
            if sent.is_ok() {
                let outbox = gateway.outbox().read_all().expect("the outbox is readable");
                assert!(outbox.iter().any(|d| d["idempotencyKey"] == p.idempotency_key.as_str()), "an accepted send is not in the outbox");
            }
        }
        Call::Patch(p) => {
            let patched = gateway.sessions_patch(p);
            has_message(&patched);
            if patched.is_ok() {
                let found = gateway.find(&p.key).expect("the store is readable");
                let found = found.unwrap_or_else(|| panic!("a patched session ({:?}) does not exist", p.key));
                if let Some(label) = &p.label {
                    assert_eq!(found.text("label"), Some(label.trim()), "the label of {:?}", p.key);
                }
            }
        }
        Call::Delete(p) => {
            let deleted = gateway.sessions_delete(p);
            has_message(&deleted);
            if deleted.is_ok() {
                assert_eq!(gateway.exists(&p.key), Ok(false), "a deleted session ({:?}) is still there", p.key);
            }
            if gateway.rules().is_main(&gateway.rules().canonical(&p.key)) {
                assert!(deleted.is_err(), "the main session was deleted");
            }
        }
    }
}

/// Every file under `dir` (relative paths).
fn files(dir: &Path, under: &Path, out: &mut Vec<String>) {
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() {
            files(&path, under, out);
        } else {
            out.push(path.strip_prefix(under).unwrap().to_string_lossy().into_owned());
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let Ok(calls) = calls(data) else { return };
    let dir = fresh_state();
    let gateway = open_gateway(dir.path());
    for call in &calls {
        check(&gateway, call);
    }
    assert!(gateway.runs().wait_idle(Duration::from_secs(5)));
    drop(gateway);

    check_stores_are_json(dir.path());
    let mut all = Vec::new();
    files(dir.path(), dir.path(), &mut all);
    for file in all {
        let in_sessions = file.starts_with("agents/") && file.split('/').nth(2) == Some("sessions") && file.matches('/').count() == 3;
        let known = in_sessions || file.starts_with("session-tools/") || sample_state().join(&file).exists();
        assert!(known, "a file was written outside the session directories: {file}");
        if in_sessions && file.ends_with(".jsonl") {
            let bytes = std::fs::read(dir.path().join(&file)).unwrap();
            assert!(starts_with_header(&bytes), "{file} does not start with a session header");
            // The message tree is whole: every entry's parent is an entry before it.
            let entries: Vec<JsValue> = transcript_lines(&bytes).into_iter().flatten().collect();
            for (i, entry) in entries.iter().enumerate().skip(1) {
                if let Some(parent) = entry.field("parentId").filter(|p| **p != JsValue::Null) {
                    assert!(
                        entries[..i].iter().any(|e| e.field("id") == Some(parent)),
                        "{file}: an entry's parent is not in the file: {entry:?}"
                    );
                }
            }
        }
    }
});
