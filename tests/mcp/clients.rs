//! The independent MCP clients the tests drive `session-tools mcp` with, installed on
//! first use into a cache outside the repository (`$SESSION_TOOLS_MCP_CLIENTS_HOME`,
//! default `$HOME/.cache/session-tools/mcp-clients`), one directory per pinned version:
//!
//! - the Python SDK (`mcp` on PyPI, [`PYTHON_MCP`]) in a virtual environment, driven by
//!   `tests/mcp/client.py`: it speaks both generations (`--mode legacy`, a session on
//!   2025-11-25; `--mode auto`, its own default, `server/discover` and 2026-07-28);
//! - the TypeScript SDK (`@modelcontextprotocol/sdk`, pinned with its dependencies by
//!   `tests/mcp/node/package-lock.json`), driven by `tests/mcp/node/client.mjs`: its 1.x
//!   line speaks the session-based revisions only (it offers 2025-11-25).
//!
//! An install that fails is a test failure that says what failed and how to fix it: a
//! missing client never lets a test pass.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::OnceLock;

use serde_json::Value;
use session_tools_tests::root;

/// The pinned Python SDK: its newest release, which speaks 2026-07-28 besides the
/// session-based revisions.
pub const PYTHON_MCP: &str = "mcp==2.3.0";

/// The cache directory, created if missing.
fn cache_home() -> PathBuf {
    let home = match std::env::var_os("SESSION_TOOLS_MCP_CLIENTS_HOME") {
        Some(dir) => PathBuf::from(dir),
        None => match std::env::var_os("HOME") {
            Some(home) => Path::new(&home).join(".cache/session-tools/mcp-clients"),
            None => panic!("neither SESSION_TOOLS_MCP_CLIENTS_HOME nor HOME is set: set one for the MCP client cache"),
        },
    };
    std::fs::create_dir_all(&home).unwrap_or_else(|e| panic!("cannot create the MCP client cache {}: {e}", home.display()));
    home
}

/// Runs `install` into a fresh directory that becomes `dir` once it succeeded (marked by
/// `dir/.installed`), under a lock, so concurrent test processes install once.
fn install_once(dir: &Path, install: impl FnOnce(&Path)) {
    if dir.join(".installed").exists() {
        return;
    }
    let lock_path = dir.with_extension("lock");
    let lock = std::fs::File::create(&lock_path).unwrap_or_else(|e| panic!("cannot create {}: {e}", lock_path.display()));
    lock.lock().unwrap_or_else(|e| panic!("cannot lock {}: {e}", lock_path.display()));
    if !dir.join(".installed").exists() {
        let _ = std::fs::remove_dir_all(dir);
        let staging = dir.with_extension(format!("staging-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&staging);
        std::fs::create_dir_all(&staging).unwrap();
        install(&staging);
        std::fs::write(staging.join(".installed"), "").unwrap();
        std::fs::rename(&staging, dir).unwrap_or_else(|e| panic!("cannot move {} to {}: {e}", staging.display(), dir.display()));
    }
    drop(lock);
}

fn run_install_step(what: &str, command: &mut Command) {
    let output = command.stdin(Stdio::null()).output().unwrap_or_else(|e| panic!("{what}: cannot run {command:?}: {e}"));
    assert!(
        output.status.success(),
        "{what} failed ({:?}): {command:?}\n{}\n{}",
        output.status,
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}

/// The virtual environment's Python with the pinned SDK.
pub fn python() -> &'static Path {
    static PYTHON: OnceLock<PathBuf> = OnceLock::new();
    PYTHON.get_or_init(|| {
        let dir = cache_home().join(format!("python-{}", PYTHON_MCP.replace("==", "-")));
        install_once(&dir, |staging| {
            run_install_step(
                "creating a Python virtual environment (needs python3 with venv: apt-get install python3-venv)",
                Command::new("python3").args(["-m", "venv"]).arg(staging),
            );
            run_install_step(
                &format!("installing the Python MCP SDK ({PYTHON_MCP}) from PyPI"),
                Command::new(staging.join("bin/python")).args([
                    "-m",
                    "pip",
                    "install",
                    "--quiet",
                    "--disable-pip-version-check",
                    PYTHON_MCP,
                ]),
            );
        });
        // A venv is not relocatable: its scripts name the staging path, but `bin/python`
        // run as `python -m`/with a script works from the moved directory.
        dir.join("bin/python")
    })
}

/// The directory with the Node SDK installed (`npm ci` from the lockfile) and the driver.
pub fn node_client() -> &'static Path {
    static NODE: OnceLock<PathBuf> = OnceLock::new();
    NODE.get_or_init(|| {
        let source = root().join("tests/mcp/node");
        let lock = std::fs::read(source.join("package-lock.json")).expect("tests/mcp/node/package-lock.json");
        let stamp: u64 = lock.iter().fold(0xcbf2_9ce4_8422_2325, |h, b| (h ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3));
        let dir = cache_home().join(format!("node-sdk-{stamp:016x}"));
        install_once(&dir, |staging| {
            for file in ["package.json", "package-lock.json"] {
                std::fs::copy(source.join(file), staging.join(file)).unwrap();
            }
            run_install_step(
                "installing the Node MCP SDK from the npm registry (needs node and npm on PATH)",
                Command::new("npm").args(["ci", "--ignore-scripts", "--no-audit", "--no-fund"]).current_dir(staging),
            );
        });
        // The driver from the repository, next to its node_modules (written whole, then renamed).
        let driver = dir.join(format!("client.{}.mjs.tmp", std::process::id()));
        std::fs::copy(source.join("client.mjs"), &driver).unwrap();
        std::fs::rename(&driver, dir.join("client.mjs")).unwrap();
        dir
    })
}

/// A client's one line of JSON output; panics with everything it said otherwise.
fn json_of(what: &str, output: Output) -> Value {
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    let line = stdout.lines().rev().find(|l| l.starts_with('{')).unwrap_or_else(|| {
        panic!("{what} printed no JSON ({:?}):\nstdout: {stdout}\nstderr: {stderr}", output.status);
    });
    serde_json::from_str(line).unwrap_or_else(|e| panic!("{what}: not JSON ({e}): {line}\nstderr: {stderr}"))
}

/// Runs `tests/mcp/client.py` with a plan; its JSON output (`fatal` included).
pub fn python_client(transport: &[&str], plan: &Value) -> Value {
    python_client_logged(transport, plan).0
}

/// Runs `tests/mcp/client.py` with a plan: its JSON output, and what it and a server it
/// started wrote to standard error (the server's log, over stdio).
pub fn python_client_logged(transport: &[&str], plan: &Value) -> (Value, String) {
    let mut child = Command::new(python())
        .arg(root().join("tests/mcp/client.py"))
        .args(transport)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("starting the Python MCP client");
    {
        use std::io::Write;
        let mut stdin = child.stdin.take().unwrap();
        stdin.write_all(plan.to_string().as_bytes()).unwrap();
    }
    let output = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    (json_of("the Python MCP client", output), stderr)
}

/// Runs `client.mjs` (initialize, list, one call of `tool` with `arguments`).
pub fn node_client_run(transport: &[&str], tool: &str, arguments: &Value) -> Value {
    node_client_calls(transport, &serde_json::json!([{"name": tool, "arguments": arguments}]))
}

/// Runs `client.mjs` (initialize, list, then each of `calls`, a list of `{"name",
/// "arguments"}`, in order: its `calls`).
pub fn node_client_calls(transport: &[&str], calls: &Value) -> Value {
    let dir = node_client();
    let output = Command::new("node")
        .arg(dir.join("client.mjs"))
        .args(transport)
        .env("MCP_CALLS", calls.to_string())
        .stdin(Stdio::null())
        .output()
        .expect("starting node (Node 20 or later must be on PATH)");
    json_of("the Node MCP client", output)
}
