//! Running the `session-tools` command line (built here as `st-cli`) as a separate process.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

use crate::root;

/// The tests' build of the command line: `st-cli` in this package; the OpenClaw tier's
/// package (`tests/openclaw`) builds the same source as `openclaw-st-cli` (two packages of
/// one workspace cannot both have a binary of one name), and turns on `openclaw-tier`.
pub const CLI_BINARY: &str = if cfg!(feature = "openclaw-tier") { "openclaw-st-cli" } else { "st-cli" };

/// A binary of this package, next to the test executables (`target/<profile>/`):
/// `CARGO_BIN_EXE_*` is set for integration tests only, not for this library.
pub fn binary(name: &str) -> PathBuf {
    let exe = std::env::current_exe().expect("the test executable's path");
    let profile_dir = exe.parent().and_then(Path::parent).expect("tests run from target/<profile>/deps");
    profile_dir.join(format!("{name}{}", std::env::consts::EXE_SUFFIX))
}

/// The command line, ready to run, with the test compile cache.
pub fn command(args: &[&str]) -> Command {
    let mut command = Command::new(binary(CLI_BINARY));
    command.args(args).env("SESSION_TOOLS_CACHE_DIR", root().join("target/component-cache"));
    command
}

/// Runs the command line to its end.
pub fn cli(args: &[&str]) -> Output {
    command(args).output().expect("running the CLI")
}

pub fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

pub fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// The exit code a tool's result must come with: 1 when it answered `forbidden`, `error`
/// or `timeout`, else 0.
pub fn exit_code_of(result: &Value) -> i32 {
    match result.get("status").and_then(Value::as_str) {
        Some("forbidden" | "error" | "timeout") => 1,
        _ => 0,
    }
}

/// `call` of one tool as a session; the JSON result (the tool must answer one, with the
/// exit code its status says). Sends and spawns run with the echo runtime unless `extra`
/// chooses a runtime or a gateway: the command line has no default runtime.
pub fn call(state: &Path, as_key: &str, extra: &[&str], tool: &str, args: &str) -> Value {
    let mut argv = vec!["call", "--state", state.to_str().unwrap(), "--as", as_key];
    let chooses = extra.iter().any(|a| matches!(*a, "--runtime" | "--gateway" | "--files"));
    if matches!(tool, "sessions_send" | "sessions_spawn") && !chooses {
        argv.extend_from_slice(&["--runtime", "echo"]);
    }
    argv.extend_from_slice(extra);
    argv.extend_from_slice(&[tool, args]);
    let output = cli(&argv);
    assert!(!stderr(&output).contains("panicked"), "{argv:?}: {}", stderr(&output));
    let result: Value = serde_json::from_str(&stdout(&output))
        .unwrap_or_else(|e| panic!("{argv:?}: not JSON ({e}): {}\n{}", stdout(&output), stderr(&output)));
    assert_eq!(output.status.code(), Some(exit_code_of(&result)), "{argv:?}: the exit code of {result}: {}", stderr(&output));
    result
}
