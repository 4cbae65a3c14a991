//! The `--agents` file of `session-tools mcp --http`: which bearer token is which caller.
//!
//! ```json
//! {"agents": [
//!   {"token": "3f1c…(at least 16 characters)", "sessionKey": "agent:main:main"},
//!   {"token": "9be0…", "sessionKey": "agent:ops:main", "sandboxed": true, "channel": "discord"}
//! ],
//!  "metrics": {"token": "5d2a…"}}
//! ```
//!
//! `metrics` is optional: the token that may read `/metrics` (and nothing else); no agent
//! token may, so a client cannot see the other agents' figures.
//!
//! A token is looked up by its SHA-256, so how long a lookup takes says nothing about how
//! much of a forged token was right.

use std::collections::HashMap;
use std::path::Path;

use serde::Deserialize;
use session_tools_host::Caller;
use sha2::{Digest, Sha256};

/// The shortest token accepted: shorter ones can be guessed.
pub const MIN_TOKEN_LEN: usize = 16;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FileShape {
    agents: Vec<Entry>,
    metrics: Option<MetricsEntry>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct MetricsEntry {
    token: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct Entry {
    token: String,
    session_key: String,
    #[serde(default)]
    sandboxed: bool,
    channel: Option<String>,
    account_id: Option<String>,
    to: Option<String>,
    thread_id: Option<String>,
    agent_id: Option<String>,
}

/// One token's caller.
#[derive(Debug, Clone)]
pub struct Agent {
    pub caller: Caller,
    /// How logs name it: its place in the file and its session key (never the token).
    pub name: String,
}

/// The tokens of an agents file.
#[derive(Debug, Default)]
pub struct Agents {
    by_hash: HashMap<[u8; 32], Agent>,
    /// The hash of the token that may read `/metrics`.
    metrics: Option<[u8; 32]>,
}

impl Agents {
    /// Reads and checks an agents file; an error names the file and what is wrong with it.
    /// Answers the agents and warnings (a file other users can read).
    pub fn load(path: &Path) -> anyhow::Result<(Agents, Vec<String>)> {
        let text = std::fs::read_to_string(path).map_err(|e| anyhow::anyhow!("cannot read the agents file {}: {e}", path.display()))?;
        let agents = Agents::parse(&text).map_err(|problem| anyhow::anyhow!("the agents file {}: {problem}", path.display()))?;
        let mut warnings = Vec::new();
        #[cfg(unix)]
        if let Ok(meta) = std::fs::metadata(path) {
            use std::os::unix::fs::PermissionsExt;
            let mode = meta.permissions().mode() & 0o777;
            if mode & 0o077 != 0 {
                warnings.push(format!(
                    "the agents file {} holds secrets but other users may read it (mode {mode:o}): chmod 600 it",
                    path.display()
                ));
            }
        }
        Ok((agents, warnings))
    }

    /// Parses the text of an agents file.
    pub fn parse(text: &str) -> Result<Agents, String> {
        let shape: FileShape = serde_json::from_str(text).map_err(|e| {
            format!("{e} (expected {{\"agents\": [{{\"token\": \"…\", \"sessionKey\": \"agent:main:main\", \"sandboxed\": false}}]}})")
        })?;
        if shape.agents.is_empty() {
            return Err("no agents: `agents` lists none, so every request would be refused".into());
        }
        let mut by_hash: HashMap<[u8; 32], (usize, Agent)> = HashMap::new();
        for (i, entry) in shape.agents.into_iter().enumerate() {
            let token = entry.token.as_str();
            check_token(token).map_err(|problem| format!("agents[{i}]: {problem}"))?;
            let key = entry.session_key.trim();
            if key.is_empty() {
                return Err(format!("agents[{i}]: `sessionKey` is empty"));
            }
            let caller = Caller {
                agent_session_key: Some(key.to_string()),
                agent_channel: entry.channel,
                agent_account_id: entry.account_id,
                agent_to: entry.to,
                agent_thread_id: entry.thread_id,
                sandboxed: entry.sandboxed,
                requester_agent_id_override: entry.agent_id,
                ..Caller::default()
            };
            if let Some((first, _)) = by_hash.get(&hash(token)) {
                return Err(format!("agents[{i}]: the same token as agents[{first}]; every agent needs a token of its own"));
            }
            let name = format!("agents[{i}] ({key})");
            by_hash.insert(hash(token), (i, Agent { caller, name }));
        }
        let metrics = match shape.metrics {
            None => None,
            Some(entry) => {
                check_token(&entry.token).map_err(|problem| format!("metrics: {problem}"))?;
                if let Some((i, _)) = by_hash.get(&hash(&entry.token)) {
                    return Err(format!("metrics: the same token as agents[{i}]; the metrics need a token of their own"));
                }
                Some(hash(&entry.token))
            }
        };
        Ok(Agents { by_hash: by_hash.into_iter().map(|(h, (_, agent))| (h, agent)).collect(), metrics })
    }

    /// Whether `token` is the one that may read `/metrics`.
    pub fn reads_metrics(&self, token: &str) -> bool {
        self.metrics == Some(hash(token))
    }

    /// Whether the file gives `/metrics` a token (without one, `/metrics` is not served).
    pub fn has_metrics(&self) -> bool {
        self.metrics.is_some()
    }

    /// The agent a token stands for.
    pub fn find(&self, token: &str) -> Option<&Agent> {
        self.by_hash.get(&hash(token))
    }

    /// The agent of a request's `Authorization: Bearer …` header.
    pub fn of_request(&self, headers: &http::HeaderMap) -> Option<&Agent> {
        bearer(headers).and_then(|token| self.find(token))
    }

    pub fn len(&self) -> usize {
        self.by_hash.len()
    }
}

/// The token of an `Authorization: Bearer …` header (the scheme in any case).
pub fn bearer(headers: &http::HeaderMap) -> Option<&str> {
    let value = headers.get(http::header::AUTHORIZATION)?.to_str().ok()?.trim();
    let (scheme, token) = value.split_once(' ')?;
    scheme.eq_ignore_ascii_case("bearer").then(|| token.trim()).filter(|t| !t.is_empty())
}

/// A token long enough not to be guessed, of the characters a bearer token may have.
fn check_token(token: &str) -> Result<(), String> {
    if token.chars().count() < MIN_TOKEN_LEN {
        return Err(format!(
            "the token has {} characters; use at least {MIN_TOKEN_LEN} (e.g. `openssl rand -hex 32`)",
            token.chars().count()
        ));
    }
    if let Some(bad) = token.chars().find(|c| !is_token_char(*c)) {
        return Err(format!("the token contains {bad:?}; a bearer token is letters, digits and - . _ ~ + / (with = at the end)"));
    }
    Ok(())
}

/// RFC 6750's b64token characters.
fn is_token_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '-' | '.' | '_' | '~' | '+' | '/' | '=')
}

pub fn hash(token: &str) -> [u8; 32] {
    Sha256::digest(token.as_bytes()).into()
}

#[cfg(test)]
mod tests {
    use super::*;

    const A: &str = "aaaaaaaaaaaaaaaaaaaaaaaa";
    const B: &str = "bbbbbbbbbbbbbbbbbbbbbbbb";

    #[test]
    fn tokens_map_to_their_callers() {
        let text = format!(
            r#"{{"agents": [{{"token": "{A}", "sessionKey": "agent:main:main"}},
                {{"token": "{B}", "sessionKey": " agent:ops:main ", "sandboxed": true, "channel": "discord", "agentId": "ops"}}]}}"#
        );
        let agents = Agents::parse(&text).unwrap();
        assert_eq!(agents.len(), 2);
        let a = &agents.find(A).unwrap().caller;
        assert_eq!((a.agent_session_key.as_deref(), a.sandboxed), (Some("agent:main:main"), false));
        let b = &agents.find(B).unwrap().caller;
        assert_eq!((b.agent_session_key.as_deref(), b.sandboxed), (Some("agent:ops:main"), true));
        assert_eq!((b.agent_channel.as_deref(), b.requester_agent_id_override.as_deref()), (Some("discord"), Some("ops")));
        assert_eq!(agents.find(B).unwrap().name, "agents[1] (agent:ops:main)");
        assert!(agents.find("cccccccccccccccccccccccc").is_none() && agents.find("").is_none());
        assert!(!agents.has_metrics() && !agents.reads_metrics(A));
        let with_metrics =
            Agents::parse(&format!(r#"{{"agents": [{{"token": "{A}", "sessionKey": "m"}}], "metrics": {{"token": "{B}"}}}}"#)).unwrap();
        assert!(with_metrics.reads_metrics(B) && !with_metrics.reads_metrics(A) && with_metrics.find(B).is_none());
    }

    #[test]
    fn bad_files_say_what_is_wrong() {
        let cases = [
            ("", "EOF"),
            ("[]", "expected"),
            (r#"{"agents": []}"#, "no agents"),
            (r#"{"agents": [{"token": "short", "sessionKey": "main"}]}"#, "at least 16"),
            (&format!(r#"{{"agents": [{{"token": "{A} x", "sessionKey": "main"}}]}}"#), "contains ' '"),
            (&format!(r#"{{"agents": [{{"token": "{A}", "sessionKey": ""}}]}}"#), "`sessionKey` is empty"),
            (&format!(r#"{{"agents": [{{"token": "{A}"}}]}}"#), "missing field `sessionKey`"),
            (&format!(r#"{{"agents": [{{"token": "{A}", "sessionKey": "m", "sandbox": true}}]}}"#), "unknown field `sandbox`"),
            (
                &format!(r#"{{"agents": [{{"token": "{A}", "sessionKey": "m"}}, {{"token": "{A}", "sessionKey": "n"}}]}}"#),
                "agents[1]: the same token as agents[0]",
            ),
            (
                &format!(r#"{{"agents": [{{"token": "{A}", "sessionKey": "m"}}], "metrics": {{"token": "{A}"}}}}"#),
                "metrics: the same token as agents[0]",
            ),
            (
                &format!(r#"{{"agents": [{{"token": "{A}", "sessionKey": "m"}}], "metrics": {{"token": "short"}}}}"#),
                "metrics: the token has 5",
            ),
        ];
        for (text, expected) in cases {
            let error = Agents::parse(text).unwrap_err();
            assert!(error.contains(expected), "{text:?}: {error}");
        }
    }

    #[test]
    fn bearer_headers() {
        let mut headers = http::HeaderMap::new();
        assert_eq!(bearer(&headers), None);
        headers.insert(http::header::AUTHORIZATION, "Bearer  abc ".parse().unwrap());
        assert_eq!(bearer(&headers), Some("abc"));
        headers.insert(http::header::AUTHORIZATION, "bearer abc".parse().unwrap());
        assert_eq!(bearer(&headers), Some("abc"));
        headers.insert(http::header::AUTHORIZATION, "Basic abc".parse().unwrap());
        assert_eq!(bearer(&headers), None);
        headers.insert(http::header::AUTHORIZATION, "Bearer".parse().unwrap());
        assert_eq!(bearer(&headers), None);
    }
}
