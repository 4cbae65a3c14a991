//! Background work exactly once across any stop: the command line stopped at
//! every named fault point of both flows (a sub-agent's spawn and announce; a send's
//! ping-pong and announce), killed there (SIGKILL) or asked to stop there (SIGTERM: a
//! graceful stop arriving at exactly that point), then resumed by `jobs`; a randomised
//! kill loop; and two processes resuming the same pending flows together.
//!
//! What must hold after the resume: each step's message exactly once in its session's
//! transcript, each reply exactly once, the announce delivered exactly once with the
//! child's real result (or the target's real reply), and no job or call intent left.
//!
//! The host marks the fault points (`host/src/faults.rs`); only the tests' build of the
//! command line (`bin/st-cli.rs`) installs what stops at them (`src/fault_points.rs`).

#![forbid(unsafe_code)]

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use session_tools_tests::{root, sample_copy};

/// The command line on `state`, runs answered by the echo runtime (a test that scripts its
/// runs names its `--runtime` after this one, which it overrides).
fn command(state: &Path) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_st-cli"));
    command
        .arg("--state")
        .arg(state)
        .args(["--runtime", "echo"])
        .env("SESSION_TOOLS_CACHE_DIR", root().join("target/component-cache"))
        .env_remove("SESSION_TOOLS_FAULT_POINT");
    command
}

fn cli(state: &Path, args: &[&str]) -> Output {
    command(state).args(args).output().unwrap()
}

fn ok_json(output: Output) -> Value {
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    serde_json::from_slice(&output.stdout).unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&output.stdout)))
}

/// The sample state with agent-to-agent on (3 ping-pong turns) and the sub-agent archive
/// far away.
fn configured_sample() -> tempfile::TempDir {
    let state = sample_copy();
    let config = json!({
        "agents": {"list": [{"id": "main", "default": true}, {"id": "ops"}]},
        "session": {"agentToAgent": {"maxPingPongTurns": 3}},
        "tools": {"agentToAgent": {"enabled": true}}
    });
    std::fs::write(state.path().join("openclaw.json"), config.to_string()).unwrap();
    state
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Stop {
    Kill,
    Term,
}

/// Starts `args` paused at `point` (`name#n`), stops it there as `stop` says, and waits
/// for it to end. Answers false when the process ended without reaching the point.
fn stop_at(state: &Path, args: &[&str], point: &str, stop: Stop) -> bool {
    let mut child: Child =
        command(state).args(args).env("SESSION_TOOLS_FAULT_POINT", point).stdout(Stdio::null()).stderr(Stdio::piped()).spawn().unwrap();
    let stderr = child.stderr.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut reached = false;
        let mut text = String::new();
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            if line.starts_with("session-tools fault point reached:") && !reached {
                reached = true;
                let _ = tx.send(true);
            }
            text.push_str(&line);
            text.push('\n');
        }
        if !reached {
            let _ = tx.send(false);
        }
        text
    });
    let reached = rx.recv_timeout(Duration::from_secs(60)).unwrap_or(false);
    if reached {
        let signal = match stop {
            Stop::Kill => "-KILL",
            Stop::Term => "-TERM",
        };
        let killed = Command::new("kill").args([signal, &child.id().to_string()]).status().unwrap();
        assert!(killed.success());
    } else {
        let _ = child.kill();
    }
    let status = child.wait().unwrap();
    if reached && stop == Stop::Term {
        assert!(status.success(), "a graceful stop at {point} ends the process normally: {status:?}");
    }
    reached
}

/// Resumes what is left, then checks that nothing is left.
fn resume(state: &Path) {
    let resumed = cli(state, &["jobs", "--wait", "60"]);
    assert!(resumed.status.success(), "{}", String::from_utf8_lossy(&resumed.stderr));
    let jobs = state.join("session-tools/jobs");
    let left: Vec<String> = std::fs::read_dir(&jobs)
        .map(|d| d.flatten().map(|e| e.file_name().to_string_lossy().into_owned()).filter(|n| n.ends_with(".json")).collect())
        .unwrap_or_default();
    // The sub-agent archive (60 minutes ahead) is the only job that may wait.
    for name in &left {
        let job: Value = serde_json::from_slice(&std::fs::read(jobs.join(name)).unwrap()).unwrap();
        assert_eq!(job["kind"], "archive", "a job left after the resume: {job}");
    }
    // (A temporary of an intent whose writer was killed before its rename is not one; it is
    // swept once a minute old.)
    let calls: Vec<String> = std::fs::read_dir(jobs.join("calls"))
        .map(|d| d.flatten().map(|e| e.file_name().to_string_lossy().into_owned()).filter(|n| n.ends_with(".json")).collect())
        .unwrap_or_default();
    assert!(calls.is_empty(), "a call intent left: {calls:?}");
}

fn transcript(state: &Path, key: &str) -> Vec<Value> {
    let history = ok_json(cli(state, &["history", key, "--json", "--limit", "200"]));
    history["messages"].as_array().cloned().unwrap_or_default()
}

fn texts(messages: &[Value], role: &str) -> Vec<String> {
    messages
        .iter()
        .filter(|m| m["role"] == role)
        .map(|m| m["content"].as_array().map(|c| c.iter().filter_map(|b| b["text"].as_str()).collect::<String>()).unwrap_or_default())
        .collect()
}

fn count(items: &[String], wanted: &str) -> usize {
    items.iter().filter(|t| t.as_str() == wanted).count()
}

fn outbox(state: &Path) -> Vec<Value> {
    ok_json(cli(state, &["outbox", "--json"])).as_array().cloned().unwrap_or_default()
}

const SPAWN: [&str; 11] = [
    "call",
    "--as",
    "agent:main:main",
    "--channel",
    "discord",
    "--to",
    "user:1",
    "--wait",
    "30",
    "sessions_spawn",
    r#"{"task":"count to three"}"#,
];

/// The sub-agent sessions the sample state already has.
const SAMPLE_CHILDREN: [&str; 1] = ["agent:main:subagent:6f1e2d3c-4b5a-4978-8a6b-5c4d3e2f1a0b"];

/// The sub-agent flow happened exactly once (or, stopped before any side effect, not at all).
fn check_spawn(state: &Path, case: &str) {
    let deliveries = outbox(state);
    let children: Vec<String> = ok_json(cli(state, &["sessions", "--json"]))
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|r| r["key"].as_str().filter(|k| k.contains(":subagent:")).map(str::to_string))
        .filter(|k| !SAMPLE_CHILDREN.contains(&k.as_str()))
        .collect();
    if children.is_empty() {
        assert!(deliveries.is_empty(), "{case}: an announce without a child: {deliveries:?}");
        return;
    }
    assert_eq!(children.len(), 1, "{case}: one child: {children:?}");
    let messages = transcript(state, &children[0]);
    let (asked, replies) = (texts(&messages, "user"), texts(&messages, "assistant"));
    assert_eq!(count(&asked, "count to three"), 1, "{case}: the task once: {asked:?}");
    assert_eq!(count(&asked, "Sub-agent announce step."), 1, "{case}: the announce step once: {asked:?}");
    assert_eq!(count(&replies, "[echo runtime] Done: count to three"), 1, "{case}: the child's reply once: {replies:?}");
    assert_eq!(replies.len(), 2, "{case}: two replies (the task's and the announce's): {replies:?}");
    assert_eq!(deliveries.len(), 1, "{case}: one announce: {deliveries:?}");
    let message = deliveries[0]["message"].as_str().unwrap();
    assert!(
        message.starts_with("Status: success\n\nResult:\n[echo runtime] Done: count to three\n"),
        "{case}: the child's real result: {message}"
    );
}

const SEND: [&str; 9] = [
    "call",
    "--as",
    "agent:main:main",
    "--channel",
    "discord",
    "--wait",
    "30",
    "sessions_send",
    r#"{"sessionKey":"agent:ops:slack:channel:c07abcdef12","message":"is the incident over?","timeoutSeconds":20}"#,
];

/// The send's flow happened exactly once: the ping-pong's turns and the announce.
fn check_send(state: &Path, case: &str) {
    let target = transcript(state, "agent:ops:slack:channel:c07abcdef12");
    let (asked, replies) = (texts(&target, "user"), texts(&target, "assistant"));
    if count(&asked, "is the incident over?") == 0 {
        assert!(outbox(state).is_empty(), "{case}: an announce without the send");
        return;
    }
    assert_eq!(count(&asked, "is the incident over?"), 1, "{case}: the message once: {asked:?}");
    assert_eq!(count(&replies, "[echo runtime] echo: is the incident over?"), 1, "{case}: its reply once: {replies:?}");
    assert_eq!(count(&asked, "Agent-to-agent announce step."), 1, "{case}: the announce step once: {asked:?}");
    // Turn 2 (the target's): the requester's turn-1 reply, answered with REPLY_SKIP.
    assert_eq!(count(&asked, "[echo runtime] Thanks, noted: echo: is the incident over?"), 1, "{case}: turn 2 once: {asked:?}");
    let main = transcript(state, "agent:main:main");
    let (main_asked, main_replies) = (texts(&main, "user"), texts(&main, "assistant"));
    assert_eq!(count(&main_asked, "[echo runtime] echo: is the incident over?"), 1, "{case}: turn 1 once: {main_asked:?}");
    assert_eq!(count(&main_replies, "[echo runtime] Thanks, noted: echo: is the incident over?"), 1, "{case}: turn 1's reply once");
    let deliveries = outbox(state);
    assert_eq!(deliveries.len(), 1, "{case}: one announce: {deliveries:?}");
    assert_eq!(deliveries[0]["message"], "[echo runtime] [ops] Thanks, noted: echo: is the incident over?", "{case}");
    assert_eq!((deliveries[0]["channel"].as_str(), deliveries[0]["to"].as_str()), (Some("slack"), Some("channel:c07abcdef12")));
}

/// Every boundary of the sub-agent flow: the call (its intent, the child's run and its
/// record), each job step (planned, made), each run of the announce, the delivery.
const SPAWN_POINTS: &[&str] = &[
    "call.intent-recorded",
    "run.registered#1",
    "agent.message-appended#1",
    "run.replied#1",
    "run.end-written#1",
    "run.reply-appended#1",
    "call.jobs-kept",
    "job.step-begins#1",
    "job.step-made#1",
    "job.step-begins#2",
    "run.registered#2",
    "agent.message-appended#2",
    "job.step-made#2",
    "run.replied#2",
    "run.end-written#2",
    "run.reply-appended#2",
    "job.step-made#3",
    "outbox.written#1",
    "job.step-made#4",
];

/// Every boundary of the send's flow: the primary run, each ping-pong turn and the
/// announce (registered, appended, replied, recorded), each step, the delivery.
const SEND_POINTS: &[&str] = &[
    "call.intent-recorded",
    "run.registered#1",
    "run.reply-appended#1",
    "call.jobs-kept",
    "job.step-made#1",
    "run.registered#2",
    "agent.message-appended#2",
    "job.step-made#2",
    "run.end-written#2",
    "job.step-made#3",
    "run.registered#3",
    "job.step-made#4",
    "run.reply-appended#3",
    "job.step-made#5",
    "run.registered#4",
    "agent.message-appended#4",
    "job.step-made#6",
    "run.replied#4",
    "run.reply-appended#4",
    "job.step-made#7",
    "outbox.written#1",
    "job.step-made#8",
];

fn through_every_point(args: &[&str], points: &[&str], check: fn(&Path, &str)) {
    for point in points {
        for stop in [Stop::Kill, Stop::Term] {
            let state = configured_sample();
            let case = format!("{point} ({stop:?})");
            let reached = stop_at(state.path(), args, point, stop);
            assert!(reached, "{case}: the flow never reached the point");
            resume(state.path());
            check(state.path(), &case);
        }
    }
}

#[test]
fn a_sub_agent_flow_stopped_at_any_point_is_announced_once_with_its_result() {
    through_every_point(&SPAWN, SPAWN_POINTS, check_spawn);
}

/// A sandboxed caller's flow goes through the host's N15 guard, which gives the gateway keys
/// of its own (derived from the caller and the guest's key, so still the same after a stop).
#[test]
fn a_sandboxed_callers_flow_stopped_mid_way_is_announced_once() {
    let sandboxed: Vec<&str> = [&SPAWN[..3], &["--sandboxed"], &SPAWN[3..]].concat();
    through_every_point(
        &sandboxed,
        &["run.registered#1", "call.jobs-kept", "job.step-made#2", "agent.message-appended#2", "outbox.written#1"],
        check_spawn,
    );
}

#[test]
fn a_send_flow_stopped_at_any_point_ping_pongs_and_announces_once() {
    through_every_point(&SEND, SEND_POINTS, check_send);
}

/// How an MCP server over stdio is stopped.
#[derive(Debug, Clone, Copy)]
enum McpStop {
    Kill,
    Term,
    /// The client goes away: its standard input is closed.
    StdinClosed,
}

/// `mcp` over stdio, a raw JSON-RPC client: the handshake, then `sessions_spawn`, stopped
/// at `point` as `stop` says.
fn mcp_stopped_at(state: &Path, point: &str, stop: McpStop) {
    use std::io::Write as _;
    let mut child = command(state)
        .args(["mcp", "--as", "agent:main:main", "--channel", "discord", "--to", "user:1", "--wait", "10"])
        .env("SESSION_TOOLS_FAULT_POINT", point)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let stdout = child.stdout.take().unwrap();
    std::thread::spawn(move || for _ in BufReader::new(stdout).lines().map_while(Result::ok) {});
    let stderr = child.stderr.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            if line.starts_with("session-tools fault point reached:") {
                let _ = tx.send(());
            }
        }
    });
    let messages = [
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "exactly-once", "version": "0"}}}),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "sessions_spawn", "arguments": {"task": "count to three"}}}),
    ];
    for message in messages {
        writeln!(stdin, "{message}").unwrap();
    }
    stdin.flush().unwrap();
    let reached = rx.recv_timeout(Duration::from_secs(60)).is_ok();
    assert!(reached, "mcp at {point} ({stop:?}): the point was never reached");
    match stop {
        McpStop::Kill => assert!(Command::new("kill").args(["-KILL", &child.id().to_string()]).status().unwrap().success()),
        McpStop::Term => {
            assert!(Command::new("kill").args(["-TERM", &child.id().to_string()]).status().unwrap().success());
            drop(stdin);
        }
        McpStop::StdinClosed => drop(stdin),
    }
    let status = child.wait().unwrap();
    if !matches!(stop, McpStop::Kill) {
        assert!(status.success(), "mcp at {point} ({stop:?}) ends normally on a graceful stop: {status:?}");
    }
}

#[test]
fn an_mcp_server_stopped_mid_flow_finishes_what_it_started_and_the_rest_resumes_once() {
    for point in ["run.registered#1", "call.jobs-kept", "job.step-made#2", "run.replied#2", "outbox.written#1"] {
        for stop in [McpStop::Kill, McpStop::Term, McpStop::StdinClosed] {
            let state = configured_sample();
            mcp_stopped_at(state.path(), point, stop);
            resume(state.path());
            check_spawn(state.path(), &format!("mcp at {point} ({stop:?})"));
        }
    }
}

/// Killed at random moments (a bounded loop; the seed is printed for a rerun): the
/// process making the call, and in every other round the first process resuming it too.
#[test]
fn flows_killed_at_random_moments_still_happen_once() {
    let mut seed: u64 = std::env::var("EXACTLY_ONCE_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos() as u64);
    eprintln!("EXACTLY_ONCE_SEED={seed}");
    let mut next = move || {
        seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        seed >> 33
    };
    let kill_after = |args: &[&str], state: &Path, delay: Duration| {
        let mut child = command(state).args(args).stdout(Stdio::null()).stderr(Stdio::null()).spawn().unwrap();
        std::thread::sleep(delay);
        let _ = Command::new("kill").args(["-KILL", &child.id().to_string()]).status();
        let _ = child.wait();
    };
    for round in 0..12 {
        let (args, check): (&[&str], fn(&Path, &str)) = if round % 2 == 0 { (&SPAWN, check_spawn) } else { (&SEND, check_send) };
        let state = configured_sample();
        let delay = Duration::from_millis(next() % 400);
        kill_after(args, state.path(), delay);
        let mut case = format!("round {round}, killed after {delay:?}");
        if round % 4 >= 2 {
            let delay = Duration::from_millis(next() % 300);
            kill_after(&["jobs", "--wait", "60"], state.path(), delay);
            case.push_str(&format!(", its resumer killed after {delay:?}"));
        }
        resume(state.path());
        check(state.path(), &case);
    }
}

/// Two processes resuming six pending flows together: each flow announced once, and
/// neither waits out a run the other runs (a run waited out would stall 30 seconds).
#[test]
fn two_resumers_share_the_pending_flows() {
    let state = configured_sample();
    // Runs that take a while, so the resumers' runs overlap.
    let rules = state.path().join("runs.json5");
    std::fs::write(
        &rules,
        json!([
            {"match": {"message": "Sub-agent announce step."}, "reply": "Result: announced\nNotes: none", "durationMs": 400},
            {"match": {"lane": "subagent"}, "reply": "Done: task", "durationMs": 200}
        ])
        .to_string(),
    )
    .unwrap();
    let runtime = format!("scripted:{}", rules.display());
    for i in 0..6 {
        let task = json!({"task": format!("task {i}")}).to_string();
        let spawned = ok_json(cli(
            state.path(),
            &[
                "--runtime",
                &runtime,
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
                &task,
            ],
        ));
        assert_eq!(spawned["status"], "accepted");
    }
    let started = Instant::now();
    let resumer = || command(state.path()).args(["--runtime", &runtime, "jobs", "--wait", "60"]).stdout(Stdio::null()).spawn().unwrap();
    let (mut a, mut b) = (resumer(), resumer());
    assert!(a.wait().unwrap().success() && b.wait().unwrap().success());
    let took = started.elapsed();
    let announces: Vec<String> = outbox(state.path())
        .iter()
        .filter_map(|d| d["message"].as_str().map(str::to_string))
        .filter(|m| m.starts_with("Status:"))
        .collect();
    assert_eq!(announces.len(), 6, "each flow announced exactly once: {announces:#?}");
    assert!(announces.iter().all(|m| m.contains("Result:\nannounced")), "{announces:#?}");
    // A stall is a wait of 30 s or more for a run another process runs; the work itself
    // takes a few seconds.
    assert!(took < Duration::from_secs(25), "the resumers took {took:?}");
}
