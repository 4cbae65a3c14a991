//! The `session-tools` command line on OpenClaw 2026.9's state (every command, no option to set): the
//! sample imported by the real `openclaw doctor --fix` of npm `openclaw@2026.9.6`
//! ([`imported_sample`]), and the real `session-tools` binary run on it as separate
//! processes: `sessions`, `history`, `policy`, `call`, the owner's `chat` and `patch`,
//! `outbox`, and `mcp` driven by the real Python MCP client. What a command writes is
//! read back from the database itself, not only through the command line. Needs
//! Node/npm, the npm registry and PyPI on first use (cached outside the repository);
//! fails, never skips, without them.

#![forbid(unsafe_code)]

use std::path::Path;

use serde_json::{json, Value};
use session_tools_tests::cli::{binary, call, cli, stderr, stdout};
use session_tools_tests::{root, sample_copy};

use crate::imported::imported_sample;

const DISCORD: &str = "agent:main:discord:channel:1187421193829244938";
const GROUP: &str = "agent:main:telegram:group:-1001234567890";

fn sample() -> tempfile::TempDir {
    imported_sample(|_| {}).unwrap_or_else(|e| panic!("importing the sample with openclaw doctor --fix failed:\n{e}"))
}

/// The main agent's database, opened read-only by SQLite itself (not by the host).
fn database(state: &Path) -> rusqlite::Connection {
    let path = state.join("agents/main/agent/openclaw-agent.sqlite");
    rusqlite::Connection::open_with_flags(&path, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The stored entry of a session, as the database holds it.
fn stored_entry(state: &Path, key: &str) -> Value {
    let json: String = database(state)
        .query_row("SELECT entry_json FROM session_nodes WHERE session_key = ?1", [key], |r| r.get(0))
        .unwrap_or_else(|e| panic!("{key} in the database: {e}"));
    serde_json::from_str(&json).unwrap()
}

/// The transcript events of a session that contain `text` (zstd events are the long ones;
/// these are short, so stored as text).
fn events_containing(state: &Path, session_id: &str, text: &str) -> usize {
    database(state)
        .query_row(
            "SELECT count(*) FROM transcript_events WHERE session_id = ?1 AND instr(event_json, ?2) > 0",
            rusqlite::params![session_id, text],
            |r| r.get::<_, i64>(0),
        )
        .unwrap() as usize
}

fn ok(argv: &[&str]) -> String {
    let output = cli(argv);
    assert!(output.status.success(), "{argv:?} failed ({:?}): {}{}", output.status, stdout(&output), stderr(&output));
    assert!(!stderr(&output).contains("panicked"), "{argv:?}: {}", stderr(&output));
    stdout(&output)
}

#[test]
fn sessions_history_policy_and_call_read_a_2026_9_state() {
    let state = sample();
    let dir = state.path().to_str().unwrap();

    // `doctor`: commands can work, on the files of a 2026.9 directory (no gateway runs).
    let report: Value = serde_json::from_str(&ok(&["--state", dir, "doctor", "--json"])).unwrap();
    assert_eq!(
        (report["ok"].as_bool(), report["layout"].as_str(), report["era"].as_str(), report["backend"].as_str()),
        (Some(true), Some("sqlite"), Some("2026.9"), Some("files")),
        "{report:#}"
    );

    // `sessions`: every session of both agents, as a table and as JSON rows.
    let table = ok(&["--state", dir, "sessions"]);
    for key in ["agent:main:main", DISCORD, GROUP, "agent:ops:slack:channel:c07abcdef12"] {
        assert!(table.contains(key), "{key} missing from `sessions`:\n{table}");
    }
    let rows: Value = serde_json::from_str(&ok(&["--state", dir, "sessions", "--json"])).unwrap();
    assert_eq!(rows.as_array().unwrap().len(), 8, "{rows:#}");
    let ops: Value = serde_json::from_str(&ok(&["--state", dir, "sessions", "--json", "--agent", "ops"])).unwrap();
    let ops: Vec<&str> = ops.as_array().unwrap().iter().map(|r| r["key"].as_str().unwrap()).collect();
    assert_eq!(ops.len(), 2, "{ops:?}");
    assert!(ops.contains(&"agent:ops:slack:channel:c07abcdef12"), "{ops:?}");
    let discord = rows.as_array().unwrap().iter().find(|r| r["key"] == DISCORD).unwrap();
    assert_eq!(discord["channel"], "discord", "the channel read from 2026.9's delivery: {discord}");

    // `history`: the transcript from the database, the zstd-free short one here; JSON and text.
    let history: Value = serde_json::from_str(&ok(&["--state", dir, "history", DISCORD, "--json"])).unwrap();
    assert_eq!(history["sessionId"], "8c3d9e1f-2a4b-4c6d-8e0f-3a5b7c9d1e2f");
    let messages = history["messages"].as_array().unwrap();
    assert_eq!(messages.len(), 6, "the five messages and the tool result: {history:#}");
    assert!(ok(&["--state", dir, "history", "main", "--limit", "2"]).contains("assistant:"));
    let missing = cli(&["--state", dir, "history", "agent:main:nope"]);
    assert_eq!(missing.status.code(), Some(1));
    assert!(stderr(&missing).contains("no session agent:main:nope in"), "{}", stderr(&missing));

    // `policy`: the session's own override, kept by the import.
    let policy = ok(&["--state", dir, "policy", GROUP]);
    assert!(policy.contains("deny (the session's own override is deny)"), "{policy}");
    assert!(ok(&["--state", dir, "policy", DISCORD]).contains("allow"));

    // `call`: the tools through the component, as the caller sees them.
    let list = call(state.path(), "agent:main:main", &[], "sessions_list", r#"{"limit":200}"#);
    assert_eq!(list["count"], 6, "{list}");
    let args = json!({ "sessionKey": DISCORD }).to_string();
    let history = call(state.path(), "agent:main:main", &[], "sessions_history", &args);
    assert_eq!(history["messages"].as_array().map(Vec::len), Some(5), "the raw transcript less the tool result: {history}");
    let january = sample_copy();
    let before = call(january.path(), "agent:main:main", &[], "sessions_history", &args);
    assert_eq!(history, before, "the imported transcript answers as the January file it came from");
    let sandboxed = call(state.path(), "agent:main:main", &["--sandboxed"], "sessions_list", "{}");
    let keys: Vec<&str> = sandboxed["sessions"].as_array().unwrap().iter().map(|r| r["key"].as_str().unwrap()).collect();
    assert_eq!(keys, ["agent:main:subagent:6f1e2d3c-4b5a-4978-8a6b-5c4d3e2f1a0b"], "a sandboxed caller sees what it spawned");
    let agents = call(state.path(), "agent:main:main", &[], "agents_list", "{}");
    assert_eq!(agents["agents"][0]["id"], "main", "{agents}");
}

#[test]
fn owner_commands_and_sends_write_the_2026_9_database() {
    let state = sample();
    let dir = state.path().to_str().unwrap();
    let group_id = stored_entry(state.path(), GROUP)["sessionId"].as_str().unwrap().to_string();

    // The policy blocks the send; the owner's `/send on` lifts it, written to the entry.
    let blocked = call(
        state.path(),
        "agent:main:main",
        &[],
        "sessions_send",
        &json!({"sessionKey": GROUP, "message": "hello", "timeoutSeconds": 5}).to_string(),
    );
    assert_eq!(blocked["error"], "send blocked by session policy", "{blocked}");
    let lifted = ok(&["--state", dir, "chat", GROUP, "/send on"]);
    assert!(lifted.contains("set to allow"), "{lifted}");
    assert_eq!(stored_entry(state.path(), GROUP)["sendPolicy"], "allow");
    assert!(ok(&["--state", dir, "policy", GROUP]).contains("allow"));
    let sent = call(
        state.path(),
        "agent:main:main",
        &[],
        "sessions_send",
        &json!({"sessionKey": GROUP, "message": "sqlite cli ping", "timeoutSeconds": 10}).to_string(),
    );
    assert_eq!((&sent["status"], &sent["reply"]), (&json!("ok"), &json!("[echo runtime] echo: sqlite cli ping")), "{sent}");
    assert!(events_containing(state.path(), &group_id, "sqlite cli ping") >= 2, "the message and the reply are transcript events");
    let history: Value = serde_json::from_str(&ok(&["--state", dir, "history", GROUP, "--json"])).unwrap();
    let text = history["messages"].to_string();
    assert!(text.contains("echo: sqlite cli ping"), "a new process reads the run back: {text}");
    assert!(!text.contains("/send on"), "the owner's command is not part of the transcript");

    // A chat as the owner runs the agent in the session.
    let chat = ok(&["--state", dir, "--runtime", "echo", "chat", "main", "owner says hi"]);
    assert!(chat.contains(": ok"), "{chat}");
    let main_id = stored_entry(state.path(), "agent:main:main")["sessionId"].as_str().unwrap().to_string();
    assert!(events_containing(state.path(), &main_id, "echo: owner says hi") == 1, "the reply is in the main transcript");

    // `patch`: a label set and cleared; a new session made.
    let patched: Value = serde_json::from_str(&ok(&["--state", dir, "patch", DISCORD, "--label", "general-room"])).unwrap();
    assert_eq!(patched["entry"]["label"], "general-room", "{patched}");
    assert_eq!(stored_entry(state.path(), DISCORD)["label"], "general-room");
    let label: Option<String> =
        database(state.path()).query_row("SELECT label FROM session_nodes WHERE session_key = ?1", [DISCORD], |r| r.get(0)).unwrap();
    assert_eq!(label.as_deref(), Some("general-room"), "the projected column follows the entry");
    let duplicate = cli(&["--state", dir, "patch", "main", "--label", "general-room"]);
    // 1: refused (2 is for usage errors).
    assert_eq!(duplicate.status.code(), Some(1));
    assert!(stderr(&duplicate).contains("label already in use"), "{}", stderr(&duplicate));
    ok(&["--state", dir, "patch", DISCORD, "--label", ""]);
    assert!(stored_entry(state.path(), DISCORD).get("label").is_none());
    ok(&["--state", dir, "patch", "agent:main:notes", "--label", "notes"]);
    let rows: Value = serde_json::from_str(&ok(&["--state", dir, "sessions", "--json"])).unwrap();
    assert!(rows.as_array().unwrap().iter().any(|r| r["key"] == "agent:main:notes" && r["label"] == "notes"), "{rows:#}");

    // `outbox`: the send's announce delivered to the group, to the target January's layout
    // gives the same session (from its key).
    let outbox: Value = serde_json::from_str(&ok(&["--state", dir, "outbox", "--json"])).unwrap();
    let announced = outbox.as_array().unwrap().iter().any(|d| {
        d["channel"] == "telegram"
            && d["to"] == "group:-1001234567890"
            && d["message"].as_str().is_some_and(|m| m.contains("echo: sqlite cli ping"))
    });
    assert!(announced, "{outbox:#}");
    assert!(ok(&["--state", dir, "outbox"]).contains("telegram:group:-1001234567890"));

    let check: String = database(state.path()).query_row("PRAGMA integrity_check", [], |r| r.get(0)).unwrap();
    assert_eq!(check, "ok");
}

/// The stdio server as the client starts it (`env` passes the test compile cache).
fn server_command(state: &Path) -> Vec<String> {
    vec![
        "env".to_string(),
        format!("SESSION_TOOLS_CACHE_DIR={}", root().join("target/component-cache").display()),
        binary(session_tools_tests::cli::CLI_BINARY).display().to_string(),
        "mcp".into(),
        "--state".into(),
        state.display().to_string(),
        "--as".into(),
        "agent:main:main".into(),
        // Runs are the echo runtime's, chosen explicitly (there is no default runtime).
        "--runtime".into(),
        "echo".into(),
    ]
}

fn structured(result: &Value) -> &Value {
    assert_eq!(result["isError"], false, "{result:#}");
    &result["structuredContent"]
}

#[test]
fn mcp_serves_every_tool_on_a_2026_9_state_to_the_python_client() {
    let state = sample();
    let by_cli = call(state.path(), "agent:main:main", &[], "sessions_list", "{}");
    let plan = json!([
        {"op": "list"},
        {"op": "call", "tool": "sessions_list", "arguments": {}},
        {"op": "call", "tool": "sessions_history", "arguments": {"sessionKey": DISCORD}},
        {"op": "call", "tool": "sessions_send", "arguments": {"sessionKey": DISCORD, "message": "mcp sqlite ping", "timeoutSeconds": 10}},
        {"op": "call", "tool": "sessions_spawn", "arguments": {"task": "mcp sqlite task", "label": "mcp-sqlite-child"}},
        {"op": "call", "tool": "agents_list", "arguments": {}},
    ]);
    let mut transport = vec!["stdio".to_string(), "--".into()];
    transport.extend(server_command(state.path()));
    let transport: Vec<&str> = transport.iter().map(String::as_str).collect();
    let output = crate::mcp_clients::python_client(&transport, &plan);
    assert!(output.get("fatal").is_none(), "the Python client failed: {output:#}");
    let results = output["results"].as_array().unwrap();
    let names: Vec<&str> = results[0]["tools"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["sessions_list", "sessions_history", "sessions_send", "sessions_spawn", "agents_list"]);
    let listed = structured(&results[1]);
    assert_eq!(listed, &by_cli, "tools/call sessions_list answers what `session-tools call` does");
    assert_eq!(listed["count"], 6, "{listed}");
    assert_eq!(structured(&results[2])["messages"].as_array().map(Vec::len), Some(5), "{}", results[2]);
    let sent = structured(&results[3]);
    assert_eq!((&sent["status"], &sent["reply"]), (&json!("ok"), &json!("[echo runtime] echo: mcp sqlite ping")), "{sent}");
    let spawned = structured(&results[4]);
    assert_eq!(spawned["status"], "accepted", "{spawned}");
    let child = spawned["childSessionKey"].as_str().unwrap().to_string();
    assert_eq!(structured(&results[5])["agents"][0]["id"], "main");

    // What the server wrote is in the database: the send's run, and the child session with
    // its parent (E5) and its label.
    let discord_id = stored_entry(state.path(), DISCORD)["sessionId"].as_str().unwrap().to_string();
    assert!(events_containing(state.path(), &discord_id, "mcp sqlite ping") >= 2);
    let (parent, label): (Option<String>, Option<String>) = database(state.path())
        .query_row("SELECT parent_session_key, label FROM session_nodes WHERE session_key = ?1", [&child], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap_or_else(|e| panic!("the spawned child {child} in the database: {e}"));
    assert_eq!((parent.as_deref(), label.as_deref()), (Some("agent:main:main"), Some("mcp-sqlite-child")));
}
