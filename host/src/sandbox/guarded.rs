//! The guarded composition: the N15 guard component composed in front of the
//! tools, what a restricted caller is served by. The built-in component comes composed
//! from the build; a component given at run time is composed here the same way, with the
//! same function. Compiled at the first restricted caller, so a process that never has one
//! never pays for it.
//!
//! The guard has its own instance memory inside the composition and is told who the
//! caller is before every call (`guard.configure`), which also forgets what it learned in
//! the call before: a guarded instance is kept for one restricted caller only (its pool),
//! and each call starts from what the gateway says now, as a guard made per call would.

use std::collections::HashSet;
use std::sync::Arc;

use session_tools_contract as ports;
use session_tools_grammar::keys::KeyRules;
use session_tools_guard::access::{Restriction, Scope};
use session_tools_guard::guarded::Audit as _;
use wasmtime::component::{InstancePre, Linker};
use wasmtime::Engine;

use super::store::StoreState;
use crate::bindings::guard::{wit_audit, wit_guard, wit_tree};
use crate::bindings::{self, wit_gw, SessionToolsIndices};
use crate::engine::{load_component_cached, EngineOptions};
use crate::gateway::SessionTree;

include!("../../build-support/compose.rs");

#[cfg(test)]
pub(crate) mod tests;

/// The guard component, built beside the tools.
pub(crate) static GUARD_COMPONENT: &[u8] = include_bytes!(env!("SESSION_TOOLS_GUARD_COMPONENT"));

/// The built-in tools behind the guard, composed at build time.
static GUARDED_COMPONENT: &[u8] = include_bytes!(env!("SESSION_TOOLS_GUARDED_COMPONENT"));

/// The guarded composition of `tools`: the build's for the built-in component, else
/// composed now.
pub(crate) fn guarded_bytes(tools: &[u8]) -> Result<std::borrow::Cow<'static, [u8]>, String> {
    if tools == crate::COMPONENT {
        return Ok(GUARDED_COMPONENT.into());
    }
    compose_guarded(GUARD_COMPONENT, tools).map(Into::into)
}

/// The compiled composition, ready to instantiate.
pub(super) struct GuardedPre {
    pub(super) pre: InstancePre<StoreState>,
    pub(super) tools: SessionToolsIndices,
    pub(super) guard: wit_guard::GuestIndices,
}

impl GuardedPre {
    pub(super) fn new(engine: &Engine, linker: &Linker<StoreState>, tools: &[u8], options: &EngineOptions) -> anyhow::Result<GuardedPre> {
        let bytes = guarded_bytes(tools).map_err(anyhow::Error::msg)?;
        let (component, _cache) = load_component_cached(engine, &bytes, options.cache_dir.as_deref())?;
        let pre = linker.instantiate_pre(&component)?;
        let tools = SessionToolsIndices::new(&pre)?;
        let guard = wit_guard::GuestIndices::new(&pre)?;
        Ok(GuardedPre { pre, tools, guard })
    }
}

/// What the guard is told about a restricted caller.
pub(crate) fn wit_restriction(rules: &KeyRules, restriction: &Restriction) -> (wit_guard::KeyRules, wit_guard::Restriction) {
    let rules = wit_guard::KeyRules {
        main_key: rules.main_key.clone(),
        scope_global: rules.scope_global,
        default_agent: rules.default_agent.clone(),
    };
    let restriction = wit_guard::Restriction {
        own_key: restriction.own.clone(),
        spawned_only: restriction.spawned_only,
        scope: match restriction.scope {
            Scope::All => wit_guard::VisibilityScope::All,
            Scope::SelfOnly => wit_guard::VisibilityScope::SelfOnly,
            Scope::Tree => wit_guard::VisibilityScope::Tree,
            Scope::Agent => wit_guard::VisibilityScope::Agent,
        },
        spawn_any: restriction.spawn_any,
        spawn_agents: restriction.spawn_agents.clone(),
    };
    (rules, restriction)
}

type Answer<T> = wasmtime::Result<Result<T, wit_gw::GatewayError>>;

/// The spawn tree the guard imports: metered like the gateway (each query is a gateway
/// call of the caller's), and refused outright to an instance given no tree.
impl wit_tree::Host for StoreState {
    fn spawned_trees(&mut self, roots: Vec<String>) -> Answer<Vec<String>> {
        self.import("tree.spawned-trees", |s| {
            let roots: HashSet<String> = roots.into_iter().collect();
            let keys = s.tree_call(|tree| tree.spawned_trees(&roots)).map_err(bindings::gw_err)?;
            let size = session_tools_host_rules::metering::keys_size(&keys);
            s.bounded("tree.spawned-trees", size, keys.into_iter().collect())
        })
    }

    fn rows_of(&mut self, keys: Vec<String>) -> Answer<Vec<wit_gw::SessionRow>> {
        self.import("tree.rows-of", |s| {
            let keys: HashSet<String> = keys.into_iter().collect();
            let rows = s.tree_call(|tree| tree.rows_of(&keys)).map_err(bindings::gw_err)?;
            let size = rows.iter().map(session_tools_host_rules::metering::row_size).sum();
            s.bounded("tree.rows-of", size, rows).map(|rows| rows.into_iter().map(bindings::session_row).collect())
        })
    }

    fn exists(&mut self, key: String) -> Answer<bool> {
        self.import("tree.exists", |s| s.tree_call(|tree| tree.exists(&key)).map_err(bindings::gw_err))
    }

    fn run_session(&mut self, run_id: String) -> wasmtime::Result<Option<String>> {
        self.import("tree.run-session", |s| s.tree_call(|tree| Ok(tree.run_session(&run_id))).ok().flatten())
    }
}

impl StoreState {
    /// A query of the spawn tree, counted and timed as a gateway call.
    fn tree_call<T>(&mut self, query: impl FnOnce(&dyn SessionTree) -> ports::GatewayResult<T>) -> ports::GatewayResult<T> {
        let Some(tree) = self.tree().cloned() else {
            // Fail closed: only a guarded instance is given a tree.
            return Err(ports::GatewayError::of(ports::ErrorKind::Forbidden, "forbidden: this instance has no spawn tree"));
        };
        self.gateway_call(|_| query(tree.as_ref()))
    }
}

/// The guard's refusals: a log line of the host's own, outside the guest's log budget.
impl wit_audit::Host for StoreState {
    fn refused(&mut self, method: String, what: String, caller_session: String) -> wasmtime::Result<()> {
        self.import("audit.refused", |s| NativeAudit(s.services.clone()).refused(&method, &what, &caller_session))
    }
}

/// Where the host reports a refused call (N15), from the guard component or the guard's
/// rules run natively: the one format of the line.
pub(crate) struct NativeAudit(pub Arc<dyn super::Services>);

impl session_tools_guard::guarded::Audit for NativeAudit {
    fn refused(&self, method: &str, what: &str, own: &str) {
        crate::telemetry::n15_refusal(own, method);
        self.0.log(ports::LogLevel::Warn, &format!("N15: refused {method}: {what} for sandboxed session {own}"));
    }
}

/// The host's tree, as the guard's rules take it natively (the job runner's own waits).
pub(crate) struct NativeTree(pub Arc<dyn SessionTree>);

impl session_tools_guard::guarded::Tree for NativeTree {
    fn spawned_trees(&self, roots: &std::collections::BTreeSet<String>) -> ports::GatewayResult<std::collections::BTreeSet<String>> {
        let roots: HashSet<String> = roots.iter().cloned().collect();
        self.0.spawned_trees(&roots).map(|keys| keys.into_iter().collect())
    }
    fn rows_of(&self, keys: &std::collections::BTreeSet<String>) -> ports::GatewayResult<Vec<ports::SessionRow>> {
        let keys: HashSet<String> = keys.iter().cloned().collect();
        self.0.rows_of(&keys)
    }
    fn exists(&self, key: &str) -> ports::GatewayResult<bool> {
        self.0.exists(key)
    }
    fn run_session(&self, run_id: &str) -> Option<String> {
        self.0.run_session(run_id)
    }
}
