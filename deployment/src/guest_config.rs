//! The deployment config as the component is given it: what the paths of
//! `wit/config-paths.json` reach, and nothing else (N16). The guest is untrusted and
//! has no use for the gateway's credentials, the channels' tokens, the providers' keys or
//! anything else the config holds; the file lists what it reads (the guest's own tests
//! hold it to that). Every host gives an instance this projection: the Rust host natively
//! (`host/src/config/guest.rs`), the plugin through the guard component's `deployment`
//! export.
//!
//! Grammar and rules are the file's `about`: a path is dot-separated steps, a step a key
//! or `*` (every key), `[]` after a step for every element of an array. Where a path ends,
//! a string, number, boolean or null is kept; an object or an array is kept empty (its
//! type) unless a longer path goes into it. On the way, objects keep the keys that lead
//! somewhere, arrays keep their length (an element that reaches nothing is null); a value
//! of another shape than the path expects is left out.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use serde_json::{Map, Value};

/// The paths the component reads, built in.
pub const PATHS_FILE: &str = include_str!("../../wit/config-paths.json");

/// What to keep at one place of the config: the listed paths that go through it.
#[derive(Debug, Default, PartialEq)]
pub struct Paths {
    /// A path ends here.
    ends: bool,
    keys: BTreeMap<String, Paths>,
    /// `*`: every key of the object here.
    every_key: Option<Box<Paths>>,
    /// `[]`: every element of the array here.
    elements: Option<Box<Paths>>,
}

impl Paths {
    /// Reads a paths file (`{"paths": [...]}`); an error names what is wrong.
    pub fn parse(text: &str) -> Result<Paths, String> {
        let file: Value = serde_json::from_str(text).map_err(|e| format!("not JSON: {e}"))?;
        let list = file.get("paths").and_then(Value::as_array).ok_or("no \"paths\" array")?;
        let mut root = Paths::default();
        for (index, path) in list.iter().enumerate() {
            let path = path.as_str().ok_or_else(|| format!("paths[{index}] is not a string"))?;
            root.add(path).map_err(|why| format!("paths[{index}] {path:?}: {why}"))?;
        }
        Ok(root)
    }

    fn add(&mut self, path: &str) -> Result<(), String> {
        let mut node = self;
        for step in path.split('.') {
            let name = step.trim_end_matches("[]");
            if name.is_empty() {
                return Err("a step without a key".into());
            }
            if name.contains(['[', ']']) {
                return Err(format!("the step {step:?} has brackets other than a trailing []"));
            }
            node = if name == "*" {
                node.every_key.get_or_insert_with(Default::default)
            } else {
                node.keys.entry(name.to_string()).or_default()
            };
            for _ in 0..(step.len() - name.len()) / 2 {
                node = node.elements.get_or_insert_with(Default::default);
            }
        }
        node.ends = true;
        Ok(())
    }

    /// Whether a path goes on into the keys of an object here.
    fn goes_into_keys(&self) -> bool {
        !self.keys.is_empty() || self.every_key.is_some()
    }
}

/// What `paths` (the listed paths through one place, from one or more steps: a key and
/// `*`) keep of the value there; `None`: nothing.
fn project(value: &Value, paths: &[&Paths]) -> Option<Value> {
    let ends = paths.iter().any(|p| p.ends);
    match value {
        Value::Object(map) => {
            if !paths.iter().any(|p| p.goes_into_keys()) {
                return ends.then(|| Value::Object(Map::new()));
            }
            let mut kept = Map::new();
            for (key, item) in map {
                let next: Vec<&Paths> = paths.iter().flat_map(|p| p.keys.get(key).into_iter().chain(p.every_key.as_deref())).collect();
                if let Some(item) = (!next.is_empty()).then(|| project(item, &next)).flatten() {
                    kept.insert(key.clone(), item);
                }
            }
            Some(Value::Object(kept))
        }
        Value::Array(items) => {
            let next: Vec<&Paths> = paths.iter().filter_map(|p| p.elements.as_deref()).collect();
            if next.is_empty() {
                return ends.then(|| Value::Array(Vec::new()));
            }
            Some(Value::Array(items.iter().map(|item| project(item, &next).unwrap_or(Value::Null)).collect()))
        }
        scalar => ends.then(|| scalar.clone()),
    }
}

fn built_in() -> &'static Paths {
    static PATHS: OnceLock<Paths> = OnceLock::new();
    PATHS.get_or_init(|| Paths::parse(PATHS_FILE).unwrap_or_else(|e| panic!("wit/config-paths.json: {e} (its tests say so too)")))
}

/// What an instance may see of a config (see the module docs). A config that is not an
/// object keeps nothing: `null`, which the component refuses as it would the config.
pub fn of(config: &Value) -> Value {
    with(built_in(), config)
}

/// What `paths` keep of a config.
pub fn with(paths: &Paths, config: &Value) -> Value {
    project(config, &[paths]).unwrap_or(Value::Null)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn kept(paths: &[&str], config: Value) -> Value {
        let file = json!({ "paths": paths }).to_string();
        with(&Paths::parse(&file).unwrap(), &config)
    }

    #[test]
    fn the_built_in_file_is_valid() {
        assert!(built_in().goes_into_keys());
        assert_eq!(of(&json!({})), json!({}));
    }

    #[test]
    fn keeps_what_the_paths_reach_with_its_type() {
        let config = json!({
            "a": {"b": "x", "c": 1, "secret": "s", "o": {"deep": "s"}, "l": [1, 2]},
            "list": [{"id": "a", "token": "s"}, "loose", {"token": "s"}, {"id": {"nested": "s"}}],
            "m": {"p": {"models": [{"id": "m", "key": "s"}]}, "q": "s"},
            "n": {"primary": "p", "fallbacks": ["s"]},
            "top": "s",
        });
        let paths = ["a.b", "a.c", "a.o", "a.l", "list[].id", "m.*.models[].id", "n", "n.primary", "missing.x"];
        assert_eq!(
            kept(&paths, config),
            json!({
                "a": {"b": "x", "c": 1, "o": {}, "l": []},
                "list": [{"id": "a"}, null, {}, {"id": {}}],
                "m": {"p": {"models": [{"id": "m"}]}},
                "n": {"primary": "p"},
            })
        );
    }

    #[test]
    fn a_value_of_another_shape_than_the_path_expects_is_left_out() {
        let config = json!({"a": "s", "list": {"id": "s"}, "arr": [[{"k": "s"}, 1], {"k": "s"}], "leaf": [{"s": 1}]});
        assert_eq!(kept(&["a.b", "list[].id", "arr[][]", "leaf[]"], config), json!({"arr": [[{}, 1], null], "leaf": [{}]}));
        assert_eq!(kept(&["a"], json!(["s"])), Value::Null);
        assert_eq!(kept(&["a"], json!("s")), Value::Null);
    }

    #[test]
    fn a_bad_paths_file_is_named() {
        for (file, why) in [
            ("[]", "no \"paths\" array"),
            (r#"{"paths": [1]}"#, "paths[0] is not a string"),
            (r#"{"paths": ["a..b"]}"#, r#"paths[0] "a..b": a step without a key"#),
            (r#"{"paths": ["a[0]"]}"#, r#"paths[0] "a[0]": the step "a[0]" has brackets other than a trailing []"#),
            (r#"{"paths": ["[]"]}"#, r#"paths[0] "[]": a step without a key"#),
        ] {
            assert_eq!(Paths::parse(file).unwrap_err(), why, "{file}");
        }
    }
}
