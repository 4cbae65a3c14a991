//! `mcp --http`'s metrics: the library's events (`session_tools_host::telemetry`) counted
//! by a `tracing` layer, and what the service holds read when `/metrics` is asked, in the
//! Prometheus text format (OpenMetrics, by `prometheus-client`).
//!
//! | metric | labels | what |
//! | --- | --- | --- |
//! | `session_tools_tool_calls_total` | `agent`, `tool` | tool calls ended |
//! | `session_tools_tool_errors_total` | `agent`, `tool`, `kind` | tool calls ended in an error (`CallError::kind`) |
//! | `session_tools_tool_call_duration_seconds` | `agent`, `tool` | how long calls took (histogram) |
//! | `session_tools_tool_calls_in_flight` | | calls running now |
//! | `session_tools_limit_hits_total` | `agent`, `limit` | limits broken (`telemetry::LIMITS`) |
//! | `session_tools_n15_refusals_total` | `method` | gateway calls the N15 guard refused |
//! | `session_tools_job_steps_total` | `kind`, `outcome` | background job steps made |
//! | `session_tools_pending_jobs` | | background jobs kept, waiting to go on |
//! | `session_tools_idle_instances` | | instances kept idle for reuse (live = idle + in flight) |
//! | `session_tools_gateway_connected` | `url` | 1 while the live gateway's connection is up |
//! | `session_tools_gateway_connection_events_total` | `url`, `state` | connections made (`connected`), lost (`dropped`), failed (`unreachable`) |
//!
//! The agent label is the agent id of the caller's session (an operator's names, bounded
//! by the agents file), never a session key or a token.

use std::sync::atomic::AtomicI64;
use std::sync::Arc;

use prometheus_client::encoding::text::encode;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::{exponential_buckets, Histogram};
use prometheus_client::registry::Registry;
use session_tools_host::telemetry::EVENTS;
use session_tools_host::Service;
use tracing::field::{Field, Visit};
use tracing::level_filters::LevelFilter;
use tracing::span;
use tracing_subscriber::filter::Targets;
use tracing_subscriber::layer::Context;
use tracing_subscriber::Layer;

/// The content type of the answer.
pub const CONTENT_TYPE: &str = "application/openmetrics-text; version=1.0.0; charset=utf-8";

type Labels<const N: usize> = [(&'static str, String); N];
type Histograms = Family<Labels<2>, Histogram, fn() -> Histogram>;

/// The counters of one process (cheap to clone).
#[derive(Clone)]
pub struct Metrics {
    inner: Arc<Inner>,
}

struct Inner {
    registry: Registry,
    calls: Family<Labels<2>, Counter>,
    errors: Family<Labels<3>, Counter>,
    durations: Histograms,
    in_flight: Gauge<i64, AtomicI64>,
    limit_hits: Family<Labels<2>, Counter>,
    refusals: Family<Labels<1>, Counter>,
    job_steps: Family<Labels<2>, Counter>,
    pending_jobs: Gauge<i64, AtomicI64>,
    idle_instances: Gauge<i64, AtomicI64>,
    connected: Family<Labels<1>, Gauge<i64, AtomicI64>>,
    connection_events: Family<Labels<2>, Counter>,
}

fn durations() -> Histogram {
    // 1 ms to about 33 s: a list takes milliseconds, a send that waits for its reply
    // seconds.
    Histogram::new(exponential_buckets(0.001, 2.0, 16))
}

impl Metrics {
    pub fn new() -> Metrics {
        let mut registry = Registry::with_prefix("session_tools");
        let inner = Inner {
            calls: Family::default(),
            errors: Family::default(),
            durations: Family::new_with_constructor(durations),
            in_flight: Gauge::default(),
            limit_hits: Family::default(),
            refusals: Family::default(),
            job_steps: Family::default(),
            pending_jobs: Gauge::default(),
            idle_instances: Gauge::default(),
            connected: Family::default(),
            connection_events: Family::default(),
            registry: Registry::default(),
        };
        registry.register("tool_calls", "Tool calls ended", inner.calls.clone());
        registry.register("tool_errors", "Tool calls ended in an error, by kind", inner.errors.clone());
        registry.register("tool_call_duration_seconds", "How long tool calls took", inner.durations.clone());
        registry.register("tool_calls_in_flight", "Tool calls running now", inner.in_flight.clone());
        registry.register("limit_hits", "Limits broken by an agent's instance or jobs", inner.limit_hits.clone());
        registry.register("n15_refusals", "Gateway calls of sandboxed callers refused (N15)", inner.refusals.clone());
        registry.register("job_steps", "Background job steps made", inner.job_steps.clone());
        registry.register("pending_jobs", "Background jobs kept, waiting to go on", inner.pending_jobs.clone());
        registry.register("idle_instances", "Instances kept idle for reuse", inner.idle_instances.clone());
        registry.register("gateway_connected", "1 while the live gateway's connection is up", inner.connected.clone());
        registry.register("gateway_connection_events", "Live gateway connections made, lost or failed", inner.connection_events.clone());
        Metrics { inner: Arc::new(Inner { registry, ..inner }) }
    }

    /// The layer that counts the library's events (whatever the log level).
    pub fn layer<S>(&self) -> impl Layer<S> + Send + Sync + 'static
    where
        S: tracing::Subscriber + for<'a> tracing_subscriber::registry::LookupSpan<'a>,
    {
        Counting { metrics: self.clone() }.with_filter(Targets::new().with_target(EVENTS, LevelFilter::TRACE))
    }

    /// The metrics as text, with what `service` holds now (reads the job store: call it
    /// off the async threads).
    pub fn render(&self, service: &Service) -> String {
        let inner = &self.inner;
        inner.pending_jobs.set(i64::try_from(service.pending_jobs().len()).unwrap_or(i64::MAX));
        inner.idle_instances.set(i64::try_from(service.idle_instances()).unwrap_or(i64::MAX));
        let mut text = String::new();
        // Writing to a String cannot fail.
        let _ = encode(&mut text, &inner.registry);
        text
    }

    fn count(&self, event: &Fields) {
        let inner = &self.inner;
        let s = |v: &Option<String>| v.clone().unwrap_or_default();
        match event.event.as_deref() {
            Some("tool_call") => {
                let labels = [("agent", s(&event.agent)), ("tool", s(&event.tool))];
                inner.calls.get_or_create(&labels).inc();
                if let Some(ms) = event.duration_ms {
                    inner.durations.get_or_create(&labels).observe(ms / 1e3);
                }
                if let Some(kind) = event.outcome.as_deref().filter(|o| *o != "ok") {
                    let [agent, tool] = labels;
                    inner.errors.get_or_create(&[agent, tool, ("kind", kind.to_string())]).inc();
                }
            }
            Some("limit_hit") => {
                inner.limit_hits.get_or_create(&[("agent", s(&event.agent)), ("limit", s(&event.limit))]).inc();
            }
            Some("n15_refusal") => {
                inner.refusals.get_or_create(&[("method", s(&event.method))]).inc();
            }
            Some("job_step") => {
                inner.job_steps.get_or_create(&[("kind", s(&event.kind)), ("outcome", s(&event.outcome))]).inc();
            }
            Some("gateway") => {
                let url = s(&event.url);
                let state = s(&event.state);
                inner.connected.get_or_create(&[("url", url.clone())]).set(i64::from(state == "connected"));
                inner.connection_events.get_or_create(&[("url", url), ("state", state)]).inc();
            }
            _ => {}
        }
    }
}

/// The fields of the library's events that the metrics read.
#[derive(Default)]
struct Fields {
    event: Option<String>,
    agent: Option<String>,
    tool: Option<String>,
    outcome: Option<String>,
    duration_ms: Option<f64>,
    limit: Option<String>,
    method: Option<String>,
    kind: Option<String>,
    url: Option<String>,
    state: Option<String>,
}

impl Visit for Fields {
    fn record_str(&mut self, field: &Field, value: &str) {
        let slot = match field.name() {
            "event" => &mut self.event,
            "agent" => &mut self.agent,
            "tool" => &mut self.tool,
            "outcome" => &mut self.outcome,
            "limit" => &mut self.limit,
            "method" => &mut self.method,
            "kind" => &mut self.kind,
            "url" => &mut self.url,
            "state" => &mut self.state,
            _ => return,
        };
        *slot = Some(value.to_string());
    }

    fn record_f64(&mut self, field: &Field, value: f64) {
        if field.name() == "duration_ms" {
            self.duration_ms = Some(value);
        }
    }

    fn record_debug(&mut self, _field: &Field, _value: &dyn std::fmt::Debug) {}
}

struct Counting {
    metrics: Metrics,
}

impl<S> Layer<S> for Counting
where
    S: tracing::Subscriber + for<'a> tracing_subscriber::registry::LookupSpan<'a>,
{
    fn on_event(&self, event: &tracing::Event<'_>, _ctx: Context<'_, S>) {
        let mut fields = Fields::default();
        event.record(&mut fields);
        self.metrics.count(&fields);
    }

    fn on_new_span(&self, attrs: &span::Attributes<'_>, _id: &span::Id, _ctx: Context<'_, S>) {
        if attrs.metadata().name() == "tool_call" {
            self.metrics.inner.in_flight.inc();
        }
    }

    fn on_close(&self, id: span::Id, ctx: Context<'_, S>) {
        if ctx.metadata(&id).is_some_and(|m| m.name() == "tool_call") {
            self.metrics.inner.in_flight.dec();
        }
    }
}

/// Whether `/metrics`'s counters mean what they say: read back from the text.
#[cfg(test)]
mod tests {
    use super::*;
    use tracing_subscriber::layer::SubscriberExt;

    #[test]
    fn events_move_the_counters() {
        let metrics = Metrics::new();
        let subscriber = tracing_subscriber::registry().with(metrics.layer());
        tracing::subscriber::with_default(subscriber, || {
            let span = tracing::info_span!(target: EVENTS, "tool_call", agent = "main", tool = "sessions_list");
            let entered = span.enter();
            tracing::info!(target: EVENTS, event = "tool_call", agent = "main", tool = "sessions_list", outcome = "cpu_limit", duration_ms = 2.5);
            tracing::debug!(target: EVENTS, event = "limit_hit", agent = "main", limit = "cpu_limit");
            tracing::debug!(target: EVENTS, event = "n15_refusal", session = "agent:main:x", method = "chat.history");
            tracing::info!(target: EVENTS, event = "gateway", url = "ws://g", state = "connected", detail = "");
            // Not the library's events: not counted.
            tracing::info!(event = "tool_call", agent = "main", tool = "sessions_list", outcome = "ok");
            drop(entered);
        });
        let mut text = String::new();
        encode(&mut text, &metrics.inner.registry).unwrap();
        for line in [
            r#"session_tools_tool_calls_total{agent="main",tool="sessions_list"} 1"#,
            r#"session_tools_tool_errors_total{agent="main",tool="sessions_list",kind="cpu_limit"} 1"#,
            r#"session_tools_tool_call_duration_seconds_count{agent="main",tool="sessions_list"} 1"#,
            r#"session_tools_limit_hits_total{agent="main",limit="cpu_limit"} 1"#,
            r#"session_tools_n15_refusals_total{method="chat.history"} 1"#,
            r#"session_tools_gateway_connected{url="ws://g"} 1"#,
            "session_tools_tool_calls_in_flight 0",
        ] {
            assert!(text.lines().any(|l| l == line), "no {line} in\n{text}");
        }
    }
}
