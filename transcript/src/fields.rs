//! JSON text read as `JSON.parse` reads it, without building values: the few fields a
//! reader needs out of an object (a repeated key: the last one), a key's string found by a
//! scan of an object's top level, and a string's text.

use serde_json::value::RawValue;

/// Picks fields of a JSON object (see [`fields`]).
struct Pick<'n, const N: usize>(&'n [&'n str; N]);

impl<'de, const N: usize> serde::de::DeserializeSeed<'de> for Pick<'_, N> {
    type Value = [Option<&'de RawValue>; N];

    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de, const N: usize> serde::de::Visitor<'de> for Pick<'_, N> {
    type Value = [Option<&'de RawValue>; N];

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a JSON object")
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut found = [None; N];
        while let Some(Key(key)) = map.next_key::<Key>()? {
            match self.0.iter().position(|name| name.as_bytes() == key.as_slice()) {
                Some(i) => found[i] = Some(map.next_value::<&'de RawValue>()?),
                None => {
                    map.next_value::<serde::de::IgnoredAny>()?;
                }
            }
        }
        Ok(found)
    }
}

/// An object key as bytes (WTF-8): a key with a lone surrogate (`"\ud800"`), which
/// `JSON.parse` keeps and serde_json refuses as a `str`, is still a key, so the line's
/// other fields are read.
struct Key(Vec<u8>);

impl<'de> serde::Deserialize<'de> for Key {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Bytes;
        impl serde::de::Visitor<'_> for Bytes {
            type Value = Key;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("an object key")
            }
            fn visit_bytes<E: serde::de::Error>(self, v: &[u8]) -> Result<Key, E> {
                Ok(Key(v.to_vec()))
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Key, E> {
                Ok(Key(v.as_bytes().to_vec()))
            }
        }
        d.deserialize_bytes(Bytes)
    }
}

/// The fields `names` of a JSON object, each as its JSON text, as `JSON.parse` reads them:
/// a key given twice takes its last value (serde's derived structs refuse a repeated field,
/// which dropped the line or the role), and a value serde_json's `Value` cannot hold (a
/// lone surrogate, a number beyond `f64`) is still read. `Err` when the text is not a JSON
/// object.
pub fn fields<'a, const N: usize>(text: &'a str, names: &[&str; N]) -> serde_json::Result<[Option<&'a RawValue>; N]> {
    // Keys are read as bytes ([`Key`]), which serde_json does without its check for raw
    // control characters in a string; `JSON.parse` refuses those anywhere in a string.
    if has_raw_control_in_string(text) {
        return Err(serde::de::Error::custom("a control character in a string"));
    }
    let mut de = serde_json::Deserializer::from_str(text);
    let found = serde::de::DeserializeSeed::deserialize(Pick(names), &mut de)?;
    de.end()?;
    Ok(found)
}

/// Whether a raw control character (U+0000–U+001F) is inside a string of JSON text
/// (escaped ones, `\u0000`, are fine; outside strings serde_json checks them itself).
fn has_raw_control_in_string(text: &str) -> bool {
    // Most lines have no control byte at all (a compact line escapes its newlines): that is
    // checked a block at a time, which the compiler vectorises, before the walk.
    if !text.as_bytes().chunks(64).any(|block| block.iter().fold(false, |seen, &b| seen | (b < 0x20))) {
        return false;
    }
    let (mut in_string, mut escaped) = (false, false);
    for &b in text.as_bytes() {
        if in_string {
            if escaped {
                escaped = false;
            } else if b == b'\\' {
                escaped = true;
            } else if b == b'"' {
                in_string = false;
            } else if b < 0x20 {
                return true;
            }
        } else if b == b'"' {
            in_string = true;
        }
    }
    false
}

/// A JSON string's text (`None` for anything else, or a string with a lone surrogate).
pub fn string_of(raw: &RawValue) -> Option<String> {
    serde_json::from_str::<String>(raw.get()).ok()
}

/// The string value of the key `name` of a JSON object's text that serde_json has already
/// read as valid (a [`fields`] value, say): what `fields(valid, &[name])` and [`string_of`]
/// give, found by one scan of the object's top level that jumps over strings a word at a
/// time instead of a second parse (a history reads each kept message's `role` so). `None`
/// when the scan cannot tell (a key spelled with an escape, a text that is not an object):
/// the caller asks [`fields`].
pub fn top_level_string(valid: &str, name: &str) -> Option<Option<String>> {
    let b = valid.as_bytes();
    if b.first() != Some(&b'{') {
        return None;
    }
    // The last value the key was given (a repeated key: the last one): a string's span, or
    // `None` for a value of another type.
    let mut found: Option<Option<(usize, usize)>> = None;
    let (mut depth, mut expect_key, mut i) = (0usize, false, 0usize);
    while i < b.len() {
        match b[i] {
            b'"' => {
                let end = string_end(b, i)?;
                if depth == 1 && expect_key {
                    expect_key = false;
                    let key = &b[i + 1..end];
                    if key.contains(&b'\\') {
                        return None;
                    }
                    let colon = skip_space(b, end + 1);
                    if b.get(colon) != Some(&b':') {
                        return None;
                    }
                    let value = skip_space(b, colon + 1);
                    if key == name.as_bytes() {
                        if b.get(value) == Some(&b'"') {
                            let close = string_end(b, value)?;
                            found = Some(Some((value, close)));
                            i = close + 1;
                            continue;
                        }
                        found = Some(None);
                    }
                    i = value;
                    continue;
                }
                i = end + 1;
            }
            open @ (b'{' | b'[') => {
                depth += 1;
                expect_key = open == b'{' && depth == 1;
                i += 1;
            }
            b'}' | b']' => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    break;
                }
                i += 1;
            }
            b',' => {
                expect_key = depth == 1;
                i += 1;
            }
            _ => i += 1,
        }
    }
    // Spans end at ASCII quotes, so they are char boundaries.
    Some(found.flatten().and_then(|(start, close)| serde_json::from_str::<String>(&valid[start..=close]).ok()))
}

/// The index of the quote that closes the string opening at `open`.
fn string_end(b: &[u8], open: usize) -> Option<usize> {
    let mut at = open + 1;
    loop {
        at += memchr::memchr2(b'"', b'\\', b.get(at..)?)?;
        if b[at] == b'"' {
            return Some(at);
        }
        at += 2;
    }
}

/// The index of the first byte from `at` that is not JSON white space.
fn skip_space(b: &[u8], mut at: usize) -> usize {
    while matches!(b.get(at), Some(b' ' | b'\t' | b'\n' | b'\r')) {
        at += 1;
    }
    at
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_raw_control_character_in_a_string_is_not_json() {
        assert!(!has_raw_control_in_string(r#"{"a":"\u0000\"\\"}"#));
        assert!(has_raw_control_in_string("{\"a\":\"\t\"}"));
        // Past the first block of bytes, and a control byte outside strings (pretty JSON).
        let long = "x".repeat(100);
        assert!(has_raw_control_in_string(&format!("{{\"a\":\"{long}\n\"}}")));
        assert!(!has_raw_control_in_string(&format!("{{\n\"a\":\"{long}\"\n}}")));
        assert!(fields("{\"a\":\"x\ty\"}", &["a"]).is_err());
        let [a] = fields(r#"{"a":1,"a":"last"}"#, &["a"]).unwrap();
        assert_eq!(a.and_then(string_of).as_deref(), Some("last"));
    }

    /// `top_level_string` answers as `fields` and `string_of` do, for generated objects:
    /// keys repeated, escaped or nested, values of every type, white space anywhere.
    #[test]
    fn the_top_level_scan_reads_a_key_as_fields_does() {
        let mut seed = 0x9e37_79b9_7f4a_7c15_u64;
        let mut next = move |n: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed % n
        };
        fn value(next: &mut dyn FnMut(u64) -> u64, depth: u32) -> String {
            let strings = [r#""user""#, r#""as\"s\\t""#, r#""\u0072ole""#, r#""\ud800""#, r#""é 😀 ]}{,:""#, r#""""#];
            match next(if depth > 2 { 4 } else { 6 }) {
                0 => strings[next(strings.len() as u64) as usize].to_string(),
                1 => ["1", "-0.5e3", "true", "null"][next(4) as usize].to_string(),
                2 => format!("{} ", strings[next(strings.len() as u64) as usize]),
                3 => "false".to_string(),
                4 => format!("[{}, {}]", value(next, depth + 1), value(next, depth + 1)),
                _ => object(next, depth + 1),
            }
        }
        fn object(next: &mut dyn FnMut(u64) -> u64, depth: u32) -> String {
            let keys = [r#""role""#, r#""content""#, r#""r\u006fle""#, r#""rol""#, r#""roles""#, r#""x\"role""#];
            let n = next(5);
            let members: Vec<String> = (0..n)
                .map(|_| {
                    let space = [" ", "", "\n\t", ""][next(4) as usize];
                    format!("{space}{}{space}:{space}{}", keys[next(keys.len() as u64) as usize], value(next, depth))
                })
                .collect();
            format!("{{{}}}", members.join(","))
        }
        let mut scanned = 0;
        for _ in 0..20_000 {
            let text = object(&mut next, 0);
            let by_fields = fields(&text, &["role"]).unwrap_or_else(|e| panic!("{text}: {e}"))[0].and_then(string_of);
            if let Some(by_scan) = top_level_string(&text, "role") {
                assert_eq!(by_scan, by_fields, "{text}");
                scanned += 1;
            }
        }
        assert!(scanned > 10_000, "the scan answered {scanned} of 20,000");
        assert_eq!(top_level_string("[1]", "role"), None);
        assert_eq!(top_level_string(r#"{"r\u006fle":"user"}"#, "role"), None);
        assert_eq!(top_level_string(r#"{"a":{"role":"x"},"role":"user","role":"assistant"}"#, "role"), Some(Some("assistant".into())));
        assert_eq!(top_level_string(r#"{"role":"user","role":7}"#, "role"), Some(None));
    }
}
