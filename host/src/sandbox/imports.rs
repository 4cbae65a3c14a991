//! The host side of the component's imports, one impl per WIT interface: `gateway` (each
//! call metered and bounded by the instance's limits, its answer refused when too large, as
//! `host-rules`' metering counts and words it) and `host` (clock, ids, a bounded log). A
//! panic of the host while it answers is caught here and becomes a trap that discards the
//! instance.

use session_tools_contract::{self as ports, LogLevel};
use session_tools_host_rules::metering::{accepted_size, history_size, list_size, wait_size};

use super::store::StoreState;
use crate::bindings::{self, wit_gw, wit_host};

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
    /// trap, so the guest's instance is discarded and the process lives on. What it
    /// discards: the instance and its store (the trap breaks it), nothing shared.
    pub(super) fn import<T>(&mut self, import: &'static str, answer: impl FnOnce(&mut Self) -> T) -> wasmtime::Result<T> {
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

/// The records' interface has no functions.
impl crate::bindings::wit_types::Host for StoreState {}

impl wit_gw::Host for StoreState {
    fn sessions_list(&mut self, params: wit_gw::ListParams) -> Answer<wit_gw::SessionList> {
        self.import("gateway.sessions-list", |s| {
            let params = bindings::list_params(params);
            let list = s.gateway_call(|gw| gw.sessions_list(&params)).map_err(bindings::gw_err)?;
            s.bounded("sessions.list", list_size(&list), list).map(bindings::session_list)
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
            s.bounded("chat.history", history_size(&history), history).map(bindings::history)
        })
    }

    fn chat_histories(
        &mut self,
        params: Vec<wit_gw::HistoryParams>,
    ) -> wasmtime::Result<Vec<Result<wit_gw::History, wit_gw::GatewayError>>> {
        self.import("gateway.chat-histories", |s| {
            let params: Vec<ports::HistoryParams> = params.into_iter().map(bindings::history_params).collect();
            // Each history is one gateway call: the batch counts as many as it holds.
            let extra = u32::try_from(params.len().saturating_sub(1)).unwrap_or(u32::MAX);
            s.meter.gateway_calls = s.meter.gateway_calls.saturating_add(extra);
            let answers = match s.gateway_call(|gw| Ok(gw.chat_histories(&params))) {
                Ok(answers) if answers.len() == params.len() => answers,
                Ok(answers) => {
                    let message = format!("the gateway answered {} histories for {}", answers.len(), params.len());
                    return params
                        .iter()
                        .map(|_| Err(wit_gw::GatewayError { kind: wit_gw::ErrorKind::Other, message: message.clone() }))
                        .collect();
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
                    total += history_size(&history);
                    s.bounded("chat.histories", total, history).map(bindings::history)
                })
                .collect()
        })
    }

    fn agent(&mut self, params: wit_gw::AgentParams) -> Answer<wit_gw::AgentAccepted> {
        self.import("gateway.agent", |s| {
            let params = bindings::agent_params(params);
            let accepted = s.gateway_call(|gw| gw.agent(&params)).map_err(bindings::gw_err)?;
            s.bounded("agent", accepted_size(&accepted), wit_gw::AgentAccepted { run_id: accepted.run_id })
        })
    }

    fn agent_wait(&mut self, params: wit_gw::WaitParams) -> Answer<wit_gw::WaitResult> {
        self.import("gateway.agent-wait", |s| {
            let mut params = bindings::wait_params(params);
            // A wait never outlasts the call's wall time nor its gateway time.
            let left = s.meter.wall_left().min(s.meter.gateway_left());
            params.timeout_ms = params.timeout_ms.min(u64::try_from(left.as_millis()).unwrap_or(u64::MAX));
            let wait = match s.cancel.clone() {
                None => s.gateway_call(|gw| gw.agent_wait(&params)),
                // A call its caller may give up on waits beside the gateway's answer, and
                // stops waiting at the cancel: the guest then answers as for a wait that
                // timed out (the run goes on, and so do its flows).
                Some(cancel) => {
                    let gateway = s.gateway().clone();
                    s.gateway_call(|_| {
                        cancel.unless_cancelled("session-tools-wait", move || gateway.agent_wait(&params)).unwrap_or_else(|| {
                            Err(ports::GatewayError::of(
                                ports::ErrorKind::Timeout,
                                "the caller stopped waiting (the call was cancelled); the run goes on: read its reply with sessions_history later",
                            ))
                        })
                    })
                }
            }
            .map_err(bindings::gw_err)?;
            s.bounded("agent.wait", wait_size(&wait), wait).map(bindings::wait_result)
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
