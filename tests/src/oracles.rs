//! The reference's own definitions, written as it writes them, for the property tests and
//! the fuzz targets to check the guest against (the fuzz crate includes this file by path,
//! so it needs nothing but std).

/// `parseAgentSessionKey` as the reference writes it: `(agentId, rest)`.
pub fn reference_parse(key: &str) -> Option<(String, String)> {
    let parts: Vec<&str> = key.trim().split(':').filter(|p| !p.is_empty()).collect();
    if parts.len() < 3 || parts[0] != "agent" {
        return None;
    }
    let agent = parts[1].trim();
    let rest = parts[2..].join(":");
    (!agent.is_empty() && !rest.is_empty()).then(|| (agent.to_string(), rest))
}

/// The characters `normalizeAgentId` keeps.
pub fn is_agent_id_char(c: char) -> bool {
    c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_' || c == '-'
}
