//! The agent runtime behind `agent` runs: pluggable, and never chosen for the embedder (a
//! gateway without one refuses runs). [`EchoRuntime`] answers without a model, for
//! demonstrations (aware of the session tools' protocol steps, every reply marked as its
//! own and no usage reported), and [`ScriptedRuntime`] follows rules like the conformance
//! format's `runs`, loaded from a file. Runs take real time here and honour their timeout.

use std::time::Duration;

use serde_json::Value;
use session_tools_contract::Usage;

use crate::gateway::pattern::is_match;

/// What a run is asked to do.
#[derive(Debug, Clone)]
pub struct RunRequest {
    /// The run's id (the caller's idempotency key).
    pub run_id: String,
    /// The session the run is in.
    pub session_key: String,
    /// The agent that runs.
    pub agent_id: String,
    /// The user message the run answers.
    pub message: String,
    /// Added to the system prompt.
    pub extra_system_prompt: Option<String>,
    /// The queue lane (`nested`, `subagent`, …).
    pub lane: Option<String>,
    /// The channel the run replies on.
    pub channel: Option<String>,
    /// The `agent` call's params on the wire (what scripted rules match on).
    pub params: Value,
}

/// How a run ends.
#[derive(Debug, Clone, PartialEq)]
pub struct RunResult {
    /// `ok` or `error`.
    pub status: String,
    /// The assistant's reply.
    pub reply: Option<String>,
    /// Why the run failed.
    pub error: Option<String>,
    /// Tokens used.
    pub usage: Option<Usage>,
    /// The model that ran.
    pub model: Option<String>,
    /// How long the run takes (it is stopped at its timeout).
    pub duration: Duration,
}

impl RunResult {
    /// A run that answered `reply` at once.
    pub fn ok(reply: impl Into<String>) -> RunResult {
        RunResult { status: "ok".into(), reply: Some(reply.into()), error: None, usage: None, model: None, duration: Duration::ZERO }
    }
}

/// Produces the outcome of runs.
pub trait AgentRuntime: Send + Sync {
    /// Runs the request to its end (called on a thread of the run's own).
    fn run(&self, request: &RunRequest) -> RunResult;
}

/// Answers without a model: a plain echo for ordinary messages, and sensible replies to
/// the session tools' own steps (ping-pong, announces, sub-agent tasks), so the flows can
/// be seen end to end. Every reply carries [`EchoRuntime::MARK`] (first, or right after a
/// sub-agent announce's `Result:` header), so nobody takes it for a model's, and no usage
/// is reported: no tokens or costs appear that no model spent.
#[derive(Debug, Clone, Default)]
pub struct EchoRuntime;

impl EchoRuntime {
    /// What marks every reply of the echo runtime.
    pub const MARK: &'static str = "[echo runtime] ";
}

/// A reply quoted in another: without its own mark, so marks do not pile up.
fn unmarked(text: &str) -> &str {
    text.trim().strip_prefix(EchoRuntime::MARK).unwrap_or(text.trim())
}

fn line_after<'a>(prompt: &'a str, prefix: &str) -> Option<&'a str> {
    prompt.lines().find_map(|l| l.strip_prefix(prefix)).map(str::trim)
}

impl AgentRuntime for EchoRuntime {
    fn run(&self, request: &RunRequest) -> RunResult {
        let prompt = request.extra_system_prompt.as_deref().unwrap_or("");
        let mark = EchoRuntime::MARK;
        let reply = if request.message == "Agent-to-agent announce step." {
            let latest = line_after(prompt, "Latest reply:").map_or("(nothing)", unmarked);
            format!("{mark}[{}] {latest}", request.agent_id)
        } else if request.message == "Sub-agent announce step." {
            let result = line_after(prompt, "Sub-agent result:").map_or("(not available).", unmarked);
            // The announce's headers stay first, as the announce's format wants them.
            format!("Result: {mark}{result}\nNotes: answered by the echo runtime (no model).")
        } else if prompt.starts_with("Agent-to-agent reply step:") {
            // Turn 1 is the requester answering the target; one exchange is enough. The
            // skip is a protocol word, not a reply: it stays bare.
            if prompt.contains("Turn 1 of") {
                format!("{mark}Thanks, noted: {}", unmarked(&request.message))
            } else {
                "REPLY_SKIP".to_string()
            }
        } else if request.lane.as_deref() == Some("subagent") {
            format!("{mark}Done: {}", request.message.trim())
        } else {
            format!("{mark}echo: {}", request.message)
        };
        RunResult { model: Some("echo/echo-1".into()), ..RunResult::ok(reply) }
    }
}

/// One rule of a [`ScriptedRuntime`].
#[derive(Debug, Clone)]
struct Rule {
    pattern: Value,
    reply: Option<String>,
    status: String,
    error: Option<String>,
    usage: Option<Usage>,
    model: Option<String>,
    duration: Duration,
}

/// Runs decided by rules: the first rule whose `match` pattern matches the `agent` params
/// decides `reply`, `status` (`ok`/`error`), `error`, `usage`, `model` and `durationMs`.
/// No rule matched: `ok` without a reply.
#[derive(Debug, Clone)]
pub struct ScriptedRuntime {
    rules: Vec<Rule>,
}

impl ScriptedRuntime {
    /// Reads rules from JSON: an array, or an object with a `runs` array.
    pub fn from_json(text: &str) -> Result<ScriptedRuntime, String> {
        let value: Value = serde_json::from_str(text).map_err(|e| format!("runtime rules are not valid JSON: {e}"))?;
        let list = match &value {
            Value::Array(items) => items,
            Value::Object(map) => {
                map.get("runs").and_then(Value::as_array).ok_or("runtime rules: expected an array or {\"runs\": [...]}")?
            }
            _ => return Err("runtime rules: expected an array or {\"runs\": [...]}".into()),
        };
        let mut rules = Vec::with_capacity(list.len());
        for (i, r) in list.iter().enumerate() {
            let text = |k: &str| r.get(k).and_then(Value::as_str).map(str::to_string);
            let status = text("status").unwrap_or_else(|| "ok".into());
            if !matches!(status.as_str(), "ok" | "error") {
                return Err(format!("runtime rules[{i}].status must be ok or error (a run that never ends is a long durationMs)"));
            }
            let duration = match r.get("durationMs") {
                None => 0,
                Some(v) => v.as_u64().ok_or_else(|| format!("runtime rules[{i}].durationMs must be a whole number of milliseconds"))?,
            };
            rules.push(Rule {
                pattern: r.get("match").cloned().unwrap_or_else(|| Value::Object(Default::default())),
                reply: text("reply"),
                status,
                error: text("error"),
                usage: r.get("usage").and_then(crate::gateway::wire::answers::usage),
                model: text("model"),
                duration: Duration::from_millis(duration),
            });
        }
        Ok(ScriptedRuntime { rules })
    }

    /// Reads the rules from a JSON file.
    pub fn from_file(path: &std::path::Path) -> Result<ScriptedRuntime, String> {
        let text = std::fs::read_to_string(path).map_err(|e| format!("reading runtime rules {}: {e}", path.display()))?;
        Self::from_json(&text).map_err(|e| format!("{}: {e}", path.display()))
    }
}

impl AgentRuntime for ScriptedRuntime {
    fn run(&self, request: &RunRequest) -> RunResult {
        match self.rules.iter().find(|r| is_match(&r.pattern, &request.params)) {
            Some(rule) => RunResult {
                status: rule.status.clone(),
                reply: rule.reply.clone(),
                error: rule.error.clone(),
                usage: rule.usage.clone(),
                model: rule.model.clone(),
                duration: rule.duration,
            },
            None => RunResult { status: "ok".into(), reply: None, error: None, usage: None, model: None, duration: Duration::ZERO },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn request(message: &str, prompt: Option<&str>) -> RunRequest {
        RunRequest {
            run_id: "r".into(),
            session_key: "agent:main:main".into(),
            agent_id: "main".into(),
            message: message.into(),
            extra_system_prompt: prompt.map(str::to_string),
            lane: None,
            channel: None,
            params: json!({"message": message}),
        }
    }

    #[test]
    fn echo_answers_protocol_steps() {
        let rt = EchoRuntime;
        let hi = rt.run(&request("hi", None));
        assert_eq!(hi.reply.as_deref(), Some("[echo runtime] echo: hi"));
        assert_eq!(hi.usage, None, "the echo runtime spends no tokens and says so");
        assert_eq!(rt.run(&request("x", Some("Agent-to-agent reply step:\nTurn 2 of 5."))).reply.as_deref(), Some("REPLY_SKIP"));
        let noted = rt.run(&request("[echo runtime] echo: hi", Some("Agent-to-agent reply step:\nTurn 1 of 5."))).reply.unwrap();
        assert_eq!(noted, "[echo runtime] Thanks, noted: echo: hi", "a quoted reply keeps one mark");
        let announce = rt.run(&request("Sub-agent announce step.", Some("Sub-agent result: [echo runtime] done\n"))).reply.unwrap();
        assert!(announce.starts_with("Result: [echo runtime] done\n"), "{announce}");
    }

    #[test]
    fn scripted_rules() {
        let rt = ScriptedRuntime::from_json(
            r#"[{"match": {"message": "a"}, "reply": "A", "durationMs": 5}, {"match": {}, "status": "error", "error": "no"}]"#,
        )
        .unwrap();
        let a = rt.run(&request("a", None));
        assert_eq!((a.reply.as_deref(), a.duration), (Some("A"), Duration::from_millis(5)));
        assert_eq!(rt.run(&request("b", None)).error.as_deref(), Some("no"));
        assert!(ScriptedRuntime::from_json(r#"[{"status": "timeout"}]"#).is_err());
    }
}
