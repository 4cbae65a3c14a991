//! The `session-guard` component: the WIT imports (the host's gateway, tree and audit)
//! bound to the contract's ports, and the guard exported as the `gateway` the tools
//! import, with its set-up (`guard`); beside it, the `deployment` and `host-rules` crates'
//! rules for a host that asks (`deployment`, `job-rules`). Nothing but binding lives here.

use std::cell::RefCell;
use std::collections::BTreeSet;

use session_tools_contract::wit::{FromWit, IntoWit};
use session_tools_contract::{self as contract, Gateway as _, GatewayResult};
use session_tools_grammar::keys::KeyRules;

use crate::access::{self, CallerIdentity, Restriction, Scope};
use crate::guarded::{Audit, Guarded, Tree};

wit_bindgen::generate!({
    path: "../wit",
    world: "session-guard",
});

session_tools_contract::wit_records!(crate::component::openclaw::session_tools::types);

use exports::openclaw::session_tools::deployment as wit_deployment;
use exports::openclaw::session_tools::gateway as out;
use exports::openclaw::session_tools::guard as wit_guard;
use exports::openclaw::session_tools::job_rules as wit_rules;
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
        let rules = KeyRules::from_config(&config);
        let pool = access.pool(|key| rules.canonical(key));
        Ok(wit_guard::Access {
            pool,
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

    fn local_gateway(config: String, env: Vec<(String, String)>) -> Result<wit_deployment::GatewayEndpoint, String> {
        use session_tools_deployment::local_gateway::{find, Secret};
        let config: serde_json::Value = serde_json::from_str(&config).map_err(|e| format!("the deployment config is not JSON: {e}"))?;
        let found = find(&config, &|name| env.iter().find(|(n, _)| n == name).map(|(_, v)| v.clone())).map_err(|e| e.to_string())?;
        let (token, password) = match found.secret {
            Some(Secret::Token(token)) => (Some(token), None),
            Some(Secret::Password(password)) => (None, Some(password)),
            None => (None, None),
        };
        Ok(wit_deployment::GatewayEndpoint { url: found.url, token, password })
    }

    fn cap_module(module: Vec<u8>, memory_bytes: u64, table_elements: u32) -> Result<wit_deployment::CappedModule, String> {
        let capped = session_tools_deployment::module_caps::cap_module(&module, memory_bytes, table_elements)?;
        let extents = |list: Vec<session_tools_deployment::module_caps::Extent>| {
            list.into_iter().map(|e| wit_deployment::Extent { min: e.min, max: e.max }).collect()
        };
        Ok(wit_deployment::CappedModule { bytes: capped.bytes, memories: extents(capped.memories), tables: extents(capped.tables) })
    }
}

impl wit_rules::Guest for Component {
    fn describe_call_error(error: wit_rules::CallError) -> wit_rules::CallFailure {
        use session_tools_contract::ToolError;
        use session_tools_host_rules::CallError;
        use wit_rules::CallError as W;
        let error = match error {
            W::UnknownTool(name) => CallError::Tool(ToolError::UnknownTool(name)),
            W::InvalidArguments(m) => CallError::Tool(ToolError::InvalidArguments(m)),
            W::Failed(m) => CallError::Tool(ToolError::Failed(m)),
            W::NotConfigured => CallError::Tool(ToolError::NotConfigured),
            W::TooLarge((what, size, limit)) => CallError::TooLarge {
                what: match what {
                    wit_rules::Oversized::ToolArguments => "tool arguments",
                    wit_rules::Oversized::ToolResult => "tool result",
                },
                size: usize::try_from(size).unwrap_or(usize::MAX),
                limit: usize::try_from(limit).unwrap_or(usize::MAX),
            },
            W::CpuLimit(budget_ms) => CallError::CpuLimit { budget_ms: budget_ms.into() },
            W::WallLimit(budget_ms) => CallError::WallLimit { budget_ms: budget_ms.into() },
            W::MemoryLimit(limit) => CallError::MemoryLimit { limit: usize::try_from(limit).unwrap_or(usize::MAX) },
            W::Trap(m) => CallError::Trap(m),
            W::BadAnswer(m) => CallError::BadAnswer(m),
            W::Setup(m) => CallError::Setup(m),
            W::HostFault(m) => CallError::HostFault(m),
        };
        wit_rules::CallFailure { kind: error.kind().to_string(), message: error.to_string(), discards_instance: error.discards_instance() }
    }

    fn valid_key(key: String) -> bool {
        session_tools_host_rules::keys::valid_key(&key)
    }

    fn writes() -> Vec<String> {
        session_tools_host_rules::intent::WRITES.iter().map(|m| m.to_string()).collect()
    }

    fn seeded_id(parts: Vec<String>, n: u64) -> String {
        use session_tools_host_rules::seeded;
        seeded::nth_id(&seeded::seed_of(&parts), n)
    }

    fn call_seed(id: String) -> Vec<String> {
        session_tools_host_rules::seeded::call_seed(&id)
    }

    fn step_seed(key: String, steps: u32) -> Vec<String> {
        session_tools_host_rules::seeded::step_seed(&key, steps)
    }

    fn read_job(key: String, text: String) -> Result<String, String> {
        let record = JobRecord::read(&key, text.as_bytes())?;
        Ok(record_json(&record))
    }

    fn job_json(job: types::Job) -> String {
        JobRecord::job_to_json(FromWit::from_wit(job)).to_string()
    }

    fn job_of(json: String) -> Result<types::Job, String> {
        let value: serde_json::Value = serde_json::from_str(&json).map_err(|e| format!("the job is not JSON: {e}"))?;
        JobRecord::job_from_json(&value).map(IntoWit::into_wit)
    }

    fn keep_call(
        bounds: wit_rules::Bounds,
        agent: String,
        caller: String,
        jobs: String,
        call: String,
        recorded: bool,
        now_ms: u64,
        pending: u32,
    ) -> Result<wit_rules::Kept, String> {
        let caller = serde_json::from_str(&caller).map_err(|e| format!("the caller is not a caller context: {e}"))?;
        let kept = keeping::keep_call(bounds_of(bounds), &agent, &caller, jobs_of(&jobs)?, &call, recorded, now_ms, || pending as usize);
        Ok(wit_kept(kept))
    }

    fn keep_step(
        bounds: wit_rules::Bounds,
        key: String,
        parent: String,
        jobs: String,
        now_ms: u64,
        pending: u32,
    ) -> Result<wit_rules::Kept, String> {
        let parent = JobRecord::read(&key, parent.as_bytes())?;
        Ok(wit_kept(keeping::keep_step(bounds_of(bounds), &parent, jobs_of(&jobs)?, now_ms, || pending as usize)))
    }

    fn wait_bound(requested_ms: u64, max_wait_ms: u64, left_ms: Option<u64>) -> u64 {
        keeping::wait_bound(requested_ms, max_wait_ms, left_ms)
    }

    fn look_at_jobs(files: Vec<(String, String)>, intents: Vec<String>, now_ms: u64) -> wit_rules::JobsLook {
        let kept: std::collections::BTreeSet<String> = intents.into_iter().collect();
        let look = session_tools_host_rules::pending::look(files, |call| kept.contains(call), now_ms);
        wit_rules::JobsLook {
            pending: look.pending.iter().map(record_json).collect(),
            due: look.due.into_iter().map(|i| u32::try_from(i).unwrap_or(u32::MAX)).collect(),
            next_at: look.next_at,
            unreadable: look.unreadable,
        }
    }

    fn wakeup_of(wake: String, now_ms: u64, max_wait_ms: u64, left_ms: Option<u64>) -> Result<wit_rules::WakeupPlan, String> {
        use session_tools_host_rules::pending::{wakeup_plan, WakeupPlan};
        let wake = serde_json::from_str(&wake).map_err(|e| format!("not a kept job's wake: {e}"))?;
        Ok(match wakeup_plan(&wake, now_ms, max_wait_ms, left_ms) {
            WakeupPlan::Now => wit_rules::WakeupPlan::Now,
            WakeupPlan::Timer => wit_rules::WakeupPlan::Timer,
            WakeupPlan::NotYet => wit_rules::WakeupPlan::NotYet,
            WakeupPlan::Wait { timeout_ms, by_deadline, .. } => wit_rules::WakeupPlan::Wait((timeout_ms, by_deadline)),
        })
    }

    fn gateway_call_refused(
        calls: u32,
        max_calls: u32,
        out_of_time: bool,
        gateway_time_spent: bool,
        gateway_budget_s: u64,
    ) -> Option<types::GatewayError> {
        session_tools_host_rules::metering::gateway_call_refused(calls, max_calls, out_of_time, gateway_time_spent, gateway_budget_s)
            .map(|refusal| refusal.error().into_wit())
    }

    fn new_intent(id: String, agent: String, caller: String, tool: String, arguments: String) -> Result<String, String> {
        let caller = serde_json::from_str(&caller).map_err(|e| format!("the caller is not a caller context: {e}"))?;
        Ok(text(CallIntent::new(id, &agent, &caller, &tool, &arguments).to_file()))
    }

    fn read_intent(id: String, text: String) -> Option<String> {
        CallIntent::read(&id, text.as_bytes()).and_then(|intent| serde_json::to_string(&intent).ok())
    }

    fn replayed_intent(intent: String) -> Result<String, String> {
        let intent: CallIntent = serde_json::from_str(&intent).map_err(|e| format!("not a call intent: {e}"))?;
        intent.replayed().map(|again| text(again.to_file()))
    }

    fn holder_of_lock(owner: String, judge: String) -> wit_rules::LockHolder {
        use session_tools_host_rules::lock_holder::{holder, Holder};
        // An identity that cannot be read judges no holder dead.
        let judge = serde_json::from_str(&judge).unwrap_or_default();
        match holder(&owner, &judge) {
            Holder::Gone => wit_rules::LockHolder::Gone,
            Holder::Alive => wit_rules::LockHolder::Alive,
            Holder::GoneUnlessStarted { pid, started } => wit_rules::LockHolder::GoneUnlessStarted((pid, started)),
            Holder::GoneUnlessExists(pid) => wit_rules::LockHolder::GoneUnlessExists(pid),
        }
    }
}

use session_tools_host_rules::intent::CallIntent;
use session_tools_host_rules::keeping;
use session_tools_host_rules::record::JobRecord;

/// A record's JSON as a host without the contract's types holds it: its file's fields, and
/// its key.
fn record_json(record: &JobRecord) -> String {
    let mut value = serde_json::to_value(record).unwrap_or_default();
    value["key"] = serde_json::Value::String(record.key.clone());
    value.to_string()
}

fn text(bytes: Vec<u8>) -> String {
    String::from_utf8(bytes).unwrap_or_default()
}

fn bounds_of(b: wit_rules::Bounds) -> keeping::Bounds {
    keeping::Bounds {
        max_jobs_per_call: b.max_jobs_per_call,
        max_steps_per_job: b.max_steps_per_job,
        max_pending_jobs: b.max_pending_jobs,
        max_wait_ms: b.max_wait_ms,
    }
}

fn jobs_of(jobs: &str) -> Result<Vec<session_tools_contract::Job>, String> {
    let value: serde_json::Value = serde_json::from_str(jobs).map_err(|e| format!("the jobs are not JSON: {e}"))?;
    value.as_array().ok_or("the jobs are not a list")?.iter().map(JobRecord::job_from_json).collect()
}

fn wit_kept(kept: keeping::Kept) -> wit_rules::Kept {
    wit_rules::Kept {
        saves: kept
            .saves
            .into_iter()
            .map(|(record, only_if_new)| wit_rules::KeptJob { key: record.key.clone(), text: text(record.to_file()), only_if_new })
            .collect(),
        ends: kept.ends,
        refused: kept.refused.into_iter().map(|r| wit_rules::Refusal { limit: r.limit.to_string(), message: r.message }).collect(),
    }
}

session_tools_contract::wit_gateway_export!(Component, out: out, types: types, with: with_guard);

export!(Component);
