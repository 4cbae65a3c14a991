//! Property tests: transcripts of random Unicode text — Spanish,
//! Portuguese, Chinese, emoji, combining marks, ZWJ sequences, `[message_id: …]` hint lines,
//! channel envelopes, odd whitespace — written to a copy of the sample state and read
//! through every tool by the real component, as the command line serves it (`Served`).
//!
//! Properties:
//! - no panic, trap, limit or host fault: every tool answers JSON;
//! - what is read back is what was written, with only the reference gateway's rules applied
//!   (`chat-sanitize.js`: a user message's leading envelope and its hint lines are
//!   stripped; checked against an independent reading of those rules, `reference_*` below);
//!   nothing here is large enough for N14's truncation;
//! - `sessions_list` with `messageLimit` shows the same last messages;
//! - `sessions_send` (`timeoutSeconds` 0) appends the message (read back by the same rules)
//!   and the run's reply, and the transcript's message tree stays whole: every entry's
//!   `parentId` is the entry before it.
//!
//! About 100 cases by default, under a minute in a release build (`PROPTEST_SCALE=10` for
//! more, `PROPERTIES_SEED=<u64>` to repeat a run).

#![forbid(unsafe_code)]

use std::io::Write;
use std::path::Path;
use std::sync::{Arc, OnceLock};

use proptest::collection::vec;
use proptest::prelude::*;
use proptest::sample::select;
use proptest::test_runner::{Config as RunnerConfig, RngAlgorithm, TestCaseError, TestRng, TestRunner};
use serde_json::{json, Value};
use session_tools_host::{Caller, Limits, Runtime};
use session_tools_tests::oracles::{js_space, reference_read, reference_strip, same_json};
use session_tools_tests::{engine_options, sample_copy, Served};

const DISCORD: &str = "agent:main:discord:channel:1187421193829244938";
const DISCORD_TRANSCRIPT: &str = "agents/main/sessions/8c3d9e1f-2a4b-4c6d-8e0f-3a5b7c9d1e2f.jsonl";

fn runtime() -> Arc<Runtime> {
    static RUNTIME: OnceLock<Arc<Runtime>> = OnceLock::new();
    RUNTIME
        .get_or_init(|| {
            Arc::new(Runtime::new(session_tools_host::COMPONENT, &engine_options(), &Limits::default()).expect("the component"))
        })
        .clone()
}

// ---------------------------------------------------------------------------------------
// Inputs.
// ---------------------------------------------------------------------------------------

const WORDS: &[&str] = &[
    // Spanish
    "Gracias, señor",
    "¿Qué tal?",
    "mañana",
    "niño",
    "¡Olé!",
    "corazón",
    // Portuguese
    "Obrigação",
    "você",
    "não",
    "coração",
    "até amanhã",
    "ações",
    // Chinese
    "谢谢你的帮助",
    "朋友们",
    "你好，世界",
    "「引用」",
    "。",
    // emoji, skin tones, ZWJ sequences, flags, keycaps
    "🎉",
    "👍🏽",
    "👩‍👩‍👧‍👦",
    "👨‍💻",
    "🏳️‍🌈",
    "🇪🇸",
    "1️⃣",
    // plain
    "hello",
    "ok",
    "100%",
    "a]b",
    "[",
    "]",
    "[x]",
    ":",
];

const COMBINING: &[char] = &['\u{301}', '\u{300}', '\u{303}', '\u{308}', '\u{327}', '\u{20dd}', '\u{fe0f}', '\u{200d}'];
const SPACES: &[&str] = &[" ", "  ", "\t", "\n", "\r\n", "\r", "\u{a0}", "\u{3000}", "\u{2028}", "\u{feff}", "\u{85}", "\u{200b}", "\u{b}"];
const ENVELOPES: &[&str] = &[
    "[Discord Guild #x +5m 2026-01-01 10:00 UTC] name: ",
    "[Discord Acme HQ #general channel id:1187421193829244938 +10m 2026-01-26T10:00Z] alice: ",
    "[WhatsApp +34600000000 2026-01-26T10:00Z] ",
    "[Telegram Family Chat id:-1001234567890 +2m 2026-01-26 11:00 UTC] José: ",
    "[Signal +351900000000] ",
    "[Google Chat Equipa] Ana: ",
    "[2026-01-01 10:00]",
    "[WebChat]",
    "[not an envelope] ",
    "[cron:2f6c8a10 daily] ",
    "[Slack#x 2026-01-01 10:00] ",
    "[20260-01-01 10:000] ",
    "[]",
];

fn hint() -> BoxedStrategy<String> {
    (
        select(&["[message_id: ", "[MESSAGE_ID:", "[Message_Id:\t", "[message_id:", "[message_id: ]"][..]),
        "[0-9a-f]{0,6}",
        select(SPACES),
        select(SPACES),
    )
        .prop_map(|(head, id, before, after)| format!("{before}{head}{id}]{after}"))
        .boxed()
}

fn segment() -> BoxedStrategy<String> {
    prop_oneof![
        4 => select(WORDS).prop_map(str::to_string),
        2 => (select(&['e', 'a', 'n', 'o', 'c', 'u', '字'][..]), select(COMBINING)).prop_map(|(b, m)| format!("{b}{m}")),
        2 => select(SPACES).prop_map(str::to_string),
        2 => hint().prop_map(|h| format!("\n{h}\n")),
        1 => hint(),
        1 => any::<char>().prop_map(|c| c.to_string()),
        1 => "[a-zA-Z0-9 ]{1,12}",
    ]
    .boxed()
}

/// A chat text, with an envelope in front half of the time.
fn chat_text() -> BoxedStrategy<String> {
    (proptest::option::of(select(ENVELOPES)), vec(segment(), 0..10))
        .prop_map(|(envelope, parts)| format!("{}{}", envelope.unwrap_or(""), parts.concat()))
        .boxed()
}

/// A transcript message: user messages in the three shapes the reference strips (`content`
/// text, content parts, a bare `text`), with the role's case varied, and assistant ones.
fn message() -> BoxedStrategy<Value> {
    prop_oneof![
        3 => (select(&["user", "User", "USER"][..]), chat_text()).prop_map(|(role, text)| json!({"role": role, "content": text, "timestamp": 1})),
        3 => (select(&["user", "User"][..]), vec(chat_text(), 1..3), any::<bool>()).prop_map(|(role, texts, image)| {
            let mut parts: Vec<Value> = texts.into_iter().map(|t| json!({"type": "text", "text": t})).collect();
            if image {
                parts.insert(1, json!({"type": "image", "data": "AAAA", "mimeType": "image/png"}));
            }
            json!({"role": role, "content": parts, "timestamp": 2})
        }),
        1 => chat_text().prop_map(|text| json!({"role": "user", "text": text, "timestamp": 3})),
        3 => chat_text().prop_map(|text| json!({"role": "assistant", "content": [{"type": "text", "text": text}], "stopReason": "stop", "timestamp": 4})),
    ]
    .boxed()
}

#[derive(Debug, Clone)]
struct Case {
    messages: Vec<Value>,
    message_limit: usize,
    sent: String,
}

fn case() -> impl Strategy<Value = Case> {
    (vec(message(), 1..6), 1usize..4, chat_text()).prop_map(|(messages, message_limit, sent)| Case { messages, message_limit, sent })
}

// ---------------------------------------------------------------------------------------
// Running.
// ---------------------------------------------------------------------------------------

fn run(name: &str, cases: u32, test: impl Fn(Case) -> Result<(), TestCaseError>) {
    let scale: f64 = std::env::var("PROPTEST_SCALE").ok().and_then(|s| s.parse().ok()).unwrap_or(1.0);
    let seed: u64 = std::env::var("PROPERTIES_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos() as u64));
    let mut bytes = [0u8; 32];
    bytes[..8].copy_from_slice(&seed.to_le_bytes());
    let config = RunnerConfig {
        cases: ((cases as f64) * scale).ceil().max(1.0) as u32,
        failure_persistence: None,
        max_shrink_iters: 256,
        ..RunnerConfig::default()
    };
    let started = std::time::Instant::now();
    let mut runner = TestRunner::new_with_rng(config, TestRng::from_seed(RngAlgorithm::ChaCha, &bytes));
    let outcome = runner.run(&case(), test);
    eprintln!("property {name}: {:.1?}", started.elapsed());
    if let Err(e) = outcome {
        panic!("property {name} failed (PROPERTIES_SEED={seed}): {e}");
    }
}

fn same(a: &[Value], b: &[Value]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(a, b)| same_json(a, b))
}

fn lines(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect()
}

fn call(served: &Served, tool: &str, args: &Value) -> Result<Value, TestCaseError> {
    let caller = Caller { agent_session_key: Some("agent:main:main".into()), agent_channel: Some("discord".into()), ..Caller::default() };
    let answer = served.call(&caller, tool, &args.to_string()).map_err(|e| TestCaseError::fail(format!("{tool} failed: {e}")))?;
    serde_json::from_str(&answer).map_err(|e| TestCaseError::fail(format!("{tool} answered something that is not JSON ({e}): {answer}")))
}

fn check_case(case: Case) -> Result<(), TestCaseError> {
    let state = sample_copy();
    let transcript = state.path().join(DISCORD_TRANSCRIPT);
    let mut parent = lines(&transcript).last().unwrap()["id"].clone();
    {
        let mut file = std::fs::OpenOptions::new().append(true).open(&transcript).unwrap();
        for (i, message) in case.messages.iter().enumerate() {
            let id = format!("prop{i:04}");
            let line =
                json!({"type": "message", "id": id, "parentId": parent, "timestamp": "2026-01-26T12:00:00.000Z", "message": message});
            writeln!(file, "{line}").unwrap();
            parent = json!(id);
        }
    }
    let served = Served::open(state.path(), |g| g, |s| s.with_runtime(runtime())).map_err(|e| TestCaseError::fail(e.to_string()))?;
    let expected: Vec<Value> = case.messages.iter().map(reference_read).collect();

    // sessions_history: the messages, read back by the reference's rules.
    let n = case.messages.len();
    let history = call(&served, "sessions_history", &json!({"sessionKey": DISCORD, "limit": n, "includeTools": true}))?;
    let read = history["messages"].as_array().cloned().unwrap_or_default();
    prop_assert!(same(&read, &expected), "sessions_history: {} (expected {:?})", history, expected);

    // sessions_list with messageLimit: the same last messages.
    let k = case.message_limit.min(n);
    let list = call(&served, "sessions_list", &json!({"messageLimit": k}))?;
    let row = list["sessions"].as_array().and_then(|rows| rows.iter().find(|r| r["key"] == DISCORD)).cloned();
    let row = row.ok_or_else(|| TestCaseError::fail(format!("sessions_list lost the session: {list}")))?;
    let listed = row["messages"].as_array().cloned().unwrap_or_default();
    prop_assert!(same(&listed, &expected[n - k..]), "sessions_list: {} (expected {:?})", row, &expected[n - k..]);

    // sessions_send: the message is appended (and read back by the same rules), the run's
    // reply after it, and the tree stays whole.
    let before = lines(&transcript).len();
    if case.sent.trim_matches(js_space).is_empty() {
        // A blank message is refused (`readStringParam` trims as JavaScript does).
        let caller = Caller { agent_session_key: Some("agent:main:main".into()), ..Caller::default() };
        let args = json!({"sessionKey": DISCORD, "message": case.sent, "timeoutSeconds": 0}).to_string();
        match served.call(&caller, "sessions_send", &args) {
            Err(session_tools_host::CallError::Tool(e)) => prop_assert!(e.to_string().contains("message"), "{}", e),
            other => return Err(TestCaseError::fail(format!("a blank message was not refused: {other:?}"))),
        }
        prop_assert_eq!(lines(&transcript).len(), before);
        return Ok(());
    }
    let sent = call(&served, "sessions_send", &json!({"sessionKey": DISCORD, "message": case.sent, "timeoutSeconds": 0}))?;
    prop_assert_eq!(&sent["status"], "accepted", "{}", sent);
    prop_assert!(served.wait_for_runs(std::time::Duration::from_secs(10)), "the run did not end");
    let after = lines(&transcript);
    prop_assert!(after.len() >= before + 2, "the message and the reply were not appended");
    for pair in after[1..].windows(2) {
        prop_assert_eq!(&pair[1]["parentId"], &pair[0]["id"], "the message tree is cut at {}", pair[1]);
    }
    let appended = &after[before]["message"];
    let text = appended["content"][0]["text"].as_str().unwrap_or_default();
    prop_assert_eq!(text, case.sent.trim_matches(js_space), "the sent message as appended");
    let history = call(&served, "sessions_history", &json!({"sessionKey": DISCORD, "limit": 2}))?;
    let read = history["messages"].as_array().cloned().unwrap_or_default();
    let first = read.first().cloned().unwrap_or_default();
    prop_assert!(same_json(&first, &reference_read(appended)), "the sent message read back: {}", history);
    Ok(())
}

#[test]
fn unicode_transcripts_read_back_through_every_tool() {
    run("unicode_transcripts_read_back_through_every_tool", 100, check_case);
}

#[test]
fn reference_rules_as_read() {
    use session_tools_tests::oracles::reference_strip_hints;
    assert_eq!(reference_strip_hints("[message_id: 1]"), "");
    // The oracle itself, on the reference's own examples.
    assert_eq!(reference_strip("[Discord Acme HQ #general channel id:1 +10m 2026-01-26T10:00Z] alice: hi"), "alice: hi");
    assert_eq!(reference_strip("[not an envelope] hi"), "[not an envelope] hi");
    assert_eq!(reference_strip("[message_id: 1]\nGracias, señor"), "Gracias, señor");
    assert_eq!(reference_strip("a\r\n [message_id: 7] \r\nb\n[MESSAGE_ID: 8]"), "a\nb");
    assert_eq!(reference_strip("\u{feff}[message_id: 1]\nx"), "x");
    assert_eq!(reference_strip("\u{85}[message_id: 1]\nx"), "\u{85}[message_id: 1]\nx");
    assert_eq!(reference_read(&json!({"role": "User", "text": "[WebChat x] hi"})), json!({"role": "User", "text": "hi"}));
}
