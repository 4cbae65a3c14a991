//! JSON5 (<https://spec.json5.org>), the format OpenClaw reads its config and session
//! stores in, parsed into a `serde_json::Value`.
//!
//! Hand-written and total: any input gives a value or an error naming the line and column,
//! never a panic, and nesting deeper than [`MAX_DEPTH`] is an error rather than a stack
//! overflow (these files come from disk, written by anyone). `NaN` and `Infinity` become
//! `null`, as `JSON.stringify` writes them.

use serde_json::{Map, Number, Value};

/// How deeply arrays and objects may nest (serde_json's own limit).
pub const MAX_DEPTH: usize = 128;

/// Why a text is not JSON5: what was wrong, and where (1-based line and column, counted in
/// characters).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    pub message: String,
    pub line: usize,
    pub column: usize,
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} at line {} column {}", self.message, self.line, self.column)
    }
}

impl std::error::Error for Error {}

/// Parses a JSON5 text (one value, surrounded by whitespace and comments).
pub fn from_str(text: &str) -> Result<Value, Error> {
    let mut parser = Parser { chars: text.char_indices().peekable(), text, depth: 0 };
    parser.skip_blank()?;
    let value = parser.value()?;
    parser.skip_blank()?;
    match parser.peek() {
        None => Ok(value),
        Some(c) => Err(parser.error(format!("unexpected {c:?} after the value"))),
    }
}

struct Parser<'a> {
    chars: std::iter::Peekable<std::str::CharIndices<'a>>,
    text: &'a str,
    depth: usize,
}

/// JSON5 white space: JSON's, plus vertical tab, form feed, no-break space, the line and
/// paragraph separators, the byte order mark and Unicode's space separators.
fn is_blank(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\u{b}' | '\u{c}' | '\r' | ' ' | '\u{a0}' | '\u{2028}' | '\u{2029}' | '\u{feff}')
        || matches!(c, '\u{1680}' | '\u{2000}'..='\u{200a}' | '\u{202f}' | '\u{205f}' | '\u{3000}')
}

fn is_line_end(c: char) -> bool {
    matches!(c, '\n' | '\r' | '\u{2028}' | '\u{2029}')
}

fn starts_identifier(c: char) -> bool {
    c == '$' || c == '_' || c.is_alphabetic()
}

fn continues_identifier(c: char) -> bool {
    starts_identifier(c) || c.is_alphanumeric() || c == '\u{200c}' || c == '\u{200d}'
}

impl Parser<'_> {
    fn peek(&mut self) -> Option<char> {
        self.chars.peek().map(|(_, c)| *c)
    }

    fn next(&mut self) -> Option<char> {
        self.chars.next().map(|(_, c)| c)
    }

    /// The byte offset of the next character (the end when there is none).
    fn offset(&mut self) -> usize {
        self.chars.peek().map_or(self.text.len(), |(i, _)| *i)
    }

    fn error(&mut self, message: impl Into<String>) -> Error {
        let offset = self.offset();
        // Everything before `offset` is whole characters: it came from `char_indices`.
        let before = self.text.get(..offset).unwrap_or(self.text);
        let line = before.matches('\n').count() + 1;
        let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
        Error { message: message.into(), line, column }
    }

    fn expect(&mut self, wanted: char) -> Result<(), Error> {
        match self.peek() {
            Some(c) if c == wanted => {
                self.next();
                Ok(())
            }
            Some(c) => Err(self.error(format!("expected {wanted:?}, found {c:?}"))),
            None => Err(self.error(format!("expected {wanted:?}, found the end of the text"))),
        }
    }

    /// Skips white space and comments.
    fn skip_blank(&mut self) -> Result<(), Error> {
        loop {
            match self.peek() {
                Some(c) if is_blank(c) => {
                    self.next();
                }
                Some('/') => {
                    let mut ahead = self.chars.clone();
                    ahead.next();
                    match ahead.next().map(|(_, c)| c) {
                        Some('/') => {
                            while self.peek().is_some_and(|c| !is_line_end(c)) {
                                self.next();
                            }
                        }
                        Some('*') => {
                            self.next();
                            self.next();
                            let mut star = false;
                            loop {
                                match self.next() {
                                    Some('/') if star => break,
                                    Some(c) => star = c == '*',
                                    None => return Err(self.error("a comment is not closed")),
                                }
                            }
                        }
                        _ => return Ok(()),
                    }
                }
                _ => return Ok(()),
            }
        }
    }

    fn value(&mut self) -> Result<Value, Error> {
        match self.peek() {
            Some('{') => self.nested(Self::object),
            Some('[') => self.nested(Self::array),
            Some(quote @ ('"' | '\'')) => {
                self.next();
                self.string(quote).map(Value::String)
            }
            Some(c) if c.is_ascii_digit() || matches!(c, '-' | '+' | '.') => self.number(),
            Some(c) if starts_identifier(c) => {
                let word = self.identifier()?;
                match word.as_str() {
                    "null" => Ok(Value::Null),
                    "true" => Ok(Value::Bool(true)),
                    "false" => Ok(Value::Bool(false)),
                    "Infinity" | "NaN" => Ok(Value::Null),
                    _ => Err(self.error(format!("unexpected word {word:?}"))),
                }
            }
            Some(c) => Err(self.error(format!("unexpected {c:?}"))),
            None => Err(self.error("expected a value, found the end of the text")),
        }
    }

    fn nested(&mut self, parse: fn(&mut Self) -> Result<Value, Error>) -> Result<Value, Error> {
        if self.depth >= MAX_DEPTH {
            return Err(self.error(format!("nested more than {MAX_DEPTH} levels deep")));
        }
        self.depth += 1;
        let value = parse(self);
        self.depth -= 1;
        value
    }

    fn object(&mut self) -> Result<Value, Error> {
        self.expect('{')?;
        let mut map = Map::new();
        loop {
            self.skip_blank()?;
            if self.peek() == Some('}') {
                self.next();
                return Ok(Value::Object(map));
            }
            let key = match self.peek() {
                Some(quote @ ('"' | '\'')) => {
                    self.next();
                    self.string(quote)?
                }
                Some(c) if starts_identifier(c) || c == '\\' => self.identifier()?,
                Some(c) => return Err(self.error(format!("expected a key, found {c:?}"))),
                None => return Err(self.error("an object is not closed")),
            };
            self.skip_blank()?;
            self.expect(':')?;
            self.skip_blank()?;
            let value = self.value()?;
            // A repeated key keeps its first place and takes the last value, as `JSON.parse`.
            map.insert(key, value);
            self.skip_blank()?;
            match self.next() {
                Some(',') => continue,
                Some('}') => return Ok(Value::Object(map)),
                Some(c) => return Err(self.error(format!("expected ',' or '}}' in an object, found {c:?}"))),
                None => return Err(self.error("an object is not closed")),
            }
        }
    }

    fn array(&mut self) -> Result<Value, Error> {
        self.expect('[')?;
        let mut items = Vec::new();
        loop {
            self.skip_blank()?;
            match self.peek() {
                Some(']') => {
                    self.next();
                    return Ok(Value::Array(items));
                }
                None => return Err(self.error("an array is not closed")),
                Some(_) => {}
            }
            items.push(self.value()?);
            self.skip_blank()?;
            match self.next() {
                Some(',') => continue,
                Some(']') => return Ok(Value::Array(items)),
                Some(c) => return Err(self.error(format!("expected ',' or ']' in an array, found {c:?}"))),
                None => return Err(self.error("an array is not closed")),
            }
        }
    }

    /// An identifier name (object keys and the literal words), `\uXXXX` escapes allowed.
    fn identifier(&mut self) -> Result<String, Error> {
        let mut name = String::new();
        loop {
            match self.peek() {
                Some('\\') => {
                    self.next();
                    if self.next() != Some('u') {
                        return Err(self.error("only \\u escapes may appear in a key"));
                    }
                    let c = self.unicode_escape()?;
                    name.push(c);
                }
                Some(c) if (name.is_empty() && starts_identifier(c)) || (!name.is_empty() && continues_identifier(c)) => {
                    name.push(c);
                    self.next();
                }
                _ => break,
            }
        }
        if name.is_empty() {
            return Err(self.error("expected a key"));
        }
        Ok(name)
    }

    fn hex_digits(&mut self, count: usize) -> Result<u32, Error> {
        let mut value = 0u32;
        for _ in 0..count {
            match self.peek().and_then(|c| c.to_digit(16)) {
                Some(d) => {
                    value = value * 16 + d;
                    self.next();
                }
                None => return Err(self.error("expected a hexadecimal digit")),
            }
        }
        Ok(value)
    }

    /// The four digits after `\u` (a surrogate pair takes two escapes).
    fn unicode_escape(&mut self) -> Result<char, Error> {
        let first = self.hex_digits(4)?;
        if (0xd800..0xdc00).contains(&first) {
            let mut ahead = self.chars.clone();
            let pair = matches!((ahead.next(), ahead.next()), (Some((_, '\\')), Some((_, 'u'))));
            if pair {
                let resume = self.chars.clone();
                self.next();
                self.next();
                let second = self.hex_digits(4)?;
                if (0xdc00..0xe000).contains(&second) {
                    let code = 0x10000 + ((first - 0xd800) << 10) + (second - 0xdc00);
                    return Ok(char::from_u32(code).unwrap_or('\u{fffd}'));
                }
                self.chars = resume;
            }
            return Ok('\u{fffd}');
        }
        Ok(char::from_u32(first).unwrap_or('\u{fffd}'))
    }

    /// A string after its opening quote.
    fn string(&mut self, quote: char) -> Result<String, Error> {
        let mut out = String::new();
        loop {
            match self.next() {
                None => return Err(self.error("a string is not closed")),
                Some(c) if c == quote => return Ok(out),
                Some('\n' | '\r') => return Err(self.error("a line break inside a string must be escaped")),
                Some('\\') => match self.next() {
                    None => return Err(self.error("a string is not closed")),
                    Some('b') => out.push('\u{8}'),
                    Some('f') => out.push('\u{c}'),
                    Some('n') => out.push('\n'),
                    Some('r') => out.push('\r'),
                    Some('t') => out.push('\t'),
                    Some('v') => out.push('\u{b}'),
                    Some('0') if !self.peek().is_some_and(|c| c.is_ascii_digit()) => out.push('\0'),
                    Some('x') => {
                        let code = self.hex_digits(2)?;
                        out.push(char::from_u32(code).unwrap_or('\u{fffd}'));
                    }
                    Some('u') => out.push(self.unicode_escape()?),
                    // A line continuation: the escaped line break is not part of the string.
                    Some('\r') => {
                        if self.peek() == Some('\n') {
                            self.next();
                        }
                    }
                    Some('\n' | '\u{2028}' | '\u{2029}') => {}
                    Some(c) if c.is_ascii_digit() => return Err(self.error("a digit may not be escaped")),
                    Some(c) => out.push(c),
                },
                Some(c) => out.push(c),
            }
        }
    }

    fn number(&mut self) -> Result<Value, Error> {
        let mut negative = false;
        if let Some(sign @ ('+' | '-')) = self.peek() {
            negative = sign == '-';
            self.next();
        }
        if self.peek().is_some_and(starts_identifier) {
            let word = self.identifier()?;
            return match word.as_str() {
                "Infinity" | "NaN" => Ok(Value::Null),
                _ => Err(self.error(format!("unexpected word {word:?} after a sign"))),
            };
        }
        let mut ahead = self.chars.clone();
        let hex = matches!((ahead.next(), ahead.next()), (Some((_, '0')), Some((_, 'x' | 'X'))));
        if hex {
            self.next();
            self.next();
            let mut value: f64 = 0.0;
            let mut digits = 0;
            while let Some(d) = self.peek().and_then(|c| c.to_digit(16)) {
                value = value * 16.0 + f64::from(d);
                digits += 1;
                self.next();
            }
            if digits == 0 {
                return Err(self.error("expected a hexadecimal digit"));
            }
            let value = if negative { -value } else { value };
            return Ok(number(value, None));
        }
        let mut literal = String::new();
        if negative {
            literal.push('-');
        }
        let mut int_digits = 0;
        while let Some(c) = self.peek().filter(char::is_ascii_digit) {
            literal.push(c);
            int_digits += 1;
            self.next();
        }
        let mut frac_digits = 0;
        if self.peek() == Some('.') {
            self.next();
            literal.push('.');
            while let Some(c) = self.peek().filter(char::is_ascii_digit) {
                literal.push(c);
                frac_digits += 1;
                self.next();
            }
        }
        if int_digits == 0 && frac_digits == 0 {
            return Err(self.error("expected a number"));
        }
        if let Some(e @ ('e' | 'E')) = self.peek() {
            literal.push(e);
            self.next();
            if let Some(sign @ ('+' | '-')) = self.peek() {
                literal.push(sign);
                self.next();
            }
            let mut exp_digits = 0;
            while let Some(c) = self.peek().filter(char::is_ascii_digit) {
                literal.push(c);
                exp_digits += 1;
                self.next();
            }
            if exp_digits == 0 {
                return Err(self.error("expected the digits of an exponent"));
            }
        }
        let integral = frac_digits == 0 && !literal.contains(['e', 'E']);
        // `1.` and `.5` are JSON5; Rust's float parser wants a digit on each side.
        let normalised = literal.replace("-.", "-0.").trim_end_matches('.').to_string();
        let normalised = if normalised.starts_with('.') { format!("0{normalised}") } else { normalised };
        let value: f64 = normalised.parse().map_err(|_| self.error(format!("invalid number {literal:?}")))?;
        Ok(number(value, integral.then_some(normalised.as_str())))
    }
}

/// A number as JSON: integers stay integers while they fit, other values are floats, and
/// values JSON cannot hold become `null`.
fn number(value: f64, integer_literal: Option<&str>) -> Value {
    if let Some(literal) = integer_literal {
        if let Ok(i) = literal.parse::<i64>() {
            return Value::Number(i.into());
        }
        if let Ok(u) = literal.parse::<u64>() {
            return Value::Number(u.into());
        }
    } else if value.fract() == 0.0 && value.abs() < 9.007_199_254_740_992e15 {
        return Value::Number((value as i64).into());
    }
    Number::from_f64(value).map_or(Value::Null, Value::Number)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn reads_the_json5_extensions() {
        let text = "// a comment\n{ unquoted: 'single', \"double\": \"x\", trailing: [1, 2,], hex: 0xFF, lead: .5, tail: 5., \
                    plus: +1, inf: Infinity, nan: -NaN, esc: 'a\\\nb\\x41\\u00e9\\v', /* block */ nested: {a: null,},\
                    ünïcode: true, $id_1: false, big: 12345678901234567890, exp: 1e3, }";
        assert_eq!(
            from_str(text).unwrap(),
            json!({"unquoted": "single", "double": "x", "trailing": [1, 2], "hex": 255, "lead": 0.5, "tail": 5,
                   "plus": 1, "inf": null, "nan": null, "esc": "abA\u{e9}\u{b}", "nested": {"a": null},
                   "ünïcode": true, "$id_1": false, "big": 12345678901234567890u64, "exp": 1000})
        );
    }

    #[test]
    fn plain_json_reads_as_serde_json_reads_it() {
        let text = r#"{"a": [1, -2.5, "x\u00e9\ud83d\ude00", {"b": false}], "c": null, "d": 1e-7}"#;
        assert_eq!(from_str(text).unwrap(), serde_json::from_str::<Value>(text).unwrap());
    }

    #[test]
    fn a_repeated_key_keeps_its_place_and_takes_the_last_value() {
        let value = from_str("{a: 1, b: 2, a: 3}").unwrap();
        assert_eq!(serde_json::to_string(&value).unwrap(), r#"{"a":3,"b":2}"#);
    }

    #[test]
    fn errors_name_the_place() {
        let err = from_str("{\n  a: 1,\n  b: ?\n}").unwrap_err();
        assert_eq!((err.line, err.column), (3, 6), "{err}");
        assert!(from_str("{ agents: [").unwrap_err().message.contains("not closed"));
        assert!(from_str("'abc").is_err());
        assert!(from_str("/* open").is_err());
        assert!(from_str("{} x").is_err());
        assert!(from_str("").is_err());
        assert!(from_str("'\\1'").is_err());
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_stack_overflow() {
        let deep = "[".repeat(100_000);
        assert!(from_str(&deep).unwrap_err().message.contains("nested more than"));
        let ok = format!("{}{}", "[".repeat(MAX_DEPTH), "]".repeat(MAX_DEPTH));
        assert!(from_str(&ok).is_ok());
    }

    #[test]
    fn never_panics_on_cut_or_odd_text() {
        let text = "{ k: 'é\\u12', \"\\ud800\": [0x, -., 1e, \u{2028} ] } 谢谢";
        for end in (0..=text.len()).filter(|i| text.is_char_boundary(*i)) {
            let _ = from_str(&text[..end]);
        }
        assert_eq!(from_str("'\\ud800x'").unwrap(), json!("\u{fffd}x"));
    }
}
