//! No run without a real agent: on a state directory's files with no `--runtime`, sends
//! and spawns are refused with what to do, and nothing at all is written; reads work. With
//! `--runtime echo` they run, and the echo runtime's replies say whose they are, with no
//! tokens or cost that no model spent.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::Value;
use session_tools_tests::cli::{call, cli, stderr, stdout};
use session_tools_tests::sample_copy;

const DISCORD: &str = "agent:main:discord:channel:1187421193829244938";

/// Every file and directory under `dir`, with the files' bytes.
fn snapshot(dir: &Path) -> BTreeMap<PathBuf, Option<Vec<u8>>> {
    let mut all = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(at) = stack.pop() {
        for entry in std::fs::read_dir(&at).unwrap() {
            let path = entry.unwrap().path();
            let relative = path.strip_prefix(dir).unwrap().to_path_buf();
            if path.is_dir() {
                all.insert(relative, None);
                stack.push(path);
            } else {
                all.insert(relative, Some(std::fs::read(&path).unwrap()));
            }
        }
    }
    all
}

#[test]
fn sends_and_spawns_without_a_runtime_are_refused_and_write_nothing() {
    let state = sample_copy();
    let dir = state.path().to_str().unwrap();
    let before = snapshot(state.path());
    let send = format!(r#"{{"sessionKey":"{DISCORD}","message":"hi","timeoutSeconds":5}}"#);
    let no_wait = format!(r#"{{"sessionKey":"{DISCORD}","message":"hi","timeoutSeconds":0}}"#);
    for (tool, args) in [("sessions_send", send.as_str()), ("sessions_send", no_wait.as_str()), ("sessions_spawn", r#"{"task":"t"}"#)] {
        let output = cli(&["--state", dir, "call", "--as", "agent:main:main", tool, args]);
        assert_eq!(output.status.code(), Some(2), "{tool} {args}: {}", stderr(&output));
        let said = stderr(&output);
        for named in ["--gateway local", "--runtime echo", "--runtime scripted:FILE", "nothing was written"] {
            assert!(said.contains(named), "{tool}: the refusal names {named}: {said}");
        }
        assert!(stdout(&output).is_empty(), "{}", stdout(&output));
    }
    // The owner's chat starts a run too: refused the same way.
    let chat = cli(&["--state", dir, "chat", DISCORD, "hello"]);
    assert_eq!(chat.status.code(), Some(1), "{}", stderr(&chat));
    assert!(stderr(&chat).contains("--runtime echo"), "{}", stderr(&chat));
    assert_eq!(snapshot(state.path()), before, "every file and directory as it was");

    // Reads need no runtime.
    let listed = call(state.path(), "agent:main:main", &[], "sessions_list", "{}");
    assert_eq!(listed["count"], 6, "{listed}");
    let history = call(state.path(), "agent:main:main", &[], "sessions_history", &format!(r#"{{"sessionKey":"{DISCORD}","limit":2}}"#));
    assert!(history["messages"].as_array().is_some_and(|m| !m.is_empty()), "{history}");
    let agents = call(state.path(), "agent:main:main", &[], "agents_list", "{}");
    assert!(agents.get("agents").is_some(), "{agents}");
    assert!(cli(&["--state", dir, "sessions"]).status.success());
}

#[test]
fn the_echo_runtime_says_whose_replies_they_are_and_spends_no_tokens() {
    let state = sample_copy();
    let dir = state.path().to_str().unwrap();
    let sent = call(
        state.path(),
        "agent:main:main",
        &["--runtime", "echo"],
        "sessions_send",
        &format!(r#"{{"sessionKey":"{DISCORD}","message":"hi","timeoutSeconds":5}}"#),
    );
    assert_eq!((sent["status"].as_str(), sent["reply"].as_str()), (Some("ok"), Some("[echo runtime] echo: hi")), "{sent}");
    // A spawn's announce carries the runtime's stats: no tokens counted, no cost.
    let spawned = call(
        state.path(),
        "agent:main:main",
        &["--runtime", "echo", "--channel", "discord", "--to", "user:1"],
        "sessions_spawn",
        r#"{"task":"count"}"#,
    );
    assert_eq!(spawned["status"], "accepted", "{spawned}");
    let outbox: Value = serde_json::from_str(&stdout(&cli(&["--state", dir, "outbox", "--json"]))).unwrap();
    let announce = outbox
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|d| d["message"].as_str())
        .find(|m| m.starts_with("Status:"))
        .unwrap_or_else(|| panic!("an announce: {outbox}"));
    assert!(announce.starts_with("Status: success\n\nResult:\n[echo runtime] Done: count\n\nNotes:\n"), "{announce}");
    assert!(announce.contains("tokens n/a") && !announce.contains("est $"), "no invented tokens or cost: {announce}");
}

#[test]
fn options_for_the_other_backend_are_refused() {
    let state = sample_copy();
    let dir = state.path().to_str().unwrap();
    let output = cli(&["--state", dir, "--runtime", "echo", "--gateway", "ws://127.0.0.1:9", "sessions"]);
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    assert!(stderr(&output).contains("--runtime echo chooses who answers runs on the state directory's files"), "{}", stderr(&output));
    let output = cli(&["--state", dir, "--token", "t", "sessions"]);
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    assert!(stderr(&output).contains("--token is for a running gateway"), "{}", stderr(&output));
    let output = cli(&["--state", dir, "--files", "--gateway", "local", "sessions"]);
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    let output = cli(&["--state", dir, "--runtime", "claude", "sessions"]);
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    assert!(stderr(&output).contains("use echo or scripted:FILE"), "{}", stderr(&output));
}
