//! The real OpenClaw gateway (npm `clawdbot@2026.1.24-3`, protocol v3) started by
//! `session_tools_tests::openclaw` on a copy of the sample state: its answers, its writes,
//! and an agent run against the scripted model server. These tests need Node/npm and the
//! npm registry on first use (the install is cached outside the repository); without them
//! they fail with the reason, they never skip.

#![forbid(unsafe_code)]

use std::collections::BTreeSet;
use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use session_tools_tests::openclaw::{Client, Gateway, GatewayOptions, MockModel, ModelReply, RpcError};
use session_tools_tests::sample_copy;

fn start(state: &Path, options: GatewayOptions) -> Gateway {
    let started = Instant::now();
    let gateway = Gateway::start(state, options).unwrap_or_else(|e| panic!("starting the real OpenClaw gateway failed:\n{e}"));
    eprintln!(
        "[real_gateway] {} up on port {} in {:.1} s",
        gateway.installation().package,
        gateway.port(),
        started.elapsed().as_secs_f64()
    );
    gateway
}

fn read_json(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("reading {}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{} is not JSON: {e}", path.display()))
}

/// The keys of every agent's `sessions.json` in a state dir.
fn store_keys(state: &Path) -> BTreeSet<String> {
    let mut keys = BTreeSet::new();
    for agent in std::fs::read_dir(state.join("agents")).unwrap() {
        let store = agent.unwrap().path().join("sessions/sessions.json");
        if store.is_file() {
            keys.extend(read_json(&store).as_object().expect("a store is an object").keys().cloned());
        }
    }
    keys
}

fn main_store(state: &Path) -> Value {
    read_json(&state.join("agents/main/sessions/sessions.json"))
}

#[test]
fn the_real_gateway_lists_and_patches_the_sample_state() {
    let t0 = Instant::now();
    let state = sample_copy();
    let expected = store_keys(state.path());
    assert!(expected.len() >= 5, "the sample has sessions: {expected:?}");
    let mut gateway = start(state.path(), GatewayOptions::default());

    let list = gateway.rpc("sessions.list", json!({})).unwrap_or_else(|e| panic!("sessions.list: {e}\n{}", gateway.log_tail(30)));
    let listed: BTreeSet<String> =
        list["sessions"].as_array().expect("sessions.list has sessions").iter().map(|s| s["key"].as_str().unwrap().to_string()).collect();
    assert_eq!(listed, expected, "sessions.list vs the sample's sessions.json keys");
    assert_eq!(list["count"], expected.len());

    // A new session and a change to an existing one land in the store on disk.
    let created = gateway.rpc("sessions.patch", json!({"key": "agent:main:smoke", "label": "smoke"})).unwrap();
    assert_eq!(created["ok"], true);
    assert_eq!(created["key"], "agent:main:smoke");
    let changed = gateway
        .rpc("sessions.patch", json!({"key": "discord:channel:1187421193829244938", "label": "deploys", "sendPolicy": "deny"}))
        .unwrap();
    assert_eq!(changed["key"], "agent:main:discord:channel:1187421193829244938", "a bare key is canonicalised");
    let store = main_store(state.path());
    assert_eq!(store["agent:main:smoke"]["label"], "smoke", "{store:#}");
    assert_eq!(store["agent:main:discord:channel:1187421193829244938"]["label"], "deploys");
    assert_eq!(store["agent:main:discord:channel:1187421193829244938"]["sendPolicy"], "deny");

    // Errors come back as the gateway's error shape.
    match gateway.rpc("sessions.patch", json!({"key": "main", "label": "deploys"})) {
        Err(RpcError::Gateway { code, message, .. }) => {
            assert_eq!(code, "INVALID_REQUEST");
            assert_eq!(message, "label already in use: deploys");
        }
        other => panic!("a duplicate label must be refused: {other:?}"),
    }
    // A wrong token is refused at the handshake.
    match Client::connect(gateway.port(), "not-the-token", Duration::from_secs(10)) {
        Err(RpcError::Gateway { message, .. }) => assert!(message.contains("unauthorized"), "{message}"),
        other => panic!("a wrong token must be refused: {other:?}"),
    }

    let pid = gateway.pid();
    gateway.stop().expect("the gateway's process group is gone");
    assert!(!Path::new(&format!("/proc/{pid}")).exists(), "the gateway process {pid} is gone");
    eprintln!("[real_gateway] list/patch test: {:.1} s", t0.elapsed().as_secs_f64());
}

#[test]
fn an_agent_run_on_the_real_gateway_answers_from_the_mock_model() {
    let t0 = Instant::now();
    let model = MockModel::start(|request| match request.last_user_text() {
        Some(text) if text.contains("ping") => ModelReply::Text("pong".into()),
        other => ModelReply::Text(format!("unexpected prompt: {other:?}")),
    })
    .unwrap();
    let state = sample_copy();
    let options = GatewayOptions { extra_config: model.model_config("mock", "mock-1"), ..GatewayOptions::default() };
    let gateway = start(state.path(), options);

    let accepted = gateway
        .rpc("agent", json!({"message": "ping", "sessionKey": "agent:main:main", "idempotencyKey": "smoke-run-1"}))
        .unwrap_or_else(|e| panic!("agent: {e}\n{}", gateway.log_tail(30)));
    assert_eq!(accepted["status"], "accepted", "{accepted}");
    assert_eq!(accepted["runId"], "smoke-run-1");
    let waited = gateway
        .request("agent.wait", json!({"runId": "smoke-run-1", "timeoutMs": 60_000}), false, Duration::from_secs(70))
        .unwrap_or_else(|e| panic!("agent.wait: {e}\n{}", gateway.log_tail(30)));
    assert_eq!(waited["status"], "ok", "agent.wait: {waited}\n{}", gateway.log_tail(40));

    // The model was asked with the prompt and offered the core session tools.
    let requests = model.requests();
    assert!(!requests.is_empty(), "the gateway never called the mock model");
    let first = &requests[0];
    assert!(first.stream, "the gateway streams");
    assert_eq!(first.model, "mock-1");
    assert!(first.last_user_text().is_some_and(|t| t.contains("ping")), "{:?}", first.last_user_text());
    for tool in ["sessions_list", "sessions_history", "sessions_send", "sessions_spawn"] {
        assert!(first.offers_tool(tool), "{tool} not offered: {:?}", first.tool_names());
    }

    // The reply is in the session's transcript on disk.
    let entry = main_store(state.path())["agent:main:main"].clone();
    let session_id = entry["sessionId"].as_str().expect("the main session has a sessionId");
    let transcript = match entry["sessionFile"].as_str() {
        Some(file) if Path::new(file).is_absolute() => Path::new(file).to_path_buf(),
        _ => state.path().join(format!("agents/main/sessions/{session_id}.jsonl")),
    };
    let text = std::fs::read_to_string(&transcript).unwrap_or_else(|e| panic!("reading {}: {e}", transcript.display()));
    let replied = text.lines().filter_map(|l| serde_json::from_str::<Value>(l).ok()).any(|line| {
        line["message"]["role"] == "assistant"
            && line["message"]["content"].as_array().is_some_and(|c| c.iter().any(|part| part["text"] == "pong"))
    });
    assert!(replied, "no assistant \"pong\" in {}:\n{text}", transcript.display());

    // The same through the double answer of `agent`: accepted, then the final one.
    let done = gateway
        .rpc_final("agent", json!({"message": "ping again", "sessionKey": "agent:main:main", "idempotencyKey": "smoke-run-2"}))
        .unwrap_or_else(|e| panic!("agent (final): {e}\n{}", gateway.log_tail(30)));
    assert_eq!(done["status"], "ok", "{done}");
    assert_eq!(done["runId"], "smoke-run-2");
    eprintln!("[real_gateway] agent test: {} model requests, {:.1} s", model.requests().len(), t0.elapsed().as_secs_f64());
}
