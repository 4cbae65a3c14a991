//! Gateway errors, typed: an error frame's kind from its code, and a transport's failure as
//! the tools' `gateway-error`. This is the one place that reads an error's words, where
//! OpenClaw gives one code to several failures, and that says in words what to do about the
//! refusals protocol 4 added (`MISSING_SCOPE`, `FORBIDDEN`).

use serde_json::Value;
use session_tools_contract::{ErrorKind, GatewayError};

use crate::json::str_field;
use crate::transport::TransportError;

/// The kind of a gateway error frame (`ErrorShape`), from its code and, where OpenClaw
/// gives one code to several failures, its message.
pub fn error_kind(code: &str, message: &str) -> ErrorKind {
    match code {
        "UNAVAILABLE" => ErrorKind::Unavailable,
        "FORBIDDEN" | "MISSING_SCOPE" | "NOT_PAIRED" | "UNAUTHORIZED" => ErrorKind::Forbidden,
        "NOT_FOUND" => ErrorKind::NotFound,
        "AGENT_TIMEOUT" | "TIMEOUT" => ErrorKind::Timeout,
        _ if message.starts_with("No session found") => ErrorKind::NotFound,
        _ if message.starts_with("send blocked by session policy") => ErrorKind::Forbidden,
        "INVALID_REQUEST" => ErrorKind::Invalid,
        _ => ErrorKind::Other,
    }
}

/// An error frame (`{code, message, ...}` as JSON text) of a call of `method` as a gateway
/// error: OpenClaw's message (with what to do, for the refusals of [`refusal`]), and the kind
/// its code says. A frame that is not an object is said as it came.
pub fn error_frame(method: &str, frame: &str) -> GatewayError {
    let parsed: Option<Value> = serde_json::from_str(frame).ok().filter(Value::is_object);
    let Some(frame) = parsed else {
        let text = if frame.trim().is_empty() { "unknown error" } else { frame };
        return GatewayError::new(text);
    };
    let code = str_field(&frame, "code").unwrap_or_default();
    let message = str_field(&frame, "message").filter(|m| !m.is_empty()).unwrap_or_else(|| "unknown error".to_string());
    let kind = error_kind(&code, &message);
    GatewayError::of(kind, refusal(method, &code, &message, frame.get("details")).unwrap_or(message))
}

/// The words for a refusal a connection can do something about: a missing scope (protocol
/// 4 gives a shared secret from another machine without a device identity none, §1.4) or
/// a method its operator forbids. `None` for every other error, said as OpenClaw says it.
fn refusal(method: &str, code: &str, message: &str, details: Option<&Value>) -> Option<String> {
    match code {
        "MISSING_SCOPE" => {
            let missing = details.and_then(|d| str_field(d, "missingScope"));
            let required: Vec<&str> = details
                .and_then(|d| d.get("requiredScopes"))
                .and_then(Value::as_array)
                .map(|s| s.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            let scope = missing.unwrap_or_else(|| if required.is_empty() { "a scope".into() } else { required.join(", ") });
            Some(format!(
                "the gateway refused {method}: this connection lacks the scope {scope} ({message}). Connect with the gateway's token or password from its own machine (which grants operator.admin), or pair this host's device identity with that scope (`openclaw devices approve`)"
            ))
        }
        "FORBIDDEN" => Some(format!(
            "the gateway forbids {method} to this connection ({message}); its operator can allow it (operator.admin, or the gateway's policy for {method})"
        )),
        _ => None,
    }
}

/// A failed call of `method` as the tools' gateway error.
pub fn from_transport(method: &str, error: TransportError) -> GatewayError {
    match error {
        TransportError::Gateway(frame) => error_frame(method, &frame),
        TransportError::Timeout(message) => GatewayError::of(ErrorKind::Timeout, message),
        TransportError::Unavailable(message) => GatewayError::of(ErrorKind::Unavailable, message),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_code_decides_and_the_words_only_where_one_code_means_several_things() {
        assert_eq!(error_kind("UNAVAILABLE", "No session found: x"), ErrorKind::Unavailable);
        assert_eq!(error_kind("MISSING_SCOPE", ""), ErrorKind::Forbidden);
        assert_eq!(error_kind("INVALID_REQUEST", "No session found: agent:main:x"), ErrorKind::NotFound);
        assert_eq!(error_kind("INVALID_REQUEST", "send blocked by session policy"), ErrorKind::Forbidden);
        assert_eq!(error_kind("INVALID_REQUEST", "invalid agent params"), ErrorKind::Invalid);
        assert_eq!(error_kind("", "boom"), ErrorKind::Other);
    }

    #[test]
    fn frames_and_transport_failures_become_typed_errors() {
        let e = error_frame("sessions.list", r#"{"code":"NOT_FOUND","message":"gone","details":{"x":1}}"#);
        assert_eq!((e.kind, e.message.as_str()), (ErrorKind::NotFound, "gone"));
        assert_eq!(error_frame("send", r#"{"code":"X"}"#).message, "unknown error");
        assert_eq!(error_frame("send", "not json").message, "not json");
        assert_eq!(from_transport("send", TransportError::Timeout("late".into())), GatewayError::of(ErrorKind::Timeout, "late"));
        assert_eq!(from_transport("send", TransportError::Unavailable("down".into())).kind, ErrorKind::Unavailable);
    }

    #[test]
    fn the_refusals_of_protocol_4_say_what_to_do() {
        let missing = r#"{"code":"MISSING_SCOPE","message":"missing scope: operator.sessions.read",
            "details":{"missingScope":"operator.sessions.read","requiredScopes":["operator.sessions.read"]}}"#;
        let e = error_frame("sessions.list", missing);
        assert_eq!(e.kind, ErrorKind::Forbidden);
        assert!(
            e.message.starts_with("the gateway refused sessions.list: this connection lacks the scope operator.sessions.read"),
            "{}",
            e.message
        );
        assert!(e.message.contains("openclaw devices approve"), "{}", e.message);
        let required = error_frame("agent", r#"{"code":"MISSING_SCOPE","message":"m","details":{"requiredScopes":["a","b"]}}"#);
        assert!(required.message.contains("lacks the scope a, b (m)"), "{}", required.message);
        let forbidden = error_frame("sessions.delete", r#"{"code":"FORBIDDEN","message":"nope"}"#);
        assert_eq!(forbidden.kind, ErrorKind::Forbidden);
        assert!(forbidden.message.contains("forbids sessions.delete to this connection (nope)"), "{}", forbidden.message);
        let plain = error_frame("chat.history", r#"{"code":"INVALID_REQUEST","message":"No session found: x"}"#);
        assert_eq!(plain.message, "No session found: x", "other errors are OpenClaw's words as they are");
    }
}
