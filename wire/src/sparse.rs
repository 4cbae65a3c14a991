//! A `sessions.list` page read for what the tools take of it. A 2026.9 row carries some
//! forty fields (about 1.5 KB: thinking levels, runtime, usage, sharing), of which a
//! [`SessionRow`](session_tools_contract::SessionRow) keeps twenty; parsing every one into
//! a `Value` was most of the wire's time on a list of 200 rows (issue 23, item 4). Here the
//! fields [`answers::session_row`](crate::answers::session_row) and the paging read are
//! parsed into values and every other field is skipped: still checked to be JSON, never
//! built. A page or a row of another shape reads as `null`, which the readers of a page
//! (`Value::get`, `as_array`) already take as absent. A test holds the rows equal to those
//! of a whole parse.

use std::fmt;

use serde::de::{DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};

/// The fields of a page the wire reads (`answers::session_list`, `answers::next_offset`).
const PAGE_FIELDS: &[&str] = &["path", "sessions", "hasMore", "nextOffset"];

/// The fields of a row `answers::session_row` reads.
pub(crate) const ROW_FIELDS: &[&str] = &[
    "key",
    "kind",
    "channel",
    "label",
    "displayName",
    "deliveryContext",
    "updatedAt",
    "sessionId",
    "model",
    "contextTokens",
    "totalTokens",
    "thinkingLevel",
    "verboseLevel",
    "systemSent",
    "abortedLastRun",
    "sendPolicy",
    "lastChannel",
    "lastTo",
    "lastAccountId",
    "spawnedBy",
    "parentSessionKey",
];

/// A `sessions.list` answer's text as a page holding only [`PAGE_FIELDS`], its rows only
/// [`ROW_FIELDS`]; an error where the text is not JSON.
pub fn list_page(text: &str) -> serde_json::Result<Value> {
    let mut de = serde_json::Deserializer::from_str(text);
    let page = Level::Page.deserialize(&mut de)?;
    de.end()?;
    Ok(page)
}

/// Where in a page a value is: what of it is kept.
#[derive(Clone, Copy)]
enum Level {
    Page,
    Rows,
    Row,
}

impl Level {
    fn fields(self) -> &'static [&'static str] {
        match self {
            Level::Page => PAGE_FIELDS,
            Level::Row => ROW_FIELDS,
            Level::Rows => &[],
        }
    }
}

impl<'de> DeserializeSeed<'de> for Level {
    type Value = Value;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Level {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut kept = Map::new();
        while let Some(field) = map.next_key_seed(Wanted(self.fields()))? {
            match field {
                Some("sessions") if matches!(self, Level::Page) => {
                    kept.insert("sessions".to_string(), map.next_value_seed(Level::Rows)?);
                }
                Some(name) => {
                    kept.insert(name.to_string(), map.next_value::<Value>()?);
                }
                None => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        // A list's rows are an array; a map there reads as absent.
        Ok(if matches!(self, Level::Rows) { Value::Null } else { Value::Object(kept) })
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        if let Level::Rows = self {
            let mut rows = Vec::new();
            while let Some(row) = seq.next_element_seed(Level::Row)? {
                rows.push(row);
            }
            return Ok(Value::Array(rows));
        }
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(Value::Null)
    }

    // A scalar where a page, its rows or a row should be: absent to every reader.
    fn visit_bool<E>(self, _: bool) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_i64<E>(self, _: i64) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_u64<E>(self, _: u64) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_f64<E>(self, _: f64) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_str<E>(self, _: &str) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
}

/// A field's name: which of `fields` it is, if any (no allocation; an escaped spelling is
/// compared unescaped, as a whole parse would key it).
struct Wanted(&'static [&'static str]);

impl<'de> DeserializeSeed<'de> for Wanted {
    type Value = Option<&'static str>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for Wanted {
    type Value = Option<&'static str>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a field name")
    }

    fn visit_str<E>(self, name: &str) -> Result<Self::Value, E> {
        Ok(self.0.iter().copied().find(|field| *field == name))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::answers::{next_offset, session_list};

    /// A page's rows and paging, as the wire reads them.
    fn read(page: &Value) -> (Option<String>, Vec<session_tools_contract::SessionRow>, Option<u32>) {
        let list = session_list(page);
        (list.path, list.sessions, next_offset(page))
    }

    fn same_as_whole(text: &str) {
        let whole: Value = serde_json::from_str(text).unwrap();
        let sparse = list_page(text).unwrap();
        assert_eq!(read(&sparse), read(&whole), "{text}");
    }

    /// The fields `answers::session_row` names, read from its source: the kept fields are
    /// checked against what the reader reads, not against themselves.
    fn fields_session_row_reads() -> Vec<String> {
        let source = include_str!("answers.rs");
        let start = source.find("pub fn session_row(").expect("answers.rs has session_row");
        let body = &source[start..];
        let body = &body[..body.find("\n}\n").expect("session_row ends")];
        let fields: Vec<String> = body.split('"').skip(1).step_by(2).map(str::to_string).collect();
        assert!(fields.len() >= 20, "{fields:?}");
        fields
    }

    #[test]
    fn every_field_a_row_record_reads_is_kept() {
        for field in fields_session_row_reads() {
            assert!(ROW_FIELDS.contains(&field.as_str()), "session_row reads {field}, which sparse.rs skips");
        }
    }

    /// Every field a row record takes, of every type a gateway might send, beside fields
    /// the wire skips: the sparse page reads as the whole one.
    #[test]
    fn a_sparse_page_reads_as_the_whole_page() {
        let fields = fields_session_row_reads();
        let values = [
            r#""text""#,
            r#""""#,
            "12",
            "-3.5",
            "1795684121197",
            "true",
            "false",
            "null",
            r#"{"channel":"discord","to":"channel:1","accountId":"a","threadId":7}"#,
            r#"{"threadId":"t"}"#,
            "[1,2]",
            "{}",
        ];
        let skipped = r#""thinkingLevels":[{"id":"low","label":"low"}],"agentRuntime":{"id":"codex","source":"implicit"},"activeRunIds":[],"x\u0079":1"#;
        let mut rows = Vec::new();
        for (i, field) in fields.iter().enumerate() {
            for (j, value) in values.iter().enumerate() {
                let key = if field == "key" { value.to_string() } else { format!(r#""agent:main:s{i}-{j}""#) };
                let other = if field == "key" { String::new() } else { format!(r#","{field}":{value}"#) };
                rows.push(format!(r#"{{{skipped},"key":{key}{other},"tail":{{"deep":[[{{}}]]}}}}"#));
            }
        }
        // Every field at once, one row with repeated fields (the last one holds), and rows of another shape.
        let all = fields.iter().map(|f| format!(r#""{f}":"v-{f}""#)).collect::<Vec<_>>().join(",");
        rows.push(format!("{{{all}}}"));
        rows.push(r#"{"key":"agent:main:a","label":"one","label":"two","key":"agent:main:b"}"#.to_string());
        rows.push(r#"{"k\u0065y":"agent:main:escaped","sp\u0061wnedBy":"agent:main:main"}"#.to_string());
        rows.extend(["null", "3", r#""agent:main:x""#, "[]", r#"[{"key":"agent:main:nested"}]"#].map(String::from));
        let page = format!(
            r#"{{"ts":1,"path":"/state/agents/main/agent/openclaw-agent.sqlite","count":9,"sessions":[{}],"hasMore":true,"nextOffset":200,"owners":[{{"id":"o"}}],"defaults":{{"model":null}}}}"#,
            rows.join(",")
        );
        same_as_whole(&page);
        // Of the rows whose key varies only a string key is kept; every other row but the last five.
        assert_eq!(read(&list_page(&page).unwrap()).1.len(), (fields.len() - 1) * values.len() + 1 + 3);
    }

    #[test]
    fn pages_of_another_shape_read_as_absent() {
        for text in [
            "null",
            "[]",
            "5",
            r#""sessions""#,
            r#"{"sessions":{"key":"agent:main:main"}}"#,
            r#"{"sessions":"agent:main:main","path":7}"#,
            r#"{"hasMore":"yes","nextOffset":-1,"sessions":[]}"#,
            r#"{"sessions":[],"sessions":[{"key":"agent:main:second"}]}"#,
        ] {
            same_as_whole(text);
        }
    }

    #[test]
    fn text_that_is_not_json_is_refused() {
        for text in [r#"{"sessions":[{"key":"a","skipped":[1,}]}"#, r#"{"other":tru}"#, r#"{"sessions":[]} x"#, r#"{"a":"\q"}"#] {
            assert!(list_page(text).is_err(), "{text}");
            assert!(serde_json::from_str::<Value>(text).is_err(), "{text}");
        }
    }
}
