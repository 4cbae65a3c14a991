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

/// `call` of one tool as a session; the JSON result (the call must succeed).
pub fn call(state: &Path, as_key: &str, extra: &[&str], tool: &str, args: &str) -> Value {
    let mut argv = vec!["call", "--state", state.to_str().unwrap(), "--as", as_key];
    argv.extend_from_slice(extra);
    argv.extend_from_slice(&[tool, args]);
    let output = cli(&argv);
    assert!(output.status.success(), "{argv:?} failed ({:?}): {}", output.status, stderr(&output));
    assert!(!stderr(&output).contains("panicked"), "{argv:?}: {}", stderr(&output));
    serde_json::from_str(&stdout(&output)).unwrap_or_else(|e| panic!("{argv:?}: not JSON ({e}): {}", stdout(&output)))
}
