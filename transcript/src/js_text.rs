//! JSON text as OpenClaw's gateway sends it: `JSON.stringify(JSON.parse(line))`.
//!
//! The real gateway parses each transcript line and writes its messages out again, so what
//! it answers is compact, with numbers as JavaScript prints them (`0.0` is `0`, `1e21` is
//! `1e+21`) and strings escaped only where JSON requires it (`\u00e9` is `é`). The embedded
//! gateway passes transcript text through without building values (large stores, N18); this
//! rewrites the few lines that are not already in that form, in one pass over the text.

use std::borrow::Cow;

/// `JSON.stringify(JSON.parse(text))` of valid JSON text.
pub fn stringify(text: &str) -> Cow<'_, str> {
    if is_canonical(text) {
        Cow::Borrowed(text)
    } else {
        Cow::Owned(rewrite(text))
    }
}

/// Whether the text is already as JavaScript writes it (checked byte by byte: no
/// whitespace between tokens, no `\u` or `\/` escape, numbers in their JavaScript form).
fn is_canonical(text: &str) -> bool {
    let bytes = text.as_bytes();
    let mut i = 0;
    let mut in_string = false;
    while i < bytes.len() {
        let b = bytes[i];
        if in_string {
            match b {
                b'\\' => {
                    if matches!(bytes.get(i + 1), Some(b'u' | b'/')) {
                        return false;
                    }
                    i += 2;
                }
                b'"' => {
                    in_string = false;
                    i += 1;
                }
                // The string's next quote or escape, found a word at a time.
                _ => match memchr::memchr2(b'"', b'\\', &bytes[i..]) {
                    Some(at) => i += at,
                    None => return true,
                },
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b' ' | b'\t' | b'\n' | b'\r' => return false,
            b'-' | b'0'..=b'9' => {
                let start = i;
                while i < bytes.len() && matches!(bytes[i], b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9') {
                    i += 1;
                }
                // Number tokens are ASCII, so `start..i` are char boundaries.
                let token = &text[start..i];
                if js_number(token) != token {
                    return false;
                }
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    true
}

fn rewrite(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.char_indices().peekable();
    while let Some((at, c)) = chars.next() {
        match c {
            ' ' | '\t' | '\n' | '\r' => {}
            '"' => {
                out.push('"');
                rewrite_string(&mut chars, &mut out);
            }
            '-' | '0'..='9' => {
                let mut end = at + c.len_utf8();
                while let Some(&(i, n)) = chars.peek() {
                    if !matches!(n, '-' | '+' | '.' | 'e' | 'E' | '0'..='9') {
                        break;
                    }
                    end = i + n.len_utf8();
                    chars.next();
                }
                out.push_str(&js_number(&text[at..end]));
            }
            other => out.push(other),
        }
    }
    out
}

/// The rest of a string after its opening quote, closing quote included.
fn rewrite_string(chars: &mut std::iter::Peekable<std::str::CharIndices<'_>>, out: &mut String) {
    while let Some((_, c)) = chars.next() {
        match c {
            '"' => {
                out.push('"');
                return;
            }
            '\\' => match chars.next().map(|(_, e)| e) {
                Some('u') => {
                    let unit = hex4(chars);
                    match unit {
                        Some(high @ 0xD800..=0xDBFF) => {
                            // A pair is one character; a lone half stays escaped, as
                            // JavaScript's well-formed `JSON.stringify` writes it.
                            let mut ahead = chars.clone();
                            let low = match (ahead.next(), ahead.next()) {
                                (Some((_, '\\')), Some((_, 'u'))) => hex4(&mut ahead).filter(|l| (0xDC00..=0xDFFF).contains(l)),
                                _ => None,
                            };
                            match low {
                                Some(low) => {
                                    *chars = ahead;
                                    let code = 0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00);
                                    out.push(char::from_u32(code).unwrap_or('\u{FFFD}'));
                                }
                                None => push_unit_escape(out, high),
                            }
                        }
                        Some(low @ 0xDC00..=0xDFFF) => push_unit_escape(out, low),
                        Some(unit) => push_char(out, char::from_u32(unit).unwrap_or('\u{FFFD}')),
                        None => out.push('\u{FFFD}'),
                    }
                }
                Some('/') => out.push('/'),
                Some(e) => {
                    out.push('\\');
                    out.push(e);
                }
                None => return,
            },
            other => push_char(out, other),
        }
    }
}

fn hex4(chars: &mut std::iter::Peekable<std::str::CharIndices<'_>>) -> Option<u32> {
    let mut unit = 0;
    for _ in 0..4 {
        let digit = chars.next()?.1.to_digit(16)?;
        unit = unit * 16 + digit;
    }
    Some(unit)
}

fn push_unit_escape(out: &mut String, unit: u32) {
    out.push_str(&format!("\\u{unit:04x}"));
}

/// A character inside a string, escaped as `JSON.stringify` escapes it.
fn push_char(out: &mut String, c: char) {
    match c {
        '"' => out.push_str("\\\""),
        '\\' => out.push_str("\\\\"),
        '\u{8}' => out.push_str("\\b"),
        '\u{c}' => out.push_str("\\f"),
        '\n' => out.push_str("\\n"),
        '\r' => out.push_str("\\r"),
        '\t' => out.push_str("\\t"),
        c if (c as u32) < 0x20 => push_unit_escape(out, c as u32),
        c => out.push(c),
    }
}

/// A JSON number token as JavaScript prints the number it parses to
/// (`Number.prototype.toString`; a number too large for a double is `null`).
pub fn js_number(token: &str) -> Cow<'_, str> {
    let digits = token.strip_prefix('-').unwrap_or(token);
    // Integers a double holds exactly print as they are (but `-0` is `0`).
    if !digits.is_empty() && digits.len() <= 15 && digits.bytes().all(|b| b.is_ascii_digit()) && (digits == "0" || !digits.starts_with('0'))
    {
        return if token == "-0" { Cow::Borrowed("0") } else { Cow::Borrowed(token) };
    }
    if is_short_decimal(digits) {
        return Cow::Borrowed(token);
    }
    let Ok(v) = token.parse::<f64>() else { return Cow::Borrowed(token) };
    if !v.is_finite() {
        return Cow::Borrowed("null");
    }
    if v == 0.0 {
        return Cow::Borrowed("0");
    }
    let magnitude = v.abs();
    if (1e-6..1e21).contains(&magnitude) {
        // Rust's shortest round-trip digits, positional, as JavaScript in this range.
        return Cow::Owned(format!("{v}"));
    }
    let exp = format!("{v:e}");
    Cow::Owned(match exp.split_once('e') {
        Some((mantissa, exponent)) if !exponent.starts_with('-') => format!("{mantissa}e+{exponent}"),
        _ => exp,
    })
}

/// Whether a decimal without sign or exponent already is JavaScript's shortest form: no
/// leading zero (but a lone `0` before the point), a last digit that is not `0`, at most 15
/// significant digits (which a double tells apart from every other such decimal, so
/// nothing shorter reads back as the same number) and at least 1e-6 (below that,
/// JavaScript writes an exponent). A cost like `0.0047` needs no formatting to check.
fn is_short_decimal(digits: &str) -> bool {
    let Some((int, frac)) = digits.split_once('.') else { return false };
    let all_digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    if !all_digits(int) || !all_digits(frac) || frac.ends_with('0') || (int.len() > 1 && int.starts_with('0')) {
        return false;
    }
    let significant = if int == "0" {
        let zeros = frac.len() - frac.trim_start_matches('0').len();
        if zeros >= 6 {
            return false;
        }
        frac.len() - zeros
    } else {
        int.len() + frac.len()
    };
    significant <= 15
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_printed_as_javascript_prints_them() {
        for (token, js) in [
            ("0", "0"),
            ("-0", "0"),
            ("0.0", "0"),
            ("-0.0", "0"),
            ("12", "12"),
            ("12.50", "12.5"),
            ("1.0e3", "1000"),
            ("0.0047", "0.0047"),
            ("0.000001", "0.000001"),
            ("0.0000001", "1e-7"),
            ("1e21", "1e+21"),
            ("1.5e300", "1.5e+300"),
            ("123456789012345678901", "123456789012345680000"),
            ("12345678901234567890", "12345678901234567000"),
            ("1e400", "null"),
            ("-12.25", "-12.25"),
            ("0.1", "0.1"),
            ("0.000001234", "0.000001234"),
            ("0.0000001234", "1.234e-7"),
            ("123456789.123456", "123456789.123456"),
            ("1234567890.1234567", "1234567890.1234567"),
            ("0.30000000000000004", "0.30000000000000004"),
            ("0.3000000000000000444", "0.30000000000000004"),
            ("05.5", "5.5"),
        ] {
            assert_eq!(js_number(token), js, "{token}");
        }
        // The shortcut answers as the formatting does, for every decimal it takes.
        for token in ["0.5", "3.14159", "99999.99999", "0.000009", "100.001", "123456789012.345", "7.000001"] {
            assert!(is_short_decimal(token), "{token}");
            let v: f64 = token.parse().unwrap();
            assert_eq!(format!("{v}"), token);
        }
        for digits in ["1", "7", "12", "123456789", "999999999999999", "100000000000001", "314159265358979", "9007199254740993"] {
            for point in 0..digits.len() {
                for zeros in 0..8 {
                    let token = match point {
                        0 => format!("0.{}{digits}", "0".repeat(zeros)),
                        _ => format!("{}.{}", &digits[..point], &digits[point..]),
                    };
                    if is_short_decimal(&token) {
                        assert_eq!(format!("{}", token.parse::<f64>().unwrap()), token);
                    }
                }
            }
        }
    }

    #[test]
    fn text_is_rewritten_only_where_javascript_would_write_it_otherwise() {
        let canonical =
            r#"{"role":"assistant","content":[{"type":"text","text":"olá \"x\" \n 你好 😀"}],"usage":{"input":3,"cost":0.0047}}"#;
        assert!(matches!(stringify(canonical), Cow::Borrowed(_)));
        assert_eq!(
            stringify(r#"{ "a" : [1.0, -0, 2e0],  "s": "caf\u00e9 \/ \ud83d\ude00 \ud800 \u001f \u0022" }"#),
            r#"{"a":[1,0,2],"s":"café / 😀 \ud800 \u001f \""}"#
        );
        // Long strings are skipped to their next quote or escape, which is still looked at.
        let long = "y".repeat(100);
        assert!(matches!(stringify(&format!(r#"{{"s":"{long}\"{long}\\","n":1}}"#)), Cow::Borrowed(_)));
        assert!(matches!(stringify(&format!(r#"{{"s":"{long}\u00e9"}}"#)), Cow::Owned(_)));
        assert!(matches!(stringify(&format!(r#"{{"s":"{long}","n":1.0}}"#)), Cow::Owned(_)));
        // Every rewrite is the same JSON value.
        let messy = "{\"n\": 0.0, \"t\": \"tab\\t \\u00e9\"}";
        let a: serde_json::Value = serde_json::from_str(messy).unwrap();
        let b: serde_json::Value = serde_json::from_str(&stringify(messy)).unwrap();
        assert_eq!(a["t"], b["t"]);
        assert_eq!(a["n"].as_f64(), b["n"].as_f64());
    }
}
