//! The component: binds the WIT imports to the [`Gateway`] and [`Host`] ports and
//! exports the tools, jobs, policy and set-up. Nothing but type conversion lives here.

use std::cell::RefCell;
use std::rc::Rc;

use crate::config::Config;
use crate::context::{Caller, Env, Job, ToolError, Wake, Wakeup};
use crate::jobs;
use crate::policy::{self, Decision, PolicyEntry, PolicyInput, SendCommand, SendMode};
use crate::ports::wit::{FromWit, IntoWit};
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

session_tools_contract::wit_records!(crate::component::openclaw::session_tools::types);

fn gw_err(e: wit_gw::GatewayError) -> ports::GatewayError {
    ports::GatewayError::from_wit(e)
}

fn wait_result_from(w: wit_gw::WaitResult) -> ports::WaitResult {
    ports::WaitResult::from_wit(w)
}

impl Gateway for WitGateway {
    fn sessions_list(&self, p: &ports::ListParams) -> GatewayResult<ports::SessionList> {
        wit_gw::sessions_list(&p.clone().into_wit()).map(ports::SessionList::from_wit).map_err(gw_err)
    }

    fn sessions_resolve(&self, p: &ports::ResolveParams) -> GatewayResult<String> {
        wit_gw::sessions_resolve(&p.clone().into_wit()).map_err(gw_err)
    }

    fn chat_history(&self, p: &ports::HistoryParams) -> GatewayResult<ports::History> {
        wit_gw::chat_history(&p.clone().into_wit()).map(ports::History::from_wit).map_err(gw_err)
    }

    fn chat_histories(&self, params: &[ports::HistoryParams]) -> Vec<GatewayResult<ports::History>> {
        let params: Vec<wit_gw::HistoryParams> = params.iter().map(|p| p.clone().into_wit()).collect();
        wit_gw::chat_histories(&params).into_iter().map(|answer| answer.map(ports::History::from_wit).map_err(gw_err)).collect()
    }

    fn agent(&self, p: &ports::AgentParams) -> GatewayResult<ports::AgentAccepted> {
        wit_gw::agent(&p.clone().into_wit()).map(ports::AgentAccepted::from_wit).map_err(gw_err)
    }

    fn agent_wait(&self, p: &ports::WaitParams) -> GatewayResult<ports::WaitResult> {
        wit_gw::agent_wait(&p.clone().into_wit()).map(wait_result_from).map_err(gw_err)
    }

    fn send(&self, p: &ports::SendParams) -> GatewayResult<()> {
        wit_gw::send(&p.clone().into_wit()).map_err(gw_err)
    }

    fn sessions_patch(&self, p: &ports::PatchParams) -> GatewayResult<()> {
        wit_gw::sessions_patch(&p.clone().into_wit()).map_err(gw_err)
    }

    fn sessions_delete(&self, p: &ports::DeleteParams) -> GatewayResult<()> {
        wit_gw::sessions_delete(&p.clone().into_wit()).map_err(gw_err)
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
