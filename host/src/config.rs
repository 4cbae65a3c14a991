//! The deployment's OpenClaw config and state directory, found the way OpenClaw finds
//! them (docs/openclaw-versions.md, "State layout"). The file is JSON5.
//!
//! The host reads from it only what it decides itself: the key rules and agents of the
//! embedded gateway, and who is restricted (N15). The rest is the component's to read:
//! each instance is configured with the paths the component reads and nothing else
//! ([`GuestConfig`], N16), and rejects what is not valid.

mod guest;

pub use guest::GuestConfig;
/// The paths of the config the component reads (`wit/config-paths.json`), built in.
pub use session_tools_deployment::guest_config::PATHS_FILE;

use std::path::{Path, PathBuf};

use serde_json::{Map, Value};
use session_tools_grammar::keys::{normalize_agent_id, normalize_main_key, DEFAULT_AGENT_ID};

use crate::error::{Error, Result};

/// Config file names in a state directory, newest first.
pub const CONFIG_NAMES: [&str; 3] = ["openclaw.json", "moltbot.json", "clawdbot.json"];

/// The state directory: `$OPENCLAW_STATE_DIR`, `$MOLTBOT_STATE_DIR`,
/// `$CLAWDBOT_STATE_DIR`, else the first existing of `~/.openclaw`, `~/.clawdbot`,
/// `~/.moltbot`, else `~/.openclaw`.
pub fn default_state_dir() -> PathBuf {
    for var in ["OPENCLAW_STATE_DIR", "MOLTBOT_STATE_DIR", "CLAWDBOT_STATE_DIR"] {
        if let Some(dir) = std::env::var_os(var).filter(|d| !d.is_empty()) {
            return expand_home(Path::new(&dir));
        }
    }
    let home = std::env::var_os("HOME").map(PathBuf::from).unwrap_or_else(|| PathBuf::from("."));
    for name in [".openclaw", ".clawdbot", ".moltbot"] {
        let dir = home.join(name);
        if dir.is_dir() {
            return dir;
        }
    }
    home.join(".openclaw")
}

/// Expands a leading `~`.
pub fn expand_home(path: &Path) -> PathBuf {
    match path.strip_prefix("~") {
        Ok(rest) => std::env::var_os("HOME").map(PathBuf::from).unwrap_or_default().join(rest),
        Err(_) => path.to_path_buf(),
    }
}

/// The config, as read, plus what the host itself needs from it.
#[derive(Debug, Clone)]
pub struct DeploymentConfig {
    /// Where it came from (`None`: no file, the empty config).
    pub path: Option<PathBuf>,
    /// The config as every instance is given it: the paths the component reads, nothing
    /// else (N16).
    pub guest: GuestConfig,
    /// The whole config as read (JSON5 parsed), for the host's own reading; the guest never gets it.
    pub raw: Value,
    /// `session.mainKey`, normalised (`main` when unset).
    pub main_key: String,
    /// Whether `session.scope` is `global`.
    pub scope_global: bool,
    /// `agents.list[].id`, normalised, in order.
    pub agent_ids: Vec<String>,
    /// The default agent id (the one marked default in `agents.list`, else the first, else `main`).
    pub default_agent: String,
    /// `session.store`, when set.
    pub store: Option<String>,
    /// `agents.defaults.models` keys (the model allowlist), when set (G2).
    pub model_allowlist: Option<Vec<String>>,
    /// `agents.defaults.timeoutSeconds`.
    pub agent_timeout_seconds: u64,
}

impl DeploymentConfig {
    /// Parses config text (JSON5); `origin` names it in errors.
    pub fn parse(text: &str, origin: &str) -> Result<DeploymentConfig> {
        let raw: Value = match serde_json::from_str(text) {
            Ok(v) => v,
            Err(_) => crate::json5::from_str(text)
                .map_err(|e| Error::Config { origin: origin.to_string(), message: format!("not valid JSON5: {e}") })?,
        };
        Self::from_value(raw, origin)
    }

    /// A config from a JSON value; `origin` names it in errors.
    pub fn from_value(raw: Value, origin: &str) -> Result<DeploymentConfig> {
        if !raw.is_object() {
            return Err(Error::Config { origin: origin.to_string(), message: "must hold a JSON object".into() });
        }
        // One shape for everything that reads it, whichever era wrote it (E2).
        let raw = session_tools_wire::documents_config::documents_shape(raw);
        let get = |path: &[&str]| path.iter().try_fold(&raw, |v, k| v.get(*k));
        let agents: Vec<(String, bool)> = get(&["agents", "list"])
            .and_then(Value::as_array)
            .map(|list| {
                list.iter()
                    .filter(|e| e.is_object())
                    .map(|e| {
                        (
                            normalize_agent_id(e.get("id").and_then(Value::as_str).unwrap_or("")),
                            e.get("default") == Some(&Value::Bool(true)),
                        )
                    })
                    .collect()
            })
            .unwrap_or_default();
        let default_agent =
            agents.iter().find(|(_, d)| *d).or(agents.first()).map(|(id, _)| id.clone()).unwrap_or_else(|| DEFAULT_AGENT_ID.to_string());
        let model_allowlist = get(&["agents", "defaults", "models"]).and_then(Value::as_object).map(|m| m.keys().cloned().collect());
        Ok(DeploymentConfig {
            path: None,
            guest: GuestConfig::of(&raw),
            main_key: normalize_main_key(get(&["session", "mainKey"]).and_then(Value::as_str)),
            scope_global: get(&["session", "scope"]).and_then(Value::as_str) == Some("global"),
            agent_ids: agents.into_iter().map(|(id, _)| id).collect(),
            default_agent,
            store: get(&["session", "store"]).and_then(Value::as_str).map(str::trim).filter(|s| !s.is_empty()).map(str::to_string),
            model_allowlist,
            agent_timeout_seconds: get(&["agents", "defaults", "timeoutSeconds"])
                .and_then(Value::as_f64)
                .filter(|v| v.is_finite() && *v >= 0.0)
                .map_or(600, |v| v as u64),
            raw,
        })
    }

    /// The configured default model as `provider/model` (`agents.defaults.model`, a
    /// string or `{primary}`), else OpenClaw's default.
    pub fn default_model(&self) -> String {
        let model = self.raw.get("agents").and_then(|a| a.get("defaults")).and_then(|d| d.get("model"));
        let reference = match model {
            Some(Value::String(s)) => Some(s.trim().to_string()),
            Some(Value::Object(m)) => m.get("primary").and_then(Value::as_str).map(|s| s.trim().to_string()),
            _ => None,
        };
        match reference.filter(|r| !r.is_empty()) {
            Some(r) if r.contains('/') => r,
            Some(r) => format!("anthropic/{r}"),
            None => "anthropic/claude-opus-4-5".to_string(),
        }
    }

    /// The empty config.
    pub fn empty() -> DeploymentConfig {
        Self::from_value(Value::Object(Map::new()), "the empty config").expect("the empty config is valid")
    }

    /// Loads the config: `explicit` if given, else the first of [`CONFIG_NAMES`] in the
    /// state directory, else the empty config.
    pub fn load(state_dir: &Path, explicit: Option<&Path>) -> Result<DeploymentConfig> {
        let path = match explicit {
            Some(path) => Some(path.to_path_buf()),
            None => CONFIG_NAMES.iter().map(|n| state_dir.join(n)).find(|p| p.is_file()),
        };
        let Some(path) = path else {
            return Ok(Self::empty());
        };
        let text = std::fs::read_to_string(&path).map_err(|e| Error::io(format!("reading the config {}", path.display()), e))?;
        let mut config = Self::parse(&text, &path.display().to_string())?;
        config.path = Some(path);
        Ok(config)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_json5_and_finds_the_default_agent() {
        let c = DeploymentConfig::parse(
            "{agents: {list: [{id: 'Ops'}, {id: 'main', default: true}]}, // c\n session: {mainKey: 'Home'},}",
            "test",
        )
        .unwrap();
        assert_eq!(c.agent_ids, ["ops", "main"]);
        assert_eq!(c.default_agent, "main");
        assert_eq!(c.main_key, "home");
    }

    #[test]
    fn names_what_is_wrong() {
        let err = DeploymentConfig::parse("{agents: [", "x.json").unwrap_err().to_string();
        assert!(err.contains("x.json") && err.contains("not closed"), "{err}");
        let err = DeploymentConfig::parse("[1]", "x.json").unwrap_err().to_string();
        assert_eq!(err, "x.json: must hold a JSON object");
    }
}
