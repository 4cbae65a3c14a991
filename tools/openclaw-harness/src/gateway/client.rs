//! The harness's own WebSocket client of a gateway (operator, `operator.admin`): a test
//! tool that speaks the protocol as a client outside the project would, independent of the
//! host's live client it is used to check.

use std::collections::VecDeque;
use std::fmt;
use std::net::{Ipv4Addr, SocketAddr, TcpStream};
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use tungstenite::{Message, WebSocket};

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
