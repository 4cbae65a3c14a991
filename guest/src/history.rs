//! `sessions_history` (reference §3.2, with N14: the output is bounded).

use serde::Serialize;
use serde_json::value::RawValue;
use serde_json::Value;

use crate::args::{floor_u32, Args};
use crate::context::{Caller, Env, ToolError, ToolOutput};
use crate::json::{raw_json, to_json};
use crate::ports::{HistoryParams, LogLevel, TranscriptMessage};
use crate::requester::Requester;
use crate::visibility::{
    check_agent_to_agent, check_narrowing, is_spawned_by_requester, is_spawned_visible, not_visible, resolve_session_reference, Action,
    Refusal,
};

/// N14: at most this many bytes of JSON messages are returned.
pub const MAX_HISTORY_BYTES: usize = 80 * 1024;
/// The gateway's own maximum for `chat.history` (reference §1.1).
pub const MAX_GATEWAY_LIMIT: u32 = 1000;

#[derive(Debug, Clone, PartialEq)]
pub struct HistoryArgs {
    pub session_key: String,
    pub limit: Option<u32>,
    pub include_tools: bool,
}

impl HistoryArgs {
    pub fn from_args(args: &Args) -> Result<HistoryArgs, ToolError> {
        Ok(HistoryArgs {
            session_key: args.trimmed("sessionKey").ok_or_else(|| ToolError::InvalidArguments("sessionKey required".into()))?,
            // The gateway rejects more than 1000; ask for what it can give.
            limit: args.num("limit").map(|v| floor_u32(v, 1).min(MAX_GATEWAY_LIMIT)),
            include_tools: args.bool("includeTools").unwrap_or(false),
        })
    }
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct HistoryResult {
    session_key: String,
    messages: Vec<Box<RawValue>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    truncated: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    dropped_messages: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    content_truncated: Option<bool>,
}

pub fn refusal_json(refusal: &Refusal) -> String {
    to_json(&serde_json::json!({ "status": refusal.status, "error": refusal.error }))
}

/// Runs `sessions_history`.
pub fn run(env: &Env, caller: &Caller, args: HistoryArgs) -> Result<ToolOutput, ToolError> {
    let requester = Requester::new(env.cfg, caller);
    let resolved = match resolve_session_reference(env.gw, &requester, &args.session_key) {
        Ok(resolved) => resolved,
        Err(refusal) => return Ok(ToolOutput::result(refusal_json(&refusal))),
    };
    if requester.restrict && !resolved.via_session_id && !is_spawned_visible(env.gw, &requester, &resolved.key) {
        return Ok(ToolOutput::result(refusal_json(&Refusal::forbidden(not_visible(&args.session_key)))));
    }
    // E3: 2026.9's narrowing before the documents' agent-to-agent check, as 2026.9 orders them.
    let spawned = || is_spawned_by_requester(env.gw, &requester, &resolved.key);
    if let Err(refusal) = check_narrowing(&requester, &resolved.key, spawned, Action::History) {
        return Ok(ToolOutput::result(refusal_json(&refusal)));
    }
    if let Err(refusal) = check_agent_to_agent(env.cfg, &requester.agent_id, &resolved.key, "history") {
        return Ok(ToolOutput::result(refusal_json(&refusal)));
    }
    let history = env
        .gw
        .chat_history(&HistoryParams { session_key: resolved.key.clone(), limit: args.limit })
        .map_err(|e| ToolError::Failed(e.message))?;
    let messages: Vec<TranscriptMessage> = if args.include_tools {
        history.messages
    } else {
        history.messages.into_iter().filter(|m| m.role.as_deref() != Some("toolResult")).collect()
    };
    let bounded = bound_messages(messages, MAX_HISTORY_BYTES);
    if bounded.malformed > 0 {
        env.host.log(LogLevel::Warn, &format!("sessions_history: dropped {} malformed messages", bounded.malformed));
    }
    let result = HistoryResult {
        session_key: resolved.display_key,
        messages: bounded.messages,
        truncated: (bounded.dropped > 0 || bounded.content_truncated).then_some(true),
        dropped_messages: (bounded.dropped > 0).then_some(bounded.dropped),
        content_truncated: bounded.content_truncated.then_some(true),
    };
    Ok(ToolOutput::result(to_json(&result)))
}

/// Messages kept within a byte budget.
pub struct Bounded {
    pub messages: Vec<Box<RawValue>>,
    /// Older messages left out.
    pub dropped: usize,
    /// The newest message alone was over the budget and its text was shortened.
    pub content_truncated: bool,
    /// Messages that were not valid JSON (left out).
    pub malformed: usize,
}

/// Keeps the newest messages whose JSON array fits in `budget` bytes (N14). When not even
/// the newest message fits, it is kept with its longest texts shortened, so the caller
/// still sees how the session ends.
pub fn bound_messages(messages: Vec<TranscriptMessage>, budget: usize) -> Bounded {
    let total = messages.len();
    let mut used = 2usize; // the array's brackets
    let mut start = total;
    for (i, message) in messages.iter().enumerate().rev() {
        let cost = message.json.len() + usize::from(start < total);
        if used + cost > budget {
            break;
        }
        used += cost;
        start = i;
    }
    let mut content_truncated = false;
    let mut malformed = 0;
    let mut kept: Vec<Box<RawValue>> = Vec::with_capacity(total - start);
    let mut dropped = start;
    if start == total && total > 0 {
        let newest = messages.into_iter().last().expect("non-empty");
        match shorten_message(&newest.json, budget.saturating_sub(2)) {
            Some(raw) => {
                kept.push(raw);
                content_truncated = true;
                dropped = total - 1;
            }
            None => dropped = total,
        }
    } else {
        for message in messages.into_iter().skip(start) {
            match raw_json(message.json) {
                Some(raw) => kept.push(raw),
                None => malformed += 1,
            }
        }
    }
    Bounded { messages: kept, dropped, content_truncated, malformed }
}

const TRUNCATION_MARK: &str = "…[truncated]";

/// Shortens the longest strings of a message until its JSON fits `budget` bytes.
fn shorten_message(json: &str, budget: usize) -> Option<Box<RawValue>> {
    let mut value: Value = serde_json::from_str(json).ok()?;
    for _ in 0..64 {
        let text = serde_json::to_string(&value).ok()?;
        if text.len() <= budget {
            return RawValue::from_string(text).ok();
        }
        let excess = text.len() - budget;
        let longest = longest_string(&mut value)?;
        let keep_bytes = longest.len().saturating_sub(excess + TRUNCATION_MARK.len() + 16);
        let mut cut = keep_bytes;
        while cut > 0 && !longest.is_char_boundary(cut) {
            cut -= 1;
        }
        if cut == 0 && longest.len() <= TRUNCATION_MARK.len() {
            return None;
        }
        longest.truncate(cut);
        longest.push_str(TRUNCATION_MARK);
    }
    None
}

fn longest_string(value: &mut Value) -> Option<&mut String> {
    fn visit<'v>(value: &'v mut Value, best: &mut Option<&'v mut String>) {
        match value {
            Value::String(s) if best.as_ref().is_none_or(|b| s.len() > b.len()) => *best = Some(s),
            Value::Array(items) => items.iter_mut().for_each(|v| visit(v, best)),
            Value::Object(map) => map.iter_mut().for_each(|(_, v)| visit(v, best)),
            _ => {}
        }
    }
    let mut best = None;
    visit(value, &mut best);
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    fn msg(text: &str) -> TranscriptMessage {
        TranscriptMessage { role: Some("user".into()), json: format!(r#"{{"role":"user","content":"{text}"}}"#) }
    }

    #[test]
    fn keeps_the_newest_that_fit() {
        let messages = vec![msg(&"a".repeat(50)), msg(&"b".repeat(50)), msg("c")];
        let all = bound_messages(messages.clone(), 10_000);
        assert_eq!((all.messages.len(), all.dropped), (3, 0));
        let some = bound_messages(messages, 110);
        assert_eq!((some.messages.len(), some.dropped), (2, 1));
        assert!(some.messages[1].get().contains("\"c\""));
    }

    #[test]
    fn shortens_a_single_oversized_message() {
        let bounded = bound_messages(vec![msg(&"x".repeat(5000))], 1000);
        assert_eq!(bounded.messages.len(), 1);
        assert!(bounded.content_truncated);
        assert!(bounded.messages[0].get().len() <= 998);
        assert!(bounded.messages[0].get().contains(TRUNCATION_MARK));
    }
}
