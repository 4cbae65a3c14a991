//! The component: binds the WIT imports to the [`Gateway`] and [`Host`] ports and
//! exports the tools, jobs, policy and set-up. Nothing but type conversion lives here.

use std::cell::RefCell;
use std::rc::Rc;

use crate::config::Config;
use crate::context::{Caller, Env, Job, ToolError, Wakeup};
use crate::jobs;
use crate::policy::{self, PolicyInput};
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
session_tools_contract::wit_calls!(
    tools: crate::component::exports::openclaw::session_tools::tools,
    jobs: crate::component::exports::openclaw::session_tools::jobs,
    policy: crate::component::exports::openclaw::session_tools::policy,
);

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
                title: t.title.to_string(),
                description: t.description.to_string(),
                parameters: t.schema(),
                result_schema: t.result_schema.to_string(),
                hints: wit_tools::ToolHints {
                    read_only: t.hints.read_only,
                    destructive: t.hints.destructive,
                    idempotent: t.hints.idempotent,
                    open_world: t.hints.open_world,
                },
            })
            .collect()
    }

    fn call(tool: String, caller: wit_tools::CallerContext, arguments: String) -> Result<wit_tools::ToolOutput, wit_tools::ToolError> {
        let caller = Caller::from_wit(caller);
        let outcome = with_env(|env| tools::call_tool(env, &tool, &caller, &arguments)).unwrap_or(Err(ToolError::NotConfigured));
        outcome.map(IntoWit::into_wit).map_err(IntoWit::into_wit)
    }
}

impl wit_jobs::Guest for Component {
    fn resume(job: wit_jobs::Job, wakeup: wit_jobs::Wakeup) -> Result<Vec<wit_jobs::Job>, String> {
        let (job, wakeup) = (Job::from_wit(job), Wakeup::from_wit(wakeup));
        let next = with_env(|env| jobs::resume(env, job, wakeup)).unwrap_or_else(|| Err("the session tools are not configured".into()))?;
        Ok(next.into_iter().map(IntoWit::into_wit).collect())
    }
}

impl wit_policy::Guest for Component {
    fn evaluate_send_policy(input: wit_policy::PolicyInput) -> wit_policy::Verdict {
        let cfg = config().unwrap_or_default();
        let (decision, reason) = policy::evaluate(&cfg, &PolicyInput::from_wit(input));
        wit_policy::Verdict { decision: decision.into_wit(), reason }
    }

    fn parse_send_command(text: String) -> Option<wit_policy::SendCommand> {
        policy::parse_send_command(&text).map(IntoWit::into_wit)
    }
}

export!(Component);
