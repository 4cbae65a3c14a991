//! A real gateway process on loopback, and its WebSocket client (protocol 3, or 3..4 for
//! today's gateway).

use std::collections::VecDeque;
use std::fmt;
use std::net::{Ipv4Addr, SocketAddr, TcpListener, TcpStream};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use tungstenite::{Message, WebSocket};

use super::install;
use super::install::{Era, Installation, DEFAULT_PACKAGE};
use super::{deep_merge, file_tail, random_hex};

/// How a gateway is started.
#[derive(Debug, Clone)]
pub struct GatewayOptions {
    /// The npm package (`name@version`) to run; default [`DEFAULT_PACKAGE`].
    pub package: String,
    /// Config merged (deep, objects key by key) over the generated one, e.g.
    /// [`MockModel::model_config`](super::MockModel::model_config).
    pub extra_config: Value,
    /// Runs the gateway in a PID namespace of its own (`unshare --pid --fork --mount-proc`),
    /// like a gateway in another container: the pids it writes into lock files are not
    /// processes this side can see. Its pid inside is picked to be one that does not exist
    /// outside ([`Gateway::ns_pid`]); pid 1 would not do, as `/proc/1` exists here too.
    pub pid_namespace: bool,
    /// The shared gateway token; random when `None`.
    pub token: Option<String>,
    /// More environment variables for the gateway process.
    pub env: Vec<(String, String)>,
    /// How long the gateway may take until a `connect` handshake succeeds.
    pub startup_timeout: Duration,
}

impl Default for GatewayOptions {
    fn default() -> Self {
        GatewayOptions {
            package: DEFAULT_PACKAGE.to_string(),
            extra_config: Value::Null,
            pid_namespace: false,
            token: None,
            env: Vec::new(),
            startup_timeout: Duration::from_secs(60),
        }
    }
}

/// A failed RPC.
#[derive(Debug, Clone)]
pub enum RpcError {
    /// The gateway answered `ok:false` (`agent` runs that fail also carry a payload).
    Gateway { code: String, message: String, details: Option<Box<Value>>, payload: Option<Box<Value>> },
    /// The connection failed or closed, or a frame was not JSON.
    Transport(String),
    /// No (final) answer within the time allowed.
    Timeout { method: String, after: Duration },
}

impl RpcError {
    /// The gateway's error code (`INVALID_REQUEST`, `UNAVAILABLE`, …), if it answered.
    pub fn code(&self) -> Option<&str> {
        match self {
            RpcError::Gateway { code, .. } => Some(code),
            _ => None,
        }
    }
}

impl fmt::Display for RpcError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RpcError::Gateway { code, message, details, .. } => {
                write!(f, "{code}: {message}")?;
                if let Some(details) = details {
                    write!(f, " ({details})")?;
                }
                Ok(())
            }
            RpcError::Transport(e) => write!(f, "transport: {e}"),
            RpcError::Timeout { method, after } => write!(f, "{method}: no answer within {:.1} s", after.as_secs_f64()),
        }
    }
}

impl std::error::Error for RpcError {}

/// How many unread events a [`Client`] keeps (the oldest are dropped).
const MAX_EVENTS: usize = 10_000;
/// The default time allowed for an RPC's (first) answer.
const RPC_TIMEOUT: Duration = Duration::from_secs(60);
/// The default time allowed for a final answer (`agent` runs).
const FINAL_TIMEOUT: Duration = Duration::from_secs(300);

/// One authenticated WebSocket connection to a gateway (operator, `operator.admin`).
pub struct Client {
    ws: WebSocket<TcpStream>,
    hello: Value,
    next_id: u64,
    events: VecDeque<Value>,
}

impl fmt::Debug for Client {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Client").field("next_id", &self.next_id).field("events", &self.events.len()).finish()
    }
}

fn is_timeout(e: &std::io::Error) -> bool {
    matches!(e.kind(), std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut)
}

impl Client {
    /// Connects to the gateway on `127.0.0.1:port`: waits for `connect.challenge`, sends
    /// `connect` with the token, and waits for `hello-ok`; all within `timeout`.
    pub fn connect(port: u16, token: &str, timeout: Duration) -> Result<Client, RpcError> {
        Client::connect_offering(port, token, timeout, 3)
    }

    /// [`Client::connect`] offering protocols 3 to `max_protocol` (4 for today's gateway,
    /// which accepts a range that holds 4; `hello-ok.protocol` says which was chosen).
    pub fn connect_offering(port: u16, token: &str, timeout: Duration, max_protocol: u32) -> Result<Client, RpcError> {
        let deadline = Instant::now() + timeout;
        let addr = SocketAddr::from((Ipv4Addr::LOCALHOST, port));
        let stream = TcpStream::connect_timeout(&addr, timeout).map_err(|e| RpcError::Transport(format!("connecting to {addr}: {e}")))?;
        let _ = stream.set_nodelay(true);
        stream.set_read_timeout(Some(timeout)).map_err(|e| RpcError::Transport(e.to_string()))?;
        stream.set_write_timeout(Some(timeout)).map_err(|e| RpcError::Transport(e.to_string()))?;
        let (ws, _) = tungstenite::client(format!("ws://127.0.0.1:{port}/"), stream)
            .map_err(|e| RpcError::Transport(format!("WebSocket handshake with {addr}: {e}")))?;
        let mut client = Client { ws, hello: Value::Null, next_id: 0, events: VecDeque::new() };
        // The server speaks first: connect.challenge {nonce, ts}.
        loop {
            let frame =
                client.read_frame(deadline)?.ok_or_else(|| RpcError::Timeout { method: "connect.challenge".into(), after: timeout })?;
            if frame["type"] == "event" && frame["event"] == "connect.challenge" {
                break;
            }
        }
        let params = json!({
            "minProtocol": 3,
            "maxProtocol": max_protocol,
            "client": {"id": "gateway-client", "displayName": "session-tools tests", "version": env!("CARGO_PKG_VERSION"),
                       "platform": std::env::consts::OS, "mode": "backend"},
            "caps": [],
            "role": "operator",
            "scopes": ["operator.admin"],
            "auth": {"token": token},
        });
        client.hello = client.request_until("connect", params, false, deadline, timeout)?;
        Ok(client)
    }

    /// The `hello-ok` payload of the handshake.
    pub fn hello(&self) -> &Value {
        &self.hello
    }

    /// One RPC: the payload of its first answer (for `agent`, the `accepted` one).
    pub fn rpc(&mut self, method: &str, params: Value) -> Result<Value, RpcError> {
        self.request(method, params, false, RPC_TIMEOUT)
    }

    /// One RPC whose first answer may be `status:"accepted"` (`agent`): waits for the
    /// final answer with the same id.
    pub fn rpc_final(&mut self, method: &str, params: Value) -> Result<Value, RpcError> {
        self.request(method, params, true, FINAL_TIMEOUT)
    }

    /// One RPC with a time limit; `expect_final` skips `accepted` answers.
    pub fn request(&mut self, method: &str, params: Value, expect_final: bool, timeout: Duration) -> Result<Value, RpcError> {
        self.request_until(method, params, expect_final, Instant::now() + timeout, timeout)
    }

    /// The events received so far (oldest first), emptied.
    pub fn take_events(&mut self) -> Vec<Value> {
        self.events.drain(..).collect()
    }

    /// Reads frames for `wait`, keeping events (to collect `agent`/`chat` events).
    pub fn pump_events(&mut self, wait: Duration) -> Result<(), RpcError> {
        let deadline = Instant::now() + wait;
        while let Some(frame) = self.read_frame(deadline)? {
            if frame["type"] == "event" {
                self.keep_event(frame);
            }
        }
        Ok(())
    }

    /// Closes the connection.
    pub fn close(mut self) {
        let _ = self.ws.close(None);
        let _ = self.ws.flush();
    }

    fn keep_event(&mut self, frame: Value) {
        if self.events.len() >= MAX_EVENTS {
            self.events.pop_front();
        }
        self.events.push_back(frame);
    }

    fn request_until(
        &mut self,
        method: &str,
        params: Value,
        expect_final: bool,
        deadline: Instant,
        timeout: Duration,
    ) -> Result<Value, RpcError> {
        self.next_id += 1;
        let id = format!("st-{}", self.next_id);
        let frame = json!({"type": "req", "id": id, "method": method, "params": params});
        self.ws.send(Message::text(frame.to_string())).map_err(|e| RpcError::Transport(format!("sending {method}: {e}")))?;
        loop {
            let Some(frame) = self.read_frame(deadline)? else {
                return Err(RpcError::Timeout { method: method.to_string(), after: timeout });
            };
            match frame["type"].as_str() {
                Some("event") => self.keep_event(frame),
                Some("res") if frame["id"] == id.as_str() => {
                    let ok = frame["ok"].as_bool() == Some(true);
                    let payload = frame.get("payload").cloned();
                    if ok && expect_final && payload.as_ref().is_some_and(|p| p["status"] == "accepted") {
                        continue;
                    }
                    if ok {
                        return Ok(payload.unwrap_or(Value::Null));
                    }
                    let error = frame.get("error").cloned().unwrap_or(Value::Null);
                    return Err(RpcError::Gateway {
                        code: error["code"].as_str().unwrap_or("?").to_string(),
                        message: error["message"].as_str().unwrap_or("(no message)").to_string(),
                        details: error.get("details").cloned().map(Box::new),
                        payload: payload.map(Box::new),
                    });
                }
                _ => {} // an answer to an earlier request that timed out
            }
        }
    }

    /// The next JSON frame, or `None` at the deadline.
    fn read_frame(&mut self, deadline: Instant) -> Result<Option<Value>, RpcError> {
        loop {
            let now = Instant::now();
            if now >= deadline {
                return Ok(None);
            }
            let wait = (deadline - now).max(Duration::from_millis(1));
            self.ws.get_ref().set_read_timeout(Some(wait)).map_err(|e| RpcError::Transport(e.to_string()))?;
            match self.ws.read() {
                Ok(Message::Text(text)) => {
                    return serde_json::from_str(text.as_str())
                        .map(Some)
                        .map_err(|e| RpcError::Transport(format!("a frame that is not JSON ({e}): {}", text.as_str())));
                }
                Ok(Message::Close(frame)) => {
                    let why = frame.map(|f| format!("{} {}", u16::from(f.code), f.reason.as_str())).unwrap_or_default();
                    return Err(RpcError::Transport(format!("the gateway closed the connection ({why})")));
                }
                Ok(_) => {}
                Err(tungstenite::Error::Io(e)) if is_timeout(&e) => {}
                Err(e) => return Err(RpcError::Transport(e.to_string())),
            }
        }
    }
}

/// A real gateway process (`node dist/entry.js gateway run`) on loopback, in a process
/// group of its own, stopped (the whole group) on [`Gateway::stop`] or drop.
pub struct Gateway {
    installation: Installation,
    state_dir: PathBuf,
    dir: Option<tempfile::TempDir>,
    port: u16,
    token: String,
    pid: u32,
    ns_pid: Option<u32>,
    log_path: PathBuf,
    config_path: PathBuf,
    child: Option<Child>,
    client: Mutex<Option<Client>>,
}

impl fmt::Debug for Gateway {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Gateway")
            .field("package", &self.installation.package)
            .field("port", &self.port)
            .field("pid", &self.pid)
            .field("ns_pid", &self.ns_pid)
            .field("state_dir", &self.state_dir)
            .field("log_path", &self.log_path)
            .finish()
    }
}

/// A free TCP port on 127.0.0.1 (free now; the gateway start is retried if it is taken).
fn free_port() -> Result<u16, String> {
    let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).map_err(|e| format!("cannot bind a port on 127.0.0.1: {e}"))?;
    listener.local_addr().map(|a| a.port()).map_err(|e| e.to_string())
}

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

/// A pid number that no process has here, for the gateway inside its PID namespace.
fn unseen_pid() -> u32 {
    let max: u32 = std::fs::read_to_string("/proc/sys/kernel/pid_max").ok().and_then(|s| s.trim().parse().ok()).unwrap_or(32768);
    (300..max.saturating_sub(1)).rev().find(|p| !Path::new(&format!("/proc/{p}")).exists()).unwrap_or(4242)
}

/// The processes (not zombies) whose process group is `pgid`, from `/proc`.
fn group_members(pgid: u32) -> Vec<u32> {
    let Ok(entries) = std::fs::read_dir("/proc") else { return Vec::new() };
    entries
        .filter_map(Result::ok)
        .filter_map(|e| e.file_name().to_str().and_then(|n| n.parse::<u32>().ok()))
        .filter(|pid| {
            let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else { return false };
            let Some(rest) = stat.rfind(')').map(|i| &stat[i + 1..]) else { return false };
            let fields: Vec<&str> = rest.split_whitespace().collect();
            fields.len() > 2 && fields[0] != "Z" && fields[2] == pgid.to_string()
        })
        .collect()
}

fn signal_group(pgid: u32, signal: rustix::process::Signal) {
    let pgid = i32::try_from(pgid).ok().filter(|p| *p > 1).and_then(rustix::process::Pid::from_raw);
    if let Some(pgid) = pgid {
        let _ = rustix::process::kill_process_group(pgid, signal);
    }
}

/// SIGTERM to the group, SIGKILL after `grace`; reaps the leader; answers the members
/// still alive after that (should be none).
fn kill_group(child: &mut Child, grace: Duration) -> Vec<u32> {
    let pgid = child.id();
    if matches!(child.try_wait(), Ok(None)) {
        signal_group(pgid, rustix::process::Signal::TERM);
        let until = Instant::now() + grace;
        while matches!(child.try_wait(), Ok(None)) && Instant::now() < until {
            std::thread::sleep(Duration::from_millis(25));
        }
    }
    // Whatever is left of the group (the leader too, if it ignored SIGTERM).
    signal_group(pgid, rustix::process::Signal::KILL);
    let _ = child.wait();
    let until = Instant::now() + Duration::from_secs(3);
    loop {
        let left = group_members(pgid);
        if left.is_empty() || Instant::now() > until {
            return left;
        }
        signal_group(pgid, rustix::process::Signal::KILL);
        std::thread::sleep(Duration::from_millis(25));
    }
}

const NS_WRAPPER: &str = r#"echo "$1" > /proc/sys/kernel/ns_last_pid 2>/dev/null || echo "[session-tools] cannot set ns_last_pid; the gateway keeps a low pid" >&2
pidfile="$2"; shift 2
"$@" &
child=$!
echo "$child" > "$pidfile"
wait "$child""#;

const PREFIXES: [&str; 3] = ["CLAWDBOT", "MOLTBOT", "OPENCLAW"];

/// The environment prefixes a gateway of an era reads (today's reads only `OPENCLAW_*`
/// and warns about the others).
fn prefixes(era: Era) -> &'static [&'static str] {
    match era {
        Era::January2026 => &PREFIXES,
        Era::Today => &["OPENCLAW"],
    }
}

/// Whether a state directory holds a legacy session store (`agents/*/sessions/sessions.json`).
fn has_legacy_store(state_dir: &Path) -> bool {
    std::fs::read_dir(state_dir.join("agents"))
        .map(|dirs| dirs.filter_map(Result::ok).any(|d| d.path().join("sessions/sessions.json").is_file()))
        .unwrap_or(false)
}

/// The config a gateway of an era is started with: loopback, token auth, the state's agents
/// (`main` first and default), heartbeats and update checks off; today's gateway takes the
/// keyed `agents.entries` with a system agent (the shape 2026.9 migrates `agents.list` to)
/// and no hosted model-catalog refresh or mDNS.
fn base_config(era: Era, state_dir: &Path, run_dir: &Path, port: u16, token: &str) -> Value {
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
fn gateway_env(
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

impl Gateway {
    /// Installs (once) the package and starts a gateway on a free loopback port against
    /// `state_dir`, with its config, fake `HOME`, `TMPDIR` and logs in a temporary directory
    /// outside the state dir. Returns once a `connect` handshake succeeds; an error carries
    /// the end of the gateway's log.
    pub fn start(state_dir: &Path, options: GatewayOptions) -> Result<Gateway, String> {
        let installation = install(&options.package)?;
        Gateway::start_installed(installation, state_dir, options)
    }

    /// The era of the gateway's package.
    pub fn era(&self) -> Era {
        self.installation.era
    }

    /// [`Gateway::start`] with an installation at hand (`options.package` is not used).
    pub fn start_installed(installation: Installation, state_dir: &Path, options: GatewayOptions) -> Result<Gateway, String> {
        std::fs::create_dir_all(state_dir).map_err(|e| format!("cannot create the state dir {}: {e}", state_dir.display()))?;
        // Today's gateway refuses a legacy store until its doctor imports it.
        import_legacy(&installation, state_dir)?;
        let state_dir = state_dir.canonicalize().map_err(|e| format!("cannot resolve {}: {e}", state_dir.display()))?;
        let dir = tempfile::Builder::new()
            .prefix("openclaw-gateway-")
            .tempdir()
            .map_err(|e| format!("cannot create a temporary directory for the gateway: {e}"))?;
        let run_dir = dir.path().canonicalize().map_err(|e| e.to_string())?;
        if run_dir.starts_with(&state_dir) {
            return Err(format!(
                "the gateway's temporary directory {} would be inside the state dir; set TMPDIR elsewhere",
                run_dir.display()
            ));
        }
        for sub in ["home", "tmp"] {
            std::fs::create_dir_all(run_dir.join(sub)).map_err(|e| format!("cannot create {}/{sub}: {e}", run_dir.display()))?;
        }
        // The package's transpile cache is shared ($TMPDIR/jiti is where jiti keeps it).
        std::fs::create_dir_all(&installation.jiti_cache)
            .and_then(|()| std::os::unix::fs::symlink(&installation.jiti_cache, run_dir.join("tmp/jiti")))
            .map_err(|e| format!("cannot link the transpile cache {}: {e}", installation.jiti_cache.display()))?;
        if options.pid_namespace {
            check_unshare()?;
        }
        let token = options.token.clone().unwrap_or_else(|| random_hex(16));
        let mut attempt = 0;
        loop {
            attempt += 1;
            let port = free_port()?;
            match launch(&installation, &state_dir, &run_dir, port, &token, &options) {
                Ok((child, ns_pid, client)) => {
                    return Ok(Gateway {
                        installation,
                        state_dir,
                        port,
                        token,
                        pid: child.id(),
                        ns_pid,
                        log_path: run_dir.join("gateway.log"),
                        config_path: run_dir.join("gateway.json"),
                        child: Some(child),
                        client: Mutex::new(Some(client)),
                        dir: Some(dir),
                    });
                }
                Err((message, port_taken)) if port_taken && attempt < 3 => {
                    eprintln!("[openclaw] port {port} was taken, retrying on another: {message}");
                }
                Err((message, _)) => {
                    if std::env::var_os("SESSION_TOOLS_OPENCLAW_KEEP").is_some() {
                        let kept = dir.keep();
                        return Err(format!("{message}\n(the gateway's files are kept in {})", kept.display()));
                    }
                    return Err(message);
                }
            }
        }
    }

    /// `ws://127.0.0.1:<port>`.
    pub fn url(&self) -> String {
        format!("ws://127.0.0.1:{}", self.port)
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    pub fn token(&self) -> &str {
        &self.token
    }

    /// The pid of the process started (node, or `unshare` with `pid_namespace`); also the
    /// id of the process group that is stopped.
    pub fn pid(&self) -> u32 {
        self.pid
    }

    /// With `pid_namespace`: node's pid inside its namespace (what it writes into locks).
    pub fn ns_pid(&self) -> Option<u32> {
        self.ns_pid
    }

    /// The gateway's stdout and stderr.
    pub fn log_path(&self) -> &Path {
        &self.log_path
    }

    /// The gateway's own file log (`logging.file`).
    pub fn file_log_path(&self) -> PathBuf {
        self.log_path.with_file_name("openclaw.log")
    }

    /// The config file written for this gateway.
    pub fn config_path(&self) -> &Path {
        &self.config_path
    }

    pub fn state_dir(&self) -> &Path {
        &self.state_dir
    }

    pub fn installation(&self) -> &Installation {
        &self.installation
    }

    /// The last `lines` lines of the gateway's stdout/stderr.
    pub fn log_tail(&self, lines: usize) -> String {
        file_tail(&self.log_path, lines)
    }

    /// Whether the gateway process is still running.
    pub fn is_running(&mut self) -> bool {
        self.child.as_mut().is_some_and(|c| matches!(c.try_wait(), Ok(None)))
    }

    /// A new connection of its own (for use from another thread, or to collect events).
    pub fn client(&self) -> Result<Client, RpcError> {
        Client::connect_offering(self.port, &self.token, Duration::from_secs(10), self.installation.era.max_protocol())
    }

    /// One RPC over the gateway's shared connection (reconnected after a transport error).
    pub fn rpc(&self, method: &str, params: Value) -> Result<Value, RpcError> {
        self.with_client(|c| c.rpc(method, params))
    }

    /// One RPC, waiting past `accepted` for the final answer (`agent`).
    pub fn rpc_final(&self, method: &str, params: Value) -> Result<Value, RpcError> {
        self.with_client(|c| c.rpc_final(method, params))
    }

    /// One RPC with a time limit; `expect_final` waits past `accepted`.
    pub fn request(&self, method: &str, params: Value, expect_final: bool, timeout: Duration) -> Result<Value, RpcError> {
        self.with_client(|c| c.request(method, params, expect_final, timeout))
    }

    fn with_client<T>(&self, call: impl FnOnce(&mut Client) -> Result<T, RpcError>) -> Result<T, RpcError> {
        let mut guard = self.client.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if guard.is_none() {
            *guard = Some(self.client()?);
        }
        let result = call(guard.as_mut().expect("connected just now"));
        if matches!(result, Err(RpcError::Transport(_))) {
            *guard = None;
        }
        result
    }

    /// Stops the gateway: SIGTERM to its process group, SIGKILL after 5 s. Errors when a
    /// process of the group is still alive afterwards. Idempotent.
    pub fn stop(&mut self) -> Result<(), String> {
        if let Some(client) = self.client.get_mut().unwrap_or_else(std::sync::PoisonError::into_inner).take() {
            client.close();
        }
        let Some(mut child) = self.child.take() else { return Ok(()) };
        let left = kill_group(&mut child, Duration::from_secs(5));
        if left.is_empty() {
            Ok(())
        } else {
            Err(format!("processes of the gateway's group {} still alive after SIGKILL: {left:?}", self.pid))
        }
    }
}

impl Drop for Gateway {
    fn drop(&mut self) {
        if let Err(e) = self.stop() {
            eprintln!("[openclaw] {e}");
        }
        if std::env::var_os("SESSION_TOOLS_OPENCLAW_KEEP").is_some() {
            if let Some(dir) = self.dir.take() {
                eprintln!("[openclaw] the gateway's files are kept in {}", dir.keep().display());
            }
        }
    }
}

/// Starts and stops a gateway of a fresh installation once, on an empty state dir, so its
/// transpile cache is filled (under the install lock) before tests start gateways.
pub(crate) fn warm_up(installation: &Installation) -> Result<(), String> {
    let state = tempfile::Builder::new()
        .prefix("openclaw-warm-up-state-")
        .tempdir()
        .map_err(|e| format!("cannot create a temporary state dir: {e}"))?;
    std::fs::create_dir_all(state.path().join("agents/main/sessions")).map_err(|e| e.to_string())?;
    let options =
        GatewayOptions { package: installation.package.clone(), startup_timeout: Duration::from_secs(300), ..GatewayOptions::default() };
    let mut gateway = Gateway::start_installed(installation.clone(), state.path(), options)?;
    gateway.stop()
}

/// Checks that this machine lets us create a PID namespace.
fn check_unshare() -> Result<(), String> {
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
fn launch(
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
