//! Announcing results to a chat: where an announce goes (reference §3.3.6), how a
//! sub-agent's announce reply is normalised to `Status`/`Result`/`Notes` (N1, §3.4.7) and
//! the stats line appended to it (§3.4.8).

use serde::{Deserialize, Serialize};

use crate::channels::{normalize_channel_id, target_from_key, AnnounceTarget};
use crate::config::Config;
use crate::ports::{Gateway, ListParams, SendParams, Usage};
use crate::reply::js_trim;

pub const ANNOUNCE_SKIP: &str = "ANNOUNCE_SKIP";
pub const REPLY_SKIP: &str = "REPLY_SKIP";

/// `isAnnounceSkip`: exact after trimming, case-sensitive.
pub fn is_announce_skip(text: &str) -> bool {
    js_trim(text) == ANNOUNCE_SKIP
}

/// `isReplySkip`: exact after trimming, case-sensitive.
pub fn is_reply_skip(text: &str) -> bool {
    js_trim(text) == REPLY_SKIP
}

/// Channels whose announce target comes from the session's delivery context rather than
/// its key (`preferSessionLookupForAnnounceTarget`): only WhatsApp.
fn prefers_session_lookup(channel: &str) -> bool {
    normalize_channel_id(channel) == Some("whatsapp")
}

/// Params of the announce-target lookup (G1c).
pub fn lookup_params() -> ListParams {
    ListParams { limit: Some(200), include_global: Some(true), include_unknown: Some(true), ..Default::default() }
}

/// `resolveAnnounceTarget`: from the key, or from the session's delivery context when the
/// key names none or the channel prefers the lookup (WhatsApp).
pub fn resolve_target(gw: &dyn Gateway, session_key: &str, display_key: &str) -> Option<AnnounceTarget> {
    let fallback = target_from_key(session_key).or_else(|| target_from_key(display_key));
    if let Some(target) = &fallback {
        if !prefers_session_lookup(&target.channel) {
            return fallback;
        }
    }
    if let Ok(list) = gw.sessions_list(&lookup_params()) {
        let row = list.sessions.iter().find(|r| r.key == session_key).or_else(|| list.sessions.iter().find(|r| r.key == display_key));
        if let Some(row) = row {
            let dc = row.delivery_context.as_ref();
            let channel = dc.and_then(|d| d.channel.clone()).or_else(|| row.last_channel.clone());
            let to = dc.and_then(|d| d.to.clone()).or_else(|| row.last_to.clone());
            let account_id = dc.and_then(|d| d.account_id.clone()).or_else(|| row.last_account_id.clone());
            if let (Some(channel), Some(to)) = (channel.filter(|c| !c.is_empty()), to.filter(|t| !t.is_empty())) {
                return Some(AnnounceTarget { channel, to, account_id, thread_id: None });
            }
        }
    }
    fallback
}

/// The `send` of an announce.
pub fn send_params(target: &AnnounceTarget, message: String, idempotency_key: String) -> SendParams {
    SendParams {
        to: target.to.clone(),
        message,
        channel: Some(target.channel.clone()),
        account_id: target.account_id.clone().filter(|a| !a.is_empty()),
        idempotency_key,
    }
}

/// How a run ended, as the announce reports it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Outcome {
    /// `ok`, `error`, `timeout` or `unknown`.
    pub status: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

impl Outcome {
    /// N1: the status word comes from the runtime outcome, never from the model.
    pub fn status_label(&self) -> &'static str {
        match self.status.as_str() {
            "ok" => "success",
            "timeout" => "timeout",
            "unknown" => "unknown",
            _ => "error",
        }
    }
}

/// Recognises a `Status:`/`Result:`/`Notes:` header line (optionally bulleted and bold,
/// with the bold markers before or after the colon: N1 fixes the reference's `** x`).
fn parse_header(line: &str) -> Option<(usize, &str)> {
    fn after_keyword(s: &str) -> Option<(usize, &str)> {
        let s = s.strip_prefix("**").unwrap_or(s);
        let (index, len) = [("status", 0usize), ("result", 1), ("notes", 2)]
            .iter()
            .find(|(word, _)| crate::keys::has_prefix_ci(s, word))
            .map(|(word, i)| (*i, word.len()))?;
        let s = &s[len..];
        let s = s.strip_prefix("**").unwrap_or(s);
        let s = s.trim_start_matches(crate::reply::js_is_space);
        let s = s.strip_prefix(':')?;
        let s = s.trim_start_matches(crate::reply::js_is_space);
        let s = s.strip_prefix("**").unwrap_or(s);
        Some((index, s.trim_start_matches(crate::reply::js_is_space)))
    }
    let s = line.trim_start_matches(crate::reply::js_is_space);
    after_keyword(s).or_else(|| {
        let bullet = s.strip_prefix('-').or_else(|| s.strip_prefix('*'))?;
        after_keyword(bullet.trim_start_matches(crate::reply::js_is_space))
    })
}

/// `normalizeAnnounceBody` (N1): `Status: <runtime status>`, then `Result:` and `Notes:`
/// parsed from the reply, then the stats line.
pub fn normalize_body(announce: &str, outcome: &Outcome, stats_line: &str) -> String {
    let text = js_trim(announce);
    let mut sections: [Option<Vec<&str>>; 3] = [None, None, None];
    let mut current: Option<usize> = None;
    for line in text.split('\n') {
        if let Some((index, rest)) = parse_header(line) {
            let section = sections[index].get_or_insert_with(Vec::new);
            let rest = js_trim(rest);
            if !rest.is_empty() {
                section.push(rest);
            }
            current = Some(index);
        } else if let Some(index) = current {
            sections[index].get_or_insert_with(Vec::new).push(line);
        }
    }
    let joined = |i: usize| sections[i].as_ref().map(|lines| js_trim(&lines.join("\n")).to_string());
    let result = joined(1).unwrap_or_else(|| if text.is_empty() { "(not available)".to_string() } else { text.to_string() });
    let mut notes: Vec<String> = joined(2).into_iter().filter(|n| !n.is_empty()).collect();
    if let Some(error) = outcome.error.as_deref().filter(|e| !e.is_empty()) {
        notes.push(format!("- Error: {error}"));
    }
    let notes = if notes.is_empty() { "- (none)".to_string() } else { notes.join("\n") };
    format!("Status: {}\n\nResult:\n{result}\n\nNotes:\n{notes}\n\n{stats_line}", outcome.status_label())
}

/// `Number.prototype.toFixed` for non-negative values: round half up on the exact
/// decimal value of the double.
pub fn js_to_fixed(value: f64, digits: usize) -> String {
    let exact = format!("{value:.80}");
    let (int_part, frac_part) = exact.split_once('.').unwrap_or((&exact, ""));
    let mut keep: Vec<u8> = int_part.bytes().chain(frac_part.bytes().take(digits)).collect();
    let round_up = frac_part.as_bytes().get(digits).is_some_and(|d| *d >= b'5');
    if round_up {
        let mut i = keep.len();
        loop {
            if i == 0 {
                keep.insert(0, b'1');
                break;
            }
            i -= 1;
            if keep[i] == b'9' {
                keep[i] = b'0';
            } else {
                keep[i] += 1;
                break;
            }
        }
    }
    let split = keep.len() - digits;
    let (i, f) = keep.split_at(split);
    let i = String::from_utf8_lossy(i);
    if digits == 0 {
        i.into_owned()
    } else {
        format!("{i}.{}", String::from_utf8_lossy(f))
    }
}

/// `Math.round` for non-negative values.
fn js_round(v: f64) -> f64 {
    (v + 0.5).floor()
}

/// `formatDurationShort`.
pub fn format_duration_short(ms: Option<f64>) -> String {
    let Some(ms) = ms.filter(|ms| ms.is_finite() && *ms > 0.0) else {
        return "n/a".to_string();
    };
    let s = js_round(ms / 1000.0) as u64;
    let (h, m, sec) = (s / 3600, s % 3600 / 60, s % 60);
    if h > 0 {
        format!("{h}h{m}m")
    } else if m > 0 {
        format!("{m}m{sec}s")
    } else {
        format!("{sec}s")
    }
}

fn format_count(v: Option<f64>) -> String {
    match v {
        None => "n/a".to_string(),
        Some(v) if v == 0.0 || v.is_nan() => "0".to_string(),
        Some(v) if v >= 1e6 => format!("{}m", js_to_fixed(v / 1e6, 1)),
        Some(v) if v >= 1e3 => format!("{}k", js_to_fixed(v / 1e3, 1)),
        Some(v) => format!("{}", js_round(v) as i64),
    }
}

/// What the stats line is made of.
#[derive(Debug, Clone, Default)]
pub struct Stats<'a> {
    pub started_at: Option<i64>,
    pub ended_at: Option<i64>,
    pub usage: Option<&'a Usage>,
    pub model: Option<&'a str>,
    pub session_key: &'a str,
    pub session_id: Option<&'a str>,
    pub transcript_path: Option<&'a str>,
}

/// The stats line: `Stats: runtime … • tokens … • est $… • sessionKey … • sessionId … •
/// transcript …` (reference §3.4.8; N1: tokens and model from the `agent.wait` answer).
pub fn stats_line(cfg: &Config, stats: &Stats) -> String {
    let mut parts = Vec::with_capacity(6);
    let runtime = match (stats.started_at, stats.ended_at) {
        // The times come from the gateway: any pair of i64s must not overflow.
        (Some(start), Some(end)) => Some(end.saturating_sub(start).max(0) as f64),
        _ => None,
    };
    parts.push(format!("runtime {}", format_duration_short(runtime)));
    let input = stats.usage.and_then(|u| u.input_tokens);
    let output = stats.usage.and_then(|u| u.output_tokens);
    let total = stats.usage.and_then(|u| u.total_tokens).or(match (input, output) {
        (Some(i), Some(o)) => Some(i + o),
        _ => None,
    });
    match total {
        Some(total) => {
            parts.push(format!("tokens {} (in {} / out {})", format_count(Some(total)), format_count(input), format_count(output)))
        }
        None => parts.push("tokens n/a".to_string()),
    }
    if let (Some(model), Some(i), Some(o)) = (stats.model, input, output) {
        if let Some(price) = cfg.price(model) {
            let cost = (i * price.input + o * price.output) / 1e6;
            let shown = if cost >= 0.01 { js_to_fixed(cost, 2) } else { js_to_fixed(cost, 4) };
            parts.push(format!("est ${shown}"));
        }
    }
    parts.push(format!("sessionKey {}", stats.session_key));
    if let Some(id) = stats.session_id {
        parts.push(format!("sessionId {id}"));
    }
    if let Some(path) = stats.transcript_path {
        parts.push(format!("transcript {path}"));
    }
    format!("Stats: {}", parts.join(" \u{2022} "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn targets_from_keys() {
        let t = target_from_key("agent:main:discord:group:dev").unwrap();
        assert_eq!((t.channel.as_str(), t.to.as_str()), ("discord", "channel:dev"));
        let t = target_from_key("agent:main:foo:channel:X").unwrap();
        assert_eq!((t.channel.as_str(), t.to.as_str()), ("foo", "X"));
        let t = target_from_key("telegram:group:-100123:topic:42").unwrap();
        assert_eq!((t.to.as_str(), t.thread_id.as_deref()), ("group:-100123", Some("42")));
        assert!(target_from_key("main").is_none());
        assert!(target_from_key("agent:main:main").is_none());
    }

    #[test]
    fn normalises_bodies() {
        let ok = Outcome { status: "ok".into(), error: None };
        assert_eq!(normalize_body("plain words", &ok, "S"), "Status: success\n\nResult:\nplain words\n\nNotes:\n- (none)\n\nS");
        let err = Outcome { status: "error".into(), error: Some("boom".into()) };
        assert_eq!(
            normalize_body("- **Status:** success\n\n- **Result:** did some stuff\n\n- **Notes:** all good", &err, "S"),
            "Status: error\n\nResult:\ndid some stuff\n\nNotes:\nall good\n- Error: boom\n\nS"
        );
        assert_eq!(normalize_body("Intro\nResult: a\nb\nNotes: c", &ok, "S"), "Status: success\n\nResult:\na\nb\n\nNotes:\nc\n\nS");
    }

    #[test]
    fn run_times_from_the_gateway_never_overflow() {
        let cfg = Config::default();
        let stats = Stats { started_at: Some(-1), ended_at: Some(i64::MAX), session_key: "agent:main:subagent:x", ..Default::default() };
        assert!(stats_line(&cfg, &stats).starts_with("Stats: runtime "), "{}", stats_line(&cfg, &stats));
        let backwards = Stats { started_at: Some(i64::MAX), ended_at: Some(i64::MIN), ..stats };
        assert_eq!(stats_line(&cfg, &backwards), "Stats: runtime n/a • tokens n/a • sessionKey agent:main:subagent:x");
    }

    #[test]
    fn formats_numbers_like_javascript() {
        assert_eq!(js_to_fixed(1.25, 1), "1.3");
        assert_eq!(js_to_fixed(1.15, 1), "1.1");
        assert_eq!(js_to_fixed(1.5, 1), "1.5");
        assert_eq!(js_to_fixed(9.96, 1), "10.0");
        assert_eq!(js_to_fixed(0.00123, 4), "0.0012");
        assert_eq!(format_duration_short(Some(90_000.0)), "1m30s");
        assert_eq!(format_duration_short(Some(10.0)), "0s");
        assert_eq!(format_duration_short(Some(7_260_000.0)), "2h1m");
        assert_eq!(format_duration_short(Some(0.0)), "n/a");
        assert_eq!(format_count(Some(1500.0)), "1.5k");
        assert_eq!(format_count(Some(500.0)), "500");
        assert_eq!(format_count(Some(2_500_000.0)), "2.5m");
    }
}
