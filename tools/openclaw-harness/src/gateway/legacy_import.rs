//! Bringing a January-2026 state directory to today's SQLite layout with the package's own
//! `openclaw doctor --fix`, as a user upgrading does.

use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use super::launch::free_port;
use super::process_group::kill_group;
use super::run_config::{base_config, gateway_env};
use crate::install::{Era, Installation};
use crate::{file_tail, random_hex};

/// Whether a state directory holds a legacy session store (`agents/*/sessions/sessions.json`).
fn has_legacy_store(state_dir: &Path) -> bool {
    std::fs::read_dir(state_dir.join("agents"))
        .map(|dirs| dirs.filter_map(Result::ok).any(|d| d.path().join("sessions/sessions.json").is_file()))
        .unwrap_or(false)
}

/// Imports a legacy state directory (`agents/*/sessions/sessions.json` and transcripts)
/// into today's SQLite databases with the package's own `openclaw doctor --fix
/// --non-interactive`, as a user upgrading does (its gateway refuses to start on a legacy
/// store). The legacy files move to `agents/<id>/session-sqlite-import-archive/`. Does
/// nothing for an era-1 package or a state without a legacy store.
pub fn import_legacy(installation: &Installation, state_dir: &Path) -> Result<(), String> {
    if installation.era != Era::Today || !has_legacy_store(state_dir) {
        return Ok(());
    }
    let started = Instant::now();
    let dir =
        tempfile::Builder::new().prefix("openclaw-doctor-").tempdir().map_err(|e| format!("cannot create a temporary directory: {e}"))?;
    let run_dir = dir.path().to_path_buf();
    for sub in ["home", "tmp"] {
        std::fs::create_dir_all(run_dir.join(sub)).map_err(|e| format!("cannot create {}/{sub}: {e}", run_dir.display()))?;
    }
    let token = random_hex(16);
    let config_path = run_dir.join("gateway.json");
    let config = base_config(installation.era, state_dir, &run_dir, free_port()?, &token);
    std::fs::write(&config_path, serde_json::to_string_pretty(&config).expect("config is JSON"))
        .map_err(|e| format!("cannot write {}: {e}", config_path.display()))?;
    let log_path = run_dir.join("doctor.log");
    let log = std::fs::File::create(&log_path).map_err(|e| format!("cannot create {}: {e}", log_path.display()))?;
    let log_err = log.try_clone().map_err(|e| e.to_string())?;
    let mut command = Command::new(&installation.node);
    command.arg(&installation.entry).args(["doctor", "--fix", "--non-interactive"]);
    gateway_env(&mut command, installation, state_dir, &run_dir, &config_path, &token)?;
    command.current_dir(&run_dir).stdin(Stdio::null()).stdout(log).stderr(log_err).process_group(0);
    let mut child = command.spawn().map_err(|e| format!("cannot run openclaw doctor ({}): {e}", installation.node.display()))?;
    let deadline = Instant::now() + Duration::from_secs(300);
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if Instant::now() > deadline => {
                kill_group(&mut child, Duration::from_secs(2));
                return Err(format!(
                    "openclaw doctor --fix did not finish within 300 s on {}:\n{}",
                    state_dir.display(),
                    file_tail(&log_path, 30)
                ));
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(100)),
            Err(e) => return Err(format!("waiting for openclaw doctor: {e}")),
        }
    };
    if !status.success() || has_legacy_store(state_dir) {
        return Err(format!(
            "openclaw doctor --fix ({}) did not import the legacy store of {} ({status}):\n{}",
            installation.package,
            state_dir.display(),
            file_tail(&log_path, 30)
        ));
    }
    eprintln!(
        "[openclaw] {} imported {} into SQLite in {:.1} s",
        installation.package,
        state_dir.display(),
        started.elapsed().as_secs_f64()
    );
    Ok(())
}
