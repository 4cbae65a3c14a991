//! Which backend a command works on, and where that choice came from: an option
//! (`--gateway`, `--files`), the environment (`OPENCLAW_GATEWAY_URL`), or found: the state
//! directory's own gateway, running. Each OpenClaw era has its way to tell that it runs:
//! 2026.9's gateway holds a `gateway-owner` lease in the state database; 2026.1's answers
//! on the port its config names (and, once connected, names the state directory it serves).

use std::fmt;
use std::net::{SocketAddr, TcpStream, ToSocketAddrs};
use std::path::Path;
use std::time::Duration;

use session_tools_host::config::DeploymentConfig;
use session_tools_host::gateway::embedded::{detect_layout, gateway_holding, Layout};
use session_tools_host::gateway::live::LiveGateway;

use crate::options::{Global, GATEWAY_URL_VAR};

/// How long a knock on the configured port may take: a gateway on this machine answers at
/// once, a closed port refuses at once.
const KNOCK: Duration = Duration::from_millis(500);

/// What a command works on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// The state directory's files, through the embedded gateway.
    Files,
    /// The gateway the state directory's config runs (its port and secret from the config).
    Local,
    /// A gateway at this URL.
    Url(String),
}

/// Why a running gateway was taken for the state directory's own.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Finding {
    /// An OpenClaw 2026.9 gateway holds the directory's `gateway-owner` lease.
    Lease { pid: Option<i64>, port: Option<i64> },
    /// Something answers on the port the directory's config names (OpenClaw 2026.1).
    Port { url: String },
}

/// Where the choice came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// `--gateway`.
    GatewayOption,
    /// `--files`.
    FilesOption,
    /// `OPENCLAW_GATEWAY_URL`.
    Environment,
    /// The state directory's gateway runs.
    Found(Finding),
    /// No gateway of the state directory runs.
    NoneRunning,
}

/// A backend, and where the choice came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Choice {
    pub target: Target,
    pub source: Source,
}

impl fmt::Display for Finding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Finding::Lease { pid, port } => {
                write!(f, "an OpenClaw 2026.9 gateway holds the state directory's gateway-owner lease")?;
                let pid = pid.map(|p| format!("pid {p}"));
                let port = port.map(|p| format!("port {p}"));
                let named: Vec<String> = [pid, port].into_iter().flatten().collect();
                if !named.is_empty() {
                    write!(f, " ({})", named.join(", "))?;
                }
                Ok(())
            }
            Finding::Port { url } => write!(f, "a gateway answers at {url}, the address the state directory's config names"),
        }
    }
}

impl fmt::Display for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Source::GatewayOption => f.write_str("the --gateway option"),
            Source::FilesOption => f.write_str("the --files option"),
            Source::Environment => write!(f, "the environment variable {GATEWAY_URL_VAR}"),
            Source::Found(finding) => write!(f, "found: {finding}"),
            Source::NoneRunning => f.write_str("no gateway of the state directory is running"),
        }
    }
}

/// A gateway spec as `--gateway` or the environment give it.
fn target_of(spec: &str) -> Target {
    if spec == "local" {
        Target::Local
    } else {
        Target::Url(spec.to_string())
    }
}

/// Chooses the backend: `--gateway`, else `--files`, else `OPENCLAW_GATEWAY_URL`, else
/// the state directory's gateway if it runs, else the files. `--gateway` with `--files`
/// is a usage error.
pub fn choose(global: &Global, state: &Path) -> anyhow::Result<Choice> {
    let option = global.gateway.as_deref().map(str::trim).filter(|g| !g.is_empty());
    if let Some(spec) = option {
        if global.files {
            return Err(crate::exit::usage("--files and --gateway name different backends: give one of them"));
        }
        return Ok(Choice { target: target_of(spec), source: Source::GatewayOption });
    }
    if global.files {
        return Ok(Choice { target: Target::Files, source: Source::FilesOption });
    }
    if let Some(spec) = std::env::var(GATEWAY_URL_VAR).ok().map(|v| v.trim().to_string()).filter(|v| !v.is_empty()) {
        return Ok(Choice { target: target_of(&spec), source: Source::Environment });
    }
    Ok(match find_running(global, state) {
        Some(finding) => Choice { target: Target::Local, source: Source::Found(finding) },
        None => Choice { target: Target::Files, source: Source::NoneRunning },
    })
}

/// The state directory's own gateway, if it runs. Reads only: nothing is written, and a
/// directory that does not exist (or whose config does not parse) has none found here.
pub fn find_running(global: &Global, state: &Path) -> Option<Finding> {
    if !state.is_dir() {
        return None;
    }
    match detect_layout(state).ok()? {
        Layout::Sqlite => gateway_holding(state).map(|hold| Finding::Lease { pid: hold.pid, port: hold.port }),
        Layout::Files => {
            let config = DeploymentConfig::load(state, global.config.as_deref()).ok()?;
            let url = LiveGateway::local(&config).ok()?.url().to_string();
            answers(&url).then_some(Finding::Port { url })
        }
    }
}

/// Whether something accepts a TCP connection at a gateway URL's host and port.
fn answers(url: &str) -> bool {
    let Some(rest) = url.split_once("://").map(|(_, rest)| rest) else { return false };
    let authority = rest.split('/').next().unwrap_or_default();
    let addresses: Vec<SocketAddr> = match authority.to_socket_addrs() {
        Ok(addresses) => addresses.collect(),
        Err(_) => return false,
    };
    addresses.iter().any(|address| TcpStream::connect_timeout(address, KNOCK).is_ok())
}

/// Whether a gateway that names the state directory it serves names this one (both as
/// they are on disk: links and `..` resolved).
pub fn serves(named: &str, state: &Path) -> bool {
    let named = Path::new(named);
    match (named.canonicalize(), state.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => named == state,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_closed_port_does_not_answer_and_an_open_one_does() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        assert!(answers(&format!("ws://127.0.0.1:{port}")));
        drop(listener);
        assert!(!answers(&format!("ws://127.0.0.1:{port}")));
        assert!(!answers("not a url"));
    }

    #[test]
    fn sources_say_where_the_choice_came_from() {
        assert_eq!(Source::Environment.to_string(), "the environment variable OPENCLAW_GATEWAY_URL");
        let lease = Source::Found(Finding::Lease { pid: Some(42), port: Some(18789) });
        assert_eq!(
            lease.to_string(),
            "found: an OpenClaw 2026.9 gateway holds the state directory's gateway-owner lease (pid 42, port 18789)"
        );
    }

    #[test]
    fn the_served_directory_is_compared_as_on_disk() {
        let dir = tempfile_dir();
        let spelled = format!("{}/./", dir.display());
        assert!(serves(&spelled, &dir));
        assert!(!serves("/fake/state", &dir));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    fn tempfile_dir() -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("session-tools-choice-{}", uuid::Uuid::new_v4()));
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }
}
