//! What `session-tools --version` says: this build, the component's WIT package, and the
//! OpenClaw releases and gateway protocols it serves.

/// `--version`'s text (`-V` says the first line only).
pub const LONG: &str = concat!(
    env!("CARGO_PKG_VERSION"),
    "\ncomponent: WIT package openclaw:session-tools@0.2.0",
    "\nOpenClaw 2026.1.x: session files (sessions.json), gateway protocol 3",
    "\nOpenClaw 2026.9.x: session databases (SQLite), gateway protocol 4",
);

#[cfg(test)]
mod tests {
    use super::*;

    /// The WIT package named is the one in `wit/session-tools.wit`.
    #[test]
    fn the_wit_package_is_the_one_built() {
        let wit = include_str!("../../wit/session-tools.wit");
        let package = wit.lines().find_map(|l| l.trim().strip_prefix("package ")).expect("a package line");
        assert!(LONG.contains(&format!("WIT package {}\n", package.trim_end_matches(';'))), "{package}");
    }
}
