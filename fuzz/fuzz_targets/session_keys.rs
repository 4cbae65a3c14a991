//! The session-key functions, the send policy and `/send` parsing, and the reply-text
//! scanners on arbitrary text. Input: up to four lines — a key, another key, free text
//! (also a `/send` command and an assistant reply) and a main key.
#![no_main]

use libfuzzer_sys::fuzz_target;
use serde_json::json;
use session_tools_fuzz::config;
use session_tools_fuzz::oracles::{is_agent_id_char, reference_parse};
use session_tools_guest::keys::{self, KeyScheme};
use session_tools_guest::policy::{self, Decision, PolicyEntry, PolicyInput};
use session_tools_guest::{announce, channels, reply, visibility};

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let mut lines = text.splitn(4, '\n');
    let key = lines.next().unwrap_or("");
    let other = lines.next().unwrap_or("");
    let free = lines.next().unwrap_or("");
    let main_key = lines.next().unwrap_or("");

    for k in [key, other] {
        let parsed = keys::parse_agent_key(k).map(|p| (p.agent_id.to_string(), p.rest.to_string()));
        assert_eq!(parsed, reference_parse(k), "parse_agent_key({k:?})");
        let id = keys::normalize_agent_id(k);
        assert!(!id.is_empty() && id.len() <= 64 && !id.starts_with('-'), "normalize_agent_id({k:?}) = {id:?}");
        assert!(id.chars().all(is_agent_id_char), "normalize_agent_id({k:?}) = {id:?}");
        assert_eq!(keys::normalize_agent_id(&id), id, "normalize_agent_id is not idempotent on {k:?}");
        let _ = (keys::is_subagent_key(k), keys::is_acp_key(k), keys::should_resolve_as_session_id(k), keys::agent_id_of_key(Some(k)));
        let _ = (keys::channel_from_group_key(k), channels::target_from_key(k));
    }
    let main_key = keys::normalize_main_key(Some(main_key));
    let caller_agent = keys::agent_id_of_key(Some(other));
    let default_agent = keys::normalize_agent_id(free);
    for global in [false, true] {
        let scheme = KeyScheme { main_key: &main_key, scope_global: global, caller_agent: &caller_agent, default_agent: &default_agent };
        let display = scheme.display(key);
        assert!(display == "main" || display == key, "display({key:?}) = {display:?}");
        let canonical = scheme.canonical(key);
        let kind = scheme.classify(&canonical, Some("group"));
        let _ = (scheme.internal(key), scheme.is_own_main(other), scheme.classify(key, None), scheme.canonical(other));
        let _ = keys::derive_channel(key, kind, Some(free), None);
    }

    // The send policy and the owner's `/send` command.
    if let Some(command) = policy::parse_send_command(free) {
        let start = free.trim_start();
        assert!(start.get(..5).is_some_and(|s| s.eq_ignore_ascii_case("/send")), "{free:?} parsed as {command:?}");
    }
    for selector in 0..6u8 {
        let (_, cfg) = config(selector);
        let entry = PolicyEntry {
            send_policy: Some(other.to_string()),
            channel: Some(free.to_string()),
            last_channel: None,
            chat_type: Some(main_key.clone()),
        };
        let deny = other.trim().eq_ignore_ascii_case("deny");
        let input = PolicyInput { entry: Some(entry), session_key: Some(key.to_string()), channel: None, chat_type: None };
        let (decision, _) = policy::evaluate(&cfg, &input);
        if deny {
            assert_eq!(decision, Decision::Deny);
        }
        let _ = policy::evaluate(
            &cfg,
            &PolicyInput {
                entry: None,
                session_key: Some(key.to_string()),
                channel: Some(free.to_string()),
                chat_type: Some(other.to_string()),
            },
        );
    }

    // Reply texts.
    for t in [free, key] {
        let _ = reply::sanitize_text_content(t);
        let _ = reply::sanitize_user_facing_text(t);
        let _ = reply::strip_thinking_tags(t);
        let _ = reply::extract_assistant_text(&json!({"role": "assistant", "content": [{"type": "text", "text": t}]}));
        let _ = (announce::is_announce_skip(t), announce::is_reply_skip(t));
    }
    assert!(visibility::glob_matches_ci(key, key), "{key:?} does not match itself");
    let _ = visibility::glob_matches_ci(free, other);
});
