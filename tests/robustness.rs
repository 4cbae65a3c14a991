//! Issue 10's reproductions, run as a new user would: nothing a user, a guest or a disk
//! sends crashes the host, damaged state is reported (never mistaken for empty, never made
//! worse), and appends keep OpenClaw's message tree intact.

use std::io::Write;
use std::path::Path;
use std::process::Stdio;

use serde_json::{json, Value};
use session_tools_tests::cli::{call, command, stderr};
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
    for text in ["[message_id: 1]\nGracias, señor", "100% done — thanks!\n[message_id: 1]", "[message_id: 9]\n谢谢，朋友们 🎉\nObrigação"] {
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
