//! The command line's log: the `tracing` subscriber for the library's events and lines
//! (`session_tools_host::telemetry`) and the command line's own, on standard error (never
//! standard output: `mcp` speaks its protocol there), above a progress bar when one is
//! drawn (`progress.rs`, whose job-step count is a layer here too).
//!
//! `--log-level` is a level for the project's own targets (`warn` by default, `info` with
//! `--verbose`), or a list of `target=level` directives for any target (e.g.
//! `info,rmcp=debug`); `--log-format json` writes one JSON object a line, a tool call's
//! line carrying its agent, tool, outcome and duration as fields.

use std::str::FromStr;

use anyhow::{anyhow, Result};
use clap::{Args, ValueEnum};
use tracing::level_filters::LevelFilter;
use tracing_subscriber::filter::Targets;
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;
use tracing_subscriber::Layer;

use crate::metrics::Metrics;
use crate::progress::Stderr;

/// The targets a bare level applies to: the library's and the command line's.
const OWN_TARGETS: &str = "session_tools";

/// How log lines are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum LogFormat {
    /// A line of text each.
    Text,
    /// A JSON object a line.
    Json,
}

/// The log options every command takes.
#[derive(Args, Debug, Clone)]
pub struct LogArgs {
    /// What to log: `error`, `warn`, `info`, `debug`, `trace` or `off` (the project's own
    /// lines), or `target=level` directives separated by commas (default: `warn`, `info`
    /// with --verbose).
    #[arg(long, global = true, value_name = "LEVEL", env = "SESSION_TOOLS_LOG_LEVEL", help_heading = "Logging")]
    pub log_level: Option<String>,
    /// How to write log lines on standard error.
    #[arg(long, global = true, value_name = "FORMAT", value_enum, default_value_t = LogFormat::Text, help_heading = "Logging")]
    pub log_format: LogFormat,
}

/// The filter `--log-level` says (with `--verbose` as the default's alternative).
pub fn filter(level: Option<&str>, verbose: bool) -> Result<Targets> {
    let text = level.map(str::trim).unwrap_or(if verbose { "info" } else { "warn" });
    if let Ok(level) = LevelFilter::from_str(text) {
        return Ok(Targets::new().with_target(OWN_TARGETS, level));
    }
    Targets::from_str(text)
        .map_err(|e| anyhow!("--log-level {text:?}: {e} (expected a level such as `info`, or directives such as `info,rmcp=debug`)"))
}

/// Installs the process's subscriber, unless one is installed already: the log on
/// standard error, and the counters of `metrics` (whatever the log level) when given.
pub fn install(args: &LogArgs, verbose: bool, metrics: Option<Metrics>) -> Result<()> {
    let filter = filter(args.log_level.as_deref(), verbose)?;
    let log = match args.log_format {
        LogFormat::Text => tracing_subscriber::fmt::layer().with_writer(Stderr).with_ansi(false).boxed(),
        LogFormat::Json => tracing_subscriber::fmt::layer().json().with_writer(Stderr).with_current_span(true).boxed(),
    }
    .with_filter(filter);
    let counted = metrics.map(|m| m.layer());
    // A program that embeds this crate may have installed its own: that one stays.
    let _ = tracing_subscriber::registry().with(log).with(counted).with(crate::progress::layer()).try_init();
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_and_directives() {
        assert!(filter(None, false).unwrap().would_enable("session_tools_host::log", &tracing::Level::WARN));
        assert!(!filter(None, false).unwrap().would_enable("session_tools_host::log", &tracing::Level::INFO));
        assert!(filter(None, true).unwrap().would_enable("session_tools_host::events", &tracing::Level::INFO));
        // A bare level is for the project's targets only.
        assert!(!filter(Some("info"), false).unwrap().would_enable("rmcp::service", &tracing::Level::WARN));
        let directives = filter(Some("warn,rmcp=debug"), false).unwrap();
        assert!(directives.would_enable("rmcp::service", &tracing::Level::DEBUG));
        assert!(filter(Some("rmcp=loud"), false).unwrap_err().to_string().contains("--log-level \"rmcp=loud\""));
    }
}
