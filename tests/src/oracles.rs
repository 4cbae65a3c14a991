//! The reference's own definitions, written as it writes them, for the property tests and
//! the fuzz targets to check the guest and the host against (the fuzz crate includes this
//! file by path, so it needs nothing but std and serde_json).

/// `parseAgentSessionKey` as the reference writes it: `(agentId, rest)`, with JavaScript's
/// `trim` ([`js_space`]).
pub fn reference_parse(key: &str) -> Option<(String, String)> {
    let parts: Vec<&str> = key.trim_matches(js_space).split(':').filter(|p| !p.is_empty()).collect();
    if parts.len() < 3 || parts[0] != "agent" {
        return None;
    }
    let agent = parts[1].trim_matches(js_space);
    let rest = parts[2..].join(":");
    (!agent.is_empty() && !rest.is_empty()).then(|| (agent.to_string(), rest))
}

/// The characters `normalizeAgentId` keeps.
pub fn is_agent_id_char(c: char) -> bool {
    c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_' || c == '-'
}

// ---------------------------------------------------------------------------------------
// What the reference gateway's `chat.history` does to user messages
// (`dist/gateway/chat-sanitize.js` of openclaw 2026.1.29), for the transcript properties and
// the `disk_transcript` fuzz target to check the host against.
// ---------------------------------------------------------------------------------------

/// JavaScript's `\s`, the whitespace of its regular expressions and `String.prototype.trim`
/// (not Rust's: U+FEFF is one, U+0085 is not).
pub fn js_space(c: char) -> bool {
    matches!(
        c,
        '\t' | '\n' | '\u{b}' | '\u{c}' | '\r' | ' ' | '\u{a0}' | '\u{1680}' | '\u{2000}'
            ..='\u{200a}' | '\u{2028}' | '\u{2029}' | '\u{202f}' | '\u{205f}' | '\u{3000}' | '\u{feff}'
    )
}

const ENVELOPE_CHANNELS: [&str; 13] = [
    "WebChat",
    "WhatsApp",
    "Telegram",
    "Signal",
    "Slack",
    "Discord",
    "Google Chat",
    "iMessage",
    "Teams",
    "Matrix",
    "Zalo",
    "Zalo Personal",
    "BlueBubbles",
];

/// Whether `text` matches, anywhere, a pattern of ASCII digits `d`, literal bytes and a
/// final `\b` (JavaScript's, without the `u` flag: ASCII word characters).
fn has_pattern(text: &str, pattern: &[u8]) -> bool {
    let b = text.as_bytes();
    let word = |x: u8| x.is_ascii_alphanumeric() || x == b'_';
    (0..b.len()).any(|i| {
        b.len() >= i + pattern.len()
            && pattern.iter().enumerate().all(|(j, p)| if *p == b'd' { b[i + j].is_ascii_digit() } else { b[i + j] == *p })
            && b.get(i + pattern.len()).is_none_or(|next| !word(*next))
    })
}

/// `stripEnvelope`: `/^\[([^\]]+)\]\s*/` whose header matches
/// `/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}Z\b/` or `/\d{4}-\d{2}-\d{2} \d{2}:\d{2}\b/`, or starts with a
/// channel's name and a space, is cut off.
pub fn reference_strip_envelope(text: &str) -> String {
    let Some(rest) = text.strip_prefix('[') else { return text.to_string() };
    let Some(close) = rest.find(']') else { return text.to_string() };
    let header = &rest[..close];
    let known = !header.is_empty()
        && (has_pattern(header, b"dddd-dd-ddTdd:ddZ")
            || has_pattern(header, b"dddd-dd-dd dd:dd")
            || ENVELOPE_CHANNELS.iter().any(|c| header.starts_with(&format!("{c} "))));
    if known {
        rest[close + 1..].trim_start_matches(js_space).to_string()
    } else {
        text.to_string()
    }
}

/// `MESSAGE_ID_LINE`, `/^\s*\[message_id:\s*[^\]]+\]\s*$/i` (no `u` flag: the case of ASCII
/// letters only).
pub fn reference_is_hint(line: &str) -> bool {
    let l = line.trim_matches(js_space);
    let head = "[message_id:";
    l.len() > head.len() && l.is_char_boundary(head.len()) && l[..head.len()].eq_ignore_ascii_case(head) && l.ends_with(']') && {
        let inner = &l[head.len()..l.len() - 1];
        !inner.is_empty() && !inner.contains(']')
    }
}

/// `stripMessageIdHints`: lines split on `\r?\n`, rejoined with `\n` when one is dropped.
pub fn reference_strip_hints(text: &str) -> String {
    if !text.contains("[message_id:") {
        return text.to_string();
    }
    let lines: Vec<&str> = text.split('\n').map(|l| l.strip_suffix('\r').unwrap_or(l)).collect();
    let kept: Vec<&str> = lines.iter().copied().filter(|l| !reference_is_hint(l)).collect();
    if kept.len() == lines.len() {
        text.to_string()
    } else {
        kept.join("\n")
    }
}

/// `stripMessageIdHints(stripEnvelope(text))`.
pub fn reference_strip(text: &str) -> String {
    reference_strip_hints(&reference_strip_envelope(text))
}

/// `stripEnvelopeFromMessage`: a message as `chat.history` answers it. A user message (its
/// role in any case) has its text stripped: `content` when it is a string, the `text` of
/// its `text` parts when it is an array, else its own `text`.
pub fn reference_read(message: &serde_json::Value) -> serde_json::Value {
    use serde_json::Value;
    let mut out = message.clone();
    let role = message.get("role").and_then(Value::as_str).map(str::to_lowercase);
    if role.as_deref() != Some("user") {
        return out;
    }
    match message.get("content") {
        Some(Value::String(s)) => out["content"] = Value::String(reference_strip(s)),
        Some(Value::Array(items)) => {
            for (i, item) in items.iter().enumerate() {
                if let (Some("text"), Some(text)) = (item.get("type").and_then(Value::as_str), item.get("text").and_then(Value::as_str)) {
                    out["content"][i]["text"] = Value::String(reference_strip(text));
                }
            }
        }
        _ => {
            if let Some(text) = message.get("text").and_then(Value::as_str) {
                out["text"] = Value::String(reference_strip(text));
            }
        }
    }
    out
}

/// Whether two JSON values are the same once read by JavaScript: numbers by their value
/// (`0.0` is `0`), objects whatever the order of their keys.
pub fn same_json(a: &serde_json::Value, b: &serde_json::Value) -> bool {
    use serde_json::Value;
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        (Value::Array(x), Value::Array(y)) => x.len() == y.len() && x.iter().zip(y).all(|(x, y)| same_json(x, y)),
        (Value::Object(x), Value::Object(y)) => x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same_json(v, w))),
        _ => a == b,
    }
}
