//! The tools as shown to a model: names, labels, descriptions and JSON schemas
//! (reference §3.1–§3.5). The same specs drive argument validation (N9).

use std::fmt::Write;

/// The JSON type of a parameter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ParamType {
    String,
    /// Always `"type":"number"`, never `integer` (reference §3.1.1, N9).
    Number,
    Boolean,
    StringArray,
}

#[derive(Debug, Clone, Copy)]
pub struct ParamSpec {
    pub name: &'static str,
    pub ty: ParamType,
    pub required: bool,
    pub minimum: Option<f64>,
    pub min_length: Option<usize>,
    pub max_length: Option<usize>,
    pub one_of: &'static [&'static str],
}

const fn param(name: &'static str, ty: ParamType) -> ParamSpec {
    ParamSpec { name, ty, required: false, minimum: None, min_length: None, max_length: None, one_of: &[] }
}

const fn required(spec: ParamSpec) -> ParamSpec {
    ParamSpec { required: true, ..spec }
}

const fn minimum(spec: ParamSpec, min: f64) -> ParamSpec {
    ParamSpec { minimum: Some(min), ..spec }
}

const fn length(spec: ParamSpec, min: usize, max: usize) -> ParamSpec {
    ParamSpec { min_length: Some(min), max_length: Some(max), ..spec }
}

/// What a call does to the world around it (MCP's tool annotations, for a client deciding
/// whether to ask its user first).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Hints {
    pub read_only: bool,
    pub destructive: bool,
    pub idempotent: bool,
    pub open_world: bool,
}

/// The three reads: they change nothing, so a second call changes nothing either; their
/// world is the gateway's sessions and config, closed.
const READS: Hints = Hints { read_only: true, destructive: false, idempotent: true, open_world: false };

/// `sessions_send` and `sessions_spawn`. Not destructive in MCP's sense ("may perform
/// destructive updates" as against "only additive updates"): they add a message, a run, a
/// session, and never delete or overwrite what was there (a spawn's `cleanup: "delete"`
/// removes only the session entry it created itself, and its transcript is archived, never
/// destroyed). Not idempotent: each call starts another run. Open world: the runs they start
/// are other agents at work, whose replies may be delivered to chat channels.
const WRITES: Hints = Hints { read_only: false, destructive: false, idempotent: false, open_world: true };

#[derive(Debug, Clone, Copy)]
pub struct ToolSpec {
    pub name: &'static str,
    /// OpenClaw's label (as the reference has it: two tools share `Sessions`).
    pub label: &'static str,
    /// A title for people, one per tool.
    pub title: &'static str,
    pub description: &'static str,
    pub params: &'static [ParamSpec],
    pub hints: Hints,
    /// The JSON schema (2020-12) of every result the tool answers, refusals included
    /// (`{"status": "forbidden" | "error", "error": …}`, as a sub-agent refused a tool gets).
    /// It names each field the result types (`list.rs`, `history.rs`, …) write.
    pub result_schema: &'static str,
}

use ParamType::{Boolean, Number, String as Str, StringArray};

/// A refusal or failure any tool may answer instead of its result (the branch each
/// result schema's `anyOf` ends with).
macro_rules! refusal_branch {
    () => {
        r#"{"properties":{"status":{"enum":["forbidden","error"]},"error":{"type":"string"}},"required":["status","error"]}"#
    };
}

const LIST_RESULT: &str = concat!(
    r#"{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","properties":{"#,
    r#""count":{"type":"integer","minimum":0},"#,
    r#""sessions":{"type":"array","items":{"type":"object","properties":{"#,
    r#""key":{"type":"string"},"kind":{"enum":["main","group","cron","hook","node","other"]},"channel":{"type":"string"},"#,
    r#""label":{"type":"string"},"displayName":{"type":"string"},"#,
    r#""deliveryContext":{"type":"object","properties":{"channel":{"type":"string"},"to":{"type":"string"},"accountId":{"type":"string"},"threadId":{"type":["string","number","null"]}}},"#,
    r#""updatedAt":{"type":"integer"},"sessionId":{"type":"string"},"model":{"type":"string"},"#,
    r#""contextTokens":{"type":["number","null"]},"totalTokens":{"type":["number","null"]},"#,
    r#""thinkingLevel":{"type":"string"},"verboseLevel":{"type":"string"},"systemSent":{"type":"boolean"},"abortedLastRun":{"type":"boolean"},"#,
    r#""sendPolicy":{"type":"string"},"lastChannel":{"type":"string"},"lastTo":{"type":"string"},"lastAccountId":{"type":"string"},"#,
    r#""transcriptPath":{"type":"string"},"messages":{"type":"array"}"#,
    r#"},"required":["key","kind","channel"]}},"#,
    r#""status":{"enum":["forbidden","error"]},"error":{"type":"string"}},"#,
    r#""anyOf":[{"required":["count","sessions"]},"#,
    refusal_branch!(),
    "]}"
);

const HISTORY_RESULT: &str = concat!(
    r#"{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","properties":{"#,
    r#""sessionKey":{"type":"string"},"messages":{"type":"array"},"truncated":{"type":"boolean"},"#,
    r#""droppedMessages":{"type":"integer","minimum":0},"contentTruncated":{"type":"boolean"},"#,
    r#""status":{"enum":["forbidden","error"]},"error":{"type":"string"}},"#,
    r#""anyOf":[{"required":["sessionKey","messages"]},"#,
    refusal_branch!(),
    "]}"
);

const SEND_RESULT: &str = concat!(
    r#"{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","properties":{"#,
    r#""runId":{"type":"string"},"status":{"enum":["ok","accepted","timeout","error","forbidden"]},"#,
    r#""reply":{"type":"string"},"error":{"type":"string"},"sessionKey":{"type":"string"},"#,
    r#""delivery":{"type":"object","properties":{"status":{"type":"string"},"mode":{"type":"string"}},"required":["status","mode"]}},"#,
    r#""required":["status"],"#,
    r#""anyOf":[{"properties":{"status":{"enum":["ok","accepted"]}},"required":["runId"]},"#,
    r#"{"properties":{"status":{"const":"timeout"}},"required":["runId","error"]},"#,
    refusal_branch!(),
    "]}"
);

const SPAWN_RESULT: &str = concat!(
    r#"{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","properties":{"#,
    r#""status":{"enum":["accepted","forbidden","error"]},"error":{"type":"string"},"#,
    r#""childSessionKey":{"type":"string"},"runId":{"type":"string"},"modelApplied":{"type":"boolean"}},"#,
    r#""required":["status"],"#,
    r#""anyOf":[{"properties":{"status":{"const":"accepted"}},"required":["childSessionKey","runId"]},"#,
    refusal_branch!(),
    "]}"
);

const AGENTS_RESULT: &str = concat!(
    r#"{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","properties":{"#,
    r#""requester":{"type":"string"},"allowAny":{"type":"boolean"},"#,
    r#""agents":{"type":"array","items":{"type":"object","properties":{"id":{"type":"string"},"name":{"type":"string"},"configured":{"type":"boolean"}},"required":["id","configured"]}},"#,
    r#""status":{"enum":["forbidden","error"]},"error":{"type":"string"}},"#,
    r#""anyOf":[{"required":["requester","allowAny","agents"]},"#,
    refusal_branch!(),
    "]}"
);

pub const SESSIONS_LIST: ToolSpec = ToolSpec {
    name: "sessions_list",
    label: "Sessions",
    title: "List sessions",
    description: "List sessions with optional filters and last messages.",
    params: &[
        param("kinds", StringArray),
        minimum(param("limit", Number), 1.0),
        minimum(param("activeMinutes", Number), 1.0),
        minimum(param("messageLimit", Number), 0.0),
    ],
    hints: READS,
    result_schema: LIST_RESULT,
};

pub const SESSIONS_HISTORY: ToolSpec = ToolSpec {
    name: "sessions_history",
    label: "Session History",
    title: "Read a session's history",
    description: "Fetch message history for a session.",
    params: &[required(param("sessionKey", Str)), minimum(param("limit", Number), 1.0), param("includeTools", Boolean)],
    hints: READS,
    result_schema: HISTORY_RESULT,
};

pub const SESSIONS_SEND: ToolSpec = ToolSpec {
    name: "sessions_send",
    label: "Session Send",
    title: "Send to a session",
    description: "Send a message into another session. Use sessionKey or label to identify the target.",
    params: &[
        param("sessionKey", Str),
        length(param("label", Str), 1, 64),
        length(param("agentId", Str), 1, 64),
        required(param("message", Str)),
        minimum(param("timeoutSeconds", Number), 0.0),
    ],
    hints: WRITES,
    result_schema: SEND_RESULT,
};

pub const SESSIONS_SPAWN: ToolSpec = ToolSpec {
    name: "sessions_spawn",
    label: "Sessions",
    title: "Spawn a sub-agent",
    description: "Spawn a background sub-agent run in an isolated session and announce the result back to the requester chat.",
    params: &[
        required(param("task", Str)),
        param("label", Str),
        param("agentId", Str),
        param("model", Str),
        param("thinking", Str),
        minimum(param("runTimeoutSeconds", Number), 0.0),
        minimum(param("timeoutSeconds", Number), 0.0),
        ParamSpec { one_of: &["delete", "keep"], ..param("cleanup", Str) },
    ],
    hints: WRITES,
    result_schema: SPAWN_RESULT,
};

pub const AGENTS_LIST: ToolSpec = ToolSpec {
    name: "agents_list",
    label: "Agents",
    title: "List agents",
    description: "List agent ids you can target with sessions_spawn (based on allowlists).",
    params: &[],
    hints: READS,
    result_schema: AGENTS_RESULT,
};

/// All tools, in the order they are described.
pub const TOOLS: [&ToolSpec; 5] = [&SESSIONS_LIST, &SESSIONS_HISTORY, &SESSIONS_SEND, &SESSIONS_SPAWN, &AGENTS_LIST];

pub fn tool_spec(name: &str) -> Option<&'static ToolSpec> {
    TOOLS.iter().copied().find(|t| t.name == name)
}

fn json_string(s: &str) -> String {
    serde_json::to_string(s).expect("strings serialise")
}

fn json_number(v: f64) -> String {
    if v.fract() == 0.0 {
        format!("{}", v as i64)
    } else {
        format!("{v}")
    }
}

impl ToolSpec {
    /// The JSON schema of the arguments, keys in the reference's order.
    pub fn schema(&self) -> String {
        let mut out = String::from("{\"type\":\"object\",\"properties\":{");
        for (i, p) in self.params.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            let _ = write!(out, "{}:{{", json_string(p.name));
            match p.ty {
                Str => out.push_str("\"type\":\"string\""),
                Number => out.push_str("\"type\":\"number\""),
                Boolean => out.push_str("\"type\":\"boolean\""),
                StringArray => out.push_str("\"type\":\"array\",\"items\":{\"type\":\"string\"}"),
            }
            if let Some(min) = p.minimum {
                let _ = write!(out, ",\"minimum\":{}", json_number(min));
            }
            if let Some(min) = p.min_length {
                let _ = write!(out, ",\"minLength\":{min}");
            }
            if let Some(max) = p.max_length {
                let _ = write!(out, ",\"maxLength\":{max}");
            }
            if !p.one_of.is_empty() {
                let values: Vec<String> = p.one_of.iter().map(|v| json_string(v)).collect();
                let _ = write!(out, ",\"enum\":[{}]", values.join(","));
            }
            out.push('}');
        }
        out.push('}');
        let required: Vec<String> = self.params.iter().filter(|p| p.required).map(|p| json_string(p.name)).collect();
        if !required.is_empty() {
            let _ = write!(out, ",\"required\":[{}]", required.join(","));
        }
        out.push('}');
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schemas_are_json_in_reference_order() {
        assert_eq!(
            SESSIONS_LIST.schema(),
            r#"{"type":"object","properties":{"kinds":{"type":"array","items":{"type":"string"}},"limit":{"type":"number","minimum":1},"activeMinutes":{"type":"number","minimum":1},"messageLimit":{"type":"number","minimum":0}}}"#
        );
        assert_eq!(AGENTS_LIST.schema(), r#"{"type":"object","properties":{}}"#);
        for tool in TOOLS {
            let parsed: serde_json::Value = serde_json::from_str(&tool.schema()).unwrap();
            assert_eq!(parsed["type"], "object");
            assert!(!tool.schema().contains("integer"));
        }
        assert!(SESSIONS_SPAWN.schema().contains(r#""cleanup":{"type":"string","enum":["delete","keep"]}"#));
    }

    #[test]
    fn result_schemas_are_json_objects_that_admit_a_refusal() {
        for tool in TOOLS {
            let schema: serde_json::Value = serde_json::from_str(tool.result_schema).unwrap_or_else(|e| panic!("{}: {e}", tool.name));
            assert_eq!(schema["type"], "object", "{}", tool.name);
            let branches = schema["anyOf"].as_array().unwrap();
            assert_eq!(branches.last().unwrap()["required"], serde_json::json!(["status", "error"]), "{}", tool.name);
        }
        let titles: std::collections::HashSet<&str> = TOOLS.iter().map(|t| t.title).collect();
        assert_eq!(titles.len(), TOOLS.len(), "one title per tool");
        assert!([SESSIONS_LIST, SESSIONS_HISTORY, AGENTS_LIST].iter().all(|t| t.hints.read_only && t.hints.idempotent));
        assert!([SESSIONS_SEND, SESSIONS_SPAWN].iter().all(|t| !t.hints.read_only && !t.hints.idempotent && t.hints.open_world));
    }
}
