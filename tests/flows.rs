//! The flows that continue after a tool returns, on the embedded gateway: the
//! agent-to-agent ping-pong and its announce, a sandboxed spawn and the sub-agent's
//! normalised announce, resuming after a restart, the archive of sub-agent sessions, and
//! slow flows that do not hold up tool calls.

#![forbid(unsafe_code)]

use std::path::Path;
use std::process::{Command, Output};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use session_tools_host::gateway::embedded::runtime::ScriptedRuntime;
use session_tools_host::gateway::Gateway as _;
use session_tools_host::Caller;
use session_tools_tests::{root, sample_copy, Served};

/// The command line, runs answered by the echo runtime.
fn cli(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_st-cli"))
        .args(["--runtime", "echo"])
        .args(args)
        .env("SESSION_TOOLS_CACHE_DIR", root().join("target/component-cache"))
        .output()
        .unwrap()
}

/// The JSON a command printed, which came with the exit code its status says.
fn ok_json(output: Output) -> Value {
    let value: Value = serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}\n{}", String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr)));
    assert_eq!(output.status.code(), Some(session_tools_tests::cli::exit_code_of(&value)), "{}", String::from_utf8_lossy(&output.stderr));
    value
}

/// A copy of the sample state with agent-to-agent on and main allowed to spawn for ops
/// (sub-agent sessions archived after the default 60 minutes).
fn configured_sample() -> tempfile::TempDir {
    let state = sample_copy();
    let config = json!({
        "agents": {
            "list": [{"id": "main", "default": true, "subagents": {"allowAgents": ["ops"]}}, {"id": "ops"}]
        },
        "session": {"agentToAgent": {"maxPingPongTurns": 3}},
        "tools": {"agentToAgent": {"enabled": true}}
    });
    std::fs::write(state.path().join("openclaw.json"), config.to_string()).unwrap();
    state
}

fn outbox(dir: &Path) -> Vec<Value> {
    ok_json(cli(&["--state", dir.to_str().unwrap(), "outbox", "--json"])).as_array().unwrap().clone()
}

#[test]
fn a_send_between_two_agents_ping_pongs_and_ends_with_the_announce_in_the_outbox() {
    let state = configured_sample();
    let dir = state.path().to_str().unwrap();
    let sent = ok_json(cli(&[
        "--state",
        dir,
        "call",
        "--as",
        "agent:main:main",
        "--channel",
        "discord",
        "sessions_send",
        r#"{"sessionKey":"agent:ops:slack:channel:c07abcdef12","message":"is the incident over?","timeoutSeconds":20}"#,
    ]));
    assert_eq!(sent["status"], "ok", "{sent}");
    assert_eq!(sent["reply"], "[echo runtime] echo: is the incident over?");
    // The ping-pong: main (the requester) answered ops' reply in its own session.
    let main = ok_json(cli(&["--state", dir, "history", "main", "--json", "--limit", "10"]));
    let main_text = main["messages"].to_string();
    assert!(main_text.contains("Thanks, noted: echo: is the incident over?"), "{main_text}");
    // The announce from ops, posted to its Slack channel.
    let deliveries = outbox(state.path());
    assert_eq!(deliveries.len(), 1, "{deliveries:?}");
    assert_eq!(deliveries[0]["channel"], "slack");
    assert_eq!(deliveries[0]["to"], "channel:c07abcdef12");
    assert_eq!(deliveries[0]["message"], "[echo runtime] [ops] Thanks, noted: echo: is the incident over?");
}

#[test]
fn a_sandboxed_spawn_is_visible_to_its_requester_and_announced_to_its_chat() {
    let state = configured_sample();
    let dir = state.path().to_str().unwrap();
    let caller =
        ["--state", dir, "call", "--as", "agent:main:main", "--sandboxed", "--channel", "discord", "--to", "user:240918250145857536"];
    let spawned = ok_json(cli(&[
        &caller[..],
        &["sessions_spawn", r#"{"task":"count the open incidents","agentId":"ops","label":"incident-count"}"#],
    ]
    .concat()));
    assert_eq!(spawned["status"], "accepted", "{spawned}");
    let child = spawned["childSessionKey"].as_str().unwrap().to_string();
    assert!(child.starts_with("agent:ops:subagent:"));

    // The child is listed and readable; sessions it did not spawn are not.
    let listed = ok_json(cli(&[&caller[..], &["sessions_list", "{}"]].concat()));
    let keys: Vec<&str> = listed["sessions"].as_array().unwrap().iter().map(|r| r["key"].as_str().unwrap()).collect();
    assert!(keys.contains(&child.as_str()), "{keys:?}");
    assert!(keys.iter().all(|k| k.contains(":subagent:")), "only spawned sessions: {keys:?}");
    let history = ok_json(cli(&[&caller[..], &["sessions_history", &json!({"sessionKey": child}).to_string()]].concat()));
    assert!(history["messages"].to_string().contains("Done: count the open incidents"), "{history}");
    let other = ok_json(cli(&[&caller[..], &["sessions_history", r#"{"sessionKey":"agent:ops:main"}"#]].concat()));
    assert_eq!(other["status"], "forbidden");

    // The announce: normalised, with the runtime's status and a stats line, in the requester's chat.
    let deliveries = outbox(state.path());
    let announce = deliveries.iter().find(|d| d["message"].as_str().unwrap_or("").starts_with("Status:")).expect("an announce");
    assert_eq!((announce["channel"].as_str(), announce["to"].as_str()), (Some("discord"), Some("user:240918250145857536")));
    let message = announce["message"].as_str().unwrap();
    assert!(message.starts_with("Status: success\n\nResult:\n[echo runtime] Done: count the open incidents\n\nNotes:\n"), "{message}");
    let stats = message.lines().last().unwrap();
    assert!(
        stats.starts_with("Stats: runtime ") && stats.contains(" \u{2022} tokens ") && stats.contains(&format!("sessionKey {child}")),
        "{stats}"
    );
    assert!(stats.contains(" \u{2022} sessionId ") && stats.contains(" \u{2022} transcript "), "{stats}");
    // The echo runtime spends no tokens: none are shown, and no cost.
    assert!(stats.contains(" \u{2022} tokens n/a") && !stats.contains("est $"), "{stats}");
    // The label was applied to the child after the announce.
    let sessions = ok_json(cli(&["--state", dir, "sessions", "--json", "--agent", "ops"]));
    assert!(sessions.as_array().unwrap().iter().any(|r| r["key"] == child.as_str() && r["label"] == "incident-count"));
}

#[test]
fn a_restart_resumes_the_pending_announce() {
    let state = configured_sample();
    let dir = state.path().to_str().unwrap();
    // The first process spawns and exits without running the background work.
    let spawned = ok_json(cli(&[
        "--state",
        dir,
        "call",
        "--as",
        "agent:main:main",
        "--channel",
        "discord",
        "--to",
        "user:1",
        "--wait",
        "0",
        "sessions_spawn",
        r#"{"task":"resume me"}"#,
    ]));
    assert_eq!(spawned["status"], "accepted");
    assert!(outbox(state.path()).is_empty(), "nothing announced yet");
    let pending: Vec<String> = std::fs::read_dir(state.path().join("session-tools/jobs"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.ends_with(".json"))
        .collect();
    assert_eq!(pending.len(), 2, "the sub-agent flow and its archive are persisted: {pending:?}");
    // A new process resumes it.
    let resumed = cli(&["--state", dir, "jobs", "--wait", "30"]);
    assert!(resumed.status.success());
    let report = String::from_utf8_lossy(&resumed.stdout);
    assert!(report.contains("1 still pending") && report.contains("archive"), "{report}");
    let deliveries = outbox(state.path());
    assert_eq!(deliveries.len(), 1, "{deliveries:?}");
    assert!(deliveries[0]["message"].as_str().unwrap().contains("Result:\n[echo runtime] Done: resume me"));
}

/// `jobs --wait` draws its progress only on a terminal: with standard error a
/// pipe, as here, nothing of the bar is written to either stream, and standard output
/// holds the report alone.
#[test]
fn jobs_wait_draws_no_progress_when_stderr_is_not_a_terminal() {
    let state = configured_sample();
    let dir = state.path().to_str().unwrap();
    let call = ["call", "--as", "agent:main:main", "--channel", "discord", "--to", "user:1", "--wait", "0"];
    let spawned = ok_json(cli(&[&["--state", dir][..], &call, &["sessions_spawn", r#"{"task":"quietly"}"#]].concat()));
    assert_eq!(spawned["status"], "accepted");
    // Debug lines too, so the library's job-step events (what moves the bar) are written.
    let resumed = cli(&["--state", dir, "--log-level", "debug", "jobs", "--wait", "30"]);
    assert!(resumed.status.success(), "{}", String::from_utf8_lossy(&resumed.stderr));
    let (out, err) = (String::from_utf8_lossy(&resumed.stdout), String::from_utf8_lossy(&resumed.stderr));
    let lines: Vec<&str> = out.lines().collect();
    assert!(lines[0].starts_with("2 pending jobs; ") && lines[0].ends_with("1 still pending"), "{out}");
    assert_eq!(lines.len(), 2, "the report and the job still pending, nothing else: {out}");
    assert!(err.contains("job_step") || err.contains("job step"), "the steps were made and logged: {err}");
    for (stream, text) in [("stdout", &out), ("stderr", &err)] {
        for drawn in ["steps made", "pending at the start", "\r", "\x1b["] {
            assert!(!text.contains(drawn), "{stream} has {drawn:?} of a progress bar: {text:?}");
        }
    }
}

fn service_with_clock(dir: &Path, clock: Arc<AtomicU64>, runtime: Option<ScriptedRuntime>) -> Arc<Served> {
    let clock: session_tools_host::Clock = Arc::new(move || clock.load(Ordering::SeqCst));
    let served = Served::open(
        dir,
        |gateway| {
            let gateway = gateway.with_clock(clock.clone());
            match runtime {
                Some(runtime) => gateway.with_runtime(Arc::new(runtime)),
                None => gateway,
            }
        },
        |service| service,
    );
    Arc::new(served.unwrap())
}

fn main_caller() -> Caller {
    Caller {
        agent_session_key: Some("agent:main:main".into()),
        agent_channel: Some("discord".into()),
        agent_to: Some("user:1".into()),
        ..Default::default()
    }
}

#[test]
fn sub_agent_sessions_are_archived_after_the_configured_time() {
    let state = configured_sample();
    let now = Arc::new(AtomicU64::new(1_800_000_000_000));
    let service = service_with_clock(state.path(), now.clone(), None);
    let spawned: Value =
        serde_json::from_str(&service.call(&main_caller(), "sessions_spawn", r#"{"task":"short-lived"}"#).unwrap()).unwrap();
    let child = spawned["childSessionKey"].as_str().unwrap().to_string();
    service.run_jobs(Duration::from_secs(30));
    let session_id = service.gateway().find(&child).unwrap().expect("the child exists").entry["sessionId"].clone();
    assert_eq!(service.pending_jobs().len(), 1, "only the archive waits");
    // Not yet: 59 minutes later.
    now.fetch_add(59 * 60_000, Ordering::SeqCst);
    service.run_jobs(Duration::from_secs(5));
    assert!(service.gateway().find(&child).unwrap().is_some());
    // After archiveAfterMinutes (60 by default), counted from the spawn.
    now.fetch_add(2 * 60_000, Ordering::SeqCst);
    service.run_jobs(Duration::from_secs(5));
    assert!(service.gateway().find(&child).unwrap().is_none(), "archived");
    assert!(service.pending_jobs().is_empty());
    let archived = std::fs::read_dir(state.path().join("agents/main/sessions")).unwrap().filter_map(|e| e.ok()).any(|e| {
        let name = e.file_name().to_string_lossy().into_owned();
        name.starts_with(session_id.as_str().unwrap()) && name.contains(".jsonl.deleted.")
    });
    assert!(archived, "the transcript is archived, not deleted");
}

#[test]
fn a_slow_flow_does_not_hold_up_tool_calls() {
    let state = configured_sample();
    // The target's first run takes three seconds; everything else answers at once.
    let runtime = ScriptedRuntime::from_json(
        r#"[{"match": {"message": "slow one"}, "reply": "finally", "durationMs": 3000}, {"match": {}, "reply": "ANNOUNCE_SKIP"}]"#,
    )
    .unwrap();
    let service = service_with_clock(state.path(), Arc::new(AtomicU64::new(1_800_000_000_000)), Some(runtime));
    let _scheduler = service.start_scheduler();
    let started = Instant::now();
    let sent: Value = serde_json::from_str(
        &service
            .call(
                &main_caller(),
                "sessions_send",
                r#"{"sessionKey":"agent:main:discord:channel:1187421193829244938","message":"slow one","timeoutSeconds":0}"#,
            )
            .unwrap(),
    )
    .unwrap();
    assert_eq!(sent["status"], "accepted");
    // While the flow waits for its run, other tool calls answer at once.
    for _ in 0..5 {
        let call = Instant::now();
        service.call(&main_caller(), "sessions_list", "{}").unwrap();
        assert!(call.elapsed() < Duration::from_millis(500), "a list call took {:?}", call.elapsed());
    }
    assert!(started.elapsed() < Duration::from_secs(2));
    assert!(!service.pending_jobs().is_empty(), "the flow is still waiting");
    // The scheduler finishes the flow once the run ends.
    let deadline = Instant::now() + Duration::from_secs(30);
    while !service.pending_jobs().is_empty() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(service.pending_jobs().is_empty(), "the flow finished in the background");
    let history = service.gateway().chat_history(&session_tools_host::gateway::HistoryParams {
        session_key: "agent:main:discord:channel:1187421193829244938".into(),
        limit: Some(5),
    });
    let text: Vec<String> = history.unwrap().messages.into_iter().map(|m| m.json).collect();
    assert!(text.iter().any(|m| m.contains("Agent-to-agent announce step.")), "the announce step ran after the slow run: {text:?}");
}

#[test]
fn two_processes_resuming_the_same_jobs_announce_once() {
    let state = configured_sample();
    let dir = state.path().to_str().unwrap();
    for i in 0..3 {
        let spawned = ok_json(cli(&[
            "--state",
            dir,
            "call",
            "--as",
            "agent:main:main",
            "--channel",
            "discord",
            "--to",
            "user:1",
            "--wait",
            "0",
            "sessions_spawn",
            &format!(r#"{{"task":"task {i}"}}"#),
        ]));
        assert_eq!(spawned["status"], "accepted");
    }
    // Two processes resume the pending flows at the same time.
    let resume = || {
        Command::new(env!("CARGO_BIN_EXE_st-cli"))
            .args(["--state", dir, "--runtime", "echo", "jobs", "--wait", "30"])
            .env("SESSION_TOOLS_CACHE_DIR", root().join("target/component-cache"))
            .spawn()
            .unwrap()
    };
    let (mut a, mut b) = (resume(), resume());
    assert!(a.wait().unwrap().success() && b.wait().unwrap().success());
    let deliveries = outbox(state.path());
    let announces: Vec<&str> = deliveries.iter().filter_map(|d| d["message"].as_str()).filter(|m| m.starts_with("Status:")).collect();
    assert_eq!(announces.len(), 3, "each sub-agent announced exactly once: {announces:#?}");
}
