//! Why the gate refuses a request, and the HTTP answer that says so: the status, a
//! `Retry-After` when waiting helps, and a JSON-RPC error without an id in the body (as MCP
//! clients read one; MCP streamable HTTP, "Security Warning", for the 403) naming the limit
//! and the flag that sets it.

use std::fmt;

use bytes::Bytes;
use http::{header, HeaderValue, Response, StatusCode};
use http_body_util::{BodyExt, Full};

use super::limits::RETRY_AFTER;
use super::Body;

/// A request the gate does not pass on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// No valid bearer token.
    Unauthorized,
    /// The session was opened with another token.
    NotYourSession,
    /// An `Origin` that is not one of the server's own names (DNS rebinding, cross-site pages).
    BadOrigin { origin: String },
    /// All connections are held by tokens.
    ServerFull { limit: usize },
    /// The token holds its cap of connections; this one is closed after the answer.
    TooManyConnections { limit: usize },
    /// The token holds its cap of open streams.
    TooManyStreams { limit: usize },
    /// The token has its cap of sessions and every one of them is busy.
    SessionsBusy { limit: usize },
    /// A POST body beyond the limit.
    BodyTooLarge { limit: usize },
    /// The body could not be read (the client went away, or broke the framing).
    BodyUnreadable,
}

impl Refusal {
    pub fn status(&self) -> StatusCode {
        match self {
            Refusal::Unauthorized => StatusCode::UNAUTHORIZED,
            Refusal::NotYourSession | Refusal::BadOrigin { .. } => StatusCode::FORBIDDEN,
            Refusal::ServerFull { .. } => StatusCode::SERVICE_UNAVAILABLE,
            Refusal::TooManyConnections { .. } | Refusal::TooManyStreams { .. } | Refusal::SessionsBusy { .. } => {
                StatusCode::TOO_MANY_REQUESTS
            }
            Refusal::BodyTooLarge { .. } => StatusCode::PAYLOAD_TOO_LARGE,
            Refusal::BodyUnreadable => StatusCode::BAD_REQUEST,
        }
    }

    /// Whether the connection is closed after the answer.
    pub fn closes(&self) -> bool {
        matches!(self, Refusal::ServerFull { .. } | Refusal::TooManyConnections { .. } | Refusal::BodyUnreadable)
    }

    /// Whether it is a cap of the server's (and waiting helps).
    fn retry(&self) -> bool {
        matches!(
            self,
            Refusal::ServerFull { .. } | Refusal::TooManyConnections { .. } | Refusal::TooManyStreams { .. } | Refusal::SessionsBusy { .. }
        )
    }

    /// The HTTP answer.
    pub fn response(&self) -> Response<Body> {
        let body = serde_json::json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32001, "message": self.to_string()}});
        let mut response = Response::new(Full::new(Bytes::from(body.to_string())).boxed());
        *response.status_mut() = self.status();
        let headers = response.headers_mut();
        headers.insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
        if self.retry() {
            headers.insert(header::RETRY_AFTER, HeaderValue::from(RETRY_AFTER.as_secs()));
        }
        if self.closes() {
            headers.insert(header::CONNECTION, HeaderValue::from_static("close"));
        }
        if *self == Refusal::Unauthorized {
            headers.insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
        }
        response
    }
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Refusal::Unauthorized => write!(f, "unauthorized: a valid bearer token is required (Authorization: Bearer <token>)"),
            Refusal::NotYourSession => write!(f, "forbidden: this session was opened with another token"),
            Refusal::BadOrigin { origin } => write!(
                f,
                "forbidden: Origin {origin:?} is not one of this server's names (a page of another site, or DNS rebinding); \
                 --allowed-host adds a name"
            ),
            Refusal::ServerFull { limit } => {
                write!(f, "server busy: all {limit} connections are in use (the limit; --max-connections)")
            }
            Refusal::TooManyConnections { limit } => write!(
                f,
                "too many connections for this token: it holds {limit} (the limit; --max-connections-per-token); this one is closed"
            ),
            Refusal::TooManyStreams { limit } => write!(
                f,
                "too many open streams for this token: it holds {limit} (listening streams and answers in flight; the limit, \
                 --max-streams-per-token)"
            ),
            Refusal::SessionsBusy { limit } => write!(
                f,
                "too many sessions for this token: all {limit} are busy (the limit; --max-sessions-per-token); end one \
                 (DELETE) or let one go idle"
            ),
            Refusal::BodyTooLarge { limit } => write!(f, "request body too large: the limit is {limit} bytes"),
            Refusal::BodyUnreadable => write!(f, "the request body could not be read"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refusals_are_http_answers_that_name_the_limit() {
        let busy = Refusal::TooManyStreams { limit: 8 }.response();
        assert_eq!(busy.status(), 429);
        assert_eq!(busy.headers()[header::RETRY_AFTER], "2");
        assert!(busy.headers().get(header::CONNECTION).is_none(), "the connection itself is within its cap");
        let closing = Refusal::TooManyConnections { limit: 16 }.response();
        assert_eq!((closing.status().as_u16(), &closing.headers()[header::CONNECTION]), (429, &HeaderValue::from_static("close")));
        assert!(Refusal::TooManyConnections { limit: 16 }.to_string().contains("--max-connections-per-token"));
        assert_eq!(Refusal::ServerFull { limit: 512 }.status(), 503);
        let origin = Refusal::BadOrigin { origin: "http://evil.example".into() }.response();
        assert_eq!(origin.status(), 403);
        assert!(origin.headers().get(header::RETRY_AFTER).is_none());
        let unauthorized = Refusal::Unauthorized.response();
        assert_eq!(unauthorized.headers()[header::WWW_AUTHENTICATE], "Bearer");
    }
}
