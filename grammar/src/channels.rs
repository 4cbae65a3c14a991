//! OpenClaw's channel vocabulary, shared by the tools and the host's gateways: channel ids
//! and their aliases, and the delivery target a group or channel session key names.

use serde::{Deserialize, Serialize};

use crate::js::js_trim;

/// Where an announce is delivered.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AnnounceTarget {
    pub channel: String,
    pub to: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub account_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thread_id: Option<String>,
}

/// The built-in chat channels and their aliases (`normalizeChatChannelId`).
pub fn normalize_channel_id(raw: &str) -> Option<&'static str> {
    Some(match js_trim(raw).to_lowercase().as_str() {
        "telegram" => "telegram",
        "whatsapp" => "whatsapp",
        "discord" => "discord",
        "googlechat" | "google-chat" | "gchat" => "googlechat",
        "slack" => "slack",
        "signal" => "signal",
        "imessage" | "imsg" => "imessage",
        _ => return None,
    })
}

fn digits_suffix<'a>(rest: &'a str, marker: &str) -> Option<(&'a str, &'a str)> {
    let at = rest.rfind(marker)?;
    let digits = &rest[at + marker.len()..];
    (!digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())).then(|| (&rest[..at], digits))
}

/// `resolveAnnounceTargetFromKey`: the target a `<channel>:group|channel:<id>` key names.
pub fn target_from_key(key: &str) -> Option<AnnounceTarget> {
    let mut parts: Vec<&str> = key.split(':').filter(|p| !p.is_empty()).collect();
    if parts.len() >= 3 && parts[0] == "agent" {
        parts.drain(..2);
    }
    if parts.len() < 3 || !(parts[1] == "group" || parts[1] == "channel") {
        return None;
    }
    let (channel_raw, kind) = (parts[0], parts[1]);
    let rest = parts[2..].join(":");
    let (id, thread_id) = match digits_suffix(&rest, ":topic:").or_else(|| digits_suffix(&rest, ":thread:")) {
        Some((id, thread)) => (id.to_string(), Some(thread.to_string())),
        None => (js_trim(&rest).to_string(), None),
    };
    if id.is_empty() {
        return None;
    }
    let normalized = normalize_channel_id(channel_raw);
    let channel = normalized.map(str::to_string).unwrap_or_else(|| channel_raw.to_lowercase());
    // No channel plugin normalises targets here (`normalizeTarget` is the identity).
    let to = match normalized {
        None => id,
        Some("discord") | Some("slack") => format!("channel:{id}"),
        Some(_) if kind == "channel" => format!("channel:{id}"),
        Some(_) => format!("group:{id}"),
    };
    Some(AnnounceTarget { channel, to, account_id: None, thread_id })
}

/// `normalizeMessageChannel`: trimmed, lower-cased, built-in aliases mapped.
pub fn normalize_message_channel(raw: &str) -> Option<String> {
    let trimmed = js_trim(raw);
    if trimmed.is_empty() {
        return None;
    }
    let lower = trimmed.to_lowercase();
    Some(normalize_channel_id(&lower).map_or(lower, str::to_string))
}
