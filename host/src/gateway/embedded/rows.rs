//! `sessions.list` rows as the gateway builds them (reference §1.4, G1).

use serde_json::{Map, Value};
use session_tools_contract::{DeliveryContext, SessionRow, ThreadId};
use session_tools_grammar::js::js_trim;

use super::delivery::session_delivery;

fn text(entry: &Map<String, Value>, key: &str) -> Option<String> {
    entry.get(key).and_then(Value::as_str).map(str::to_string)
}

fn number(entry: &Map<String, Value>, key: &str) -> Option<f64> {
    entry.get(key).and_then(Value::as_f64).filter(|n| n.is_finite())
}

/// `parseGroupKey`: the channel and id of a `<channel>:group|channel:<id>` key.
pub fn parse_group_key(key: &str) -> Option<(String, String)> {
    let rest = session_tools_grammar::keys::key_rest(key);
    let parts: Vec<&str> = rest.split(':').filter(|p| !p.is_empty()).collect();
    if parts.len() >= 3 && (parts[1] == "group" || parts[1] == "channel") {
        Some((parts[0].to_string(), parts[2..].join(":")))
    } else {
        None
    }
}

/// `normalizeGroupLabel`.
fn normalize_group_label(raw: &str) -> String {
    let lower = js_trim(raw).to_lowercase();
    if lower.is_empty() {
        return String::new();
    }
    let mut cleaned = String::with_capacity(lower.len());
    let mut in_bad = false;
    for c in lower.chars() {
        let c = if c.is_whitespace() { '-' } else { c };
        if c.is_ascii_lowercase() || c.is_ascii_digit() || "#@._+-".contains(c) {
            cleaned.push(c);
            in_bad = false;
        } else if !in_bad {
            cleaned.push('-');
            in_bad = true;
        }
    }
    let mut collapsed = String::with_capacity(cleaned.len());
    for c in cleaned.chars() {
        if c == '-' && collapsed.ends_with('-') {
            continue;
        }
        collapsed.push(c);
    }
    collapsed.trim_matches(|c| c == '-' || c == '.').to_string()
}

fn shorten_group_id(value: &str) -> String {
    let trimmed = js_trim(value);
    let chars: Vec<char> = trimmed.chars().collect();
    if chars.len() <= 14 {
        return trimmed.to_string();
    }
    format!("{}...{}", chars[..6].iter().collect::<String>(), chars[chars.len() - 4..].iter().collect::<String>())
}

/// `buildGroupDisplayName`.
pub fn group_display_name(
    provider: &str,
    subject: Option<&str>,
    group_channel: Option<&str>,
    space: Option<&str>,
    id: Option<&str>,
    key: &str,
) -> String {
    fn nonblank(v: Option<&str>) -> Option<&str> {
        v.map(str::trim).filter(|s| !s.is_empty())
    }
    let provider_key = nonblank(Some(provider)).map_or_else(|| "group".to_string(), str::to_lowercase);
    let group_channel = nonblank(group_channel);
    let (space, subject) = (nonblank(space), nonblank(subject));
    let detail = match (group_channel, space) {
        (Some(gc), Some(sp)) => format!("{sp}{}{gc}", if gc.starts_with('#') { "" } else { "#" }),
        _ => group_channel.or(subject).or(space).unwrap_or("").to_string(),
    };
    let raw_label = if detail.is_empty() { nonblank(id).unwrap_or(key).to_string() } else { detail };
    let mut token = normalize_group_label(&raw_label);
    if token.is_empty() {
        token = normalize_group_label(&shorten_group_id(&raw_label));
    }
    if group_channel.is_none() && token.starts_with('#') {
        token = token.trim_start_matches('#').to_string();
    }
    if !token.is_empty() && !token.starts_with('@') && !token.starts_with('#') && !token.starts_with("g-") && !token.contains('#') {
        token = format!("g-{token}");
    }
    if token.is_empty() {
        provider_key
    } else {
        format!("{provider_key}:{token}")
    }
}

/// `classifySessionKey`.
pub fn gateway_kind(key: &str, entry: &Map<String, Value>) -> &'static str {
    if key == "global" || key == "unknown" {
        return if key == "global" { "global" } else { "unknown" };
    }
    let chat_type = entry.get("chatType").and_then(Value::as_str);
    if matches!(chat_type, Some("group") | Some("channel")) || key.contains(":group:") || key.contains(":channel:") {
        "group"
    } else {
        "direct"
    }
}

/// A normalised `threadId` keeps its type (N11).
fn thread_id(v: &Value) -> Option<ThreadId> {
    match v {
        Value::String(s) => Some(ThreadId::Text(s.clone())),
        Value::Number(n) => n.as_f64().map(ThreadId::Number),
        _ => None,
    }
}

/// A listed row for a canonical key (`spawned_by` already canonicalised).
pub fn build_row(key: &str, entry: &Map<String, Value>, spawned_by: Option<String>) -> SessionRow {
    let group = parse_group_key(key);
    let channel = text(entry, "channel").or_else(|| group.as_ref().map(|(c, _)| c.clone()));
    let label = text(entry, "label");
    // G1: stored, else derived from the group (whenever there is a channel), else the
    // label, else the origin's label.
    let display_name = text(entry, "displayName")
        .or_else(|| {
            channel.as_ref().map(|c| {
                group_display_name(
                    c,
                    entry.get("subject").and_then(Value::as_str),
                    entry.get("groupChannel").and_then(Value::as_str),
                    entry.get("space").and_then(Value::as_str),
                    group.as_ref().map(|(_, id)| id.as_str()),
                    key,
                )
            })
        })
        .or_else(|| label.clone())
        .or_else(|| entry.get("origin").and_then(|o| o.get("label")).and_then(Value::as_str).map(str::to_string));
    let delivery = session_delivery(entry);
    let input = number(entry, "inputTokens").unwrap_or(0.0);
    let output = number(entry, "outputTokens").unwrap_or(0.0);
    SessionRow {
        key: key.to_string(),
        kind: Some(gateway_kind(key, entry).to_string()),
        channel,
        label,
        display_name,
        delivery_context: delivery.as_ref().map(|d| DeliveryContext {
            channel: d.channel.clone(),
            to: d.to.clone(),
            account_id: d.account_id.clone(),
            thread_id: d.thread_id.as_ref().and_then(thread_id),
        }),
        updated_at: number(entry, "updatedAt").map(|n| n as i64),
        session_id: text(entry, "sessionId"),
        model: text(entry, "model"),
        context_tokens: number(entry, "contextTokens"),
        total_tokens: Some(number(entry, "totalTokens").unwrap_or(input + output)),
        thinking_level: text(entry, "thinkingLevel"),
        verbose_level: text(entry, "verboseLevel"),
        system_sent: entry.get("systemSent").and_then(Value::as_bool),
        aborted_last_run: entry.get("abortedLastRun").and_then(Value::as_bool),
        send_policy: text(entry, "sendPolicy"),
        last_channel: delivery.as_ref().and_then(|d| d.channel.clone()).or_else(|| text(entry, "lastChannel")),
        last_to: delivery.as_ref().and_then(|d| d.to.clone()).or_else(|| text(entry, "lastTo")),
        last_account_id: delivery.as_ref().and_then(|d| d.account_id.clone()).or_else(|| text(entry, "lastAccountId")),
        spawned_by,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_names() {
        assert_eq!(
            group_display_name("discord", None, Some("#general"), Some("1187420000000000001"), Some("1187421193829244938"), "k"),
            "discord:1187420000000000001#general"
        );
        assert_eq!(group_display_name("telegram", Some("Family Chat"), None, None, Some("-1001234567890"), "k"), "telegram:g-family-chat");
        assert_eq!(group_display_name("slack", None, Some("#incidents"), None, Some("c07abcdef12"), "k"), "slack:#incidents");
        assert_eq!(group_display_name("discord", None, None, None, None, "agent:main:subagent:6f1e"), "discord:g-agent-main-subagent-6f1e");
    }
}
