//! The `gateway-wire` component: the host's transport and runs bound to the crate's
//! traits, and the typed gateway, the spawn tree and the wire's set-up exported. Nothing but
//! binding lives here.

use std::cell::Cell;
use std::collections::BTreeSet;

use session_tools_contract::wit::{FromWit, IntoWit};
use session_tools_contract::{self as contract, Gateway as _, GatewayResult};

use crate::era::Era;
use crate::gateway::{self, Wire};
use crate::transport::{self as port, Request, TransportError};

wit_bindgen::generate!({
    path: "../wit",
    world: "gateway-wire",
});

session_tools_contract::wit_records!(crate::component::openclaw::session_tools::types);

use exports::openclaw::session_tools::{gateway as out, tree as out_tree, wire as out_wire};
use openclaw::session_tools::{runs as wit_runs, transport as wit_transport, types};

fn to_wit(r: Request) -> wit_transport::Request {
    wit_transport::Request { method: r.method, params: r.params, holds_ms: r.holds_ms, resend_safe: r.resend_safe }
}

fn error_of(e: wit_transport::TransportError) -> TransportError {
    match e {
        wit_transport::TransportError::Gateway(frame) => TransportError::Gateway(frame),
        wit_transport::TransportError::Timeout(m) => TransportError::Timeout(m),
        wit_transport::TransportError::Unavailable(m) => TransportError::Unavailable(m),
    }
}

/// The host's connection, through the import.
struct Imported;

impl port::Transport for Imported {
    fn call(&self, request: Request) -> Result<String, TransportError> {
        wit_transport::call(&to_wit(request)).map_err(error_of)
    }
    fn call_many(&self, requests: Vec<Request>) -> Vec<Result<String, TransportError>> {
        let requests: Vec<wit_transport::Request> = requests.into_iter().map(to_wit).collect();
        wit_transport::call_many(&requests).into_iter().map(|a| a.map_err(error_of)).collect()
    }
}

/// The host's runs, through the import.
struct ImportedRuns;

impl port::Runs for ImportedRuns {
    fn started(&self, run_id: &str, session_key: &str) {
        wit_runs::run_accepted(run_id, session_key)
    }
    fn session_of(&self, run_id: &str) -> Option<String> {
        wit_runs::session_of(run_id)
    }
}

thread_local! {
    /// The era `configure` set; until then every gateway call fails.
    static ERA: Cell<Option<Era>> = const { Cell::new(None) };
}

fn with_wire<R>(f: impl FnOnce(&Wire<Imported, ImportedRuns>) -> GatewayResult<R>) -> Result<R, types::GatewayError> {
    match ERA.with(Cell::get) {
        Some(era) => f(&Wire::new(Imported, ImportedRuns, era)).map_err(IntoWit::into_wit),
        None => Err(contract::GatewayError::new("the gateway wire is not configured").into_wit()),
    }
}

struct Component;

impl out_wire::Guest for Component {
    fn configure(connection: out_wire::Connection) -> Result<(), String> {
        let era = Era::of_protocol(connection.protocol)?;
        ERA.with(|e| e.set(Some(era)));
        Ok(())
    }

    fn encode_wait(params: types::WaitParams) -> wit_transport::Request {
        to_wit(gateway::encode_wait(&FromWit::from_wit(params)))
    }

    fn decode_wait(answer: Result<String, wit_transport::TransportError>) -> Result<types::WaitResult, types::GatewayError> {
        gateway::decode_wait(answer.map_err(error_of)).map(IntoWit::into_wit).map_err(IntoWit::into_wit)
    }

    fn documents_config(config: String) -> Result<String, String> {
        let raw: serde_json::Value = serde_json::from_str(&config).map_err(|e| format!("the config is not JSON: {e}"))?;
        Ok(crate::documents_config::documents_shape(raw).to_string())
    }

    fn local_history(
        session_key: String,
        entry: Option<String>,
        events: Vec<String>,
        whole: bool,
        limit: Option<u32>,
    ) -> Result<Option<String>, String> {
        session_tools_transcript::history::answer(&session_key, entry.as_deref(), &events, whole, limit).map_err(|e| e.to_string())
    }
}

session_tools_contract::wit_gateway_export!(Component, out: out, types: types, with: with_wire);

impl out_tree::Guest for Component {
    fn spawned_trees(roots: Vec<String>) -> Result<Vec<String>, types::GatewayError> {
        let roots: BTreeSet<String> = roots.into_iter().collect();
        with_wire(|w| w.spawned_trees(&roots)).map(|keys| keys.into_iter().collect())
    }
    fn rows_of(keys: Vec<String>) -> Result<Vec<types::SessionRow>, types::GatewayError> {
        let keys: BTreeSet<String> = keys.into_iter().collect();
        with_wire(|w| w.rows_of(&keys)).map(|rows| rows.into_iter().map(IntoWit::into_wit).collect())
    }
    fn exists(key: String) -> Result<bool, types::GatewayError> {
        with_wire(|w| w.exists(&key))
    }
    fn run_session(run_id: String) -> Option<String> {
        port::Runs::session_of(&ImportedRuns, &run_id)
    }
}

export!(Component);
