//! The embedded gateway on OpenClaw 2026.9's state: the sample imported by the
//! real `openclaw doctor --fix` of npm `openclaw@2026.9.6`, read beside a running 2026.9.6
//! gateway on the same directory (every read method answers as its RPC does), writes
//! refused while it runs and read back by it after, and damaged, unknown or locked
//! databases reported by name. Needs Node/npm and the npm registry on first use (the
//! install is cached outside the repository); fails, never skips, without them.

#![forbid(unsafe_code)]

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use serde_json::{json, Map, Value};
use session_tools_host::config::DeploymentConfig;
use session_tools_host::gateway::embedded::runtime::EchoRuntime;
use session_tools_host::gateway::embedded::{EmbeddedGateway, Patch};
use session_tools_host::gateway::Gateway as _;
use session_tools_host::gateway::*;
use session_tools_host::system_clock;
use session_tools_tests::openclaw::{Gateway, GatewayOptions, TODAY_PACKAGE};
use session_tools_tests::Served;

use crate::imported::imported_sample;

/// A long assistant reply added to the legacy sample before the import: 2026.9 stores an
/// event of 1 KiB or more as a zstd frame, so the history read goes through one.
const LONG_REPLY: &str = "The full rollout plan, step by step. ";

fn with_long_reply(legacy: &Path) {
    let file = legacy.join("agents/main/sessions/8c3d9e1f-2a4b-4c6d-8e0f-3a5b7c9d1e2f.jsonl");
    let mut text = std::fs::read_to_string(&file).unwrap();
    let line = json!({"type": "message", "id": "10ngr3p1", "parentId": "8fd6701e", "timestamp": "2026-01-26T10:01:00.000Z",
        "message": {"role": "assistant", "content": [{"type": "text", "text": LONG_REPLY.repeat(60)}], "stopReason": "stop", "timestamp": 1769421660000u64}});
    text.push_str(&line.to_string());
    text.push('\n');
    std::fs::write(&file, text).unwrap();
}

fn sample() -> tempfile::TempDir {
    imported_sample(with_long_reply).unwrap_or_else(|e| panic!("importing the sample with openclaw doctor --fix failed:\n{e}"))
}

fn start(state: &Path) -> Gateway {
    let options =
        GatewayOptions { package: TODAY_PACKAGE.to_string(), startup_timeout: Duration::from_secs(240), ..GatewayOptions::default() };
    Gateway::start(state, options).unwrap_or_else(|e| panic!("starting the real OpenClaw 2026.9.6 gateway failed:\n{e}"))
}

fn open(state: &Path) -> Arc<EmbeddedGateway> {
    let config = DeploymentConfig::load(state, None).unwrap();
    EmbeddedGateway::open(state, config, Arc::new(EchoRuntime), system_clock()).unwrap()
}

/// The fields of a `sessions.list` row both gateways give the same meaning on 2026.9.
/// Not compared (README, "2026.9 state"): `model`/`modelProvider`/`contextTokens`/
/// `thinkingLevel` (2026.9 answers the model its config and catalog resolve, not the
/// entry's), `totalTokens` (2026.9 shows only a fresh total).
const ROW_FIELDS: [&str; 15] = [
    "key",
    "kind",
    "channel",
    "label",
    "displayName",
    "deliveryContext",
    "updatedAt",
    "sessionId",
    "systemSent",
    "abortedLastRun",
    "sendPolicy",
    "lastChannel",
    "lastTo",
    "lastAccountId",
    "verboseLevel",
];

fn their_row(row: &Value) -> Value {
    let o = row.as_object().unwrap();
    let mut m: Map<String, Value> =
        ROW_FIELDS.iter().filter_map(|f| o.get(*f).filter(|v| !v.is_null()).map(|v| (f.to_string(), v.clone()))).collect();
    // E5: a child's parent is `spawnedBy`, else `parentSessionKey`.
    if let Some(parent) = o.get("spawnedBy").or(o.get("parentSessionKey")).filter(|v| !v.is_null()) {
        m.insert("spawnedBy".into(), parent.clone());
    }
    Value::Object(m)
}

fn our_row(row: &SessionRow) -> Value {
    let full = wire::answers::session_row_json(row);
    let o = full.as_object().unwrap();
    let mut m: Map<String, Value> =
        ROW_FIELDS.iter().filter_map(|f| o.get(*f).filter(|v| !v.is_null()).map(|v| (f.to_string(), v.clone()))).collect();
    if let Some(parent) = &row.spawned_by {
        m.insert("spawnedBy".into(), json!(parent));
    }
    Value::Object(m)
}

fn list_params(p: &Value) -> ListParams {
    let text = |k: &str| p.get(k).and_then(Value::as_str).map(str::to_string);
    ListParams {
        limit: p.get("limit").and_then(Value::as_u64).map(|n| n as u32),
        active_minutes: None,
        include_global: p.get("includeGlobal").and_then(Value::as_bool),
        include_unknown: p.get("includeUnknown").and_then(Value::as_bool),
        spawned_by: text("spawnedBy"),
        label: text("label"),
        agent_id: text("agentId"),
        search: text("search"),
    }
}

/// What 2026.9's `chat.history` display projection removes (E4, README): its own
/// `__openclaw` metadata on every message, assistant control replies, thinking
/// signatures and a tool result's `details`.
fn displayed(messages: &[Value]) -> Vec<Value> {
    messages
        .iter()
        .filter(|m| {
            let text = m["content"].as_array().and_then(|c| c.first()).and_then(|p| p["text"].as_str()).map(str::trim);
            !(m["role"] == "assistant" && matches!(text, Some("NO_REPLY") | Some("ANNOUNCE_SKIP") | Some("REPLY_SKIP")))
        })
        .map(|m| {
            let mut m = m.clone();
            if let Some(o) = m.as_object_mut() {
                o.shift_remove("__openclaw");
                if o.get("role").and_then(Value::as_str) == Some("toolResult") {
                    o.shift_remove("details");
                }
                if let Some(Value::Array(parts)) = o.get_mut("content") {
                    for part in parts.iter_mut().filter_map(Value::as_object_mut) {
                        part.shift_remove("thinkingSignature");
                    }
                }
            }
            m
        })
        .collect()
}

#[test]
fn every_read_method_answers_as_a_running_2026_9_gateway_on_the_same_state() {
    let state = sample();
    let db = state.path().join("agents/main/agent/openclaw-agent.sqlite");
    let compressed: i64 = rusqlite::Connection::open(&db)
        .unwrap()
        .query_row("SELECT count(*) FROM transcript_events WHERE event_zstd IS NOT NULL", [], |r| r.get(0))
        .unwrap();
    assert!(compressed >= 1, "the long reply was imported as a zstd event");
    let gateway = start(state.path());
    let ours = open(state.path());
    let mut failures = Vec::new();
    let mut compared = 0;

    for params in [
        json!({"limit": 200}),
        json!({"limit": 3}),
        json!({"agentId": "ops", "limit": 200}),
        json!({"label": "pricing-research", "limit": 200}),
        json!({"spawnedBy": "agent:main:main", "limit": 200}),
        json!({"includeGlobal": true, "includeUnknown": true, "limit": 200}),
    ] {
        compared += 1;
        let theirs = gateway.rpc("sessions.list", params.clone()).unwrap_or_else(|e| panic!("sessions.list {params}: {e}"));
        let theirs: Vec<Value> = theirs["sessions"].as_array().unwrap().iter().map(their_row).collect();
        let mut mine: Vec<Value> = ours.sessions_list(&list_params(&params)).unwrap().sessions.iter().map(our_row).collect();
        if params.get("spawnedBy").is_some() {
            // 2026.9 drops a store-only child link (no run, not running, no `startedAt`) an
            // hour after the child's last update (`shouldKeepStoreOnlyChildLink`,
            // `STALE_STORE_ONLY_CHILD_LINK_MS = 36e5` in session-utils-core); we keep the
            // lineage (E5, README "What answers differently"). The imported sample is kept
            // between runs, so its child is fresh or stale depending on when it was imported.
            let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_millis() as i64;
            mine.retain(|row| row["updatedAt"].as_i64().is_some_and(|updated| now - updated <= 3_600_000));
        }
        if theirs != mine {
            failures.push(format!("sessions.list {params}:\n theirs {}\n ours   {}", Value::Array(theirs), Value::Array(mine)));
        }
    }

    for params in [
        json!({"key": "main"}),
        json!({"key": "agent:ops:slack:channel:c07abcdef12"}),
        json!({"key": "discord:channel:1187421193829244938"}),
        json!({"key": "agent:main:nope"}),
        json!({"label": "pricing-research"}),
        json!({"label": "no-such-label"}),
        json!({"sessionId": "a9b8c7d6-e5f4-4a3b-8c2d-1e0f9a8b7c6d"}),
    ] {
        compared += 1;
        let text = |k: &str| params.get(k).and_then(Value::as_str).map(str::to_string);
        let theirs = gateway.rpc("sessions.resolve", params.clone()).map(|v| v["key"].as_str().unwrap_or_default().to_string()).map_err(
            |e| match e {
                session_tools_tests::openclaw::RpcError::Gateway { message, .. } => message,
                other => panic!("sessions.resolve {params}: {other}"),
            },
        );
        let mine = ours
            .sessions_resolve(&ResolveParams {
                key: text("key"),
                session_id: text("sessionId"),
                label: text("label"),
                ..Default::default()
            })
            .map_err(|e| e.message);
        if theirs != mine {
            failures.push(format!("sessions.resolve {params}: theirs {theirs:?}, ours {mine:?}"));
        }
    }

    let keys: Vec<String> =
        ours.list_rows(&ListParams { limit: Some(200), ..Default::default() }).unwrap().into_iter().map(|r| r.key).collect();
    assert_eq!(keys.len(), 8, "{keys:?}");
    let mut long_seen = false;
    for key in &keys {
        compared += 1;
        let theirs = gateway.rpc("chat.history", json!({"sessionKey": key, "limit": 1000, "maxChars": 500000})).unwrap();
        let theirs = displayed(theirs["messages"].as_array().unwrap());
        let history = ours.chat_history(&HistoryParams { session_key: key.clone(), limit: Some(1000) }).unwrap();
        let mine: Vec<Value> = history.messages.iter().map(|m| serde_json::from_str(&m.json).unwrap()).collect();
        long_seen |= mine.iter().any(|m| m.to_string().contains(&LONG_REPLY.repeat(60)));
        let mine = displayed(&mine);
        if theirs != mine {
            failures.push(format!("chat.history {key}:\n theirs {}\n ours   {}", Value::Array(theirs), Value::Array(mine)));
        }
    }
    assert!(long_seen, "the zstd event was read");

    // The tools through the real component: the caller sees its agent's sessions, and a
    // channel's raw transcript (E4).
    let served = Served::open(state.path(), |g| g, |s| s).unwrap();
    let caller = session_tools_host::Caller { agent_session_key: Some("agent:main:main".into()), ..Default::default() };
    let list = served.call(&caller, "sessions_list", &json!({"limit": 200}).to_string()).unwrap();
    let list: Value = serde_json::from_str(&list).unwrap();
    assert_eq!(list["count"], 6, "{list}");
    let history = served
        .call(&caller, "sessions_history", &json!({"sessionKey": "agent:main:discord:channel:1187421193829244938"}).to_string())
        .unwrap();
    let history: Value = serde_json::from_str(&history).unwrap();
    assert_eq!(history["messages"].as_array().map(Vec::len), Some(6), "the raw transcript less the tool result: {history}");

    eprintln!("[sqlite_state] {compared} calls compared with the 2026.9.6 gateway, {} differ", failures.len());
    assert!(failures.is_empty(), "{} of {compared} calls differ from the real 2026.9.6 gateway:\n{}", failures.len(), failures.join("\n"));
}

#[test]
fn writes_are_refused_beside_a_running_gateway_and_what_we_write_it_reads() {
    let state = sample();
    let mut gateway = start(state.path());
    let ours = open(state.path());
    // Beside it: refused, naming `--gateway local`, and nothing written.
    let refused = ours.patch("agent:main:beside", &Patch { label: Some(Some("beside".into())), ..Default::default() }).unwrap_err();
    assert!(refused.message.contains("--gateway local") && refused.message.contains("holds the state directory"), "{}", refused.message);
    let run = ours.agent(&AgentParams {
        message: "hi".into(),
        session_key: Some("main".into()),
        idempotency_key: "beside-run".into(),
        ..Default::default()
    });
    assert!(run.unwrap_err().message.contains("--gateway local"));
    assert!(gateway.rpc("sessions.patch", json!({"key": "agent:main:by-gateway", "label": "by-gateway"})).is_ok());
    gateway.stop().unwrap();

    // Without it: sessions made and changed, runs appended, a child spawned, one deleted.
    const NEW: usize = 40;
    for i in 0..NEW {
        ours.patch(&format!("agent:main:ours-{i}"), &Patch { label: Some(Some(format!("ours-{i}"))), ..Default::default() }).unwrap();
    }
    ours.patch("agent:main:telegram:group:-1001234567890", &Patch { send_policy: Some(Some("allow".into())), ..Default::default() })
        .unwrap();
    for (i, key) in ["main", "agent:main:ours-1", "agent:ops:main"].iter().enumerate() {
        let id = format!("run-{i}");
        ours.agent(&AgentParams {
            message: format!("hello {i}"),
            session_key: Some(key.to_string()),
            idempotency_key: id.clone(),
            ..Default::default()
        })
        .unwrap();
        assert_eq!(ours.agent_wait(&WaitParams { run_id: id, timeout_ms: 10_000 }).unwrap().status.as_deref(), Some("ok"));
    }
    let child = "agent:main:subagent:0c0ffee0-0000-4000-8000-000000000001";
    ours.agent(&AgentParams {
        message: "child task".into(),
        session_key: Some(child.into()),
        idempotency_key: "child-run".into(),
        spawned_by: Some("agent:main:main".into()),
        lane: Some("subagent".into()),
        ..Default::default()
    })
    .unwrap();
    ours.agent_wait(&WaitParams { run_id: "child-run".into(), timeout_ms: 10_000 }).unwrap();
    let deleted = ours.delete("agent:main:hook:7a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d", true).unwrap();
    assert!(deleted.deleted && deleted.archived.len() == 1, "{deleted:?}");
    assert!(std::fs::read_to_string(&deleted.archived[0]).unwrap().lines().count() >= 5, "the transcript is archived, not lost");
    drop(ours);

    // The real gateway reads every entry and message written.
    let gateway = start(state.path());
    let list = gateway.rpc("sessions.list", json!({"limit": 500})).unwrap();
    let rows: std::collections::HashMap<String, Value> =
        list["sessions"].as_array().unwrap().iter().map(|r| (r["key"].as_str().unwrap().to_string(), r.clone())).collect();
    let lost: Vec<usize> =
        (0..NEW).filter(|i| rows.get(&format!("agent:main:ours-{i}")).is_none_or(|r| r["label"] != format!("ours-{i}").as_str())).collect();
    assert!(lost.is_empty(), "{} of {NEW} sessions we wrote are missing or changed in the gateway's list: {lost:?}", lost.len());
    assert_eq!(rows["agent:main:telegram:group:-1001234567890"]["sendPolicy"], "allow");
    assert!(rows.contains_key("agent:main:by-gateway"), "the gateway's own write is kept");
    assert!(!rows.contains_key("agent:main:hook:7a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d"), "the deleted session is gone");
    let children = gateway.rpc("sessions.list", json!({"spawnedBy": "agent:main:main", "limit": 50})).unwrap();
    assert!(children["sessions"].as_array().unwrap().iter().any(|r| r["key"] == child), "E5: the child is found by its parent: {children}");
    for (i, key) in ["agent:main:main", "agent:main:ours-1", "agent:ops:main"].iter().enumerate() {
        let history = gateway.rpc("chat.history", json!({"sessionKey": key, "limit": 1000, "maxChars": 500000})).unwrap();
        let texts: Vec<String> = history["messages"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|m| m["content"].as_array().and_then(|c| c.first()).and_then(|p| p["text"].as_str()).map(str::to_string))
            .collect();
        assert!(
            texts.contains(&format!("hello {i}")) && texts.contains(&format!("[echo runtime] echo: hello {i}")),
            "{key}: the gateway reads our run: {texts:?}"
        );
    }
    eprintln!("[sqlite_state] the 2026.9.6 gateway reads all {NEW} sessions, 3 runs, the child and the delete we wrote; 0 lost");
}

/// A copy of an imported agent database, changed by `damage`, opened by the embedded
/// gateway: each failure is an error naming the file, never an empty list.
fn damaged(damage: impl FnOnce(&Path)) -> (tempfile::TempDir, Result<SessionList, GatewayError>, std::path::PathBuf) {
    let state = sample();
    let db = state.path().join("agents/main/agent/openclaw-agent.sqlite");
    damage(&db);
    let result = open(state.path()).sessions_list(&ListParams { limit: Some(200), ..Default::default() });
    (state, result, db)
}

#[test]
fn damaged_unknown_and_locked_databases_are_errors_naming_the_file() {
    // Truncated (a checkpoint first, so the file holds everything and the cut loses pages).
    let (_s, result, db) = damaged(|db| {
        rusqlite::Connection::open(db).unwrap().execute_batch("PRAGMA wal_checkpoint(TRUNCATE);").unwrap();
        let len = std::fs::metadata(db).unwrap().len();
        let _ = std::fs::remove_file(db.with_extension("sqlite-wal"));
        let _ = std::fs::remove_file(db.with_extension("sqlite-shm"));
        std::fs::OpenOptions::new().write(true).open(db).unwrap().set_len(len / 3).unwrap();
    });
    let error = result.unwrap_err().message;
    assert!(error.contains(&db.display().to_string()), "truncated: {error}");

    // Another schema version: refused, not guessed at, and not written.
    let (state, result, db) = damaged(|db| {
        rusqlite::Connection::open(db)
            .unwrap()
            .execute("UPDATE schema_meta SET schema_version = 99 WHERE meta_key = 'primary'", [])
            .unwrap();
    });
    let error = result.unwrap_err().message;
    assert!(error.contains(&db.display().to_string()) && error.contains("schema version 99"), "unknown version: {error}");
    let write = open(state.path()).patch("agent:main:x", &Patch { label: Some(Some("x".into())), ..Default::default() }).unwrap_err();
    assert!(write.message.contains("schema version 99"), "{}", write.message);

    // Locked for longer than the busy timeout: the write fails naming the file.
    let state = sample();
    let db = state.path().join("agents/main/agent/openclaw-agent.sqlite");
    let holder = rusqlite::Connection::open(&db).unwrap();
    holder.execute_batch("BEGIN EXCLUSIVE;").unwrap();
    let write = open(state.path()).patch("agent:main:y", &Patch { label: Some(Some("y".into())), ..Default::default() }).unwrap_err();
    assert!(write.message.contains(&db.display().to_string()) && write.message.contains("locked"), "locked: {}", write.message);
    holder.execute_batch("ROLLBACK;").unwrap();

    // A legacy store beside the databases is reported, not silently preferred.
    std::fs::write(state.path().join("agents/ops/sessions/sessions.json"), "{}").unwrap();
    let config = DeploymentConfig::load(state.path(), None).unwrap();
    let error = EmbeddedGateway::open(state.path(), config, Arc::new(EchoRuntime), system_clock()).err().expect("refused").to_string();
    assert!(error.contains("sessions.json") && error.contains("doctor --fix"), "{error}");
}

/// A writer killed with SIGKILL at random points of its transactions leaves a database
/// SQLite opens whole, with every write it committed.
#[test]
fn a_writer_killed_at_any_point_leaves_a_whole_database() {
    let state = sample();
    let db = state.path().join("agents/main/agent/openclaw-agent.sqlite");
    for round in 0..12u64 {
        let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_openclaw-store-writer"))
            .arg(state.path())
            .arg(format!("k{round}"))
            .stdin(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(Duration::from_millis(40 + (round * 37) % 250));
        child.kill().unwrap();
        child.wait().unwrap();
        let conn = rusqlite::Connection::open(&db).unwrap();
        let check: String = conn.query_row("PRAGMA integrity_check", [], |r| r.get(0)).unwrap();
        assert_eq!(check, "ok", "after kill {round}");
        let rows = open(state.path()).list_rows(&ListParams { limit: Some(500), ..Default::default() }).unwrap();
        assert!(rows.len() >= 8, "after kill {round}: {} rows", rows.len());
    }
}
