//! What the wire asks of a host: one generic call (a method and its JSON params, answering
//! the JSON payload or why not), and a memory of the runs it starts. The WIT `transport`
//! and `runs` interfaces, as Rust traits.

/// One RPC as the wire asks for it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Request {
    /// The gateway method (`sessions.list`, `agent.wait`, ...).
    pub method: String,
    /// Its params, as JSON text.
    pub params: String,
    /// How much longer than an ordinary call the gateway may hold this one before it
    /// answers (`agent.wait` holds up to its `timeoutMs`); zero for every other call.
    pub holds_ms: u64,
    /// Whether the host may send it again on a new connection when the connection dropped
    /// while it was in flight: reads, and writes the gateway de-duplicates by their
    /// idempotency key.
    pub resend_safe: bool,
}

/// Why a call failed, as the host saw it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TransportError {
    /// The gateway answered with an error frame: its JSON (`{code, message, details?, ...}`).
    Gateway(String),
    /// No answer in time (the request may or may not have been done).
    Timeout(String),
    /// The gateway could not be reached, or the connection dropped.
    Unavailable(String),
}

/// The host's connection to the gateway.
pub trait Transport {
    /// One RPC: the payload as JSON text.
    fn call(&self, request: Request) -> Result<String, TransportError>;

    /// Several RPCs, which the host may make concurrently: one answer each, in order.
    fn call_many(&self, requests: Vec<Request>) -> Vec<Result<String, TransportError>> {
        requests.into_iter().map(|r| self.call(r)).collect()
    }
}

/// The runs a host keeps for the N15 guard.
pub trait Runs {
    /// A run was accepted for a session (the key the gateway answered with, else the one
    /// asked for, `main` when none was).
    fn started(&self, run_id: &str, session_key: &str);

    /// The session of a run the host knows of.
    fn session_of(&self, run_id: &str) -> Option<String>;
}
