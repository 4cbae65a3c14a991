//! The conventions the command line keeps: exit codes (0 answered ok, 1 forbidden, error
//! or timeout with the JSON still on stdout, 2 usage, 3 a state directory or gateway that
//! cannot be opened), help for every argument, the user's commands before the
//! developer's, `--json` wherever data is printed, fixed sets as value enums.

use clap::CommandFactory;
use serde_json::Value;
use session_tools_cli::Cli;
use session_tools_tests::cli::{cli, stderr, stdout};
use session_tools_tests::sample_copy;

#[test]
fn exit_codes_follow_the_answer() {
    let state = sample_copy();
    let dir = state.path().to_str().unwrap();
    let forbidden = cli(&[
        "--state",
        dir,
        "call",
        "--as",
        "agent:main:main",
        "--sandboxed",
        "sessions_history",
        r#"{"sessionKey":"agent:main:discord:channel:1187421193829244938"}"#,
    ]);
    assert_eq!(forbidden.status.code(), Some(1), "{}", stderr(&forbidden));
    let answer: Value = serde_json::from_str(&stdout(&forbidden)).expect("the JSON result on stdout");
    assert_eq!(answer["status"], "forbidden", "{answer}");

    let ok = cli(&["--state", dir, "call", "--as", "agent:main:main", "sessions_list", "{}"]);
    assert_eq!(ok.status.code(), Some(0), "{}", stderr(&ok));

    for (args, why) in [
        (vec!["call", "--as", "agent:main:main", "sessions_list", "{not json"], "arguments that are not JSON"),
        (vec!["call", "--as", "agent:main:main", "sessions_list", r#"{"limit":"abc"}"#], "a bad argument value"),
        (vec!["call", "--as", "agent:main:main", "no_such_tool", "{}"], "an unknown tool"),
        (vec!["patch", "main", "--send-policy", "sometimes"], "a value outside a fixed set"),
        (vec!["no-such-command"], "an unknown command"),
    ] {
        let output = cli(&[&["--state", dir][..], &args].concat());
        assert_eq!(output.status.code(), Some(2), "{why}: {}", stderr(&output));
        assert!(stdout(&output).is_empty(), "{why}: {}", stdout(&output));
    }
    let missing = cli(&["--state", "/nonexistent/state", "call", "--as", "agent:main:main", "sessions_list", "{}"]);
    assert_eq!(missing.status.code(), Some(3), "{}", stderr(&missing));
    let unreachable = cli(&["--state", dir, "--gateway", "ws://127.0.0.1:9", "--token", "t", "sessions"]);
    assert_eq!(unreachable.status.code(), Some(3), "{}", stderr(&unreachable));
}

#[test]
fn every_argument_has_help_and_fixed_sets_are_enums() {
    let mut command = Cli::command();
    command.build();
    let mut missing = Vec::new();
    for sub in std::iter::once(&command).chain(command.get_subcommands()) {
        if sub.get_name() != "session-tools" && sub.get_name() != "help" && sub.get_about().is_none() {
            missing.push(format!("the command {}", sub.get_name()));
        }
        for arg in sub.get_arguments() {
            let id = arg.get_id().as_str();
            if id != "help" && id != "version" && arg.get_help().is_none() && arg.get_long_help().is_none() {
                missing.push(format!("{} {id}", sub.get_name()));
            }
        }
    }
    assert!(missing.is_empty(), "without help: {missing:?}");
    let patch = command.find_subcommand("patch").unwrap();
    let policy = patch.get_arguments().find(|a| a.get_id() == "send_policy").unwrap();
    let values: Vec<String> = policy.get_possible_values().iter().map(|v| v.get_name().to_string()).collect();
    assert_eq!(values, ["allow", "deny", "inherit"]);
}

#[test]
fn user_commands_come_first_and_data_commands_take_json() {
    let command = Cli::command();
    let names: Vec<&str> = command.get_subcommands().filter(|s| !s.is_hide_set()).map(|s| s.get_name()).collect();
    assert_eq!(names.first(), Some(&"call"), "{names:?}");
    for developer in ["conformance", "describe"] {
        assert!(!names.contains(&developer), "{developer} is not among the user's commands: {names:?}");
    }
    let help = stdout(&cli(&["--help"]));
    let (users, developers) = help.split_once("Developer commands:").expect("a heading of their own");
    assert!(users.contains("doctor") && developers.contains("conformance") && developers.contains("describe"), "{help}");
    for data in ["sessions", "history", "outbox", "policy", "chat", "jobs", "doctor"] {
        let sub = command.find_subcommand(data).unwrap();
        assert!(sub.get_arguments().any(|a| a.get_id() == "json"), "{data} has --json");
    }
    let state = sample_copy();
    let dir = state.path().to_str().unwrap();
    let policy: Value = serde_json::from_str(&stdout(&cli(&["--state", dir, "policy", "main", "--json"]))).unwrap();
    assert_eq!((policy["key"].as_str(), policy["decision"].as_str()), (Some("agent:main:main"), Some("allow")), "{policy}");
    let jobs: Value = serde_json::from_str(&stdout(&cli(&["--state", dir, "jobs", "--wait", "0", "--json"]))).unwrap();
    assert_eq!(jobs["pending"], serde_json::json!([]), "{jobs}");
}

/// On a terminal, `call` says when it stays for the background work and how to leave it
/// to `jobs`; in a pipe it says nothing of it. The terminal is `script`'s (util-linux).
#[test]
fn call_says_on_a_terminal_when_it_stays_for_background_work() {
    let state = sample_copy();
    let dir = state.path().to_str().unwrap();
    let binary = session_tools_tests::cli::binary("st-cli");
    let argv = [
        binary.to_str().unwrap(),
        "--state",
        dir,
        "--runtime",
        "echo",
        "call",
        "--as",
        "agent:main:main",
        "--wait",
        "30",
        "sessions_spawn",
        r#"{"task":"t"}"#,
    ];
    let line: Vec<String> = argv.iter().map(|a| format!("'{}'", a.replace('\'', r"'\''"))).collect();
    let on_terminal = std::process::Command::new("script")
        .args(["-q", "-e", "-c", &line.join(" "), "/dev/null"])
        .env("SESSION_TOOLS_CACHE_DIR", session_tools_tests::root().join("target/component-cache"))
        .output()
        .expect("running `script` (util-linux: apt-get install bsdutils)");
    let shown = String::from_utf8_lossy(&on_terminal.stdout);
    assert!(on_terminal.status.success(), "{shown}");
    assert!(shown.contains("finishing the call's background work") && shown.contains("session-tools jobs"), "{shown}");
    let piped = cli(&argv[1..]);
    assert!(piped.status.success(), "{}", stderr(&piped));
    assert!(!stderr(&piped).contains("finishing the call's background work"), "{}", stderr(&piped));
}
