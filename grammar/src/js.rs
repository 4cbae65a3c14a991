//! JavaScript's white space, as OpenClaw (a JavaScript program) trims and splits text:
//! `\s` and `String.prototype.trim` take U+FEFF for white space and not U+0085, unlike
//! Rust's `char::is_whitespace`.

/// JavaScript's `\s` (and the set `String.prototype.trim` strips).
pub fn js_is_space(c: char) -> bool {
    matches!(
        c,
        '\t' | '\n' | '\u{0B}' | '\u{0C}' | '\r' | ' ' | '\u{A0}' | '\u{1680}' | '\u{2000}'
            ..='\u{200A}' | '\u{2028}' | '\u{2029}' | '\u{202F}' | '\u{205F}' | '\u{3000}' | '\u{FEFF}'
    )
}

/// `String.prototype.trim`.
pub fn js_trim(s: &str) -> &str {
    s.trim_matches(js_is_space)
}
