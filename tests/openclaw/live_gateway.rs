//! The session tools against a running OpenClaw gateway (npm `clawdbot@2026.1.24-3` and
//! `openclaw@2026.1.29` at protocol 3, `openclaw@2026.9.6` at protocol 4, started by
//! `session_tools_tests::openclaw` on a copy of the sample state, imported by 2026.9's own
//! doctor for that one), through the host's live-gateway client: the same answers as the
//! embedded gateway over the same state, the owner's commands from the command line, the N15
//! guard, and the background flows (ping-pong, announce, sub-agent completion) with agent
//! runs answered by a mock model. 2026.9 is walked by one test on one gateway (its start
//! takes 15-90 s). Without Node/npm or the npm registry these tests fail saying why; they
//! never skip.

#![forbid(unsafe_code)]

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use session_tools_host::gateway::live::LiveGateway;
use session_tools_host::{Caller, Service, ServiceBuilder};
use session_tools_tests::cli::{command, stderr, stdout};
use session_tools_tests::openclaw::{Gateway, GatewayOptions, MockModel, ModelReply, ModelRequest, OPENCLAW_PACKAGE, TODAY_PACKAGE};
use session_tools_tests::{engine_options, sample_copy, Served};

use crate::imported::{freshen_child_links, imported_sample};

fn start(state: &Path, extra_config: Value) -> Gateway {
    start_package(state, extra_config, GatewayOptions::default().package.as_str())
}

fn start_package(state: &Path, extra_config: Value, package: &str) -> Gateway {
    let started = Instant::now();
    let options = GatewayOptions {
        extra_config,
        package: package.to_string(),
        startup_timeout: Duration::from_secs(240),
        ..GatewayOptions::default()
    };
    let gateway = Gateway::start(state, options).unwrap_or_else(|e| panic!("starting the real OpenClaw gateway ({package}) failed:\n{e}"));
    eprintln!(
        "[live_gateway] {} up on port {} in {:.1} s",
        gateway.installation().package,
        gateway.port(),
        started.elapsed().as_secs_f64()
    );
    gateway
}

fn live(gateway: &Gateway) -> Arc<LiveGateway> {
    live_with(gateway, true)
}

/// `on_disk`: whether histories may be read from the gateway's state directory (it is on
/// this machine), or every one is a `chat.history` request.
fn live_with(gateway: &Gateway, on_disk: bool) -> Arc<LiveGateway> {
    Arc::new(
        LiveGateway::builder(gateway.url())
            .with_token(gateway.token())
            .with_histories_on_disk(on_disk)
            .open()
            .unwrap_or_else(|e| panic!("opening the live gateway: {e}\n{}", gateway.log_tail(30))),
    )
}

fn service_over(live: &Arc<LiveGateway>, jobs: Option<&Path>) -> Service {
    let mut builder = ServiceBuilder::over_live(live).with_engine(engine_options());
    if let Some(dir) = jobs {
        builder = builder.with_jobs_dir(dir);
    }
    builder.build().unwrap()
}

fn caller(key: &str, sandboxed: bool) -> Caller {
    Caller { agent_session_key: Some(key.into()), sandboxed, ..Caller::default() }
}

/// A tool's answer (or error) as text, with the state directory's path and the run ids
/// (new for every call) made neutral.
fn answer(service: &Service, caller: &Caller, tool: &str, args: &str, state: &Path) -> String {
    let text = match service.call(caller, tool, args) {
        Ok(result) => result,
        Err(e) => format!("error: {e}"),
    };
    let text = text.replace(&state.display().to_string(), "$STATE");
    regex_lite::Regex::new(r#""(runId|childSessionKey)":"[^"]*""#).unwrap().replace_all(&text, r#""$1":"…""#).into_owned()
}

/// Pairs of (caller, tool, arguments) whose answers need no run: reads, and calls the
/// tools refuse before any run.
const READS: &[(&str, bool, &str, &str)] = &[
    ("agent:main:main", false, "sessions_list", "{}"),
    ("agent:main:main", false, "sessions_list", r#"{"messageLimit": 3}"#),
    ("agent:main:main", false, "sessions_list", r#"{"kinds": ["group", "cron"], "messageLimit": 1, "activeMinutes": 100000000}"#),
    ("agent:main:main", false, "sessions_list", r#"{"limit": 2, "messageLimit": 20}"#),
    ("agent:main:main", false, "sessions_history", r#"{"sessionKey": "agent:main:discord:channel:1187421193829244938"}"#),
    ("agent:main:main", false, "sessions_history", r#"{"sessionKey": "main", "includeTools": true, "limit": 200}"#),
    ("agent:main:main", false, "sessions_history", r#"{"sessionKey": "agent:main:subagent:6f1e2d3c-4b5a-4978-8a6b-5c4d3e2f1a0b"}"#),
    ("agent:main:main", false, "sessions_history", r#"{"sessionKey": "agent:main:nope"}"#),
    ("agent:main:main", false, "sessions_history", r#"{"sessionKey": "agent:ops:main"}"#),
    ("agent:main:main", false, "agents_list", "{}"),
    ("agent:ops:main", false, "sessions_list", r#"{"messageLimit": 1}"#),
    ("agent:main:main", false, "sessions_send", r#"{"sessionKey": "agent:ops:main", "message": "hi", "timeoutSeconds": 0}"#),
    ("agent:main:main", false, "sessions_send", r#"{"label": "no-such-label", "message": "hi", "timeoutSeconds": 0}"#),
    ("agent:main:main", false, "sessions_spawn", r#"{"task": "t", "agentId": "ops"}"#),
    // N15: a sandboxed caller sees its own tree only.
    ("agent:main:main", true, "sessions_list", r#"{"messageLimit": 1}"#),
    ("agent:main:main", true, "sessions_history", r#"{"sessionKey": "agent:main:subagent:6f1e2d3c-4b5a-4978-8a6b-5c4d3e2f1a0b"}"#),
    ("agent:main:main", true, "sessions_history", r#"{"sessionKey": "agent:main:discord:channel:1187421193829244938"}"#),
    ("agent:main:main", true, "sessions_send", r#"{"sessionKey": "agent:ops:main", "message": "hi", "timeoutSeconds": 0}"#),
    ("agent:main:subagent:6f1e2d3c-4b5a-4978-8a6b-5c4d3e2f1a0b", true, "sessions_list", "{}"),
];

#[test]
fn the_tools_answer_as_over_the_embedded_gateway_on_the_same_state() {
    answers_as_over_the_embedded_gateway(GatewayOptions::default().package.as_str());
}

/// The first build after the rename to OpenClaw, the other package of the documents' era.
#[test]
fn the_tools_answer_as_over_the_embedded_gateway_on_openclaw_2026_1_29() {
    answers_as_over_the_embedded_gateway(OPENCLAW_PACKAGE);
}

fn answers_as_over_the_embedded_gateway(package: &str) {
    let (live_state, embedded_state) = (sample_copy(), sample_copy());
    let gateway = start_package(live_state.path(), Value::Null, package);
    assert_eq!(live(&gateway).protocol(), 3, "hello-ok's protocol");
    let live = live(&gateway);
    assert_eq!(live.state_dir(), Some(live_state.path().to_str().unwrap()), "the gateway's state directory, from hello-ok");
    assert!(live.reads_histories_on_disk(), "a gateway on loopback with its state here");
    let over_live = service_over(&live, None);
    // Every history a request: what a gateway on another machine answers.
    let rpc_only = live_with(&gateway, false);
    assert!(!rpc_only.reads_histories_on_disk());
    let over_rpc = service_over(&rpc_only, None);
    // The embedded gateway reads the same config file as the running one.
    let config = gateway.config_path().to_path_buf();
    let embedded = Served::open(embedded_state.path(), |g| g.with_config_path(&config), |s| s).unwrap();
    for (key, sandboxed, tool, args) in READS {
        let who = caller(key, *sandboxed);
        let b = answer(&embedded, &who, tool, args, embedded_state.path());
        for (service, how) in [(&over_live, "live"), (&over_rpc, "live, every history a request")] {
            let a = answer(service, &who, tool, args, live_state.path());
            assert_eq!(a, b, "{key} (sandboxed: {sandboxed}) {tool} {args}: {how} vs embedded");
            assert!(!a.starts_with("error:"), "{tool} {args}: {a}");
        }
    }
    // Every session's history, as its agent's main, as another agent, and sandboxed.
    let all = gateway.rpc("sessions.list", json!({"includeGlobal": true, "includeUnknown": true})).unwrap();
    let keys: Vec<String> = all["sessions"].as_array().unwrap().iter().map(|s| s["key"].as_str().unwrap().to_string()).collect();
    assert!(keys.len() >= 7, "{keys:?}");
    for key in &keys {
        for (who, sandboxed) in [("agent:main:main", false), ("agent:ops:main", false), ("agent:main:main", true)] {
            let args = json!({"sessionKey": key, "includeTools": true, "limit": 50}).to_string();
            let a = answer(&over_live, &caller(who, sandboxed), "sessions_history", &args, live_state.path());
            let b = answer(&embedded, &caller(who, sandboxed), "sessions_history", &args, embedded_state.path());
            assert_eq!(a, b, "{who} (sandboxed: {sandboxed}) sessions_history of {key}: live vs embedded");
        }
    }
    // The sandboxed list really is cut down (not two equally empty answers).
    let listed: Value = serde_json::from_str(&over_live.call(&caller("agent:main:main", true), "sessions_list", "{}").unwrap()).unwrap();
    let keys: Vec<&str> = listed["sessions"].as_array().unwrap().iter().map(|s| s["key"].as_str().unwrap()).collect();
    assert_eq!(keys, ["agent:main:subagent:6f1e2d3c-4b5a-4978-8a6b-5c4d3e2f1a0b"]);
    assert_eq!(live.connections(), 1, "one connection served every call");
}

/// The mock model's script for the flows: a target answers "pong", the a2a reply step goes
/// on for the configured turns, the announce steps answer, and a sub-agent computes.
fn flows_model(request: &ModelRequest) -> ModelReply {
    let system = request.system_prompt().unwrap_or_default();
    let user = request.last_user_text().unwrap_or_default();
    if system.contains("Agent-to-agent announce step") {
        ModelReply::Text("Announced: the ping went through.".into())
    } else if system.contains("Agent-to-agent reply step") {
        ModelReply::Text("turn reply".into())
    } else if user.contains("compute the answer") {
        ModelReply::Text("The answer is 42.".into())
    } else if user.contains("ping") {
        ModelReply::Text("pong".into())
    } else {
        ModelReply::Text("ok".into())
    }
}

/// The transcript a session's store entry names, as the gateway wrote it.
fn transcript_of(state: &Path, key: &str) -> String {
    let agent = key.split(':').nth(1).expect("an agent key");
    let dir = state.join("agents").join(agent).join("sessions");
    let store: Value = serde_json::from_str(&std::fs::read_to_string(dir.join("sessions.json")).unwrap()).unwrap();
    let entry = &store[key];
    let path = match entry["sessionFile"].as_str() {
        Some(file) if Path::new(file).is_absolute() => Path::new(file).to_path_buf(),
        _ => dir.join(format!("{}.jsonl", entry["sessionId"].as_str().unwrap_or_else(|| panic!("{key} has no sessionId: {entry}")))),
    };
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("reading {}: {e}", path.display()))
}

fn flows_config(model: &MockModel) -> Value {
    let mut config = model.model_config("mock", "mock-1");
    config["session"] = json!({"agentToAgent": {"maxPingPongTurns": 2}});
    config
}

fn requests_with(model: &MockModel, what: &str) -> usize {
    model
        .requests()
        .iter()
        .filter(|r| r.system_prompt().unwrap_or_default().contains(what) || r.last_user_text().unwrap_or_default().contains(what))
        .count()
}

/// Waits up to `timeout` for `done`; answers whether it came.
fn wait_until(timeout: Duration, mut done: impl FnMut() -> bool) -> bool {
    let until = Instant::now() + timeout;
    while !done() {
        if Instant::now() >= until {
            return false;
        }
        std::thread::sleep(Duration::from_millis(200));
    }
    true
}

#[test]
fn a_send_ping_pongs_announces_and_a_spawn_completes_through_the_running_gateway() {
    let model = MockModel::start(flows_model).unwrap();
    let state = sample_copy();
    let gateway = start(state.path(), flows_config(&model));
    let live = live(&gateway);
    let jobs = tempfile::tempdir().unwrap();
    let service = service_over(&live, Some(jobs.path()));
    let main = caller("agent:main:main", false);

    // A send that waits for the reply: the target's run answers through the gateway.
    let sent: Value = serde_json::from_str(
        &service
            .call(
                &main,
                "sessions_send",
                r#"{"sessionKey": "agent:main:discord:channel:1187421193829244938", "message": "ping", "timeoutSeconds": 90}"#,
            )
            .unwrap_or_else(|e| panic!("sessions_send: {e}\n{}", gateway.log_tail(40))),
    )
    .unwrap();
    assert_eq!(sent["status"], "ok", "{sent:#}\n{}", gateway.log_tail(40));
    assert_eq!(sent["reply"], "pong", "{sent:#}");
    // Then the flow goes on in the background: two reply-step turns and the announce step.
    let steps = service.run_jobs(Duration::from_secs(180));
    assert!(steps >= 3, "the flow's steps ran ({steps})");
    assert_eq!(requests_with(&model, "Agent-to-agent reply step"), 2, "maxPingPongTurns 2");
    assert_eq!(requests_with(&model, "Agent-to-agent announce step"), 1);
    assert!(service.pending_jobs().is_empty(), "{:?}", service.pending_jobs());
    // The real gateway wrote every turn into the transcripts.
    let target = transcript_of(state.path(), "agent:main:discord:channel:1187421193829244938");
    assert!(target.contains(r#""text":"ping""#) && target.contains(r#""text":"pong""#), "{target}");
    assert_eq!(target.matches("Announced: the ping went through.").count(), 1, "{target}");
    let requester = transcript_of(state.path(), "agent:main:main");
    assert!(requester.contains(r#""text":"turn reply""#), "the requester's reply-step turn: {requester}");

    // A spawn: the child's run, then its completion announced to the requester.
    let spawned: Value =
        serde_json::from_str(&service.call(&main, "sessions_spawn", r#"{"task": "compute the answer", "label": "answer"}"#).unwrap())
            .unwrap();
    assert_eq!(spawned["status"], "accepted", "{spawned:#}");
    let child = spawned["childSessionKey"].as_str().unwrap().to_string();
    assert!(child.starts_with("agent:main:subagent:"), "{child}");
    service.run_jobs(Duration::from_secs(180));
    // Its completion: the child's announce step (ref §3.4), with the child's result in its
    // prompt; its delivery to the requester's Discord chat is the gateway's to make (this
    // one runs without channels, and says so).
    let announced = || {
        model.requests().iter().any(|r| {
            r.last_user_text().unwrap_or_default().contains("Sub-agent announce step")
                && r.system_prompt().unwrap_or_default().contains("The answer is 42.")
        })
    };
    if !wait_until(Duration::from_secs(60), announced) {
        let seen: Vec<String> = model.requests().iter().map(|r| format!("{:?}", r.last_user_text())).collect();
        panic!("no announce step with the child's result; the model saw: {seen:#?}\n{}", gateway.log_tail(60));
    }
    // What is left is the child's archive timer (`archiveAfterMinutes`, ref §3.4.4).
    let pending = service.pending_jobs();
    assert!(pending.len() == 1 && pending[0].kind == "archive", "{pending:?}");
    assert!(transcript_of(state.path(), &child).contains("The answer is 42."));
    // The child is in the gateway's store with its label, and in the requester's tree.
    let listed: Value = serde_json::from_str(&service.call(&main, "sessions_list", r#"{"kinds": ["other"]}"#).unwrap()).unwrap();
    assert!(listed["sessions"].as_array().unwrap().iter().any(|s| s["key"] == child.as_str() && s["label"] == "answer"), "{listed:#}");
    let sandboxed: Value = serde_json::from_str(&service.call(&caller("agent:main:main", true), "sessions_list", "{}").unwrap()).unwrap();
    assert!(
        sandboxed["sessions"].as_array().unwrap().iter().any(|s| s["key"] == child.as_str()),
        "a new child joins the tree: {sandboxed:#}"
    );
}

#[test]
fn a_sandboxed_caller_spawns_with_a_model_and_reaches_nothing_else() {
    let model = MockModel::start(flows_model).unwrap();
    let state = sample_copy();
    let mut config = flows_config(&model);
    config["agents"]["defaults"]["sandbox"] = json!({"mode": "all"});
    config["agents"]["defaults"]["subagents"] = json!({"model": "mock/mock-1"});
    let gateway = start(state.path(), config);
    let live = live(&gateway);
    let service = service_over(&live, None);
    let sandboxed = caller("agent:main:main", true);
    // The spawn patches its new child (the model) before it runs: allowed (as the reference does).
    let spawned: Value =
        serde_json::from_str(&service.call(&sandboxed, "sessions_spawn", r#"{"task": "compute the answer"}"#).unwrap()).unwrap();
    assert_eq!(spawned["status"], "accepted", "{spawned:#}\n{}", gateway.log_tail(30));
    assert_eq!(spawned["modelApplied"], true, "{spawned:#}");
    // Outside the tree: refused by the guest, and by the host if the guest did not.
    for (tool, args) in [
        ("sessions_history", r#"{"sessionKey": "agent:main:discord:channel:1187421193829244938"}"#),
        ("sessions_send", r#"{"sessionKey": "agent:main:discord:channel:1187421193829244938", "message": "x", "timeoutSeconds": 0}"#),
    ] {
        let result: Value = serde_json::from_str(&service.call(&sandboxed, tool, args).unwrap()).unwrap();
        assert_eq!(result["status"], "forbidden", "{tool}: {result:#}");
    }
}

fn st(gateway: &Gateway, args: &[&str]) -> std::process::Output {
    let url = gateway.url();
    let mut argv = vec!["--gateway", url.as_str(), "--token", gateway.token()];
    argv.extend_from_slice(args);
    command(&argv).output().unwrap()
}

#[test]
fn the_command_line_works_against_a_running_gateway() {
    let model = MockModel::start(flows_model).unwrap();
    let state = sample_copy();
    let gateway = start(state.path(), flows_config(&model));
    let jobs = tempfile::tempdir().unwrap();
    let jobs_dir = jobs.path().to_str().unwrap();

    let out = st(&gateway, &["sessions"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains("agent:main:telegram:group:-1001234567890") && stdout(&out).contains("deny"), "{}", stdout(&out));

    let out = st(&gateway, &["history", "agent:main:discord:channel:1187421193829244938", "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let history: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert!(!history["messages"].as_array().unwrap().is_empty());
    let out = st(&gateway, &["history", "agent:main:nope"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains(&format!("no session agent:main:nope in the gateway at {}", gateway.url())), "{}", stderr(&out));

    let out = st(&gateway, &["patch", "agent:main:main", "--label", "alice", "--send-policy", "deny"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let patched: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!((patched["key"].as_str(), patched["entry"]["label"].as_str()), (Some("agent:main:main"), Some("alice")), "{patched:#}");
    let out = st(&gateway, &["policy", "main"]);
    assert_eq!(stdout(&out).trim(), "agent:main:main: deny (the session's own override is deny)", "{}", stderr(&out));
    let out = st(&gateway, &["patch", "agent:main:main", "--send-policy", "inherit"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let out = st(&gateway, &["patch", "agent:main:discord:channel:1187421193829244938", "--label", "alice"]);
    assert_eq!(out.status.code(), Some(1), "a label in use is the gateway's refusal (1; 2 is for usage errors)");
    assert!(stderr(&out).contains("label already in use: alice"), "{}", stderr(&out));

    let out = st(&gateway, &["chat", "agent:main:main", "ping"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains("pong") && stdout(&out).contains(": ok"), "{}", stdout(&out));

    let out = st(&gateway, &["outbox"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("delivers to the channels itself"), "{}", stderr(&out));

    // A send whose flow is left pending by `--wait 0` goes on in a later process (`jobs`).
    let out = st(
        &gateway,
        &[
            "--jobs-dir",
            jobs_dir,
            "call",
            "--as",
            "agent:main:main",
            "--wait",
            "0",
            "sessions_send",
            r#"{"sessionKey": "agent:main:discord:channel:1187421193829244938", "message": "ping", "timeoutSeconds": 0}"#,
        ],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let out = st(&gateway, &["--jobs-dir", jobs_dir, "jobs", "--wait", "180"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains("0 still pending"), "{}\n{}", stdout(&out), stderr(&out));
    assert_eq!(requests_with(&model, "Agent-to-agent announce step"), 1, "the resumed flow reached its announce step");

    // `--gateway local`: the port and token from the config the gateway runs.
    let config = gateway.config_path().to_str().unwrap().to_string();
    let out = command(&[
        "--state",
        state.path().to_str().unwrap(),
        "--config",
        &config,
        "--gateway",
        "local",
        "call",
        "--as",
        "main",
        "agents_list",
    ])
    .output()
    .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains("\"requester\": \"main\""), "{}", stdout(&out));

    // A wrong token is said in words, with exit status 3 (the gateway cannot be opened).
    let url = gateway.url();
    let out = command(&["--gateway", &url, "--token", "wrong", "sessions"]).output().unwrap();
    assert_eq!(out.status.code(), Some(3));
    assert!(stderr(&out).contains(&format!("gateway token rejected by {url}")), "{}", stderr(&out));
}

/// An answer with what differs by design between a 2026.9 gateway and the embedded one
/// made neutral: the fields its rows fill from its config and catalog rather than from the
/// session's entry (`tests/sqlite_state.rs`, README "2026.9 state"); and each object's keys
/// sorted (a row's fields come in the order its gateway keeps them, which differs between
/// the SQLite entry and the embedded reading of it). Histories are compared as they are: on
/// the gateway's machine the host reads every one from its state, the raw transcript (E4),
/// not the display projection its `chat.history` answers.
fn comparable(text: &str) -> String {
    fn sorted(value: Value) -> Value {
        match value {
            Value::Object(map) => {
                let mut entries: Vec<(String, Value)> = map.into_iter().map(|(k, v)| (k, sorted(v))).collect();
                entries.sort_by(|a, b| a.0.cmp(&b.0));
                Value::Object(entries.into_iter().collect())
            }
            Value::Array(items) => Value::Array(items.into_iter().map(sorted).collect()),
            other => other,
        }
    }
    let Ok(mut value) = serde_json::from_str::<Value>(text) else { return text.to_string() };
    if let Some(rows) = value.get_mut("sessions").and_then(Value::as_array_mut) {
        for row in rows.iter_mut().filter_map(Value::as_object_mut) {
            for field in ["model", "modelProvider", "contextTokens", "totalTokens", "thinkingLevel"] {
                row.remove(field);
            }
        }
    }
    sorted(value).to_string()
}

/// Today's OpenClaw (npm `openclaw@2026.9.6`: protocol 4, SQLite state, the sample imported
/// by its own `openclaw doctor --fix`), one gateway for the whole walk: the reads answer as
/// the embedded gateway over a copy of the same state, the command line works, a send
/// ping-pongs and announces, and a spawn (`sessions.create` then `agent`, E5) runs, is
/// listed and joins the sandboxed caller's tree, and announces its completion.
#[test]
fn the_tools_work_through_a_running_openclaw_2026_9_gateway() {
    let model = MockModel::start(flows_model).unwrap();
    let import = |what: &str| imported_sample(|_| {}).unwrap_or_else(|e| panic!("importing the sample for {what} failed:\n{e}"));
    let (live_state, embedded_state) = (import("the gateway"), import("the embedded gateway"));
    // Its child as a child that was just active, in both copies alike (see the helper).
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_millis() as i64;
    for state in [&live_state, &embedded_state] {
        assert_eq!(freshen_child_links(state.path(), now), Ok(1), "the sample has one child session");
    }
    let mut config = model.model_config("mock", "mock-1");
    // Every spawn then patches its child's model first (as a configured sub-agent model
    // does), which 2026.9 must take before the child's `sessions.create`.
    config["agents"] = json!({"defaults": {"subagents": {"model": "mock/mock-1"}}});
    let gateway = start_package(live_state.path(), config, TODAY_PACKAGE);
    let live = live(&gateway);
    assert_eq!(live.protocol(), 4, "hello-ok's protocol");
    assert!(live.reads_histories_on_disk(), "a list's histories read from the gateway's SQLite state here (E4)");
    assert_eq!(live.config().default_agent, "main", "agents.entries read as agents.list (E2)");
    assert!(live.config().agent_ids.contains(&"ops".to_string()), "{:?}", live.config().agent_ids);
    let jobs = tempfile::tempdir().unwrap();
    let service = service_over(&live, Some(jobs.path()));

    // The reads, as over the embedded gateway on the same (imported) state.
    let config_path = gateway.config_path().to_path_buf();
    let embedded = Served::open(embedded_state.path(), |g| g.with_config_path(&config_path), |s| s).unwrap();
    for (key, sandboxed, tool, args) in READS {
        let who = caller(key, *sandboxed);
        let a = comparable(&answer(&service, &who, tool, args, live_state.path()));
        let b = comparable(&answer(&embedded, &who, tool, args, embedded_state.path()));
        if a != b {
            let at = a.chars().zip(b.chars()).take_while(|(x, y)| x == y).count();
            let around = |t: &str| t.chars().skip(at.saturating_sub(300)).take(600).collect::<String>();
            panic!(
                "{key} (sandboxed: {sandboxed}) {tool} {args}: live 2026.9 vs embedded differ at char {at}:\nlive:     …{}…\nembedded: …{}…",
                around(&a),
                around(&b)
            );
        }
        assert!(!a.starts_with("error:"), "{tool} {args}: {a}");
    }
    drop(embedded);
    // E4: a single history is the raw transcript too, read from the gateway's state here:
    // its control reply and thinking signature, which its own `chat.history` leaves out.
    let raw = |args: &str| answer(&service, &caller("agent:main:main", false), "sessions_history", args, live_state.path());
    assert!(raw(&json!({"sessionKey": CHANNEL_KEY}).to_string()).contains("NO_REPLY"), "the channel's NO_REPLY reply");
    assert!(raw(r#"{"sessionKey": "main", "includeTools": true}"#).contains("thinkingSignature"), "main's thinking signature");

    // The command line, as a new user types it.
    let out = st(&gateway, &["call", "--as", "agent:main:main", "sessions_list", "{}"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains("agent:main:telegram:group:-1001234567890"), "{}", stdout(&out));

    // A send that waits for the reply, then its flow: 2026.9 fixes ping-pong at 5 turns (E2).
    let main = caller("agent:main:main", false);
    let sent: Value = serde_json::from_str(
        &service
            .call(&main, "sessions_send", &json!({"sessionKey": CHANNEL_KEY, "message": "ping", "timeoutSeconds": 90}).to_string())
            .unwrap_or_else(|e| panic!("sessions_send: {e}\n{}", gateway.log_tail(40))),
    )
    .unwrap();
    assert_eq!((sent["status"].as_str(), sent["reply"].as_str()), (Some("ok"), Some("pong")), "{sent:#}\n{}", gateway.log_tail(40));
    service.run_jobs(Duration::from_secs(240));
    assert_eq!(requests_with(&model, "Agent-to-agent reply step"), 5, "2026.9's fixed ping-pong turns");
    assert_eq!(requests_with(&model, "Agent-to-agent announce step"), 1);
    let target = gateway.rpc("chat.history", json!({"sessionKey": CHANNEL_KEY, "limit": 200})).unwrap().to_string();
    assert!(target.contains("Announced: the ping went through."), "{target}");

    // A spawn from the command line: accepted, the child runs, its completion is announced.
    let out = st(
        &gateway,
        &[
            "--jobs-dir",
            jobs.path().to_str().unwrap(),
            "call",
            "--as",
            "agent:main:main",
            "--wait",
            "0",
            "sessions_spawn",
            r#"{"task": "compute the answer", "label": "answer"}"#,
        ],
    );
    assert!(out.status.success(), "{}\n{}", stderr(&out), gateway.log_tail(40));
    let spawned: Value = serde_json::from_str(&stdout(&out)).unwrap_or_else(|e| panic!("{e}: {}", stdout(&out)));
    assert_eq!(spawned["status"], "accepted", "{spawned:#}\n{}", gateway.log_tail(40));
    let child = spawned["childSessionKey"].as_str().unwrap().to_string();
    let out = st(&gateway, &["--jobs-dir", jobs.path().to_str().unwrap(), "jobs", "--wait", "240"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let announced = || {
        model.requests().iter().any(|r| {
            r.last_user_text().unwrap_or_default().contains("Sub-agent announce step")
                && r.system_prompt().unwrap_or_default().contains("The answer is 42.")
        })
    };
    if !wait_until(Duration::from_secs(90), announced) {
        let seen: Vec<String> = model.requests().iter().map(|r| format!("{:?}", r.last_user_text())).collect();
        panic!("no announce step with the child's result; the model saw: {seen:#?}\n{}", gateway.log_tail(60));
    }
    // The child's row: its parent as the gateway keeps it (`parentSessionKey`), its label,
    // listed as the embedded gateway lists a child, and in the sandboxed caller's tree.
    let row = live.row(&child).unwrap().unwrap_or_else(|| panic!("{child} is not listed"));
    assert_eq!(row["parentSessionKey"], "agent:main:main", "{row:#}");
    let listed: Value = serde_json::from_str(&service.call(&main, "sessions_list", r#"{"kinds": ["other"]}"#).unwrap()).unwrap();
    assert!(listed["sessions"].as_array().unwrap().iter().any(|s| s["key"] == child.as_str() && s["label"] == "answer"), "{listed:#}");
    let sandboxed: Value = serde_json::from_str(&service.call(&caller("agent:main:main", true), "sessions_list", "{}").unwrap()).unwrap();
    let keys: Vec<&str> = sandboxed["sessions"].as_array().unwrap().iter().map(|s| s["key"].as_str().unwrap()).collect();
    assert!(keys.contains(&child.as_str()), "a new child joins the tree: {keys:?}");
    assert!(!keys.contains(&CHANNEL_KEY), "{keys:?}");
    let history: Value = serde_json::from_str(
        &service.call(&caller("agent:main:main", true), "sessions_history", &json!({"sessionKey": child}).to_string()).unwrap(),
    )
    .unwrap();
    assert!(history.to_string().contains("The answer is 42."), "{history:#}");
    assert_eq!(live.connections(), 1, "one connection served every call");
}

const CHANNEL_KEY: &str = "agent:main:discord:channel:1187421193829244938";
