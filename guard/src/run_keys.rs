//! The idempotency keys the guard gives the gateway for a restricted component's keys.

use sha2::{Digest, Sha256};

/// SHA-256 of a domain tag and the caller's canonical session and the component's key, each
/// length-prefixed (u64 little-endian), its first 16 bytes with the UUID v4 version and
/// variant bits. The same key from the same caller is the same run, a flow step or a call
/// made again after a stop sends the key it sent before, and no key a component
/// chooses can name another caller's run (that would take a preimage of SHA-256).
/// `tests/fixtures/derived-run-keys.json` holds vectors from an independent implementation.
pub fn derived_key(own: &str, guest_key: &str) -> String {
    let mut digest = Sha256::new();
    for part in ["session-tools/n15-run-key", own, guest_key] {
        digest.update((part.len() as u64).to_le_bytes());
        digest.update(part.as_bytes());
    }
    let b = digest.finalize();
    let mut bytes = [0u8; 16];
    bytes.copy_from_slice(&b[..16]);
    bytes[6] = (bytes[6] & 0x0f) | 0x40;
    bytes[8] = (bytes[8] & 0x3f) | 0x80;
    let hex: String = bytes.iter().map(|x| format!("{x:02x}")).collect();
    format!("{}-{}-{}-{}-{}", &hex[..8], &hex[8..12], &hex[12..16], &hex[16..20], &hex[20..])
}

#[cfg(test)]
mod tests {
    #[test]
    fn run_keys_are_derived_as_both_hosts_derive_them() {
        let text = include_str!("../../tests/fixtures/derived-run-keys.json");
        let file: serde_json::Value = serde_json::from_str(text).unwrap();
        let vectors = file["vectors"].as_array().unwrap();
        assert!(!vectors.is_empty());
        for v in vectors {
            let (own, guest, key) = (v["own"].as_str().unwrap(), v["guestKey"].as_str().unwrap(), v["key"].as_str().unwrap());
            assert_eq!(super::derived_key(own, guest), key, "{v}");
        }
    }
}
