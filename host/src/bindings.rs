//! The component's world as host-side Rust (wasmtime `bindgen!`), and the conversions
//! between its records and the shared [`ports`](session_tools_guest::ports) types the
//! gateways speak.

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

pub fn gw_err(e: ports::GatewayError) -> wit_gw::GatewayError {
    let kind = match e.kind {
        ports::ErrorKind::Timeout => wit_gw::ErrorKind::Timeout,
        ports::ErrorKind::NotFound => wit_gw::ErrorKind::NotFound,
        ports::ErrorKind::Forbidden => wit_gw::ErrorKind::Forbidden,
        ports::ErrorKind::Unavailable => wit_gw::ErrorKind::Unavailable,
        ports::ErrorKind::TooLarge => wit_gw::ErrorKind::TooLarge,
        ports::ErrorKind::Invalid => wit_gw::ErrorKind::Invalid,
        ports::ErrorKind::Other => wit_gw::ErrorKind::Other,
    };
    wit_gw::GatewayError { kind, message: e.message }
}

pub fn list_params(p: wit_gw::ListParams) -> ports::ListParams {
    ports::ListParams {
        limit: p.limit,
        active_minutes: p.active_minutes,
        include_global: p.include_global,
        include_unknown: p.include_unknown,
        spawned_by: p.spawned_by,
        label: p.label,
        agent_id: p.agent_id,
        search: p.search,
    }
}

fn delivery(d: ports::DeliveryContext) -> wit_gw::DeliveryContext {
    let thread_id = d.thread_id.map(|t| match t {
        ports::ThreadId::Text(text) => wit_gw::ThreadId::Text(text),
        ports::ThreadId::Number(n) => wit_gw::ThreadId::Number(n),
    });
    wit_gw::DeliveryContext { channel: d.channel, to: d.to, account_id: d.account_id, thread_id }
}

pub fn session_row(r: ports::SessionRow) -> wit_gw::SessionRow {
    wit_gw::SessionRow {
        key: r.key,
        kind: r.kind,
        channel: r.channel,
        label: r.label,
        display_name: r.display_name,
        delivery_context: r.delivery_context.map(delivery),
        updated_at: r.updated_at,
        session_id: r.session_id,
        model: r.model,
        context_tokens: r.context_tokens,
        total_tokens: r.total_tokens,
        thinking_level: r.thinking_level,
        verbose_level: r.verbose_level,
        system_sent: r.system_sent,
        aborted_last_run: r.aborted_last_run,
        send_policy: r.send_policy,
        last_channel: r.last_channel,
        last_to: r.last_to,
        last_account_id: r.last_account_id,
        spawned_by: r.spawned_by,
    }
}

pub fn session_list(l: ports::SessionList) -> wit_gw::SessionList {
    wit_gw::SessionList { path: l.path, sessions: l.sessions.into_iter().map(session_row).collect() }
}

pub fn resolve_params(p: wit_gw::ResolveParams) -> ports::ResolveParams {
    ports::ResolveParams {
        key: p.key,
        session_id: p.session_id,
        label: p.label,
        agent_id: p.agent_id,
        spawned_by: p.spawned_by,
        include_global: p.include_global,
        include_unknown: p.include_unknown,
    }
}

pub fn history_params(p: wit_gw::HistoryParams) -> ports::HistoryParams {
    ports::HistoryParams { session_key: p.session_key, limit: p.limit }
}

pub fn history(h: ports::History) -> wit_gw::History {
    wit_gw::History {
        session_id: h.session_id,
        messages: h.messages.into_iter().map(|m| wit_gw::TranscriptMessage { role: m.role, json: m.json }).collect(),
    }
}

pub fn agent_params(p: wit_gw::AgentParams) -> ports::AgentParams {
    ports::AgentParams {
        message: p.message,
        session_key: p.session_key,
        idempotency_key: p.idempotency_key,
        deliver: p.deliver,
        channel: p.channel,
        lane: p.lane,
        extra_system_prompt: p.extra_system_prompt,
        thinking: p.thinking,
        timeout: p.timeout,
        label: p.label,
        spawned_by: p.spawned_by,
        group_id: p.group_id,
        group_channel: p.group_channel,
        group_space: p.group_space,
    }
}

pub fn wait_params(p: wit_gw::WaitParams) -> ports::WaitParams {
    ports::WaitParams { run_id: p.run_id, timeout_ms: p.timeout_ms }
}

fn wait_params_to_wit(p: ports::WaitParams) -> wit_gw::WaitParams {
    wit_gw::WaitParams { run_id: p.run_id, timeout_ms: p.timeout_ms }
}

pub fn wait_result(w: ports::WaitResult) -> wit_gw::WaitResult {
    wit_gw::WaitResult {
        status: w.status,
        error: w.error,
        started_at: w.started_at,
        ended_at: w.ended_at,
        usage: w.usage.map(|u| wit_gw::Usage {
            input_tokens: u.input_tokens,
            output_tokens: u.output_tokens,
            total_tokens: u.total_tokens,
        }),
        model: w.model,
    }
}

pub fn send_params(p: wit_gw::SendParams) -> ports::SendParams {
    ports::SendParams { to: p.to, message: p.message, channel: p.channel, account_id: p.account_id, idempotency_key: p.idempotency_key }
}

pub fn patch_params(p: wit_gw::PatchParams) -> ports::PatchParams {
    ports::PatchParams { key: p.key, label: p.label, model: p.model }
}

pub fn delete_params(p: wit_gw::DeleteParams) -> ports::DeleteParams {
    ports::DeleteParams { key: p.key, delete_transcript: p.delete_transcript }
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
        Wake::RunEnd(p) => wit_jobs::Wake::RunEnd(wait_params_to_wit(p)),
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
