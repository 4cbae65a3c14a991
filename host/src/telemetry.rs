//! What the library reports, as [`tracing`] events and spans: the library never prints.
//! An embedder routes or silences it with the subscriber of its choice; the
//! command line installs one (`--log-level`, `--log-format`) and counts these events for
//! `mcp --http`'s `/metrics`.
//!
//! Free-text lines (the guest's log, the host's warnings) go through the service's log
//! sink ([`crate::LogSink`]), by default [`crate::tracing_log`]: events of target
//! [`LOG`]. The structured events below are of target [`EVENTS`], each with an `event`
//! field naming it:
//!
//! | `event` | level | fields | when |
//! | --- | --- | --- | --- |
//! | `tool_call` | info | `agent`, `tool`, `outcome`, `duration_ms` | a tool call ended (inside the span `tool_call` of the same fields) |
//! | `limit_hit` | debug | `agent`, `limit` | an instance or a job broke one of its agent's [`crate::Limits`] |
//! | `n15_refusal` | debug | `session`, `method` | the guard refused a sandboxed caller's gateway call (N15) |
//! | `job_step` | debug | `agent`, `kind`, `outcome` | a background job made a step |
//! | `gateway` | info | `url`, `state` (`connected`, `dropped`, `unreachable`), `detail` | a live gateway's connection changed |
//!
//! The events whose text also goes to the log sink (limits, refusals, failed steps) are at
//! `debug`, so a text log at `info` or above shows each of them once.
//!
//! `outcome` is `ok` or [`CallError::kind`](crate::CallError::kind); `limit` is one of
//! [`LIMITS`].

use std::time::Duration;

/// The target of the structured events.
pub const EVENTS: &str = "session_tools_host::events";

/// The target of the log sink's lines ([`crate::tracing_log`]).
pub const LOG: &str = "session_tools_host::log";

/// The values of a `limit_hit` event's `limit`: the per-call limits
/// ([`CallError::kind`](crate::CallError::kind) of a limit), then the job limits.
pub const LIMITS: &[&str] = &["cpu_limit", "wall_limit", "memory_limit", "too_large", "jobs_per_call", "pending_jobs", "steps_per_job"];

/// A tool call's span: the call's events (the guest's log, refusals) are inside it.
pub(crate) fn tool_call_span(agent: &str, tool: &str) -> tracing::Span {
    tracing::info_span!(target: EVENTS, "tool_call", agent, tool)
}

/// A tool call ended, `outcome` being `ok` or the error's kind.
pub(crate) fn tool_call(agent: &str, tool: &str, outcome: &str, duration: Duration) {
    let duration_ms = duration.as_secs_f64() * 1e3;
    tracing::info!(target: EVENTS, event = "tool_call", agent, tool, outcome, duration_ms, "tool call {tool} by {agent}: {outcome}");
}

/// An agent's instance or job broke a limit (one of [`LIMITS`]).
pub(crate) fn limit_hit(agent: &str, limit: &'static str) {
    tracing::debug!(target: EVENTS, event = "limit_hit", agent, limit, "{agent} hit its {limit}");
}

/// The guard refused a sandboxed session's gateway call (N15).
pub(crate) fn n15_refusal(session: &str, method: &str) {
    tracing::debug!(target: EVENTS, event = "n15_refusal", session, method, "N15: refused {method} for {session}");
}

/// A background job made a step; `outcome` is `ok` or the error's kind.
pub(crate) fn job_step(agent: &str, kind: &str, outcome: &str) {
    tracing::debug!(target: EVENTS, event = "job_step", agent, kind, outcome, "job step ({kind}) of {agent}: {outcome}");
}

/// A live gateway's connection changed: `connected`, `dropped` or `unreachable`.
#[cfg_attr(not(feature = "live"), allow(dead_code))]
pub(crate) fn gateway(url: &str, state: &'static str, detail: &str) {
    tracing::info!(target: EVENTS, event = "gateway", url, state, detail, "gateway {url}: {state} {detail}");
}
