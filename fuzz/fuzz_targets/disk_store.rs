//! Arbitrary bytes as an agent's session store (`sessions.json`) of the sample state, read
//! by the embedded gateway (`sessions.list`, `chat.history`, `sessions.resolve`) and
//! written (`sessions.patch` of an existing and of a new session).
//!
//! What must hold:
//! - no panic anywhere (a panic the host catches aborts too: libFuzzer's panic hook);
//! - a file that `JSON.parse` reads as an object is a store; one it reads as anything else,
//!   and one that is not UTF-8, is not; the rest (JSON5, junk) is whatever the host's reader
//!   says, consistently;
//! - a store that cannot be read is an error naming the file for every read, never an empty
//!   answer, and a write is refused ("refusing to overwrite") and leaves every byte alone;
//! - a write to a store that can be read either fails and leaves every byte alone, or
//!   writes strict JSON that keeps every session that was there (legacy spellings of the
//!   patched key merged into it) and the patched session's own `sessionId` (its transcript).
#![no_main]

use std::collections::HashSet;
use std::path::Path;
use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use session_tools_fuzz::host::*;
use session_tools_host::gateway::embedded::store;
use session_tools_host::gateway::{Gateway, HistoryParams, ListParams, PatchParams, ResolveParams};

fn state() -> &'static Path {
    static DIR: OnceLock<TempDir> = OnceLock::new();
    DIR.get_or_init(fresh_state).path()
}

/// Whether the bytes are a store, where that does not depend on the host's JSON5 reader.
fn is_store(data: &[u8]) -> Option<bool> {
    let Ok(text) = std::str::from_utf8(data) else {
        // Documented: a store that is not UTF-8 is reported (writing it back would replace
        // the bytes that are not text).
        return Some(false);
    };
    if text.trim_matches(|c: char| c.is_ascii_whitespace()).is_empty() {
        return Some(true);
    }
    match JsValue::parse(text) {
        Some(JsValue::Object(_)) => Some(true),
        Some(_) => Some(false),
        None => None,
    }
}

fn utf16(s: &str) -> Vec<u16> {
    s.encode_utf16().collect()
}

/// The store's keys as `JSON.parse` reads them (UTF-16, a lone surrogate kept), or as the
/// host's reader reads a file that is not JSON (JSON5).
fn keys_of(bytes: &[u8]) -> HashSet<Vec<u16>> {
    match std::str::from_utf8(bytes).ok().and_then(JsValue::parse) {
        Some(JsValue::Object(fields)) => fields.into_iter().map(|(k, _)| k).collect(),
        _ => match store::parse(bytes) {
            Ok(entries) => entries.iter().map(|(k, _)| utf16(k)).collect(),
            Err(_) => HashSet::new(),
        },
    }
}

const MAIN: &str = "agent:main:main";

fuzz_target!(|data: &[u8]| {
    let dir = state();
    let path = dir.join(MAIN_STORE);
    replace_file(&path, data);
    let parsed = store::parse(data);
    if let Some(expected) = is_store(data) {
        assert_eq!(parsed.is_ok(), expected, "read as a store: {:?}", parsed.as_ref().err());
    }
    let readable = parsed.is_ok();
    let gateway = open_gateway(dir);
    let named = |e: &str| e.contains(&path.display().to_string());

    // Reads: answers from a store, errors naming a file that is not one.
    let list = gateway.sessions_list(&ListParams::default());
    let history = gateway.chat_history(&HistoryParams { session_key: MAIN.into(), limit: Some(5) });
    let resolved = [
        ResolveParams { label: Some("pricing-research".into()), ..Default::default() },
        ResolveParams { session_id: Some(SAMPLE_SESSION_IDS[0].into()), ..Default::default() },
        ResolveParams { key: Some("main".into()), ..Default::default() },
    ]
    .map(|p| gateway.sessions_resolve(&p));
    if readable {
        let rows = list.unwrap_or_else(|e| panic!("sessions.list over a readable store failed: {e}"));
        assert!(rows.sessions.iter().all(|r| !r.key.is_empty()), "a row without a key");
        if let Err(e) = &history {
            assert!(!e.message.is_empty());
        }
    } else {
        let e = list.expect_err("sessions.list over a store that cannot be read answered");
        assert!(named(&e.message), "{e}");
        let e = history.expect_err("chat.history over a store that cannot be read answered");
        assert!(named(&e.message), "{e}");
        for r in &resolved {
            let e = r.as_ref().expect_err("sessions.resolve over a store that cannot be read answered");
            assert!(named(&e.message), "{e}");
        }
    }

    // Writes: refused and harmless, or strict JSON that keeps every session.
    let before_main = std::str::from_utf8(data).ok().and_then(JsValue::parse).and_then(|store| store.field(MAIN).cloned());
    let old_keys = keys_of(data);
    for (key, label) in [(MAIN, "fuzz-label"), ("agent:main:fuzz-new", "fuzz-new")] {
        let before = std::fs::read(&path).expect("the store is there");
        let patched = gateway.sessions_patch(&PatchParams { key: key.into(), label: Some(label.into()), model: None });
        let after = std::fs::read(&path).expect("the store is still there");
        match patched {
            Err(e) => {
                assert!(!e.message.is_empty());
                assert_eq!(after, before, "a refused write changed the store ({e})");
                if !readable {
                    assert!(e.message.contains("refusing") && named(&e.message), "{e}");
                }
            }
            Ok(()) => {
                assert!(readable, "a store that cannot be read was written");
                assert!(
                    serde_json::from_slice::<serde_json::value::Value>(&after).is_ok()
                        || serde_json::from_slice::<Box<serde_json::value::RawValue>>(&after).is_ok(),
                    "the host writes strict JSON"
                );
                let written = std::str::from_utf8(&after).ok().and_then(JsValue::parse).expect("the host writes JSON");
                let JsValue::Object(fields) = &written else { panic!("the host writes an object") };
                let lost: Vec<String> = old_keys
                    .iter()
                    .filter(|k| !fields.iter().any(|(w, _)| w == *k) && **k != utf16("main"))
                    .map(|k| String::from_utf16_lossy(k))
                    .collect();
                assert!(lost.is_empty(), "sessions lost (or their keys changed) by a write: {lost:?}");
                let entry = written.field(key).expect("the patched session is written");
                assert!(entry.field("label").is_some_and(|l| l.is_str(label)), "{entry:?}");
                if key == MAIN && !old_keys.contains(&utf16("main")) {
                    if let Some(id @ JsValue::String(_)) = before_main.as_ref().and_then(|e| e.field("sessionId")) {
                        assert_eq!(entry.field("sessionId"), Some(id), "the session's transcript was lost by the write: {entry:?}");
                    }
                }
            }
        }
    }
});
