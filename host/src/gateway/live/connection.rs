//! The one connection to the gateway, shared by every request of the process: a task on a
//! thread of its own (a tokio runtime nobody else sees) that connects, does the handshake,
//! sends requests as they come (several in flight at once, matched by id), keeps the
//! connection alive (the gateway's `tick`), and reconnects with backoff after a drop.
//!
//! A request waits for its answer up to its own deadline. When the connection drops, a
//! request in flight is sent again on the next connection only if that is safe (a read, or
//! a write with an idempotency key); any other fails with an error that says it may or may
//! not have taken effect. A failed handshake (a rejected token, another protocol) fails
//! what is waiting with the reason in words.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use futures_util::{SinkExt, StreamExt};
use serde_json::Value;
use session_tools_wire::TransportError;
use tokio::net::TcpStream;
use tokio::sync::mpsc;
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;
use tokio_tungstenite::tungstenite::{Error as WsError, Message};
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

use super::device::Device;
use super::frames::{self, Auth, Frame, Hello, Payload};

type Ws = WebSocketStream<MaybeTlsStream<TcpStream>>;

/// How the connection is made.
#[derive(Debug, Clone)]
pub(super) struct Settings {
    pub url: String,
    pub auth: Auth,
    pub device: Option<Arc<Device>>,
    pub connect_timeout: Duration,
    /// The largest frame accepted from the gateway.
    pub max_answer_bytes: usize,
    pub backoff_min: Duration,
    pub backoff_max: Duration,
}

/// A request on its way.
pub(super) struct Request {
    pub method: String,
    pub params: Value,
    /// Whether it may be sent again on a new connection after a drop.
    pub retry_safe: bool,
    pub deadline: Instant,
    pub reply: std::sync::mpsc::Sender<Result<Payload, TransportError>>,
}

pub(super) enum Command {
    Request(Request),
    /// Connect now if not connected; answer the handshake's outcome.
    Connect(std::sync::mpsc::Sender<Result<Hello, String>>),
    Shutdown,
}

/// What the handshake said, for the other threads.
#[derive(Default)]
pub(super) struct Shared {
    pub hello: Mutex<Option<Hello>>,
    /// Connections made so far (the first is 1).
    pub connections: Mutex<u64>,
    /// Who listens to which event (a listener that has gone is dropped).
    pub listeners: Mutex<Vec<(String, std::sync::mpsc::Sender<Value>)>>,
}

impl Shared {
    fn publish(&self, event: &str, payload: Option<Value>) {
        let mut listeners = self.listeners.lock().unwrap_or_else(|p| p.into_inner());
        if listeners.iter().any(|(name, _)| name == event) {
            let payload = payload.unwrap_or(Value::Null);
            listeners.retain(|(name, listener)| name != event || listener.send(payload.clone()).is_ok());
        }
    }
}

/// Starts the connection's thread; it ends at `Command::Shutdown` or when every sender is
/// gone.
pub(super) fn spawn(
    settings: Settings,
    shared: Arc<Shared>,
) -> std::io::Result<(mpsc::UnboundedSender<Command>, std::thread::JoinHandle<()>)> {
    let (sender, receiver) = mpsc::unbounded_channel();
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
    let thread = std::thread::Builder::new().name("session-tools-gateway".into()).spawn(move || {
        runtime.block_on(
            Connection { settings, shared, commands: receiver, queue: VecDeque::new(), connect_waiters: Vec::new(), next_id: 0 }.run(),
        )
    })?;
    Ok((sender, thread))
}

/// Fails a request the connection could not carry (it dropped, or never came up).
fn fail(request: Request, message: String) {
    let _ = request.reply.send(Err(TransportError::Unavailable(message)));
}

/// Why a connection could not be made.
enum ConnectError {
    /// Worth trying again later (the gateway is not there yet, the network dropped).
    Transient(String),
    /// Trying again will not help (a rejected token, another protocol, a bad URL).
    Fatal(String),
}

/// How serving a connection ended.
enum Ended {
    Shutdown,
    Dropped(String),
}

struct Connection {
    settings: Settings,
    shared: Arc<Shared>,
    commands: mpsc::UnboundedReceiver<Command>,
    /// Requests waiting for a connection.
    queue: VecDeque<Request>,
    /// Who waits for the next handshake's outcome.
    connect_waiters: Vec<std::sync::mpsc::Sender<Result<Hello, String>>>,
    next_id: u64,
}

impl Connection {
    async fn run(mut self) {
        let mut failures: u32 = 0;
        loop {
            self.expire_queue(None);
            if self.queue.is_empty() && self.connect_waiters.is_empty() {
                // Idle and not connected: wait for work (a connection is made on demand).
                match self.commands.recv().await {
                    Some(Command::Request(request)) => self.queue.push_back(request),
                    Some(Command::Connect(waiter)) => self.connect_waiters.push(waiter),
                    Some(Command::Shutdown) | None => return,
                }
            }
            match self.connect().await {
                Ok((ws, hello)) => {
                    failures = 0;
                    *self.shared.connections.lock().unwrap_or_else(|p| p.into_inner()) += 1;
                    crate::telemetry::gateway(&self.settings.url, "connected", hello.server_version.as_deref().unwrap_or(""));
                    *self.shared.hello.lock().unwrap_or_else(|p| p.into_inner()) = Some(hello.clone());
                    for waiter in self.connect_waiters.drain(..) {
                        let _ = waiter.send(Ok(hello.clone()));
                    }
                    match self.serve(ws, &hello).await {
                        Ended::Shutdown => return,
                        Ended::Dropped(why) => {
                            crate::telemetry::gateway(&self.settings.url, "dropped", &why);
                            continue;
                        }
                    }
                }
                Err(ConnectError::Fatal(message)) => {
                    failures += 1;
                    crate::telemetry::gateway(&self.settings.url, "unreachable", &message);
                    for waiter in self.connect_waiters.drain(..) {
                        let _ = waiter.send(Err(message.clone()));
                    }
                    for request in self.queue.drain(..) {
                        fail(request, message.clone());
                    }
                }
                Err(ConnectError::Transient(message)) => {
                    failures += 1;
                    crate::telemetry::gateway(&self.settings.url, "unreachable", &message);
                    for waiter in self.connect_waiters.drain(..) {
                        let _ = waiter.send(Err(message.clone()));
                    }
                    self.expire_queue(Some(&message));
                }
            }
            // Backoff before the next attempt, still taking requests.
            let pause = self.settings.backoff_min.saturating_mul(1u32 << failures.min(16)).min(self.settings.backoff_max);
            let until = tokio::time::Instant::now() + pause;
            loop {
                tokio::select! {
                    _ = tokio::time::sleep_until(until) => break,
                    command = self.commands.recv() => match command {
                        Some(Command::Request(request)) => self.queue.push_back(request),
                        Some(Command::Connect(waiter)) => self.connect_waiters.push(waiter),
                        Some(Command::Shutdown) | None => return,
                    },
                }
            }
        }
    }

    /// Fails the queued requests whose deadline has passed, saying why they could not be
    /// sent when `cause` is known.
    fn expire_queue(&mut self, cause: Option<&str>) {
        let now = Instant::now();
        let (expired, kept): (Vec<Request>, Vec<Request>) = self.queue.drain(..).partition(|r| r.deadline <= now);
        self.queue = kept.into();
        for request in expired {
            let message = match cause {
                Some(cause) => format!("cannot reach the gateway at {}: {cause}", self.settings.url),
                None => format!("the gateway at {} did not answer {} in time (no connection)", self.settings.url, request.method),
            };
            fail(request, message);
        }
    }

    async fn connect(&mut self) -> Result<(Ws, Hello), ConnectError> {
        let url = self.settings.url.clone();
        match tokio::time::timeout(self.settings.connect_timeout, self.handshake()).await {
            Ok(outcome) => outcome,
            Err(_) => Err(ConnectError::Transient(format!(
                "no handshake with the gateway at {url} within {} s",
                self.settings.connect_timeout.as_secs()
            ))),
        }
    }

    async fn handshake(&mut self) -> Result<(Ws, Hello), ConnectError> {
        let url = self.settings.url.as_str();
        if url.starts_with("wss://") && !cfg!(feature = "tls") {
            return Err(ConnectError::Fatal(format!("{url}: wss:// needs session-tools built with the `tls` feature")));
        }
        let config = WebSocketConfig::default()
            .max_message_size(Some(self.settings.max_answer_bytes))
            .max_frame_size(Some(self.settings.max_answer_bytes));
        let (mut ws, _) = tokio_tungstenite::connect_async_with_config(url, Some(config), true).await.map_err(|e| match e {
            WsError::Url(e) => ConnectError::Fatal(format!("{url} is not a gateway URL: {e}")),
            WsError::Http(response) => ConnectError::Fatal(format!("{url} answered HTTP {} instead of a WebSocket", response.status())),
            other => ConnectError::Transient(format!("cannot connect to the gateway at {url}: {other}")),
        })?;
        // The gateway speaks first (`connect.challenge {nonce, ts}`); a device signs its
        // nonce, at its time (2026.9 allows ±2 min of skew, so the gateway's clock is the
        // one to use).
        let challenge = match tokio::time::timeout(self.settings.connect_timeout, ws.next()).await {
            Ok(Some(Ok(Message::Text(text)))) => match frames::parse(text.as_str()) {
                Frame::Event { event, payload } if event == "connect.challenge" => payload,
                _ => None,
            },
            _ => None,
        };
        let nonce = challenge.as_ref().and_then(|p| p.get("nonce")).and_then(Value::as_str).filter(|n| !n.is_empty());
        let token = match &self.settings.auth {
            Auth::Token(token) => Some(token.as_str()),
            Auth::Password(_) => None,
        };
        let device = match (&self.settings.device, nonce) {
            (None, _) => None,
            (Some(device), Some(nonce)) => {
                let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_millis() as u64);
                let signed_at = challenge.as_ref().and_then(|p| p.get("ts")).and_then(Value::as_u64).unwrap_or(now);
                Some(device.connect_field(token, nonce, signed_at))
            }
            (Some(_), None) => {
                return Err(ConnectError::Transient(format!(
                    "the gateway at {url} sent no connect.challenge with a nonce, which this host's device identity must sign"
                )))
            }
        };
        let connect = frames::request("connect", "connect", &frames::connect_params(&self.settings.auth, device));
        ws.send(Message::text(connect))
            .await
            .map_err(|e| ConnectError::Transient(format!("the gateway at {url} closed during the handshake: {e}")))?;
        loop {
            let message = match ws.next().await {
                Some(Ok(message)) => message,
                Some(Err(e)) => return Err(ConnectError::Transient(format!("the gateway at {url} closed during the handshake: {e}"))),
                None => return Err(ConnectError::Transient(format!("the gateway at {url} closed during the handshake"))),
            };
            match message {
                Message::Text(text) => match frames::parse(text.as_str()) {
                    Frame::Res { id, ok: true, payload, .. } if id == "connect" => {
                        let hello = Hello::parse(&payload.map_or(Value::Null, |p| p.value()));
                        if !frames::speaks(hello.protocol) {
                            return Err(ConnectError::Fatal(format!(
                                "the gateway at {url} speaks protocol {}; this host speaks {}",
                                hello.protocol,
                                frames::spoken()
                            )));
                        }
                        if hello.granted_scopes.as_ref().is_some_and(Vec::is_empty) {
                            return Err(ConnectError::Fatal(frames::no_scopes_error(url)));
                        }
                        return Ok((ws, hello));
                    }
                    Frame::Res { id, ok: false, error, .. } if id == "connect" => {
                        let error =
                            error.unwrap_or(frames::ErrorShape { code: String::new(), message: "no reason given".into(), details: None });
                        return Err(ConnectError::Fatal(frames::handshake_error(url, &self.settings.auth, &error)));
                    }
                    _ => continue,
                },
                Message::Close(frame) => {
                    let (code, reason) = frame.map_or((0, String::new()), |f| (u16::from(f.code), f.reason.to_string()));
                    return Err(match code {
                        1002 => ConnectError::Fatal(format!("the gateway at {url} speaks none of {} ({reason})", frames::spoken())),
                        1008 => ConnectError::Fatal(format!("the gateway at {url} refused the connection: {reason}")),
                        _ => ConnectError::Transient(format!("the gateway at {url} closed during the handshake ({code} {reason})")),
                    });
                }
                _ => continue,
            }
        }
    }

    /// Serves one connection until it drops or the process shuts it down.
    async fn serve(&mut self, ws: Ws, hello: &Hello) -> Ended {
        let url = self.settings.url.clone();
        let (mut sink, mut stream) = ws.split();
        let mut in_flight: HashMap<String, Request> = HashMap::new();
        let mut check = tokio::time::interval(Duration::from_millis(200));
        // The gateway ticks every `tickIntervalMs`; two missed ticks mean it is gone.
        let silence_limit = Duration::from_millis(hello.tick_interval_ms.max(1_000).saturating_mul(2));
        let mut last_heard = Instant::now();
        let mut outgoing: VecDeque<Request> = self.queue.drain(..).collect();
        let ended = 'serve: loop {
            while let Some(request) = outgoing.pop_front() {
                self.next_id += 1;
                let id = format!("st-{}", self.next_id);
                let frame = frames::request(&id, &request.method, &request.params);
                if frame.len() > hello.max_payload {
                    let message = format!(
                        "the {} request is {} bytes; the gateway at {url} accepts at most {}",
                        request.method,
                        frame.len(),
                        hello.max_payload
                    );
                    fail(request, message);
                    continue;
                }
                in_flight.insert(id, request);
                if let Err(e) = sink.send(Message::text(frame)).await {
                    break 'serve Ended::Dropped(format!("the connection failed while sending: {e}"));
                }
            }
            tokio::select! {
                command = self.commands.recv() => match command {
                    Some(Command::Request(request)) => outgoing.push_back(request),
                    Some(Command::Connect(waiter)) => {
                        let _ = waiter.send(Ok(hello.clone()));
                    }
                    Some(Command::Shutdown) | None => {
                        let _ = sink.send(Message::Close(None)).await;
                        break 'serve Ended::Shutdown;
                    }
                },
                message = stream.next() => {
                    last_heard = Instant::now();
                    match message {
                        Some(Ok(Message::Text(text))) => match frames::parse(text.as_str()) {
                            // The first answer settles a request: `agent`'s `accepted` is the
                            // one the tools wait for (§6), and its final answer, for an id no
                            // longer in flight, is let go.
                            Frame::Res { id, ok, payload, error } => {
                                if let Some(request) = in_flight.remove(&id) {
                                    let answer = if ok {
                                        Ok(payload.unwrap_or_else(Payload::null))
                                    } else {
                                        // The frame as it came, for the gateway wire to read.
                                        Err(TransportError::Gateway(error.map_or_else(|| "{}".to_string(), |e| e.to_json().to_string())))
                                    };
                                    let _ = request.reply.send(answer);
                                }
                            }
                            Frame::Event { event, payload } if event == "shutdown" => {
                                let reason = payload.and_then(|p| p.get("reason").and_then(Value::as_str).map(str::to_string)).unwrap_or_default();
                                break 'serve Ended::Dropped(format!("the gateway is shutting down ({reason})"));
                            }
                            Frame::Event { event, payload } => self.shared.publish(&event, payload),
                            Frame::Invalid(why) => break 'serve Ended::Dropped(format!("the gateway sent {why}")),
                        },
                        Some(Ok(Message::Close(frame))) => {
                            let reason = frame.map_or_else(String::new, |f| format!(" ({} {})", u16::from(f.code), f.reason));
                            break 'serve Ended::Dropped(format!("the gateway closed the connection{reason}"));
                        }
                        Some(Ok(Message::Binary(_))) => break 'serve Ended::Dropped("the gateway sent a binary frame".into()),
                        Some(Ok(_)) => {}
                        Some(Err(WsError::Capacity(e))) => {
                            break 'serve Ended::Dropped(format!("the gateway sent an answer larger than {} bytes ({e})", self.settings.max_answer_bytes))
                        }
                        Some(Err(e)) => break 'serve Ended::Dropped(format!("the connection failed: {e}")),
                        None => break 'serve Ended::Dropped("the gateway closed the connection".into()),
                    }
                },
                _ = check.tick() => {
                    let now = Instant::now();
                    let expired: Vec<String> = in_flight.iter().filter(|(_, r)| r.deadline <= now).map(|(id, _)| id.clone()).collect();
                    for id in expired {
                        if let Some(request) = in_flight.remove(&id) {
                            let message = format!("the gateway at {url} did not answer {} in time", request.method);
                            fail(request, message);
                        }
                    }
                    if last_heard.elapsed() > silence_limit {
                        break 'serve Ended::Dropped(format!("nothing heard from the gateway for {} s", silence_limit.as_secs()));
                    }
                }
            }
        };
        let reason = match &ended {
            Ended::Shutdown => "this host is shutting down".to_string(),
            Ended::Dropped(reason) => reason.clone(),
        };
        // Not sent yet: sent on the next connection.
        if matches!(ended, Ended::Dropped(_)) {
            self.queue.extend(outgoing.drain(..));
        }
        // What was on its way: sent again on the next connection where that is safe.
        for request in in_flight.into_values().chain(outgoing) {
            if matches!(ended, Ended::Dropped(_)) && request.retry_safe && request.deadline > Instant::now() {
                self.queue.push_back(request);
            } else {
                let message = format!(
                    "the connection to the gateway at {url} was lost while it answered {} ({reason}); it may or may not have taken effect",
                    request.method
                );
                fail(request, message);
            }
        }
        ended
    }
}
