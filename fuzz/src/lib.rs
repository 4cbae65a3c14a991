//! What the fuzz targets share: a clock/ids/log host, a gateway that answers from a queue
//! of JSON answers (read by the gateway wire's functions, as both hosts do), fixed
//! callers and configs, and the checks every tool answer must pass.
//!
//! Input format of `tool_args`, `gateway_answers` and `component_call`: three leading
//! bytes choose the tool, the caller and the config (each taken modulo the table size, so
//! `0`–`9` digits make readable corpus files); the rest is the payload.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

use serde_json::value::RawValue;
use serde_json::{json, Value};
use session_tools_guest::config::Config;
use session_tools_guest::context::{Caller, Env, Job, ToolError, ToolOutput, Wake, Wakeup};
use session_tools_guest::history::MAX_HISTORY_BYTES;
use session_tools_guest::jobs;
use session_tools_guest::ports::*;

/// The gateway wire's reading of answers (`wire/`, the crate both hosts' wire component is
/// built from), used natively so the native targets need not build wasmtime.
pub use session_tools_wire::answers as wire;

/// What the targets over the host share (feature `host`).
#[cfg(feature = "host")]
pub mod host;

/// The reference's definitions the targets check against, shared with `tests/properties.rs`.
#[path = "../../tests/src/oracles.rs"]
pub mod oracles;

pub const NOW: u64 = 1_767_225_600_000;

pub const TOOLS: [&str; 5] = ["sessions_list", "sessions_history", "sessions_send", "sessions_spawn", "agents_list"];

/// A fixed clock, counted ids, no log.
pub struct Services {
    ids: AtomicU64,
}

impl Services {
    pub fn new() -> Services {
        Services { ids: AtomicU64::new(0) }
    }
}

impl Default for Services {
    fn default() -> Self {
        Services::new()
    }
}

impl Host for Services {
    fn now_ms(&self) -> u64 {
        NOW
    }

    fn new_uuid(&self) -> String {
        format!("00000000-0000-4000-8000-{:012x}", self.ids.fetch_add(1, Ordering::Relaxed))
    }

    fn log(&self, _level: LogLevel, _message: &str) {}
}

/// Answers every gateway call with the next JSON answer of a queue, whatever the method:
/// `{"error": …}` is an error, anything else is converted with `wire` for the method. When
/// the queue is empty, plausible defaults keep the flows going (runs end `ok` with a reply).
pub struct QueueGateway {
    answers: Mutex<VecDeque<Value>>,
    runs: AtomicU64,
    calls: AtomicU64,
}

/// Gateway calls one input may make (flows that never end are cut off here).
pub const MAX_GATEWAY_CALLS: u64 = 5_000;

impl QueueGateway {
    pub fn new(answers: Vec<Value>) -> QueueGateway {
        QueueGateway { answers: Mutex::new(answers.into()), runs: AtomicU64::new(0), calls: AtomicU64::new(0) }
    }

    fn next(&self) -> Option<Result<Value, GatewayError>> {
        if self.calls.fetch_add(1, Ordering::Relaxed) >= MAX_GATEWAY_CALLS {
            return Some(Err(GatewayError::new("too many gateway calls")));
        }
        let answer = self.answers.lock().unwrap_or_else(|p| p.into_inner()).pop_front()?;
        Some(match answer.get("error") {
            Some(Value::String(e)) => Err(GatewayError::new(e.clone())),
            Some(other) => Err(GatewayError::new(other.to_string())),
            None => Ok(answer),
        })
    }
}

impl Gateway for QueueGateway {
    fn sessions_list(&self, _: &ListParams) -> GatewayResult<SessionList> {
        match self.next() {
            Some(answer) => answer.map(|v| wire::session_list(&v)),
            None => Ok(SessionList::default()),
        }
    }

    fn sessions_resolve(&self, p: &ResolveParams) -> GatewayResult<String> {
        match self.next() {
            Some(answer) => answer.map(|v| wire::resolved_key(&v)),
            None => Ok(p.key.clone().unwrap_or_default()),
        }
    }

    fn chat_history(&self, _: &HistoryParams) -> GatewayResult<History> {
        match self.next() {
            Some(answer) => answer.map(|v| wire::history(session_tools_wire::Era::V4, &v)),
            None => Ok(wire::history(session_tools_wire::Era::V4, &json!({"messages": [
                {"role": "user", "content": [{"type": "text", "text": "hi"}]},
                {"role": "assistant", "content": [{"type": "text", "text": "done"}]},
            ]}))),
        }
    }

    fn agent(&self, _: &AgentParams) -> GatewayResult<AgentAccepted> {
        match self.next() {
            Some(answer) => answer.map(|v| wire::agent_accepted(&v)),
            None => Ok(AgentAccepted { run_id: Some(format!("run-{}", self.runs.fetch_add(1, Ordering::Relaxed))) }),
        }
    }

    fn agent_wait(&self, _: &WaitParams) -> GatewayResult<WaitResult> {
        match self.next() {
            Some(answer) => answer.map(|v| wire::wait_result(&v)),
            None => Ok(WaitResult {
                status: Some("ok".into()),
                started_at: Some(NOW as i64),
                ended_at: Some(NOW as i64 + 1500),
                ..WaitResult::default()
            }),
        }
    }

    fn send(&self, _: &SendParams) -> GatewayResult<()> {
        self.next().unwrap_or(Ok(Value::Null)).map(|_| ())
    }

    fn sessions_patch(&self, _: &PatchParams) -> GatewayResult<()> {
        self.next().unwrap_or(Ok(Value::Null)).map(|_| ())
    }

    fn sessions_delete(&self, _: &DeleteParams) -> GatewayResult<()> {
        self.next().unwrap_or(Ok(Value::Null)).map(|_| ())
    }
}

/// Answers that take the tools a long way: a resolved key, sessions, a transcript.
pub fn default_answers() -> Vec<Value> {
    vec![
        json!({"key": "agent:main:discord:group:dev"}),
        json!({"path": "/state/agents/main/sessions/sessions.json", "sessions": [
            {"key": "agent:main:main", "kind": "direct", "sessionId": "s-main", "updatedAt": 10, "lastChannel": "whatsapp", "lastTo": "+1"},
            {"key": "agent:main:discord:group:dev", "kind": "group", "sessionId": "s-dev", "channel": "discord", "label": "dev"},
            {"key": "agent:main:subagent:1", "spawnedBy": "agent:main:main", "label": "worker"},
            {"key": "agent:ops:main", "deliveryContext": {"channel": "telegram", "to": "42", "threadId": 7}},
        ]}),
        json!({"sessionId": "s-dev", "messages": [
            {"role": "user", "content": [{"type": "text", "text": "hello"}]},
            {"role": "toolResult", "content": []},
            {"role": "assistant", "content": [{"type": "text", "text": "<think>x</think>hi there"}]},
        ]}),
    ]
}

/// The callers the first-but-one input byte chooses from.
pub fn caller(selector: u8) -> Caller {
    let key = |k: &str| Some(k.to_string());
    let base = Caller::default();
    match selector % 10 {
        0 => base,
        1 => Caller { agent_session_key: key("agent:main:main"), ..base },
        2 => Caller { agent_session_key: key("main"), sandboxed: true, ..base },
        3 => Caller { agent_session_key: key("agent:main:subagent:abc"), ..base },
        4 => Caller { agent_session_key: key("agent:ops:main"), agent_channel: key("discord"), agent_to: key("channel:1"), ..base },
        5 => Caller {
            agent_session_key: key("agent:main:discord:group:dev"),
            agent_channel: key("discord"),
            agent_thread_id: key("42"),
            agent_group_id: key("dev"),
            sandboxed: true,
            ..base
        },
        6 => Caller { agent_session_key: key("global"), ..base },
        7 => Caller { agent_session_key: key("agent:main:main"), sandboxed: true, agent_channel: key("whatsapp"), ..base },
        8 => Caller { agent_session_key: key(" agent::Ops::x: "), agent_account_id: key("acct"), ..base },
        _ => Caller { agent_session_key: key("agent:main:main"), requester_agent_id_override: key("ops"), ..base },
    }
}

/// The configs the third input byte chooses from (OpenClaw's JSON shape).
pub const CONFIGS: [&str; 6] = [
    "{}",
    r#"{"tools":{"agentToAgent":{"enabled":true,"allow":["*"]}}}"#,
    r#"{"session":{"scope":"global","mainKey":"work"},"tools":{"agentToAgent":{"enabled":true}}}"#,
    r#"{"session":{"sendPolicy":{"default":"deny","rules":[{"action":"allow","match":{"channel":"discord"}},{"action":"deny","match":{"keyPrefix":"cron:"}}]}}}"#,
    r#"{"agents":{"defaults":{"sandbox":{"sessionToolsVisibility":"all"},"subagents":{"archiveAfterMinutes":1,"model":"openai/gpt-5.2"}},"list":[{"id":"main","default":true,"subagents":{"allowAgents":["*"]}},{"id":"ops","name":"Ops"}]},"tools":{"subagents":{"tools":{"allow":["sessions_*"]}}}}"#,
    r#"{"session":{"agentToAgent":{"maxPingPongTurns":5}},"tools":{"agentToAgent":{"enabled":true,"allow":["main","o*"]}},"models":{"providers":{"openai":{"models":[{"id":"gpt-5.2","cost":{"input":1.25,"output":10}}]}}}}"#,
];

pub fn config(selector: u8) -> (&'static str, Config) {
    let json = CONFIGS[selector as usize % CONFIGS.len()];
    (json, Config::parse(json, "/state").expect("the fixed configs are valid"))
}

/// Valid arguments for each tool (used when the payload carries only gateway answers).
pub fn valid_args(tool: &str) -> &'static str {
    match tool {
        "sessions_list" => r#"{"kinds":["main","group","other"],"limit":20,"messageLimit":2}"#,
        "sessions_history" => r#"{"sessionKey":"discord:group:dev","limit":20,"includeTools":true}"#,
        "sessions_send" => r#"{"sessionKey":"discord:group:dev","message":"ping","timeoutSeconds":5}"#,
        "sessions_spawn" => r#"{"task":"do it","label":"worker","cleanup":"delete","runTimeoutSeconds":30}"#,
        _ => "{}",
    }
}

/// A fuzz input: tool, caller and config selectors and the payload.
pub struct Input<'a> {
    pub tool: &'static str,
    pub caller: Caller,
    pub config_json: &'static str,
    pub config: Config,
    pub payload: &'a [u8],
}

impl<'a> Input<'a> {
    pub fn parse(data: &'a [u8]) -> Input<'a> {
        // A digit selects by its value (readable corpus files), any other byte by its own.
        let at = |i: usize| match data.get(i).copied().unwrap_or(b'0') {
            b @ b'0'..=b'9' => b - b'0',
            b => b,
        };
        let (config_json, config) = config(at(2));
        Input {
            tool: TOOLS[at(0) as usize % TOOLS.len()],
            caller: caller(at(1)),
            config_json,
            config,
            payload: data.get(3..).unwrap_or(&[]),
        }
    }

    /// The payload as text (tool arguments are strings at the WIT boundary).
    pub fn text(&self) -> String {
        String::from_utf8_lossy(self.payload).into_owned()
    }

    /// The payload as `{"args": …, "answers": […]}`, `[answers…]` or one answer; `None`
    /// when it is not JSON.
    pub fn answers(&self) -> Option<(String, Vec<Value>)> {
        let value: Value = serde_json::from_slice(self.payload).ok()?;
        let default_args = || valid_args(self.tool).to_string();
        Some(match value {
            Value::Array(answers) => (default_args(), answers),
            Value::Object(mut map) if map.contains_key("answers") || map.contains_key("args") => {
                let args = match map.remove("args") {
                    Some(Value::String(s)) => s,
                    Some(other) => other.to_string(),
                    None => default_args(),
                };
                let answers = match map.remove("answers") {
                    Some(Value::Array(a)) => a,
                    Some(other) => vec![other],
                    None => Vec::new(),
                };
                (args, answers)
            }
            other => (default_args(), vec![other]),
        })
    }
}

/// Checks one tool answer (panics on a violation); answers the jobs it started.
pub fn check_answer(tool: &str, args: &str, answer: &Result<ToolOutput, ToolError>) -> Vec<Job> {
    match answer {
        Ok(out) => {
            serde_json::from_str::<Box<RawValue>>(&out.result)
                .unwrap_or_else(|e| panic!("{tool}: result is not JSON ({e}): {}", out.result));
            let fields: serde_json::Map<String, Value> = serde_json::from_str(&out.result).unwrap_or_default();
            if tool == "sessions_list" {
                if let (Some(count), Some(sessions)) = (fields.get("count"), fields.get("sessions")) {
                    assert_eq!(
                        count.as_u64().map(|c| c as usize),
                        sessions.as_array().map(Vec::len),
                        "sessions_list count: {}",
                        out.result
                    );
                }
            }
            if tool == "sessions_history" {
                let raw: std::collections::HashMap<String, Box<RawValue>> = serde_json::from_str(&out.result).unwrap_or_default();
                if let Some(messages) = raw.get("messages") {
                    let len = messages.get().len();
                    assert!(len <= MAX_HISTORY_BYTES, "sessions_history returned {len} bytes of messages (N14: {MAX_HISTORY_BYTES})");
                }
            }
            for job in &out.jobs {
                check_job(job);
            }
            out.jobs.clone()
        }
        Err(ToolError::InvalidArguments(msg)) => {
            let spec = session_tools_guest::describe::tool_spec(tool).expect("a known tool");
            assert!(
                spec.params.iter().any(|p| msg.contains(p.name)) || msg.contains("arguments"),
                "{tool}: the argument error {msg:?} names no parameter (arguments {args:?})"
            );
            Vec::new()
        }
        // A gateway error's message is passed on as is (it may be empty).
        Err(ToolError::Failed(_)) => Vec::new(),
        Err(other) => panic!("{tool}: unexpected error {other:?}"),
    }
}

pub fn check_job(job: &Job) {
    assert!(matches!(job.kind.as_str(), "a2a" | "subagent" | "archive"), "a job of kind {:?}", job.kind);
    assert!(serde_json::from_str::<Value>(&job.state).is_ok(), "a job state that is not JSON: {}", job.state);
}

/// Resumes jobs in the host's order (`jobs::drain`: depth first, in order; timers fire at
/// once here), at most `steps` resumes.
pub fn drive_jobs(env: &Env, jobs: Vec<Job>, steps: usize) -> usize {
    let mut pending: Vec<Job> = jobs.into_iter().rev().collect();
    let mut resumed = 0;
    while let Some(job) = pending.pop() {
        if resumed == steps {
            break;
        }
        let wakeup = match &job.wake {
            Wake::Now => Wakeup::Now,
            Wake::At(_) => Wakeup::Timer,
            Wake::RunEnd(params) => Wakeup::RunEnded(env.gw.agent_wait(params)),
        };
        resumed += 1;
        if let Ok(next) = jobs::resume(env, job, wakeup) {
            next.iter().for_each(check_job);
            pending.extend(next.into_iter().rev());
        }
    }
    resumed
}

/// Runs a tool natively and checks its answer and its jobs.
pub fn run_tool(input: &Input, args: &str, answers: Vec<Value>) {
    let gw = QueueGateway::new(answers);
    let host = Services::new();
    let env = Env { gw: &gw, host: &host, cfg: &input.config };
    let answer = session_tools_guest::tools::call_tool(&env, input.tool, &input.caller, args);
    let jobs = check_answer(input.tool, args, &answer);
    drive_jobs(&env, jobs, 64);
}
