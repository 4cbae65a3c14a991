//! The embedded gateway's store on disk: persistence across restarts, OpenClaw's format
//! kept (unknown fields, key order, formatting), concurrent writers in threads and in
//! processes, and writers killed in the middle of writes.

#![forbid(unsafe_code)]

use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;
use session_tools_host::config::DeploymentConfig;
use session_tools_host::gateway::embedded::runtime::EchoRuntime;
use session_tools_host::gateway::embedded::{EmbeddedGateway, Patch};
use session_tools_host::gateway::{AgentParams, Gateway, HistoryParams, ListParams, ResolveParams, WaitParams};
use session_tools_host::system_clock;
use session_tools_tests::sample_copy;

fn open(dir: &Path) -> Arc<EmbeddedGateway> {
    let config = DeploymentConfig::load(dir, None).unwrap();
    EmbeddedGateway::open(dir, config, Arc::new(EchoRuntime), system_clock()).unwrap()
}

fn store_text(dir: &Path, agent: &str) -> String {
    std::fs::read_to_string(dir.join(format!("agents/{agent}/sessions/sessions.json"))).unwrap()
}

#[test]
fn a_write_changes_only_what_it_touches() {
    let state = sample_copy();
    let before = store_text(state.path(), "main");
    let gw = open(state.path());
    gw.patch("agent:main:telegram:group:-1001234567890", &Patch { send_policy: Some(Some("allow".into())), ..Default::default() }).unwrap();
    let after = store_text(state.path(), "main");
    let changed: Vec<(&str, &str)> = before.lines().zip(after.lines()).filter(|(a, b)| a != b).collect();
    // OpenClaw's own no-op patch changes only updatedAt; ours also the patched field.
    assert_eq!(changed.len(), 2, "{changed:#?}");
    assert!(changed.iter().any(|(a, _)| a.contains("updatedAt")));
    assert!(changed.iter().any(|(a, b)| a.contains("\"deny\"") && b.contains("\"allow\"")));
    assert_eq!(before.lines().count(), after.lines().count());
    assert!(!after.ends_with('\n'), "OpenClaw writes no trailing newline");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(state.path().join("agents/main/sessions/sessions.json")).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
    }
}

#[test]
fn unknown_fields_survive_a_round_trip() {
    let state = sample_copy();
    let path = state.path().join("agents/ops/sessions/sessions.json");
    let mut store: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    store["agent:ops:main"]["futureField"] = serde_json::json!({"nested": [1, "two", null], "z": true});
    store["agent:ops:main"]["aaFirst"] = Value::from(1);
    std::fs::write(&path, serde_json::to_string_pretty(&store).unwrap()).unwrap();
    let gw = open(state.path());
    gw.patch("agent:ops:slack:channel:c07abcdef12", &Patch { label: Some(Some("incidents-2".into())), ..Default::default() }).unwrap();
    let after: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!(after["agent:ops:main"], store["agent:ops:main"]);
    assert_eq!(after["agent:ops:slack:channel:c07abcdef12"]["label"], "incidents-2");
    // Key order is kept: the unknown field is still last.
    let keys: Vec<&String> = after["agent:ops:main"].as_object().unwrap().keys().collect();
    assert_eq!(keys.last().unwrap().as_str(), "aaFirst");
}

#[test]
fn what_is_written_is_there_after_a_restart() {
    let state = sample_copy();
    {
        let gw = open(state.path());
        gw.patch("agent:main:notes", &Patch { label: Some(Some("notes".into())), ..Default::default() }).unwrap();
        let accepted = gw
            .agent(&AgentParams {
                message: "remember me".into(),
                session_key: Some("agent:main:notes".into()),
                idempotency_key: "run-restart-1".into(),
                ..Default::default()
            })
            .unwrap();
        let wait = gw.agent_wait(&WaitParams { run_id: accepted.run_id.unwrap(), timeout_ms: 10_000 }).unwrap();
        assert_eq!(wait.status.as_deref(), Some("ok"));
    }
    let gw = open(state.path());
    let key = gw.sessions_resolve(&ResolveParams { label: Some("notes".into()), ..Default::default() }).unwrap();
    assert_eq!(key, "agent:main:notes");
    let history = gw.chat_history(&HistoryParams { session_key: key, limit: None }).unwrap();
    let texts: Vec<&str> = history.messages.iter().map(|m| m.json.as_str()).collect();
    assert_eq!(texts.len(), 2, "{texts:?}");
    assert!(texts[0].contains("remember me") && texts[1].contains("echo: remember me"));
    // The run registry persisted too: a new process can still wait for the finished run.
    let wait = gw.agent_wait(&WaitParams { run_id: "run-restart-1".into(), timeout_ms: 0 }).unwrap();
    assert_eq!(wait.status.as_deref(), Some("ok"));
}

#[test]
fn concurrent_writers_in_one_process_lose_nothing() {
    let state = sample_copy();
    let gw = open(state.path());
    std::thread::scope(|scope| {
        for t in 0..8 {
            let gw = gw.clone();
            scope.spawn(move || {
                for i in 0..25 {
                    gw.patch(
                        &format!("agent:main:thread-{t}-{i}"),
                        &Patch { label: Some(Some(format!("t{t}-{i}"))), ..Default::default() },
                    )
                    .unwrap();
                }
            });
        }
    });
    let rows = gw.list_rows(&ListParams::default()).unwrap();
    let written = rows.iter().filter(|r| r.key.contains(":thread-")).count();
    assert_eq!(written, 200);
    assert_eq!(rows.iter().filter(|r| r.key == "agent:main:main").count(), 1, "existing sessions are kept");
}

fn writer(dir: &Path, name: &str, count: Option<u32>) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_store-writer"));
    command.arg(dir).arg(name).stdout(Stdio::null()).stderr(Stdio::inherit());
    if let Some(count) = count {
        command.arg(count.to_string());
    }
    command
}

#[test]
fn concurrent_writer_processes_lose_nothing() {
    let state = sample_copy();
    let mut children: Vec<_> = (0..4).map(|w| writer(state.path(), &format!("p{w}"), Some(25)).spawn().unwrap()).collect();
    for child in &mut children {
        assert!(child.wait().unwrap().success());
    }
    let rows = open(state.path()).list_rows(&ListParams::default()).unwrap();
    for w in 0..4 {
        let mine = rows.iter().filter(|r| r.key.starts_with(&format!("agent:main:writer-p{w}-"))).count();
        assert_eq!(mine, 25, "writer p{w} lost entries");
    }
    assert!(rows.iter().any(|r| r.key == "agent:main:main"), "existing sessions are kept");
}

#[test]
fn writers_killed_mid_write_leave_a_whole_store() {
    let state = sample_copy();
    let original: Value = serde_json::from_str(&store_text(state.path(), "main")).unwrap();
    let mut wrote = 0;
    for round in 0..5u64 {
        let mut writers: Vec<_> =
            (0..3).map(|w| writer(state.path(), &format!("r{round}w{w}"), None).stderr(Stdio::null()).spawn().unwrap()).collect();
        std::thread::sleep(Duration::from_millis(200 + 61 * round));
        for w in &mut writers {
            w.kill().unwrap();
        }
        for w in &mut writers {
            let _ = w.wait();
        }
        // Whatever moment the writers died at, the store is whole and holds every session.
        let store: Value =
            serde_json::from_str(&store_text(state.path(), "main")).unwrap_or_else(|e| panic!("round {round}: store is not JSON: {e}"));
        for key in original.as_object().unwrap().keys() {
            assert!(store.get(key).is_some(), "round {round}: {key} was lost");
        }
        for (key, entry) in store.as_object().unwrap() {
            assert!(entry.get("sessionId").is_some() && entry.get("updatedAt").is_some(), "round {round}: {key} is incomplete");
        }
        wrote = store.as_object().unwrap().keys().filter(|k| k.contains(":writer-")).count();
    }
    assert!(wrote > 0, "the writers wrote nothing before they were killed");
    // A lock left by a killed writer does not block the next writer for long.
    let started = std::time::Instant::now();
    open(state.path()).patch("agent:main:after-crash", &Patch { label: Some(Some("after".into())), ..Default::default() }).unwrap();
    assert!(started.elapsed() < Duration::from_secs(5), "took {:?}", started.elapsed());
}

#[test]
fn an_unreadable_store_is_reported_and_never_overwritten() {
    let state = sample_copy();
    let path = state.path().join("agents/ops/sessions/sessions.json");
    std::fs::write(&path, "{ this is not json").unwrap();
    let gw = open(state.path());
    let err = gw.patch("agent:ops:main", &Patch { label: Some(Some("x".into())), ..Default::default() }).unwrap_err();
    assert!(err.message.contains("not valid JSON") && err.message.contains("refusing to overwrite"), "{}", err.message);
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "{ this is not json");
    // A list over every store says which one is damaged (it is never read as empty)...
    let err = gw.list_rows(&ListParams::default()).unwrap_err();
    assert!(err.message.contains(&path.display().to_string()) && err.message.contains("damaged"), "{}", err.message);
    // ...and the sessions of the other stores are still read.
    let history = gw.chat_history(&HistoryParams { session_key: "agent:main:main".into(), limit: Some(1) }).unwrap();
    assert_eq!(history.messages.len(), 1);
}

#[test]
fn gateway_contract() {
    let state = sample_copy();
    let gw = open(state.path());
    let resolve = |p: ResolveParams| gw.sessions_resolve(&p).map_err(|e| e.message);
    // Key canonicalisation.
    assert_eq!(resolve(ResolveParams { key: Some(" main ".into()), ..Default::default() }), Ok("agent:main:main".into()));
    assert_eq!(
        resolve(ResolveParams { key: Some("discord:channel:1187421193829244938".into()), ..Default::default() }),
        Ok("agent:main:discord:channel:1187421193829244938".into())
    );
    assert_eq!(resolve(ResolveParams { key: Some("agent:ops:main".into()), ..Default::default() }), Ok("agent:ops:main".into()));
    // Resolve errors.
    assert_eq!(resolve(ResolveParams::default()), Err("Either key, sessionId, or label is required".into()));
    assert_eq!(
        resolve(ResolveParams { key: Some("main".into()), label: Some("x".into()), ..Default::default() }),
        Err("Provide either key, sessionId, or label (not multiple)".into())
    );
    assert_eq!(resolve(ResolveParams { key: Some("nope".into()), ..Default::default() }), Err("No session found: nope".into()));
    assert_eq!(
        resolve(ResolveParams { label: Some("nope".into()), ..Default::default() }),
        Err("No session found with label: nope".into())
    );
    // List: newest first, limit after the filters.
    let rows = gw.list_rows(&ListParams::default()).unwrap();
    assert!(rows.windows(2).all(|w| w[0].updated_at >= w[1].updated_at));
    assert_eq!(gw.list_rows(&ListParams { limit: Some(2), ..Default::default() }).unwrap().len(), 2);
    assert_eq!(gw.list_rows(&ListParams { agent_id: Some("ops".into()), ..Default::default() }).unwrap().len(), 2);
    // Label uniqueness within a store.
    let taken = gw.patch("agent:ops:main", &Patch { label: Some(Some("incidents".into())), ..Default::default() }).unwrap_err();
    assert_eq!(taken.message, "label already in use: incidents");
    // The main session cannot be deleted; other deletes archive the transcript.
    assert_eq!(gw.delete("main", true).unwrap_err().message, "Cannot delete the main session (agent:main:main).");
    let deleted = gw.delete("agent:main:hook:7a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d", true).unwrap();
    assert!(deleted.deleted && deleted.archived.len() == 1);
    assert!(deleted.archived[0].to_string_lossy().contains(".jsonl.deleted."));
    assert!(deleted.archived[0].is_file(), "the transcript is kept, renamed");
}
