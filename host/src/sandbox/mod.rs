//! One agent's sandboxed instance of the component.
//!
//! The guest gets no files, sockets, environment, clocks or randomness (N16): its imports
//! are the project's `gateway` and `host` interfaces plus the few WASI interfaces that
//! `wasm32-wasip2` std links, answered by the host's own `crate::wasi`, and those grant
//! nothing (empty environment, closed stdin, stdout and stderr captured into the host's
//! log, bounded). Every call runs under a CPU
//! budget and a memory cap; a guest that breaks a limit or traps gets a clear error and
//! its instance is discarded.

mod cancel;
mod guarded;
#[cfg(test)]
pub(crate) use guarded::tests::world_names;
mod imports;
mod output;
pub(crate) mod pool;
mod store;

use std::fmt;
use std::sync::{Arc, OnceLock};

use session_tools_contract::policy::{Decision, PolicyInput, SendCommand};
use session_tools_contract::wit::{FromWit, IntoWit};
use session_tools_contract::LogLevel;
use session_tools_contract::{Caller, Job, ToolError, ToolOutput, Wakeup};
use wasmtime::component::Linker;
use wasmtime::{Engine, Store, UpdateDeadline};

use crate::bindings::guard::wit_guard;
use crate::bindings::{self, wit_tools, SessionTools, SessionToolsPre};
pub use crate::call_error::CallError;
use crate::config::GuestConfig;
use crate::engine::{build_engine, load_component_cached, CacheOutcome, EngineOptions, EpochTicker};
use crate::gateway::{Gateway, SessionTree};
use crate::limits::Limits;
pub use cancel::CallCancel;
pub(crate) use guarded::{guarded_bytes, NativeAudit, NativeTree, GUARD_COMPONENT};
use guarded::{wit_restriction, GuardedPre};
use session_tools_grammar::keys::KeyRules;
use session_tools_guard::access::Restriction;
pub use store::Services;
pub use store::StoreState;

/// A tool description as the component gives it.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ToolDescription {
    /// The tool's name (`sessions_list`, …).
    pub name: String,
    /// A short human label.
    pub label: String,
    /// A title for people, one per tool.
    pub title: String,
    /// What the tool does, for a model.
    pub description: String,
    /// The JSON schema of the arguments.
    pub parameters: String,
    /// The JSON schema (2020-12) every result of the tool satisfies, refusals included.
    pub result_schema: String,
    /// What a call does to the world around it.
    pub hints: ToolHints,
}

/// What a tool's call does to the world around it, as the component describes it: hints
/// for a client deciding whether to ask its user first (MCP's tool annotations).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct ToolHints {
    /// It only reads.
    pub read_only: bool,
    /// It may delete or overwrite, not only add (meaningless when `read_only`).
    pub destructive: bool,
    /// A second call with the same arguments changes nothing more.
    pub idempotent: bool,
    /// It reaches beyond the gateway's sessions (agents' runs, chat channels).
    pub open_world: bool,
}

/// The compiled component and everything needed to make instances of it, shared by all
/// agents of a process.
pub struct Runtime {
    engine: Engine,
    linker: Linker<StoreState>,
    pre: SessionToolsPre<StoreState>,
    /// The tools component, for its guarded composition.
    component: Arc<[u8]>,
    options: EngineOptions,
    /// The guarded composition, compiled at the first restricted caller.
    guarded: OnceLock<Result<GuardedPre, String>>,
    cache: CacheOutcome,
    _ticker: EpochTicker,
}

/// What an agent's instance is given ([`AgentSetup::new`]).
#[derive(Clone)]
#[non_exhaustive]
pub struct AgentSetup {
    /// A name for logs (usually the agent id).
    pub name: String,
    /// The gateway the instance's calls reach.
    pub gateway: Arc<dyn Gateway>,
    /// The clock, ids and log the instance is given.
    pub services: Arc<dyn Services>,
    /// The deployment config, as much of it as the component reads (N16).
    pub config: GuestConfig,
    /// The state directory, as the component is told it (for paths it reports).
    pub state_dir: String,
    /// What the instance may use.
    pub limits: Limits,
}

impl AgentSetup {
    /// An instance's set-up: a name for logs, its gateway and services, the config it
    /// reads, the state directory it reports, and its limits.
    pub fn new(
        name: impl Into<String>,
        gateway: Arc<dyn Gateway>,
        services: Arc<dyn Services>,
        config: GuestConfig,
        state_dir: impl Into<String>,
        limits: Limits,
    ) -> AgentSetup {
        AgentSetup { name: name.into(), gateway, services, config, state_dir: state_dir.into(), limits }
    }
}

fn link(linker: &mut Linker<StoreState>) -> anyhow::Result<()> {
    use wasmtime::component::HasSelf;

    SessionTools::add_to_linker::<StoreState, HasSelf<StoreState>>(linker, |s| s)?;
    // The guarded composition's imports beyond the tools' (the guard's spawn tree, audit).
    bindings::guard::wit_tree::add_to_linker::<StoreState, HasSelf<StoreState>>(linker, |s| s)?;
    bindings::guard::wit_audit::add_to_linker::<StoreState, HasSelf<StoreState>>(linker, |s| s)?;
    // Only what std's runtime imports; see the module docs.
    link_wasi(linker)?;
    Ok(())
}

/// The sandbox's WASI (`crate::wasi`, without `insecure-seed`) into `linker`.
pub fn link_wasi(linker: &mut Linker<StoreState>) -> wasmtime::Result<()> {
    crate::wasi::add_to_linker(linker, |s| &mut s.wasi)
}

impl Runtime {
    /// Compiles (or loads from the cache) a component and prepares its instantiation.
    pub fn new(component: &[u8], options: &EngineOptions, limits: &Limits) -> crate::Result<Runtime> {
        let prepared = (|| -> anyhow::Result<(Engine, Linker<StoreState>, SessionToolsPre<StoreState>, CacheOutcome)> {
            let engine = build_engine(options, limits)?;
            let (compiled, cache) = load_component_cached(&engine, component, options.cache_dir.as_deref())?;
            let mut linker = Linker::new(&engine);
            link(&mut linker)?;
            let pre = SessionToolsPre::new(linker.instantiate_pre(&compiled)?)?;
            Ok((engine, linker, pre, cache))
        })();
        let (engine, linker, pre, cache) = prepared.map_err(|e| crate::Error::Component(e.into()))?;
        let ticker = EpochTicker::start(&engine);
        Ok(Runtime {
            engine,
            linker,
            pre,
            component: component.into(),
            options: options.clone(),
            guarded: OnceLock::new(),
            cache,
            _ticker: ticker,
        })
    }

    /// The guarded composition, compiled (or loaded from the cache) the first time.
    fn guarded(&self) -> Result<&GuardedPre, CallError> {
        self.guarded
            .get_or_init(|| GuardedPre::new(&self.engine, &self.linker, &self.component, &self.options).map_err(|e| format!("{e:#}")))
            .as_ref()
            .map_err(|e| CallError::Setup(format!("the guarded component: {e}")))
    }

    /// The wasmtime engine the component is compiled for: for the project's benchmark and
    /// tests, not part of the stable API (it would tie the library's semver to wasmtime's).
    #[doc(hidden)]
    pub fn engine(&self) -> &Engine {
        &self.engine
    }

    /// What the compiled-component cache did when this runtime was made; its
    /// [`notice`](CacheOutcome::notice) is for the caller to log (the service logs it).
    pub fn cache_outcome(&self) -> &CacheOutcome {
        &self.cache
    }

    /// A store for one instance of an agent, metered.
    fn store(&self, setup: &AgentSetup) -> Store<StoreState> {
        let state = StoreState::new(setup);
        let mut store = Store::new(&self.engine, state);
        store.limiter(|s| &mut s.limiter);
        store.epoch_deadline_callback(|mut ctx| {
            let meter = &mut ctx.data_mut().meter;
            if meter.over_budget() {
                meter.exceeded = true;
                Ok(UpdateDeadline::Interrupt)
            } else if meter.over_wall() {
                meter.wall_exceeded = true;
                Ok(UpdateDeadline::Interrupt)
            } else {
                Ok(UpdateDeadline::Continue(1))
            }
        });
        store.set_epoch_deadline(1);
        store
    }

    /// Makes a fresh instance for an agent, without configuring it.
    pub fn instantiate_bare(&self, setup: &AgentSetup) -> Result<Sandbox, CallError> {
        let mut store = self.store(setup);
        store.data_mut().meter.start();
        let tools = self.pre.instantiate(&mut store);
        store.data_mut().meter.stop();
        let tools = tools.map_err(|e| classify(store.data(), e, format_args!("instantiating")))?;
        Ok(Sandbox { store, tools, guard: None, broken: None, limits: setup.limits.clone() })
    }

    /// Makes a fresh, configured instance of the tools behind the N15 guard, for
    /// a restricted caller: the guard asks `tree` what the caller's sessions are, and lets
    /// nothing through until it is told who the caller is ([`Sandbox::restrict`]).
    pub(crate) fn instantiate_guarded(&self, setup: &AgentSetup, tree: Arc<dyn SessionTree>) -> Result<Sandbox, CallError> {
        let guarded = self.guarded()?;
        let mut store = self.store(setup);
        store.data_mut().set_tree(tree);
        store.data_mut().meter.start();
        let instance = guarded.pre.instantiate(&mut store).and_then(|instance| {
            let tools = guarded.tools.load(&mut store, &instance)?;
            let guard = guarded.guard.load(&mut store, &instance)?;
            Ok((tools, guard))
        });
        store.data_mut().meter.stop();
        let (tools, guard) = instance.map_err(|e| classify(store.data(), e, format_args!("instantiating the guarded tools")))?;
        let mut sandbox = Sandbox { store, tools, guard: Some(guard), broken: None, limits: setup.limits.clone() };
        sandbox.configure(&setup.config, &setup.state_dir)?;
        Ok(sandbox)
    }

    /// Makes a fresh, configured instance for an agent.
    pub fn instantiate(&self, setup: &AgentSetup) -> Result<Sandbox, CallError> {
        let mut sandbox = self.instantiate_bare(setup)?;
        sandbox.configure(&setup.config, &setup.state_dir)?;
        Ok(sandbox)
    }
}

/// Turns a wasmtime error into what the caller is told, from what the store saw.
fn classify(state: &StoreState, error: wasmtime::Error, doing: fmt::Arguments<'_>) -> CallError {
    if let Some(fault) = &state.host_fault {
        return CallError::HostFault(format!("{fault} (while {doing})"));
    }
    if state.meter.exceeded {
        return CallError::CpuLimit { budget_ms: state.meter.budget.as_millis() };
    }
    if state.meter.wall_exceeded {
        return CallError::WallLimit { budget_ms: state.meter.wall_budget.as_millis() };
    }
    if state.limiter.memory_exceeded {
        return CallError::MemoryLimit { limit: state.limiter.memory_limit };
    }
    let trap = error.downcast_ref::<wasmtime::Trap>().map(|t| t.to_string());
    let message = match trap {
        Some(trap) => format!("{trap} (while {doing})"),
        None => format!("{error:#} (while {doing})"),
    };
    CallError::Trap(message)
}

/// One agent's instance.
pub struct Sandbox {
    store: Store<StoreState>,
    tools: SessionTools,
    /// The guard's set-up, in a guarded instance.
    guard: Option<wit_guard::Guest>,
    broken: Option<CallError>,
    limits: Limits,
}

impl Sandbox {
    /// Runs one call into the guest under the CPU budget; a trap breaks the instance.
    /// `doing` is formatted only if the call fails.
    fn enter<T>(
        &mut self,
        doing: fmt::Arguments<'_>,
        f: impl FnOnce(&SessionTools, &mut Store<StoreState>) -> wasmtime::Result<T>,
    ) -> Result<T, CallError> {
        if let Some(broken) = &self.broken {
            return Err(broken.clone());
        }
        self.store.data_mut().meter.start();
        self.store.data_mut().host_fault = None;
        self.store.set_epoch_deadline(1);
        // Imports catch their own panics (`StoreState::import`); this is the backstop for
        // anything else on the host side of the call. What a caught panic discards: the
        // instance (the call's error breaks it, and the broker never pools a broken one),
        // with whatever the panic left in its store.
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| f(&self.tools, &mut self.store))).unwrap_or_else(|panic| {
            let fault = format!("the host failed: {}", imports::panic_text(panic.as_ref()));
            self.store.data_mut().host_fault = Some(fault.clone());
            Err(wasmtime::Error::msg(fault))
        });
        self.store.data_mut().meter.stop();
        self.store.data_mut().flush_output();
        result.map_err(|e| {
            let error = classify(self.store.data(), e, doing);
            if error.is_limit() {
                crate::telemetry::limit_hit(&self.store.data().name, error.kind());
            }
            self.store.data().services.log(LogLevel::Warn, &format!("[{}] {error}; the instance is discarded", self.store.data().name));
            self.broken = Some(error.clone());
            error
        })
    }

    /// Sets the gateway the next calls use (a caller's view of it). Crate-private: once an
    /// instance serves a caller through the N15 guard, nothing outside may swap its
    /// gateway for an unguarded one.
    pub(crate) fn set_gateway(&mut self, gateway: Arc<dyn Gateway>) {
        self.store.data_mut().set_gateway(gateway);
    }

    /// Whether this is a guarded instance (the tools behind the N15 guard).
    pub(crate) fn is_guarded(&self) -> bool {
        self.guard.is_some()
    }

    /// Tells the guard of a guarded instance who the next calls are made for; it forgets
    /// what it learned of the calls before.
    pub(crate) fn restrict(&mut self, rules: &KeyRules, restriction: &Restriction) -> Result<(), CallError> {
        let Some(guard) = self.guard.clone() else {
            return Err(CallError::Setup("a restricted caller must be served by a guarded instance".into()));
        };
        let (rules, restriction) = wit_restriction(rules, restriction);
        self.enter(format_args!("setting up the guard"), |_, store| guard.call_configure(store, &rules, &restriction))?
            .map_err(|e| CallError::Setup(format!("the guard refused its set-up: {e}")))
    }

    /// Sets the clock, ids and log the next calls use (answers the ones it replaces): a
    /// call's or a job step's seeded ids (the same ids when it is made again after a stop).
    /// Lets the next calls' waits end at `cancel` (none: they wait as long as they wait).
    pub(crate) fn set_cancel(&mut self, cancel: Option<CallCancel>) {
        self.store.data_mut().cancel = cancel;
    }

    pub(crate) fn set_services(&mut self, services: Arc<dyn Services>) -> Arc<dyn Services> {
        std::mem::replace(&mut self.store.data_mut().services, services)
    }

    /// What the instance was given: its name, gateway, services and limits.
    pub(crate) fn given(&self) -> (String, Arc<dyn Gateway>, Arc<dyn Services>, Limits) {
        let data = self.store.data();
        (data.name.clone(), data.gateway().clone(), data.services.clone(), self.limits.clone())
    }

    /// The linear memory the instance has grown to, in bytes (what keeping it idle costs).
    pub(crate) fn memory_bytes(&self) -> usize {
        self.store.data().limiter.memory_size
    }

    /// Whether the instance broke a limit or trapped (it must not be used again).
    pub fn is_broken(&self) -> bool {
        self.broken.is_some()
    }

    /// Applies the deployment config.
    pub fn configure(&mut self, config: &GuestConfig, state_dir: &str) -> Result<(), CallError> {
        let settings = bindings::exports::openclaw::session_tools::setup::Settings {
            config: config.json().to_string(),
            state_dir: state_dir.to_string(),
        };
        self.enter(format_args!("configuring"), |tools, store| tools.openclaw_session_tools_setup().call_configure(store, &settings))?
            .map_err(|e| CallError::Setup(format!("invalid config: {e}")))
    }

    /// The tool descriptions.
    pub fn describe(&mut self) -> Result<Vec<ToolDescription>, CallError> {
        let described =
            self.enter(format_args!("describing the tools"), |tools, store| tools.openclaw_session_tools_tools().call_describe(store))?;
        Ok(described
            .into_iter()
            .map(|d| ToolDescription {
                name: d.name,
                label: d.label,
                title: d.title,
                description: d.description,
                parameters: d.parameters,
                result_schema: d.result_schema,
                hints: ToolHints {
                    read_only: d.hints.read_only,
                    destructive: d.hints.destructive,
                    idempotent: d.hints.idempotent,
                    open_world: d.hints.open_world,
                },
            })
            .collect())
    }

    /// Calls a tool with JSON arguments.
    pub fn call_tool(&mut self, tool: &str, caller: &Caller, arguments: &str) -> Result<ToolOutput, CallError> {
        if arguments.len() > self.limits.max_argument_bytes {
            crate::telemetry::limit_hit(&self.store.data().name, "too_large");
            return Err(CallError::TooLarge { what: "tool arguments", size: arguments.len(), limit: self.limits.max_argument_bytes });
        }
        let context: wit_tools::CallerContext = caller.clone().into_wit();
        let answer = self.enter(format_args!("calling {tool}"), |tools, store| {
            tools.openclaw_session_tools_tools().call_call(store, tool, &context, arguments)
        })?;
        match answer {
            Ok(output) => {
                if output.result.len() > self.limits.max_result_bytes {
                    crate::telemetry::limit_hit(&self.store.data().name, "too_large");
                    return Err(CallError::TooLarge {
                        what: "tool result",
                        size: output.result.len(),
                        limit: self.limits.max_result_bytes,
                    });
                }
                // The guest is not trusted to answer JSON.
                if let Err(e) = serde_json::from_str::<serde::de::IgnoredAny>(&output.result) {
                    return Err(CallError::BadAnswer(format!("the result is not JSON: {e}")));
                }
                Ok(ToolOutput::from_wit(output))
            }
            Err(e) => Err(CallError::Tool(ToolError::from_wit(e))),
        }
    }

    /// Resumes a background job.
    pub fn resume_job(&mut self, job: Job, wakeup: Wakeup) -> Result<Vec<Job>, CallError> {
        let job: bindings::wit_jobs::Job = job.into_wit();
        let wakeup: bindings::wit_jobs::Wakeup = wakeup.into_wit();
        self.enter(format_args!("resuming a {} job", job.kind), |tools, store| {
            tools.openclaw_session_tools_jobs().call_resume(store, &job, &wakeup)
        })?
        .map(|jobs| jobs.into_iter().map(Job::from_wit).collect())
        .map_err(CallError::BadAnswer)
    }

    /// Evaluates the send policy.
    pub fn evaluate_send_policy(&mut self, input: &PolicyInput) -> Result<(Decision, String), CallError> {
        let input: bindings::wit_policy::PolicyInput = input.clone().into_wit();
        let verdict = self.enter(format_args!("evaluating the send policy"), |tools, store| {
            tools.openclaw_session_tools_policy().call_evaluate_send_policy(store, &input)
        })?;
        Ok((Decision::from_wit(verdict.decision), verdict.reason))
    }

    /// Parses a standalone message as a `/send` command.
    pub fn parse_send_command(&mut self, text: &str) -> Result<Option<SendCommand>, CallError> {
        let parsed = self.enter(format_args!("parsing a command"), |tools, store| {
            tools.openclaw_session_tools_policy().call_parse_send_command(store, text)
        })?;
        Ok(parsed.map(SendCommand::from_wit))
    }
}
