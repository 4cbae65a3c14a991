//! 2026.9's session entries as the gateway logic reads them: delivery routing from
//! `delivery {kind, route, context, origin}` into the documents' fields, the parent of
//! either lineage field (E5), and the display name 2026.9's `sessions.list` derives
//! (`dist/session-utils-display-*.mjs`, `resolveGatewaySessionDisplayName`).

use serde_json::{Map, Value};

use crate::gateway::embedded::rows::{group_display_name, parse_group_key};

fn text<'a>(entry: &'a Map<String, Value>, key: &str) -> Option<&'a str> {
    entry.get(key).and_then(Value::as_str)
}

/// `normalizeOptionalString`: trimmed, and absent when blank.
fn nonblank(value: Option<&str>) -> Option<&str> {
    value.map(str::trim).filter(|s| !s.is_empty())
}

/// The external delivery of an entry (`delivery.kind === "external"`), if any.
fn external(entry: &Map<String, Value>) -> Option<&Map<String, Value>> {
    external_delivery(entry.get("delivery"))
}

fn external_delivery(delivery: Option<&Value>) -> Option<&Map<String, Value>> {
    delivery.and_then(Value::as_object).filter(|d| d.get("kind").and_then(Value::as_str) == Some("external"))
}

/// `projectSessionDeliveryFields`: the entry in the documents' shape (what `rows`,
/// `delivery` and the send policy read): `deliveryContext`, `last*`, `origin` and `channel`
/// from an external delivery; the rest as stored. Takes the
/// entry: a lookup reshapes the entry it just read instead of copying it.
pub fn documents_shape(mut entry: Map<String, Value>) -> Map<String, Value> {
    let delivery = entry.shift_remove("delivery");
    let Some(delivery) = external_delivery(delivery.as_ref()) else { return entry };
    let context = delivery.get("context").and_then(Value::as_object);
    let origin = delivery.get("origin").and_then(Value::as_object);
    let field = |name: &str| context.and_then(|c| c.get(name)).cloned();
    if let Some(context) = context {
        entry.insert("deliveryContext".into(), Value::Object(context.clone()));
    }
    if let Some(origin) = origin {
        entry.insert("origin".into(), Value::Object(origin.clone()));
    }
    let channel = field("channel").or_else(|| origin.and_then(|o| o.get("provider")).cloned());
    for (name, value) in [
        ("channel", channel),
        ("lastChannel", field("channel")),
        ("lastTo", field("to")),
        ("lastAccountId", field("accountId")),
        ("lastThreadId", field("threadId")),
    ] {
        match value {
            Some(v) => {
                entry.insert(name.into(), v);
            }
            None => {
                entry.shift_remove(name);
            }
        }
    }
    entry
}

/// The documents' routing fields, which 2026.9 keeps in `delivery` instead.
#[cfg_attr(not(feature = "bench-internals"), allow(dead_code))] // written by the bench only (`bench_internals`)
const DOCUMENT_ROUTING: [&str; 7] = ["channel", "deliveryContext", "lastChannel", "lastTo", "lastAccountId", "lastThreadId", "origin"];

/// The inverse of `documents_shape`: a January entry's routing fields as 2026.9's
/// `delivery`, as its `openclaw doctor --fix` imports them (checked against the sample it
/// imported): `external` with `route`, `context` and `origin` when the entry has a channel
/// (`deliveryContext`, else `lastChannel`, else `channel`), else `none`. Used to write
/// January-shaped data into a 2026.9 database (the benchmark's states).
#[cfg_attr(not(feature = "bench-internals"), allow(dead_code))] // written by the bench only (`bench_internals`)
pub fn native_shape(documents: &Map<String, Value>) -> Map<String, Value> {
    let mut entry = documents.clone();
    for field in DOCUMENT_ROUTING {
        entry.shift_remove(field);
    }
    let mut context = documents.get("deliveryContext").and_then(Value::as_object).cloned().unwrap_or_default();
    for (from, to) in [("lastChannel", "channel"), ("lastTo", "to"), ("lastAccountId", "accountId"), ("lastThreadId", "threadId")] {
        if let (Some(value), false) = (documents.get(from), context.contains_key(to)) {
            context.insert(to.into(), value.clone());
        }
    }
    if let (Some(channel), false) = (documents.get("channel"), context.contains_key("channel")) {
        context.insert("channel".into(), channel.clone());
    }
    let delivery = match context.get("channel").cloned() {
        Some(channel) => {
            let mut route = Map::new();
            route.insert("channel".into(), channel.clone());
            if let Some(account) = context.get("accountId") {
                route.insert("accountId".into(), account.clone());
            }
            if let Some(to) = context.get("to") {
                route.insert("target".into(), serde_json::json!({ "to": to }));
            }
            let origin = documents.get("origin").cloned().unwrap_or_else(|| serde_json::json!({ "provider": channel }));
            serde_json::json!({"kind": "external", "route": route, "context": context, "origin": origin})
        }
        None => serde_json::json!({"kind": "none"}),
    };
    entry.insert("delivery".into(), delivery);
    entry
}

/// A session's parent (E5): `spawnedBy`, else `parentSessionKey`.
pub fn parent(native: &Map<String, Value>) -> Option<&str> {
    nonblank(text(native, "spawnedBy")).or_else(|| nonblank(text(native, "parentSessionKey")))
}

/// `buildGroupDisplayTitle`.
fn group_title(entry: &Map<String, Value>) -> Option<String> {
    let (subject, group_channel, space) =
        (nonblank(text(entry, "subject")), nonblank(text(entry, "groupChannel")), nonblank(text(entry, "space")));
    if let Some(gc) = group_channel {
        let label = if gc.starts_with('#') { gc.to_string() } else { format!("#{gc}") };
        return Some(match space {
            Some(space) => format!("{space} {label}"),
            None => label,
        });
    }
    let parts: Vec<&str> = [subject.or(space), nonblank(text(entry, "topicName"))].into_iter().flatten().collect();
    (!parts.is_empty()).then(|| parts.join(" / "))
}

/// `resolveGatewaySessionDisplayName` of 2026.9: the label, else a group's title, else the
/// stored display name (or auto label, or the compact group name), else the origin's label
/// unless it is only the route's identity.
pub fn display_name(key: &str, entry: &Map<String, Value>) -> Option<String> {
    if let Some(label) = nonblank(text(entry, "label")) {
        return Some(label.to_string());
    }
    let parsed = parse_group_key(key);
    let is_group = matches!(text(entry, "chatType"), Some("group") | Some("channel")) || parsed.is_some();
    if is_group {
        if let Some(title) = group_title(entry) {
            return Some(title);
        }
    }
    let delivery = external(entry);
    let origin = delivery.and_then(|d| d.get("origin")).and_then(Value::as_object);
    let channel = delivery
        .and_then(|d| d.get("context").and_then(|c| c.get("channel")).or_else(|| origin.and_then(|o| o.get("provider"))))
        .and_then(Value::as_str)
        .map(str::to_string)
        .or_else(|| parsed.as_ref().map(|(c, _)| c.clone()));
    let id = parsed.as_ref().map(|(_, id)| id.as_str());
    let compact = match (&channel, is_group) {
        (Some(channel), true) => {
            let subject = [nonblank(text(entry, "subject")), nonblank(text(entry, "topicName"))]
                .into_iter()
                .flatten()
                .collect::<Vec<_>>()
                .join(" / ");
            Some(group_display_name(
                channel,
                Some(subject.as_str()).filter(|s| !s.is_empty()),
                text(entry, "groupChannel"),
                text(entry, "space"),
                id,
                key,
            ))
        }
        _ => None,
    };
    let imessage = channel.as_deref() == Some("imessage");
    let stored = text(entry, "displayName").filter(|d| !(imessage && is_group && Some(*d) == compact.as_deref()));
    let chosen =
        stored.map(str::to_string).or_else(|| text(entry, "autoLabel").map(str::to_string)).or(if imessage { None } else { compact });
    if chosen.is_some() {
        return chosen;
    }
    if session_tools_grammar::keys::parse_agent_key(key).is_some_and(|p| p.rest.starts_with("dashboard:")) {
        return None;
    }
    let label = origin.and_then(|o| o.get("label")).and_then(Value::as_str)?;
    let from = nonblank(origin.and_then(|o| o.get("from")).and_then(Value::as_str));
    let tail = from.and_then(|f| f.rsplit(':').next());
    let opaque = tail.is_some_and(|t| {
        t.contains('@') || (!t.is_empty() && t.chars().all(|c| c.is_ascii_digit() || " +().-".contains(c) || c.is_whitespace()))
    });
    let route_identity = Some(label) == from || (opaque && Some(label) == tail);
    let generic_group = imessage && is_group && id.is_some_and(|id| label.to_lowercase() == format!("group id:{}", id.to_lowercase()));
    (!route_identity && !generic_group).then(|| label.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn obj(v: Value) -> Map<String, Value> {
        v.as_object().unwrap().clone()
    }

    /// The sample's rows as the real 2026.9.6 gateway named them.
    #[test]
    fn display_names_as_2026_9_names_them() {
        let discord = obj(
            json!({"chatType": "channel", "groupChannel": "#general", "space": "1187420000000000001", "displayName": "discord:1187420000000000001#general"}),
        );
        assert_eq!(
            display_name("agent:main:discord:channel:1187421193829244938", &discord).as_deref(),
            Some("1187420000000000001 #general")
        );
        let telegram = obj(json!({"chatType": "group", "subject": "Family Chat", "displayName": "telegram:g-family-chat"}));
        assert_eq!(display_name("agent:main:telegram:group:-1001234567890", &telegram).as_deref(), Some("Family Chat"));
        let labelled = obj(json!({"label": "incidents", "groupChannel": "#incidents"}));
        assert_eq!(display_name("agent:ops:slack:channel:c07abcdef12", &labelled).as_deref(), Some("incidents"));
        let direct = obj(
            json!({"delivery": {"kind": "external", "context": {"channel": "discord"}, "origin": {"label": "alice", "from": "discord:240918250145857536"}}}),
        );
        assert_eq!(display_name("agent:main:main", &direct).as_deref(), Some("alice"));
        let identity =
            obj(json!({"delivery": {"kind": "external", "context": {}, "origin": {"label": "+15551234", "from": "whatsapp:+15551234"}}}));
        assert_eq!(display_name("agent:main:main", &identity), None);
    }

    /// The legacy sample's entries as the real 2026.9.6 `openclaw doctor --fix` imported
    /// them (`delivery` of each row of the imported database).
    #[test]
    fn native_shape_writes_delivery_as_the_doctor_imports_it() {
        let legacy: Value = serde_json::from_str(
            &std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/openclaw-state/agents/main/sessions/sessions.json"))
                .unwrap(),
        )
        .unwrap();
        let doctor = [
            (
                "agent:main:main",
                json!({"kind":"external","route":{"channel":"discord","accountId":"default","target":{"to":"user:240918250145857536"}},"context":{"channel":"discord","to":"user:240918250145857536","accountId":"default"},"origin":{"label":"alice user id:240918250145857536","provider":"discord","surface":"discord","chatType":"direct","from":"discord:240918250145857536","to":"user:240918250145857536","accountId":"default"}}),
            ),
            ("agent:main:cron:2f6c8a10-4d3e-4b5a-9c7d-8e1f0a2b3c4d", json!({"kind":"none"})),
            (
                "agent:main:subagent:6f1e2d3c-4b5a-4978-8a6b-5c4d3e2f1a0b",
                json!({"kind":"external","route":{"channel":"discord"},"context":{"channel":"discord"},"origin":{"provider":"discord"}}),
            ),
            (
                "agent:main:telegram:group:-1001234567890",
                json!({"kind":"external","route":{"channel":"telegram","accountId":"default","target":{"to":"telegram:-1001234567890"}},"context":{"channel":"telegram","to":"telegram:-1001234567890","accountId":"default"},"origin":{"label":"Family Chat id:-1001234567890","provider":"telegram","surface":"telegram","chatType":"group","from":"telegram:group:-1001234567890","to":"telegram:-1001234567890","accountId":"default"}}),
            ),
        ];
        for (key, delivery) in doctor {
            let native = native_shape(legacy[key].as_object().unwrap());
            assert_eq!(native["delivery"], delivery, "{key}");
            assert!(DOCUMENT_ROUTING.iter().all(|f| !native.contains_key(*f)), "{key}: {native:?}");
            // And back: the documents' routing fields as the legacy entry had them.
            let back = documents_shape(native);
            for field in ["deliveryContext", "lastTo", "lastAccountId"] {
                assert_eq!(back.get(field), legacy[key].get(field), "{key}: {field}");
            }
        }
    }

    #[test]
    fn delivery_reads_as_the_documents_fields() {
        let native = obj(
            json!({"sessionId": "s", "delivery": {"kind": "external", "route": {"channel": "discord"}, "context": {"channel": "discord", "to": "user:1", "accountId": "default"}, "origin": {"provider": "discord", "label": "a"}}}),
        );
        let shaped = documents_shape(native);
        assert_eq!(shaped["deliveryContext"], json!({"channel": "discord", "to": "user:1", "accountId": "default"}));
        assert_eq!((shaped["channel"].as_str(), shaped["lastTo"].as_str()), (Some("discord"), Some("user:1")));
        assert!(!shaped.contains_key("delivery"));
        let none = documents_shape(obj(json!({"sessionId": "s", "delivery": {"kind": "none"}})));
        assert!(!none.contains_key("channel") && !none.contains_key("deliveryContext"));
    }
}
