//! The send policy (reference §4, with N8) and the owner's `/send` command.

use crate::config::{normalize_send_policy, Config, PolicyAction};
use crate::keys::{channel_from_group_key, key_rest};

pub use crate::ports::policy::{Decision, PolicyEntry, PolicyInput, SendCommand, SendMode};

/// `normalizeChatType`: `direct` (also `dm`), `group`, `channel`, else none.
pub fn normalize_chat_type(value: Option<&str>) -> Option<&'static str> {
    match value?.trim().to_lowercase().as_str() {
        "direct" | "dm" => Some("direct"),
        "group" => Some("group"),
        "channel" => Some("channel"),
        _ => None,
    }
}

fn non_empty_lower(value: Option<&str>) -> Option<String> {
    value.map(|v| v.trim().to_lowercase()).filter(|v| !v.is_empty())
}

fn action_word(action: &PolicyAction) -> &'static str {
    match action {
        PolicyAction::Allow => "allow",
        PolicyAction::Deny => "deny",
    }
}

/// `resolveSendPolicy`: the decision and the reason for it.
pub fn evaluate(cfg: &Config, input: &PolicyInput) -> (Decision, String) {
    let entry = input.entry.as_ref();
    if let Some(action) = normalize_send_policy(entry.and_then(|e| e.send_policy.as_deref())) {
        let decision = if action == PolicyAction::Deny { Decision::Deny } else { Decision::Allow };
        return (decision, format!("the session's own override is {}", action_word(&action)));
    }
    let Some(policy) = cfg.send_policy.as_ref() else {
        return (Decision::Allow, "no session.sendPolicy is configured".to_string());
    };
    let session_key = input.session_key.as_deref().unwrap_or("");
    let channel = non_empty_lower(input.channel.as_deref())
        .or_else(|| non_empty_lower(entry.and_then(|e| e.channel.as_deref())))
        .or_else(|| non_empty_lower(entry.and_then(|e| e.last_channel.as_deref())))
        // N8: also from a group key behind an `agent:<id>:` prefix.
        .or_else(|| non_empty_lower(channel_from_group_key(session_key).as_deref()));
    let chat_type = normalize_chat_type(input.chat_type.as_deref().or(entry.and_then(|e| e.chat_type.as_deref()))).or(
        if session_key.contains(":group:") {
            Some("group")
        } else if session_key.contains(":channel:") {
            Some("channel")
        } else {
            None
        },
    );
    // N8: keyPrefix matches case-insensitively, against the key and its rest.
    let key_lower = session_key.to_lowercase();
    let rest_lower = key_rest(session_key).to_lowercase();
    let mut allowed_by: Option<usize> = None;
    for (index, rule) in policy.rules.iter().enumerate() {
        let match_channel = non_empty_lower(rule.channel.as_deref());
        let match_chat_type = normalize_chat_type(rule.chat_type.as_deref());
        let match_prefix = non_empty_lower(rule.key_prefix.as_deref());
        let matches = match_channel.as_ref().is_none_or(|c| channel.as_ref() == Some(c))
            && match_chat_type.is_none_or(|t| chat_type == Some(t))
            && match_prefix.as_ref().is_none_or(|p| key_lower.starts_with(p.as_str()) || rest_lower.starts_with(p.as_str()));
        if !matches {
            continue;
        }
        match rule.action {
            Some(PolicyAction::Deny) => return (Decision::Deny, format!("session.sendPolicy.rules[{index}] denies it")),
            _ => {
                allowed_by.get_or_insert(index);
            }
        }
    }
    if let Some(index) = allowed_by {
        return (Decision::Allow, format!("session.sendPolicy.rules[{index}] allows it"));
    }
    match policy.default {
        Some(PolicyAction::Deny) => (Decision::Deny, "no rule matches and session.sendPolicy.default is deny".to_string()),
        Some(PolicyAction::Allow) => (Decision::Allow, "no rule matches and session.sendPolicy.default is allow".to_string()),
        None => (Decision::Allow, "no rule matches and there is no session.sendPolicy.default".to_string()),
    }
}

/// Parses `/^\/send(?:\s+([a-zA-Z]+))?\s*$/i`.
pub fn parse_send_command(text: &str) -> Option<SendCommand> {
    let trimmed = text.trim_start();
    // When it matches, the first five bytes are ASCII, so `[5..]` is a boundary.
    if !crate::keys::has_prefix_ci(trimmed, "/send") {
        return None;
    }
    let after = &trimmed[5..];
    if after.trim().is_empty() {
        return Some(SendCommand::Show);
    }
    if !after.starts_with(char::is_whitespace) {
        return None;
    }
    let word = after.trim();
    if !word.chars().all(|c| c.is_ascii_alphabetic()) {
        return None;
    }
    Some(match word.to_lowercase().as_str() {
        "on" | "allow" => SendCommand::Set(SendMode::Allow),
        "off" | "deny" => SendCommand::Set(SendMode::Deny),
        "inherit" | "default" | "reset" => SendCommand::Set(SendMode::Inherit),
        _ => SendCommand::Invalid(word.to_string()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands() {
        assert_eq!(parse_send_command("/send"), Some(SendCommand::Show));
        assert_eq!(parse_send_command("/SEND on "), Some(SendCommand::Set(SendMode::Allow)));
        assert_eq!(parse_send_command("/send off"), Some(SendCommand::Set(SendMode::Deny)));
        assert_eq!(parse_send_command("/send reset"), Some(SendCommand::Set(SendMode::Inherit)));
        assert_eq!(parse_send_command("/send maybe"), Some(SendCommand::Invalid("maybe".into())));
        assert_eq!(parse_send_command("/sender"), None);
        assert_eq!(parse_send_command("/send on now"), None);
        assert_eq!(parse_send_command("hello /send on"), None);
    }

    #[test]
    fn text_that_is_not_ascii_is_not_a_command() {
        for text in ["/senä", "Привет", "ééé", "/s😀", "😀"] {
            assert_eq!(parse_send_command(text), None, "{text}");
        }
        assert_eq!(parse_send_command("/send ön"), None);
    }
}
