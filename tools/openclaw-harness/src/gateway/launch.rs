//! Starting one gateway process: its config written, the process started in a group of its
//! own (in a PID namespace of its own when asked), and waited for until a handshake
//! succeeds; a failure carries the end of its log and whether the port was taken.

use std::net::{Ipv4Addr, SocketAddr, TcpListener, TcpStream};
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use super::client::Client;
use super::process_group::kill_group;
use super::run_config::{base_config, gateway_env};
use super::GatewayOptions;
use crate::install::{Era, Installation};
use crate::{deep_merge, file_tail};

/// A free TCP port on 127.0.0.1 (free now; the gateway start is retried if it is taken).
pub(super) fn free_port() -> Result<u16, String> {
    let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).map_err(|e| format!("cannot bind a port on 127.0.0.1: {e}"))?;
    listener.local_addr().map(|a| a.port()).map_err(|e| e.to_string())
}

/// A pid number that no process has here, for the gateway inside its PID namespace.
fn unseen_pid() -> u32 {
    let max: u32 = std::fs::read_to_string("/proc/sys/kernel/pid_max").ok().and_then(|s| s.trim().parse().ok()).unwrap_or(32768);
    (300..max.saturating_sub(1)).rev().find(|p| !Path::new(&format!("/proc/{p}")).exists()).unwrap_or(4242)
}

const NS_WRAPPER: &str = r#"echo "$1" > /proc/sys/kernel/ns_last_pid 2>/dev/null || echo "[session-tools] cannot set ns_last_pid; the gateway keeps a low pid" >&2
pidfile="$2"; shift 2
"$@" &
child=$!
echo "$child" > "$pidfile"
wait "$child""#;

/// Whether today's gateway answers `GET /readyz` with 200 (it listens before it is ready).
fn ready(port: u16) -> bool {
    use std::io::{Read, Write};
    let addr = SocketAddr::from((Ipv4Addr::LOCALHOST, port));
    let Ok(mut stream) = TcpStream::connect_timeout(&addr, Duration::from_secs(2)) else { return false };
    let _ = stream.set_read_timeout(Some(Duration::from_secs(2)));
    let request = format!("GET /readyz HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n");
    if stream.write_all(request.as_bytes()).is_err() {
        return false;
    }
    let mut head = [0u8; 16];
    let n = stream.read(&mut head).unwrap_or(0);
    head[..n].starts_with(b"HTTP/1.1 200") || head[..n].starts_with(b"HTTP/1.0 200")
}

/// Checks that this machine lets us create a PID namespace.
pub(super) fn check_unshare() -> Result<(), String> {
    let out = Command::new("unshare").args(["--pid", "--fork", "--mount-proc", "--kill-child", "true"]).stdin(Stdio::null()).output();
    match out {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            Err("pid_namespace needs `unshare` (util-linux), which is not on PATH: install util-linux".to_string())
        }
        Err(e) => Err(format!("cannot run unshare: {e}")),
        Ok(out) if !out.status.success() => Err(format!(
            "`unshare --pid --fork --mount-proc` is refused on this machine ({}): {}; a PID namespace needs root or CAP_SYS_ADMIN (or unprivileged user namespaces)",
            out.status,
            String::from_utf8_lossy(&out.stderr).trim()
        )),
        Ok(_) => Ok(()),
    }
}

/// Writes the config, starts the process and waits for a handshake. The error says
/// whether the port was taken (worth another try).
pub(super) fn launch(
    installation: &Installation,
    state_dir: &Path,
    run_dir: &Path,
    port: u16,
    token: &str,
    options: &GatewayOptions,
) -> Result<(Child, Option<u32>, Client), (String, bool)> {
    let mut config = base_config(installation.era, state_dir, run_dir, port, token);
    if !options.extra_config.is_null() {
        deep_merge(&mut config, &options.extra_config);
    }
    let config_path = run_dir.join("gateway.json");
    let fail = |m: String| (m, false);
    std::fs::write(&config_path, serde_json::to_string_pretty(&config).expect("config is JSON"))
        .map_err(|e| fail(format!("cannot write {}: {e}", config_path.display())))?;
    let log_path = run_dir.join("gateway.log");
    let log = std::fs::File::create(&log_path).map_err(|e| fail(format!("cannot create {}: {e}", log_path.display())))?;
    let log_err = log.try_clone().map_err(|e| fail(e.to_string()))?;

    let port_text = port.to_string();
    let entry = installation.entry.to_string_lossy().into_owned();
    let node = installation.node.to_string_lossy().into_owned();
    let gateway_args = ["gateway", "run", "--bind", "loopback", "--port", &port_text, "--token", token, "--allow-unconfigured"];
    let ns_pidfile = run_dir.join("ns.pid");
    let mut command = if options.pid_namespace {
        let _ = std::fs::remove_file(&ns_pidfile);
        let mut c = Command::new("unshare");
        c.args(["--pid", "--fork", "--mount-proc", "--kill-child", "--", "/bin/sh", "-c", NS_WRAPPER, "sh"])
            .arg((unseen_pid() - 1).to_string())
            .arg(&ns_pidfile)
            .arg(&node)
            .arg(&entry)
            .args(gateway_args);
        c
    } else {
        let mut c = Command::new(&node);
        c.arg(&entry).args(gateway_args);
        c
    };
    gateway_env(&mut command, installation, state_dir, run_dir, &config_path, token).map_err(fail)?;
    for (key, value) in &options.env {
        command.env(key, value);
    }
    command.current_dir(run_dir).stdin(Stdio::null()).stdout(log).stderr(log_err).process_group(0);
    let what = if options.pid_namespace { "unshare (for the gateway)" } else { "the gateway" };
    let mut child = command.spawn().map_err(|e| fail(format!("cannot start {what} ({}): {e}", installation.node.display())))?;

    let started = Instant::now();
    let deadline = started + options.startup_timeout;
    let mut last_error = String::from("(no attempt yet)");
    let failure = |child: &mut Child, headline: String| {
        let left = kill_group(child, Duration::from_secs(2));
        let log = file_tail(&log_path, 40);
        let port_taken = log.contains("EADDRINUSE") || log.contains("already in use") || log.contains("already listening");
        let mut message = format!(
            "{headline}\ncommand: {} {entry} {}\nconfig: {}\n--- last lines of {} ---\n{log}\n--- end of gateway log ---",
            if options.pid_namespace { "unshare --pid --fork --mount-proc … node" } else { node.as_str() },
            gateway_args.join(" ").replace(token, "<token>"),
            config_path.display(),
            log_path.display()
        );
        if options.pid_namespace && log.contains("unshare") {
            message.insert_str(0, "unshare refused to run the gateway in a PID namespace: ");
        }
        if !left.is_empty() {
            message.push_str(&format!("\n(processes left in its group: {left:?})"));
        }
        (message, port_taken)
    };
    loop {
        if let Ok(Some(status)) = child.try_wait() {
            return Err(failure(&mut child, format!("the gateway ({}) exited during start-up with {status}", installation.package)));
        }
        if Instant::now() > deadline {
            return Err(failure(
                &mut child,
                format!(
                    "the gateway ({}) did not complete a connect handshake on port {port} within {} s (last attempt: {last_error})",
                    installation.package,
                    options.startup_timeout.as_secs()
                ),
            ));
        }
        if installation.era == Era::Today && !ready(port) {
            last_error = "GET /readyz has not answered 200 yet".into();
            std::thread::sleep(Duration::from_millis(200));
            continue;
        }
        match Client::connect_offering(port, token, Duration::from_secs(5), installation.era.max_protocol()) {
            Ok(client) => {
                let ns_pid = if options.pid_namespace {
                    std::fs::read_to_string(&ns_pidfile).ok().and_then(|s| s.trim().parse().ok())
                } else {
                    None
                };
                return Ok((child, ns_pid, client));
            }
            Err(e) => last_error = e.to_string(),
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}
