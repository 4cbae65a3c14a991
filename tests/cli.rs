//! The `session-tools` command line, run as separate processes against copies of the
//! sample state: each command, the sandbox's view, persistence between processes, the
//! send policy and the owner's `/send` command, and clear errors. Its modules: no run
//! without a chosen runtime, the running gateway found, `doctor`, an install that works
//! from anywhere, the conventions (exit codes, help), and the MCP set-ups of the docs.

#![forbid(unsafe_code)]

mod conventions;
mod discovery;
mod doctor;
mod install;
mod mcp_snippets;
mod no_runtime;

use std::path::Path;
use std::process::{Command, Output};

use serde_json::Value;
use session_tools_tests::cli::exit_code_of;
use session_tools_tests::{root, sample_copy};

fn cli(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_st-cli"))
        .args(args)
        .env("SESSION_TOOLS_CACHE_DIR", root().join("target/component-cache"))
        .output()
        .expect("running the CLI")
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// `call` with the state directory given after the subcommand (it is a global option);
/// the JSON result, which came with the exit code its status says.
fn call(state: &Path, as_key: &str, extra: &[&str], tool: &str, args: &str) -> Value {
    let mut argv = vec!["call", "--state", state.to_str().unwrap(), "--as", as_key];
    argv.extend_from_slice(extra);
    argv.extend_from_slice(&[tool, args]);
    let output = cli(&argv);
    let result: Value = serde_json::from_str(&stdout(&output))
        .unwrap_or_else(|e| panic!("{argv:?}: not JSON ({e}): {}\n{}", stdout(&output), stderr(&output)));
    assert_eq!(output.status.code(), Some(exit_code_of(&result)), "{argv:?}: {result}: {}", stderr(&output));
    result
}

#[test]
fn describe_prints_the_five_tools() {
    let output = cli(&["describe"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let tools: Value = serde_json::from_str(&stdout(&output)).unwrap();
    let names: Vec<&str> = tools.as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["sessions_list", "sessions_history", "sessions_send", "sessions_spawn", "agents_list"]);
    assert_eq!(tools[1]["parameters"]["required"][0], "sessionKey");
}

#[test]
fn conformance_runs_the_built_in_cases_and_reports_failures() {
    let output = cli(&["conformance"]);
    assert!(output.status.success(), "{}{}", stdout(&output), stderr(&output));
    assert!(stdout(&output).trim_end().ends_with("121 passed, 0 failed"), "{}", stdout(&output));

    let dir = tempfile::tempdir().unwrap();
    let case = std::fs::read_to_string(root().join("tests/conformance/cases/095-send_policy-default-allow.json")).unwrap();
    std::fs::write(dir.path().join("wrong.json"), case.replace("\"result\": \"allow\"", "\"result\": \"deny\"")).unwrap();
    let output = cli(&["conformance", dir.path().to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(1));
    let text = stdout(&output);
    assert!(text.contains("FAIL wrong.json") && text.contains("expected \"deny\", got \"allow\""), "{text}");
    assert!(text.trim_end().ends_with("0 passed, 1 failed"), "{text}");
}

#[test]
fn a_sandboxed_caller_sees_only_what_it_spawned() {
    let state = sample_copy();
    let all = call(state.path(), "agent:main:main", &[], "sessions_list", "{}");
    assert_eq!(all["count"], 6, "main sees its own agent's sessions (agent-to-agent is off): {all}");
    let sandboxed = call(state.path(), "agent:main:main", &["--sandboxed"], "sessions_list", "{}");
    let keys: Vec<&str> = sandboxed["sessions"].as_array().unwrap().iter().map(|r| r["key"].as_str().unwrap()).collect();
    assert_eq!(keys, ["agent:main:subagent:6f1e2d3c-4b5a-4978-8a6b-5c4d3e2f1a0b"]);
    let refused = call(
        state.path(),
        "agent:main:main",
        &["--sandboxed"],
        "sessions_history",
        r#"{"sessionKey":"agent:main:discord:channel:1187421193829244938"}"#,
    );
    assert_eq!(refused["status"], "forbidden");
    let allowed = call(
        state.path(),
        "agent:main:main",
        &["--sandboxed"],
        "sessions_history",
        r#"{"sessionKey":"agent:main:subagent:6f1e2d3c-4b5a-4978-8a6b-5c4d3e2f1a0b","limit":1}"#,
    );
    assert_eq!(allowed["messages"].as_array().unwrap().len(), 1);
}

#[test]
fn a_send_is_written_in_openclaw_format_and_seen_by_a_new_process() {
    let state = sample_copy();
    let target = "agent:main:discord:channel:1187421193829244938";
    let sent = call(
        state.path(),
        "agent:main:main",
        &["--channel", "discord", "--runtime", "echo"],
        "sessions_send",
        &format!(r#"{{"sessionKey":"{target}","message":"cli test ping","timeoutSeconds":10}}"#),
    );
    assert_eq!(sent["status"], "ok", "{sent}");
    assert_eq!(sent["reply"], "[echo runtime] echo: cli test ping");
    // The transcript got the messages in pi-coding-agent's v3 line format.
    let transcript = std::fs::read_to_string(state.path().join("agents/main/sessions/8c3d9e1f-2a4b-4c6d-8e0f-3a5b7c9d1e2f.jsonl")).unwrap();
    let lines: Vec<Value> = transcript.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let ours: Vec<&Value> = lines.iter().filter(|l| l.to_string().contains("cli test ping")).collect();
    assert!(ours.len() >= 2, "{ours:?}");
    for line in &ours {
        assert_eq!(line["type"], "message");
        assert!(line["id"].as_str().is_some_and(|id| id.len() == 8 && id.chars().all(|c| c.is_ascii_hexdigit())));
        assert!(line["parentId"].is_string());
        assert!(line["timestamp"].as_str().is_some_and(|t| t.ends_with('Z') && t.len() == 24));
    }
    let index = |v: &Value| lines.iter().position(|l| l == v).unwrap();
    assert_eq!(ours[0]["message"]["role"], "user");
    assert_eq!(lines[index(ours[0]) + 1]["parentId"], ours[0]["id"], "entries chain by parentId");
    // A new process reads it back.
    let history = call(state.path(), "agent:main:main", &[], "sessions_history", &format!(r#"{{"sessionKey":"{target}","limit":50}}"#));
    let text = history["messages"].to_string();
    assert!(text.contains("cli test ping") && text.contains("[echo runtime] echo: cli test ping"), "{text}");
}

#[test]
fn the_send_policy_blocks_and_the_owner_lifts_it() {
    let state = sample_copy();
    let dir = state.path().to_str().unwrap();
    let group = "agent:main:telegram:group:-1001234567890";
    let blocked = call(
        state.path(),
        "agent:main:main",
        &["--runtime", "echo"],
        "sessions_send",
        &format!(r#"{{"sessionKey":"{group}","message":"hello","timeoutSeconds":5}}"#),
    );
    assert_eq!(blocked["status"], "error");
    assert_eq!(blocked["error"], "send blocked by session policy");
    let policy = cli(&["--state", dir, "policy", group]);
    assert!(stdout(&policy).contains("deny (the session's own override is deny)"), "{}", stdout(&policy));
    // The owner's standalone `/send on` is answered, not run as a prompt.
    let lifted = cli(&["--state", dir, "chat", group, "/send on"]);
    assert!(lifted.status.success(), "{}", stderr(&lifted));
    assert!(stdout(&lifted).contains("set to allow"), "{}", stdout(&lifted));
    let sent = call(
        state.path(),
        "agent:main:main",
        &["--runtime", "echo"],
        "sessions_send",
        &format!(r#"{{"sessionKey":"{group}","message":"hello again","timeoutSeconds":5}}"#),
    );
    assert_eq!(sent["status"], "ok", "{sent}");
    let history = cli(&["--state", dir, "history", group, "--json"]);
    let history: Value = serde_json::from_str(&stdout(&history)).unwrap();
    assert!(!history["messages"].to_string().contains("/send on"), "the command is not part of the transcript");
    let inherit = cli(&["--state", dir, "chat", group, "/send inherit"]);
    assert!(stdout(&inherit).contains("inherit"), "{}", stdout(&inherit));
}

#[test]
fn inspection_commands() {
    let state = sample_copy();
    let dir = state.path().to_str().unwrap();
    let sessions = cli(&["sessions", "--state", dir]);
    assert!(sessions.status.success());
    let text = stdout(&sessions);
    assert!(text.contains("agent:ops:slack:channel:c07abcdef12") && text.contains("incidents"), "{text}");
    let json: Value = serde_json::from_str(&stdout(&cli(&["--state", dir, "sessions", "--json", "--agent", "ops"]))).unwrap();
    assert_eq!(json.as_array().unwrap().len(), 2);
    let history = cli(&["--state", dir, "history", "main", "--limit", "2"]);
    assert!(stdout(&history).contains("assistant:"), "{}", stdout(&history));
    let outbox = cli(&["--state", dir, "outbox"]);
    assert!(stdout(&outbox).contains("nothing delivered"), "{}", stdout(&outbox));
}

#[test]
fn bad_input_is_a_clear_error_on_stderr() {
    let state = sample_copy();
    let dir = state.path().to_str().unwrap();
    let output = cli(&["--state", dir, "call", "--as", "agent:main:main", "sessions_list", "{not json"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).contains("arguments are not valid JSON"), "{}", stderr(&output));
    assert!(stdout(&output).is_empty());
    let output = cli(&["--state", dir, "call", "--as", "agent:main:main", "sessions_list", r#"{"limit":"abc"}"#]);
    assert_eq!(output.status.code(), Some(2), "a bad argument value is a usage error");
    assert!(stderr(&output).contains("limit must be a number"), "{}", stderr(&output));
    let output = cli(&["--state", dir, "call", "--as", "agent:main:main", "no_such_tool", "{}"]);
    assert_eq!(output.status.code(), Some(2), "an unknown tool is a usage error");
    assert!(stderr(&output).contains("unknown tool: no_such_tool"), "{}", stderr(&output));
    let output = cli(&["--state", dir, "call", "--as", "  ", "sessions_list"]);
    assert_eq!(output.status.code(), Some(2), "a caller without a session key is a usage error");
    assert!(stderr(&output).contains("--as needs a session key"), "{}", stderr(&output));
    assert!(stdout(&output).is_empty());
    std::fs::write(state.path().join("openclaw.json"), "{ agents: [").unwrap();
    let output = cli(&["--state", dir, "sessions"]);
    assert_eq!(output.status.code(), Some(3), "a state directory whose config does not parse cannot be opened");
    assert!(stderr(&output).contains("openclaw.json: not valid JSON5"), "{}", stderr(&output));
    let output = cli(&["--state", dir, "--config", "/nonexistent/config.json", "sessions"]);
    assert_eq!(output.status.code(), Some(3));
    assert!(stderr(&output).contains("/nonexistent/config.json"), "{}", stderr(&output));
}

#[test]
fn limits_are_configurable_per_agent() {
    let state = sample_copy();
    let dir = state.path().to_str().unwrap();
    std::fs::create_dir_all(state.path().join("session-tools")).unwrap();
    std::fs::write(state.path().join("session-tools/limits.json"), r#"{"agents": {"ops": {"maxArgumentBytes": 64}}}"#).unwrap();
    let long = format!(r#"{{"kinds":["{}"]}}"#, "x".repeat(100));
    let ops = cli(&["--state", dir, "call", "--as", "agent:ops:main", "sessions_list", &long]);
    assert_eq!(ops.status.code(), Some(1));
    assert!(stderr(&ops).contains("tool arguments too large: 114 bytes (the limit is 64)"), "{}", stderr(&ops));
    let main = cli(&["--state", dir, "call", "--as", "agent:main:main", "sessions_list", &long]);
    assert!(main.status.success(), "{}", stderr(&main));
    std::fs::write(state.path().join("session-tools/limits.json"), r#"{"agents": {"ops": {"cpu": 1}}}"#).unwrap();
    let bad = cli(&["--state", dir, "sessions"]);
    assert!(stderr(&bad).contains("limits.json: agents.ops: unknown limit \"cpu\""), "{}", stderr(&bad));
}

/// Logs an operator can parse: with `--log-format json`, stderr is JSON lines only; a tool call is one line
/// with its agent, tool, outcome and duration, and a gateway call the N15 guard refuses is
/// an event of its own (at `debug`) beside the log line saying so. The hostile component
/// asks for what the real one never would.
#[test]
fn the_json_log_has_a_line_per_tool_call_and_per_n15_refusal() {
    let state = sample_copy();
    let argv = [
        "call",
        "--state",
        state.path().to_str().unwrap(),
        "--component",
        env!("HOSTILE_GUEST_WASM"),
        "--as",
        "agent:main:main",
        "--sandboxed",
        "--log-format",
        "json",
        "--log-level",
        "debug",
        "spy",
        r#"{"method": "chat-history", "key": "agent:ops:main"}"#,
    ];
    let output = cli(&argv);
    let answer: Value = serde_json::from_str(&stdout(&output)).unwrap();
    assert_eq!(output.status.code(), Some(exit_code_of(&answer)), "{}", stderr(&output));
    assert!(answer["error"].as_str().is_some_and(|e| e.starts_with("forbidden")), "{answer}");
    let log = stderr(&output);
    let lines: Vec<Value> =
        log.lines().map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not a JSON line ({e}): {l}\n{log}"))).collect();
    let events = |name: &str| lines.iter().filter(|l| l["fields"]["event"] == name).collect::<Vec<_>>();
    let calls = events("tool_call");
    assert_eq!(calls.len(), 1, "{log}");
    let call = &calls[0]["fields"];
    assert_eq!((call["agent"].as_str(), call["tool"].as_str(), call["outcome"].as_str()), (Some("main"), Some("spy"), Some("ok")), "{log}");
    assert!(call["duration_ms"].as_f64().is_some_and(|ms| ms > 0.0), "{log}");
    let refusals = events("n15_refusal");
    assert_eq!(refusals.len(), 1, "{log}");
    assert_eq!(refusals[0]["fields"]["method"], "chat.history", "{log}");
    assert_eq!(refusals[0]["fields"]["session"], "agent:main:main", "{log}");
    // Inside the call's span, and the free-text line too.
    assert_eq!(refusals[0]["span"]["name"], "tool_call", "{log}");
    assert!(lines.iter().any(|l| l["target"] == "session_tools_host::log"
        && l["fields"]["message"].as_str().is_some_and(|m| m.starts_with("N15: refused chat.history"))));
}
