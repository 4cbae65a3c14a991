//! The pattern language of the conformance format (`tests/conformance/FORMAT.md`, "Patterns"): what
//! the scripted gateway and the scripted agent runtime match calls with, and what the
//! conformance runner checks answers against.

use regex_lite::Regex;
use serde_json::Value;

/// Where and why a value did not match.
#[derive(Debug, Clone, PartialEq)]
pub struct Mismatch {
    /// JSON-pointer-like path, e.g. `/sessions/0/kind`.
    pub path: String,
    /// The pattern expected there.
    pub expected: String,
    /// The value found, or `(missing)`.
    pub actual: String,
}

impl std::fmt::Display for Mismatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let path = if self.path.is_empty() { "/" } else { &self.path };
        write!(f, "at {path}: expected {}, got {}", self.expected, self.actual)
    }
}

const MAX_SHOWN: usize = 300;

/// A value, shortened for a report.
pub fn show(value: &Value) -> String {
    let text = value.to_string();
    if text.len() <= MAX_SHOWN {
        return text;
    }
    let mut cut = MAX_SHOWN;
    while !text.is_char_boundary(cut) {
        cut -= 1;
    }
    format!("{}… ({} bytes)", &text[..cut], text.len())
}

fn fail(path: &str, expected: String, actual: Option<&Value>) -> Result<(), Mismatch> {
    Err(Mismatch { path: path.to_string(), expected, actual: actual.map_or_else(|| "(missing)".to_string(), show) })
}

fn is_uuid_v4(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() == 36
        && b.iter().enumerate().all(|(i, c)| match i {
            8 | 13 | 18 | 23 => *c == b'-',
            14 => *c == b'4',
            19 => matches!(c, b'8' | b'9' | b'a' | b'b'),
            _ => c.is_ascii_digit() || (b'a'..=b'f').contains(c),
        })
}

fn numbers_equal(a: &Value, b: &Value) -> bool {
    match (a.as_f64(), b.as_f64()) {
        (Some(x), Some(y)) => x == y,
        _ => false,
    }
}

/// Matches `actual` (possibly missing) against `pattern`.
pub fn matches(pattern: &Value, actual: Option<&Value>, path: &str) -> Result<(), Mismatch> {
    match pattern {
        Value::String(p) if p == "$absent" => match actual {
            None => Ok(()),
            Some(_) => fail(path, "no value ($absent)".into(), actual),
        },
        Value::String(p) if p == "$any" => match actual {
            Some(_) => Ok(()),
            None => fail(path, "a value ($any)".into(), None),
        },
        Value::String(p) if p == "$uuid" => match actual {
            Some(Value::String(s)) if is_uuid_v4(s) => Ok(()),
            _ => fail(path, "a lower-case UUID v4".into(), actual),
        },
        Value::String(p) if p.starts_with("$re:") => {
            let source = &p[4..];
            let re = Regex::new(source).map_err(|e| Mismatch {
                path: path.into(),
                expected: format!("a valid regex in the case ({e})"),
                actual: source.into(),
            })?;
            match actual {
                Some(Value::String(s)) if re.is_match(s) => Ok(()),
                _ => fail(path, format!("a string matching /{source}/"), actual),
            }
        }
        Value::String(p) if p.starts_with("$contains:") => {
            let needle = &p["$contains:".len()..];
            match actual {
                Some(Value::String(s)) if s.contains(needle) => Ok(()),
                _ => fail(path, format!("a string containing {}", show(&Value::String(needle.into()))), actual),
            }
        }
        Value::Object(map) if map.len() == 1 && map.contains_key("$not") => match actual {
            None => fail(path, "a value ($not)".into(), None),
            Some(value) => match matches(&map["$not"], Some(value), path) {
                Ok(()) => fail(path, format!("anything but {}", show(&map["$not"])), actual),
                Err(_) => Ok(()),
            },
        },
        Value::Object(map) => {
            let Some(Value::Object(object)) = actual else {
                return fail(path, "an object".into(), actual);
            };
            let exact = map.get("$exact") == Some(&Value::Bool(true));
            for (key, sub) in map {
                if key == "$exact" {
                    continue;
                }
                matches(sub, object.get(key), &format!("{path}/{key}"))?;
            }
            if exact {
                if let Some(extra) = object.keys().find(|k| !map.contains_key(*k)) {
                    return fail(&format!("{path}/{extra}"), "no such key ($exact)".into(), object.get(extra));
                }
            }
            Ok(())
        }
        Value::Array(items) => {
            let Some(Value::Array(values)) = actual else {
                return fail(path, "an array".into(), actual);
            };
            if items.len() != values.len() {
                return fail(path, format!("an array of {} elements", items.len()), actual);
            }
            for (i, (sub, value)) in items.iter().zip(values).enumerate() {
                matches(sub, Some(value), &format!("{path}/{i}"))?;
            }
            Ok(())
        }
        Value::Number(_) => match actual {
            Some(value) if numbers_equal(pattern, value) => Ok(()),
            _ => fail(path, show(pattern), actual),
        },
        literal => match actual {
            Some(value) if value == literal => Ok(()),
            _ => fail(path, show(literal), actual),
        },
    }
}

/// Whether `actual` matches `pattern`.
pub fn is_match(pattern: &Value, actual: &Value) -> bool {
    matches(pattern, Some(actual), "").is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_pattern_language() {
        assert!(is_match(&json!({"a": 1}), &json!({"a": 1.0, "b": 2})));
        assert!(!is_match(&json!({"$exact": true, "a": 1}), &json!({"a": 1, "b": 2})));
        assert!(is_match(&json!({"a": "$absent"}), &json!({"b": 2})));
        assert!(!is_match(&json!({"a": "$any"}), &json!({"b": 2})));
        assert!(is_match(&json!("$uuid"), &json!("5b0f3c2e-8d1a-4e6b-9c7f-1a2b3c4d5e6f")));
        assert!(!is_match(&json!("$uuid"), &json!("5B0F3C2E-8d1a-4e6b-9c7f-1a2b3c4d5e6f")));
        assert!(is_match(&json!("$re:^a.c$"), &json!("abc")));
        assert!(is_match(&json!("$contains:b"), &json!("abc")));
        assert!(is_match(&json!({"$not": "x"}), &json!("y")));
        assert!(!is_match(&json!({"$not": "x"}), &json!("x")));
        assert!(!is_match(&json!([1, 2]), &json!([1])));
        let err = matches(&json!({"s": [{"k": "a"}]}), Some(&json!({"s": [{"k": "b"}]})), "").unwrap_err();
        assert_eq!(err.path, "/s/0/k");
    }
}
