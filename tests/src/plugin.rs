//! The OpenClaw plugin (`plugin/`) as the tests run it: Node 22 from the harness's install
//! (Node alone, no OpenClaw release), `npm ci` when `plugin/node_modules` is missing, and `plugin/component/` rebuilt
//! from the very bytes the host embeds. Shared by `tests/plugin.rs` (the plugin's own tests
//! and the Node conformance runner) and `tests/openclaw/plugin_gateway.rs` (the plugin installed
//! in a real gateway).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use crate::openclaw::{install_node, NODE_VERSION};

/// How long one Node or npm run may take before it is killed.
pub const RUN_TIMEOUT: Duration = Duration::from_secs(15 * 60);

pub fn plugin_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("tests/ is inside the workspace").join("plugin")
}

/// What the plugin's runs need: Node 22, and the components the host embeds written where
/// the plugin's build reads them (`SESSION_TOOLS_GUEST_WASM`, `SESSION_TOOLS_WIRE_WASM`).
pub struct Setup {
    /// The Node 22 binary.
    pub node: PathBuf,
    /// `PATH` with Node 22 first.
    pub path: String,
    /// The component the host embeds, written to a file.
    pub component: PathBuf,
    /// The N15 guard the host embeds, and the tools behind it as the host composes them.
    pub guard: PathBuf,
    pub guarded: PathBuf,
    /// The hostile test component behind the guard, composed the same way as the real one.
    pub hostile_guarded: PathBuf,
    /// The gateway wire the host embeds, written to a file.
    pub wire: PathBuf,
    _dir: tempfile::TempDir,
}

static SETUP: OnceLock<Result<Setup, String>> = OnceLock::new();

/// A finished run: its exit status and its whole output.
pub struct Ran {
    pub success: bool,
    pub status: String,
    pub stdout: String,
    pub stderr: String,
    pub elapsed: Duration,
}

impl Ran {
    pub fn shown(&self) -> String {
        format!("--- stdout ---\n{}\n--- stderr ---\n{}\n--- end ---", self.stdout, self.stderr)
    }
}

/// Runs a command to its end (killed after [`RUN_TIMEOUT`]), output captured.
pub fn run(command: &mut Command, what: &str) -> Result<Ran, String> {
    let started = Instant::now();
    let dir = tempfile::tempdir().map_err(|e| format!("{what}: a temporary directory: {e}"))?;
    let (out_path, err_path) = (dir.path().join("stdout"), dir.path().join("stderr"));
    let out = std::fs::File::create(&out_path).map_err(|e| format!("{what}: {e}"))?;
    let err = std::fs::File::create(&err_path).map_err(|e| format!("{what}: {e}"))?;
    let mut child = command.stdin(Stdio::null()).stdout(out).stderr(err).spawn().map_err(|e| {
        if e.kind() == std::io::ErrorKind::NotFound {
            format!("{what}: the program was not found ({e}); install Node.js with npm (e.g. `apt-get install npm`)")
        } else {
            format!("{what}: cannot start it: {e}")
        }
    })?;
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if started.elapsed() > RUN_TIMEOUT => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!("{what} did not finish within {} s and was killed", RUN_TIMEOUT.as_secs()));
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(50)),
            Err(e) => return Err(format!("{what}: waiting for it: {e}")),
        }
    };
    let read = |p: &Path| String::from_utf8_lossy(&std::fs::read(p).unwrap_or_default()).into_owned();
    Ok(Ran {
        success: status.success(),
        status: status.to_string(),
        stdout: read(&out_path),
        stderr: read(&err_path),
        elapsed: started.elapsed(),
    })
}

/// A command in `plugin/` with Node 22 first on PATH and the component and test components
/// named.
pub fn command(setup: &Setup, program: &Path, args: &[&str]) -> Command {
    let mut command = Command::new(program);
    command
        .current_dir(plugin_dir())
        .args(args)
        .env("PATH", &setup.path)
        .env("SESSION_TOOLS_GUEST_WASM", &setup.component)
        .env("SESSION_TOOLS_WIRE_WASM", &setup.wire)
        .env("SESSION_TOOLS_GUARD_WASM", &setup.guard)
        .env("SESSION_TOOLS_GUARDED_WASM", &setup.guarded)
        .env("HOSTILE_GUEST_GUARDED_WASM", &setup.hostile_guarded)
        .env("HOSTILE_GUEST_WASM", env!("HOSTILE_GUEST_WASM"))
        .env("HOSTILE_GUEST_FS_WASM", env!("HOSTILE_GUEST_FS_WASM"))
        .env("npm_config_update_notifier", "false")
        .env("npm_config_fund", "false")
        .env("npm_config_audit", "false")
        .env_remove("NODE_OPTIONS");
    command
}

fn prepare() -> Result<Setup, String> {
    // Node alone: the plugin's own tests need no OpenClaw release (the OpenClaw tier installs those).
    let node = install_node(NODE_VERSION).map_err(|e| format!("installing Node {NODE_VERSION} for the plugin: {e}"))?;
    let node_bin = node.parent().ok_or("the Node binary has no directory")?.to_path_buf();
    let path = match std::env::var_os("PATH") {
        Some(rest) => format!("{}:{}", node_bin.display(), rest.to_string_lossy()),
        None => node_bin.display().to_string(),
    };
    // The component the host embeds, byte for byte, is what the plugin is built from.
    let dir = tempfile::tempdir().map_err(|e| format!("a temporary directory: {e}"))?;
    let write = |name: &str, bytes: &[u8]| -> Result<PathBuf, String> {
        let file = dir.path().join(name);
        std::fs::write(&file, bytes).map_err(|e| format!("writing {}: {e}", file.display()))?;
        Ok(file)
    };
    let component = write("session_tools_guest.wasm", session_tools_host::COMPONENT)?;
    // The guard and both guarded compositions, by the host's one composing function.
    let guard = write("session_tools_guard.wasm", session_tools_host::GUARD_COMPONENT)?;
    let guarded = write("session_tools_guarded.wasm", &session_tools_host::guarded_component(session_tools_host::COMPONENT)?)?;
    let hostile = std::fs::read(env!("HOSTILE_GUEST_WASM")).map_err(|e| format!("reading the hostile guest: {e}"))?;
    let hostile_guarded = write("hostile_guest_guarded.wasm", &session_tools_host::guarded_component(&hostile)?)?;
    let wire = write("session_tools_wire.wasm", session_tools_host::WIRE_COMPONENT)?;
    let setup = Setup { node, path, component, wire, guard, guarded, hostile_guarded, _dir: dir };

    let plugin = plugin_dir();
    if !plugin.join("node_modules/@bytecodealliance/jco-transpile/package.json").is_file() {
        eprintln!("[plugin] plugin/node_modules is missing: npm ci (the npm registry is needed once)");
        let ran = run(&mut command(&setup, Path::new("npm"), &["ci", "--no-audit", "--no-fund"]), "`npm ci` in plugin/")?;
        if !ran.success {
            let diagnosis = if ran.stderr.contains("ENOTFOUND") || ran.stderr.contains("EAI_AGAIN") || ran.stderr.contains("ECONNREFUSED") {
                "the npm registry is unreachable from this machine (`npm ping` should answer)"
            } else {
                "see npm's output"
            };
            return Err(format!("`npm ci` in {} failed ({}): {diagnosis}\n{}", plugin.display(), ran.status, ran.shown()));
        }
    }
    let ran = run(&mut command(&setup, &setup.node, &["scripts/build-component.mjs"]), "building the plugin's transpiled component")?;
    if !ran.success {
        return Err(format!("building the plugin's transpiled component failed ({})\n{}", ran.status, ran.shown()));
    }
    eprintln!("[plugin] {}", ran.stdout.trim());
    Ok(setup)
}

/// The set-up, made once per test binary; panics with what is missing.
pub fn setup() -> &'static Setup {
    match SETUP.get_or_init(prepare) {
        Ok(setup) => setup,
        Err(e) => panic!("{e}"),
    }
}

/// The number in `<prefix><N>` on a line of its own.
pub fn count(output: &str, prefix: &str) -> Option<usize> {
    output.lines().rev().find_map(|l| l.trim().strip_prefix(prefix)).and_then(|n| n.trim().parse().ok())
}
