//! `--package`: the real OpenClaw gateway `--live` and `--plugin` start, read with the
//! era its states are written for.

use session_tools_host::gateway::embedded::Layout;

/// A real OpenClaw gateway package `--live` and `--plugin` start
/// (`--package NAME@VERSION`), with the layout of the states its era reads (E1).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GatewayPackage {
    /// `name@version`, as npm takes it.
    pub spec: String,
    /// January's `sessions.json` files (protocol 3), or 2026.9's SQLite databases (protocol 4).
    pub layout: Layout,
}

/// The packages whose era the bench knows, for its messages.
const KNOWN_ERAS: &str = "clawdbot@2026.1.x or openclaw@2026.1.x (January 2026: protocol 3, sessions.json; \
     tested: clawdbot@2026.1.24-3, openclaw@2026.1.29), or openclaw@2026.9.x (protocol 4, SQLite; tested: openclaw@2026.9.6)";

/// Reads `--package`: an exact `name@version` of a gateway whose era is known, so the
/// bench writes its states in the layout that gateway reads. Anything else is refused,
/// naming what is accepted.
pub fn gateway_package(text: &str) -> std::result::Result<GatewayPackage, String> {
    let text = text.trim();
    let Some((name, version)) = text.rsplit_once('@').filter(|(name, _)| !name.is_empty()) else {
        return Err(format!("{text:?} is not a gateway package: expected NAME@VERSION, {KNOWN_ERAS}"));
    };
    if version.is_empty() || !version.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '+')) {
        return Err(format!("{text:?}: the version must be exact (digits, letters, '.', '-', '+'), e.g. openclaw@2026.9.6"));
    }
    let layout = match (name, version) {
        ("clawdbot" | "openclaw", v) if v.starts_with("2026.1.") => Layout::Files,
        ("openclaw", v) if v.starts_with("2026.9.") => Layout::Sqlite,
        _ => return Err(format!("{text:?} is of no OpenClaw era this bench knows: use {KNOWN_ERAS}")),
    };
    Ok(GatewayPackage { spec: text.to_string(), layout })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_gateway_package_is_read_with_its_era() {
        let read = |s: &str| gateway_package(s).map(|p| (p.spec, p.layout));
        assert_eq!(read("openclaw@2026.9.6"), Ok(("openclaw@2026.9.6".into(), Layout::Sqlite)));
        assert_eq!(read(" clawdbot@2026.1.24-3 "), Ok(("clawdbot@2026.1.24-3".into(), Layout::Files)));
        assert_eq!(read("openclaw@2026.1.29"), Ok(("openclaw@2026.1.29".into(), Layout::Files)));
        for (bad, says) in [
            ("openclaw@2027.1.0", "no OpenClaw era"),
            ("clawdbot@2026.9.6", "no OpenClaw era"),
            ("lodash@4.17.21", "no OpenClaw era"),
            ("openclaw", "expected NAME@VERSION"),
            ("@2026.9.6", "expected NAME@VERSION"),
            ("openclaw@", "must be exact"),
            ("openclaw@^2026.9.6", "must be exact"),
            ("openclaw@latest/../x", "must be exact"),
        ] {
            let error = gateway_package(bad).unwrap_err();
            assert!(error.contains(says) && error.contains("openclaw@2026.9"), "{bad}: {error}");
        }
    }
}
