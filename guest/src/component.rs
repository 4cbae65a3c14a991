//! The component: binds the WIT imports to the [`Gateway`] and [`Host`] ports and
//! exports the tools, jobs, policy and set-up. Nothing but type conversion lives here.

use std::cell::RefCell;
use std::rc::Rc;

use crate::config::Config;
use crate::context::{Caller, Env, Job, ToolError, Wake, Wakeup};
use crate::jobs;
use crate::policy::{self, Decision, PolicyEntry, PolicyInput, SendCommand, SendMode};
use crate::ports::{self, GatewayResult, LogLevel};
use crate::tools;
use crate::{describe, Gateway, Host};

wit_bindgen::generate!({
    path: "../wit",
    world: "session-tools",
});

use exports::openclaw::session_tools::{jobs as wit_jobs, policy as wit_policy, setup as wit_setup, tools as wit_tools};
use openclaw::session_tools::{gateway as wit_gw, host as wit_host};

thread_local! {
    /// The instance's configuration, set by `configure`.
    static CONFIG: RefCell<Option<Rc<Config>>> = const { RefCell::new(None) };
}

fn config() -> Option<Rc<Config>> {
    CONFIG.with(|c| c.borrow().clone())
}

/// The gateway, through the WIT imports.
struct WitGateway;

fn gw_err(e: wit_gw::GatewayError) -> ports::GatewayError {
    let kind = match e.kind {
        wit_gw::ErrorKind::Timeout => ports::ErrorKind::Timeout,
        wit_gw::ErrorKind::NotFound => ports::ErrorKind::NotFound,
        wit_gw::ErrorKind::Forbidden => ports::ErrorKind::Forbidden,
        wit_gw::ErrorKind::Unavailable => ports::ErrorKind::Unavailable,
        wit_gw::ErrorKind::TooLarge => ports::ErrorKind::TooLarge,
        wit_gw::ErrorKind::Invalid => ports::ErrorKind::Invalid,
        wit_gw::ErrorKind::Other => ports::ErrorKind::Other,
    };
    ports::GatewayError { kind, message: e.message }
}

fn dc_from(d: wit_gw::DeliveryContext) -> ports::DeliveryContext {
    let thread_id = d.thread_id.map(|t| match t {
        wit_gw::ThreadId::Text(text) => ports::ThreadId::Text(text),
        wit_gw::ThreadId::Number(n) => ports::ThreadId::Number(n),
    });
    ports::DeliveryContext { channel: d.channel, to: d.to, account_id: d.account_id, thread_id }
}

fn row_from(r: wit_gw::SessionRow) -> ports::SessionRow {
    ports::SessionRow {
        key: r.key,
        kind: r.kind,
        channel: r.channel,
        label: r.label,
        display_name: r.display_name,
        delivery_context: r.delivery_context.map(dc_from),
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

fn history_from(history: wit_gw::History) -> ports::History {
    ports::History {
        session_id: history.session_id,
        messages: history.messages.into_iter().map(|m| ports::TranscriptMessage { role: m.role, json: m.json }).collect(),
    }
}

fn wait_result_from(w: wit_gw::WaitResult) -> ports::WaitResult {
    ports::WaitResult {
        status: w.status,
        error: w.error,
        started_at: w.started_at,
        ended_at: w.ended_at,
        usage: w.usage.map(|u| ports::Usage { input_tokens: u.input_tokens, output_tokens: u.output_tokens, total_tokens: u.total_tokens }),
        model: w.model,
    }
}

impl Gateway for WitGateway {
    fn sessions_list(&self, p: &ports::ListParams) -> GatewayResult<ports::SessionList> {
        let params = wit_gw::ListParams {
            limit: p.limit,
            active_minutes: p.active_minutes,
            include_global: p.include_global,
            include_unknown: p.include_unknown,
            spawned_by: p.spawned_by.clone(),
            label: p.label.clone(),
            agent_id: p.agent_id.clone(),
            search: p.search.clone(),
        };
        let list = wit_gw::sessions_list(&params).map_err(gw_err)?;
        Ok(ports::SessionList { path: list.path, sessions: list.sessions.into_iter().map(row_from).collect() })
    }

    fn sessions_resolve(&self, p: &ports::ResolveParams) -> GatewayResult<String> {
        let params = wit_gw::ResolveParams {
            key: p.key.clone(),
            session_id: p.session_id.clone(),
            label: p.label.clone(),
            agent_id: p.agent_id.clone(),
            spawned_by: p.spawned_by.clone(),
            include_global: p.include_global,
            include_unknown: p.include_unknown,
        };
        wit_gw::sessions_resolve(&params).map_err(gw_err)
    }

    fn chat_history(&self, p: &ports::HistoryParams) -> GatewayResult<ports::History> {
        let params = wit_gw::HistoryParams { session_key: p.session_key.clone(), limit: p.limit };
        wit_gw::chat_history(&params).map(history_from).map_err(gw_err)
    }

    fn chat_histories(&self, params: &[ports::HistoryParams]) -> Vec<GatewayResult<ports::History>> {
        let params: Vec<wit_gw::HistoryParams> =
            params.iter().map(|p| wit_gw::HistoryParams { session_key: p.session_key.clone(), limit: p.limit }).collect();
        wit_gw::chat_histories(&params).into_iter().map(|answer| answer.map(history_from).map_err(gw_err)).collect()
    }

    fn agent(&self, p: &ports::AgentParams) -> GatewayResult<ports::AgentAccepted> {
        let params = wit_gw::AgentParams {
            message: p.message.clone(),
            session_key: p.session_key.clone(),
            idempotency_key: p.idempotency_key.clone(),
            deliver: p.deliver,
            channel: p.channel.clone(),
            lane: p.lane.clone(),
            extra_system_prompt: p.extra_system_prompt.clone(),
            thinking: p.thinking.clone(),
            timeout: p.timeout,
            label: p.label.clone(),
            spawned_by: p.spawned_by.clone(),
            group_id: p.group_id.clone(),
            group_channel: p.group_channel.clone(),
            group_space: p.group_space.clone(),
        };
        let accepted = wit_gw::agent(&params).map_err(gw_err)?;
        Ok(ports::AgentAccepted { run_id: accepted.run_id })
    }

    fn agent_wait(&self, p: &ports::WaitParams) -> GatewayResult<ports::WaitResult> {
        let params = wit_gw::WaitParams { run_id: p.run_id.clone(), timeout_ms: p.timeout_ms };
        wit_gw::agent_wait(&params).map(wait_result_from).map_err(gw_err)
    }

    fn send(&self, p: &ports::SendParams) -> GatewayResult<()> {
        let params = wit_gw::SendParams {
            to: p.to.clone(),
            message: p.message.clone(),
            channel: p.channel.clone(),
            account_id: p.account_id.clone(),
            idempotency_key: p.idempotency_key.clone(),
        };
        wit_gw::send(&params).map_err(gw_err)
    }

    fn sessions_patch(&self, p: &ports::PatchParams) -> GatewayResult<()> {
        let params = wit_gw::PatchParams { key: p.key.clone(), label: p.label.clone(), model: p.model.clone() };
        wit_gw::sessions_patch(&params).map_err(gw_err)
    }

    fn sessions_delete(&self, p: &ports::DeleteParams) -> GatewayResult<()> {
        let params = wit_gw::DeleteParams { key: p.key.clone(), delete_transcript: p.delete_transcript };
        wit_gw::sessions_delete(&params).map_err(gw_err)
    }
}

/// The host services, through the WIT imports.
struct WitHost;

impl Host for WitHost {
    fn now_ms(&self) -> u64 {
        wit_host::now_ms()
    }

    fn new_uuid(&self) -> String {
        wit_host::new_uuid()
    }

    fn log(&self, level: LogLevel, message: &str) {
        let level = match level {
            LogLevel::Debug => wit_host::LogLevel::Debug,
            LogLevel::Info => wit_host::LogLevel::Info,
            LogLevel::Warn => wit_host::LogLevel::Warn,
            LogLevel::Error => wit_host::LogLevel::Error,
        };
        wit_host::log(level, message);
    }
}

fn with_env<T>(f: impl FnOnce(&Env) -> T) -> Option<T> {
    let cfg = config()?;
    Some(f(&Env { gw: &WitGateway, host: &WitHost, cfg: &cfg }))
}

fn wake_to_wit(wake: Wake) -> wit_jobs::Wake {
    match wake {
        Wake::Now => wit_jobs::Wake::Now,
        Wake::RunEnd(p) => wit_jobs::Wake::RunEnd(wit_gw::WaitParams { run_id: p.run_id, timeout_ms: p.timeout_ms }),
        Wake::At(t) => wit_jobs::Wake::At(t),
    }
}

fn wake_from_wit(wake: wit_jobs::Wake) -> Wake {
    match wake {
        wit_jobs::Wake::Now => Wake::Now,
        wit_jobs::Wake::RunEnd(p) => Wake::RunEnd(ports::WaitParams { run_id: p.run_id, timeout_ms: p.timeout_ms }),
        wit_jobs::Wake::At(t) => Wake::At(t),
    }
}

fn job_to_wit(job: Job) -> wit_jobs::Job {
    wit_jobs::Job { id: job.id, kind: job.kind, session_key: job.session_key, state: job.state, wake: wake_to_wit(job.wake) }
}

struct Component;

impl wit_setup::Guest for Component {
    fn configure(settings: wit_setup::Settings) -> Result<(), String> {
        let cfg = Config::parse(&settings.config, &settings.state_dir)?;
        CONFIG.with(|c| *c.borrow_mut() = Some(Rc::new(cfg)));
        Ok(())
    }
}

impl wit_tools::Guest for Component {
    fn describe() -> Vec<wit_tools::ToolDescription> {
        describe::TOOLS
            .iter()
            .map(|t| wit_tools::ToolDescription {
                name: t.name.to_string(),
                label: t.label.to_string(),
                description: t.description.to_string(),
                parameters: t.schema(),
            })
            .collect()
    }

    fn call(tool: String, caller: wit_tools::CallerContext, arguments: String) -> Result<wit_tools::ToolOutput, wit_tools::ToolError> {
        let caller = Caller {
            agent_session_key: caller.agent_session_key,
            agent_channel: caller.agent_channel,
            agent_account_id: caller.agent_account_id,
            agent_to: caller.agent_to,
            agent_thread_id: caller.agent_thread_id,
            agent_group_id: caller.agent_group_id,
            agent_group_channel: caller.agent_group_channel,
            agent_group_space: caller.agent_group_space,
            sandboxed: caller.sandboxed,
            requester_agent_id_override: caller.requester_agent_id_override,
        };
        let outcome = with_env(|env| tools::call_tool(env, &tool, &caller, &arguments)).unwrap_or(Err(ToolError::NotConfigured));
        match outcome {
            Ok(out) => Ok(wit_tools::ToolOutput { result: out.result, jobs: out.jobs.into_iter().map(job_to_wit).collect() }),
            Err(ToolError::UnknownTool(name)) => Err(wit_tools::ToolError::UnknownTool(name)),
            Err(ToolError::InvalidArguments(msg)) => Err(wit_tools::ToolError::InvalidArguments(msg)),
            Err(ToolError::Failed(msg)) => Err(wit_tools::ToolError::Failed(msg)),
            Err(ToolError::NotConfigured) => Err(wit_tools::ToolError::NotConfigured),
        }
    }
}

impl wit_jobs::Guest for Component {
    fn resume(job: wit_jobs::Job, wakeup: wit_jobs::Wakeup) -> Result<Vec<wit_jobs::Job>, String> {
        let job = Job { id: job.id, kind: job.kind, session_key: job.session_key, state: job.state, wake: wake_from_wit(job.wake) };
        let wakeup = match wakeup {
            wit_jobs::Wakeup::Now => Wakeup::Now,
            wit_jobs::Wakeup::Timer => Wakeup::Timer,
            wit_jobs::Wakeup::RunEnded(r) => Wakeup::RunEnded(r.map(wait_result_from).map_err(gw_err)),
        };
        let next = with_env(|env| jobs::resume(env, job, wakeup)).unwrap_or_else(|| Err("the session tools are not configured".into()))?;
        Ok(next.into_iter().map(job_to_wit).collect())
    }
}

impl wit_policy::Guest for Component {
    fn evaluate_send_policy(input: wit_policy::PolicyInput) -> wit_policy::Verdict {
        let input = PolicyInput {
            entry: input.entry.map(|e| PolicyEntry {
                send_policy: e.send_policy,
                channel: e.channel,
                last_channel: e.last_channel,
                chat_type: e.chat_type,
            }),
            session_key: input.session_key,
            channel: input.channel,
            chat_type: input.chat_type,
        };
        let cfg = config().unwrap_or_default();
        let (decision, reason) = policy::evaluate(&cfg, &input);
        wit_policy::Verdict {
            decision: match decision {
                Decision::Allow => wit_policy::Decision::Allow,
                Decision::Deny => wit_policy::Decision::Deny,
            },
            reason,
        }
    }

    fn parse_send_command(text: String) -> Option<wit_policy::SendCommand> {
        policy::parse_send_command(&text).map(|command| match command {
            SendCommand::Show => wit_policy::SendCommand::Show,
            SendCommand::Set(mode) => wit_policy::SendCommand::Set(match mode {
                SendMode::Allow => wit_policy::SendMode::Allow,
                SendMode::Deny => wit_policy::SendMode::Deny,
                SendMode::Inherit => wit_policy::SendMode::Inherit,
            }),
            SendCommand::Invalid(word) => wit_policy::SendCommand::Invalid(word),
        })
    }
}

export!(Component);
