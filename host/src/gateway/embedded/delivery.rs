//! Delivery routing fields of a session entry (`normalizeSessionDeliveryFields`,
//! reference §3.1.5): the `last*` fields win over `deliveryContext`, field by field, and
//! both are rewritten from the merge.

use serde_json::{Map, Value};
use session_tools_grammar::js::js_trim;

/// A normalised delivery context.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Delivery {
    pub channel: Option<String>,
    pub to: Option<String>,
    pub account_id: Option<String>,
    /// A string or a number, as stored.
    pub thread_id: Option<Value>,
}

/// `normalizeMessageChannel`: trimmed and lower-cased, built-in aliases mapped.
pub fn normalize_channel(raw: &str) -> Option<String> {
    session_tools_grammar::channels::normalize_message_channel(raw)
}

fn text(v: Option<&Value>) -> Option<&str> {
    v.and_then(Value::as_str)
}

fn normalize(channel: Option<&str>, to: Option<&str>, account_id: Option<&str>, thread_id: Option<&Value>) -> Option<Delivery> {
    let channel = channel.map(|c| normalize_channel(c).unwrap_or_else(|| js_trim(c).to_string())).filter(|c| !c.is_empty());
    let to = to.map(|t| js_trim(t).to_string()).filter(|t| !t.is_empty());
    let account_id = account_id.map(|a| js_trim(a).to_string()).filter(|a| !a.is_empty());
    let thread_id = match thread_id {
        // `Math.trunc`, keeping the number a number: 514.7 is 514, -0.5 is 0, 1e21 stays.
        Some(Value::Number(n)) => n.as_f64().filter(|f| f.is_finite()).map(|f| {
            let t = f.trunc();
            if t.abs() < 9.2e18 {
                Value::from(t as i64)
            } else {
                serde_json::Number::from_f64(t).map_or(Value::Null, Value::Number)
            }
        }),
        Some(Value::String(s)) => Some(js_trim(s)).filter(|s| !s.is_empty()).map(|s| Value::String(s.to_string())),
        _ => None,
    };
    if channel.is_none() && to.is_none() && account_id.is_none() && thread_id.is_none() {
        return None;
    }
    Some(Delivery { channel, to, account_id, thread_id })
}

/// The merged delivery context of an entry, if any.
pub fn session_delivery(entry: &Map<String, Value>) -> Option<Delivery> {
    let primary = normalize(
        text(entry.get("lastChannel")).or(text(entry.get("channel"))),
        text(entry.get("lastTo")),
        text(entry.get("lastAccountId")),
        entry.get("lastThreadId"),
    );
    let fallback = entry
        .get("deliveryContext")
        .and_then(Value::as_object)
        .and_then(|dc| normalize(text(dc.get("channel")), text(dc.get("to")), text(dc.get("accountId")), dc.get("threadId")));
    match (primary, fallback) {
        (None, None) => None,
        (Some(p), None) => Some(p),
        (None, Some(f)) => Some(f),
        (Some(p), Some(f)) => Some(Delivery {
            channel: p.channel.or(f.channel),
            to: p.to.or(f.to),
            account_id: p.account_id.or(f.account_id),
            thread_id: p.thread_id.or(f.thread_id),
        }),
    }
}

impl Delivery {
    pub fn to_json(&self) -> Value {
        let mut m = Map::new();
        if let Some(c) = &self.channel {
            m.insert("channel".into(), Value::String(c.clone()));
        }
        if let Some(t) = &self.to {
            m.insert("to".into(), Value::String(t.clone()));
        }
        if let Some(a) = &self.account_id {
            m.insert("accountId".into(), Value::String(a.clone()));
        }
        if let Some(t) = &self.thread_id {
            m.insert("threadId".into(), t.clone());
        }
        Value::Object(m)
    }
}

/// Sets or removes a key, keeping the position of a key that stays (as JS object spread).
fn set(entry: &mut Map<String, Value>, key: &str, value: Option<Value>) {
    match value {
        Some(v) => {
            if entry.get(key) != Some(&v) {
                entry.insert(key.to_string(), v);
            }
        }
        None => {
            entry.shift_remove(key);
        }
    }
}

/// Rewrites an entry's delivery fields from their merge, as OpenClaw does on every save.
/// An entry that is already normalised is left exactly as it is.
pub fn normalize_entry(entry: &mut Map<String, Value>) {
    let merged = session_delivery(entry);
    let s = |v: &Option<String>| v.clone().map(Value::String);
    let (dc, channel, to, account, thread) = match &merged {
        Some(d) => (Some(d.to_json()), s(&d.channel), s(&d.to), s(&d.account_id), d.thread_id.clone()),
        None => (None, None, None, None, None),
    };
    set(entry, "deliveryContext", dc);
    set(entry, "lastChannel", channel);
    set(entry, "lastTo", to);
    set(entry, "lastAccountId", account);
    set(entry, "lastThreadId", thread);
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn entry(v: Value) -> Map<String, Value> {
        v.as_object().unwrap().clone()
    }

    /// Trimmed as OpenClaw trims (`String.prototype.trim`): U+FEFF is white space, U+0085
    /// is not, unlike Rust's `trim()`.
    #[test]
    fn fields_are_trimmed_with_javascript_s_white_space() {
        let mut e = entry(json!({"sessionId": "s", "lastChannel": "discord", "lastTo": "\u{feff}channel:1 ", "lastAccountId": "\u{85}"}));
        normalize_entry(&mut e);
        assert_eq!(e["deliveryContext"]["to"], "channel:1", "{e:?}");
        assert_eq!(e["deliveryContext"]["accountId"], "\u{85}", "{e:?}");
    }

    #[test]
    fn last_fields_win_and_a_channel_alone_is_kept() {
        let mut e = entry(json!({"sessionId": "s", "channel": "Discord"}));
        normalize_entry(&mut e);
        assert_eq!(
            Value::Object(e),
            json!({"sessionId": "s", "channel": "Discord", "deliveryContext": {"channel": "discord"}, "lastChannel": "discord"})
        );
        let mut e = entry(
            json!({"deliveryContext": {"channel": "whatsapp", "to": "1@g.us", "accountId": "work"}, "lastChannel": "telegram", "lastTo": " x "}),
        );
        normalize_entry(&mut e);
        assert_eq!(e["deliveryContext"], json!({"channel": "telegram", "to": "x", "accountId": "work"}));
        assert_eq!(e["lastAccountId"], json!("work"));
    }

    #[test]
    fn a_normalised_entry_keeps_its_key_order() {
        let original = json!({"a": 1, "deliveryContext": {"channel": "discord", "to": "user:1", "accountId": "default"}, "lastChannel": "discord", "lastTo": "user:1", "lastAccountId": "default", "z": 2});
        let mut e = entry(original.clone());
        normalize_entry(&mut e);
        assert_eq!(serde_json::to_string(&e).unwrap(), serde_json::to_string(&original).unwrap());
    }
}
