//! What a gateway process is started with: its generated config (loopback, token auth, the
//! state's agents) and its environment (state, config and token; everything that would
//! reach beyond this machine switched off).

use std::path::Path;
use std::process::Command;

use serde_json::{json, Value};

use crate::install::{Era, Installation};

/// The agent ids of a state dir (directories under `agents/`), `main` first.
fn agent_ids(state_dir: &Path) -> Vec<String> {
    let mut ids: Vec<String> = std::fs::read_dir(state_dir.join("agents"))
        .map(|entries| {
            entries
                .filter_map(Result::ok)
                .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
                .map(|e| e.file_name().to_string_lossy().to_lowercase())
                .filter(|id| id != "main")
                .collect()
        })
        .unwrap_or_default();
    ids.sort();
    ids.dedup();
    ids.insert(0, "main".to_string());
    ids
}

const PREFIXES: [&str; 3] = ["CLAWDBOT", "MOLTBOT", "OPENCLAW"];

/// The environment prefixes a gateway of an era reads (today's reads only `OPENCLAW_*`
/// and warns about the others).
fn prefixes(era: Era) -> &'static [&'static str] {
    match era {
        Era::January2026 => &PREFIXES,
        Era::Today => &["OPENCLAW"],
    }
}

/// The config a gateway of an era is started with: loopback, token auth, the state's agents
/// (`main` first and default), heartbeats and update checks off; today's gateway takes the
/// keyed `agents.entries` with a system agent (the shape 2026.9 migrates `agents.list` to)
/// and no hosted model-catalog refresh or mDNS.
pub(super) fn base_config(era: Era, state_dir: &Path, run_dir: &Path, port: u16, token: &str) -> Value {
    let ids = agent_ids(state_dir);
    let mut config = json!({
        "gateway": {"mode": "local", "bind": "loopback", "port": port, "auth": {"mode": "token", "token": token}},
        "update": {"checkOnStart": false},
        "logging": {"file": run_dir.join("openclaw.log")},
        "agents": {
            "defaults": {"heartbeat": {"every": "0m"}},
            "list": ids.iter().map(|id| if id == "main" { json!({"id": id, "default": true}) } else { json!({"id": id}) }).collect::<Vec<_>>(),
        },
    });
    if era == Era::Today {
        config["agents"] = json!({
            "ownership": "explicit",
            "defaults": {"heartbeat": {"every": "0m"}, "systemAgent": {"agentId": "main"}},
            "entries": ids.iter().map(|id| (id.clone(), json!({}))).collect::<serde_json::Map<_, _>>(),
        });
        config["models"] = json!({"catalogRefresh": {"enabled": false}});
        config["discovery"] = json!({"mdns": {"mode": "off"}});
    }
    config
}

/// Points a gateway command (the gateway, or its doctor) at the state, config and token,
/// with everything that would reach beyond this machine switched off, and `HOME`/`TMPDIR`
/// in the run directory.
pub(super) fn gateway_env(
    command: &mut Command,
    installation: &Installation,
    state_dir: &Path,
    run_dir: &Path,
    config_path: &Path,
    token: &str,
) -> Result<(), String> {
    for (key, _) in std::env::vars_os() {
        let key = key.to_string_lossy();
        if PREFIXES.iter().any(|p| key.starts_with(&format!("{p}_"))) {
            command.env_remove(key.as_ref());
        }
    }
    let node_bin = installation.node.parent().expect("node is in a bin/ directory");
    let path = std::env::var_os("PATH").unwrap_or_default();
    let path =
        std::env::join_paths(std::iter::once(node_bin.to_path_buf()).chain(std::env::split_paths(&path))).map_err(|e| e.to_string())?;
    command.env("PATH", path).env("HOME", run_dir.join("home")).env("TMPDIR", run_dir.join("tmp"));
    std::fs::create_dir_all(&installation.compile_cache)
        .map_err(|e| format!("cannot create the compile cache {}: {e}", installation.compile_cache.display()))?;
    command.env("NODE_COMPILE_CACHE", &installation.compile_cache);
    let state = state_dir.to_string_lossy();
    let config_text = config_path.to_string_lossy();
    for p in prefixes(installation.era) {
        for (name, value) in [
            ("STATE_DIR", state.as_ref()),
            ("CONFIG_PATH", config_text.as_ref()),
            ("GATEWAY_TOKEN", token),
            ("DISABLE_BONJOUR", "1"),
            ("SKIP_CHANNELS", "1"),
            ("SKIP_CRON", "1"),
            ("SKIP_BROWSER_CONTROL_SERVER", "1"),
            ("SKIP_CANVAS_HOST", "1"),
            ("SKIP_GMAIL_WATCHER", "1"),
            ("NO_RESPAWN", "1"),
            ("HIDE_BANNER", "1"),
            // hello-ok's server.version (else "dev").
            ("VERSION", installation.version.as_str()),
        ] {
            command.env(format!("{p}_{name}"), value);
        }
    }
    if installation.era == Era::Today {
        // No update checks or telemetry, no model prewarm at start (the env the package's
        // own update rehearsal isolates a gateway with).
        command.env("OPENCLAW_NO_AUTO_UPDATE", "1").env("OPENCLAW_SKIP_STARTUP_MODEL_PREWARM", "1");
    }
    Ok(())
}
