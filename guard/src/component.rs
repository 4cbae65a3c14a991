//! The `session-guard` component: the WIT imports (the host's gateway, tree and audit)
//! bound to the contract's ports, and the guard exported as the `gateway` the tools
//! import, with its set-up (`guard`); beside it, the `deployment` crate's rules for a host
//! that asks (`deployment`). Nothing but binding lives here.

use std::cell::RefCell;
use std::collections::BTreeSet;

use session_tools_contract::wit::{FromWit, IntoWit};
use session_tools_contract::{self as contract, Gateway as _, GatewayResult};
use session_tools_grammar::keys::KeyRules;

use crate::access::{self, CallerIdentity, Restriction, Scope};
use crate::visibility::{Audit, Guarded, Tree};

wit_bindgen::generate!({
    path: "../wit",
    world: "session-guard",
});

session_tools_contract::wit_records!(crate::component::openclaw::session_tools::types);

use exports::openclaw::session_tools::deployment as wit_deployment;
use exports::openclaw::session_tools::gateway as out;
use exports::openclaw::session_tools::guard as wit_guard;
use openclaw::session_tools::{audit as wit_audit, gateway as inner, tree as wit_tree, types};

/// The host's gateway, through the imports.
struct Imported;

fn err(e: types::GatewayError) -> contract::GatewayError {
    contract::GatewayError::from_wit(e)
}

impl contract::Gateway for Imported {
    fn sessions_list(&self, p: &contract::ListParams) -> GatewayResult<contract::SessionList> {
        inner::sessions_list(&p.clone().into_wit()).map(FromWit::from_wit).map_err(err)
    }
    fn sessions_resolve(&self, p: &contract::ResolveParams) -> GatewayResult<String> {
        inner::sessions_resolve(&p.clone().into_wit()).map_err(err)
    }
    fn chat_history(&self, p: &contract::HistoryParams) -> GatewayResult<contract::History> {
        inner::chat_history(&p.clone().into_wit()).map(FromWit::from_wit).map_err(err)
    }
    fn chat_histories(&self, params: &[contract::HistoryParams]) -> Vec<GatewayResult<contract::History>> {
        let params: Vec<types::HistoryParams> = params.iter().map(|p| p.clone().into_wit()).collect();
        inner::chat_histories(&params).into_iter().map(|a| a.map(FromWit::from_wit).map_err(err)).collect()
    }
    fn agent(&self, p: &contract::AgentParams) -> GatewayResult<contract::AgentAccepted> {
        inner::agent(&p.clone().into_wit()).map(FromWit::from_wit).map_err(err)
    }
    fn agent_wait(&self, p: &contract::WaitParams) -> GatewayResult<contract::WaitResult> {
        inner::agent_wait(&p.clone().into_wit()).map(FromWit::from_wit).map_err(err)
    }
    fn send(&self, p: &contract::SendParams) -> GatewayResult<()> {
        inner::send(&p.clone().into_wit()).map_err(err)
    }
    fn sessions_patch(&self, p: &contract::PatchParams) -> GatewayResult<()> {
        inner::sessions_patch(&p.clone().into_wit()).map_err(err)
    }
    fn sessions_delete(&self, p: &contract::DeleteParams) -> GatewayResult<()> {
        inner::sessions_delete(&p.clone().into_wit()).map_err(err)
    }
}

/// The host's spawn tree, through the imports.
struct ImportedTree;

impl Tree for ImportedTree {
    fn spawned_trees(&self, roots: &BTreeSet<String>) -> GatewayResult<BTreeSet<String>> {
        let roots: Vec<String> = roots.iter().cloned().collect();
        wit_tree::spawned_trees(&roots).map(|keys| keys.into_iter().collect()).map_err(err)
    }
    fn rows_of(&self, keys: &BTreeSet<String>) -> GatewayResult<Vec<contract::SessionRow>> {
        let keys: Vec<String> = keys.iter().cloned().collect();
        wit_tree::rows_of(&keys).map(|rows| rows.into_iter().map(FromWit::from_wit).collect()).map_err(err)
    }
    fn exists(&self, key: &str) -> GatewayResult<bool> {
        wit_tree::exists(key).map_err(err)
    }
    fn run_session(&self, run_id: &str) -> Option<String> {
        wit_tree::run_session(run_id)
    }
}

/// The host's audit of refused calls.
struct ImportedAudit;

impl Audit for ImportedAudit {
    fn refused(&self, method: &str, what: &str, own: &str) {
        wit_audit::refused(method, what, own)
    }
}

type Guard = Guarded<Imported, ImportedTree, ImportedAudit>;

thread_local! {
    /// The instance's guard, set by `configure`; until then every call is refused.
    static GUARD: RefCell<Option<Guard>> = const { RefCell::new(None) };
}

fn with_guard<R>(f: impl FnOnce(&Guard) -> GatewayResult<R>) -> Result<R, types::GatewayError> {
    GUARD.with(|g| match g.borrow().as_ref() {
        Some(guard) => f(guard).map_err(IntoWit::into_wit),
        // Fail closed: a guard nobody set up lets nothing through.
        None => {
            Err(contract::GatewayError::of(contract::ErrorKind::Forbidden, "forbidden: the session guard is not configured").into_wit())
        }
    })
}

struct Component;

fn key_rules(rules: wit_guard::KeyRules) -> KeyRules {
    KeyRules { main_key: rules.main_key, scope_global: rules.scope_global, default_agent: rules.default_agent }
}

impl wit_guard::Guest for Component {
    fn configure(rules: wit_guard::KeyRules, restriction: wit_guard::Restriction) -> Result<(), String> {
        let rules = key_rules(rules);
        let restriction = Restriction {
            own: restriction.own_key,
            spawned_only: restriction.spawned_only,
            scope: match restriction.scope {
                wit_guard::VisibilityScope::All => Scope::All,
                wit_guard::VisibilityScope::SelfOnly => Scope::SelfOnly,
                wit_guard::VisibilityScope::Tree => Scope::Tree,
                wit_guard::VisibilityScope::Agent => Scope::Agent,
            },
            spawn_any: restriction.spawn_any,
            spawn_agents: restriction.spawn_agents,
        };
        GUARD.with(|g| *g.borrow_mut() = Some(Guarded::new(Imported, ImportedTree, ImportedAudit, rules, restriction)));
        Ok(())
    }

    fn key_rules_of(config: String) -> Result<wit_guard::KeyRules, String> {
        let config: serde_json::Value = serde_json::from_str(&config).map_err(|e| format!("the deployment config is not JSON: {e}"))?;
        let rules = KeyRules::from_config(&config);
        Ok(wit_guard::KeyRules { main_key: rules.main_key, scope_global: rules.scope_global, default_agent: rules.default_agent })
    }

    fn canonical_key(rules: wit_guard::KeyRules, key: String) -> String {
        key_rules(rules).canonical(&key)
    }

    fn normalize_agent_id(id: String) -> String {
        session_tools_grammar::keys::normalize_agent_id(&id)
    }

    fn decide(config: String, caller: wit_guard::CallerIdentity) -> Result<wit_guard::Access, String> {
        let config: serde_json::Value = serde_json::from_str(&config).map_err(|e| format!("the deployment config is not JSON: {e}"))?;
        let caller = CallerIdentity {
            agent_session_key: caller.agent_session_key,
            sandboxed: caller.sandboxed,
            requester_agent_id_override: caller.requester_agent_id_override,
        };
        let access = access::decide(&config, &caller);
        Ok(wit_guard::Access {
            agent: access.agent,
            restriction: access.restriction.map(|r| wit_guard::Restriction {
                own_key: r.own,
                spawned_only: r.spawned_only,
                scope: match r.scope {
                    Scope::All => wit_guard::VisibilityScope::All,
                    Scope::SelfOnly => wit_guard::VisibilityScope::SelfOnly,
                    Scope::Tree => wit_guard::VisibilityScope::Tree,
                    Scope::Agent => wit_guard::VisibilityScope::Agent,
                },
                spawn_any: r.spawn_any,
                spawn_agents: r.spawn_agents,
            }),
        })
    }
}

fn wit_limits(l: &session_tools_deployment::limits::Limits) -> wit_deployment::Limits {
    let v = l.values();
    wit_deployment::Limits {
        memory_bytes: v.memory_bytes,
        cpu_ms: v.cpu_ms,
        wall_ms: v.wall_ms,
        gateway_ms: v.gateway_ms,
        max_wait_ms: v.max_wait_ms,
        max_argument_bytes: v.max_argument_bytes,
        max_result_bytes: v.max_result_bytes,
        max_gateway_answer_bytes: v.max_gateway_answer_bytes,
        max_log_bytes: v.max_log_bytes,
        max_gateway_calls: v.max_gateway_calls,
        table_elements: v.table_elements,
        max_jobs_per_call: v.max_jobs_per_call,
        max_steps_per_job: v.max_steps_per_job,
        max_pending_jobs: v.max_pending_jobs,
    }
}

impl wit_deployment::Guest for Component {
    fn agent_limits_of(text: String, origin: String) -> Result<wit_deployment::AgentLimits, String> {
        use session_tools_deployment::limits::{AgentLimits, Limits};
        let limits = AgentLimits::from_json(&Limits::default(), &text, &origin)?;
        let agents = limits.agents.iter().map(|(id, l)| (id.clone(), wit_limits(l))).collect();
        Ok(wit_deployment::AgentLimits { defaults: wit_limits(&limits.default), agents })
    }

    fn guest_config(config: String) -> Result<String, String> {
        let config: serde_json::Value = serde_json::from_str(&config).map_err(|e| format!("the deployment config is not JSON: {e}"))?;
        Ok(session_tools_deployment::guest_config::of(&config).to_string())
    }
}

impl out::Guest for Component {
    fn sessions_list(params: types::ListParams) -> Result<types::SessionList, types::GatewayError> {
        with_guard(|g| g.sessions_list(&FromWit::from_wit(params))).map(IntoWit::into_wit)
    }
    fn sessions_resolve(params: types::ResolveParams) -> Result<String, types::GatewayError> {
        with_guard(|g| g.sessions_resolve(&FromWit::from_wit(params)))
    }
    fn chat_history(params: types::HistoryParams) -> Result<types::History, types::GatewayError> {
        with_guard(|g| g.chat_history(&FromWit::from_wit(params))).map(IntoWit::into_wit)
    }
    fn chat_histories(params: Vec<types::HistoryParams>) -> Vec<Result<types::History, types::GatewayError>> {
        let params: Vec<contract::HistoryParams> = params.into_iter().map(FromWit::from_wit).collect();
        let n = params.len();
        match with_guard(|g| Ok(g.chat_histories(&params))) {
            Ok(answers) => answers.into_iter().map(|a| a.map(IntoWit::into_wit).map_err(IntoWit::into_wit)).collect(),
            Err(e) => (0..n).map(|_| Err(e.clone())).collect(),
        }
    }
    fn agent(params: types::AgentParams) -> Result<types::AgentAccepted, types::GatewayError> {
        with_guard(|g| g.agent(&FromWit::from_wit(params))).map(IntoWit::into_wit)
    }
    fn agent_wait(params: types::WaitParams) -> Result<types::WaitResult, types::GatewayError> {
        with_guard(|g| g.agent_wait(&FromWit::from_wit(params))).map(IntoWit::into_wit)
    }
    fn send(params: types::SendParams) -> Result<(), types::GatewayError> {
        with_guard(|g| g.send(&FromWit::from_wit(params)))
    }
    fn sessions_patch(params: types::PatchParams) -> Result<(), types::GatewayError> {
        with_guard(|g| g.sessions_patch(&FromWit::from_wit(params)))
    }
    fn sessions_delete(params: types::DeleteParams) -> Result<(), types::GatewayError> {
        with_guard(|g| g.sessions_delete(&FromWit::from_wit(params)))
    }
}

export!(Component);
