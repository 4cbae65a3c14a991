//! Reproductions of reported differences, through the command line on copies of the sample state: where
//! the component and the embedded gateway used to differ from OpenClaw's own tools (the
//! real gateway's answers are quoted in each test; `tests/openclaw_parity.rs` asks the real
//! gateway itself).

#![forbid(unsafe_code)]

use std::path::Path;

use serde_json::{json, Value};
use session_tools_tests::cli::{call, cli, stderr};
use session_tools_tests::sample_copy;

const MAIN_STORE: &str = "agents/main/sessions/sessions.json";
const CHILD: &str = "agent:main:subagent:6f1e2d3c-4b5a-4978-8a6b-5c4d3e2f1a0b";
const DISCORD: &str = "agent:main:discord:channel:1187421193829244938";

fn read_json(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// Changes the sample's main store (as written by OpenClaw: two-space JSON).
fn edit_store(state: &Path, change: impl FnOnce(&mut serde_json::Map<String, Value>)) {
    let path = state.join(MAIN_STORE);
    let mut store = read_json(&path);
    change(store.as_object_mut().unwrap());
    std::fs::write(&path, serde_json::to_string_pretty(&store).unwrap()).unwrap();
}

/// Merges a fragment into the sample's config.
fn configure(state: &Path, fragment: Value) {
    let path = state.join("moltbot.json");
    let mut config = read_json(&path);
    merge(&mut config, &fragment);
    std::fs::write(&path, config.to_string()).unwrap();
}

fn merge(into: &mut Value, from: &Value) {
    match (into, from) {
        (Value::Object(a), Value::Object(b)) => {
            for (k, v) in b {
                merge(a.entry(k.clone()).or_insert(Value::Null), v);
            }
        }
        (slot, v) => *slot = v.clone(),
    }
}

#[test]
fn a_sandboxed_caller_spawns_a_sub_agent_with_a_model() {
    // OpenClaw: {"status": "accepted", ..., "modelApplied": true}.
    let state = sample_copy();
    configure(
        state.path(),
        json!({"agents": {"defaults": {"sandbox": {"mode": "all"}, "subagents": {"model": "anthropic/claude-opus-4-5"}}}}),
    );
    let spawned = call(state.path(), "agent:main:main", &["--sandboxed", "--wait", "0"], "sessions_spawn", r#"{"task":"t"}"#);
    assert_eq!(spawned["status"], "accepted", "{spawned}");
    assert_eq!(spawned["modelApplied"], true, "{spawned}");
    // An explicit model too.
    let spawned = call(
        state.path(),
        "agent:main:main",
        &["--sandboxed", "--wait", "0"],
        "sessions_spawn",
        r#"{"task":"t","model":"openai/gpt-5.2"}"#,
    );
    assert_eq!((spawned["status"].as_str(), spawned["modelApplied"].as_bool()), (Some("accepted"), Some(true)), "{spawned}");
    let store = read_json(&state.path().join(MAIN_STORE));
    let child = &store[spawned["childSessionKey"].as_str().unwrap()];
    assert_eq!((child["providerOverride"].as_str(), child["modelOverride"].as_str()), (Some("openai"), Some("gpt-5.2")));
    assert_eq!(child["spawnedBy"], "agent:main:main");

    // The errors OpenClaw gives for such spawns come through, not a refusal of the guard.
    let long = "x".repeat(65);
    let spawned = call(
        state.path(),
        "agent:main:main",
        &["--sandboxed", "--wait", "0"],
        "sessions_spawn",
        &format!(r#"{{"task":"t","label":"{long}"}}"#),
    );
    assert_eq!(spawned["status"], "error");
    assert_eq!(spawned["error"], "invalid agent params: at /label: must NOT have more than 64 characters");
    configure(
        state.path(),
        json!({"session": {"sendPolicy": {"rules": [{"action": "deny", "match": {"keyPrefix": "agent:main:subagent:"}}]}}}),
    );
    let spawned = call(state.path(), "agent:main:main", &["--sandboxed", "--wait", "0"], "sessions_spawn", r#"{"task":"t"}"#);
    assert_eq!(
        (spawned["status"].as_str(), spawned["error"].as_str()),
        (Some("error"), Some("send blocked by session policy")),
        "{spawned}"
    );
}

#[test]
fn a_thread_id_keeps_its_type() {
    // OpenClaw lists lastThreadId 514 as "threadId": 514, and "514" as "514".
    let state = sample_copy();
    edit_store(state.path(), |store| {
        store[DISCORD]["lastThreadId"] = json!(514);
        store["agent:main:telegram:group:-1001234567890"]["lastThreadId"] = json!("514");
    });
    let listed = call(state.path(), "agent:main:main", &[], "sessions_list", "{}");
    let row = |key: &str| listed["sessions"].as_array().unwrap().iter().find(|r| r["key"] == key).unwrap().clone();
    assert_eq!(row(DISCORD)["deliveryContext"]["threadId"], json!(514));
    assert_eq!(row("agent:main:telegram:group:-1001234567890")["deliveryContext"]["threadId"], json!("514"));
}

#[test]
fn a_spawn_may_reuse_a_label_and_a_patch_may_not() {
    // OpenClaw: the agent method accepts a duplicate label; sessions.patch refuses it.
    let state = sample_copy();
    let spawned = call(state.path(), "agent:main:main", &["--wait", "0"], "sessions_spawn", r#"{"task":"t","label":"pricing-research"}"#);
    assert_eq!(spawned["status"], "accepted", "{spawned}");
    let store = read_json(&state.path().join(MAIN_STORE));
    let labelled = store.as_object().unwrap().values().filter(|e| e["label"] == "pricing-research").count();
    assert_eq!(labelled, 2);
    let dir = state.path().to_str().unwrap();
    let patch = cli(&["--state", dir, "patch", DISCORD, "--label", "pricing-research"]);
    // 1: refused (2 is for usage errors).
    assert_eq!(patch.status.code(), Some(1));
    assert!(stderr(&patch).contains("label already in use: pricing-research"), "{}", stderr(&patch));
}

#[test]
fn a_target_without_a_session_id_gets_one() {
    // OpenClaw: accepted; its agent method mints a new sessionId (a new transcript).
    let state = sample_copy();
    edit_store(state.path(), |store| {
        store[CHILD].as_object_mut().unwrap().remove("sessionId");
    });
    let sent = call(
        state.path(),
        "agent:main:main",
        &["--wait", "0"],
        "sessions_send",
        &format!(r#"{{"sessionKey":"{CHILD}","message":"hi","timeoutSeconds":0}}"#),
    );
    assert_eq!(sent["status"], "accepted", "{sent}");
    let store = read_json(&state.path().join(MAIN_STORE));
    let id = store[CHILD]["sessionId"].as_str().expect("a new sessionId").to_string();
    assert_ne!(id, "e7f8a9b0-c1d2-4e3f-8a4b-5c6d7e8f9a0b");
    let transcript = std::fs::read_to_string(state.path().join(format!("agents/main/sessions/{id}.jsonl"))).unwrap();
    assert!(transcript.contains("\"hi\""), "{transcript}");
}

#[test]
fn every_offending_argument_is_named() {
    let state = sample_copy();
    let dir = state.path().to_str().unwrap();
    let output = cli(&[
        "--state",
        dir,
        "call",
        "--as",
        "agent:main:main",
        "sessions_history",
        r#"{"sessionKey":"x","limit":0,"includeTools":"false"}"#,
    ]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("limit must be a number >= 1 (got 0); includeTools must be a boolean (got a string)"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn main_is_shown_only_for_the_callers_own_main_session() {
    // OpenClaw echoes agent:MAIN:main and agent::main::main, with no messages.
    let state = sample_copy();
    for spelling in ["agent:MAIN:main", "agent::main::main"] {
        let history = call(state.path(), "agent:main:main", &[], "sessions_history", &format!(r#"{{"sessionKey":"{spelling}"}}"#));
        assert_eq!(history, json!({"sessionKey": spelling, "messages": []}));
    }
    let history = call(state.path(), "agent:main:main", &[], "sessions_history", r#"{"sessionKey":"agent:main:main","limit":1}"#);
    assert_eq!(history["sessionKey"], "main");
    assert_eq!(history["messages"].as_array().unwrap().len(), 1);
}

#[test]
fn legacy_keys_are_read_and_their_policy_honoured() {
    // G4: a session stored only under `discord:group:legacy` (an older gateway's key).
    let state = sample_copy();
    let session_id = "0d0e0f10-1112-4314-9516-171819202122";
    edit_store(state.path(), |store| {
        store.insert(
            "discord:group:legacy".into(),
            json!({"sessionId": session_id, "updatedAt": 1769430000000u64, "chatType": "group", "channel": "discord", "sendPolicy": "deny"}),
        );
    });
    let line = json!({"type": "session", "version": 3, "id": session_id, "timestamp": "2026-01-26T12:00:00.000Z", "cwd": "/w"}).to_string()
        + "\n"
        + &json!({"type": "message", "id": "aaaa0001", "parentId": null, "timestamp": "2026-01-26T12:00:01.000Z",
            "message": {"role": "user", "content": [{"type": "text", "text": "from the old days"}], "timestamp": 1}})
        .to_string()
        + "\n";
    std::fs::write(state.path().join(format!("agents/main/sessions/{session_id}.jsonl")), line).unwrap();
    for key in ["agent:main:discord:group:legacy", "discord:group:legacy"] {
        let history = call(state.path(), "agent:main:main", &[], "sessions_history", &format!(r#"{{"sessionKey":"{key}"}}"#));
        assert_eq!(history["messages"][0]["content"][0]["text"], "from the old days", "{key}: {history}");
    }
    let sent = call(
        state.path(),
        "agent:main:main",
        &["--wait", "0"],
        "sessions_send",
        r#"{"sessionKey":"agent:main:discord:group:legacy","message":"hi","timeoutSeconds":0}"#,
    );
    assert_eq!((sent["status"].as_str(), sent["error"].as_str()), (Some("error"), Some("send blocked by session policy")), "{sent}");
}

#[test]
fn two_spellings_of_one_key_resolve_as_the_gateway_merges_them() {
    // OpenClaw's sessions.list (the reference's merge): one row a key, the entry with the
    // newer updatedAt winning field by field, the other's other fields kept.
    let state = sample_copy();
    let (legacy_id, canonical_id) = ("1a1a1a1a-0000-4000-8000-000000000001", "2b2b2b2b-0000-4000-8000-000000000002");
    edit_store(state.path(), |store| {
        store.insert(
            "discord:group:both".into(),
            json!({"sessionId": legacy_id, "updatedAt": 1769440000000u64, "channel": "discord", "subject": "legacy-only"}),
        );
        store.insert(
            "agent:main:discord:group:both".into(),
            json!({"sessionId": canonical_id, "updatedAt": 1769400000000u64, "channel": "discord", "groupChannel": "#canon-only"}),
        );
    });
    let listed = call(state.path(), "agent:main:main", &[], "sessions_list", r#"{"kinds":["group"]}"#);
    let rows: Vec<&Value> = listed["sessions"].as_array().unwrap().iter().filter(|r| r["key"] == "agent:main:discord:group:both").collect();
    assert_eq!(rows.len(), 1, "{listed}");
    assert_eq!(rows[0]["sessionId"], legacy_id, "the newer entry wins");
    assert_eq!(rows[0]["displayName"], "discord:#canon-only", "the older entry's other fields are kept");
    // A write moves the merged entry to the canonical key.
    let dir = state.path().to_str().unwrap();
    let patch = cli(&["--state", dir, "patch", "agent:main:discord:group:both", "--label", "both"]);
    assert!(patch.status.success(), "{}", stderr(&patch));
    let store = read_json(&state.path().join(MAIN_STORE));
    assert!(store.get("discord:group:both").is_none());
    let entry = &store["agent:main:discord:group:both"];
    assert_eq!(
        (entry["sessionId"].as_str(), entry["subject"].as_str(), entry["label"].as_str()),
        (Some(legacy_id), Some("legacy-only"), Some("both"))
    );
}
