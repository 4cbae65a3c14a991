//! The instance broker: an idle instance of the caller's pool, or a new one of its agent.
//! Instances are never shared between agents, nor between a restricted caller and anyone
//! who may see more (see `access.rs`); how many are kept idle is bounded, and when the
//! engine's slots run out, idle instances of other pools give theirs up.

use std::sync::{Arc, Mutex};

use super::access::Access;
use crate::config::GuestConfig;
use crate::engine::EngineOptions;
use crate::gateway::{Gateway, SessionTree};
use crate::limits::AgentLimits;
use crate::sandbox::pool::IdlePool;
use crate::sandbox::{AgentSetup, CallError, Runtime, Sandbox, Services};

pub(crate) struct Broker {
    runtime: Arc<Runtime>,
    idle: Mutex<IdlePool>,
    /// What every new instance is given (its gateway is set per call).
    gateway: Arc<dyn Gateway>,
    /// What the guard of a restricted caller's instance asks about the spawn tree.
    tree: Arc<dyn SessionTree>,
    services: Arc<dyn Services>,
    config: GuestConfig,
    state_dir: String,
    limits: AgentLimits,
}

/// How many idle instances a service keeps: with a pooling engine, three quarters of its
/// slots, so calls and jobs in flight always find one free.
fn max_idle(engine: &EngineOptions) -> usize {
    if engine.pooling {
        (engine.pool_instances as usize * 3 / 4).max(1)
    } else {
        4_096
    }
}

impl Broker {
    #[allow(clippy::too_many_arguments)] // one of each thing an instance is given
    pub fn new(
        runtime: Arc<Runtime>,
        engine: &EngineOptions,
        gateway: Arc<dyn Gateway>,
        tree: Arc<dyn SessionTree>,
        services: Arc<dyn Services>,
        config: GuestConfig,
        state_dir: String,
        limits: AgentLimits,
    ) -> Broker {
        Broker { runtime, idle: Mutex::new(IdlePool::new(max_idle(engine))), gateway, tree, services, config, state_dir, limits }
    }

    pub fn limits(&self) -> &AgentLimits {
        &self.limits
    }

    /// What an instance of `agent` is given.
    pub fn setup(&self, agent: &str) -> AgentSetup {
        AgentSetup {
            name: agent.to_string(),
            gateway: self.gateway.clone(),
            services: self.services.clone(),
            config: self.config.clone(),
            state_dir: self.state_dir.clone(),
            limits: self.limits.for_agent(agent).clone(),
        }
    }

    /// An idle instance of the caller's pool, or a new instance of its agent: for a
    /// restricted caller, the tools behind the N15 guard.
    pub fn checkout(&self, access: &Access) -> Result<Sandbox, CallError> {
        let guarded = access.restriction.is_some();
        if let Some(sandbox) = self.idle_pool().take(&access.pool) {
            // Pools are per restriction, so this holds; were it not, the instance is dropped
            // rather than serve a caller it was not made for.
            if sandbox.is_guarded() == guarded {
                return Ok(sandbox);
            }
        }
        let setup = self.setup(&access.agent);
        loop {
            let made = if guarded { self.runtime.instantiate_guarded(&setup, self.tree.clone()) } else { self.runtime.instantiate(&setup) };
            match made {
                Ok(sandbox) => return Ok(sandbox),
                Err(e) => {
                    // Dropped outside the lock: freeing a slot costs a little.
                    let evicted = self.idle_pool().evict_oldest();
                    match evicted {
                        Some(idle) => drop(idle),
                        None => return Err(e),
                    }
                }
            }
        }
    }

    /// Returns an instance to its pool, unless it broke.
    pub fn checkin(&self, pool: &str, sandbox: Sandbox) {
        if !sandbox.is_broken() {
            let evicted = self.idle_pool().put(pool, sandbox);
            drop(evicted);
        }
    }

    /// The idle pool; after a panic under its lock, the instances it kept are dropped
    /// (new ones are made on demand), its bounds stay.
    fn idle_pool(&self) -> std::sync::MutexGuard<'_, IdlePool> {
        crate::poison::lock_or(&self.idle, IdlePool::emptied)
    }

    /// How many idle instances are kept.
    pub fn idle(&self) -> usize {
        self.idle_pool().len()
    }
}
