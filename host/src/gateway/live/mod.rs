//! A running OpenClaw gateway, reached over its WebSocket protocol, v3 (OpenClaw 2026.1.x)
//! or v4 (2026.5 and later; docs/openclaw-versions.md): the third backend of [`Gateway`], next to the
//! embedded and the scripted ones. The protocol is negotiated at the handshake, never
//! configured (E1), and given to the gateway wire (`wire/`), where everything that differs
//! between the two above the handshake lives.
//!
//! One [`LiveGateway`] holds one connection, shared by every agent instance of the process;
//! requests are multiplexed over it by id, each with its own timeout. The connection is
//! made when the gateway is opened (so a wrong URL, token or protocol is an error at once),
//! and made again, with backoff, after a drop; a request in flight during a drop is sent
//! again only where that is safe (reads, and writes with an idempotency key), and fails with
//! a clear error otherwise.
//!
//! The gateway is the authority here: it stores the sessions, runs the agents and enforces
//! its own send policy; its errors reach the tool with the gateway's message. The host's
//! limits and N15 guard apply exactly as over the embedded gateway, since they wrap any
//! [`Gateway`].
//!
//! # Blocking
//!
//! [`LiveGatewayBuilder::open`] blocks until the handshake is done and the config is read
//! (at most the connect timeout, 10 s by default, plus one request timeout). Every method
//! of [`Gateway`] blocks until the gateway answers or the request's timeout passes (30 s by
//! default; `agent.wait` its own timeout plus 15 s); a request made while the connection
//! is down waits for it to come back within that timeout.

mod connection;
mod device;
mod frames;
mod local;
#[cfg(feature = "embedded")]
mod on_disk;
#[cfg(not(feature = "embedded"))]
#[path = "on_disk_absent.rs"]
mod on_disk;
mod service_builder;
mod wire_component;

use std::collections::{HashMap, HashSet, VecDeque};
use std::path::PathBuf;
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use self::connection::{Command, Request, Settings, Shared};
use self::frames::{Auth, Payload};
use self::wire_component::{of_wit, to_wit, Carrier, Wires};
use super::*;
use crate::config::DeploymentConfig;
use crate::{Error, Result};
use session_tools_grammar::keys::KeyRules;
use session_tools_wire::errors::from_transport;
use session_tools_wire::{Era, Request as WireRequest, TransportError};

/// Requests of one batch (`chat.history` for a list's rows, a level of a spawn tree) in
/// flight at once: enough to hide the round trips, few enough not to crowd the gateway's
/// event loop.
const WINDOW: usize = 32;

/// Runs remembered for [`SessionTree::run_session`].
const MAX_RUNS: usize = 10_000;

/// How to reach a running gateway. Defaults: no secret (the gateway then refuses), a
/// device identity only with a password (at `$XDG_CONFIG_HOME/session-tools/device.json`),
/// 10 s to connect, 30 s a request, answers up to 64 MiB, reconnection backoff from
/// 250 ms to 10 s.
#[derive(Debug, Clone)]
pub struct LiveGatewayBuilder {
    url: String,
    auth: Option<Auth>,
    device_path: Option<PathBuf>,
    connect_timeout: Duration,
    request_timeout: Duration,
    max_answer_bytes: usize,
    backoff_min: Duration,
    backoff_max: Duration,
    on_disk: bool,
}

impl LiveGatewayBuilder {
    /// Authenticates with the gateway's token (`gateway.auth.token`).
    pub fn with_token(mut self, token: impl Into<String>) -> Self {
        self.auth = Some(Auth::Token(token.into()));
        self
    }

    /// Authenticates with the gateway's password (`gateway.auth.password`); the host then
    /// presents a device identity, which a gateway on the same machine pairs silently.
    pub fn with_password(mut self, password: impl Into<String>) -> Self {
        self.auth = Some(Auth::Password(password.into()));
        self
    }

    /// Where the device identity is kept (made on first use). Given, the identity is
    /// presented with a token too: a gateway of 2026.5 or later grants a token from
    /// another machine no scopes without one (its pairing is then approved on the
    /// gateway, `openclaw devices approve`).
    pub fn with_device_identity(mut self, path: impl Into<PathBuf>) -> Self {
        self.device_path = Some(path.into());
        self
    }

    /// How long the connection and its handshake may take.
    pub fn with_connect_timeout(mut self, timeout: Duration) -> Self {
        self.connect_timeout = timeout;
        self
    }

    /// How long a request waits for its answer (waits for runs add their own timeout).
    pub fn with_request_timeout(mut self, timeout: Duration) -> Self {
        self.request_timeout = timeout;
        self
    }

    /// The largest answer accepted (`chat.history` answers can be several MiB).
    pub fn with_max_answer_bytes(mut self, bytes: usize) -> Self {
        self.max_answer_bytes = bytes;
        self
    }

    /// The pause before reconnecting after a drop: `min`, doubling up to `max`.
    pub fn with_backoff(mut self, min: Duration, max: Duration) -> Self {
        self.backoff_min = min;
        self.backoff_max = max.max(min);
        self
    }

    /// Whether the histories of a `sessions_list` with `messageLimit` may be read from the
    /// gateway's state directory when the gateway is on this machine (on by default; each
    /// one is checked to be of the session the gateway listed, else asked of the gateway).
    /// Off, every history is a `chat.history` request.
    pub fn with_histories_on_disk(mut self, allowed: bool) -> Self {
        self.on_disk = allowed;
        self
    }

    /// The URL it connects to.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// Connects, does the handshake and reads the gateway's config. Blocks for at most the
    /// connect timeout plus a request timeout.
    pub fn open(self) -> Result<LiveGateway> {
        let url = self.url.trim().to_string();
        if !(url.starts_with("ws://") || url.starts_with("wss://")) {
            return Err(Error::Gateway(format!("{url:?} is not a gateway URL: it must start with ws:// or wss://")));
        }
        let Some(auth) = self.auth else {
            return Err(Error::Gateway(format!(
                "no secret for the gateway at {url}: give its token or password (gateway.auth in its config)"
            )));
        };
        let device = match &auth {
            Auth::Token(_) if self.device_path.is_none() => None,
            Auth::Token(_) | Auth::Password(_) => {
                let path = self.device_path.clone().or_else(device::default_path).ok_or_else(|| {
                    Error::Gateway("password authentication needs a device identity, and there is no home directory to keep it in".into())
                })?;
                Some(Arc::new(device::Device::load_or_create(&path).map_err(Error::Gateway)?))
            }
        };
        let settings = Settings {
            url: url.clone(),
            auth,
            device,
            connect_timeout: self.connect_timeout,
            max_answer_bytes: self.max_answer_bytes,
            backoff_min: self.backoff_min,
            backoff_max: self.backoff_max,
        };
        let shared = Arc::new(Shared::default());
        let (commands, _thread) =
            connection::spawn(settings, shared.clone()).map_err(|e| Error::io("starting the gateway connection's thread", e))?;
        let link = Link { url: url.clone(), commands, shared, request_timeout: self.request_timeout };
        // The first connection, now: a wrong URL, secret or protocol is said here.
        let (reply, answer) = std::sync::mpsc::channel();
        link.send(Command::Connect(reply));
        let hello = match answer.recv_timeout(self.connect_timeout + Duration::from_secs(1)) {
            Ok(Ok(hello)) => hello,
            Ok(Err(message)) => return Err(Error::Gateway(message)),
            Err(_) => {
                return Err(Error::Gateway(format!("no handshake with the gateway at {url} within {} s", self.connect_timeout.as_secs())))
            }
        };
        let snapshot = link
            .call_within("config.get", json!({}), false, self.request_timeout)
            .map_err(|e| Error::Gateway(format!("reading the config of the gateway at {url}: {e}")))?;
        let config = config_of(&snapshot, &url)?;
        let rules =
            KeyRules { main_key: config.main_key.clone(), scope_global: config.scope_global, default_agent: config.default_agent.clone() };
        // Either era's layout: the embedded reader finds it (on protocol 4 this is also
        // the raw transcript where the RPC gives its display projection, E4).
        let on_disk = if self.on_disk { on_disk::OnDisk::open(&url, hello.state_dir.as_deref(), &config) } else { None };
        // The handshake let in only a protocol this host offered (frames::speaks).
        let protocol = u32::try_from(hello.protocol).unwrap_or(0);
        let era = Era::of_protocol(protocol).map_err(|e| Error::Gateway(format!("the gateway at {url}: {e}")))?;
        let backend = Arc::new(Backend { link, rules, runs: Mutex::new(Runs::default()) });
        let wires = Wires::new(backend.clone(), protocol).map_err(Error::Gateway)?;
        Ok(LiveGateway { backend, wires, era, hello, config, on_disk })
    }
}

/// The gateway's config from a `config.get` snapshot: the config as the gateway loaded it
/// (its defaults applied), else the file as parsed when the gateway found it invalid.
fn config_of(snapshot: &Value, url: &str) -> Result<DeploymentConfig> {
    let valid = snapshot.get("valid").and_then(Value::as_bool) != Some(false);
    let raw = if valid { snapshot.get("config") } else { snapshot.get("parsed") };
    let raw = raw.filter(|c| c.is_object()).cloned().unwrap_or_else(|| json!({}));
    let origin = match snapshot.get("path").and_then(Value::as_str) {
        Some(path) => format!("the config of the gateway at {url} ({path})"),
        None => format!("the config of the gateway at {url}"),
    };
    let mut config = DeploymentConfig::from_value(raw, &origin)?;
    config.path = snapshot.get("path").and_then(Value::as_str).map(PathBuf::from);
    Ok(config)
}

/// The handle on the connection's thread.
struct Link {
    url: String,
    commands: tokio::sync::mpsc::UnboundedSender<Command>,
    shared: Arc<Shared>,
    request_timeout: Duration,
}

type Answer = Receiver<std::result::Result<Payload, TransportError>>;

impl Link {
    fn send(&self, command: Command) {
        // A send fails only when the thread has ended; the answer's channel then says so.
        let _ = self.commands.send(command);
    }

    /// Sends a request; its answer comes on the receiver by `deadline`.
    fn submit(&self, method: &str, params: Value, retry_safe: bool, timeout: Duration) -> (Answer, Instant) {
        let (reply, answer) = std::sync::mpsc::channel();
        let deadline = crate::limits::deadline(timeout);
        self.send(Command::Request(Request { method: method.to_string(), params, retry_safe, deadline, reply }));
        (answer, deadline)
    }

    fn wait(&self, method: &str, answer: Answer, deadline: Instant) -> std::result::Result<Payload, TransportError> {
        // The connection's thread fails a request at its deadline; the grace covers its
        // check interval, and a thread that died is said in words.
        let left = deadline.saturating_duration_since(Instant::now()) + Duration::from_secs(1);
        match answer.recv_timeout(left) {
            Ok(answer) => answer,
            Err(RecvTimeoutError::Timeout) => {
                Err(TransportError::Timeout(format!("the gateway at {} did not answer {method} in time", self.url)))
            }
            Err(RecvTimeoutError::Disconnected) => {
                Err(TransportError::Unavailable(format!("the connection to the gateway at {} has ended", self.url)))
            }
        }
    }

    fn call_within(&self, method: &str, params: Value, retry_safe: bool, timeout: Duration) -> GatewayResult<Value> {
        let (answer, deadline) = self.submit(method, params, retry_safe, timeout);
        self.wait(method, answer, deadline).map(|payload| payload.value()).map_err(|e| from_transport(method, e))
    }

    /// A request of the wire: sent as it asks, waited for as long as the gateway may hold it.
    fn submit_wire(&self, request: WireRequest) -> std::result::Result<(String, Answer, Instant), TransportError> {
        let params: Value = serde_json::from_str(&request.params)
            .map_err(|e| TransportError::Unavailable(format!("the gateway wire gave {} params that are not JSON: {e}", request.method)))?;
        let timeout = self.request_timeout + Duration::from_millis(request.holds_ms);
        let (answer, deadline) = self.submit(&request.method, params, request.resend_safe, timeout);
        Ok((request.method, answer, deadline))
    }

    fn wait_wire(
        &self,
        submitted: std::result::Result<(String, Answer, Instant), TransportError>,
    ) -> std::result::Result<String, TransportError> {
        let (method, answer, deadline) = submitted?;
        self.wait(&method, answer, deadline).map(Payload::into_text)
    }
}

impl Drop for Link {
    fn drop(&mut self) {
        // The thread closes the connection and ends; nobody waits for it.
        self.send(Command::Shutdown);
    }
}

/// Runs this host started, and their sessions (for the N15 guard's `agent.wait` check).
#[derive(Default)]
struct Runs {
    sessions: HashMap<String, String>,
    order: VecDeque<String>,
}

/// What the wire's calls are carried by: the connection, and the runs they started.
struct Backend {
    link: Link,
    rules: KeyRules,
    runs: Mutex<Runs>,
}

impl Carrier for Backend {
    fn call(&self, request: WireRequest) -> std::result::Result<String, TransportError> {
        self.link.wait_wire(self.link.submit_wire(request))
    }

    /// Many requests at once (a batch of reads), answers in order.
    fn call_many(&self, requests: Vec<WireRequest>) -> Vec<std::result::Result<String, TransportError>> {
        let mut answers = Vec::with_capacity(requests.len());
        let mut requests = requests.into_iter().peekable();
        while requests.peek().is_some() {
            let window: Vec<_> = requests.by_ref().take(WINDOW).map(|r| self.link.submit_wire(r)).collect();
            answers.extend(window.into_iter().map(|submitted| self.link.wait_wire(submitted)));
        }
        answers
    }

    /// Remembers the session of a run, unless the run is known: a run keeps the session it
    /// was first started in (N15 decides on it; the gateway answers a known idempotency key
    /// with its run, whoever asks).
    fn run_started(&self, run_id: &str, session_key: &str) {
        let mut runs = self.runs.lock().unwrap_or_else(|p| p.into_inner());
        if runs.sessions.contains_key(run_id) {
            return;
        }
        runs.sessions.insert(run_id.to_string(), self.rules.canonical(session_key));
        runs.order.push_back(run_id.to_string());
        while runs.order.len() > MAX_RUNS {
            if let Some(old) = runs.order.pop_front() {
                runs.sessions.remove(&old);
            }
        }
    }

    fn run_session(&self, run_id: &str) -> Option<String> {
        self.runs.lock().unwrap_or_else(|p| p.into_inner()).sessions.get(run_id).cloned()
    }
}

/// The connection as the wire crate's transport, for the host's own raw reads.
struct Direct<'a>(&'a Backend);

impl session_tools_wire::Transport for Direct<'_> {
    fn call(&self, request: WireRequest) -> std::result::Result<String, TransportError> {
        Carrier::call(self.0, request)
    }
    fn call_many(&self, requests: Vec<WireRequest>) -> Vec<std::result::Result<String, TransportError>> {
        Carrier::call_many(self.0, requests)
    }
}

impl session_tools_wire::Runs for Direct<'_> {
    fn started(&self, run_id: &str, session_key: &str) {
        self.0.run_started(run_id, session_key)
    }
    fn session_of(&self, run_id: &str) -> Option<String> {
        self.0.run_session(run_id)
    }
}

/// A running OpenClaw gateway as a [`Gateway`] and [`SessionTree`].
pub struct LiveGateway {
    backend: Arc<Backend>,
    /// The gateway wire (`wire/`): every call's params and answer, in the negotiated era.
    wires: Wires,
    era: Era,
    hello: frames::Hello,
    config: DeploymentConfig,
    on_disk: Option<on_disk::OnDisk>,
}

impl std::fmt::Debug for LiveGateway {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LiveGateway")
            .field("url", &self.backend.link.url)
            .field("server_version", &self.hello.server_version)
            .field("protocol", &self.era.protocol())
            .field("histories_on_disk", &self.on_disk.is_some())
            .finish_non_exhaustive()
    }
}

impl LiveGateway {
    /// How to reach the gateway at `url` (`ws://host:port` or `wss://…`).
    pub fn builder(url: impl Into<String>) -> LiveGatewayBuilder {
        LiveGatewayBuilder {
            url: url.into(),
            auth: None,
            device_path: None,
            connect_timeout: Duration::from_secs(10),
            request_timeout: Duration::from_secs(30),
            max_answer_bytes: 64 << 20,
            backoff_min: Duration::from_millis(250),
            backoff_max: Duration::from_secs(10),
            on_disk: true,
        }
    }

    /// The gateway's URL.
    pub fn url(&self) -> &str {
        &self.backend.link.url
    }

    /// The gateway's config, as read when it was opened (secrets left out of what the
    /// guest sees, as for every config).
    pub fn config(&self) -> &DeploymentConfig {
        &self.config
    }

    /// The gateway's state directory, as it said at the handshake.
    pub fn state_dir(&self) -> Option<&str> {
        self.hello.state_dir.as_deref()
    }

    /// The gateway's version, as it said at the handshake.
    pub fn server_version(&self) -> Option<&str> {
        self.hello.server_version.as_deref()
    }

    /// The gateway protocol the handshake negotiated.
    pub fn protocol(&self) -> u32 {
        self.era.protocol()
    }

    /// Whether histories are read from the gateway's state directory on this machine (see
    /// [`LiveGatewayBuilder::with_histories_on_disk`]).
    pub fn reads_histories_on_disk(&self) -> bool {
        self.on_disk.is_some()
    }

    /// Connections made so far (1 until the first reconnection).
    pub fn connections(&self) -> u64 {
        *self.backend.link.shared.connections.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The canonical spelling of a session key, by the gateway's rules.
    pub fn canonical(&self, key: &str) -> String {
        self.backend.rules.canonical(key)
    }

    /// Any method of the gateway, with its raw JSON params and answer (the owner's
    /// commands: `chat.send`, `sessions.patch` with every field). `retry_safe` says whether
    /// it may be sent again after a drop. Blocks up to the request timeout.
    pub fn request(&self, method: &str, params: Value, retry_safe: bool) -> GatewayResult<Value> {
        self.backend.link.call_within(method, params, retry_safe, self.backend.link.request_timeout)
    }

    /// [`request`](Self::request) with a timeout of its own.
    pub fn request_within(&self, method: &str, params: Value, retry_safe: bool, timeout: Duration) -> GatewayResult<Value> {
        self.backend.link.call_within(method, params, retry_safe, timeout)
    }

    /// The payloads of the gateway's `event` broadcasts from now on (`chat`, `agent`, …),
    /// until the receiver is dropped. Events sent while the connection is down are lost.
    pub fn subscribe(&self, event: &str) -> Receiver<Value> {
        let (sender, receiver) = std::sync::mpsc::channel();
        self.backend.link.shared.listeners.lock().unwrap_or_else(|p| p.into_inner()).push((event.to_string(), sender));
        receiver
    }

    /// The raw `sessions.list` row of a session (every field the gateway lists, `chatType`
    /// among them), if it exists.
    pub fn row(&self, key: &str) -> GatewayResult<Option<Value>> {
        let canonical = self.canonical(key);
        // The wire's own crate, natively: the row as the gateway lists it, every page read (E6).
        let wire = session_tools_wire::Wire::new(Direct(&self.backend), Direct(&self.backend), self.era);
        let rows = wire.listed_rows(&session_tools_wire::gateway::row_search(&canonical))?;
        Ok(rows.into_iter().find(|r| r.get("key").and_then(Value::as_str) == Some(canonical.as_str())))
    }
}

impl Gateway for LiveGateway {
    fn sessions_list(&self, params: &ListParams) -> GatewayResult<SessionList> {
        let list: SessionList = self.wires.gateway(|g, s| g.call_sessions_list(s, &to_wit(params))).map(of_wit)?;
        if let Some(on_disk) = &self.on_disk {
            on_disk.remember(&list.sessions, |k| self.canonical(k));
        }
        Ok(list)
    }

    fn sessions_resolve(&self, params: &ResolveParams) -> GatewayResult<String> {
        self.wires.gateway(|g, s| g.call_sessions_resolve(s, &to_wit(params)))
    }

    fn chat_history(&self, params: &HistoryParams) -> GatewayResult<History> {
        // E4: over protocol 4 the gateway answers its display projection; its state on this
        // machine is read instead (on protocol 3 its answer is the raw transcript already).
        if let (Era::V4, Some(on_disk)) = (self.era, &self.on_disk) {
            let probe = || {
                let first = ListParams { limit: Some(1), ..Default::default() };
                self.wires.gateway(|g, s| g.call_sessions_list(s, &to_wit(&first))).map(|l| of_wit::<_, SessionList>(l).sessions).ok()
            };
            if let Some(history) = on_disk.history(params, |k| self.canonical(k), probe) {
                return Ok(history);
            }
        }
        self.wires.gateway(|g, s| g.call_chat_history(s, &to_wit(params))).map(of_wit)
    }

    fn chat_histories(&self, params: &[HistoryParams]) -> Vec<GatewayResult<History>> {
        let mut read: Vec<Option<History>> = match &self.on_disk {
            Some(on_disk) => on_disk.histories(params, |k| self.canonical(k)),
            None => vec![None; params.len()],
        };
        // The rest from the gateway, concurrently.
        let asked: Vec<_> = params.iter().zip(&read).filter(|(_, r)| r.is_none()).map(|(p, _)| to_wit(p)).collect();
        let mut answers = if asked.is_empty() {
            Vec::new()
        } else {
            match self.wires.gateway(|g, s| g.call_chat_histories(s, &asked).map(Ok)) {
                Ok(answers) => answers.into_iter().map(|a| a.map(of_wit).map_err(of_wit)).collect(),
                Err(e) => vec![Err(e); asked.len()],
            }
        }
        .into_iter();
        read.iter_mut()
            .map(|r| match r.take() {
                Some(history) => Ok(history),
                None => answers.next().unwrap_or_else(|| Err(GatewayError::new("the gateway gave no answer"))),
            })
            .collect()
    }

    fn agent(&self, params: &AgentParams) -> GatewayResult<AgentAccepted> {
        self.wires.gateway(|g, s| g.call_agent(s, &to_wit(params))).map(of_wit)
    }

    fn agent_wait(&self, params: &WaitParams) -> GatewayResult<WaitResult> {
        self.wires.gateway(|g, s| g.call_agent_wait(s, &to_wit(params))).map(of_wit)
    }

    fn send(&self, params: &SendParams) -> GatewayResult<()> {
        self.wires.gateway(|g, s| g.call_send(s, &to_wit(params)))
    }

    fn sessions_patch(&self, params: &PatchParams) -> GatewayResult<()> {
        self.wires.gateway(|g, s| g.call_sessions_patch(s, &to_wit(params)))
    }

    fn sessions_delete(&self, params: &DeleteParams) -> GatewayResult<()> {
        self.wires.gateway(|g, s| g.call_sessions_delete(s, &to_wit(params)))
    }
}

impl SessionTree for LiveGateway {
    fn canonical_key(&self, key: &str) -> String {
        self.canonical(key)
    }

    /// The trees, as the wire walks them (a level at a time; at most 10,000 sessions, a
    /// larger tree cut, which only hides sessions from a restricted caller: fail closed).
    fn spawned_trees(&self, roots: &HashSet<String>) -> GatewayResult<HashSet<String>> {
        let roots: Vec<String> = roots.iter().map(|r| self.canonical(r)).collect();
        let keys = self.wires.tree(|t, s| t.call_spawned_trees(s, &roots))?.map_err(of_wit::<_, GatewayError>)?;
        Ok(keys.into_iter().collect())
    }

    fn rows_of(&self, keys: &HashSet<String>) -> GatewayResult<Vec<SessionRow>> {
        let keys: Vec<String> = keys.iter().map(|k| self.canonical(k)).collect();
        let rows = self.wires.tree(|t, s| t.call_rows_of(s, &keys))?.map_err(of_wit::<_, GatewayError>)?;
        Ok(rows.into_iter().map(of_wit).collect())
    }

    fn exists(&self, key: &str) -> GatewayResult<bool> {
        let key = self.canonical(key);
        self.wires.tree(|t, s| t.call_exists(s, &key))?.map_err(of_wit)
    }

    fn run_session(&self, run_id: &str) -> Option<String> {
        self.backend.run_session(run_id)
    }

    fn run_state(&self, run_id: &str) -> RunState {
        // The gateway's `agent.wait` answers for any run, whoever started it; with no
        // time to wait it answers at once.
        match self.agent_wait(&WaitParams { run_id: run_id.to_string(), timeout_ms: 0 }) {
            Ok(wait) if wait.status.as_deref() == Some("timeout") => RunState::Running,
            Ok(_) => RunState::Ended,
            Err(_) => RunState::Unknown,
        }
    }
}
