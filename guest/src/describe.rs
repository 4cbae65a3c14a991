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

#[derive(Debug, Clone, Copy)]
pub struct ToolSpec {
    pub name: &'static str,
    pub label: &'static str,
    pub description: &'static str,
    pub params: &'static [ParamSpec],
}

use ParamType::{Boolean, Number, String as Str, StringArray};

pub const SESSIONS_LIST: ToolSpec = ToolSpec {
    name: "sessions_list",
    label: "Sessions",
    description: "List sessions with optional filters and last messages.",
    params: &[
        param("kinds", StringArray),
        minimum(param("limit", Number), 1.0),
        minimum(param("activeMinutes", Number), 1.0),
        minimum(param("messageLimit", Number), 0.0),
    ],
};

pub const SESSIONS_HISTORY: ToolSpec = ToolSpec {
    name: "sessions_history",
    label: "Session History",
    description: "Fetch message history for a session.",
    params: &[required(param("sessionKey", Str)), minimum(param("limit", Number), 1.0), param("includeTools", Boolean)],
};

pub const SESSIONS_SEND: ToolSpec = ToolSpec {
    name: "sessions_send",
    label: "Session Send",
    description: "Send a message into another session. Use sessionKey or label to identify the target.",
    params: &[
        param("sessionKey", Str),
        length(param("label", Str), 1, 64),
        length(param("agentId", Str), 1, 64),
        required(param("message", Str)),
        minimum(param("timeoutSeconds", Number), 0.0),
    ],
};

pub const SESSIONS_SPAWN: ToolSpec = ToolSpec {
    name: "sessions_spawn",
    label: "Sessions",
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
};

pub const AGENTS_LIST: ToolSpec = ToolSpec {
    name: "agents_list",
    label: "Agents",
    description: "List agent ids you can target with sessions_spawn (based on allowlists).",
    params: &[],
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
}
