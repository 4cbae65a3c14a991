//! JSON text read as `JSON.parse` reads it, without building values: the few fields a
//! reader needs out of an object (a repeated key: the last one), a string's text, and
//! JavaScript's whitespace, which OpenClaw trims with.

use serde_json::value::RawValue;

/// JavaScript's whitespace (`\s`, `String.prototype.trim`): OpenClaw and pi-coding-agent trim
/// with it, not with Rust's `char::is_whitespace` (U+FEFF is JavaScript whitespace, U+0085
/// is not), so a line or a hint is what they take it for.
pub fn js_space(c: char) -> bool {
    matches!(
        c,
        '\t' | '\n' | '\u{b}' | '\u{c}' | '\r' | ' ' | '\u{a0}' | '\u{1680}' | '\u{2000}'
            ..='\u{200a}' | '\u{2028}' | '\u{2029}' | '\u{202f}' | '\u{205f}' | '\u{3000}' | '\u{feff}'
    )
}

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
}
