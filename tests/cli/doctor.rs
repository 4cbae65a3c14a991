//! `session-tools doctor`: exit 0 when commands can work (the sample state, a 2026.9
//! directory), naming the layout, era and backend; exit 1 with the file and line of a
//! config that does not parse.

use serde_json::Value;
use session_tools_tests::cli::{command, stderr, stdout};
use session_tools_tests::sample_copy;

fn doctor(dir: &str, json: bool) -> (Option<i32>, String, String) {
    let mut args = vec!["--state", dir, "doctor"];
    if json {
        args.push("--json");
    }
    let output = command(&args).env_remove("OPENCLAW_GATEWAY_URL").output().unwrap();
    (output.status.code(), stdout(&output), stderr(&output))
}

#[test]
fn the_sample_state_is_fine_and_named() {
    let state = sample_copy();
    let dir = state.path().to_str().unwrap();
    let (code, text, err) = doctor(dir, false);
    assert_eq!(code, Some(0), "{text}{err}");
    for named in [
        "OpenClaw 2026.1 session files",
        "moltbot.json",
        "the state directory's files",
        "no gateway of the state directory is running",
        "Commands can work.",
    ] {
        assert!(text.contains(named), "names {named}: {text}");
    }
    assert!(text.contains("--runtime echo"), "says how to run sends without a gateway: {text}");
    let (code, json, err) = doctor(dir, true);
    assert_eq!(code, Some(0), "{err}");
    let report: Value = serde_json::from_str(&json).unwrap();
    assert_eq!(
        (report["ok"].as_bool(), report["layout"].as_str(), report["era"].as_str()),
        (Some(true), Some("files"), Some("2026.1")),
        "{report}"
    );
    assert_eq!((report["backend"].as_str(), report["stateDirFrom"].as_str()), (Some("files"), Some("the --state option")), "{report}");
    assert_eq!(report["pendingJobs"], 0, "{report}");
    assert!(report["cache"]["path"].is_string() && report["cache"]["outcome"].is_string(), "{report}");
}

#[test]
fn a_2026_9_directory_is_fine_and_named() {
    let state = super::discovery::sqlite_state();
    let (code, json, err) = doctor(state.path().to_str().unwrap(), true);
    assert_eq!(code, Some(0), "{json}{err}");
    let report: Value = serde_json::from_str(&json).unwrap();
    assert_eq!(
        (report["layout"].as_str(), report["era"].as_str(), report["backend"].as_str()),
        (Some("sqlite"), Some("2026.9"), Some("files")),
        "{report}"
    );
}

#[test]
fn a_config_that_does_not_parse_is_named_by_file_and_line() {
    let state = sample_copy();
    std::fs::write(state.path().join("openclaw.json"), "{\n  agents: {\n    list: [\n}").unwrap();
    let (code, text, err) = doctor(state.path().to_str().unwrap(), false);
    assert_eq!(code, Some(1), "{text}{err}");
    assert!(text.contains("openclaw.json: not valid JSON5") && text.contains("at line 4 column"), "{text}");
    assert!(text.contains("Commands cannot work"), "{text}");
    let missing = doctor("/nonexistent/state-dir", false);
    assert_eq!(missing.0, Some(1), "{}", missing.1);
    assert!(missing.1.contains("/nonexistent/state-dir (from the --state option) does not exist"), "{}", missing.1);
}
