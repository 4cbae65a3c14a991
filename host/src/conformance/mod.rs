//! The conformance runner: each case is one tool call (or a describe, or a send-policy
//! evaluation) through the real component against a scripted gateway, checked against
//! what must come out (`tests/conformance/FORMAT.md`).

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use serde::Deserialize;
use serde_json::{json, Value};
use session_tools_contract::policy::{Decision, PolicyEntry, PolicyInput};
use session_tools_contract::{Caller, ToolError};
use session_tools_contract::{Host, LogLevel};

use crate::config::GuestConfig;
use crate::gateway::pattern::{self, matches};
use crate::gateway::scripted::{RecordedCall, ScriptedGateway};
use crate::gateway::wire;
use crate::limits::Limits;
use crate::sandbox::{AgentSetup, CallError, Runtime};

/// The default virtual time of a case.
pub const DEFAULT_NOW: i64 = 1_767_225_600_000;
/// The state directory conformance runs pretend to have.
pub const STATE_DIR: &str = "/state";

/// One case file.
#[derive(Debug, Clone, Deserialize)]
pub struct Case {
    /// The case's name.
    pub name: String,
    #[serde(default)]
    /// Where the expectation comes from (a reference section, a decision).
    pub source: Option<String>,
    #[serde(default)]
    /// The scripted clock, in ms since the epoch.
    pub now: Option<i64>,
    #[serde(default)]
    /// The deployment config the case runs with.
    pub config: Option<Value>,
    #[serde(default)]
    /// The caller's context.
    pub context: Option<Value>,
    #[serde(default)]
    /// The scripted gateway's answers.
    pub gateway: Option<Value>,
    /// The tool call.
    pub call: Value,
    /// What the call must answer (a pattern).
    pub expect: Value,
}

/// A case as loaded from disk (or embedded).
#[derive(Debug, Clone)]
pub struct CaseFile {
    /// The file name.
    pub file: String,
    /// The file's text.
    pub text: String,
}

mod embedded {
    include!(concat!(env!("OUT_DIR"), "/conformance_cases.rs"));
}

/// The project's own copy of the public cases, built into the binary.
pub fn builtin_cases() -> Vec<CaseFile> {
    embedded::CASES.iter().map(|(file, text)| CaseFile { file: file.to_string(), text: text.to_string() }).collect()
}

/// Loads the `*.json` files of a directory, sorted by name.
pub fn load_dir(dir: &Path) -> std::io::Result<Vec<CaseFile>> {
    let mut files: Vec<PathBuf> =
        std::fs::read_dir(dir)?.filter_map(|e| e.ok().map(|e| e.path())).filter(|p| p.extension().is_some_and(|e| e == "json")).collect();
    files.sort();
    files
        .into_iter()
        .map(|path| {
            let text = std::fs::read_to_string(&path)?;
            let file = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
            Ok(CaseFile { file, text })
        })
        .collect()
}

/// The clock, ids and log of a case: virtual time that does not advance.
struct CaseServices {
    now: u64,
    log: Mutex<Vec<String>>,
}

impl Host for CaseServices {
    fn now_ms(&self) -> u64 {
        self.now
    }

    fn new_uuid(&self) -> String {
        uuid::Uuid::new_v4().to_string()
    }

    fn log(&self, level: LogLevel, message: &str) {
        crate::poison::lock_whole(&self.log).push(format!("{level:?}: {message}"));
    }
}

fn context_str(context: &Value, key: &str) -> Option<String> {
    match context.get(key)? {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// The caller of a case's `context`.
pub fn caller_of(context: Option<&Value>) -> Caller {
    let empty = json!({});
    let c = context.unwrap_or(&empty);
    Caller {
        agent_session_key: context_str(c, "agentSessionKey"),
        agent_channel: context_str(c, "agentChannel"),
        agent_account_id: context_str(c, "agentAccountId"),
        agent_to: context_str(c, "agentTo"),
        agent_thread_id: wire::answers::thread_id(c.get("agentThreadId")).map(|t| t.to_text()),
        agent_group_id: context_str(c, "agentGroupId"),
        agent_group_channel: context_str(c, "agentGroupChannel"),
        agent_group_space: context_str(c, "agentGroupSpace"),
        sandboxed: c.get("sandboxed") == Some(&Value::Bool(true)),
        requester_agent_id_override: context_str(c, "requesterAgentIdOverride"),
    }
}

fn policy_input(spec: &Value) -> PolicyInput {
    let text = |v: &Value, k: &str| v.get(k).and_then(Value::as_str).map(str::to_string);
    PolicyInput {
        entry: spec.get("entry").filter(|e| e.is_object()).map(|e| PolicyEntry {
            send_policy: text(e, "sendPolicy"),
            channel: text(e, "channel"),
            last_channel: text(e, "lastChannel"),
            chat_type: text(e, "chatType"),
        }),
        session_key: text(spec, "sessionKey"),
        channel: text(spec, "channel"),
        chat_type: text(spec, "chatType"),
    }
}

/// What a case's call produced.
enum Produced {
    Result(Value),
    ToolError(String),
}

/// The outcome of one case.
#[derive(Debug, Clone)]
pub struct CaseReport {
    /// The case file.
    pub file: String,
    /// The case's name.
    pub name: String,
    /// Empty when the case passed.
    pub failures: Vec<String>,
    /// The tool called and the JSON result it answered, when the case called a tool and
    /// got a result (for checks beyond the case's own, such as a result schema).
    pub result: Option<(String, Value)>,
}

impl CaseReport {
    /// Whether every expectation held.
    pub fn passed(&self) -> bool {
        self.failures.is_empty()
    }
}

fn show_call(call: &RecordedCall) -> String {
    let mut params = call.params.to_string();
    if params.len() > 400 {
        let mut cut = 400;
        while !params.is_char_boundary(cut) {
            cut -= 1;
        }
        params.truncate(cut);
        params.push('…');
    }
    format!("{} {params}", call.method)
}

fn call_matches(expected: &Value, call: &RecordedCall) -> Result<(), String> {
    let method = expected.get("method").and_then(Value::as_str).unwrap_or("");
    if method != call.method {
        return Err(format!("method {} is not {method}", call.method));
    }
    match expected.get("params") {
        Some(params) => matches(params, Some(&call.params), "/params").map_err(|m| m.to_string()),
        None => Ok(()),
    }
}

/// Checks the recorded calls against `calls`, `callsExact`, `callCounts` and `noCalls`.
fn check_calls(expect: &Value, calls: &[RecordedCall], failures: &mut Vec<String>) {
    let listing = || {
        let mut out = String::from("recorded calls:");
        if calls.is_empty() {
            out.push_str(" (none)");
        }
        for (i, c) in calls.iter().enumerate() {
            out.push_str(&format!("\n        {i}: {}", show_call(c)));
        }
        out
    };
    if let Some(expected) = expect.get("calls").and_then(Value::as_array) {
        let exact = expect.get("callsExact") == Some(&Value::Bool(true));
        if exact {
            if expected.len() != calls.len() {
                failures.push(format!("calls: expected exactly {} calls, got {}; {}", expected.len(), calls.len(), listing()));
            } else {
                for (i, (e, c)) in expected.iter().zip(calls).enumerate() {
                    if let Err(why) = call_matches(e, c) {
                        failures.push(format!("calls[{i}]: {why}; {}", listing()));
                        break;
                    }
                }
            }
        } else {
            let mut next = 0;
            let mut closest: Option<String> = None;
            for call in calls {
                if next == expected.len() {
                    break;
                }
                match call_matches(&expected[next], call) {
                    Ok(()) => {
                        next += 1;
                        closest = None;
                    }
                    Err(why) if call.method == expected[next].get("method").and_then(Value::as_str).unwrap_or("") => {
                        closest.get_or_insert(why);
                    }
                    Err(_) => {}
                }
            }
            if next < expected.len() {
                let wanted = &expected[next];
                let hint = closest.map_or(String::new(), |why| format!(" (nearest {why})"));
                failures.push(format!("calls: expected call #{next} {wanted} was not made in order{hint}; {}", listing()));
            }
        }
    }
    if let Some(counts) = expect.get("callCounts").and_then(Value::as_object) {
        for (method, count) in counts {
            let actual = calls.iter().filter(|c| &c.method == method).count();
            if count.as_u64() != Some(actual as u64) {
                failures.push(format!("callCounts: expected {count} {method} calls, got {actual}"));
            }
        }
    }
    if let Some(none) = expect.get("noCalls").and_then(Value::as_array) {
        for method in none.iter().filter_map(Value::as_str) {
            let made = calls.iter().filter(|c| c.method == method).count();
            if made > 0 {
                failures.push(format!("noCalls: {method} was called {made} times"));
            }
        }
    }
}

/// Runs one case through the real component.
pub fn run_case(runtime: &Runtime, file: &CaseFile) -> CaseReport {
    let case: Case = match serde_json::from_str(&file.text) {
        Ok(case) => case,
        Err(e) => {
            return CaseReport {
                file: file.file.clone(),
                name: "(unreadable case)".into(),
                failures: vec![format!("invalid case file: {e}")],
                result: None,
            }
        }
    };
    let mut report = CaseReport { file: file.file.clone(), name: case.name.clone(), failures: Vec::new(), result: None };
    let now = case.now.unwrap_or(DEFAULT_NOW);
    let gateway = match ScriptedGateway::from_json(case.gateway.as_ref(), now) {
        Ok(g) => Arc::new(g),
        Err(e) => {
            report.failures.push(format!("invalid gateway script: {e}"));
            return report;
        }
    };
    let services = Arc::new(CaseServices { now: now.max(0) as u64, log: Mutex::new(Vec::new()) });
    let setup = AgentSetup {
        name: file.file.clone(),
        gateway: gateway.clone(),
        services: services.clone(),
        config: case.config.as_ref().map_or_else(GuestConfig::empty, GuestConfig::of),
        state_dir: STATE_DIR.into(),
        limits: Limits::default(),
    };
    let produced = produce(runtime, &setup, &case);
    let produced = match produced {
        Ok(p) => p,
        Err(e) => {
            report.failures.push(format!("the call did not complete: {e}"));
            return report;
        }
    };
    if let (Some(tool), Produced::Result(value)) = (case.call.get("tool").and_then(Value::as_str), &produced) {
        report.result = Some((tool.to_string(), value.clone()));
    }
    match (case.expect.get("result"), case.expect.get("toolError"), &produced) {
        (Some(pattern), _, Produced::Result(value)) => {
            if let Err(m) = matches(pattern, Some(value), "") {
                report.failures.push(format!("result {m}"));
            }
        }
        (Some(_), _, Produced::ToolError(e)) => report.failures.push(format!("expected a result, the tool failed: {e}")),
        (None, Some(pattern), Produced::ToolError(e)) => {
            if let Err(m) = matches(pattern, Some(&Value::String(e.clone())), "") {
                report.failures.push(format!("toolError {m}"));
            }
        }
        (None, Some(_), Produced::Result(value)) => {
            report.failures.push(format!("expected a tool error, got the result {}", pattern::show(value)))
        }
        (None, None, _) => {}
    }
    check_calls(&case.expect, &gateway.calls(), &mut report.failures);
    if !report.passed() {
        let log = crate::poison::lock_whole(&services.log);
        for line in log.iter().take(10) {
            report.failures.push(format!("(log) {line}"));
        }
    }
    report
}

fn produce(runtime: &Runtime, setup: &AgentSetup, case: &Case) -> Result<Produced, CallError> {
    let mut sandbox = runtime.instantiate(setup)?;
    if case.call.get("describe") == Some(&Value::Bool(true)) {
        let tools = sandbox.describe()?;
        let described = tools
            .into_iter()
            .map(|t| {
                let parameters: Value = serde_json::from_str(&t.parameters).unwrap_or(Value::Null);
                json!({"name": t.name, "description": t.description, "parameters": parameters})
            })
            .collect();
        return Ok(Produced::Result(Value::Array(described)));
    }
    if let Some(spec) = case.call.get("sendPolicy") {
        let (decision, _why) = sandbox.evaluate_send_policy(&policy_input(spec))?;
        return Ok(Produced::Result(json!(match decision {
            Decision::Allow => "allow",
            Decision::Deny => "deny",
        })));
    }
    let tool = case.call.get("tool").and_then(Value::as_str).unwrap_or("");
    let args = case.call.get("args").map_or_else(|| "{}".to_string(), Value::to_string);
    let caller = caller_of(case.context.as_ref());
    match sandbox.call_tool(tool, &caller, &args) {
        Ok(output) => {
            // Background work runs to completion before the expectations are checked;
            // virtual time does not advance, so timers never fire.
            sandbox.run_jobs(&caller, output.jobs)?;
            let value = serde_json::from_str(&output.result).map_err(|e| CallError::BadAnswer(format!("result is not JSON: {e}")))?;
            Ok(Produced::Result(value))
        }
        Err(CallError::Tool(error)) => Ok(Produced::ToolError(match error {
            ToolError::InvalidArguments(m) | ToolError::Failed(m) => m,
            other => other.to_string(),
        })),
        Err(other) => Err(other),
    }
}

/// Runs cases and reports each.
pub fn run_all(runtime: &Runtime, files: &[CaseFile]) -> Vec<CaseReport> {
    files.iter().map(|f| run_case(runtime, f)).collect()
}

/// Prints one line per failing case (with its diff lines) and the summary line; answers
/// whether everything passed.
pub fn print_reports(reports: &[CaseReport], out: &mut dyn std::io::Write) -> std::io::Result<bool> {
    let failed = reports.iter().filter(|r| !r.passed()).count();
    for report in reports.iter().filter(|r| !r.passed()) {
        writeln!(out, "FAIL {}: {}", report.file, report.name)?;
        for failure in &report.failures {
            writeln!(out, "    {failure}")?;
        }
    }
    writeln!(out, "{} passed, {} failed", reports.len() - failed, failed)?;
    Ok(failed == 0)
}
