//! The keys jobs are kept under. A job's key and a call intent's id are both a file's stem
//! where a host keeps them, so both are checked by the one rule, whoever wrote the file; a
//! key is the host's, never an id the guest chose, so no guest can name a path.

use sha2::{Digest, Sha256};

/// Whether a key can name a job or a call intent (what a host assigns, or an older file's
/// stem): 1 to 128 ASCII letters, digits, `-` and `_`.
pub fn valid_key(key: &str) -> bool {
    !key.is_empty() && key.len() <= 128 && key.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
}

/// The key of the `n`-th job (from 0) a tool call started: derived from the call's id (its
/// intent's), so the call made again after a stop keeps each of its jobs once.
pub fn call_key(call: &str, n: usize) -> String {
    format!("{call}-{n}")
}

/// The key of the `n`-th new job (from 0) a step of the job `key` (`steps` steps into its
/// chain) started: derived from the step, so the step made again after a stop keeps it
/// once, and as short as any key however deep the chain (32 hex digits).
pub fn successor_key(key: &str, steps: u32, n: usize) -> String {
    let digest = Sha256::digest(format!("{key}/{steps}/{n}").as_bytes());
    digest.iter().take(16).map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_name_files_and_nothing_else() {
        assert!(valid_key("3f2a9c1e5b7d4e8f9a0b1c2d3e4f5a6b-0"));
        assert!(valid_key(&"k".repeat(128)));
        for bad in ["", "../x", "a/b", "a.json", "é", &"k".repeat(129)] {
            assert!(!valid_key(bad), "{bad:?}");
        }
        assert_eq!(call_key("c1", 2), "c1-2");
        let next = successor_key("c1-0", 3, 1);
        assert!(valid_key(&next) && next.len() == 32);
        assert_ne!(next, successor_key("c1-0", 3, 0));
        assert_ne!(next, successor_key("c1-0", 4, 1));
    }
}
