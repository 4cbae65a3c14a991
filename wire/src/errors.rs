//! Gateway errors, typed: an error frame's kind from its code, and a transport's failure as
//! the tools' `gateway-error`. This is the one place that reads an error's words, where
//! OpenClaw gives one code to several failures.

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

/// An error frame (`{code, message, ...}` as JSON text) as a gateway error: OpenClaw's
/// message, and the kind its code says. A frame that is not an object is said as it came.
pub fn error_frame(frame: &str) -> GatewayError {
    let parsed: Option<Value> = serde_json::from_str(frame).ok().filter(Value::is_object);
    let Some(frame) = parsed else {
        let text = if frame.trim().is_empty() { "unknown error" } else { frame };
        return GatewayError::new(text);
    };
    let code = str_field(&frame, "code").unwrap_or_default();
    let message = str_field(&frame, "message").filter(|m| !m.is_empty()).unwrap_or_else(|| "unknown error".to_string());
    GatewayError::of(error_kind(&code, &message), message)
}

/// A failed call as the tools' gateway error.
pub fn from_transport(error: TransportError) -> GatewayError {
    match error {
        TransportError::Gateway(frame) => error_frame(&frame),
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
        let e = error_frame(r#"{"code":"NOT_FOUND","message":"gone","details":{"x":1}}"#);
        assert_eq!((e.kind, e.message.as_str()), (ErrorKind::NotFound, "gone"));
        assert_eq!(error_frame(r#"{"code":"X"}"#).message, "unknown error");
        assert_eq!(error_frame("not json").message, "not json");
        assert_eq!(from_transport(TransportError::Timeout("late".into())), GatewayError::of(ErrorKind::Timeout, "late"));
        assert_eq!(from_transport(TransportError::Unavailable("down".into())).kind, ErrorKind::Unavailable);
    }
}
