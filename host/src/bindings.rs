//! The component's world as host-side Rust (wasmtime `bindgen!`), and the conversions
//! between its records and the shared [`ports`](session_tools_contract) types the
//! gateways speak.

// Generated code (reached by the benchmark through `unstable`): the WIT documents it.
#![allow(missing_docs)]

use session_tools_contract as ports;
use session_tools_contract::wit::{FromWit, IntoWit};

wasmtime::component::bindgen!({
    path: "../wit",
    world: "session-tools",
    // Every import may trap: a host fault while answering one (a panic caught at the
    // import boundary) traps the guest and discards its instance instead of unwinding
    // through the guest's frames or taking the process down.
    imports: { default: trappable },
});

/// The guard's side of the guarded composition: the spawn tree it imports and
/// the set-up it exports. The records it shares with the tools' world are the same Rust
/// types (`with`), so one set of host imports serves both.
pub mod guard {
    wasmtime::component::bindgen!({
        path: "../wit",
        world: "session-guard",
        imports: { default: trappable },
        with: {
            "openclaw:session-tools/types": super::openclaw::session_tools::types,
            "openclaw:session-tools/gateway": super::openclaw::session_tools::gateway,
        },
    });

    pub use exports::openclaw::session_tools::guard as wit_guard;
    pub use openclaw::session_tools::{audit as wit_audit, tree as wit_tree};
}

pub use exports::openclaw::session_tools::{jobs as wit_jobs, policy as wit_policy, tools as wit_tools};
pub use openclaw::session_tools::{gateway as wit_gw, host as wit_host, types as wit_types};

// The records of the `types` interface, converted by the contract's one copy of the
// conversions (the guest and the guard components use the same macro).
session_tools_contract::wit_records!(crate::bindings::openclaw::session_tools::types);
session_tools_contract::wit_calls!(
    tools: crate::bindings::exports::openclaw::session_tools::tools,
    jobs: crate::bindings::exports::openclaw::session_tools::jobs,
    policy: crate::bindings::exports::openclaw::session_tools::policy,
);

pub fn gw_err(e: ports::GatewayError) -> wit_gw::GatewayError {
    e.into_wit()
}

pub fn list_params(p: wit_gw::ListParams) -> ports::ListParams {
    FromWit::from_wit(p)
}

pub fn session_row(r: ports::SessionRow) -> wit_gw::SessionRow {
    r.into_wit()
}

pub fn session_list(l: ports::SessionList) -> wit_gw::SessionList {
    l.into_wit()
}

pub fn resolve_params(p: wit_gw::ResolveParams) -> ports::ResolveParams {
    FromWit::from_wit(p)
}

pub fn history_params(p: wit_gw::HistoryParams) -> ports::HistoryParams {
    FromWit::from_wit(p)
}

pub fn history(h: ports::History) -> wit_gw::History {
    h.into_wit()
}

pub fn agent_params(p: wit_gw::AgentParams) -> ports::AgentParams {
    FromWit::from_wit(p)
}

pub fn wait_params(p: wit_gw::WaitParams) -> ports::WaitParams {
    FromWit::from_wit(p)
}

pub fn wait_result(w: ports::WaitResult) -> wit_gw::WaitResult {
    w.into_wit()
}

pub fn send_params(p: wit_gw::SendParams) -> ports::SendParams {
    FromWit::from_wit(p)
}

pub fn patch_params(p: wit_gw::PatchParams) -> ports::PatchParams {
    FromWit::from_wit(p)
}

pub fn delete_params(p: wit_gw::DeleteParams) -> ports::DeleteParams {
    FromWit::from_wit(p)
}
