//! The OpenClaw plugin (`plugin/`): the very component the host embeds, transpiled by jco and
//! run in Node, passes the plugin's own tests (`node --test`: the sandbox of each agent's
//! instance, the N15 guard in its gateway bridge, the wire conversions, a stale-transpile
//! check) and every conformance case (`node plugin/conformance.mjs`), as the Rust host does.
//!
//! Needs Node 22 (installed from the npm registry into the OpenClaw test cache by
//! [`session_tools_tests::openclaw::install`]) and, when `plugin/node_modules` is missing,
//! `npm` and the npm registry once for `npm ci`. A missing prerequisite fails the test with
//! what is missing; nothing is skipped.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

use session_tools_tests::openclaw::{install, DEFAULT_PACKAGE};

/// How long one Node or npm run may take before it is killed.
const RUN_TIMEOUT: Duration = Duration::from_secs(15 * 60);

fn plugin_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("tests/ is inside the workspace").join("plugin")
}

/// What the plugin's runs need: Node 22, and the component the host embeds written where
/// the plugin's build reads it (`SESSION_TOOLS_GUEST_WASM`).
struct Setup {
    node: PathBuf,
    path: String,
    component: PathBuf,
    _dir: tempfile::TempDir,
}

/// The plugin's runs one at a time: its tests measure CPU deadlines.
static SERIAL: Mutex<()> = Mutex::new(());
static SETUP: OnceLock<Result<Setup, String>> = OnceLock::new();

/// A finished run: its exit status and its whole output.
struct Ran {
    success: bool,
    status: String,
    stdout: String,
    stderr: String,
    elapsed: Duration,
}

impl Ran {
    fn shown(&self) -> String {
        format!("--- stdout ---\n{}\n--- stderr ---\n{}\n--- end ---", self.stdout, self.stderr)
    }
}

/// Runs a command to its end (killed after [`RUN_TIMEOUT`]), output captured.
fn run(command: &mut Command, what: &str) -> Result<Ran, String> {
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
fn command(setup: &Setup, program: &Path, args: &[&str]) -> Command {
    let mut command = Command::new(program);
    command
        .current_dir(plugin_dir())
        .args(args)
        .env("PATH", &setup.path)
        .env("SESSION_TOOLS_GUEST_WASM", &setup.component)
        .env("HOSTILE_GUEST_WASM", env!("HOSTILE_GUEST_WASM"))
        .env("HOSTILE_GUEST_FS_WASM", env!("HOSTILE_GUEST_FS_WASM"))
        .env("npm_config_update_notifier", "false")
        .env("npm_config_fund", "false")
        .env("npm_config_audit", "false")
        .env_remove("NODE_OPTIONS");
    command
}

fn prepare() -> Result<Setup, String> {
    let installation = install(DEFAULT_PACKAGE).map_err(|e| format!("installing Node 22 for the plugin: {e}"))?;
    let node = installation.node.clone();
    let node_bin = node.parent().ok_or("the Node binary has no directory")?.to_path_buf();
    let path = match std::env::var_os("PATH") {
        Some(rest) => format!("{}:{}", node_bin.display(), rest.to_string_lossy()),
        None => node_bin.display().to_string(),
    };
    // The component the host embeds, byte for byte, is what the plugin is built from.
    let dir = tempfile::tempdir().map_err(|e| format!("a temporary directory: {e}"))?;
    let component = dir.path().join("session_tools_guest.wasm");
    std::fs::write(&component, session_tools_host::COMPONENT).map_err(|e| format!("writing the component: {e}"))?;
    let setup = Setup { node, path, component, _dir: dir };

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

fn setup() -> &'static Setup {
    match SETUP.get_or_init(prepare) {
        Ok(setup) => setup,
        Err(e) => panic!("{e}"),
    }
}

/// The number in `<prefix><N>` on a line of its own.
fn count(output: &str, prefix: &str) -> Option<usize> {
    output.lines().rev().find_map(|l| l.trim().strip_prefix(prefix)).and_then(|n| n.trim().parse().ok())
}

#[test]
fn the_plugin_passes_its_node_tests() {
    let _serial = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    let setup = setup();
    let mut tests: Vec<String> = std::fs::read_dir(plugin_dir().join("test"))
        .expect("reading plugin/test")
        .filter_map(|e| e.ok().map(|e| e.file_name().to_string_lossy().into_owned()))
        .filter(|n| n.ends_with(".test.mjs"))
        .map(|n| format!("test/{n}"))
        .collect();
    tests.sort();
    assert!(!tests.is_empty(), "no plugin/test/*.test.mjs");
    let mut args = vec!["--test", "--test-concurrency=1"];
    args.extend(tests.iter().map(String::as_str));
    let ran = run(&mut command(setup, &setup.node, &args), "node --test in plugin/").unwrap_or_else(|e| panic!("{e}"));
    let (pass, fail) = (count(&ran.stdout, "# pass "), count(&ran.stdout, "# fail "));
    eprintln!("[plugin] node --test: {pass:?} passed, {fail:?} failed in {:.1} s", ran.elapsed.as_secs_f64());
    assert!(
        ran.success && fail == Some(0) && pass.is_some_and(|n| n > 0),
        "node --test in plugin/ failed ({})\n{}",
        ran.status,
        ran.shown()
    );
    assert_eq!(count(&ran.stdout, "# tests "), pass, "every test ran and passed\n{}", ran.shown());
}

fn conformance(setup: &Setup, dir: &str) -> (usize, Ran) {
    let cases = std::fs::read_dir(plugin_dir().join(dir))
        .unwrap_or_else(|e| panic!("reading {dir}: {e}"))
        .filter(|e| e.as_ref().is_ok_and(|e| e.path().extension().is_some_and(|x| x == "json")))
        .count();
    let ran = run(&mut command(setup, &setup.node, &["conformance.mjs", dir]), "node conformance.mjs").unwrap_or_else(|e| panic!("{e}"));
    (cases, ran)
}

#[test]
fn every_conformance_case_passes_in_node() {
    let _serial = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    let setup = setup();
    for dir in ["../tests/conformance/cases", "../tests/conformance/own-cases"] {
        let (cases, ran) = conformance(setup, dir);
        let last = ran.stdout.lines().last().unwrap_or("").to_string();
        eprintln!("[plugin] node conformance.mjs {dir}: {last} in {:.1} s", ran.elapsed.as_secs_f64());
        assert!(cases > 0, "no cases in {dir}");
        assert_eq!(last, format!("{cases} passed, 0 failed"), "node conformance.mjs {dir} ({})\n{}", ran.status, ran.shown());
        assert!(ran.success, "node conformance.mjs {dir} exited with {}\n{}", ran.status, ran.shown());
    }
}
