//! Reading an agent's reply out of a transcript (reference §2.10): the last message's
//! text blocks, cleaned of leaked tool-call markup and reasoning tags.
//!
//! The reference uses regular expressions; these are hand-written scanners with the same
//! matches (JavaScript `\s`, `\b` and `trim` semantics), so the component carries no
//! regex engine.

use serde_json::Value;

use crate::ports::{Gateway, GatewayResult, HistoryParams};

/// `chat.history` limit when reading a reply.
pub const REPLY_HISTORY_LIMIT: u32 = 50;

pub use session_tools_grammar::js::{js_is_space, js_trim};

fn is_word_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

fn starts_with_ci(s: &str, at: usize, pat: &str) -> bool {
    s.len() >= at + pat.len() && s.as_bytes()[at..at + pat.len()].eq_ignore_ascii_case(pat.as_bytes())
}

fn find_ci(s: &str, from: usize, pat: &str) -> Option<usize> {
    if pat.is_empty() || s.len() < pat.len() {
        return None;
    }
    (from..=s.len() - pat.len()).find(|&i| starts_with_ci(s, i, pat))
}

fn contains_ci(s: &str, pat: &str) -> bool {
    find_ci(s, 0, pat).is_some()
}

/// Skips JavaScript whitespace from byte `at`.
fn skip_space(s: &str, mut at: usize) -> usize {
    while let Some(c) = s[at..].chars().next() {
        if !js_is_space(c) {
            break;
        }
        at += c.len_utf8();
    }
    at
}

/// `stripMinimaxToolCallXml`.
pub fn strip_minimax_tool_call_xml(text: &str) -> String {
    if !contains_ci(text, "minimax:tool_call") {
        return text.to_string();
    }
    // /<invoke\b[^>]*>[\s\S]*?<\/invoke>/gi
    let mut out = String::with_capacity(text.len());
    let mut cursor = 0;
    let mut at = 0;
    while let Some(start) = find_ci(text, at, "<invoke") {
        let after = start + "<invoke".len();
        let boundary = text.as_bytes().get(after).is_none_or(|b| !is_word_byte(*b));
        let open_end = if boundary { text[after..].find('>').map(|i| after + i + 1) } else { None };
        let close = open_end.and_then(|e| find_ci(text, e, "</invoke>"));
        match close {
            Some(close) => {
                out.push_str(&text[cursor..start]);
                cursor = close + "</invoke>".len();
                at = cursor;
            }
            None => at = start + 1,
        }
    }
    out.push_str(&text[cursor..]);
    // /<\/?minimax:tool_call>/gi
    let mut cleaned = String::with_capacity(out.len());
    let mut i = 0;
    while i < out.len() {
        let tag_len = if starts_with_ci(&out, i, "<minimax:tool_call>") {
            "<minimax:tool_call>".len()
        } else if starts_with_ci(&out, i, "</minimax:tool_call>") {
            "</minimax:tool_call>".len()
        } else {
            0
        };
        if tag_len > 0 {
            i += tag_len;
        } else {
            let c = out[i..].chars().next().expect("in bounds");
            cleaned.push(c);
            i += c.len_utf8();
        }
    }
    cleaned
}

/// `consumeJsonish`: the end of a JSON-ish value (object, array, string, or the rest of
/// the line) starting at `start`.
fn consume_jsonish(input: &str, start: usize, allow_leading_newlines: bool) -> Option<usize> {
    let bytes = input.as_bytes();
    let mut index = start;
    while index < bytes.len() {
        match bytes[index] {
            b' ' | b'\t' => index += 1,
            b'\n' | b'\r' if allow_leading_newlines => index += 1,
            _ => break,
        }
    }
    if index >= bytes.len() {
        return None;
    }
    match bytes[index] {
        b'{' | b'[' => {
            let (mut depth, mut in_string, mut escape) = (0i32, false, false);
            for (i, &b) in bytes.iter().enumerate().skip(index) {
                if in_string {
                    if escape {
                        escape = false;
                    } else if b == b'\\' {
                        escape = true;
                    } else if b == b'"' {
                        in_string = false;
                    }
                    continue;
                }
                match b {
                    b'"' => in_string = true,
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth -= 1;
                        if depth == 0 {
                            return Some(i + 1);
                        }
                    }
                    _ => {}
                }
            }
            None
        }
        b'"' => {
            let mut escape = false;
            for (i, &b) in bytes.iter().enumerate().skip(index + 1) {
                if escape {
                    escape = false;
                } else if b == b'\\' {
                    escape = true;
                } else if b == b'"' {
                    return Some(i + 1);
                }
            }
            None
        }
        _ => {
            let mut end = index;
            while end < bytes.len() && bytes[end] != b'\n' && bytes[end] != b'\r' {
                end += 1;
            }
            Some(end)
        }
    }
}

/// Removes `[Tool Call: …]` markers and their `Arguments` payloads.
fn strip_tool_calls(input: &str) -> String {
    let bytes = input.as_bytes();
    let mut result = String::with_capacity(input.len());
    let mut cursor = 0;
    let mut search = 0;
    while let Some(start) = find_ci(input, search, "[Tool Call:") {
        let Some(close) = input[start..].find(']').map(|i| start + i) else {
            break;
        };
        search = close + 1;
        if start < cursor {
            continue;
        }
        result.push_str(&input[cursor..start]);
        let mut index = close + 1;
        let skip_blanks = |mut i: usize| {
            while i < bytes.len() && (bytes[i] == b' ' || bytes[i] == b'\t') {
                i += 1;
            }
            i
        };
        index = skip_blanks(index);
        if bytes.get(index) == Some(&b'\r') {
            index += 1;
            if bytes.get(index) == Some(&b'\n') {
                index += 1;
            }
        } else if bytes.get(index) == Some(&b'\n') {
            index += 1;
        }
        index = skip_blanks(index);
        if starts_with_ci(input, index, "arguments") {
            index += 9;
            if bytes.get(index) == Some(&b':') {
                index += 1;
            }
            if bytes.get(index) == Some(&b' ') {
                index += 1;
            }
            if let Some(end) = consume_jsonish(input, index, true) {
                index = end;
            }
        }
        let at_newline = matches!(bytes.get(index), Some(b'\n') | Some(b'\r'));
        if at_newline && (result.ends_with('\n') || result.ends_with('\r') || result.is_empty()) {
            if bytes.get(index) == Some(&b'\r') {
                index += 1;
            }
            if bytes.get(index) == Some(&b'\n') {
                index += 1;
            }
        }
        cursor = index;
        search = search.max(cursor);
    }
    result.push_str(&input[cursor.min(input.len())..]);
    result
}

/// `/\[Tool Result for ID[^\]]*\]\n?[\s\S]*?(?=\n*\[Tool |\n*$)/gi` → "".
fn strip_tool_results(input: &str) -> String {
    let bytes = input.as_bytes();
    let mut out = String::with_capacity(input.len());
    let mut cursor = 0;
    let mut at = 0;
    while let Some(start) = find_ci(input, at, "[Tool Result for ID") {
        let Some(close) = input[start..].find(']').map(|i| start + i) else {
            break;
        };
        let mut index = close + 1;
        if bytes.get(index) == Some(&b'\n') {
            index += 1;
        }
        // The lazy body ends where only newlines precede `[Tool ` or the end of the text.
        let mut end = index;
        loop {
            let mut probe = end;
            while bytes.get(probe) == Some(&b'\n') {
                probe += 1;
            }
            if probe == bytes.len() || starts_with_ci(input, probe, "[Tool ") {
                break;
            }
            end += input[end..].chars().next().map_or(1, char::len_utf8);
        }
        out.push_str(&input[cursor..start]);
        cursor = end;
        at = if end > start { end } else { start + 1 };
    }
    out.push_str(&input[cursor..]);
    out
}

/// `stripDowngradedToolCallText`.
pub fn strip_downgraded_tool_call_text(text: &str) -> String {
    if !contains_ci(text, "[Tool Call") && !contains_ci(text, "[Tool Result") {
        return text.to_string();
    }
    let cleaned = strip_tool_results(&strip_tool_calls(text));
    js_trim(&cleaned).to_string()
}

/// A matched tag: byte range and whether it closes.
struct Tag {
    start: usize,
    end: usize,
    close: bool,
}

/// Tags `<\s*(\/?)\s*(NAME)\b[^<>]*>` for any of `names`, case-insensitive, in order.
fn find_tags(text: &str, names: &[&str]) -> Vec<Tag> {
    let bytes = text.as_bytes();
    let mut tags = Vec::new();
    let mut i = 0;
    while let Some(off) = text[i..].find('<') {
        let start = i + off;
        i = start + 1;
        let mut at = skip_space(text, start + 1);
        let close = bytes.get(at) == Some(&b'/');
        if close {
            at = skip_space(text, at + 1);
        }
        let name_end = names.iter().find_map(|name| {
            let end = at + name.len();
            (starts_with_ci(text, at, name) && bytes.get(end).is_none_or(|b| !is_word_byte(*b))).then_some(end)
        });
        let Some(name_end) = name_end else { continue };
        let Some(gt) = text[name_end..].find(['<', '>']).map(|j| name_end + j) else {
            continue;
        };
        if bytes[gt] != b'>' {
            continue;
        }
        tags.push(Tag { start, end: gt + 1, close });
        i = gt + 1;
    }
    tags
}

/// `findCodeRegions`: fenced blocks and inline code spans.
fn code_regions(text: &str) -> Vec<(usize, usize)> {
    let bytes = text.as_bytes();
    let mut regions: Vec<(usize, usize)> = Vec::new();
    // /(^|\n)(```|~~~)[^\n]*\n[\s\S]*?(?:\n\2(?:\n|$)|$)/g
    let mut from = 0;
    let mut fence_at = 0;
    while fence_at < bytes.len() {
        let line_start = fence_at == 0 && from == 0 || (fence_at > from && bytes[fence_at - 1] == b'\n');
        // Bytes: `fence_at` steps byte by byte and may sit inside a character; a fence is
        // ASCII, so where one matches, `fence_at` is a character boundary.
        let fence = if bytes[fence_at..].starts_with(b"```") {
            Some("```")
        } else if bytes[fence_at..].starts_with(b"~~~") {
            Some("~~~")
        } else {
            None
        };
        if let (true, Some(fence)) = (line_start, fence) {
            if let Some(nl) = text[fence_at + 3..].find('\n').map(|j| fence_at + 3 + j) {
                let closing = format!("\n{fence}");
                let mut end = bytes.len();
                let mut search = nl;
                while let Some(j) = text[search..].find(&closing).map(|j| search + j) {
                    let after = j + closing.len();
                    if after == bytes.len() || bytes[after] == b'\n' {
                        end = if after < bytes.len() { after + 1 } else { after };
                        break;
                    }
                    search = j + 1;
                }
                regions.push((fence_at, end));
                from = end;
                fence_at = end;
                continue;
            }
        }
        fence_at += 1;
    }
    // /`+[^`]+`+/g
    let fenced = regions.clone();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] != b'`' {
            i += 1;
            continue;
        }
        let mut j = i;
        while j < bytes.len() && bytes[j] == b'`' {
            j += 1;
        }
        let body_start = j;
        while j < bytes.len() && bytes[j] != b'`' {
            j += 1;
        }
        if j == body_start || j == bytes.len() {
            i = if j == body_start { j } else { bytes.len() };
            continue;
        }
        while j < bytes.len() && bytes[j] == b'`' {
            j += 1;
        }
        if !fenced.iter().any(|&(s, e)| i >= s && j <= e) {
            regions.push((i, j));
        }
        i = j;
    }
    regions.sort_unstable();
    regions
}

fn inside_code(pos: usize, regions: &[(usize, usize)]) -> bool {
    regions.iter().any(|&(s, e)| pos >= s && pos < e)
}

/// Removes `<final>` tags outside code.
fn strip_final_tags(text: &str) -> String {
    let tags = find_tags(text, &["final"]);
    if tags.is_empty() {
        return text.to_string();
    }
    let regions = code_regions(text);
    let mut out = String::with_capacity(text.len());
    let mut cursor = 0;
    for tag in tags.iter().filter(|t| !inside_code(t.start, &regions)) {
        out.push_str(&text[cursor..tag.start]);
        cursor = tag.end;
    }
    out.push_str(&text[cursor..]);
    out
}

const THINKING_TAGS: [&str; 4] = ["thinking", "think", "thought", "antthinking"];

/// `stripReasoningTagsFromText(text, {mode: "strict", trim: "both"})`.
pub fn strip_thinking_tags(text: &str) -> String {
    let quick = find_tags_loose(text);
    if !quick {
        return text.to_string();
    }
    let cleaned = strip_final_tags(text);
    let regions = code_regions(&cleaned);
    let mut result = String::with_capacity(cleaned.len());
    let mut last = 0;
    let mut in_thinking = false;
    for tag in find_tags(&cleaned, &THINKING_TAGS) {
        if inside_code(tag.start, &regions) {
            continue;
        }
        if !in_thinking {
            result.push_str(&cleaned[last..tag.start]);
            if !tag.close {
                in_thinking = true;
            }
        } else if tag.close {
            in_thinking = false;
        }
        last = tag.end;
    }
    if !in_thinking {
        result.push_str(&cleaned[last..]);
    }
    js_trim(&result).to_string()
}

/// `QUICK_TAG_RE`: `<\s*\/?\s*(think(ing)?|thought|antthinking|final)\b`.
fn find_tags_loose(text: &str) -> bool {
    let bytes = text.as_bytes();
    let mut i = 0;
    while let Some(off) = text[i..].find('<') {
        let start = i + off;
        i = start + 1;
        let mut at = skip_space(text, start + 1);
        if bytes.get(at) == Some(&b'/') {
            at = skip_space(text, at + 1);
        }
        let found = ["thinking", "think", "thought", "antthinking", "final"]
            .iter()
            .any(|name| starts_with_ci(text, at, name) && bytes.get(at + name.len()).is_none_or(|b| !is_word_byte(*b)));
        if found {
            return true;
        }
    }
    false
}

/// `sanitizeTextContent`.
pub fn sanitize_text_content(text: &str) -> String {
    strip_thinking_tags(&strip_downgraded_tool_call_text(&strip_minimax_tool_call_xml(text)))
}

/// `sanitizeUserFacingText`, in part: `<final>` tags are stripped and the role-ordering
/// provider error is rewritten. The reference's other provider-error rewrites (context
/// overflow, raw API payloads, overload and timeout texts) are not reproduced.
pub fn sanitize_user_facing_text(text: &str) -> String {
    let stripped = strip_final_tags(text);
    let trimmed = js_trim(&stripped);
    if trimmed.is_empty() {
        return stripped;
    }
    let lower = trimmed.to_lowercase();
    if lower.contains("incorrect role information") || lower.contains("roles must alternate") {
        return "Message ordering conflict - please try again. If this persists, use /new to start a fresh session.".to_string();
    }
    stripped
}

/// `extractAssistantText`: the cleaned text of an assistant message, if any.
pub fn extract_assistant_text(message: &Value) -> Option<String> {
    let object = message.as_object()?;
    if object.get("role").and_then(Value::as_str) != Some("assistant") {
        return None;
    }
    let content = object.get("content")?.as_array()?;
    let mut joined = String::new();
    for block in content {
        let Some(block) = block.as_object() else {
            continue;
        };
        if block.get("type").and_then(Value::as_str) != Some("text") {
            continue;
        }
        let Some(text) = block.get("text").and_then(Value::as_str) else {
            continue;
        };
        let sanitized = sanitize_text_content(text);
        if !js_trim(&sanitized).is_empty() {
            joined.push_str(&sanitized);
        }
    }
    let joined = js_trim(&joined);
    if joined.is_empty() {
        None
    } else {
        Some(sanitize_user_facing_text(joined))
    }
}

/// `readLatestAssistantReply`: the reply in the last non-tool-result message of a session.
/// It does not search backwards: a trailing user message means no reply.
pub fn read_latest_reply(gw: &dyn Gateway, session_key: &str) -> GatewayResult<(Option<String>, Option<String>)> {
    let history = gw.chat_history(&HistoryParams { session_key: session_key.to_string(), limit: Some(REPLY_HISTORY_LIMIT) })?;
    let last = history.messages.iter().rev().find(|m| m.role.as_deref() != Some("toolResult"));
    let reply = last
        .filter(|m| m.role.as_deref() == Some("assistant"))
        .and_then(|m| serde_json::from_str::<Value>(&m.json).ok())
        .and_then(|v| extract_assistant_text(&v));
    Ok((reply, history.session_id))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn strips_tool_markup() {
        let text = "Hello <invoke name=\"tool\">payload</invoke></minimax:tool_call> [Tool Call: foo (ID: 1)] world";
        assert_eq!(sanitize_text_content(text), "Hello  world");
        assert_eq!(strip_downgraded_tool_call_text("a\n[Tool Call: x (ID: 2)]\nArguments: {\"a\":[1,\"]\"]}\nb"), "a\nb");
        assert_eq!(strip_downgraded_tool_call_text("x [Tool Result for ID 1]\nstuff\n\n[Tool Call: y]"), "x");
    }

    #[test]
    fn strips_thinking() {
        assert_eq!(strip_thinking_tags("Before <think>secret</think> after"), "Before  after");
        assert_eq!(strip_thinking_tags("a <thinking>unclosed"), "a");
        assert_eq!(strip_thinking_tags("<final>done</final>"), "done");
        assert_eq!(strip_thinking_tags("keep `<think>` here"), "keep `<think>` here");
        assert_eq!(strip_thinking_tags("```\n<think>x</think>\n```\nok"), "```\n<think>x</think>\n```\nok");
        assert_eq!(strip_thinking_tags("no tags"), "no tags");
        assert_eq!(strip_thinking_tags("<thinkx>y"), "<thinkx>y");
    }

    #[test]
    fn text_that_is_not_ascii_is_scanned_by_whole_characters() {
        assert_eq!(strip_thinking_tags("é<think>x</think>ok"), "éok");
        assert_eq!(strip_thinking_tags("<think>¡"), "");
        assert_eq!(strip_thinking_tags("ü ```\n<final>ä</final>"), "ü ```\nä");
        assert_eq!(sanitize_user_facing_text("日本<final>語</final>"), "日本語");
    }

    #[test]
    fn extracts_assistant_text() {
        let m = json!({"role":"assistant","content":[{"type":"text","text":" a "},{"type":"thinking","thinking":"x"},{"type":"text","text":"b "}]});
        assert_eq!(extract_assistant_text(&m).as_deref(), Some("a b"));
        assert_eq!(extract_assistant_text(&json!({"role":"user","content":[{"type":"text","text":"a"}]})), None);
        assert_eq!(extract_assistant_text(&json!({"role":"assistant","content":"a"})), None);
        assert_eq!(extract_assistant_text(&json!({"role":"assistant","content":[{"type":"text","text":"  "}]})), None);
    }
}
