//! Gateway fault injection: errors, timeouts, slow, malformed and oversized answers, a
//! gateway that dies in the middle of a flow, and a process killed in the middle of one.
//! Every case ends in a structured tool result or a tool error — never a panic or a
//! trap — and the embedded store stays consistent.

#![forbid(unsafe_code)]

use std::collections::HashMap;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use session_tools_guest::ports::{Host, LogLevel};
use session_tools_host::config::GuestConfig;
use session_tools_host::gateway::scripted::ScriptedGateway;
use session_tools_host::gateway::*;
use session_tools_host::{AgentSetup, CallError, Caller, Limits, Runtime, Sandbox, Wake, Wakeup};
use session_tools_tests::{root, runtime, sample_copy};

/// What a faulty gateway does instead of answering.
#[derive(Clone, Debug)]
enum Fault {
    Error(&'static str),
    Delay(Duration),
}

/// Wraps a gateway: methods fail or stall as planned, and after `dies_after` calls every
/// call fails as if the gateway had gone away.
struct Faulty {
    inner: Arc<dyn Gateway>,
    faults: HashMap<&'static str, Fault>,
    dies_after: Option<usize>,
    calls: AtomicUsize,
    log: Mutex<Vec<String>>,
}

impl Faulty {
    fn new(inner: Arc<dyn Gateway>) -> Faulty {
        Faulty { inner, faults: HashMap::new(), dies_after: None, calls: AtomicUsize::new(0), log: Mutex::new(Vec::new()) }
    }

    fn on(mut self, method: &'static str, fault: Fault) -> Self {
        self.faults.insert(method, fault);
        self
    }

    fn enter(&self, method: &'static str) -> GatewayResult<()> {
        let n = self.calls.fetch_add(1, Ordering::SeqCst);
        self.log.lock().unwrap().push(method.to_string());
        if self.dies_after.is_some_and(|limit| n >= limit) {
            return Err(GatewayError::new("gateway closed (1006): connection lost"));
        }
        match self.faults.get(method) {
            Some(Fault::Error(message)) => Err(GatewayError::new(*message)),
            Some(Fault::Delay(d)) => {
                std::thread::sleep(*d);
                Ok(())
            }
            None => Ok(()),
        }
    }
}

impl Gateway for Faulty {
    fn sessions_list(&self, p: &ListParams) -> GatewayResult<SessionList> {
        self.enter("sessions.list")?;
        self.inner.sessions_list(p)
    }
    fn sessions_resolve(&self, p: &ResolveParams) -> GatewayResult<String> {
        self.enter("sessions.resolve")?;
        self.inner.sessions_resolve(p)
    }
    fn chat_histories(&self, p: &[HistoryParams]) -> Vec<GatewayResult<History>> {
        one_by_one(self, p)
    }
    fn chat_history(&self, p: &HistoryParams) -> GatewayResult<History> {
        self.enter("chat.history")?;
        self.inner.chat_history(p)
    }
    fn agent(&self, p: &AgentParams) -> GatewayResult<AgentAccepted> {
        self.enter("agent")?;
        self.inner.agent(p)
    }
    fn agent_wait(&self, p: &WaitParams) -> GatewayResult<WaitResult> {
        self.enter("agent.wait")?;
        self.inner.agent_wait(p)
    }
    fn send(&self, p: &SendParams) -> GatewayResult<()> {
        self.enter("send")?;
        self.inner.send(p)
    }
    fn sessions_patch(&self, p: &PatchParams) -> GatewayResult<()> {
        self.enter("sessions.patch")?;
        self.inner.sessions_patch(p)
    }
    fn sessions_delete(&self, p: &DeleteParams) -> GatewayResult<()> {
        self.enter("sessions.delete")?;
        self.inner.sessions_delete(p)
    }
}

struct Quiet;

impl Host for Quiet {
    fn now_ms(&self) -> u64 {
        1_767_225_600_000
    }
    fn new_uuid(&self) -> String {
        uuid_v4()
    }
    fn log(&self, _: LogLevel, _: &str) {}
}

fn uuid_v4() -> String {
    // Tests need unique lower-case v4 ids without another dependency.
    static N: AtomicUsize = AtomicUsize::new(1);
    format!("00000000-0000-4000-8000-{:012x}", N.fetch_add(1, Ordering::SeqCst))
}

fn sandbox(rt: &Runtime, gateway: Arc<dyn Gateway>, limits: Limits) -> Sandbox {
    let config =
        json!({"tools": {"agentToAgent": {"enabled": true}}, "agents": {"list": [{"id": "main", "subagents": {"allowAgents": ["*"]}}]}});
    rt.instantiate(&AgentSetup::new("faults", gateway, Arc::new(Quiet), GuestConfig::of(&config), "/state", limits)).unwrap()
}

fn caller() -> Caller {
    Caller { agent_session_key: Some("agent:main:main".into()), agent_channel: Some("discord".into()), ..Default::default() }
}

/// A scripted gateway with sessions, a transcript and runs that reply.
fn healthy() -> Arc<dyn Gateway> {
    let script = json!({
        "responses": [
            {"method": "sessions.list", "result": {"path": "(multiple)", "sessions": [
                {"key": "agent:main:main", "sessionId": "s-main", "updatedAt": 5, "lastChannel": "discord", "lastTo": "user:1"},
                {"key": "agent:main:discord:group:dev", "sessionId": "s-dev", "channel": "discord"}]}},
            {"method": "sessions.resolve", "result": {"ok": true, "key": "agent:main:discord:group:dev"}}
        ],
        "runs": [{"match": {}, "reply": "fine"}]
    });
    Arc::new(ScriptedGateway::from_json(Some(&script), 1_767_225_600_000).unwrap())
}

/// Representative calls of every tool.
fn calls() -> Vec<(&'static str, Value)> {
    vec![
        ("sessions_list", json!({"messageLimit": 2})),
        ("sessions_history", json!({"sessionKey": "agent:main:discord:group:dev"})),
        ("sessions_history", json!({"sessionKey": "5b0f3c2e-8d1a-4e6b-9c7f-1a2b3c4d5e6f"})),
        ("sessions_send", json!({"sessionKey": "agent:main:discord:group:dev", "message": "hi", "timeoutSeconds": 5})),
        ("sessions_send", json!({"label": "dev", "message": "hi", "timeoutSeconds": 0})),
        ("sessions_spawn", json!({"task": "t", "model": "a/b", "label": "x"})),
        ("agents_list", json!({})),
    ]
}

/// Runs a call and the background work it starts; asserts it ends in a structured way.
fn run_structured(sandbox: &mut Sandbox, gateway: &dyn Gateway, tool: &str, args: &Value) -> Result<Value, String> {
    match sandbox.call_tool(tool, &caller(), &args.to_string()) {
        Ok(output) => {
            let mut jobs = output.jobs;
            let mut steps = 0;
            while let Some(job) = jobs.pop() {
                steps += 1;
                assert!(steps < 100, "{tool}: the flow does not end");
                let wakeup = match &job.wake {
                    Wake::Now => Wakeup::Now,
                    Wake::RunEnd(p) => Wakeup::RunEnded(gateway.agent_wait(p)),
                    Wake::At(_) => continue,
                };
                match sandbox.resume_job(job, wakeup) {
                    Ok(next) => jobs.extend(next),
                    Err(e) => panic!("{tool}: a job step failed in the host: {e}"),
                }
            }
            Ok(serde_json::from_str(&output.result).expect("results are JSON"))
        }
        Err(CallError::Tool(e)) => Err(e.to_string()),
        Err(other) => panic!("{tool} {args}: not a structured outcome: {other:?}"),
    }
}

#[test]
fn every_method_failing_gives_structured_outcomes() {
    let methods = ["sessions.list", "sessions.resolve", "chat.history", "agent", "agent.wait", "send", "sessions.patch", "sessions.delete"];
    let errors = ["boom", "gateway timeout after 10000ms\nGateway target: ws://127.0.0.1:18789", "", "UNAVAILABLE"];
    let mut outcomes = 0;
    for method in methods {
        for error in errors {
            let gateway: Arc<dyn Gateway> = Arc::new(Faulty::new(healthy()).on(method, Fault::Error(error)));
            let mut sb = sandbox(runtime(), gateway.clone(), Limits::default());
            for (tool, args) in calls() {
                let outcome = run_structured(&mut sb, gateway.as_ref(), tool, &args);
                if let Ok(value) = &outcome {
                    if value.get("status") == Some(&json!("error")) {
                        assert!(value["error"].as_str().is_some(), "{tool}: an error status carries a message: {value}");
                    }
                }
                outcomes += 1;
            }
            assert!(!sb.is_broken());
        }
    }
    assert_eq!(outcomes, methods.len() * errors.len() * calls().len());
}

#[test]
fn a_gateway_that_dies_mid_flow_ends_the_flow_cleanly() {
    for dies_after in 1..12 {
        let faulty = Arc::new(Faulty { dies_after: Some(dies_after), ..Faulty::new(healthy()) });
        let gateway: Arc<dyn Gateway> = faulty.clone();
        let mut sb = sandbox(runtime(), gateway.clone(), Limits::default());
        for (tool, args) in [calls()[3].clone(), calls()[5].clone()] {
            let _ = run_structured(&mut sb, gateway.as_ref(), tool, &args);
        }
        assert!(!sb.is_broken(), "after {dies_after} calls");
    }
}

#[test]
fn malformed_answers_are_read_as_absent_fields() {
    let script = json!({
        "responses": [
            {"method": "sessions.list", "result": {"path": 7, "sessions": [1, null, "x", {"key": 5}, {"key": ""},
                {"key": "agent:main:ok", "updatedAt": "yesterday", "deliveryContext": "nope", "label": ["x"], "totalTokens": "many", "systemSent": "yes"}]}},
            {"method": "sessions.list", "result": {"sessions": "not a list"}},
            {"method": "chat.history", "result": {"messages": {"role": "assistant"}}},
            {"method": "chat.history", "result": {"messages": [null, 3, "text", {"role": 5}, {"role": "assistant", "content": "not blocks"}]}},
            {"method": "sessions.resolve", "result": {"key": 42}},
            {"method": "agent", "result": {"runId": 7}},
            {"method": "agent.wait", "result": {"status": 5, "startedAt": "x", "usage": "lots", "model": {}}}
        ]
    });
    let gateway: Arc<dyn Gateway> = Arc::new(ScriptedGateway::from_json(Some(&script), 0).unwrap());
    let mut sb = sandbox(runtime(), gateway.clone(), Limits::default());
    let list = run_structured(&mut sb, gateway.as_ref(), "sessions_list", &json!({})).unwrap();
    assert_eq!(list["count"], 1, "only the row with a key is kept: {list}");
    assert_eq!(list["sessions"][0], json!({"key": "agent:main:ok", "kind": "other", "channel": "unknown"}));
    for (tool, args) in calls() {
        let _ = run_structured(&mut sb, gateway.as_ref(), tool, &args);
    }
    assert!(!sb.is_broken());
}

/// A gateway whose answers are far larger than the guest may be handed.
struct Flood;

impl Gateway for Flood {
    fn sessions_list(&self, _: &ListParams) -> GatewayResult<SessionList> {
        let row = |i: usize| SessionRow { key: format!("agent:main:s{i}"), label: Some("x".repeat(1000)), ..Default::default() };
        Ok(SessionList { path: None, sessions: (0..5_000).map(row).collect() })
    }
    fn sessions_resolve(&self, _: &ResolveParams) -> GatewayResult<String> {
        Ok("k".repeat(3 << 20))
    }
    fn chat_histories(&self, p: &[HistoryParams]) -> Vec<GatewayResult<History>> {
        one_by_one(self, p)
    }
    fn chat_history(&self, _: &HistoryParams) -> GatewayResult<History> {
        let message = TranscriptMessage {
            role: Some("assistant".into()),
            json: format!("{{\"role\":\"assistant\",\"content\":\"{}\"}}", "y".repeat(1 << 20)),
        };
        Ok(History { session_id: None, messages: vec![message; 4] })
    }
    fn agent(&self, _: &AgentParams) -> GatewayResult<AgentAccepted> {
        Ok(AgentAccepted { run_id: Some("r".repeat(3 << 20)) })
    }
    fn agent_wait(&self, _: &WaitParams) -> GatewayResult<WaitResult> {
        Ok(WaitResult { status: Some("ok".into()), error: Some("e".repeat(3 << 20)), ..Default::default() })
    }
    fn send(&self, _: &SendParams) -> GatewayResult<()> {
        Ok(())
    }
    fn sessions_patch(&self, _: &PatchParams) -> GatewayResult<()> {
        Ok(())
    }
    fn sessions_delete(&self, _: &DeleteParams) -> GatewayResult<()> {
        Ok(())
    }
}

#[test]
fn oversized_answers_are_refused_before_they_reach_the_guest() {
    let mut limits = Limits::default();
    limits.max_gateway_answer_bytes = 2 << 20;
    let gateway: Arc<dyn Gateway> = Arc::new(Flood);
    let mut sb = sandbox(runtime(), gateway.clone(), limits);
    let list = sb.call_tool("sessions_list", &caller(), "{}").unwrap_err().to_string();
    assert!(
        list.starts_with("gateway answer too large: sessions.list returned ") && list.ends_with(" bytes (the limit is 2097152)"),
        "{list}"
    );
    let history = sb.call_tool("sessions_history", &caller(), r#"{"sessionKey":"agent:main:main"}"#).unwrap_err();
    assert!(history.to_string().contains("gateway answer too large: chat.history"), "{history}");
    for (tool, args) in calls() {
        let _ = run_structured(&mut sb, gateway.as_ref(), tool, &args);
    }
    assert!(!sb.is_broken());
}

#[test]
fn a_slow_gateway_is_bounded_by_the_call_s_wall_time() {
    let gateway: Arc<dyn Gateway> = Arc::new(Faulty::new(healthy()).on("chat.history", Fault::Delay(Duration::from_millis(400))));
    let mut limits = Limits::default();
    limits.wall_per_call = Duration::from_millis(300);
    let mut sb = sandbox(runtime(), gateway.clone(), limits);
    let started = Instant::now();
    // One history call per row: the second starts after the call's time is up.
    let outcome = sb.call_tool("sessions_list", &caller(), r#"{"messageLimit": 1}"#);
    let elapsed = started.elapsed();
    assert!(elapsed < Duration::from_millis(1500), "took {elapsed:?}");
    match outcome {
        Err(CallError::Tool(e)) => assert!(e.to_string().contains("ran out of time"), "{e}"),
        Err(CallError::WallLimit { .. }) => {}
        other => panic!("expected the call to run out of time, got {other:?}"),
    }
}

#[test]
fn a_process_killed_mid_flow_leaves_a_consistent_state_that_resumes() {
    let state = sample_copy();
    let dir = state.path().to_str().unwrap();
    let rules = state.path().join("slow-runs.json");
    std::fs::write(
        &rules,
        r#"[{"match": {"message": "slow task"}, "reply": "done late", "durationMs": 4000}, {"match": {}, "reply": "ok"}]"#,
    )
    .unwrap();
    let runtime_arg = format!("scripted:{}", rules.display());
    let cli = || {
        let mut c = Command::new(env!("CARGO_BIN_EXE_st-cli"));
        c.env("SESSION_TOOLS_CACHE_DIR", root().join("target/component-cache"));
        c
    };
    let mut child = cli()
        .args([
            "--state",
            dir,
            "--runtime",
            &runtime_arg,
            "call",
            "--as",
            "agent:main:main",
            "--channel",
            "discord",
            "sessions_spawn",
            r#"{"task":"slow task","label":"killed"}"#,
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(1500));
    child.kill().unwrap();
    let _ = child.wait();
    // Every file is whole: the stores parse, every transcript line parses.
    for agent in ["main", "ops"] {
        let sessions = state.path().join(format!("agents/{agent}/sessions"));
        let store: Value = serde_json::from_str(&std::fs::read_to_string(sessions.join("sessions.json")).unwrap()).unwrap();
        assert!(store.is_object());
        for entry in std::fs::read_dir(&sessions).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == "jsonl") {
                for line in std::fs::read_to_string(&path).unwrap().lines().filter(|l| !l.trim().is_empty()) {
                    serde_json::from_str::<Value>(line).unwrap_or_else(|e| panic!("{}: {e}: {line}", path.display()));
                }
            }
        }
    }
    let child_entry = std::fs::read_to_string(state.path().join("agents/main/sessions/sessions.json")).unwrap();
    assert!(child_entry.contains("\"killed\""), "the child session was created before the kill");
    // A new process finds the run its process left cut short, runs it again once under the
    // same id (a run is never silently dropped), and finishes the flow with its reply.
    let resumed = cli().args(["--state", dir, "--runtime", &runtime_arg, "jobs", "--wait", "20"]).output().unwrap();
    assert!(resumed.status.success(), "{}", String::from_utf8_lossy(&resumed.stderr));
    let outbox = cli().args(["--state", dir, "outbox", "--json"]).output().unwrap();
    let outbox: Value = serde_json::from_slice(&outbox.stdout).unwrap();
    let message = outbox[0]["message"].as_str().unwrap_or_default();
    assert!(message.starts_with("Status: success"), "{outbox}");
    assert_eq!(outbox.as_array().map(Vec::len), Some(1), "announced once: {outbox}");
    // The child's transcript (named by the stats line) holds the task and its late reply once.
    let transcript = message.rsplit(" transcript ").next().unwrap();
    let text = std::fs::read_to_string(transcript).unwrap();
    assert_eq!((text.matches("\"slow task\"").count(), text.matches("\"done late\"").count()), (1, 1), "{text}");
    let listed = cli().args(["--state", dir, "call", "--as", "agent:main:main", "sessions_list", "{}"]).output().unwrap();
    assert!(listed.status.success());
}
