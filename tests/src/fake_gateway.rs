//! A fake OpenClaw gateway on loopback that misbehaves on purpose: it speaks the protocol's
//! frames (challenge, `connect`, `req`/`res`, `tick`) and answers each request as a
//! script says, including drops, silence, slow and out-of-order answers, malformed and
//! oversized frames. For the live-gateway client's fault tests, where the real gateway
//! cannot be made to fail on cue.

use std::net::{Ipv4Addr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use tungstenite::protocol::frame::coding::CloseCode;
use tungstenite::protocol::CloseFrame;
use tungstenite::{Message, WebSocket};

/// One request the fake received.
#[derive(Debug, Clone)]
pub struct Call {
    /// Which connection (1 for the first).
    pub connection: u32,
    pub method: String,
    pub params: Value,
}

/// How the fake answers a request.
#[derive(Debug, Clone)]
pub enum Reply {
    /// `ok: true` with this payload.
    Ok(Value),
    /// `ok: false` with this error shape (`code`, `message`, `details`).
    Error { code: String, message: String, details: Option<Value> },
    /// The same answer, after a while (other requests are answered meanwhile).
    After(Duration, Box<Reply>),
    /// This text as a frame, instead of an answer.
    Raw(String),
    /// Close the connection (a close frame with this code and reason) without answering.
    Close(u16, String),
    /// Cut the TCP connection without a word.
    Cut,
    /// Never answer.
    Silence,
}

impl Reply {
    pub fn error(message: &str) -> Reply {
        Reply::Error { code: "INVALID_REQUEST".into(), message: message.into(), details: None }
    }
}

type Script = dyn Fn(&Call) -> Reply + Send + Sync;

/// The `hello-ok` payload of a protocol-3 gateway.
pub fn hello() -> Value {
    json!({
        "type": "hello-ok",
        "protocol": 3,
        "server": {"version": "fake", "connId": "c"},
        "features": {"methods": [], "events": []},
        "snapshot": {"stateDir": "/fake/state", "sessionDefaults": {"defaultAgentId": "main", "mainKey": "main", "mainSessionKey": "agent:main:main", "scope": "per-sender"}},
        "policy": {"maxPayload": 524288, "maxBufferedBytes": 1572864, "tickIntervalMs": 30000},
    })
}

/// The default answers: `connect` → [`hello`], `config.get` → an empty valid config.
pub fn standard(call: &Call) -> Option<Reply> {
    match call.method.as_str() {
        "connect" => Some(Reply::Ok(hello())),
        "config.get" => Some(Reply::Ok(json!({"path": "/fake/openclaw.json", "exists": true, "valid": true, "config": {}}))),
        _ => None,
    }
}

/// The server; stopped on drop.
pub struct FakeGateway {
    port: u16,
    stop: Arc<AtomicBool>,
    connections: Arc<AtomicU32>,
    calls: Arc<Mutex<Vec<Call>>>,
}

impl FakeGateway {
    /// Starts on a free port of 127.0.0.1; `script` answers every request, `connect`
    /// included (see [`standard`]).
    pub fn start(script: impl Fn(&Call) -> Reply + Send + Sync + 'static) -> FakeGateway {
        let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).expect("binding 127.0.0.1");
        let port = listener.local_addr().unwrap().port();
        listener.set_nonblocking(true).unwrap();
        let stop = Arc::new(AtomicBool::new(false));
        let connections = Arc::new(AtomicU32::new(0));
        let calls = Arc::new(Mutex::new(Vec::new()));
        let script: Arc<Script> = Arc::new(script);
        {
            let (stop, connections, calls) = (stop.clone(), connections.clone(), calls.clone());
            std::thread::spawn(move || {
                while !stop.load(Ordering::SeqCst) {
                    match listener.accept() {
                        Ok((stream, _)) => {
                            let number = connections.fetch_add(1, Ordering::SeqCst) + 1;
                            let (script, calls, stop) = (script.clone(), calls.clone(), stop.clone());
                            std::thread::spawn(move || serve(stream, number, &*script, &calls, &stop));
                        }
                        Err(_) => std::thread::sleep(Duration::from_millis(10)),
                    }
                }
            });
        }
        FakeGateway { port, stop, connections, calls }
    }

    pub fn url(&self) -> String {
        format!("ws://127.0.0.1:{}", self.port)
    }

    /// Connections accepted so far.
    pub fn connections(&self) -> u32 {
        self.connections.load(Ordering::SeqCst)
    }

    /// Requests received so far, `connect` included.
    pub fn calls(&self) -> Vec<Call> {
        self.calls.lock().unwrap().clone()
    }

    /// Requests of one method received so far.
    pub fn calls_of(&self, method: &str) -> Vec<Call> {
        self.calls().into_iter().filter(|c| c.method == method).collect()
    }
}

impl Drop for FakeGateway {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
    }
}

fn send(ws: &mut WebSocket<TcpStream>, text: String) -> bool {
    ws.send(Message::text(text)).is_ok()
}

fn answer(id: &str, reply: &Reply) -> Option<String> {
    match reply {
        Reply::Ok(payload) => Some(json!({"type": "res", "id": id, "ok": true, "payload": payload}).to_string()),
        Reply::Error { code, message, details } => {
            let mut error = json!({"code": code, "message": message});
            if let Some(details) = details {
                error["details"] = details.clone();
            }
            Some(json!({"type": "res", "id": id, "ok": false, "error": error}).to_string())
        }
        Reply::Raw(text) => Some(text.clone()),
        _ => None,
    }
}

/// One connection: the challenge, then requests until the script or the peer ends it.
fn serve(stream: TcpStream, connection: u32, script: &Script, calls: &Mutex<Vec<Call>>, stop: &AtomicBool) {
    let _ = stream.set_nonblocking(false);
    let Ok(mut ws) = tungstenite::accept_with_config(
        stream,
        Some(tungstenite::protocol::WebSocketConfig::default().max_message_size(None).max_frame_size(None)),
    ) else {
        return;
    };
    let _ = ws.get_ref().set_read_timeout(Some(Duration::from_millis(20)));
    if !send(
        &mut ws,
        json!({"type": "event", "event": "connect.challenge", "payload": {"nonce": format!("n-{connection}"), "ts": 0}}).to_string(),
    ) {
        return;
    }
    let mut later: Vec<(Instant, String, Reply)> = Vec::new();
    let mut last_tick = Instant::now();
    while !stop.load(Ordering::SeqCst) {
        // Answers whose time has come.
        let now = Instant::now();
        let (due, waiting): (Vec<_>, Vec<_>) = later.drain(..).partition(|(at, _, _)| *at <= now);
        later = waiting;
        for (_, id, reply) in due {
            if !act(&mut ws, &id, reply, &mut later) {
                return;
            }
        }
        if last_tick.elapsed() > Duration::from_secs(1) {
            last_tick = Instant::now();
            if !send(&mut ws, json!({"type": "event", "event": "tick", "payload": {"ts": 0}}).to_string()) {
                return;
            }
        }
        let text = match ws.read() {
            Ok(Message::Text(text)) => text.to_string(),
            Ok(Message::Close(_)) => return,
            Ok(_) => continue,
            Err(tungstenite::Error::Io(e)) if matches!(e.kind(), std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut) => continue,
            Err(_) => return,
        };
        let Ok(frame) = serde_json::from_str::<Value>(&text) else { return };
        let id = frame["id"].as_str().unwrap_or_default().to_string();
        let call = Call { connection, method: frame["method"].as_str().unwrap_or_default().to_string(), params: frame["params"].clone() };
        calls.lock().unwrap().push(call.clone());
        let reply = script(&call);
        if !act(&mut ws, &id, reply, &mut later) {
            return;
        }
    }
}

/// Carries out a reply; `false` when the connection is over.
fn act(ws: &mut WebSocket<TcpStream>, id: &str, reply: Reply, later: &mut Vec<(Instant, String, Reply)>) -> bool {
    match reply {
        Reply::After(wait, reply) => {
            later.push((Instant::now() + wait, id.to_string(), *reply));
            true
        }
        Reply::Close(code, reason) => {
            let _ = ws.close(Some(CloseFrame { code: CloseCode::from(code), reason: reason.into() }));
            let _ = ws.flush();
            false
        }
        Reply::Cut => {
            let _ = ws.get_ref().shutdown(std::net::Shutdown::Both);
            false
        }
        Reply::Silence => true,
        other => answer(id, &other).is_none_or(|text| send(ws, text)),
    }
}
