//! The data of an instance's store: the gateway and services it was given, and what a
//! call may use (CPU and wall time, gateway calls and time, memory, log output). The host
//! side of the imports is in `imports.rs`.

use std::sync::Arc;
use std::time::{Duration, Instant};

use session_tools_contract::{self as ports, LogLevel};

use super::output::GuestOutput;
use super::AgentSetup;
use crate::bindings::wit_gw;
use crate::gateway::{Gateway, SessionTree};
use crate::wasi::Wasi;

/// The clock, ids and log an instance may be given.
pub trait Services: ports::Host + Send + Sync {}
impl<T: ports::Host + Send + Sync + ?Sized> Services for T {}

/// Guest CPU time of the current call (wall time minus time spent in host calls), its
/// wall time, and its gateway calls.
///
/// The clocks of a call start at its first need, an epoch tick or a gateway call, not on
/// entry: most calls end before either, and then read no clock at all (a clock read is a
/// tenth of a trivial call's round trip). A call's time is undercounted by at most one
/// epoch tick (10 ms), so a budget is never cut short.
pub struct CpuMeter {
    running: bool,
    started: Option<Instant>,
    in_host: Duration,
    pub budget: Duration,
    pub exceeded: bool,
    pub wall_budget: Duration,
    pub wall_exceeded: bool,
    pub gateway_calls: u32,
    pub max_gateway_calls: u32,
    /// Time the call may spend waiting for gateway answers, in all.
    pub gateway_budget: Duration,
}

impl CpuMeter {
    /// A call begins.
    pub fn start(&mut self) {
        self.running = true;
        self.started = None;
        self.in_host = Duration::ZERO;
        self.exceeded = false;
        self.wall_exceeded = false;
        self.gateway_calls = 0;
    }

    /// When the current call's clocks started (now, if they had not).
    fn started(&mut self) -> Instant {
        *self.started.get_or_insert_with(Instant::now)
    }

    /// Wall time left in the call.
    pub fn wall_left(&mut self) -> Duration {
        if !self.running {
            return self.wall_budget;
        }
        self.wall_budget.saturating_sub(self.started().elapsed())
    }

    pub fn over_wall(&mut self) -> bool {
        self.over_wall_at(Instant::now())
    }

    /// `over_wall` with the clock already read (the clocks start at `now` if they had not).
    fn over_wall_at(&mut self, now: Instant) -> bool {
        self.running && now.saturating_duration_since(*self.started.get_or_insert(now)) > self.wall_budget
    }

    pub fn stop(&mut self) {
        self.running = false;
        self.started = None;
    }

    /// Gateway time left in the call.
    pub fn gateway_left(&self) -> Duration {
        self.gateway_budget.saturating_sub(self.in_host)
    }

    pub fn over_budget(&mut self) -> bool {
        self.running && self.started().elapsed().saturating_sub(self.in_host) > self.budget
    }
}

/// Caps memory, tables and instance counts, and remembers what was refused.
pub struct Limiter {
    pub memory_limit: usize,
    table_elements: usize,
    instances: usize,
    tables: usize,
    memories: usize,
    pub memory_exceeded: bool,
    /// The linear memory the instance has grown to, in bytes.
    pub memory_size: usize,
}

impl wasmtime::ResourceLimiter for Limiter {
    fn memory_growing(&mut self, current: usize, desired: usize, _maximum: Option<usize>) -> wasmtime::Result<bool> {
        if desired > self.memory_limit {
            self.memory_exceeded = true;
            wasmtime::bail!("memory limit of {} bytes exceeded ({desired} bytes asked for)", self.memory_limit);
        }
        // The memories of the instance together: a guarded instance has two (the guard's
        // and the tools').
        self.memory_size = self.memory_size.saturating_add(desired.saturating_sub(current));
        Ok(true)
    }

    fn table_growing(&mut self, _current: usize, desired: usize, _maximum: Option<usize>) -> wasmtime::Result<bool> {
        if desired > self.table_elements {
            wasmtime::bail!("table limit of {} elements exceeded", self.table_elements);
        }
        Ok(true)
    }

    fn instances(&self) -> usize {
        self.instances
    }

    fn tables(&self) -> usize {
        self.tables
    }

    fn memories(&self) -> usize {
        self.memories
    }
}

/// Log output of one call, bounded.
pub struct LogBudget {
    pub(super) left: usize,
    pub(super) per_call: usize,
    pub(super) dropped: usize,
}

/// The store's data.
pub struct StoreState {
    pub(super) name: String,
    pub(super) wasi: Wasi,
    pub(super) limiter: Limiter,
    pub(super) meter: CpuMeter,
    pub(super) services: std::sync::Arc<dyn Services>,
    gateway: std::sync::Arc<dyn Gateway>,
    /// The spawn tree, for a guarded instance (the guard's `tree` import); `None` refuses it.
    tree: Option<std::sync::Arc<dyn SessionTree>>,
    max_answer: usize,
    pub(super) log: LogBudget,
    /// A host fault while answering an import of the current call (see [`Self::import`]).
    pub(super) host_fault: Option<String>,
    /// The current call's cancel, which ends its waits early.
    pub(super) cancel: Option<super::CallCancel>,
    stdout: GuestOutput,
    stderr: GuestOutput,
}

impl StoreState {
    /// The state of a new instance's store, from its set-up.
    pub fn new(setup: &AgentSetup) -> StoreState {
        let limits = &setup.limits;
        let stdout = GuestOutput::new(limits.max_log_bytes_per_call);
        let stderr = GuestOutput::new(limits.max_log_bytes_per_call);
        // Nothing is granted (see `crate::wasi`); output goes to the host's log.
        let wasi = Wasi::with_output(Arc::new(stdout.clone()), Arc::new(stderr.clone()));
        StoreState {
            name: setup.name.clone(),
            wasi,
            limiter: Limiter {
                memory_limit: limits.memory_bytes,
                table_elements: limits.table_elements as usize,
                instances: limits.instances,
                tables: limits.tables,
                memories: limits.memories,
                memory_exceeded: false,
                memory_size: 0,
            },
            meter: CpuMeter {
                running: false,
                started: None,
                in_host: Duration::ZERO,
                budget: limits.cpu_per_call,
                exceeded: false,
                wall_budget: limits.wall_per_call,
                wall_exceeded: false,
                gateway_calls: 0,
                max_gateway_calls: limits.max_gateway_calls_per_call,
                gateway_budget: limits.gateway_time_per_call,
            },
            services: setup.services.clone(),
            gateway: setup.gateway.clone(),
            tree: None,
            max_answer: limits.max_gateway_answer_bytes,
            log: LogBudget { left: limits.max_log_bytes_per_call, per_call: limits.max_log_bytes_per_call, dropped: 0 },
            host_fault: None,
            cancel: None,
            stdout,
            stderr,
        }
    }

    pub(super) fn set_gateway(&mut self, gateway: std::sync::Arc<dyn Gateway>) {
        self.gateway = gateway;
    }

    pub(super) fn gateway(&self) -> &std::sync::Arc<dyn Gateway> {
        &self.gateway
    }

    pub(super) fn set_tree(&mut self, tree: std::sync::Arc<dyn SessionTree>) {
        self.tree = Some(tree);
    }

    pub(super) fn tree(&self) -> Option<&std::sync::Arc<dyn SessionTree>> {
        self.tree.as_ref()
    }

    /// Sends what the guest printed during the call to the log, and resets the budget.
    pub(super) fn flush_output(&mut self) {
        for (stream, level) in [(&self.stdout, LogLevel::Info), (&self.stderr, LogLevel::Warn)] {
            let (text, dropped) = stream.take();
            if !text.is_empty() {
                self.services.log(level, &format!("[{}] guest: {}", self.name, text.trim_end()));
            }
            if dropped > 0 {
                self.services.log(LogLevel::Warn, &format!("[{}] guest output: {dropped} bytes dropped", self.name));
            }
        }
        if self.log.dropped > 0 {
            self.services.log(LogLevel::Warn, &format!("[{}] guest log: {} bytes dropped", self.name, self.log.dropped));
        }
        self.log.left = self.log.per_call;
        self.log.dropped = 0;
    }

    /// Runs a gateway call; its time does not count against the guest's CPU budget (but
    /// against the call's wall time), and a call has a bounded number of them.
    pub(super) fn gateway_call<T>(&mut self, call: impl FnOnce(&dyn Gateway) -> ports::GatewayResult<T>) -> ports::GatewayResult<T> {
        use session_tools_host_rules::metering::{gateway_call_refused, CallRefusal};
        self.meter.gateway_calls += 1;
        let called = Instant::now();
        let (calls, max_calls) = (self.meter.gateway_calls, self.meter.max_gateway_calls);
        let out_of_time = calls <= max_calls && self.meter.over_wall_at(called);
        let spent = self.meter.gateway_left().is_zero();
        if let Some(refusal) = gateway_call_refused(calls, max_calls, out_of_time, spent, self.meter.gateway_budget.as_secs()) {
            self.meter.wall_exceeded |= refusal == CallRefusal::OutOfTime;
            return Err(refusal.error());
        }
        let result = call(self.gateway.as_ref());
        self.meter.in_host += called.elapsed();
        result
    }

    /// Refuses an answer too large to hand to the guest.
    pub(super) fn bounded<T>(&self, method: &str, size: usize, value: T) -> Result<T, wit_gw::GatewayError> {
        let limit = self.max_answer as u64;
        if let Some(message) = session_tools_host_rules::metering::answer_refused(method, size as u64, limit) {
            crate::telemetry::limit_hit(&self.name, "too_large");
            self.services.log(LogLevel::Warn, &format!("[{}] {method} answer of {size} bytes refused (limit {limit})", self.name));
            return Err(wit_gw::GatewayError { kind: wit_gw::ErrorKind::TooLarge, message });
        }
        Ok(value)
    }
}
