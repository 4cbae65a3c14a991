//! One install: the binary needs nothing of the source tree (the component and the sample
//! state are inside it), so it works from any directory; it prints completion scripts its
//! shells accept, and says what it serves. (`cargo install --locked --path cli` itself is
//! too slow for this tier; these are what it relies on.)

use std::process::Command;

use session_tools_tests::cli::{command, stderr, stdout};
use session_tools_tests::sample_copy;

#[test]
fn it_works_from_another_directory() {
    let state = sample_copy();
    let elsewhere = tempfile::tempdir().unwrap();
    let output = command(&["--state", state.path().to_str().unwrap(), "sessions"]).current_dir(elsewhere.path()).output().unwrap();
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(stdout(&output).contains("agent:ops:slack:channel:c07abcdef12"), "{}", stdout(&output));
}

#[test]
fn the_demo_runs_where_there_is_no_source_tree() {
    let elsewhere = tempfile::tempdir().unwrap();
    for run in 1..=2 {
        let output = command(&["demo"]).current_dir(elsewhere.path()).output().unwrap();
        assert!(output.status.success(), "{}{}", stdout(&output), stderr(&output));
        let text = stdout(&output);
        assert!(text.contains(&format!("session-tools demo, run {run}, on demo-state")), "{text}");
        assert!(text.contains("runs are answered by the echo runtime") && text.contains("[echo runtime]"), "{text}");
    }
    assert!(elsewhere.path().join("demo-state/agents/main/sessions/sessions.json").is_file());
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(elsewhere.path().join("demo-state/moltbot.json")).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600, "the sample's files are born private");
    }
}

#[test]
fn completion_scripts_are_accepted_by_their_shell() {
    let output = command(&["completions", "bash"]).output().unwrap();
    assert!(output.status.success(), "{}", stderr(&output));
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("session-tools.bash");
    std::fs::write(&script, &output.stdout).unwrap();
    let checked = Command::new("bash").arg("-n").arg(&script).output().expect("bash runs");
    assert!(checked.status.success(), "bash -n: {}", String::from_utf8_lossy(&checked.stderr));
    assert!(stdout(&output).contains("doctor") && stdout(&output).contains("--runtime"), "the script knows the commands and options");
    for shell in ["zsh", "fish", "powershell"] {
        let output = command(&["completions", shell]).output().unwrap();
        assert!(output.status.success() && stdout(&output).contains("session-tools"), "{shell}: {}", stderr(&output));
    }
    let output = command(&["completions", "tcsh"]).output().unwrap();
    assert_eq!(output.status.code(), Some(2), "an unknown shell is a usage error");
}

#[test]
fn the_version_names_the_component_and_what_it_serves() {
    let output = command(&["--version"]).output().unwrap();
    assert!(output.status.success(), "{}", stderr(&output));
    let text = stdout(&output);
    let wit = std::fs::read_to_string(session_tools_tests::root().join("wit/session-tools.wit")).unwrap();
    let package = wit.lines().find_map(|l| l.strip_prefix("package ")).unwrap().trim_end_matches(';');
    for named in [package, "OpenClaw 2026.1.x", "gateway protocol 3", "OpenClaw 2026.9.x", "gateway protocol 4"] {
        assert!(text.contains(named), "names {named}: {text}");
    }
}
