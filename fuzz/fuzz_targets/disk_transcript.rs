//! Arbitrary bytes as a session transcript (`<sessionId>.jsonl`) of the sample state, read
//! by the embedded gateway (`chat.history`, alone and batched), through the real component
//! (`sessions_history`, `sessions_list` with `messageLimit`), and appended to.
//!
//! What must hold, against an independent reading of the file as pi-coding-agent and the
//! reference gateway read it (`JSON.parse` per line, `src/host.rs`):
//! - no panic anywhere (a panic the host catches aborts too: libFuzzer's panic hook);
//! - `chat.history` answers the last `limit` messages, no more and no fewer, each as the
//!   reference reads it (the same JSON value; a user message's envelope and hint lines
//!   stripped by `chat-sanitize.js`'s rules, `tests/src/oracles.rs`);
//!   `chat.histories` answers exactly what one `chat.history` after another does;
//! - both tools answer JSON (never a trap, a limit or a host fault);
//! - an append to a file that starts with a session header (or is empty) succeeds, keeps
//!   every byte already there, and its `parentId` is the id of the last entry as
//!   pi-coding-agent finds it (the message tree stays whole); it is then the last message
//!   read. An append to any other file fails and changes nothing.
#![no_main]

use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

use libfuzzer_sys::fuzz_target;
use serde_json::value::RawValue;
use serde_json::{json, Value};
use session_tools_fuzz::host::*;
use session_tools_fuzz::oracles::{reference_read, same_json};
use session_tools_host::gateway::embedded::EmbeddedGateway;
use session_tools_host::gateway::{Gateway, HistoryParams};
use session_tools_host::{Caller, Service, ServiceBuilder};

struct World {
    /// Kept for the process's life (the state directory).
    _dir: TempDir,
    transcript: PathBuf,
    gateway: Arc<EmbeddedGateway>,
    service: Service,
}

fn world() -> &'static World {
    static WORLD: OnceLock<World> = OnceLock::new();
    WORLD.get_or_init(|| {
        let dir = fresh_state();
        let gateway = open_gateway(dir.path());
        let service = ServiceBuilder::over_embedded(&gateway).with_runtime(runtime()).build().expect("opening the service");
        World { transcript: dir.path().join(DISCORD_TRANSCRIPT), _dir: dir, gateway, service }
    })
}

fn history(gateway: &EmbeddedGateway, limit: u32) -> Vec<(Option<String>, String)> {
    let params = HistoryParams { session_key: DISCORD.into(), limit: Some(limit) };
    let answer = gateway.chat_history(&params).unwrap_or_else(|e| panic!("chat.history (limit {limit}) failed: {e}"));
    answer.messages.into_iter().map(|m| (m.role, m.json)).collect()
}

const APPENDED: &str = "fuzz: an appended message";

fuzz_target!(|data: &[u8]| {
    let w = world();
    replace_file(&w.transcript, data);
    let expected = transcript_messages(data);

    // chat.history: the last `limit` messages, each as the file has it.
    for limit in [1u32, 3, 200] {
        let got = history(&w.gateway, limit);
        let want = &expected[expected.len().saturating_sub(limit as usize)..];
        assert_eq!(got.len(), want.len(), "chat.history (limit {limit}) answered {} messages of {}", got.len(), expected.len());
        for ((role, json), raw) in got.iter().zip(want) {
            let reference = Json::parse(raw).expect("a message is JSON");
            assert_eq!(role.as_deref(), reference.text_field("role").as_deref(), "the role of {raw}");
            assert!(serde_json::from_str::<Box<serde_json::value::RawValue>>(json).is_ok(), "an answered message is not JSON: {json}");
            // As the reference answers it (`JSON.stringify` of the parsed message, a user
            // message's envelope and hints stripped), where serde_json can hold the value
            // (not numbers beyond f64 nor lone surrogates).
            if let (Ok(answered), Ok(written)) = (serde_json::from_str::<Value>(json), serde_json::from_str::<Value>(raw)) {
                let expected = reference_read(&written);
                assert!(same_json(&answered, &expected), "message read as {answered}, the reference reads {expected}");
            }
        }
    }
    // chat.histories answers as one chat.history after another.
    let batch = [3u32, 200].map(|limit| HistoryParams { session_key: DISCORD.into(), limit: Some(limit) });
    let together = w.gateway.chat_histories(&batch);
    for (params, answer) in batch.iter().zip(together) {
        let alone = w.gateway.chat_history(params);
        assert_eq!(answer, alone, "chat.histories differs from chat.history (limit {:?})", params.limit);
    }

    // The tools, through the component.
    let caller = Caller { agent_session_key: Some("agent:main:main".into()), ..Caller::default() };
    for (tool, args) in [
        ("sessions_history", format!(r#"{{"sessionKey":"{DISCORD}","limit":3,"includeTools":true}}"#)),
        ("sessions_list", r#"{"messageLimit":2}"#.to_string()),
    ] {
        let result = w.service.call(&caller, tool, &args).unwrap_or_else(|e| panic!("{tool} failed: {e}"));
        // JSON text (a lone surrogate a transcript holds is valid JSON, which serde_json's
        // `Value` refuses: read as text fields).
        let fields = match Json::parse(&result) {
            Some(Json::Object(fields)) => fields,
            other => panic!("{tool} answered something that is not a JSON object ({other:?}): {result}"),
        };
        let array =
            |raw: &str| serde_json::from_str::<Vec<Box<RawValue>>>(raw).unwrap_or_else(|e| panic!("{tool}: not an array ({e}): {raw}"));
        match tool {
            "sessions_history" => {
                let messages = array(fields.get("messages").unwrap_or_else(|| panic!("sessions_history without messages: {result}")).get());
                assert!(messages.len() <= 3, "{result}");
            }
            _ => {
                let rows = array(fields.get("sessions").unwrap_or_else(|| panic!("sessions_list without sessions: {result}")).get());
                let row = rows.iter().filter_map(|r| match Json::parse(r.get()) {
                    Some(Json::Object(row)) => Some(row),
                    _ => None,
                });
                let row = row.into_iter().find(|r| r.get("key").is_some_and(|k| k.get() == format!("{DISCORD:?}")));
                let row = row.unwrap_or_else(|| panic!("sessions_list lost the session: {result}"));
                if let Some(messages) = row.get("messages") {
                    assert!(array(messages.get()).len() <= 2, "{result}");
                }
            }
        }
    }

    // An append: the message tree stays whole, and nothing already there changes.
    let found = w.gateway.find(DISCORD).expect("the store is readable").expect("the session exists");
    let appended = w.gateway.append(&found, &json!({"role": "user", "content": [{"type": "text", "text": APPENDED}], "timestamp": NOW}));
    let after = std::fs::read(&w.transcript).expect("the transcript is still there");
    if !(data.is_empty() || starts_with_header(data)) {
        let error = appended.expect_err("an append to a transcript without a session header succeeded");
        assert!(!error.message.is_empty());
        assert_eq!(after, data, "a transcript that was not appended to changed");
        return;
    }
    appended.unwrap_or_else(|e| panic!("an append to a transcript with a session header failed: {e}"));
    assert!(after.starts_with(data), "the append rewrote what was there");
    let mut added = &after[data.len()..];
    if !data.is_empty() && !data.ends_with(b"\n") {
        added = added.strip_prefix(b"\n").expect("a cut last line gets its line break first");
    }
    let added = std::str::from_utf8(added).expect("the host writes UTF-8");
    let mut lines: Vec<&str> = added.strip_suffix('\n').expect("a line ends with a line break").split('\n').collect();
    if data.is_empty() {
        let header = JsValue::parse(lines.remove(0)).expect("the header is JSON");
        assert!(header.field("type").is_some_and(|t| t.is_str("session")), "{header:?}");
    }
    assert_eq!(lines.len(), 1, "one line was appended: {added:?}");
    let line = JsValue::parse(lines[0]).expect("the appended line is JSON");
    let parent = if data.is_empty() { Some(JsValue::Null) } else { expected_parent(data) };
    assert_eq!(
        line.field("parentId"),
        parent.as_ref(),
        "the new entry's parent (the message tree) after {:?}",
        String::from_utf8_lossy(data)
    );
    let last = history(&w.gateway, 1);
    assert!(last.len() == 1 && last[0].1.contains(APPENDED), "the appended message is not the last one read: {last:?}");
});
