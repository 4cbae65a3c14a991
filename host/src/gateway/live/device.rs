//! This host's device identity, which a gateway in password mode requires
//! (docs/openclaw-versions.md, "Gateway protocols"): an Ed25519 key pair kept in a
//! file, the device id the SHA-256 of its public key, and a signature over the connect
//! request's `v2|<device>|<client>|<mode>|<role>|<scopes>|<signedAt>|<token>|<nonce>`.
//! Both eras accept v2; 2026.9 requires the nonce and a `signedAt` within ±2 min of its
//! clock, so the nonce is always signed and `signedAt` is the challenge's own `ts`
//! (2026.9 allows two minutes of skew from its own clock).

use std::path::{Path, PathBuf};

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use ed25519_dalek::{Signer, SigningKey};
use serde_json::{json, Value};
use sha2::{Digest, Sha256};

use super::frames::{CLIENT_ID, CLIENT_MODE, ROLE, SCOPES};
use crate::private_files::{create_private_dir, write_atomically, Durability};

/// A device identity.
pub struct Device {
    key: SigningKey,
}

impl std::fmt::Debug for Device {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Device({})", self.id())
    }
}

/// Where the identity is kept by default: `$XDG_CONFIG_HOME/session-tools/device.json`,
/// else `~/.config/session-tools/device.json`.
pub fn default_path() -> Option<PathBuf> {
    let base = std::env::var_os("XDG_CONFIG_HOME")
        .filter(|d| !d.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").filter(|d| !d.is_empty()).map(|h| PathBuf::from(h).join(".config")))?;
    Some(base.join("session-tools").join("device.json"))
}

impl Device {
    /// The identity kept at `path`, made (and kept, mode 0600) on first use.
    pub fn load_or_create(path: &Path) -> Result<Device, String> {
        match std::fs::read_to_string(path) {
            Ok(text) => {
                let seed = serde_json::from_str::<Value>(&text)
                    .ok()
                    .and_then(|v| v.get("seed").and_then(Value::as_str).map(str::to_string))
                    .and_then(|s| URL_SAFE_NO_PAD.decode(s).ok())
                    .and_then(|bytes| <[u8; 32]>::try_from(bytes.as_slice()).ok())
                    .ok_or_else(|| format!("the device identity {} is not readable; remove it to make a new one", path.display()))?;
                Ok(Device { key: SigningKey::from_bytes(&seed) })
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                let mut seed = [0u8; 32];
                getrandom::fill(&mut seed).map_err(|e| format!("no randomness for a device key: {e}"))?;
                let device = Device { key: SigningKey::from_bytes(&seed) };
                let record = json!({"version": 1, "deviceId": device.id(), "seed": URL_SAFE_NO_PAD.encode(seed)});
                // The key is private from its first byte: the file is born 0600, in a
                // directory born 0700 (SECURITY.md).
                if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
                    create_private_dir(dir).map_err(|e| format!("creating {}: {e}", dir.display()))?;
                }
                write_atomically(path, record.to_string().as_bytes(), Durability::Synced)
                    .map_err(|e| format!("writing the device identity {}: {e}", path.display()))?;
                Ok(device)
            }
            Err(e) => Err(format!("reading the device identity {}: {e}", path.display())),
        }
    }

    /// The device id: the hex SHA-256 of the raw public key.
    pub fn id(&self) -> String {
        Sha256::digest(self.key.verifying_key().as_bytes()).iter().map(|b| format!("{b:02x}")).collect()
    }

    /// The `device` of a connect request, signed for the challenge's nonce.
    pub fn connect_field(&self, token: Option<&str>, nonce: &str, signed_at_ms: u64) -> Value {
        let id = self.id();
        let payload =
            ["v2", &id, CLIENT_ID, CLIENT_MODE, ROLE, &SCOPES.join(","), &signed_at_ms.to_string(), token.unwrap_or(""), nonce].join("|");
        let signature = self.key.sign(payload.as_bytes());
        json!({
            "id": id,
            "publicKey": URL_SAFE_NO_PAD.encode(self.key.verifying_key().as_bytes()),
            "signature": URL_SAFE_NO_PAD.encode(signature.to_bytes()),
            "signedAt": signed_at_ms,
            "nonce": nonce,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ed25519_dalek::{Signature, Verifier, VerifyingKey};

    #[test]
    fn an_identity_is_kept_and_signs_the_connect_payload() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("session-tools/device.json");
        let made = Device::load_or_create(&path).unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
            assert_eq!((mode(&path), mode(path.parent().unwrap())), (0o600, 0o700));
        }
        let again = Device::load_or_create(&path).unwrap();
        assert_eq!(made.id(), again.id());
        assert_eq!(made.id().len(), 64);
        let field = made.connect_field(Some("t"), "n-1", 1000);
        let key =
            VerifyingKey::from_bytes(&URL_SAFE_NO_PAD.decode(field["publicKey"].as_str().unwrap()).unwrap().try_into().unwrap()).unwrap();
        let signature = Signature::from_slice(&URL_SAFE_NO_PAD.decode(field["signature"].as_str().unwrap()).unwrap()).unwrap();
        let payload = format!("v2|{}|gateway-client|backend|operator|operator.admin|1000|t|n-1", made.id());
        assert!(key.verify(payload.as_bytes(), &signature).is_ok());
        std::fs::write(&path, "junk").unwrap();
        assert!(Device::load_or_create(&path).unwrap_err().contains("not readable"));
    }
}
