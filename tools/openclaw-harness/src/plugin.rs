//! An OpenClaw plugin installed into a state directory the way a user installs one: `npm
//! pack` of its folder, then the gateway package's own `plugins install <archive>`, which
//! unpacks it into `<state>/extensions/<id>/` and writes `plugins.entries`/`plugins.installs`
//! into a config file; that `plugins` section is what a gateway started on the state
//! directory needs in its config ([`GatewayOptions::extra_config`](super::GatewayOptions)).

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use super::install::{Era, Installation};

/// `PATH` with the installation's Node first (npm and the gateway's CLI run on Node 22).
fn node_path(installation: &Installation) -> String {
    let node_bin = installation.node.parent().map(|p| p.display().to_string()).unwrap_or_default();
    match std::env::var("PATH") {
        Ok(rest) if !rest.is_empty() => format!("{node_bin}:{rest}"),
        _ => node_bin,
    }
}

fn said(out: &std::process::Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr))
}

/// `npm pack` of the plugin folder `dir` into `into`; answers the archive. Blocks for the
/// pack (seconds). Needs `npm` on `PATH`.
pub fn pack(installation: &Installation, dir: &Path, into: &Path) -> Result<PathBuf, String> {
    let out = Command::new("npm")
        .current_dir(dir)
        .args(["pack", "--pack-destination"])
        .arg(into)
        .env("PATH", node_path(installation))
        .env("npm_config_update_notifier", "false")
        .env("npm_config_fund", "false")
        .env("npm_config_audit", "false")
        .output()
        .map_err(|e| format!("cannot run `npm pack` in {} ({e}); install Node.js with npm", dir.display()))?;
    if !out.status.success() {
        return Err(format!("`npm pack` in {} failed ({}):\n{}", dir.display(), out.status, said(&out)));
    }
    let archive = std::fs::read_dir(into)
        .map_err(|e| format!("reading {}: {e}", into.display()))?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .find(|p| p.extension().is_some_and(|x| x == "tgz"))
        .ok_or_else(|| format!("`npm pack` in {} wrote no .tgz into {}:\n{}", dir.display(), into.display(), said(&out)))?;
    Ok(archive)
}

/// `<package> plugins install <archive>` against `state_dir` (and a config file of its own);
/// answers the `plugins` section the command wrote. Blocks for the command (about 10 s).
pub fn install_plugin(installation: &Installation, state_dir: &Path, archive: &Path) -> Result<Value, String> {
    let dir = tempfile::Builder::new().prefix("openclaw-plugin-install-").tempdir().map_err(|e| e.to_string())?;
    let config = dir.path().join("config.json");
    let home = dir.path().join("home");
    std::fs::write(&config, "{}").and_then(|()| std::fs::create_dir_all(&home)).map_err(|e| e.to_string())?;
    let mut command = Command::new(&installation.node);
    command.arg(&installation.entry).args(["plugins", "install"]).arg(archive).env("PATH", node_path(installation)).env("HOME", &home);
    if installation.era == Era::Today {
        // Today's installer asks before it installs a local archive and before it grants
        // the plugin's capabilities; a command without a terminal says yes with these
        // (its docs, `cli/plugins/install.md`).
        command.args(["--force", "--accept-capabilities"]);
    }
    for prefix in ["CLAWDBOT", "MOLTBOT", "OPENCLAW"] {
        command.env(format!("{prefix}_STATE_DIR"), state_dir).env(format!("{prefix}_CONFIG_PATH"), &config);
    }
    let out = command.output().map_err(|e| format!("cannot run {} plugins install: {e}", installation.package))?;
    if !out.status.success() {
        return Err(format!(
            "`plugins install {}` of {} failed ({}):\n{}",
            archive.display(),
            installation.package,
            out.status,
            said(&out)
        ));
    }
    let text = std::fs::read_to_string(&config).map_err(|e| format!("reading the config `plugins install` wrote: {e}"))?;
    let written: Value =
        serde_json::from_str(&text).map_err(|e| format!("the config `plugins install` wrote is not JSON ({e}): {text}"))?;
    match written.get("plugins") {
        Some(plugins) if plugins.get("entries").is_some() => Ok(plugins.clone()),
        _ => Err(format!("`plugins install` wrote no plugins.entries:\n{}\n{text}", said(&out))),
    }
}
