//! The data of an instance's store: the gateway and services it was given, its limits,
//! and the host side of the component's imports.

use std::time::{Duration, Instant};

use session_tools_guest::ports::{self, LogLevel};
use wasmtime::component::{HasData, ResourceTable};
use wasmtime_wasi::{WasiCtx, WasiCtxView, WasiView};

use super::output::GuestOutput;
use super::AgentSetup;
use crate::bindings::{self, wit_gw, wit_host};

/// A gateway an instance may be given (the guest-side port, shareable across threads).
pub trait GatewayPort: ports::Gateway + Send + Sync {}
impl<T: ports::Gateway + Send + Sync + ?Sized> GatewayPort for T {}

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
}

impl wasmtime::ResourceLimiter for Limiter {
    fn memory_growing(&mut self, _current: usize, desired: usize, _maximum: Option<usize>) -> wasmtime::Result<bool> {
        if desired > self.memory_limit {
            self.memory_exceeded = true;
            wasmtime::bail!("memory limit of {} bytes exceeded ({desired} bytes asked for)", self.memory_limit);
        }
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
    left: usize,
    per_call: usize,
    dropped: usize,
}

/// The store's data.
pub struct StoreState {
    pub(super) name: String,
    wasi: WasiCtx,
    pub(super) table: ResourceTable,
    pub(super) limiter: Limiter,
    pub(super) meter: CpuMeter,
    pub(super) services: std::sync::Arc<dyn Services>,
    gateway: std::sync::Arc<dyn GatewayPort>,
    max_answer: usize,
    log: LogBudget,
    /// A host fault while answering an import of the current call (see [`Self::import`]).
    pub(super) host_fault: Option<String>,
    stdout: GuestOutput,
    stderr: GuestOutput,
}

/// `wasi:io` is given the resource table only.
pub struct HasTable;

impl HasData for HasTable {
    type Data<'a> = &'a mut ResourceTable;
}

impl WasiView for StoreState {
    fn ctx(&mut self) -> WasiCtxView<'_> {
        WasiCtxView { ctx: &mut self.wasi, table: &mut self.table }
    }
}

impl StoreState {
    pub fn new(setup: &AgentSetup) -> StoreState {
        let limits = &setup.limits;
        let stdout = GuestOutput::new(limits.max_log_bytes_per_call);
        let stderr = GuestOutput::new(limits.max_log_bytes_per_call);
        // Nothing is granted: no args, no environment, no preopened directories, no
        // network; stdin is empty and output goes to the host's log.
        let wasi = WasiCtx::builder().stdout(stdout.clone()).stderr(stderr.clone()).allow_tcp(false).allow_udp(false).build();
        StoreState {
            name: setup.name.clone(),
            wasi,
            table: ResourceTable::new(),
            limiter: Limiter {
                memory_limit: limits.memory_bytes,
                table_elements: limits.table_elements as usize,
                instances: limits.instances,
                tables: limits.tables,
                memories: limits.memories,
                memory_exceeded: false,
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
            max_answer: limits.max_gateway_answer_bytes,
            log: LogBudget { left: limits.max_log_bytes_per_call, per_call: limits.max_log_bytes_per_call, dropped: 0 },
            host_fault: None,
            stdout,
            stderr,
        }
    }

    pub(super) fn set_gateway(&mut self, gateway: std::sync::Arc<dyn GatewayPort>) {
        self.gateway = gateway;
    }

    pub fn cli(&mut self) -> wasmtime_wasi::cli::WasiCliCtxView<'_> {
        wasmtime_wasi::cli::WasiCliView::cli(self)
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
    fn gateway_call<T>(&mut self, call: impl FnOnce(&dyn GatewayPort) -> ports::GatewayResult<T>) -> ports::GatewayResult<T> {
        self.meter.gateway_calls += 1;
        if self.meter.gateway_calls > self.meter.max_gateway_calls {
            return Err(ports::GatewayError::new(format!(
                "too many gateway calls in one call (the limit is {})",
                self.meter.max_gateway_calls
            )));
        }
        let called = Instant::now();
        if self.meter.over_wall_at(called) {
            self.meter.wall_exceeded = true;
            return Err(ports::GatewayError::new("the call ran out of time".to_string()));
        }
        if self.meter.gateway_left().is_zero() {
            return Err(ports::GatewayError::new(format!(
                "the call spent its gateway time ({} s) and may make no more gateway calls",
                self.meter.gateway_budget.as_secs()
            )));
        }
        let result = call(self.gateway.as_ref());
        self.meter.in_host += called.elapsed();
        result
    }

    /// Refuses an answer too large to hand to the guest.
    fn bounded<T>(&self, method: &str, size: usize, value: T) -> Result<T, wit_gw::GatewayError> {
        if size > self.max_answer {
            self.services
                .log(LogLevel::Warn, &format!("[{}] {method} answer of {size} bytes refused (limit {})", self.name, self.max_answer));
            return Err(wit_gw::GatewayError {
                message: format!("gateway answer too large: {method} returned {size} bytes (the limit is {})", self.max_answer),
            });
        }
        Ok(value)
    }
}

fn opt_len(s: &Option<String>) -> usize {
    s.as_ref().map_or(0, String::len)
}

fn row_size(r: &ports::SessionRow) -> usize {
    64 + r.key.len()
        + [
            &r.kind,
            &r.channel,
            &r.label,
            &r.display_name,
            &r.session_id,
            &r.model,
            &r.thinking_level,
            &r.verbose_level,
            &r.send_policy,
            &r.last_channel,
            &r.last_to,
            &r.last_account_id,
            &r.spawned_by,
        ]
        .iter()
        .map(|s| opt_len(s))
        .sum::<usize>()
        + r.delivery_context.as_ref().map_or(0, |d| {
            let thread = match &d.thread_id {
                Some(ports::ThreadId::Text(t)) => t.len(),
                Some(ports::ThreadId::Number(_)) => 8,
                None => 0,
            };
            opt_len(&d.channel) + opt_len(&d.to) + opt_len(&d.account_id) + thread
        })
}

/// The text of a caught panic.
pub(super) fn panic_text(panic: &(dyn std::any::Any + Send)) -> String {
    panic
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic without a message".to_string())
}

impl StoreState {
    /// Answers one import. A panic of the host while answering it is caught here, at the
    /// import boundary: it is logged, remembered as the call's host fault, and becomes a
    /// trap, so the guest's instance is discarded and the process lives on.
    fn import<T>(&mut self, import: &'static str, answer: impl FnOnce(&mut Self) -> T) -> wasmtime::Result<T> {
        match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| answer(&mut *self))) {
            Ok(value) => Ok(value),
            Err(panic) => {
                let fault = format!("the host failed while answering {import}: {}", panic_text(panic.as_ref()));
                self.services.log(LogLevel::Error, &format!("[{}] {fault}; the instance is discarded", self.name));
                self.host_fault = Some(fault.clone());
                Err(wasmtime::Error::msg(fault))
            }
        }
    }
}

type Answer<T> = wasmtime::Result<Result<T, wit_gw::GatewayError>>;

impl wit_gw::Host for StoreState {
    fn sessions_list(&mut self, params: wit_gw::ListParams) -> Answer<wit_gw::SessionList> {
        self.import("gateway.sessions-list", |s| {
            let params = bindings::list_params(params);
            let list = s.gateway_call(|gw| gw.sessions_list(&params)).map_err(bindings::gw_err)?;
            let size = opt_len(&list.path) + list.sessions.iter().map(row_size).sum::<usize>();
            s.bounded("sessions.list", size, list).map(bindings::session_list)
        })
    }

    fn sessions_resolve(&mut self, params: wit_gw::ResolveParams) -> Answer<String> {
        self.import("gateway.sessions-resolve", |s| {
            let params = bindings::resolve_params(params);
            let key = s.gateway_call(|gw| gw.sessions_resolve(&params)).map_err(bindings::gw_err)?;
            s.bounded("sessions.resolve", key.len(), key)
        })
    }

    fn chat_history(&mut self, params: wit_gw::HistoryParams) -> Answer<wit_gw::History> {
        self.import("gateway.chat-history", |s| {
            let params = bindings::history_params(params);
            let history = s.gateway_call(|gw| gw.chat_history(&params)).map_err(bindings::gw_err)?;
            let size = history.messages.iter().map(|m| m.json.len() + opt_len(&m.role) + 16).sum::<usize>();
            s.bounded("chat.history", size, history).map(bindings::history)
        })
    }

    fn chat_histories(&mut self, params: Vec<wit_gw::HistoryParams>) -> wasmtime::Result<Vec<Result<wit_gw::History, wit_gw::GatewayError>>> {
        self.import("gateway.chat-histories", |s| {
            let params: Vec<ports::HistoryParams> = params.into_iter().map(bindings::history_params).collect();
            // Each history is one gateway call: the batch counts as many as it holds.
            let extra = u32::try_from(params.len().saturating_sub(1)).unwrap_or(u32::MAX);
            s.meter.gateway_calls = s.meter.gateway_calls.saturating_add(extra);
            let answers = match s.gateway_call(|gw| Ok(gw.chat_histories(&params))) {
                Ok(answers) if answers.len() == params.len() => answers,
                Ok(answers) => {
                    let message = format!("the gateway answered {} histories for {}", answers.len(), params.len());
                    return params.iter().map(|_| Err(wit_gw::GatewayError { message: message.clone() })).collect();
                }
                Err(e) => return params.iter().map(|_| Err(bindings::gw_err(e.clone()))).collect(),
            };
            // The answers together are one answer for the size limit: past it, the rest are
            // refused (the tool fails at the first refusal, as it would one by one).
            let mut total = 0usize;
            answers
                .into_iter()
                .map(|answer| {
                    let history = answer.map_err(bindings::gw_err)?;
                    total += history.messages.iter().map(|m| m.json.len() + opt_len(&m.role) + 16).sum::<usize>();
                    s.bounded("chat.histories", total, history).map(bindings::history)
                })
                .collect()
        })
    }

    fn agent(&mut self, params: wit_gw::AgentParams) -> Answer<wit_gw::AgentAccepted> {
        self.import("gateway.agent", |s| {
            let params = bindings::agent_params(params);
            let accepted = s.gateway_call(|gw| gw.agent(&params)).map_err(bindings::gw_err)?;
            let size = opt_len(&accepted.run_id);
            s.bounded("agent", size, wit_gw::AgentAccepted { run_id: accepted.run_id })
        })
    }

    fn agent_wait(&mut self, params: wit_gw::WaitParams) -> Answer<wit_gw::WaitResult> {
        self.import("gateway.agent-wait", |s| {
            let mut params = bindings::wait_params(params);
            // A wait never outlasts the call's wall time nor its gateway time.
            let left = s.meter.wall_left().min(s.meter.gateway_left());
            params.timeout_ms = params.timeout_ms.min(u64::try_from(left.as_millis()).unwrap_or(u64::MAX));
            let wait = s.gateway_call(|gw| gw.agent_wait(&params)).map_err(bindings::gw_err)?;
            let size = opt_len(&wait.status) + opt_len(&wait.error) + opt_len(&wait.model);
            s.bounded("agent.wait", size, wait).map(bindings::wait_result)
        })
    }

    fn send(&mut self, params: wit_gw::SendParams) -> Answer<()> {
        self.import("gateway.send", |s| {
            let params = bindings::send_params(params);
            s.gateway_call(|gw| gw.send(&params)).map_err(bindings::gw_err)
        })
    }

    fn sessions_patch(&mut self, params: wit_gw::PatchParams) -> Answer<()> {
        self.import("gateway.sessions-patch", |s| {
            let params = bindings::patch_params(params);
            s.gateway_call(|gw| gw.sessions_patch(&params)).map_err(bindings::gw_err)
        })
    }

    fn sessions_delete(&mut self, params: wit_gw::DeleteParams) -> Answer<()> {
        self.import("gateway.sessions-delete", |s| {
            let params = bindings::delete_params(params);
            s.gateway_call(|gw| gw.sessions_delete(&params)).map_err(bindings::gw_err)
        })
    }
}

impl wit_host::Host for StoreState {
    fn now_ms(&mut self) -> wasmtime::Result<u64> {
        self.import("host.now-ms", |s| s.services.now_ms())
    }

    fn new_uuid(&mut self) -> wasmtime::Result<String> {
        self.import("host.new-uuid", |s| s.services.new_uuid())
    }

    fn log(&mut self, level: wit_host::LogLevel, message: String) -> wasmtime::Result<()> {
        self.import("host.log", |s| {
            if message.len() > s.log.left {
                s.log.dropped += message.len();
                return;
            }
            s.log.left -= message.len();
            let level = match level {
                wit_host::LogLevel::Debug => LogLevel::Debug,
                wit_host::LogLevel::Info => LogLevel::Info,
                wit_host::LogLevel::Warn => LogLevel::Warn,
                wit_host::LogLevel::Error => LogLevel::Error,
            };
            s.services.log(level, &format!("[{}] {message}", s.name));
        })
    }
}
