//! The component's world as host-side Rust (wasmtime `bindgen!`), and the conversions
//! between its records and the shared [`ports`](session_tools_guest::ports) types the
//! gateways speak.

use session_tools_contract::wit::{FromWit, IntoWit};
use session_tools_guest::policy::{Decision, PolicyEntry, PolicyInput, SendCommand, SendMode};
use session_tools_guest::ports;
use session_tools_guest::{Caller, Job, Wake, Wakeup};

wasmtime::component::bindgen!({
    path: "../wit",
    world: "session-tools",
    // Every import may trap: a host fault while answering one (a panic caught at the
    // import boundary) traps the guest and discards its instance instead of unwinding
    // through the guest's frames or taking the process down.
    imports: { default: trappable },
});

/// The guard's side of the guarded composition (issue 22): the spawn tree it imports and
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

pub fn caller(c: &Caller) -> wit_tools::CallerContext {
    wit_tools::CallerContext {
        agent_session_key: c.agent_session_key.clone(),
        agent_channel: c.agent_channel.clone(),
        agent_account_id: c.agent_account_id.clone(),
        agent_to: c.agent_to.clone(),
        agent_thread_id: c.agent_thread_id.clone(),
        agent_group_id: c.agent_group_id.clone(),
        agent_group_channel: c.agent_group_channel.clone(),
        agent_group_space: c.agent_group_space.clone(),
        sandboxed: c.sandboxed,
        requester_agent_id_override: c.requester_agent_id_override.clone(),
    }
}

pub fn job_from_wit(job: wit_jobs::Job) -> Job {
    let wake = match job.wake {
        wit_jobs::Wake::Now => Wake::Now,
        wit_jobs::Wake::RunEnd(p) => Wake::RunEnd(wait_params(p)),
        wit_jobs::Wake::At(t) => Wake::At(t),
    };
    Job { id: job.id, kind: job.kind, session_key: job.session_key, state: job.state, wake }
}

pub fn job_to_wit(job: Job) -> wit_jobs::Job {
    let wake = match job.wake {
        Wake::Now => wit_jobs::Wake::Now,
        Wake::RunEnd(p) => wit_jobs::Wake::RunEnd(p.into_wit()),
        Wake::At(t) => wit_jobs::Wake::At(t),
    };
    wit_jobs::Job { id: job.id, kind: job.kind, session_key: job.session_key, state: job.state, wake }
}

pub fn wakeup_to_wit(w: Wakeup) -> wit_jobs::Wakeup {
    match w {
        Wakeup::Now => wit_jobs::Wakeup::Now,
        Wakeup::Timer => wit_jobs::Wakeup::Timer,
        Wakeup::RunEnded(r) => wit_jobs::Wakeup::RunEnded(r.map(wait_result).map_err(gw_err)),
    }
}

pub fn policy_input(i: &PolicyInput) -> wit_policy::PolicyInput {
    wit_policy::PolicyInput {
        entry: i.entry.as_ref().map(|e: &PolicyEntry| wit_policy::PolicyEntry {
            send_policy: e.send_policy.clone(),
            channel: e.channel.clone(),
            last_channel: e.last_channel.clone(),
            chat_type: e.chat_type.clone(),
        }),
        session_key: i.session_key.clone(),
        channel: i.channel.clone(),
        chat_type: i.chat_type.clone(),
    }
}

pub fn decision(d: wit_policy::Decision) -> Decision {
    match d {
        wit_policy::Decision::Allow => Decision::Allow,
        wit_policy::Decision::Deny => Decision::Deny,
    }
}

pub fn send_command(c: wit_policy::SendCommand) -> SendCommand {
    match c {
        wit_policy::SendCommand::Show => SendCommand::Show,
        wit_policy::SendCommand::Set(mode) => SendCommand::Set(match mode {
            wit_policy::SendMode::Allow => SendMode::Allow,
            wit_policy::SendMode::Deny => SendMode::Deny,
            wit_policy::SendMode::Inherit => SendMode::Inherit,
        }),
        wit_policy::SendCommand::Invalid(word) => SendCommand::Invalid(word),
    }
}
