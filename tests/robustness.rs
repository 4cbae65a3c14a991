//! Reproductions of reported crashes, run as a new user would: nothing a user, a guest or a disk
//! sends crashes the host, damaged state is reported (never mistaken for empty, never made
//! worse), and appends keep OpenClaw's message tree intact.

#![forbid(unsafe_code)]

use std::io::Write;
use std::path::Path;
use std::process::Stdio;

use serde_json::{json, Value};
use session_tools_tests::cli::{call, cli, command, stderr, stdout};
use session_tools_tests::sample_copy;

const DISCORD: &str = "agent:main:discord:channel:1187421193829244938";
const DISCORD_TRANSCRIPT: &str = "agents/main/sessions/8c3d9e1f-2a4b-4c6d-8e0f-3a5b7c9d1e2f.jsonl";

/// Appends a raw transcript line (an entry in pi-coding-agent's format) to a transcript.
fn append_line(state: &Path, transcript: &str, line: &str) {
    let mut file = std::fs::OpenOptions::new().append(true).open(state.join(transcript)).unwrap();
    writeln!(file, "{line}").unwrap();
}

fn user_line(id: &str, parent: &str, text: &str) -> String {
    json!({"type": "message", "id": id, "parentId": parent, "timestamp": "2026-01-26T12:00:00.000Z",
        "message": {"role": "user", "content": [{"type": "text", "text": text}], "timestamp": 1769428800000u64}})
    .to_string()
}

/// The id of a transcript's last entry.
fn last_id(state: &Path, transcript: &str) -> String {
    let text = std::fs::read_to_string(state.join(transcript)).unwrap();
    let last: Value = serde_json::from_str(text.lines().last().unwrap()).unwrap();
    last["id"].as_str().unwrap().to_string()
}

#[test]
fn text_in_any_language_around_message_id_hints_is_read() {
    for text in ["[message_id: 1]\nGracias, señor", "100% done — thanks!\n[message_id: 1]", "[message_id: 9]\n谢谢，朋友们 🎉\nObrigação"]
    {
        let state = sample_copy();
        let parent = last_id(state.path(), DISCORD_TRANSCRIPT);
        append_line(state.path(), DISCORD_TRANSCRIPT, &user_line("abcd1234", &parent, text));
        let expected = text.lines().filter(|l| !l.starts_with("[message_id:")).collect::<Vec<_>>().join("\n");

        let history = call(state.path(), "agent:main:main", &[], "sessions_history", &format!(r#"{{"sessionKey":"{DISCORD}"}}"#));
        let last = history["messages"].as_array().unwrap().last().unwrap().clone();
        assert_eq!(last["content"][0]["text"], expected, "{text:?}: {last}");

        let listed = call(state.path(), "agent:main:main", &[], "sessions_list", r#"{"messageLimit":1}"#);
        let row = listed["sessions"].as_array().unwrap().iter().find(|r| r["key"] == DISCORD).unwrap().clone();
        assert_eq!(row["messages"][0]["content"][0]["text"], expected, "{text:?}: {row}");

        // The agent-to-agent flow after a send reads the target's history too.
        let sent = call(
            state.path(),
            "agent:main:main",
            &["--channel", "discord", "--wait", "20"],
            "sessions_send",
            &format!(r#"{{"sessionKey":"{DISCORD}","message":"ping","timeoutSeconds":10}}"#),
        );
        assert_eq!(sent["status"], "ok", "{text:?}: {sent}");
    }
}

#[test]
fn a_closed_stdout_ends_the_command_quietly() {
    let state = sample_copy();
    let dir = state.path().to_str().unwrap();
    for args in [
        vec!["--state", dir, "call", "--as", "agent:main:main", "sessions_list", r#"{"messageLimit":3}"#],
        vec!["--state", dir, "sessions"],
        vec!["--state", dir, "history", "main"],
        vec!["describe"],
    ] {
        // The reader is gone before the command writes a byte: `… | head -0`.
        let mut child = command(&args).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
        drop(child.stdout.take());
        let output = child.wait_with_output().unwrap();
        let err = stderr(&output);
        assert!(!err.contains("panicked") && !err.contains("Broken pipe"), "{args:?}: {err}");
        assert_eq!(output.status.code(), Some(0), "{args:?}: {err}");
    }
}

#[test]
fn a_damaged_store_is_an_error_naming_it_and_is_left_alone() {
    let truncated = r#"{"agent:main:main": {"sessionId": "5b0f3c2e-8d1a-4e6b-9c7f-1a2b3c4d5e6f", "updatedAt": 17"#;
    for damaged in [truncated, "[]", "junk \u{0} junk"] {
        let state = sample_copy();
        let dir = state.path().to_str().unwrap();
        let store = state.path().join("agents/main/sessions/sessions.json");
        std::fs::write(&store, damaged).unwrap();
        let named = |text: &str| text.contains(&store.display().to_string()) && text.contains("damaged");

        let sessions = cli(&["--state", dir, "sessions"]);
        assert_ne!(sessions.status.code(), Some(0), "{damaged:?}: {}", stdout(&sessions));
        assert!(named(&stderr(&sessions)), "{damaged:?}: {}", stderr(&sessions));

        for (tool, args) in [("sessions_list", "{}"), ("sessions_history", r#"{"sessionKey":"main"}"#)] {
            let output = cli(&["--state", dir, "call", "--as", "agent:main:main", tool, args]);
            // 1: the tool failed (2 is for usage errors).
            assert_eq!(output.status.code(), Some(1), "{damaged:?} {tool}: {}", stdout(&output));
            assert!(named(&stderr(&output)), "{damaged:?} {tool}: {}", stderr(&output));
        }
        // A write is refused and changes nothing.
        let patch = cli(&["--state", dir, "patch", "agent:main:main", "--label", "x"]);
        assert_ne!(patch.status.code(), Some(0));
        assert!(stderr(&patch).contains("refusing to overwrite"), "{}", stderr(&patch));
        assert_eq!(std::fs::read_to_string(&store).unwrap(), damaged);
    }
}

#[test]
fn a_read_of_a_state_directory_that_does_not_exist_says_so_and_creates_nothing() {
    let parent = tempfile::tempdir().unwrap();
    let typo = parent.path().join("typo");
    let dir = typo.to_str().unwrap();
    for args in [
        vec!["--state", dir, "sessions"],
        vec!["--state", dir, "history", "main"],
        vec!["--state", dir, "outbox"],
        vec!["--state", dir, "policy", "main"],
        vec!["--state", dir, "jobs", "--wait", "0"],
        vec!["--state", dir, "call", "--as", "agent:main:main", "sessions_list", "{}"],
    ] {
        let output = cli(&args);
        // 3: the state directory cannot be opened.
        assert_eq!(output.status.code(), Some(3), "{args:?}: {}", stdout(&output));
        assert!(stderr(&output).contains(&format!("the state directory {dir} does not exist")), "{args:?}: {}", stderr(&output));
        assert!(!typo.exists(), "{args:?} created {dir}");
    }
}

/// The transcript's lines as JSON (lines that are not JSON are skipped, as readers do).
fn entries(state: &Path, transcript: &str) -> Vec<Value> {
    let bytes = std::fs::read(state.join(transcript)).unwrap();
    String::from_utf8_lossy(&bytes).lines().filter_map(|l| serde_json::from_str(l).ok()).collect()
}

#[test]
fn an_append_keeps_the_message_tree_whatever_the_last_line_holds() {
    let long = "x".repeat(300_000);
    let cases: Vec<(&str, Vec<u8>)> = vec![
        ("a 300,000-character tool result", {
            json!({"type": "message", "id": "long0001", "parentId": "x", "timestamp": "2026-01-26T12:00:00.000Z",
                "message": {"role": "toolResult", "toolCallId": "t", "toolName": "read", "content": [{"type": "text", "text": long}], "isError": false, "timestamp": 1}})
            .to_string()
            .into_bytes()
        }),
        ("invalid UTF-8 inside a string", {
            let mut line = br#"{"type":"message","id":"utf80001","parentId":"x","timestamp":"2026-01-26T12:00:00.000Z","message":{"role":"user","content":"bad "#.to_vec();
            line.extend_from_slice(b"\xff\xfe\xc3 bytes\"}}");
            line
        }),
    ];
    for (what, line) in cases {
        let state = sample_copy();
        let mut file = std::fs::OpenOptions::new().append(true).open(state.path().join(DISCORD_TRANSCRIPT)).unwrap();
        file.write_all(&line).unwrap();
        file.write_all(b"\n").unwrap();
        drop(file);
        let last = entries(state.path(), DISCORD_TRANSCRIPT).last().unwrap()["id"].clone();
        call(
            state.path(),
            "agent:main:main",
            &["--channel", "discord", "--wait", "0"],
            "sessions_send",
            &format!(r#"{{"sessionKey":"{DISCORD}","message":"after {what}","timeoutSeconds":0}}"#),
        );
        let all = entries(state.path(), DISCORD_TRANSCRIPT);
        let ours = all.iter().find(|e| e["message"]["content"][0]["text"] == format!("after {what}")).expect("the message was appended");
        assert_eq!(ours["parentId"], last, "{what}: the new entry's parent is the last entry");
        // Every entry's parent is an entry of the file: the tree is whole.
        let ids: std::collections::HashSet<&Value> = all.iter().map(|e| &e["id"]).collect();
        for entry in all.iter().skip(1) {
            assert!(entry["parentId"].is_null() || ids.contains(&entry["parentId"]) || entry["parentId"] == "x", "{what}: {entry}");
        }
        // The bytes already on disk are never rewritten.
        let bytes = std::fs::read(state.path().join(DISCORD_TRANSCRIPT)).unwrap();
        assert!(bytes.windows(line.len()).any(|w| w == line.as_slice()), "{what}: the line was rewritten");
    }
}

#[test]
fn a_20_mib_last_message_is_answered_not_dropped() {
    let state = sample_copy();
    let parent = last_id(state.path(), DISCORD_TRANSCRIPT);
    append_line(state.path(), DISCORD_TRANSCRIPT, &user_line("huge0001", &parent, &"é".repeat(10 << 20)));
    let history = call(state.path(), "agent:main:main", &[], "sessions_history", &format!(r#"{{"sessionKey":"{DISCORD}"}}"#));
    let messages = history["messages"].as_array().unwrap();
    assert_eq!(messages.len(), 1, "only the last message fits, and it is there (bounded by N14): {}", history["droppedMessages"]);
    assert_eq!(history["truncated"], true);
    let text = messages[0]["content"][0]["text"].as_str().unwrap();
    assert!(text.starts_with("éééé") && text.len() < 100_000, "{}", text.len());
}
