//! The ids a guest draws during one tool call or one job step, derived from a seed: the same
//! call or step made again after a stop gets the same ids, and so sends the same idempotency
//! keys, which the gateway de-duplicates (the same run, no second message).
//!
//! The seed is a SHA-256 over the seed's parts, each as its UTF-8 length (u64, little
//! endian) then its bytes; the `n`-th id (from 0) is the first 16 bytes of a SHA-256 of the
//! seed then `n` (u64, little endian), with the UUID v4 version and variant bits set, written
//! as a lower-case hyphenated UUID. `vectors/seeded-ids.json` holds cases computed
//! independently of either host, which both are tested against.

use sha2::{Digest, Sha256};

/// The seed of a call or a step from its parts.
pub fn seed_of<S: AsRef<str>>(parts: &[S]) -> [u8; 32] {
    let mut digest = Sha256::new();
    for part in parts {
        let part = part.as_ref();
        digest.update((part.len() as u64).to_le_bytes());
        digest.update(part.as_bytes());
    }
    digest.finalize().into()
}

/// The `n`-th id (from 0) of a seed.
pub fn nth_id(seed: &[u8; 32], n: u64) -> String {
    let mut digest = Sha256::new();
    digest.update(seed);
    digest.update(n.to_le_bytes());
    let mut bytes = [0u8; 16];
    bytes.copy_from_slice(&digest.finalize()[..16]);
    bytes[6] = (bytes[6] & 0x0f) | 0x40;
    bytes[8] = (bytes[8] & 0x3f) | 0x80;
    let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    format!("{}-{}-{}-{}-{}", &hex[..8], &hex[8..12], &hex[12..16], &hex[16..20], &hex[20..])
}

/// The seed parts of a tool call, made first or again from its intent (`id`).
pub fn call_seed(id: &str) -> Vec<String> {
    vec!["call".to_string(), id.to_string()]
}

/// The seed parts of a job step: the job's key and how many steps led to it.
pub fn step_seed(key: &str, steps: u32) -> Vec<String> {
    vec!["step".to_string(), key.to_string(), steps.to_string()]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The derivation both hosts share: the plugin checks the same file through the
    /// component (`plugin/test/ids.test.mjs`).
    #[test]
    fn ids_match_the_shared_test_vector() {
        let vector: serde_json::Value = serde_json::from_str(include_str!("../vectors/seeded-ids.json")).unwrap();
        let cases = vector["cases"].as_array().unwrap();
        assert!(cases.len() >= 10, "the vector has its cases");
        for case in cases {
            let parts: Vec<&str> = case["parts"].as_array().unwrap().iter().map(|p| p.as_str().unwrap()).collect();
            let id = nth_id(&seed_of(&parts), case["counter"].as_u64().unwrap());
            assert_eq!(id, case["uuid"].as_str().unwrap(), "{case}");
        }
    }

    #[test]
    fn seeds_of_calls_and_steps_are_apart() {
        assert_eq!(call_seed("x"), ["call", "x"]);
        assert_eq!(step_seed("k-0", 3), ["step", "k-0", "3"]);
        assert_ne!(seed_of(&call_seed("x")), seed_of(&step_seed("x", 0)));
    }
}
