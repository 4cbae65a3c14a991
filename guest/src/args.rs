//! Tool arguments, validated against the tool's schema once, at the edge (N9).
//!
//! A wrong type or an out-of-range value is an error naming the parameter and what it
//! expected. A numeric string such as `"5"` is taken as the number. `null` counts as
//! absent. Unknown properties are ignored (models add them).

use serde_json::{Map, Value};

use crate::describe::{ParamSpec, ParamType, ToolSpec};
use crate::reply::js_trim;

/// A validated argument value.
#[derive(Debug, Clone, PartialEq)]
pub enum ArgValue {
    Str(String),
    Num(f64),
    Bool(bool),
    List(Vec<String>),
}

/// The validated arguments of one call.
#[derive(Debug, Clone, Default)]
pub struct Args {
    values: Vec<(&'static str, ArgValue)>,
}

impl Args {
    fn get(&self, name: &str) -> Option<&ArgValue> {
        self.values.iter().find(|(n, _)| *n == name).map(|(_, v)| v)
    }

    pub fn str(&self, name: &str) -> Option<&str> {
        match self.get(name) {
            Some(ArgValue::Str(s)) => Some(s),
            _ => None,
        }
    }

    /// `readStringParam`: trimmed (as JavaScript trims: U+FEFF is whitespace, U+0085 is
    /// not), `None` when blank.
    pub fn trimmed(&self, name: &str) -> Option<String> {
        self.str(name).map(js_trim).filter(|s| !s.is_empty()).map(str::to_string)
    }

    pub fn num(&self, name: &str) -> Option<f64> {
        match self.get(name) {
            Some(ArgValue::Num(n)) => Some(*n),
            _ => None,
        }
    }

    pub fn bool(&self, name: &str) -> Option<bool> {
        match self.get(name) {
            Some(ArgValue::Bool(b)) => Some(*b),
            _ => None,
        }
    }

    pub fn list(&self, name: &str) -> Option<&[String]> {
        match self.get(name) {
            Some(ArgValue::List(l)) => Some(l),
            _ => None,
        }
    }
}

fn type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

fn format_number(n: f64) -> String {
    if n.fract() == 0.0 && n.abs() < 1e15 {
        format!("{}", n as i64)
    } else {
        format!("{n}")
    }
}

fn check_param(spec: &ParamSpec, value: &Value) -> Result<ArgValue, String> {
    let name = spec.name;
    match spec.ty {
        ParamType::String => {
            let Value::String(s) = value else {
                return Err(format!("{name} must be a string (got {})", type_name(value)));
            };
            let chars = s.chars().count();
            if let Some(min) = spec.min_length {
                if chars < min {
                    return Err(format!("{name} must be at least {min} character{} long", if min == 1 { "" } else { "s" }));
                }
            }
            if let Some(max) = spec.max_length {
                if chars > max {
                    return Err(format!("{name} must be at most {max} characters long (got {chars})"));
                }
            }
            if !spec.one_of.is_empty() && !spec.one_of.contains(&s.as_str()) {
                let allowed: Vec<String> = spec.one_of.iter().map(|v| format!("\"{v}\"")).collect();
                return Err(format!("{name} must be one of {} (got {})", allowed.join(", "), value));
            }
            Ok(ArgValue::Str(s.clone()))
        }
        ParamType::Number => {
            let number = match value {
                Value::Number(n) => n.as_f64(),
                // N9: a numeric string is accepted as the number.
                Value::String(s) => js_trim(s).parse::<f64>().ok().filter(|n| n.is_finite() && !js_trim(s).is_empty()),
                _ => None,
            };
            let Some(number) = number else {
                return Err(format!(
                    "{name} must be a number (got {})",
                    match value {
                        Value::String(_) => format!("the string {value}"),
                        other => type_name(other).to_string(),
                    }
                ));
            };
            if let Some(min) = spec.minimum {
                if number < min {
                    return Err(format!("{name} must be a number >= {} (got {})", format_number(min), format_number(number)));
                }
            }
            Ok(ArgValue::Num(number))
        }
        ParamType::Boolean => match value {
            Value::Bool(b) => Ok(ArgValue::Bool(*b)),
            other => Err(format!("{name} must be a boolean (got {})", type_name(other))),
        },
        ParamType::StringArray => {
            let Value::Array(items) = value else {
                return Err(format!("{name} must be an array of strings (got {})", type_name(value)));
            };
            let mut out = Vec::with_capacity(items.len());
            for (i, item) in items.iter().enumerate() {
                match item {
                    Value::String(s) => out.push(s.clone()),
                    other => return Err(format!("{name}[{i}] must be a string (got {})", type_name(other))),
                }
            }
            Ok(ArgValue::List(out))
        }
    }
}

/// Validates JSON arguments against a tool's schema.
pub fn validate(spec: &ToolSpec, json: &str) -> Result<Args, String> {
    let object: Map<String, Value> = if json.trim().is_empty() {
        Map::new()
    } else {
        match serde_json::from_str::<Value>(json) {
            Ok(Value::Object(map)) => map,
            Ok(Value::Null) => Map::new(),
            Ok(other) => return Err(format!("arguments must be a JSON object (got {})", type_name(&other))),
            Err(e) => return Err(format!("arguments are not valid JSON: {e}")),
        }
    };
    // N9: every offending parameter is named, in the schema's order.
    let mut args = Args { values: Vec::with_capacity(spec.params.len()) };
    let mut problems = Vec::new();
    for param in spec.params {
        match object.get(param.name) {
            None | Some(Value::Null) => {
                if param.required {
                    problems.push(format!("{} required", param.name));
                }
            }
            Some(value) => match check_param(param, value) {
                // `readStringParam(…, {required: true})`: a blank string is a missing one.
                Ok(ArgValue::Str(s)) if param.required && js_trim(&s).is_empty() => problems.push(format!("{} required", param.name)),
                Ok(checked) => args.values.push((param.name, checked)),
                Err(problem) => problems.push(problem),
            },
        }
    }
    if problems.is_empty() {
        Ok(args)
    } else {
        Err(problems.join("; "))
    }
}

/// `max(lo, floor(v))`, saturated into `u32`.
pub fn floor_u32(v: f64, lo: u32) -> u32 {
    v.floor().clamp(lo as f64, u32::MAX as f64) as u32
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::describe::{SESSIONS_HISTORY, SESSIONS_LIST, SESSIONS_SEND, SESSIONS_SPAWN};

    #[test]
    fn accepts_and_converts() {
        let args = validate(&SESSIONS_LIST, r#"{"limit":"5","kinds":["cron"],"extra":1,"messageLimit":null}"#).unwrap();
        assert_eq!(args.num("limit"), Some(5.0));
        assert_eq!(args.list("kinds").unwrap(), ["cron"]);
        assert_eq!(args.num("messageLimit"), None);
        assert!(validate(&SESSIONS_LIST, "").is_ok());
    }

    #[test]
    fn rejects_with_the_parameter_name() {
        let cases = [
            (&SESSIONS_LIST, r#"{"kinds":" CRON "}"#, "kinds"),
            (&SESSIONS_LIST, r#"{"kinds":7}"#, "kinds"),
            (&SESSIONS_LIST, r#"{"limit":"abc"}"#, "limit"),
            (&SESSIONS_LIST, r#"{"activeMinutes":0.5}"#, "activeMinutes"),
            (&SESSIONS_LIST, r#"{"messageLimit":-3}"#, "messageLimit"),
            (&SESSIONS_HISTORY, r#"{}"#, "sessionKey required"),
            (&SESSIONS_HISTORY, r#"{"sessionKey":"x","includeTools":"yes"}"#, "includeTools"),
            (&SESSIONS_SEND, r#"{"message":"m","timeoutSeconds":-1}"#, "timeoutSeconds"),
            (&SESSIONS_SEND, r#"{"message":"m","label":""}"#, "label"),
            (&SESSIONS_SPAWN, r#"{"task":"t","cleanup":"purge"}"#, "cleanup"),
            (&SESSIONS_LIST, r#"[1]"#, "object"),
        ];
        for (spec, json, needle) in cases {
            let err = validate(spec, json).unwrap_err();
            assert!(err.contains(needle), "{json}: {err}");
        }
    }

    #[test]
    fn names_every_offending_parameter() {
        let err = validate(&SESSIONS_HISTORY, r#"{"sessionKey": "x", "limit": 0, "includeTools": "false"}"#).unwrap_err();
        assert_eq!(err, "limit must be a number >= 1 (got 0); includeTools must be a boolean (got a string)");
        let err = validate(&SESSIONS_HISTORY, r#"{"sessionKey": "  ", "limit": "abc"}"#).unwrap_err();
        assert_eq!(err, "sessionKey required; limit must be a number (got the string \"abc\")");
        let err = validate(&SESSIONS_SPAWN, r#"{"cleanup": "purge", "runTimeoutSeconds": -1}"#).unwrap_err();
        assert!(err.starts_with("task required; ") && err.contains("runTimeoutSeconds") && err.contains("cleanup"), "{err}");
    }
}
