//! The frames of OpenClaw's gateway WebSocket protocol, v3 and v4
//! (docs/openclaw-versions.md, "Gateway protocols"): requests out, answers and events in, and the
//! handshake's `connect`. The frames themselves are the same in both; what the gateway
//! negotiated is kept ([`Hello::protocol`]) for what differs above them (E1). Frames from
//! the gateway are untrusted: anything that is not a well-formed frame is a
//! [`Frame::Invalid`], never a panic.

use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::{json, Map, Value};

/// The protocols this host speaks: 3 (OpenClaw 2026.1.x) to 4 (2026.5 and later). Both
/// eras accept a range that holds their own (E1).
pub const MIN_PROTOCOL: u64 = 3;
pub const MAX_PROTOCOL: u64 = 4;

/// Whether this host speaks `protocol`.
pub fn speaks(protocol: u64) -> bool {
    (MIN_PROTOCOL..=MAX_PROTOCOL).contains(&protocol)
}

/// The range, in words.
pub fn spoken() -> String {
    format!("protocols {MIN_PROTOCOL} to {MAX_PROTOCOL}")
}

/// An answer's payload as the gateway wrote it: checked to be JSON, not yet read into a
/// tree. Most answers go to the gateway wire as text (a 200-row `sessions.list` was parsed,
/// copied and written out again before the wire read it once more); the few read here are
/// read when asked.
#[derive(Debug, Clone)]
pub struct Payload(Box<RawValue>);

impl Payload {
    /// The payload read into a tree.
    pub fn value(&self) -> Value {
        // It was read as JSON once already: it reads again.
        serde_json::from_str(self.0.get()).unwrap_or(Value::Null)
    }

    /// The payload's text, for the gateway wire.
    pub fn into_text(self) -> String {
        String::from(Box::<str>::from(self.0))
    }

    /// `null`, for an answer without a payload.
    pub fn null() -> Payload {
        Payload(RawValue::NULL.to_owned())
    }
}

impl PartialEq for Payload {
    fn eq(&self, other: &Payload) -> bool {
        self.0.get() == other.0.get()
    }
}

/// A frame from the gateway.
#[derive(Debug, Clone, PartialEq)]
pub enum Frame {
    /// An answer to a request: `ok` read first, then the payload or the error.
    Res {
        id: String,
        ok: bool,
        payload: Option<Payload>,
        error: Option<ErrorShape>,
    },
    Event {
        event: String,
        payload: Option<Value>,
    },
    /// Not a frame of the protocol: why.
    Invalid(String),
}

/// The gateway's `ErrorShape`.
#[derive(Debug, Clone, PartialEq)]
pub struct ErrorShape {
    pub code: String,
    pub message: String,
    pub details: Option<Value>,
}

impl ErrorShape {
    fn parse(v: &Value) -> ErrorShape {
        let text = |k: &str| v.get(k).and_then(Value::as_str).unwrap_or_default().to_string();
        ErrorShape { code: text("code"), message: text("message"), details: v.get("details").cloned() }
    }

    /// The frame as JSON again, for the gateway wire (which reads what it means).
    pub fn to_json(&self) -> Value {
        let mut frame = json!({"code": self.code, "message": self.message});
        if let Some(details) = &self.details {
            frame["details"] = details.clone();
        }
        frame
    }
}

/// A frame's fields, its payload left as text.
#[derive(Deserialize)]
struct Incoming {
    #[serde(rename = "type")]
    kind: Option<Value>,
    id: Option<Value>,
    ok: Option<Value>,
    event: Option<Value>,
    payload: Option<Box<RawValue>>,
    error: Option<Value>,
}

/// Reads a text frame.
pub fn parse(text: &str) -> Frame {
    let frame: Incoming = match serde_json::from_str(text) {
        Ok(frame) => frame,
        Err(e) if e.is_data() => return Frame::Invalid(format!("a frame that is not an object of the protocol ({e})")),
        Err(e) => return Frame::Invalid(format!("a frame that is not JSON ({e})")),
    };
    match frame.kind.as_ref().and_then(Value::as_str) {
        Some("res") => {
            let Some(id) = frame.id.as_ref().and_then(Value::as_str) else {
                return Frame::Invalid("an answer without an id".into());
            };
            let Some(ok) = frame.ok.as_ref().and_then(Value::as_bool) else {
                return Frame::Invalid(format!("an answer to {id} without ok"));
            };
            Frame::Res {
                id: id.to_string(),
                ok,
                payload: frame.payload.map(Payload),
                error: frame.error.as_ref().filter(|e| e.is_object()).map(ErrorShape::parse),
            }
        }
        Some("event") => match frame.event.as_ref().and_then(Value::as_str) {
            Some(event) => Frame::Event { event: event.to_string(), payload: frame.payload.map(|p| Payload(p).value()) },
            None => Frame::Invalid("an event without a name".into()),
        },
        Some(other) => Frame::Invalid(format!("a frame of an unknown type {other:?}")),
        None => Frame::Invalid("a frame without a type".into()),
    }
}

/// A request frame.
pub fn request(id: &str, method: &str, params: &Value) -> String {
    json!({"type": "req", "id": id, "method": method, "params": params}).to_string()
}

/// How this host authenticates.
#[derive(Clone, PartialEq, Eq)]
pub enum Auth {
    Token(String),
    Password(String),
}

impl std::fmt::Debug for Auth {
    // Secrets never reach a log.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Auth::Token(_) => f.write_str("Token(…)"),
            Auth::Password(_) => f.write_str("Password(…)"),
        }
    }
}

/// The client this host presents itself as (an enum on the gateway side: the gateway's
/// own backend client is `gateway-client` in `backend` mode).
pub const CLIENT_ID: &str = "gateway-client";
pub const CLIENT_MODE: &str = "backend";
pub const ROLE: &str = "operator";
pub const SCOPES: [&str; 1] = ["operator.admin"];

/// The params of `connect`.
pub fn connect_params(auth: &Auth, device: Option<Value>) -> Value {
    let mut params = Map::new();
    params.insert("minProtocol".into(), json!(MIN_PROTOCOL));
    params.insert("maxProtocol".into(), json!(MAX_PROTOCOL));
    params.insert(
        "client".into(),
        json!({"id": CLIENT_ID, "displayName": "session-tools", "version": env!("CARGO_PKG_VERSION"), "platform": std::env::consts::OS, "mode": CLIENT_MODE}),
    );
    params.insert("role".into(), json!(ROLE));
    params.insert("scopes".into(), json!(SCOPES));
    params.insert(
        "auth".into(),
        match auth {
            Auth::Token(token) => json!({"token": token}),
            Auth::Password(password) => json!({"password": password}),
        },
    );
    if let Some(device) = device {
        params.insert("device".into(), device);
    }
    Value::Object(params)
}

/// What `hello-ok` told about the gateway.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Hello {
    pub protocol: u64,
    pub server_version: Option<String>,
    /// The largest frame the gateway accepts from a client.
    pub max_payload: usize,
    /// How often the gateway sends `tick`.
    pub tick_interval_ms: u64,
    pub state_dir: Option<String>,
    pub default_agent: Option<String>,
    pub main_key: Option<String>,
    pub scope: Option<String>,
    /// The scopes the gateway granted (`auth.scopes`; always there on protocol 4, absent
    /// on 3, where a connection that is let in has what it asked for).
    pub granted_scopes: Option<Vec<String>>,
}

impl Hello {
    pub fn parse(payload: &Value) -> Hello {
        let text = |v: Option<&Value>| v.and_then(Value::as_str).map(str::to_string);
        let policy = payload.get("policy");
        let snapshot = payload.get("snapshot");
        let defaults = snapshot.and_then(|s| s.get("sessionDefaults"));
        Hello {
            protocol: payload.get("protocol").and_then(Value::as_u64).unwrap_or(0),
            server_version: text(payload.get("server").and_then(|s| s.get("version"))),
            max_payload: policy.and_then(|p| p.get("maxPayload")).and_then(Value::as_u64).map_or(512 * 1024, |n| n as usize),
            tick_interval_ms: policy.and_then(|p| p.get("tickIntervalMs")).and_then(Value::as_u64).unwrap_or(30_000),
            state_dir: text(snapshot.and_then(|s| s.get("stateDir"))),
            default_agent: text(defaults.and_then(|d| d.get("defaultAgentId"))),
            main_key: text(defaults.and_then(|d| d.get("mainKey"))),
            scope: text(defaults.and_then(|d| d.get("scope"))),
            granted_scopes: payload
                .get("auth")
                .and_then(|a| a.get("scopes"))
                .and_then(Value::as_array)
                .map(|scopes| scopes.iter().filter_map(Value::as_str).map(str::to_string).collect()),
        }
    }
}

/// Why the handshake failed, in words (§3.3).
pub fn handshake_error(url: &str, auth: &Auth, error: &ErrorShape) -> String {
    let message = error.message.as_str();
    if message.contains("protocol mismatch") {
        let expected = error.details.as_ref().and_then(|d| d.get("expectedProtocol")).and_then(Value::as_u64);
        return match expected {
            Some(n) => format!("the gateway at {url} speaks protocol {n}; this host speaks {}", spoken()),
            None => format!("the gateway at {url} speaks none of {}: {message}", spoken()),
        };
    }
    if message.starts_with("unauthorized") {
        let what = if message.contains("missing") { "missing" } else { "rejected" };
        let secret = match auth {
            Auth::Token(_) => "token",
            Auth::Password(_) => "password",
        };
        return format!("gateway {secret} {what} by {url} ({message})");
    }
    if error.code == "NOT_PAIRED" {
        let detail = |k: &str| error.details.as_ref().and_then(|d| d.get(k)).and_then(Value::as_str);
        if detail("code") == Some("DEVICE_IDENTITY_REQUIRED") {
            return format!(
                "the gateway at {url} requires a device identity from this host ({message}): give its token or password (gateway.auth in its config), or a device identity with --device-identity and approve its pairing on the gateway"
            );
        }
        return match detail("requestId") {
            Some(id) => format!(
                "the gateway at {url} has not paired this host yet: approve pairing request {id} on the gateway (`openclaw devices approve {id}`), then connect again ({message})"
            ),
            None => format!("the gateway at {url} refused this host's device identity: {message}"),
        };
    }
    format!("the gateway at {url} refused the connection: {message}")
}

/// Why a connection that was let in with no scope at all is of no use, and what to do: a
/// 2026.9 gateway clears the scopes of a shared token or password that comes without a
/// device identity from anywhere but loopback, so every
/// method would then fail for a missing scope.
pub fn no_scopes_error(url: &str) -> String {
    format!(
        "the gateway at {url} accepted this host's secret but granted it no scopes, so it could call no method: a gateway of 2026.5 or later grants nothing to a token or password without a device identity unless it comes from loopback. Run session-tools on the gateway's machine (ws://127.0.0.1:PORT, or --gateway local), or give a device identity (--device-identity FILE) and approve its pairing on the gateway (`openclaw devices approve`)"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_are_read_without_trusting_them() {
        assert_eq!(
            parse(r#"{"type":"res","id":"1","ok":false,"payload":{"status":"error"},"error":{"code":"UNAVAILABLE","message":"boom"}}"#),
            Frame::Res {
                id: "1".into(),
                ok: false,
                payload: Some(Payload(RawValue::from_string(r#"{"status":"error"}"#.into()).unwrap())),
                error: Some(ErrorShape { code: "UNAVAILABLE".into(), message: "boom".into(), details: None })
            }
        );
        assert!(matches!(parse("not json"), Frame::Invalid(_)));
        assert!(matches!(parse(r#"{"type":"res","ok":true}"#), Frame::Invalid(_)));
        assert!(matches!(parse(r#"[1]"#), Frame::Invalid(_)));
        assert_eq!(
            parse(r#"{"type":"event","event":"tick","payload":{"ts":1}}"#),
            Frame::Event { event: "tick".into(), payload: Some(json!({"ts": 1})) }
        );
    }

    #[test]
    fn handshake_errors_are_said_in_words() {
        let url = "ws://127.0.0.1:1";
        let mismatch = ErrorShape {
            code: "INVALID_REQUEST".into(),
            message: "protocol mismatch".into(),
            details: Some(json!({"expectedProtocol": 5})),
        };
        assert_eq!(
            handshake_error(url, &Auth::Token("t".into()), &mismatch),
            "the gateway at ws://127.0.0.1:1 speaks protocol 5; this host speaks protocols 3 to 4"
        );
        let token = ErrorShape {
            code: "INVALID_REQUEST".into(),
            message: "unauthorized: gateway token mismatch (provide gateway auth token)".into(),
            details: None,
        };
        assert!(handshake_error(url, &Auth::Token("t".into()), &token).starts_with("gateway token rejected by ws://127.0.0.1:1"));
        assert_eq!(format!("{:?}", Auth::Token("secret".into())), "Token(…)");
        let no_device = ErrorShape {
            code: "NOT_PAIRED".into(),
            message: "device identity required".into(),
            details: Some(json!({"code": "DEVICE_IDENTITY_REQUIRED"})),
        };
        assert!(handshake_error(url, &Auth::Token("t".into()), &no_device).contains("--device-identity"));
    }

    #[test]
    fn a_connection_without_scopes_says_what_to_do() {
        // The refusals of a request (MISSING_SCOPE, FORBIDDEN) are said by the gateway
        // wire (wire/src/errors.rs); a handshake that granted nothing is said here.
        let url = "ws://10.0.0.2:1";
        assert!(no_scopes_error(url).contains("--device-identity"));
        let hello = Hello::parse(&json!({"protocol": 4, "auth": {"role": "operator", "scopes": []}}));
        assert_eq!((hello.protocol, hello.granted_scopes), (4, Some(vec![])));
        assert!(speaks(3) && speaks(4) && !speaks(5) && !speaks(2));
    }
}
