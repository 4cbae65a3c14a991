//! `session-tools doctor`: what the commands would work on, checked one thing at a time,
//! each problem with its fix. Exit 0 when commands can work, 1 otherwise. It reads only
//! (besides the compiled-component cache, which it uses as any command does).

use std::path::{Path, PathBuf};

use anyhow::Result;
use serde_json::{json, Map, Value};
use session_tools_host::config::{DeploymentConfig, CONFIG_NAMES};
use session_tools_host::gateway::embedded::{detect_layout, Layout};
use session_tools_host::{CacheOutcome, Limits, Runtime};

use crate::backend::choice::{self, Target};
use crate::backend::{open, Backend, StateDir};
use crate::options::{component, engine_options, Global};
use crate::show::print_json;

/// How a check came out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Status {
    /// As it should be.
    Ok,
    /// Worth knowing; commands work.
    Note,
    /// Commands cannot work until it is fixed.
    Problem,
}

impl Status {
    fn word(self) -> &'static str {
        match self {
            Status::Ok => "ok",
            Status::Note => "note",
            Status::Problem => "problem",
        }
    }
}

/// One thing checked.
struct Check {
    topic: &'static str,
    status: Status,
    says: String,
    fix: Option<String>,
}

/// The checks, and the facts found on the way (for `--json`).
#[derive(Default)]
struct Report {
    checks: Vec<Check>,
    facts: Map<String, Value>,
}

impl Report {
    fn check(&mut self, topic: &'static str, status: Status, says: impl Into<String>, fix: Option<String>) {
        self.checks.push(Check { topic, status, says: says.into(), fix });
    }

    fn fact(&mut self, name: &str, value: Value) {
        self.facts.insert(name.into(), value);
    }

    fn works(&self) -> bool {
        self.checks.iter().all(|c| c.status != Status::Problem)
    }
}

pub fn run(global: &Global, json: bool) -> Result<i32> {
    let report = examine(global);
    if json {
        let checks: Vec<Value> =
            report.checks.iter().map(|c| json!({"topic": c.topic, "status": c.status.word(), "says": c.says, "fix": c.fix})).collect();
        let mut value = Map::new();
        value.insert("ok".into(), json!(report.works()));
        value.extend(report.facts.clone());
        value.insert("checks".into(), Value::Array(checks));
        print_json(&Value::Object(value))?;
    } else {
        for c in &report.checks {
            crate::outln!("{:<8} {:<20} {}", c.status.word(), c.topic, c.says);
            if let Some(fix) = &c.fix {
                crate::outln!("{:<8} {:<20} fix: {fix}", "", "");
            }
        }
        crate::outln!("{}", if report.works() { "Commands can work." } else { "Commands cannot work until the problems above are fixed." });
    }
    Ok(if report.works() { 0 } else { 1 })
}

fn examine(global: &Global) -> Report {
    let mut report = Report::default();
    let (state, from) = global.state_dir();
    report.fact("stateDir", json!(state.display().to_string()));
    report.fact("stateDirFrom", json!(from));
    let exists = state.is_dir();
    if exists {
        report.check("state directory", Status::Ok, format!("{} (from {from})", state.display()), None);
    } else {
        report.check(
            "state directory",
            Status::Problem,
            format!("{} (from {from}) does not exist", state.display()),
            Some("name the OpenClaw state directory with --state DIR or OPENCLAW_STATE_DIR".into()),
        );
    }
    if exists {
        layout(&mut report, &state);
        config(&mut report, global, &state);
    }
    component_cache(&mut report, global);
    if exists && report.works() {
        backend(&mut report, global, &state);
    }
    report
}

fn layout(report: &mut Report, state: &Path) {
    match detect_layout(state) {
        Ok(layout) => {
            let (name, era) = match layout {
                Layout::Files => ("files", "2026.1"),
                Layout::Sqlite => ("sqlite", "2026.9"),
            };
            report.fact("layout", json!(name));
            report.fact("era", json!(era));
            report.check("layout", Status::Ok, format!("{} (OpenClaw {era})", layout.describe()), None);
        }
        Err(why) => report.check("layout", Status::Problem, why, Some("run `openclaw doctor --fix`, or move the legacy store out".into())),
    }
}

fn config(report: &mut Report, global: &Global, state: &Path) {
    let file: Option<PathBuf> = match &global.config {
        Some(path) => Some(path.clone()),
        None => CONFIG_NAMES.iter().map(|n| state.join(n)).find(|p| p.is_file()),
    };
    report.fact("configFile", json!(file.as_ref().map(|f| f.display().to_string())));
    match DeploymentConfig::load(state, global.config.as_deref()) {
        Ok(_) => match &file {
            Some(file) => report.check("config", Status::Ok, file.display().to_string(), None),
            None => report.check("config", Status::Note, format!("none in {}: OpenClaw's defaults apply", state.display()), None),
        },
        Err(e) => report.check(
            "config",
            Status::Problem,
            e.to_string(),
            Some("correct the file where the message says (OpenClaw reads JSON5), or name another with --config".into()),
        ),
    }
}

fn component_cache(report: &mut Report, global: &Global) {
    let options = engine_options(global);
    let Some(dir) = options.cache_dir.clone() else {
        report.fact("cache", json!({"path": null, "outcome": "off"}));
        report.check("component cache", Status::Note, "off: the component is compiled at every start", None);
        return;
    };
    let bytes = match component(global) {
        Ok(bytes) => bytes,
        Err(e) => {
            report.check("component", Status::Problem, format!("{e:#}"), Some("name a component file that exists with --component".into()));
            return;
        }
    };
    let runtime = Runtime::new(bytes.as_deref().unwrap_or(session_tools_host::COMPONENT), &options, &Limits::default());
    let owner = owner_and_mode(&dir);
    let mut fact = json!({"path": dir.display().to_string(), "owner": owner.as_ref().map(|o| o.0), "mode": owner.as_ref().map(|o| format!("{:o}", o.1))});
    let shown = match &owner {
        Some((uid, mode)) => format!("{} (owner uid {uid}, mode {mode:o})", dir.display()),
        None => format!("{} (not made yet)", dir.display()),
    };
    match runtime {
        Err(e) => report.check("component", Status::Problem, format!("the component cannot be loaded: {e}"), None),
        Ok(runtime) => {
            let (status, outcome, fix) = match runtime.cache_outcome() {
                CacheOutcome::Off => (Status::Note, "off".to_string(), None),
                CacheOutcome::Loaded => (Status::Ok, "used".to_string(), None),
                CacheOutcome::Filled => (Status::Ok, "filled now".to_string(), None),
                CacheOutcome::Replaced(why) => (Status::Note, format!("was damaged ({why}); replaced"), None),
                CacheOutcome::Refused(why) => (
                    Status::Note,
                    format!("refused: {why}; the component is compiled at every start"),
                    Some(format!("make {} yours and private (chmod 700), or set SESSION_TOOLS_CACHE_DIR", dir.display())),
                ),
                CacheOutcome::NotWritten(why) => (Status::Note, format!("not written: {why}"), None),
                _ => (Status::Note, "unknown".to_string(), None),
            };
            fact["outcome"] = json!(outcome);
            report.check("component cache", status, format!("{shown}: {outcome}"), fix);
        }
    }
    report.fact("cache", fact);
}

#[cfg(unix)]
fn owner_and_mode(dir: &Path) -> Option<(u32, u32)> {
    use std::os::unix::fs::MetadataExt;
    let meta = std::fs::metadata(dir).ok()?;
    Some((meta.uid(), meta.mode() & 0o7777))
}

#[cfg(not(unix))]
fn owner_and_mode(_dir: &Path) -> Option<(u32, u32)> {
    None
}

fn backend(report: &mut Report, global: &Global, state: &Path) {
    let found = choice::find_running(global, state);
    report.fact("gatewayFound", json!(found.as_ref().map(ToString::to_string)));
    match &found {
        Some(finding) => report.check("running gateway", Status::Ok, format!("found: {finding}"), None),
        None => report.check("running gateway", Status::Ok, "none of the state directory's is running", None),
    }
    let opened = match open(global, state.to_path_buf(), StateDir::MustExist) {
        Ok(opened) => opened,
        Err(e) => {
            let chose = choice::choose(global, state).ok();
            let fix = match chose.as_ref().map(|c| &c.target) {
                Some(Target::Local | Target::Url(_)) => {
                    "check the gateway's address and secret (--token, --password, gateway.auth in the config), or work on the files with --files"
                }
                _ => "see the message",
            };
            report.fact("backend", json!(chose.map(|c| format!("{:?}", c.target).to_lowercase())));
            report.check("backend", Status::Problem, format!("{e:#}"), Some(fix.into()));
            return;
        }
    };
    report.fact("backendFrom", json!(opened.choice.source.to_string()));
    match &opened.backend {
        Backend::Live(gateway) => {
            report.fact("backend", json!("gateway"));
            report.fact(
                "gateway",
                json!({"url": gateway.url(), "reachable": true, "protocol": gateway.protocol(), "authAccepted": true,
                       "version": gateway.server_version(), "stateDir": gateway.state_dir()}),
            );
            report.check(
                "backend",
                Status::Ok,
                format!(
                    "{} (protocol {}, OpenClaw {}; auth accepted) — {}",
                    opened.describe(),
                    gateway.protocol(),
                    gateway.server_version().unwrap_or("of unknown version"),
                    opened.choice.source
                ),
                None,
            );
            report.check("agent runtime", Status::Ok, "the gateway's own agents answer runs", None);
        }
        Backend::Embedded(_) => {
            report.fact("backend", json!("files"));
            report.check("backend", Status::Ok, format!("{} — {}", opened.describe(), opened.choice.source), None);
            match &global.runtime {
                Some(runtime) => {
                    report.fact("runtime", json!(runtime.to_string()));
                    report.check(
                        "agent runtime",
                        Status::Note,
                        format!("{runtime}: for a demonstration or a test (no model answers)"),
                        None,
                    )
                }
                None => {
                    report.fact("runtime", Value::Null);
                    report.check(
                        "agent runtime",
                        Status::Note,
                        "none: reads work; sends and spawns are refused until the state directory's gateway runs",
                        Some("start the OpenClaw gateway (it is found), or choose --runtime echo for a demonstration".into()),
                    )
                }
            }
        }
    }
    let pending = opened.service.pending_jobs();
    report.fact("pendingJobs", json!(pending.len()));
    if pending.is_empty() {
        report.check("background jobs", Status::Ok, "none pending", None);
    } else {
        let kinds: Vec<String> = pending.iter().map(|j| format!("{} for {}", j.kind, j.session_key)).take(5).collect();
        report.check(
            "background jobs",
            Status::Note,
            format!("{} pending ({}{})", pending.len(), kinds.join(", "), if pending.len() > 5 { ", …" } else { "" }),
            Some("run them with `session-tools jobs`".into()),
        );
    }
}
