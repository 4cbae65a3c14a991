//! Progress of long work on standard error (stdout stays the results alone): `bench` (its stages, including
//! `--live` and `--plugin`) and `jobs` (the steps made while it waits), drawn by
//! `indicatif`.
//!
//! The one rule: a bar is drawn only when standard error is a terminal. Elsewhere (a pipe,
//! a file, CI) nothing of it is written, and the plain lines a command writes anyway
//! ([`note!`](crate::note), the log) are all there is. Never on standard output, where the
//! results and JSON go. While a bar is drawn, those lines are written above it, so the two
//! never mix on the screen.

use std::fmt;
use std::io::{IsTerminal, Write};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use session_tools_host::telemetry::EVENTS;
use tracing::field::{Field, Visit};
use tracing::level_filters::LevelFilter;
use tracing_subscriber::filter::Targets;
use tracing_subscriber::layer::Context;
use tracing_subscriber::Layer;

/// The bar drawn now, if one is: lines go above it.
static DRAWN: Mutex<Option<ProgressBar>> = Mutex::new(None);

/// The bar that counts the library's job steps (`jobs`), if one does.
static STEPS: Mutex<Option<ProgressBar>> = Mutex::new(None);

/// How often a drawn bar is redrawn while the work blocks (its spinner and clock move).
const TICK: Duration = Duration::from_millis(120);

fn slot(slot: &Mutex<Option<ProgressBar>>) -> std::sync::MutexGuard<'_, Option<ProgressBar>> {
    // A bar is a handle; a panic while one was swapped leaves nothing half-done.
    slot.lock().unwrap_or_else(|p| p.into_inner())
}

/// Whether progress is drawn: standard error is a terminal.
pub fn shown() -> bool {
    std::io::stderr().is_terminal()
}

/// A bar for one long command; cleared when dropped.
pub struct Progress {
    bar: ProgressBar,
    begun: AtomicU64,
    /// Whether this bar is the drawn one, and the one counting job steps.
    drawn: bool,
    counts_steps: bool,
}

impl Progress {
    fn new(bar: ProgressBar, template: &str) -> Progress {
        let drawn = shown();
        if drawn {
            bar.set_draw_target(ProgressDrawTarget::stderr());
            bar.set_style(ProgressStyle::with_template(template).expect("the templates are this module's own"));
            bar.enable_steady_tick(TICK);
            *slot(&DRAWN) = Some(bar.clone());
        }
        Progress { bar, begun: AtomicU64::new(0), drawn, counts_steps: false }
    }

    /// A bar over `stages` stages, named as they begin ([`Self::stage`]).
    pub fn stages(what: &str, stages: u64) -> Progress {
        let bar = ProgressBar::with_draw_target(Some(stages), ProgressDrawTarget::hidden());
        Progress::new(bar, &format!("{{spinner}} {what} [{{elapsed_precise}}] {{bar:24}} {{pos}}/{{len}} {{msg}}"))
    }

    /// A count of the library's job steps, made while a command waits for them.
    pub fn job_steps(what: &str) -> Progress {
        let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::hidden());
        let mut progress = Progress::new(bar, &format!("{{spinner}} {what} [{{elapsed_precise}}] {{pos}} steps made {{msg}}"));
        if progress.drawn {
            *slot(&STEPS) = Some(progress.bar.clone());
            progress.counts_steps = true;
        }
        progress
    }

    /// The next stage begins: its `== name` line, and the bar's message.
    pub fn stage(&self, name: &str) {
        line(format_args!("== {name}"));
        self.bar.set_position(self.begun.fetch_add(1, Ordering::Relaxed));
        self.bar.set_message(name.to_string());
    }

    /// Clears the bar before the results are written (on the same screen).
    pub fn clear(&self) {
        self.bar.finish_and_clear();
    }

    /// What the current stage is doing, beside its name (the bar only).
    pub fn detail(&self, detail: fmt::Arguments<'_>) {
        self.bar.set_message(detail.to_string());
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        if self.counts_steps {
            *slot(&STEPS) = None;
        }
        if self.drawn {
            *slot(&DRAWN) = None;
        }
        self.bar.finish_and_clear();
    }
}

/// Writes `bytes` to standard error, above the bar if one is drawn.
fn write_above(bytes: &[u8]) {
    let write = || {
        let _ = std::io::stderr().lock().write_all(bytes);
    };
    let drawn = slot(&DRAWN).clone();
    match drawn {
        Some(bar) => bar.suspend(write),
        None => write(),
    }
}

/// A line on standard error, above the bar if one is drawn (see [`note!`](crate::note)).
pub fn line(args: fmt::Arguments<'_>) {
    write_above(format!("{args}\n").as_bytes());
}

/// `eprintln!` for commands that may draw a bar: the line goes above it.
#[macro_export]
macro_rules! note {
    ($($arg:tt)*) => {
        $crate::progress::line(format_args!($($arg)*))
    };
}

/// Standard error for the log (`tracing_subscriber`'s writer): each event written whole,
/// above the bar if one is drawn.
#[derive(Clone, Copy, Default)]
pub struct Stderr;

/// One log event's text, written when the event is done.
pub struct Event(Vec<u8>);

impl<'a> tracing_subscriber::fmt::MakeWriter<'a> for Stderr {
    type Writer = Event;

    fn make_writer(&'a self) -> Event {
        Event(Vec::new())
    }
}

impl Write for Event {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Drop for Event {
    fn drop(&mut self) {
        if !self.0.is_empty() {
            write_above(&self.0);
        }
    }
}

/// The layer that moves a [`Progress::job_steps`] bar at each of the library's `job_step`
/// events (whatever the log level).
pub fn layer<S>() -> impl Layer<S> + Send + Sync + 'static
where
    S: tracing::Subscriber + for<'a> tracing_subscriber::registry::LookupSpan<'a>,
{
    JobSteps.with_filter(Targets::new().with_target(EVENTS, LevelFilter::DEBUG))
}

struct JobSteps;

impl<S: tracing::Subscriber> Layer<S> for JobSteps {
    fn on_event(&self, event: &tracing::Event<'_>, _: Context<'_, S>) {
        let counting = slot(&STEPS).clone();
        let Some(bar) = counting else { return };
        let mut kind = EventKind(false);
        event.record(&mut kind);
        if kind.0 {
            bar.inc(1);
        }
    }
}

/// Whether an event's `event` field says `job_step`.
struct EventKind(bool);

impl Visit for EventKind {
    fn record_str(&mut self, field: &Field, value: &str) {
        if field.name() == "event" && value == "job_step" {
            self.0 = true;
        }
    }

    fn record_debug(&mut self, _: &Field, _: &dyn fmt::Debug) {}
}
