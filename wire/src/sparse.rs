//! A `sessions.list` page read for what the tools take of it. A 2026.9 row carries some
//! forty fields (about 1.5 KB: thinking levels, runtime, usage, sharing), of which a
//! [`SessionRow`](session_tools_contract::SessionRow) keeps twenty; parsing every one into
//! a `Value` was most of the wire's time on a list of 200 rows. Here the
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

    /// A JSON document as text is written: objects may repeat a key, and the writer may
    /// escape any character of a string (`\uXXXX`) or put white space between tokens.
    #[derive(Debug, Clone)]
    enum Doc {
        Leaf(Value),
        Text(String),
        Arr(Vec<Doc>),
        Obj(Vec<(String, Doc)>),
    }

    impl Doc {
        /// The document as text; `bits` decide, token by token, escapes and white space.
        fn write(&self, bits: &mut impl FnMut() -> bool, out: &mut String) {
            let space = |bits: &mut dyn FnMut() -> bool, out: &mut String| {
                if bits() {
                    out.push_str(" \n\t ");
                }
            };
            space(bits, out);
            match self {
                Doc::Leaf(v) => out.push_str(&v.to_string()),
                Doc::Text(s) => write_str(s, bits, out),
                Doc::Arr(items) => {
                    out.push('[');
                    for (i, item) in items.iter().enumerate() {
                        if i > 0 {
                            out.push(',');
                        }
                        item.write(bits, out);
                    }
                    out.push(']');
                }
                Doc::Obj(fields) => {
                    out.push('{');
                    for (i, (key, value)) in fields.iter().enumerate() {
                        if i > 0 {
                            out.push(',');
                        }
                        space(bits, out);
                        write_str(key, bits, out);
                        space(bits, out);
                        out.push(':');
                        value.write(bits, out);
                    }
                    out.push('}');
                }
            }
            space(bits, out);
        }
    }

    /// A JSON string, each character written as itself (escaped where JSON requires) or,
    /// where `bits` say so, as `\uXXXX` (a surrogate pair outside the BMP).
    fn write_str(s: &str, bits: &mut dyn FnMut() -> bool, out: &mut String) {
        out.push('"');
        for c in s.chars() {
            if bits() || c < ' ' || c == '"' || c == '\\' {
                let mut units = [0u16; 2];
                for unit in c.encode_utf16(&mut units) {
                    out.push_str(&format!("\\u{unit:04x}"));
                }
            } else {
                out.push(c);
            }
        }
        out.push('"');
    }

    mod generated {
        use super::*;
        use proptest::prelude::*;

        fn text() -> impl Strategy<Value = String> {
            prop_oneof![
                Just(String::new()),
                "[a-z:]{1,12}".prop_map(|s| format!("agent:main:{s}")),
                proptest::collection::vec(prop::sample::select(vec!['a', 'é', '😀', '"', '\\', '\n', '\u{1}', ':', ' ']), 0..8)
                    .prop_map(|cs| cs.into_iter().collect()),
            ]
        }

        fn key() -> impl Strategy<Value = String> {
            // The fields the readers read (not the lists under test), and others.
            let mut known = fields_session_row_reads();
            known.extend(["path", "sessions", "hasMore", "nextOffset"].map(String::from));
            prop_oneof![3 => prop::sample::select(known), 1 => text()]
        }

        fn leaf() -> impl Strategy<Value = Doc> {
            prop_oneof![
                Just(Doc::Leaf(Value::Null)),
                any::<bool>().prop_map(|b| Doc::Leaf(Value::Bool(b))),
                any::<i64>().prop_map(|n| Doc::Leaf(Value::from(n))),
                any::<u64>().prop_map(|n| Doc::Leaf(Value::from(n))),
                (0u32..400).prop_map(|n| Doc::Leaf(Value::from(n))),
                (-1e9f64..1e9).prop_map(|f| Doc::Leaf(Value::from(f))),
                text().prop_map(Doc::Text),
            ]
        }

        fn doc() -> impl Strategy<Value = Doc> {
            leaf().prop_recursive(3, 24, 4, |inner| {
                prop_oneof![
                    proptest::collection::vec(inner.clone(), 0..4).prop_map(Doc::Arr),
                    proptest::collection::vec((key(), inner), 0..5).prop_map(Doc::Obj),
                ]
            })
        }

        /// A value of one of the types a row record reads, or of any shape.
        fn value() -> impl Strategy<Value = Doc> {
            prop_oneof![
                text().prop_map(Doc::Text),
                (0u64..2_000_000_000_000).prop_map(|n| Doc::Leaf(Value::from(n))),
                any::<bool>().prop_map(|b| Doc::Leaf(Value::Bool(b))),
                (text(), text(), prop_oneof![text().prop_map(Doc::Text), (0u32..9).prop_map(|n| Doc::Leaf(n.into()))]).prop_map(
                    |(channel, to, thread)| Doc::Obj(vec![
                        ("channel".into(), Doc::Text(channel)),
                        ("to".into(), Doc::Text(to)),
                        ("threadId".into(), thread),
                    ])
                ),
                doc(),
            ]
        }

        /// A row: each field a row record reads, or not, and others, in any order, some
        /// repeated; or a row of another shape.
        fn row() -> impl Strategy<Value = Doc> {
            let names = fields_session_row_reads();
            let read = proptest::collection::vec(proptest::option::of(value()), names.len());
            let others = proptest::collection::vec((key(), prop_oneof![value(), doc()]), 0..4);
            let object = (read, others)
                .prop_map(move |(read, others)| {
                    let mut fields: Vec<(String, Doc)> = names.iter().zip(read).filter_map(|(f, v)| v.map(|v| (f.clone(), v))).collect();
                    fields.extend(others);
                    fields
                })
                .prop_shuffle()
                .prop_map(Doc::Obj);
            prop_oneof![8 => object, 1 => doc()]
        }

        /// A page: its path, paging fields and rows, or not, among others, in any order,
        /// some repeated; or a page of another shape.
        fn page() -> impl Strategy<Value = Doc> {
            let sessions = prop_oneof![4 => proptest::collection::vec(row(), 0..6).prop_map(Doc::Arr), 1 => doc()];
            let read = (
                proptest::option::weighted(0.8, sessions),
                proptest::option::of(prop_oneof![text().prop_map(Doc::Text), doc()]),
                proptest::option::of(prop_oneof![3 => Just(Doc::Leaf(Value::Bool(true))), 1 => value()]),
                proptest::option::of(prop_oneof![3 => (0u32..100_000).prop_map(|n| Doc::Leaf(n.into())), 1 => value()]),
            );
            let others = proptest::collection::vec((key(), doc()), 0..4);
            let object = (read, others)
                .prop_map(|((sessions, path, has_more, next), others)| {
                    let read = [("sessions", sessions), ("path", path), ("hasMore", has_more), ("nextOffset", next)];
                    let mut fields: Vec<(String, Doc)> = read.into_iter().filter_map(|(f, v)| v.map(|v| (f.to_string(), v))).collect();
                    fields.extend(others);
                    fields
                })
                .prop_shuffle()
                .prop_map(Doc::Obj);
            prop_oneof![8 => object, 1 => doc()]
        }

        proptest! {
            /// Whatever the page, as text, a whole parse accepts, the sparse parse accepts
            /// too and reads the same rows and paging; and no text makes it panic.
            #[test]
            fn a_generated_page_reads_as_the_whole_page(page in page(), seed in any::<u64>()) {
                let mut state = seed | 1;
                let mut bits = move || {
                    state ^= state << 13;
                    state ^= state >> 7;
                    state ^= state << 17;
                    state % 5 == 0
                };
                let mut text = String::new();
                page.write(&mut bits, &mut text);
                let sparse = list_page(&text);
                if let Ok(whole) = serde_json::from_str::<Value>(&text) {
                    let sparse = sparse.map_err(|e| TestCaseError::fail(format!("{e}: {text}")))?;
                    prop_assert_eq!(read(&sparse), read(&whole), "{}", text);
                }
                // Cut short, the text is refused the same way.
                let cut: String = text.chars().take(text.chars().count() / 2).collect();
                if serde_json::from_str::<Value>(&cut).is_err() {
                    prop_assert!(list_page(&cut).is_err(), "{}", cut);
                }
            }
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
