//! Property tests: arbitrary tool arguments, caller contexts, session
//! keys, configs and gateway answers against the guest logic (natively, in-process) and,
//! fewer, through the real component in wasmtime.
//!
//! Case counts keep the whole file well under a minute in CI. For longer runs:
//!
//! - `PROPTEST_SCALE=20 cargo test --release -p session-tools-tests --test properties`
//!   multiplies every case count;
//! - `PROPERTIES_SOAK_SECS=120 cargo test --release -p session-tools-tests --test properties
//!   -- --test-threads=1` runs every property for that many seconds instead, with fresh
//!   random seeds, and prints how many cases each ran (`PROPERTIES_SEED=<u64>` makes the
//!   seeds reproducible).
//!
//! `PROPERTIES_VERBOSE=1` prints the panics a property provokes (they are silenced while it
//! shrinks). Failures are not persisted to disk: a property that finds a bug prints the shrunk input,
//! and each bug found gets a fixed regression test below (`regression_*`).

#![forbid(unsafe_code)]

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use proptest::collection::vec;
use proptest::option;
use proptest::prelude::*;
use proptest::sample::{select, Index};
use proptest::test_runner::{Config as RunnerConfig, RngAlgorithm, TestCaseError, TestRng, TestRunner};
use serde_json::value::RawValue;
use serde_json::{json, Map, Value};

use session_tools_guest::config::Config;
use session_tools_guest::context::Env;
use session_tools_guest::history::{bound_messages, MAX_HISTORY_BYTES};
use session_tools_guest::jobs;
use session_tools_guest::keys::{self, KeyScheme};
use session_tools_guest::policy::{self, Decision, PolicyEntry, PolicyInput};
use session_tools_guest::ports::*;
use session_tools_guest::{agents, announce, channels, reply, spawn, visibility};
use session_tools_guest::{call_tool, Caller, ToolError, ToolOutput};
use session_tools_guest::{Job, Wake, Wakeup};
use session_tools_host::config::GuestConfig;
use session_tools_host::conformance::DEFAULT_NOW;
use session_tools_host::gateway::scripted::ScriptedGateway;
use session_tools_host::gateway::Gateway as _;
use session_tools_host::gateway::Native;
use session_tools_host::{AgentSetup, CallError, Limits};
use session_tools_tests::oracles::{is_agent_id_char, reference_parse};

// ---------------------------------------------------------------------------------------
// Running properties: fixed case counts in CI, scaled or time-boxed on demand.
// ---------------------------------------------------------------------------------------

fn env_f64(name: &str) -> Option<f64> {
    std::env::var(name).ok()?.trim().parse().ok()
}

thread_local! {
    /// Set while a property runs: the panics it provokes are reported by proptest (with
    /// the shrunk input), not printed once per shrinking step.
    static QUIET: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

fn quiet_panics(on: bool) {
    static HOOK: std::sync::Once = std::sync::Once::new();
    HOOK.call_once(|| {
        let default = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if !QUIET.with(|q| q.get()) {
                default(info)
            }
        }));
    });
    QUIET.with(|q| q.set(on && std::env::var_os("PROPERTIES_VERBOSE").is_none()));
}

/// Runs one property: `cases` cases (times `PROPTEST_SCALE`), or for
/// `PROPERTIES_SOAK_SECS` seconds. Panics with the shrunk input when it fails.
fn check<S, F>(name: &str, cases: u32, strategy: S, test: F)
where
    S: Strategy,
    S::Value: std::fmt::Debug,
    F: Fn(S::Value) -> Result<(), TestCaseError>,
{
    let executed = AtomicU64::new(0);
    let counted = |value: S::Value| {
        executed.fetch_add(1, Ordering::Relaxed);
        test(value)
    };
    let config = |cases: u32| RunnerConfig {
        cases,
        failure_persistence: None,
        max_shrink_iters: 1024,
        max_shrink_time: 10_000,
        // The strategies here produce values directly (no filtering of note).
        max_global_rejects: 100_000,
        ..RunnerConfig::default()
    };
    let seed = std::env::var("PROPERTIES_SEED").ok().and_then(|s| s.parse::<u64>().ok());
    let base =
        seed.unwrap_or_else(|| std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos() as u64));
    let rng_for = |round: u64| -> TestRng {
        let mut bytes = [0u8; 32];
        bytes[..8].copy_from_slice(&base.to_le_bytes());
        bytes[8..16].copy_from_slice(&round.to_le_bytes());
        bytes[16..24].copy_from_slice(&(name.len() as u64).to_le_bytes());
        for (i, b) in name.bytes().enumerate() {
            bytes[24 + i % 8] ^= b;
        }
        TestRng::from_seed(RngAlgorithm::ChaCha, &bytes)
    };
    let started = Instant::now();
    quiet_panics(true);
    let outcome = match env_f64("PROPERTIES_SOAK_SECS") {
        Some(secs) if secs > 0.0 => {
            let deadline = started + Duration::from_secs_f64(secs);
            let mut round = 0u64;
            loop {
                let mut runner = TestRunner::new_with_rng(config(cases.max(16)), rng_for(round));
                let result = runner.run(&strategy, counted);
                round += 1;
                if result.is_err() || Instant::now() >= deadline {
                    break result;
                }
            }
        }
        _ => {
            let scale = env_f64("PROPTEST_SCALE").unwrap_or(1.0).max(0.01);
            let mut runner = TestRunner::new_with_rng(config(((cases as f64) * scale).ceil() as u32), rng_for(0));
            runner.run(&strategy, counted)
        }
    };
    quiet_panics(false);
    eprintln!("property {name}: {} cases in {:.1?}", executed.load(Ordering::Relaxed), started.elapsed());
    if let Err(e) = outcome {
        panic!("property {name} failed (PROPERTIES_SEED={base}): {e}");
    }
}

// ---------------------------------------------------------------------------------------
// Inputs: strings, session keys, JSON, arguments, callers, configs, gateway answers.
// ---------------------------------------------------------------------------------------

const SPECIAL_STRINGS: &[&str] = &[
    "",
    " ",
    "\t\n",
    "\u{0}",
    "\u{7f}",
    "\u{feff}",
    "\u{a0}x\u{3000}",
    "main",
    "Main",
    "global",
    "unknown",
    "work",
    "ops",
    "Research Team",
    "5",
    " 7 ",
    "-1",
    "1e400",
    "NaN",
    "Infinity",
    "0x10",
    "\u{663}",
    "true",
    "null",
    "delete",
    "keep",
    "high",
    "xhigh",
    "openai/gpt-5.2",
    "z.ai/glm",
    "webchat",
    "discord",
    "whatsapp",
    "telegram",
    "/send",
    "/send on",
    "/SEND off ",
    "/send\u{a0}on",
    "/senä",
    "/sendé",
    "REPLY_SKIP",
    "ANNOUNCE_SKIP",
    "İ",
    "ǅ",
    "ß",
    "é",
    "\u{10ffff}",
    "😀",
    "5b0f3c2e-8d1a-4e6b-9c7f-1a2b3c4d5e6f",
    "5B0F3C2E-8D1A-4E6B-9C7F-1A2B3C4D5E6F",
    "sess-group",
];

/// Fragments of assistant replies: tags and markers the reply scanners look for.
const REPLY_FRAGMENTS: &[&str] = &[
    "<think>",
    "</think>",
    "< thinking >",
    "</ThInKiNg>",
    "<thought>",
    "<antthinking>",
    "<final>",
    "</final>",
    "< / final >",
    "<thinkx>",
    "```",
    "~~~",
    "`",
    "\n",
    "\n\n",
    " ",
    "\u{a0}",
    "\u{2028}",
    "[Tool Call: x (ID: 1)]",
    "[Tool Call: ",
    "[Tool Result for ID 1]",
    "[Historical context: ",
    "Arguments: {",
    "Arguments: ",
    "{\"a\":[1,\"]\"]}",
    "}",
    "{",
    "[",
    "]",
    "\"",
    "\\",
    "<invoke name=\"t\">",
    "<invoke",
    "</invoke>",
    "</minimax:tool_call>",
    "<minimax:tool_call>",
    "<",
    ">",
    "/",
    "REPLY_SKIP",
    "ANNOUNCE_SKIP",
    "NO_REPLY",
    "Status: ok",
    "Result:",
    "Notes:",
    "roles must alternate",
    "Incorrect role information",
    "hello",
    "é",
    "İ",
    "ß",
    "😀",
    "\u{0}",
    "\r",
    "\t",
];

fn text() -> BoxedStrategy<String> {
    prop_oneof![
        4 => select(SPECIAL_STRINGS).prop_map(str::to_string),
        3 => "[a-zA-Z0-9 _:./-]{0,12}",
        2 => vec(any::<char>(), 0..10).prop_map(|c| c.into_iter().collect::<String>()),
        1 => vec(select(REPLY_FRAGMENTS), 0..6).prop_map(|f| f.concat()),
        1 => (select(&['a', 'é', ' ', '\u{10000}'][..]), 60usize..200).prop_map(|(c, n)| std::iter::repeat_n(c, n).collect()),
    ]
    .boxed()
}

/// Assistant-reply-like text.
fn reply_text() -> BoxedStrategy<String> {
    prop_oneof![
        4 => vec(prop_oneof![4 => select(REPLY_FRAGMENTS).prop_map(str::to_string), 1 => text()], 0..14).prop_map(|f| f.concat()),
        1 => text(),
    ]
    .boxed()
}

const SEGMENTS: &[&str] = &[
    "",
    " ",
    "main",
    "Main",
    "MAIN",
    "global",
    "unknown",
    "work",
    "ops",
    "Ops",
    "Research Team",
    "subagent",
    "SubAgent",
    "acp",
    "cron",
    "hook",
    "node-1",
    "node",
    "discord",
    "whatsapp",
    "telegram",
    "slack",
    "group",
    "channel",
    "topic",
    "thread",
    "dev",
    "123",
    "-100123",
    "x",
    "İ",
    "é",
    "\t",
    "_",
    "-",
    "agent",
    "*",
];

fn segment() -> BoxedStrategy<String> {
    prop_oneof![
        5 => select(SEGMENTS).prop_map(str::to_string),
        2 => "[a-zA-Z0-9_ -]{0,6}",
        1 => vec(any::<char>(), 0..3).prop_map(|c| c.into_iter().collect::<String>()),
    ]
    .boxed()
}

const KEYS: &[&str] = &[
    "main",
    "global",
    "unknown",
    "agent:main:main",
    "agent:ops:main",
    "agent:Ops:Main",
    "agent:main:work",
    "agent::main::main:",
    "agent: :x",
    "agent:main",
    "agent:main:subagent:abc",
    "subagent:x",
    "agent:ops:subagent:1",
    "discord:group:dev",
    "agent:main:discord:group:dev",
    "agent:main:discord:channel:X",
    "telegram:group:-100123:topic:42",
    "agent:main:whatsapp:group:1:thread:7",
    "cron:job-1",
    "agent:main:cron:job-1",
    "hook:x",
    "node-1",
    "node:abc",
    "acp:x",
    "agent:main:acp:x",
    "5b0f3c2e-8d1a-4e6b-9c7f-1a2b3c4d5e6f",
    "sess-group",
    " agent:main:main ",
    "AGENT:main:main",
    "agent:_x-y!:main",
];

fn session_key() -> BoxedStrategy<String> {
    prop_oneof![
        3 => select(KEYS).prop_map(str::to_string),
        3 => (any::<bool>(), segment(), vec(segment(), 1..5)).prop_map(|(agent, id, rest)| {
            let rest = rest.join(":");
            if agent { format!("agent:{id}:{rest}") } else if id.is_empty() { rest } else { format!("{id}:{rest}") }
        }),
        1 => (select(&[" ", "\n", "\t", "\u{a0}"][..]), select(KEYS)).prop_map(|(ws, k)| format!("{ws}{k}{ws}")),
        1 => text(),
    ]
    .boxed()
}

fn number() -> BoxedStrategy<Value> {
    prop_oneof![
        3 => (0i64..200).prop_map(Value::from),
        1 => any::<i64>().prop_map(Value::from),
        1 => any::<u64>().prop_map(Value::from),
        1 => select(&[
            0.0, -0.0, 0.5, 0.999, 1.5, -1.0, -1.5, 1e15, 1e300, -1e300, f64::MAX, f64::MIN, f64::MIN_POSITIVE, 4294967295.0,
            4294967296.0, 9007199254740993.0, 9.3e18, -9.3e18, 1e21,
        ][..])
        .prop_map(|f| json!(f)),
        1 => any::<f64>().prop_map(|f| json!(f)),
    ]
    .boxed()
}

const NUMERIC_STRINGS: &[&str] = &[
    "5",
    " 7 ",
    "0",
    "-1",
    "0.5",
    "1e3",
    "1e400",
    "-1e400",
    "NaN",
    "Infinity",
    "-Infinity",
    "",
    " ",
    "0x10",
    "\u{663}",
    "5abc",
    "+3",
    ".5",
    "1_000",
];

/// Object keys: the tools' parameter names, the gateway's field names, and others.
fn key_name() -> BoxedStrategy<String> {
    prop_oneof![
        3 => select(&[
            "sessionKey", "label", "agentId", "message", "timeoutSeconds", "kinds", "limit", "activeMinutes", "messageLimit",
            "includeTools", "task", "model", "thinking", "runTimeoutSeconds", "cleanup", "role", "content", "type", "text", "key",
            "kind", "sessions", "messages", "status", "error", "runId", "usage", "__proto__", "",
        ][..])
        .prop_map(str::to_string),
        1 => text(),
    ]
    .boxed()
}

fn json_leaf() -> BoxedStrategy<Value> {
    prop_oneof![
        1 => Just(Value::Null),
        1 => any::<bool>().prop_map(Value::Bool),
        2 => number(),
        3 => text().prop_map(Value::String),
        1 => session_key().prop_map(Value::String),
    ]
    .boxed()
}

fn json_value() -> BoxedStrategy<Value> {
    json_leaf()
        .prop_recursive(4, 40, 6, |inner| {
            prop_oneof![
                vec(inner.clone(), 0..6).prop_map(Value::Array),
                vec((key_name(), inner), 0..6).prop_map(|kv| Value::Object(kv.into_iter().collect())),
            ]
        })
        .boxed()
}

#[derive(Debug, Clone, Copy)]
enum Kind {
    Str,
    Num,
    Bool,
    List,
}

const PARAMS: &[(&str, Kind)] = &[
    ("sessionKey", Kind::Str),
    ("label", Kind::Str),
    ("agentId", Kind::Str),
    ("message", Kind::Str),
    ("timeoutSeconds", Kind::Num),
    ("kinds", Kind::List),
    ("limit", Kind::Num),
    ("activeMinutes", Kind::Num),
    ("messageLimit", Kind::Num),
    ("includeTools", Kind::Bool),
    ("task", Kind::Str),
    ("model", Kind::Str),
    ("thinking", Kind::Str),
    ("runTimeoutSeconds", Kind::Num),
    ("cleanup", Kind::Str),
];

const KIND_WORDS: &[&str] = &["main", "group", "cron", "hook", "node", "other", " CRON ", "Group", "", "bogus"];

fn param_value(kind: Kind) -> BoxedStrategy<Value> {
    match kind {
        Kind::Str => prop_oneof![
            4 => session_key().prop_map(Value::String),
            3 => text().prop_map(Value::String),
            1 => json_value(),
        ]
        .boxed(),
        Kind::Num => prop_oneof![
            4 => number(),
            2 => select(NUMERIC_STRINGS).prop_map(|s| Value::String(s.to_string())),
            1 => json_value(),
        ]
        .boxed(),
        Kind::Bool => prop_oneof![4 => any::<bool>().prop_map(Value::Bool), 1 => json_value()].boxed(),
        Kind::List => prop_oneof![
            4 => vec(select(KIND_WORDS).prop_map(|s| Value::String(s.to_string())), 0..4).prop_map(Value::Array),
            1 => text().prop_map(Value::String),
            1 => json_value(),
        ]
        .boxed(),
    }
}

/// An argument object close to a valid one: each known parameter absent, of its type, of
/// another type, null, or a numeric string; plus unknown properties.
fn near_valid_args() -> BoxedStrategy<Value> {
    let params: Vec<BoxedStrategy<Option<(String, Value)>>> = PARAMS
        .iter()
        .map(|(name, kind)| {
            let name = name.to_string();
            option::weighted(0.55, prop_oneof![9 => param_value(*kind), 1 => Just(Value::Null)])
                .prop_map(move |v| v.map(|v| (name.clone(), v)))
                .boxed()
        })
        .collect();
    (params, vec((key_name(), json_value()), 0..2))
        .prop_map(|(params, extra)| {
            let mut map = Map::new();
            for (k, v) in extra.into_iter().chain(params.into_iter().flatten()) {
                map.insert(k, v);
            }
            Value::Object(map)
        })
        .boxed()
}

const RAW_ARGS: &[&str] = &[
    "",
    " ",
    "null",
    "{}",
    "[]",
    "\"x\"",
    "1",
    "true",
    "{",
    "{\"limit\":1e400}",
    "{\"limit\":-1e400,\"sessionKey\":\"main\"}",
    "{\"limit\":123456789012345678901234567890,\"sessionKey\":\"main\"}",
    "{\"sessionKey\":\"main\",\"sessionKey\":5}",
    "{\"message\":\"hi\",\"message\":null}",
    "\u{feff}{}",
    "{\"message\":\"hi\",}",
    "{\"task\":\"\\ud800\"}",
    "{\"task\":\"\\u0000\",\"label\":\"\\u001f\"}",
    "{\"timeoutSeconds\":1e-400,\"message\":\"m\",\"sessionKey\":\"main\"}",
    "{\"limit\":-0,\"sessionKey\":\"main\"}",
    "{\"limit\":4294967296,\"sessionKey\":\"main\"}",
    "{\"limit\":1.7976931348623157e308,\"messageLimit\":1e300}",
    "{\"sessionKey\":\"main\"} trailing",
    "{} {}",
    "\t{\"sessionKey\" : \"main\" }\n",
];

fn nested(depth: usize, array: bool) -> String {
    if array {
        format!("{}{}", "[".repeat(depth), "]".repeat(depth))
    } else {
        format!("{}1{}", "{\"a\":".repeat(depth), "}".repeat(depth))
    }
}

fn truncate_at(s: &str, at: Index) -> String {
    if s.is_empty() {
        return String::new();
    }
    let mut cut = at.index(s.len());
    while !s.is_char_boundary(cut) {
        cut -= 1;
    }
    s[..cut].to_string()
}

/// JSON argument text: near-valid objects, any JSON, truncated JSON, odd literals, text.
fn args_text() -> BoxedStrategy<String> {
    prop_oneof![
        8 => near_valid_args().prop_map(|v| v.to_string()),
        2 => json_value().prop_map(|v| v.to_string()),
        1 => (near_valid_args(), any::<Index>()).prop_map(|(v, i)| truncate_at(&v.to_string(), i)),
        2 => select(RAW_ARGS).prop_map(str::to_string),
        1 => (100usize..400, any::<bool>()).prop_map(|(d, a)| nested(d, a)),
        1 => text(),
    ]
    .boxed()
}

/// Arguments that are valid for a tool (so calls get past validation to the gateway).
fn valid_args(tool: &str) -> BoxedStrategy<Value> {
    let kinds = || maybe(0.4, vec(select(KIND_WORDS), 0..3));
    let seconds = || maybe(0.6, prop_oneof![3 => (0i64..30).prop_map(Value::from), 1 => number()]);
    let label = || prop_oneof![select(&["worker", "dev", "Team Chat"][..]).prop_map(str::to_string), "[a-zA-Z0-9 é_-]{1,64}"];
    let object =
        |fields: Vec<(&str, Option<Value>)>| Value::Object(fields.into_iter().filter_map(|(k, v)| v.map(|v| (k.to_string(), v))).collect());
    match tool {
        "sessions_list" => (kinds(), maybe(0.5, 1i64..50), maybe(0.3, 1i64..10_000), maybe(0.6, 0i64..5))
            .prop_map(move |(kinds, limit, active, messages)| {
                object(vec![
                    ("kinds", kinds.map(|k| json!(k))),
                    ("limit", limit.map(Value::from)),
                    ("activeMinutes", active.map(Value::from)),
                    ("messageLimit", messages.map(Value::from)),
                ])
            })
            .boxed(),
        "sessions_history" => (session_key(), maybe(0.5, 1i64..100), maybe(0.5, any::<bool>()))
            .prop_map(move |(key, limit, tools)| {
                object(vec![("sessionKey", Some(json!(key))), ("limit", limit.map(Value::from)), ("includeTools", tools.map(Value::from))])
            })
            .boxed(),
        "sessions_send" => (
            prop_oneof![3 => session_key().prop_map(|k| (Some(k), None)), 1 => label().prop_map(|l| (None, Some(l)))],
            maybe(0.2, segment()),
            reply_text(),
            seconds(),
        )
            .prop_map(move |((key, label), agent, message, timeout)| {
                object(vec![
                    ("sessionKey", key.map(Value::from)),
                    ("label", label.map(Value::from)),
                    ("agentId", agent.filter(|a| !a.is_empty() && a.chars().count() <= 64).map(Value::from)),
                    ("message", Some(json!(message))),
                    ("timeoutSeconds", timeout),
                ])
            })
            .boxed(),
        "sessions_spawn" => (
            reply_text(),
            maybe(0.4, label()),
            maybe(0.3, segment()),
            maybe(0.3, select(&["openai/gpt-5.2", "gpt-5.2", "z.ai/glm", " ", "x/y/z"][..])),
            maybe(0.3, prop_oneof![select(&["high", "xhigh", "think-hard", "off", "on", "bogus"][..]).prop_map(str::to_string), text()]),
            seconds(),
            seconds(),
            maybe(0.5, select(&["delete", "keep"][..])),
        )
            .prop_map(move |(task, label, agent, model, thinking, run_timeout, timeout, cleanup)| {
                object(vec![
                    ("task", Some(json!(task))),
                    ("label", label.map(Value::from)),
                    ("agentId", agent.map(Value::from)),
                    ("model", model.map(Value::from)),
                    ("thinking", thinking.map(Value::from)),
                    ("runTimeoutSeconds", run_timeout),
                    ("timeoutSeconds", timeout),
                    ("cleanup", cleanup.map(Value::from)),
                ])
            })
            .boxed(),
        _ => Just(json!({})).boxed(),
    }
}

/// Arguments for a tool: valid ones, near-valid ones, and anything.
fn args_for(tool: &str) -> BoxedStrategy<String> {
    prop_oneof![1 => valid_args(tool).prop_map(|v| v.to_string()), 1 => args_text()].boxed()
}

const TOOLS: &[&str] = &["sessions_list", "sessions_history", "sessions_send", "sessions_spawn", "agents_list"];

fn tool_name() -> BoxedStrategy<String> {
    prop_oneof![
        12 => select(TOOLS).prop_map(str::to_string),
        1 => select(&["", "Sessions_List", "sessions_list ", "describe", "unknown"][..]).prop_map(str::to_string),
    ]
    .boxed()
}

fn caller() -> BoxedStrategy<Caller> {
    let opt_text = || option::weighted(0.3, text());
    let channel = || {
        option::weighted(
            0.4,
            prop_oneof![3 => select(&["discord", "whatsapp", "telegram", "webchat", " Slack ", "gchat", "imsg", ""][..]).prop_map(str::to_string), 1 => text()],
        )
    };
    (
        option::weighted(0.85, session_key()),
        channel(),
        opt_text(),
        opt_text(),
        option::weighted(0.3, prop_oneof![text(), (0i64..1000).prop_map(|n| n.to_string())]),
        opt_text(),
        channel(),
        opt_text(),
        any::<bool>(),
        option::weighted(0.1, segment()),
    )
        .prop_map(|(key, channel, account, to, thread, group, group_channel, group_space, sandboxed, override_agent)| Caller {
            agent_session_key: key,
            agent_channel: channel,
            agent_account_id: account,
            agent_to: to,
            agent_thread_id: thread,
            agent_group_id: group,
            agent_group_channel: group_channel,
            agent_group_space: group_space,
            sandboxed,
            requester_agent_id_override: override_agent,
        })
        .boxed()
}

fn maybe<T: std::fmt::Debug + Clone + 'static>(p: f64, s: impl Strategy<Value = T> + 'static) -> BoxedStrategy<Option<T>> {
    option::weighted(p, s).boxed()
}

fn policy_rule() -> BoxedStrategy<Value> {
    (
        select(&["allow", "deny", " DENY ", "maybe", ""][..]),
        maybe(0.5, prop_oneof![select(&["discord", "whatsapp", "Discord ", ""][..]).prop_map(str::to_string), text()]),
        maybe(0.4, select(&["group", "channel", "direct", "dm", "DM", "x"][..])),
        maybe(0.4, prop_oneof![select(&["cron:", "agent:main:", "discord:group:", "SUBAGENT:", ""][..]).prop_map(str::to_string), text()]),
        maybe(0.05, json_value()),
    )
        .prop_map(|(action, channel, chat_type, prefix, junk)| {
            let mut m = Map::new();
            if let Some(c) = channel {
                m.insert("channel".into(), json!(c));
            }
            if let Some(t) = chat_type {
                m.insert("chatType".into(), json!(t));
            }
            if let Some(p) = prefix {
                m.insert("keyPrefix".into(), json!(p));
            }
            if let Some(j) = junk {
                m.insert("junk".into(), j);
            }
            json!({"action": action, "match": m})
        })
        .boxed()
}

/// A deployment config (OpenClaw's shape) with the settings the tools read.
fn config_json() -> BoxedStrategy<Value> {
    let session = (
        maybe(0.3, prop_oneof![select(&["main", "work", " Main ", "", "a:b"][..]).prop_map(str::to_string), text()]),
        maybe(0.3, select(&["per-sender", "global", "GLOBAL"][..])),
        maybe(0.3, prop_oneof![(0i64..8).prop_map(Value::from), number()]),
        maybe(0.4, (maybe(0.7, select(&["allow", "deny", "Deny"][..])), vec(policy_rule(), 0..4))),
    );
    let tools = (
        any::<bool>(),
        maybe(
            0.5,
            vec(prop_oneof![3 => select(&["*", "main", "ops", "o*", "research", ""][..]).prop_map(Value::from), 1 => json_leaf()], 0..3),
        ),
        maybe(0.3, vec(select(&["sessions_*", "sessions_list", "SESSIONS_HISTORY", "*", "agents_list", "sessions_send"][..]), 0..3)),
        maybe(0.2, vec(select(&["sessions_send", "sessions_*", "*"][..]), 0..2)),
    );
    let agents = (
        maybe(0.4, select(&["spawned", "all", "agent", "SPAWNED", ""][..])),
        maybe(0.3, prop_oneof![(0i64..120).prop_map(Value::from), number(), Just(Value::Null)]),
        maybe(0.3, prop_oneof![(0i64..600).prop_map(Value::from), number()]),
        maybe(
            0.5,
            vec(
                (
                    segment(),
                    any::<bool>(),
                    maybe(0.5, vec(select(&["*", "ops", "main", "research"][..]), 0..3)),
                    maybe(0.2, select(&["spawned", "all"][..])),
                ),
                0..4,
            ),
        ),
        maybe(
            0.2,
            prop_oneof![
                select(&["openai/gpt-5.2", "anthropic/claude", " "][..]).prop_map(Value::from),
                Just(json!({"primary": "z.ai/glm"}))
            ],
        ),
    );
    (session, tools, agents, maybe(0.2, (number(), number())), maybe(0.03, json_value()))
        .prop_map(
            |(
                (main_key, scope, turns, send_policy),
                (a2a, allow, sub_allow, sub_deny),
                (vis, archive, timeout, list, model),
                price,
                junk,
            )| {
                let mut session = Map::new();
                if let Some(k) = main_key {
                    session.insert("mainKey".into(), json!(k));
                }
                if let Some(s) = scope {
                    session.insert("scope".into(), json!(s));
                }
                if let Some(t) = turns {
                    session.insert("agentToAgent".into(), json!({"maxPingPongTurns": t}));
                }
                if let Some((default, rules)) = send_policy {
                    let mut p = Map::new();
                    if let Some(d) = default {
                        p.insert("default".into(), json!(d));
                    }
                    p.insert("rules".into(), Value::Array(rules));
                    session.insert("sendPolicy".into(), Value::Object(p));
                }
                let mut a2a_cfg = json!({"enabled": a2a});
                if let Some(allow) = allow {
                    a2a_cfg["allow"] = Value::Array(allow);
                }
                let mut sub_tools = Map::new();
                if let Some(a) = sub_allow {
                    sub_tools.insert("allow".into(), json!(a));
                }
                if let Some(d) = sub_deny {
                    sub_tools.insert("deny".into(), json!(d));
                }
                let mut defaults = json!({"subagents": {}});
                if let Some(v) = vis {
                    defaults["sandbox"] = json!({"sessionToolsVisibility": v});
                }
                if let Some(a) = archive {
                    defaults["subagents"]["archiveAfterMinutes"] = a;
                }
                if let Some(m) = model {
                    defaults["subagents"]["model"] = m;
                }
                if let Some(t) = timeout {
                    defaults["timeoutSeconds"] = t;
                }
                let mut agents = json!({"defaults": defaults});
                if let Some(list) = list {
                    agents["list"] = Value::Array(
                        list.into_iter()
                            .map(|(id, default, allow, vis)| {
                                let mut a = json!({"id": id, "default": default, "name": format!("Agent {id}")});
                                if let Some(allow) = allow {
                                    a["subagents"] = json!({"allowAgents": allow});
                                }
                                if let Some(v) = vis {
                                    a["sandbox"] = json!({"sessionToolsVisibility": v});
                                }
                                a
                            })
                            .collect(),
                    );
                }
                let mut cfg = json!({
                    "session": session,
                    "tools": {"agentToAgent": a2a_cfg, "subagents": {"tools": sub_tools}},
                    "agents": agents,
                });
                if let Some((input, output)) = price {
                    cfg["models"] =
                        json!({"providers": {"openai": {"models": [{"id": "gpt-5.2", "cost": {"input": input, "output": output}}]}}});
                }
                if let Some(junk) = junk {
                    cfg["session"]["junk"] = junk;
                }
                cfg
            },
        )
        .boxed()
}

/// A `sessions.list` row: a key (usually a string) and some fields, of their type or not.
fn session_row() -> BoxedStrategy<Value> {
    const STR_FIELDS: &[&str] = &[
        "kind",
        "channel",
        "label",
        "displayName",
        "sessionId",
        "model",
        "thinkingLevel",
        "verboseLevel",
        "sendPolicy",
        "lastChannel",
        "lastTo",
        "lastAccountId",
        "spawnedBy",
    ];
    const NUM_FIELDS: &[&str] = &["updatedAt", "contextTokens", "totalTokens"];
    let key = prop_oneof![8 => session_key().prop_map(Value::String), 1 => json_leaf()];
    let strs = vec((select(STR_FIELDS), prop_oneof![4 => text().prop_map(Value::String), 1 => json_leaf()]), 0..6);
    let nums = vec((select(NUM_FIELDS), prop_oneof![4 => number(), 1 => json_leaf()]), 0..3);
    let bools = vec((select(&["systemSent", "abortedLastRun"][..]), prop_oneof![any::<bool>().prop_map(Value::Bool), json_leaf()]), 0..2);
    let dc = maybe(
        0.3,
        prop_oneof![
            4 => (maybe(0.8, text()), maybe(0.8, text()), maybe(0.3, text()), maybe(0.3, prop_oneof![number(), text().prop_map(Value::String)]))
                .prop_map(|(c, t, a, th)| json!({"channel": c, "to": t, "accountId": a, "threadId": th})),
            1 => json_value(),
        ],
    );
    (key, strs, nums, bools, dc, maybe(0.1, json_value()))
        .prop_map(|(key, strs, nums, bools, dc, junk)| {
            let mut row = Map::new();
            if let Some(j) = junk {
                row.insert("junk".into(), j);
            }
            row.insert("key".into(), key);
            for (k, v) in strs.into_iter().chain(nums).chain(bools) {
                row.insert(k.to_string(), v);
            }
            if let Some(dc) = dc {
                row.insert("deliveryContext".into(), dc);
            }
            Value::Object(row)
        })
        .boxed()
}

/// A transcript message: usually role + text blocks, sometimes anything.
fn transcript_message() -> BoxedStrategy<Value> {
    let role = prop_oneof![4 => select(&["user", "assistant", "toolResult", "system"][..]).prop_map(Value::from), 1 => json_leaf()];
    let block = prop_oneof![
        4 => reply_text().prop_map(|t| json!({"type": "text", "text": t})),
        1 => text().prop_map(|t| json!({"type": "thinking", "thinking": t})),
        1 => json_value(),
    ];
    prop_oneof![
        5 => (role.clone(), vec(block, 0..4)).prop_map(|(r, b)| json!({"role": r, "content": b})),
        1 => (role, reply_text()).prop_map(|(r, t)| json!({"role": r, "content": t})),
        1 => json_value(),
    ]
    .boxed()
}

/// A long transcript message (for the N14 bound).
fn big_message() -> BoxedStrategy<Value> {
    (
        select(&["user", "assistant", "toolResult"][..]),
        select(&['a', 'é', '"', '\n', '\u{1}', '😀'][..]),
        0usize..30_000,
        vec(transcript_message(), 0..2),
    )
        .prop_map(|(role, c, n, extra)| {
            let text: String = std::iter::repeat_n(c, n).collect();
            json!({"role": role, "content": [{"type": "text", "text": text}], "extra": extra})
        })
        .boxed()
}

const METHODS: &[&str] =
    &["sessions.list", "sessions.resolve", "chat.history", "agent", "agent.wait", "send", "sessions.patch", "sessions.delete"];

fn wait_answer() -> BoxedStrategy<Value> {
    (
        prop_oneof![4 => select(&["ok", "error", "timeout", "pending", ""][..]).prop_map(Value::from), 1 => json_leaf()],
        maybe(0.4, text()),
        maybe(0.6, number()),
        maybe(0.6, number()),
        maybe(0.5, prop_oneof![
            3 => (number(), number(), maybe(0.5, number())).prop_map(|(i, o, t)| json!({"inputTokens": i, "outputTokens": o, "totalTokens": t})),
            1 => (number(), number()).prop_map(|(i, o)| json!({"input": i, "output": o})),
            1 => json_value(),
        ]),
        maybe(0.4, prop_oneof![select(&["gpt-5.2", "openai/gpt-5.2", "x"][..]).prop_map(str::to_string), text()]),
    )
        .prop_map(|(status, error, started, ended, usage, model)| {
            json!({"status": status, "error": error, "startedAt": started, "endedAt": ended, "usage": usage, "model": model})
        })
        .boxed()
}

fn method_result(method: &'static str) -> BoxedStrategy<Value> {
    let specific = match method {
        "sessions.list" => (maybe(0.6, prop_oneof![text().prop_map(Value::from), json_leaf()]), vec(session_row(), 0..8))
            .prop_map(|(path, rows)| json!({"path": path, "sessions": rows}))
            .boxed(),
        "chat.history" => (maybe(0.3, text()), vec(transcript_message(), 0..8))
            .prop_map(|(id, messages)| json!({"sessionId": id, "messages": messages}))
            .boxed(),
        "sessions.resolve" => {
            prop_oneof![4 => session_key().prop_map(Value::from), 1 => json_leaf()].prop_map(|k| json!({"key": k})).boxed()
        }
        "agent" => prop_oneof![4 => text().prop_map(Value::from), 1 => json_leaf()].prop_map(|r| json!({"runId": r})).boxed(),
        "agent.wait" => wait_answer(),
        _ => Just(json!({})).boxed(),
    };
    prop_oneof![6 => specific, 1 => json_value()].boxed()
}

/// One scripted answer: a result or an error for a method, maybe only a few times.
fn response() -> BoxedStrategy<Value> {
    select(METHODS)
        .prop_flat_map(|method| {
            (
                prop_oneof![
                    5 => method_result(method).prop_map(|r| ("result", r)),
                    1 => prop_oneof![
                        3 => select(&["gateway timeout", "boom", "not found", "forbidden"][..]).prop_map(Value::from),
                        1 => json_value(),
                    ]
                    .prop_map(|e| ("error", e)),
                ],
                maybe(0.3, 0u64..3),
            )
                .prop_map(move |((field, value), times)| {
                    let mut r = json!({"method": method});
                    r[field] = value;
                    if let Some(t) = times {
                        r["times"] = json!(t);
                    }
                    r
                })
        })
        .boxed()
}

/// A scripted gateway (`gateway` of a conformance case) with arbitrary answers.
fn gateway_json() -> BoxedStrategy<Value> {
    let run = (
        maybe(0.8, reply_text()),
        select(&["ok", "error", "timeout"][..]),
        maybe(0.2, text()),
        maybe(0.3, prop_oneof![Just(json!({"inputTokens": 10, "outputTokens": 5})), json_value()]),
        prop_oneof![3 => (0i64..100_000).prop_map(Value::from), 1 => number()],
    )
        .prop_map(|(reply, status, error, usage, duration)| {
            json!({"match": {}, "reply": reply, "status": status, "error": error, "usage": usage, "durationMs": duration})
        });
    (vec(response(), 0..10), vec(run, 0..3)).prop_map(|(responses, runs)| json!({"responses": responses, "runs": runs})).boxed()
}

/// How jobs are woken: as the host does, or arbitrarily (a host may resume late, after a
/// restart, or with an answer of its own).
#[derive(Debug, Clone)]
enum WakeChoice {
    AsAsked,
    Now,
    Timer,
    Ended(Value),
    Failed(String),
}

fn wake_choices() -> BoxedStrategy<Vec<WakeChoice>> {
    vec(
        prop_oneof![
            8 => Just(WakeChoice::AsAsked),
            1 => Just(WakeChoice::Now),
            1 => Just(WakeChoice::Timer),
            1 => wait_answer().prop_map(WakeChoice::Ended),
            1 => text().prop_map(WakeChoice::Failed),
        ],
        0..8,
    )
    .boxed()
}

// ---------------------------------------------------------------------------------------
// The native harness.
// ---------------------------------------------------------------------------------------

/// A clock that does not move, counted ids, a log kept in memory (the last lines).
struct Services {
    now: u64,
    ids: AtomicU64,
    log: std::sync::Mutex<Vec<String>>,
}

impl Services {
    fn new() -> Services {
        Services { now: DEFAULT_NOW as u64, ids: AtomicU64::new(0), log: std::sync::Mutex::new(Vec::new()) }
    }

    /// The log, for failure messages (a guest panic's message is logged by the host).
    fn tail(&self) -> String {
        let log = self.log.lock().unwrap_or_else(|p| p.into_inner());
        log.iter().rev().take(6).rev().cloned().collect::<Vec<_>>().join(" | ")
    }
}

impl Host for Services {
    fn now_ms(&self) -> u64 {
        self.now
    }

    fn new_uuid(&self) -> String {
        format!("00000000-0000-4000-8000-{:012x}", self.ids.fetch_add(1, Ordering::Relaxed))
    }

    fn log(&self, level: LogLevel, message: &str) {
        let mut log = self.log.lock().unwrap_or_else(|p| p.into_inner());
        if log.len() < 200 {
            log.push(format!("{level:?}: {}", message.chars().take(600).collect::<String>()));
        }
    }
}

/// The scripted gateway, except that `chat.history` may answer raw (not necessarily
/// JSON) messages, as a gateway implementation other than the wire one could.
struct Chaos {
    inner: ScriptedGateway,
    raw_history: Option<Vec<(Option<String>, String)>>,
}

impl Gateway for Chaos {
    fn sessions_list(&self, p: &ListParams) -> GatewayResult<SessionList> {
        self.inner.sessions_list(p)
    }
    fn sessions_resolve(&self, p: &ResolveParams) -> GatewayResult<String> {
        self.inner.sessions_resolve(p)
    }
    fn chat_history(&self, p: &HistoryParams) -> GatewayResult<History> {
        match &self.raw_history {
            Some(raw) => {
                let _ = self.inner.chat_history(p);
                Ok(History {
                    session_id: None,
                    messages: raw.iter().map(|(role, json)| TranscriptMessage { role: role.clone(), json: json.clone() }).collect(),
                })
            }
            None => self.inner.chat_history(p),
        }
    }
    fn agent(&self, p: &AgentParams) -> GatewayResult<AgentAccepted> {
        self.inner.agent(p)
    }
    fn agent_wait(&self, p: &WaitParams) -> GatewayResult<WaitResult> {
        self.inner.agent_wait(p)
    }
    fn send(&self, p: &SendParams) -> GatewayResult<()> {
        self.inner.send(p)
    }
    fn sessions_patch(&self, p: &PatchParams) -> GatewayResult<()> {
        self.inner.sessions_patch(p)
    }
    fn sessions_delete(&self, p: &DeleteParams) -> GatewayResult<()> {
        self.inner.sessions_delete(p)
    }
}

/// A transcript as (role, message JSON) pairs; `None`: no transcript at all.
type RawHistory = Option<Vec<(Option<String>, String)>>;

fn raw_history() -> BoxedStrategy<RawHistory> {
    let raw = prop_oneof![
        4 => transcript_message().prop_map(|v| v.to_string()),
        1 => big_message().prop_map(|v| v.to_string()),
        1 => select(&["", " ", "{", "nul", "\"x", "{\"role\":\"user\"} trailing", "1e400", "[1,]", " {\"role\":\"assistant\"} "][..])
            .prop_map(str::to_string),
        1 => text(),
    ];
    let role = maybe(0.8, select(&["user", "assistant", "toolResult"][..]).prop_map(str::to_string));
    maybe(0.25, vec((role, raw), 0..8))
}

fn scripted(gateway: &Value) -> ScriptedGateway {
    ScriptedGateway::from_json(Some(gateway), DEFAULT_NOW).expect("generated gateway scripts are valid")
}

fn wait_result_of(v: &Value) -> WaitResult {
    session_tools_host::gateway::wire::answers::wait_result(v)
}

/// Checks one tool answer; answers the jobs to run.
fn check_answer(tool: &str, args: &str, answer: &Result<ToolOutput, ToolError>) -> Result<Vec<Job>, TestCaseError> {
    let known = TOOLS.contains(&tool);
    match answer {
        Ok(out) => {
            prop_assert!(known, "unknown tool {tool:?} answered {}", out.result);
            // JSON as the host checks it (syntax: a raw transcript message may carry a number
            // such as 1e400, valid JSON text but out of `Value`'s range).
            serde_json::from_str::<Box<RawValue>>(&out.result)
                .map_err(|e| TestCaseError::fail(format!("{tool}: result is not JSON ({e}): {}", out.result)))?;
            let fields: HashMap<String, Box<RawValue>> = serde_json::from_str(&out.result).unwrap_or_default();
            if tool == "sessions_list" {
                if let (Some(count), Some(sessions)) = (fields.get("count"), fields.get("sessions")) {
                    let rows = serde_json::from_str::<Vec<Box<RawValue>>>(sessions.get()).ok().map(|r| r.len());
                    prop_assert_eq!(
                        count.get().parse::<usize>().ok(),
                        rows,
                        "sessions_list count is not the number of rows: {}",
                        out.result
                    );
                }
            }
            if tool == "sessions_history" {
                if let Some(messages) = fields.get("messages") {
                    let len = messages.get().len();
                    prop_assert!(
                        len <= MAX_HISTORY_BYTES,
                        "sessions_history returned {len} bytes of messages (N14 bound {MAX_HISTORY_BYTES})"
                    );
                }
            }
            for job in &out.jobs {
                check_job(job)?;
            }
            Ok(out.jobs.clone())
        }
        Err(ToolError::UnknownTool(name)) => {
            prop_assert!(!known, "{tool}: a known tool answered UnknownTool({name})");
            Ok(Vec::new())
        }
        Err(ToolError::InvalidArguments(msg)) => {
            let spec = session_tools_guest::describe::tool_spec(tool).expect("known tool");
            let names_param = spec.params.iter().any(|p| msg.contains(p.name));
            prop_assert!(
                names_param || msg.contains("arguments"),
                "{tool}: the argument error {msg:?} names no parameter (arguments {args:?})"
            );
            Ok(Vec::new())
        }
        // A gateway error's message is passed on as is (it may be empty).
        Err(ToolError::Failed(_)) => Ok(Vec::new()),
        Err(ToolError::NotConfigured) => Err(TestCaseError::fail(format!("{tool}: NotConfigured natively"))),
    }
}

fn check_job(job: &Job) -> Result<(), TestCaseError> {
    prop_assert!(matches!(job.kind.as_str(), "a2a" | "subagent" | "archive"), "a job of kind {:?}", job.kind);
    prop_assert!(serde_json::from_str::<Value>(&job.state).is_ok(), "a job state that is not JSON: {}", job.state);
    Ok(())
}

/// Runs jobs as the host would (or with the given wakeups), at most `steps` resumes.
/// Resumes jobs in the host's order (`jobs::drain`: depth first, in order).
fn drive_jobs(env: &Env, jobs: Vec<Job>, choices: &[WakeChoice], steps: usize) -> Result<usize, TestCaseError> {
    let mut jobs: Vec<Job> = jobs.into_iter().rev().collect();
    let mut resumed = 0;
    while let Some(job) = jobs.pop() {
        if resumed >= steps {
            break;
        }
        let choice = choices.get(resumed).cloned().unwrap_or(WakeChoice::AsAsked);
        let wakeup = match choice {
            WakeChoice::AsAsked => match &job.wake {
                Wake::Now => Wakeup::Now,
                Wake::At(_) => Wakeup::Timer,
                Wake::RunEnd(params) => Wakeup::RunEnded(env.gw.agent_wait(params)),
            },
            WakeChoice::Now => Wakeup::Now,
            WakeChoice::Timer => Wakeup::Timer,
            WakeChoice::Ended(v) => Wakeup::RunEnded(Ok(wait_result_of(&v))),
            WakeChoice::Failed(m) => Wakeup::RunEnded(Err(GatewayError::new(m))),
        };
        resumed += 1;
        if let Ok(next) = jobs::resume(env, job, wakeup) {
            for job in &next {
                check_job(job)?;
            }
            jobs.extend(next.into_iter().rev());
        }
    }
    Ok(resumed)
}

#[derive(Debug, Clone)]
struct NativeCase {
    tool: String,
    args: String,
    caller: Caller,
    config: Value,
    gateway: Value,
    raw_history: Option<Vec<(Option<String>, String)>>,
    wakes: Vec<WakeChoice>,
}

fn native_case(tool: BoxedStrategy<String>) -> impl Strategy<Value = NativeCase> {
    let tool_and_args = tool.prop_flat_map(|tool| {
        let args = args_for(&tool);
        (Just(tool), args)
    });
    (tool_and_args, caller(), config_json(), gateway_json(), raw_history(), wake_choices()).prop_map(
        |((tool, args), caller, config, gateway, raw_history, wakes)| NativeCase {
            tool,
            args,
            caller,
            config,
            gateway,
            raw_history,
            wakes,
        },
    )
}

fn run_native(case: NativeCase) -> Result<(), TestCaseError> {
    let cfg = match Config::parse(&case.config.to_string(), "/state") {
        Ok(cfg) => cfg,
        Err(e) => {
            prop_assert!(e.contains("sendPolicy") || e.contains("config"), "config error {e:?}");
            return Ok(());
        }
    };
    let gw = Chaos { inner: scripted(&case.gateway), raw_history: case.raw_history.clone() };
    let host = Services::new();
    let env = Env { gw: &gw, host: &host, cfg: &cfg };
    let answer = call_tool(&env, &case.tool, &case.caller, &case.args);
    let jobs = check_answer(&case.tool, &case.args, &answer)?;
    drive_jobs(&env, jobs, &case.wakes, 64)?;
    Ok(())
}

// ---------------------------------------------------------------------------------------
// Properties of the tools, natively.
// ---------------------------------------------------------------------------------------

#[test]
fn tools_never_panic_and_answer_json() {
    check("tools_never_panic_and_answer_json", 1500, native_case(tool_name()), run_native);
}

#[test]
fn sessions_list_counts_its_rows() {
    check("sessions_list_counts_its_rows", 600, native_case(Just("sessions_list".to_string()).boxed()), run_native);
}

#[test]
fn sessions_send_and_its_flows_never_panic() {
    check("sessions_send_and_its_flows_never_panic", 800, native_case(Just("sessions_send".to_string()).boxed()), run_native);
}

#[test]
fn sessions_spawn_and_its_flows_never_panic() {
    check("sessions_spawn_and_its_flows_never_panic", 600, native_case(Just("sessions_spawn".to_string()).boxed()), run_native);
}

/// A config under which history reads usually reach the gateway: agent-to-agent open and
/// callers not restricted.
fn open_config() -> Config {
    Config::parse(r#"{"tools":{"agentToAgent":{"enabled":true,"allow":["*"]}}}"#, "/state").unwrap()
}

#[test]
fn sessions_history_output_is_bounded() {
    let strategy = (
        session_key(),
        maybe(0.5, prop_oneof![(1i64..2000).prop_map(Value::from), number()]),
        any::<bool>(),
        maybe(0.7, session_key()),
        vec(prop_oneof![3 => big_message(), 1 => transcript_message()], 0..12),
        maybe(
            0.3,
            vec(
                (
                    maybe(0.8, select(&["user", "assistant", "toolResult"][..]).prop_map(str::to_string)),
                    prop_oneof![big_message().prop_map(|v| v.to_string()), text()],
                ),
                0..8,
            ),
        ),
    );
    check("sessions_history_output_is_bounded", 300, strategy, |(key, limit, include_tools, caller_key, messages, raw)| {
        let cfg = open_config();
        let gateway = json!({"responses": [
            {"method": "sessions.resolve", "result": {"key": key}},
            {"method": "chat.history", "result": {"messages": messages}},
        ]});
        let gw = Chaos { inner: scripted(&gateway), raw_history: raw };
        let host = Services::new();
        let env = Env { gw: &gw, host: &host, cfg: &cfg };
        let args = json!({"sessionKey": key, "limit": limit, "includeTools": include_tools}).to_string();
        let caller = Caller { agent_session_key: caller_key, ..Caller::default() };
        let answer = call_tool(&env, "sessions_history", &caller, &args);
        check_answer("sessions_history", &args, &answer)?;
        Ok(())
    });
}

#[test]
fn bounded_messages_fit_their_budget() {
    let strategy = (
        vec(
            prop_oneof![2 => big_message().prop_map(|v| v.to_string()), 2 => transcript_message().prop_map(|v| v.to_string()), 1 => text()],
            0..10,
        ),
        prop_oneof![2 => 2usize..200, 2 => 200usize..20_000, 1 => Just(MAX_HISTORY_BYTES)],
    );
    check("bounded_messages_fit_their_budget", 500, strategy, |(messages, budget)| {
        let total = messages.len();
        let input: Vec<TranscriptMessage> = messages.into_iter().map(|json| TranscriptMessage { role: None, json }).collect();
        let bounded = bound_messages(input, budget);
        let array = format!("[{}]", bounded.messages.iter().map(|m| m.get()).collect::<Vec<_>>().join(","));
        prop_assert!(array.len() <= budget, "{} bytes kept for a budget of {budget}", array.len());
        prop_assert!(serde_json::from_str::<Box<RawValue>>(&array).is_ok(), "kept messages are not JSON: {array}");
        prop_assert_eq!(bounded.messages.len() + bounded.dropped + bounded.malformed, total);
        Ok(())
    });
}

// ---------------------------------------------------------------------------------------
// Session keys.
// ---------------------------------------------------------------------------------------

#[test]
fn key_functions_never_panic() {
    let strategy = (session_key(), session_key(), text(), any::<bool>(), segment(), segment(), maybe(0.5, text()), maybe(0.5, text()));
    check("key_functions_never_panic", 3000, strategy, |(key, other, main_key, global, caller, default, channel, last)| {
        let parsed = keys::parse_agent_key(&key);
        prop_assert_eq!(
            parsed.as_ref().map(|p| (p.agent_id.to_string(), p.rest.to_string())),
            reference_parse(&key),
            "parse_agent_key({:?}) differs from parseAgentSessionKey",
            key
        );
        let _ = keys::key_rest(&key);
        let _ = keys::agent_id_of_key(Some(&key));
        let _ =
            (keys::is_subagent_key(&key), keys::is_acp_key(&key), keys::looks_like_session_id(&key), keys::looks_like_session_key(&key));
        let _ = keys::should_resolve_as_session_id(&key);
        let main_key = keys::normalize_main_key(Some(&main_key));
        let caller = keys::normalize_agent_id(&caller);
        let default = keys::normalize_agent_id(&default);
        let scheme = KeyScheme { main_key: &main_key, scope_global: global, caller_agent: &caller, default_agent: &default };
        let _ = (scheme.alias(), scheme.own_main(), scheme.internal(&key), scheme.is_own_main(&key));
        let display = scheme.display(&key);
        prop_assert!(display == "main" || display == key.as_str(), "display({key:?}) = {display:?}");
        let canonical = scheme.canonical(&key);
        let _ = scheme.canonical(&other);
        let kind = scheme.classify(&key, Some("group"));
        let _ = scheme.classify(&canonical, None);
        let _ = keys::channel_from_group_key(&key);
        let _ = keys::derive_channel(&key, kind, channel.as_deref(), last.as_deref());
        let _ = channels::target_from_key(&key);
        Ok(())
    });
}

/// The places of the paths the component reads (`wit/config-paths.json`) and their
/// prefixes, as key paths (`[]` as index 0, `*` as a provider name).
fn read_places() -> Vec<Vec<String>> {
    let file: Value = serde_json::from_str(session_tools_host::config::PATHS_FILE).unwrap();
    let mut places = Vec::new();
    for path in file["paths"].as_array().unwrap() {
        let mut steps: Vec<String> = Vec::new();
        for step in path.as_str().unwrap().split('.') {
            let name = step.trim_end_matches("[]");
            steps.push(if name == "*" { "openai".into() } else { name.into() });
            places.push(steps.clone());
            for _ in 0..(step.len() - name.len()) / 2 {
                steps.push("0".into());
                places.push(steps.clone());
            }
        }
    }
    places
}

/// Puts a value at a key path, making objects (arrays for `0`) on the way.
fn put(config: &mut Value, steps: &[String], value: Value) {
    let mut node = config;
    for step in steps {
        node = if step == "0" {
            if node.as_array().is_none_or(|a| a.is_empty()) {
                *node = json!([null]);
            }
            &mut node[0]
        } else {
            if !node.is_object() {
                *node = json!({});
            }
            node.as_object_mut().unwrap().entry(step.clone()).or_insert(Value::Null)
        };
    }
    *node = value;
}

#[test]
fn the_component_reads_the_same_from_what_it_is_given_as_from_the_whole_config() {
    // N16: a host gives the component the paths it reads, values of any shape anywhere
    // on or off them (objects where a string is read, strings where a list is, ...).
    let places = read_places();
    let strategy = (config_json(), vec((any::<Index>(), json_value(), any::<bool>()), 0..6));
    check("the_component_reads_the_same_from_what_it_is_given_as_from_the_whole_config", 2000, strategy, |(mut config, puts)| {
        for (at, value, beside) in puts {
            let mut steps = at.get(&places).clone();
            if beside {
                steps.push("notRead".into());
            }
            put(&mut config, &steps, value);
        }
        // Both as text, as a component gets them (JSON text does not keep every float bit).
        let whole: Value = serde_json::from_str(&config.to_string()).unwrap();
        let given: Value = serde_json::from_str(GuestConfig::of(&config).json()).unwrap();
        let (whole, projected) = (Config::from_value(&whole, "/state"), Config::from_value(&given, "/state"));
        prop_assert_eq!(format!("{whole:?}"), format!("{projected:?}"), "given {}", given);
        Ok(())
    });
}

#[test]
fn normalized_agent_ids_are_well_formed() {
    let strategy = prop_oneof![3 => segment(), 2 => text(), 1 => session_key(), 1 => "[_a-zA-Z0-9!. -]{60,70}"];
    check("normalized_agent_ids_are_well_formed", 3000, strategy, |raw| {
        let id = keys::normalize_agent_id(&raw);
        prop_assert!(!id.is_empty() && id.len() <= 64, "normalize_agent_id({raw:?}) = {id:?}");
        prop_assert!(id.chars().all(is_agent_id_char), "normalize_agent_id({raw:?}) = {id:?} has other characters");
        prop_assert!(!id.starts_with('-'), "normalize_agent_id({raw:?}) = {id:?} starts with a dash");
        if raw.trim().is_empty() {
            prop_assert_eq!(id.as_str(), "main");
        }
        Ok(())
    });
}

/// Once found a bug (see `regression_normalize_agent_id_is_idempotent`).
#[test]
fn normalize_agent_id_is_idempotent() {
    let strategy = prop_oneof![3 => segment(), 2 => text(), 1 => "[_a-zA-Z0-9!. -]{60,70}"];
    check("normalize_agent_id_is_idempotent", 3000, strategy, |raw| {
        let id = keys::normalize_agent_id(&raw);
        prop_assert_eq!(keys::normalize_agent_id(&id), id.clone(), "normalize_agent_id is not idempotent on {:?}", raw);
        Ok(())
    });
}

#[test]
fn canonical_keys_are_stable_for_well_formed_keys() {
    // Keys without empty segments or surrounding spaces, agent ids already normalised.
    let strategy = (
        vec("[a-z0-9][a-z0-9:_-]{0,8}[a-z0-9]", 1..4),
        any::<bool>(),
        "[a-z0-9][a-z0-9_-]{0,8}",
        select(&["main", "work"][..]),
        any::<bool>(),
    );
    check("canonical_keys_are_stable_for_well_formed_keys", 2000, strategy, |(rest, agent, id, main_key, global)| {
        let rest = rest.join(":").split(':').filter(|s| !s.is_empty()).collect::<Vec<_>>().join(":");
        let key = if agent { format!("agent:{id}:{rest}") } else { rest };
        let scheme = KeyScheme { main_key, scope_global: global, caller_agent: "main", default_agent: "main" };
        let once = scheme.canonical(&key);
        prop_assert_eq!(scheme.canonical(&once), once.clone(), "canonical is not stable on {:?}", key);
        Ok(())
    });
}

// ---------------------------------------------------------------------------------------
// The send policy, jobs, and the text scanners.
// ---------------------------------------------------------------------------------------

#[test]
fn send_policy_evaluation_never_panics() {
    let entry = maybe(
        0.7,
        (
            maybe(0.5, prop_oneof![select(&["allow", "deny", " Deny ", "inherit"][..]).prop_map(str::to_string), text()]),
            maybe(0.5, text()),
            maybe(0.5, text()),
            maybe(0.5, text()),
        ),
    );
    let strategy = (
        config_json(),
        entry,
        maybe(0.9, session_key()),
        maybe(0.5, text()),
        maybe(0.5, prop_oneof![select(&["group", "channel", "direct", "dm"][..]).prop_map(str::to_string), text()]),
    );
    check("send_policy_evaluation_never_panics", 2000, strategy, |(config, entry, key, channel, chat_type)| {
        let Ok(cfg) = Config::parse(&config.to_string(), "/state") else {
            return Ok(());
        };
        let override_deny = entry.as_ref().and_then(|e| e.0.as_deref()).map(|p| p.trim().eq_ignore_ascii_case("deny"));
        let input = PolicyInput {
            entry: entry.map(|(send_policy, channel, last_channel, chat_type)| PolicyEntry {
                send_policy,
                channel,
                last_channel,
                chat_type,
            }),
            session_key: key,
            channel,
            chat_type,
        };
        let (decision, reason) = policy::evaluate(&cfg, &input);
        prop_assert!(!reason.is_empty());
        if override_deny == Some(true) {
            prop_assert_eq!(decision, Decision::Deny);
        }
        Ok(())
    });
}

/// Once found a bug (see `regression_parse_send_command_on_multibyte_text`).
#[test]
fn send_command_parsing_never_panics() {
    let strategy = prop_oneof![
        3 => (select(&["/send", "/SEND", "/sen", "/se", "/", " /send", "\u{a0}/send", "\t/send "][..]), text()).prop_map(|(a, b)| format!("{a}{b}")),
        1 => text(),
    ];
    check("send_command_parsing_never_panics", 2000, strategy, |text| {
        if let Some(command) = std::panic::catch_unwind(|| policy::parse_send_command(&text))
            .map_err(|_| TestCaseError::fail(format!("parse_send_command panicked on {text:?}")))?
        {
            let start = text.trim_start();
            prop_assert!(start.get(..5).is_some_and(|s| s.eq_ignore_ascii_case("/send")), "{text:?} parsed as {command:?}");
        }
        Ok(())
    });
}

/// Valid job states, from real tool calls (a fire-and-forget send and a spawn).
fn seed_jobs() -> &'static Vec<Job> {
    static JOBS: OnceLock<Vec<Job>> = OnceLock::new();
    JOBS.get_or_init(|| {
        let cfg = open_config();
        let host = Services::new();
        let gw = scripted(&json!({"responses": [{"method": "sessions.resolve", "result": {"key": "agent:main:discord:group:dev"}}],
            "runs": [{"match": {}, "reply": "done", "status": "ok", "durationMs": 5}]}));
        let env = Env { gw: &Native(&gw), host: &host, cfg: &cfg };
        let caller =
            Caller { agent_session_key: Some("agent:main:main".into()), agent_channel: Some("discord".into()), ..Caller::default() };
        let mut jobs = Vec::new();
        for (tool, args) in [
            ("sessions_send", r#"{"sessionKey":"discord:group:dev","message":"hi","timeoutSeconds":0}"#),
            ("sessions_spawn", r#"{"task":"do it","label":"l","cleanup":"delete"}"#),
        ] {
            jobs.extend(call_tool(&env, tool, &caller, args).expect("seed call").jobs);
        }
        // And the states that follow them.
        let mut next = Vec::new();
        for job in &jobs {
            let wakeup = match &job.wake {
                Wake::RunEnd(p) => Wakeup::RunEnded(env.gw.agent_wait(p)),
                Wake::At(_) => Wakeup::Timer,
                Wake::Now => Wakeup::Now,
            };
            next.extend(jobs::resume(&env, job.clone(), wakeup).unwrap_or_default());
        }
        jobs.extend(next);
        assert!(jobs.len() >= 2, "the seed calls made jobs");
        jobs
    })
}

fn mutate_state(state: &str, field: Index, value: Option<Value>) -> String {
    let mut v: Value = serde_json::from_str(state).expect("seed states are JSON");
    if let Some(map) = v.as_object_mut() {
        let keys: Vec<String> = map.keys().cloned().collect();
        let key = keys[field.index(keys.len())].clone();
        match value {
            Some(value) => {
                map.insert(key, value);
            }
            None => {
                map.remove(&key);
            }
        }
    }
    v.to_string()
}

#[test]
fn job_resumption_rejects_arbitrary_states() {
    let strategy = (
        prop_oneof![3 => select(&["a2a", "subagent", "archive"][..]).prop_map(str::to_string), 1 => text()],
        prop_oneof![text(), json_value().prop_map(|v| v.to_string()), args_text()],
        prop_oneof![Just(Wake::Now), any::<u64>().prop_map(Wake::At)],
        wake_choices(),
    );
    check("job_resumption_rejects_arbitrary_states", 1000, strategy, |(kind, state, wake, choices)| {
        let cfg = open_config();
        let host = Services::new();
        let gw = scripted(&json!({}));
        let env = Env { gw: &Native(&gw), host: &host, cfg: &cfg };
        let job = Job { id: "j".into(), kind: kind.clone(), session_key: "agent:main:main".into(), state: state.clone(), wake };
        let wakeup = match choices.first() {
            Some(WakeChoice::Ended(v)) => Wakeup::RunEnded(Ok(wait_result_of(v))),
            Some(WakeChoice::Failed(m)) => Wakeup::RunEnded(Err(GatewayError::new(m.clone()))),
            Some(WakeChoice::Timer) => Wakeup::Timer,
            _ => Wakeup::Now,
        };
        let resumed = jobs::resume(&env, job, wakeup);
        // serde also reads a struct from an array of its fields (`["", "", 0]` is an
        // archive job), so only JSON arrays and objects may be accepted.
        let structured = matches!(serde_json::from_str::<Value>(&state), Ok(Value::Array(_) | Value::Object(_)));
        prop_assert!(resumed.is_err() || structured, "a {kind:?} job with state {state:?} was resumed: {resumed:?}");
        Ok(())
    });
}

#[test]
fn job_resumption_survives_damaged_states() {
    let strategy = (any::<Index>(), any::<Index>(), maybe(0.85, json_value()), gateway_json(), config_json(), wake_choices());
    check("job_resumption_survives_damaged_states", 800, strategy, |(which, field, value, gateway, config, choices)| {
        let Ok(cfg) = Config::parse(&config.to_string(), "/state") else {
            return Ok(());
        };
        let seeds = seed_jobs();
        let mut job = seeds[which.index(seeds.len())].clone();
        job.state = mutate_state(&job.state, field, value);
        let gw = scripted(&gateway);
        let host = Services::new();
        let env = Env { gw: &Native(&gw), host: &host, cfg: &cfg };
        drive_jobs(&env, vec![job], &choices, 32)?;
        Ok(())
    });
}

#[test]
fn text_scanners_never_panic() {
    let strategy = (reply_text(), transcript_message(), any::<f64>(), 0usize..25, text(), text());
    check("text_scanners_never_panic", 3000, strategy, |(text, message, number, digits, a, b)| {
        let _ = reply::js_trim(&text);
        let _ = reply::strip_minimax_tool_call_xml(&text);
        let _ = reply::strip_downgraded_tool_call_text(&text);
        let _ = reply::strip_thinking_tags(&text);
        let _ = reply::sanitize_text_content(&text);
        let _ = reply::sanitize_user_facing_text(&text);
        let _ = reply::extract_assistant_text(&message);
        let _ = reply::extract_assistant_text(&json!({"role": "assistant", "content": [{"type": "text", "text": text}]}));
        let _ = (announce::is_announce_skip(&text), announce::is_reply_skip(&text), channels::normalize_channel_id(&text));
        let _ = announce::format_duration_short(Some(number));
        let _ = announce::js_to_fixed(number.abs(), digits);
        let _ = (channels::normalize_message_channel(&text), spawn::normalize_think_level(&text));
        prop_assert_eq!(agents::locale_compare(&a, &b), agents::locale_compare(&b, &a).reverse());
        prop_assert!(visibility::glob_matches_ci("*", &a));
        prop_assert!(visibility::glob_matches_ci(&a, &a), "{a:?} does not match itself");
        let _ = visibility::glob_matches_ci(&b, &a);
        Ok(())
    });
}

// ---------------------------------------------------------------------------------------
// Through the real component.
// ---------------------------------------------------------------------------------------

fn setup(config: &Value, gateway: Arc<ScriptedGateway>, services: Arc<Services>) -> AgentSetup {
    AgentSetup::new("properties", gateway, services, GuestConfig::of(config), "/state", Limits::default())
}

#[test]
fn component_calls_end_in_json_or_a_tool_error() {
    let runtime = session_tools_tests::runtime();
    check("component_calls_end_in_json_or_a_tool_error", 300, native_case(tool_name()), |case| {
        let gateway = Arc::new(scripted(&case.gateway));
        let services = Arc::new(Services::new());
        let mut sandbox = match runtime.instantiate(&setup(&case.config, gateway.clone(), services.clone())) {
            Ok(sandbox) => sandbox,
            Err(CallError::Setup(e)) => {
                prop_assert!(Config::parse(&case.config.to_string(), "/state").is_err(), "the component refused a config: {e}");
                return Ok(());
            }
            Err(e) => return Err(TestCaseError::fail(format!("instantiating: {e}"))),
        };
        match sandbox.call_tool(&case.tool, &case.caller, &case.args) {
            Ok(out) => {
                let answer = Ok(out);
                let jobs = check_answer(&case.tool, &case.args, &answer)?;
                if let Err(e) = sandbox.run_jobs(&case.caller, jobs) {
                    return Err(TestCaseError::fail(format!("a job broke the instance: {e}; log: {}", services.tail())));
                }
            }
            Err(CallError::Tool(e)) => {
                check_answer(&case.tool, &case.args, &Err(e))?;
            }
            Err(e) => return Err(TestCaseError::fail(format!("{}: {e} (arguments {:?}); log: {}", case.tool, case.args, services.tail()))),
        }
        prop_assert!(!sandbox.is_broken());
        Ok(())
    });
}

#[test]
fn component_policy_exports_never_trap() {
    let runtime = session_tools_tests::runtime();
    let strategy = (
        config_json(),
        maybe(0.9, session_key()),
        maybe(0.5, text()),
        prop_oneof![3 => (select(&["/send", "/SEND", "/sen", " /send"][..]), text()).prop_map(|(a, b)| format!("{a}{b}")), 1 => text()],
    );
    check("component_policy_exports_never_trap", 200, strategy, |(config, key, channel, command)| {
        let gateway = Arc::new(scripted(&json!({})));
        let Ok(mut sandbox) = runtime.instantiate(&setup(&config, gateway, Arc::new(Services::new()))) else {
            return Ok(());
        };
        let input = PolicyInput { entry: None, session_key: key, channel, chat_type: None };
        let verdict = sandbox.evaluate_send_policy(&input);
        prop_assert!(verdict.is_ok(), "evaluate-send-policy: {:?}", verdict.err());
        let parsed = sandbox.parse_send_command(&command);
        prop_assert!(parsed.is_ok(), "parse-send-command({command:?}): {:?}", parsed.err());
        Ok(())
    });
}

// ---------------------------------------------------------------------------------------
// Bugs these properties found, fixed; their inputs kept as regression tests.
// ---------------------------------------------------------------------------------------

/// Was: `policy::parse_send_command` sliced `trimmed[..5]` on a byte index that may fall
/// inside a character; `/senä` (5 bytes up to the middle of `ä`) panicked natively and
/// trapped the component (the embedded gateway calls it on owner messages).
#[test]
fn regression_parse_send_command_on_multibyte_text() {
    for text in ["/senä", "/seü x", "/s😀"] {
        let outcome = std::panic::catch_unwind(|| policy::parse_send_command(text));
        assert!(outcome.is_ok(), "parse_send_command({text:?}) panicked");
    }
}

/// Was (and is, in the reference's `normalizeAgentId`): an id that starts with `_` takes
/// the fallback path, whose 64-character cut can leave a trailing `-`; normalising the
/// result again strips it, so the id of `agent:<id>:…` keys changed when re-normalised
/// (two canonical spellings of one agent for the host's N15 guard).
#[test]
fn regression_normalize_agent_id_is_idempotent() {
    let raw = format!("_{}!b", "a".repeat(62));
    let once = keys::normalize_agent_id(&raw);
    assert_eq!(keys::normalize_agent_id(&once), once, "normalize_agent_id({raw:?}) = {once:?}");
}

/// Was: `reply::code_regions` (`text[fence_at..]` with `fence_at += 1`) sliced inside a
/// multi-byte character when a reply had a thinking or `<final>` tag and any non-ASCII
/// character before a position it scans: `é<think>x</think>ok` panicked natively, and
/// through the component a `sessions_send` that read such a reply trapped the instance.
#[test]
fn regression_reply_with_non_ascii_and_a_thinking_tag() {
    let text = "é<think>x</think>ok";
    for f in [reply::strip_thinking_tags, reply::sanitize_text_content, reply::sanitize_user_facing_text] {
        assert!(std::panic::catch_unwind(|| f(text)).is_ok(), "a text scanner panicked on {text:?}");
    }
    let runtime = session_tools_tests::runtime();
    let gateway = Arc::new(scripted(&json!({"runs": [{"match": {}, "reply": text, "status": "ok"}]})));
    let mut sandbox = runtime.instantiate(&setup(&json!({}), gateway, Arc::new(Services::new()))).unwrap();
    let caller = Caller { agent_session_key: Some("agent:main:main".into()), ..Caller::default() };
    let answer = sandbox.call_tool("sessions_send", &caller, r#"{"sessionKey":"agent:main:work","message":"hi","timeoutSeconds":5}"#);
    assert!(matches!(answer, Ok(_) | Err(CallError::Tool(_))), "sessions_send reading the reply {text:?}: {answer:?}");
}

/// Was: `announce::stats_line` (`(end - start)`) subtracted run times taken from an
/// `agent.wait` answer without saturating: `startedAt: -1` with `endedAt:
/// 9223372036854775807` overflowed — a panic in debug builds, a silently wrapped runtime
/// in the release component. Reached from `sessions_spawn` when the sub-agent's run ends.
#[test]
fn regression_stats_line_on_extreme_run_times() {
    let cfg = Config::default();
    let stats = announce::Stats {
        started_at: Some(-1),
        ended_at: Some(i64::MAX),
        session_key: "agent:main:subagent:x",
        ..announce::Stats::default()
    };
    let line = std::panic::catch_unwind(|| announce::stats_line(&cfg, &stats));
    assert!(line.is_ok(), "stats_line panicked on startedAt -1, endedAt i64::MAX");
}
