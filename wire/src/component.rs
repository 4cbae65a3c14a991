//! The `gateway-wire` component: the host's transport and runs bound to the crate's
//! traits, and the typed gateway, the spawn tree and the wire's set-up exported, each answer
//! bounded as `configure` asks (`host-rules`' metering). Nothing but binding lives here.

use std::cell::Cell;
use std::collections::BTreeSet;

use session_tools_contract::wit::{FromWit, IntoWit};
use session_tools_contract::{self as contract, Gateway as _, GatewayResult};

use session_tools_host_rules::metering;

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
    /// The largest answer handed over, as `configure` set it (none: any).
    static MAX_ANSWER: Cell<Option<u64>> = const { Cell::new(None) };
}

fn with_wire<R>(f: impl FnOnce(&Wire<Imported, ImportedRuns>) -> GatewayResult<R>) -> Result<R, types::GatewayError> {
    match ERA.with(Cell::get) {
        Some(era) => f(&Wire::new(Imported, ImportedRuns, era)).map_err(IntoWit::into_wit),
        None => Err(contract::GatewayError::new("the gateway wire is not configured").into_wit()),
    }
}

/// `value`, unless its `size` is over the largest answer handed over.
fn bounded<T>(method: &str, size: usize, value: T) -> GatewayResult<T> {
    let refused = MAX_ANSWER.with(Cell::get).and_then(|limit| metering::answer_refused(method, size as u64, limit));
    refused.map_or(Ok(value), |message| Err(contract::GatewayError::of(contract::ErrorKind::TooLarge, message)))
}

/// The wire's gateway, each answer bounded.
struct Bounded<'a>(&'a Wire<Imported, ImportedRuns>);

impl contract::Gateway for Bounded<'_> {
    fn sessions_list(&self, p: &contract::ListParams) -> GatewayResult<contract::SessionList> {
        let list = self.0.sessions_list(p)?;
        bounded("sessions.list", metering::list_size(&list), list)
    }
    fn sessions_resolve(&self, p: &contract::ResolveParams) -> GatewayResult<String> {
        let key = self.0.sessions_resolve(p)?;
        bounded("sessions.resolve", key.len(), key)
    }
    fn chat_history(&self, p: &contract::HistoryParams) -> GatewayResult<contract::History> {
        let history = self.0.chat_history(p)?;
        bounded("chat.history", metering::history_size(&history), history)
    }
    fn chat_histories(&self, params: &[contract::HistoryParams]) -> Vec<GatewayResult<contract::History>> {
        // Together one answer for the size limit: past it, the rest are refused.
        let mut total = 0;
        self.0
            .chat_histories(params)
            .into_iter()
            .map(|answer| {
                let history = answer?;
                total += metering::history_size(&history);
                bounded("chat.histories", total, history)
            })
            .collect()
    }
    fn agent(&self, p: &contract::AgentParams) -> GatewayResult<contract::AgentAccepted> {
        let accepted = self.0.agent(p)?;
        bounded("agent", metering::accepted_size(&accepted), accepted)
    }
    fn agent_wait(&self, p: &contract::WaitParams) -> GatewayResult<contract::WaitResult> {
        let wait = self.0.agent_wait(p)?;
        bounded("agent.wait", metering::wait_size(&wait), wait)
    }
    fn send(&self, p: &contract::SendParams) -> GatewayResult<()> {
        self.0.send(p)
    }
    fn sessions_patch(&self, p: &contract::PatchParams) -> GatewayResult<()> {
        self.0.sessions_patch(p)
    }
    fn sessions_delete(&self, p: &contract::DeleteParams) -> GatewayResult<()> {
        self.0.sessions_delete(p)
    }
}

fn with_bounded<R>(f: impl FnOnce(&Bounded<'_>) -> GatewayResult<R>) -> Result<R, types::GatewayError> {
    with_wire(|w| f(&Bounded(w)))
}

struct Component;

impl out_wire::Guest for Component {
    fn configure(connection: out_wire::Connection) -> Result<(), String> {
        let era = Era::of_protocol(connection.protocol)?;
        ERA.with(|e| e.set(Some(era)));
        MAX_ANSWER.with(|m| m.set(connection.max_answer_bytes));
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

session_tools_contract::wit_gateway_export!(Component, out: out, types: types, with: with_bounded);

impl out_tree::Guest for Component {
    fn spawned_trees(roots: Vec<String>) -> Result<Vec<String>, types::GatewayError> {
        let roots: BTreeSet<String> = roots.into_iter().collect();
        let keys = with_wire(|w| w.spawned_trees(&roots).and_then(|keys| bounded("tree.spawned-trees", metering::keys_size(&keys), keys)));
        keys.map(|keys| keys.into_iter().collect())
    }
    fn rows_of(keys: Vec<String>) -> Result<Vec<types::SessionRow>, types::GatewayError> {
        let keys: BTreeSet<String> = keys.into_iter().collect();
        let rows =
            with_wire(|w| w.rows_of(&keys).and_then(|rows| bounded("tree.rows-of", rows.iter().map(metering::row_size).sum(), rows)));
        rows.map(|rows| rows.into_iter().map(IntoWit::into_wit).collect())
    }
    fn exists(key: String) -> Result<bool, types::GatewayError> {
        with_wire(|w| w.exists(&key))
    }
    fn run_session(run_id: String) -> Option<String> {
        port::Runs::session_of(&ImportedRuns, &run_id)
    }
}

export!(Component);
