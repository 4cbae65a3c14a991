//! Arbitrary bytes as the embedded gateway's runs registry (`session-tools/runs.json`):
//! opened, every run in it waited for and looked up, then a run started, waited for and
//! written back (merged with the file, as several processes sharing it write it).
//!
//! What must hold:
//! - no panic anywhere (a panic the host catches aborts too: libFuzzer's panic hook);
//! - the file is never lost: either it is read as a registry and left where it is, or it is
//!   moved aside (`runs.json.unreadable-<ms>`) byte for byte;
//! - every run of a registry that was read is known: `agent.wait` answers its end at once
//!   (as the file has it, or as interrupted when it had not ended: nobody runs it now), and
//!   the run's session is the file's;
//! - a new run ends `ok`, and the registry written after it is JSON that holds it and every
//!   run of the file that was still worth keeping (nothing another process wrote is dropped).
#![no_main]

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use libfuzzer_sys::fuzz_target;
use serde_json::Value;
use session_tools_fuzz::host::*;
use session_tools_host::gateway::embedded::runs::{Runs, KEEP_FINISHED_MS};
use session_tools_host::gateway::embedded::runtime::{EchoRuntime, RunRequest};

fn aside_files(dir: &Path) -> Vec<std::path::PathBuf> {
    std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.file_name().is_some_and(|n| n.to_string_lossy().starts_with("runs.json.unreadable-")))
        .collect()
}

fuzz_target!(|data: &[u8]| {
    let dir = TempDir::new();
    let tools = dir.path().join("session-tools");
    std::fs::create_dir_all(&tools).unwrap();
    let path = dir.path().join(RUNS_FILE);
    std::fs::write(&path, data).unwrap();

    let runs = Arc::new(Runs::open(path.clone(), clock()).expect("opening a runs registry fails only on I/O"));
    let aside = aside_files(&tools);
    let readable = match aside.as_slice() {
        [] => {
            assert_eq!(std::fs::read(&path).unwrap(), data, "a registry that was read was changed by opening it");
            true
        }
        [moved] => {
            assert!(!path.exists(), "the unreadable registry was copied, not moved");
            assert_eq!(std::fs::read(moved).unwrap(), data, "the unreadable registry was not kept byte for byte");
            false
        }
        more => panic!("several files were moved aside: {more:?}"),
    };

    // Every run the file holds (as JSON sees it) is known and has ended.
    let file: Option<Value> = if readable { serde_json::from_slice(data).ok() } else { None };
    let listed: Vec<(String, Value)> =
        file.as_ref().and_then(|f| f.get("runs")?.as_object().cloned()).map(|runs| runs.into_iter().collect()).unwrap_or_default();
    for (id, record) in &listed {
        let waited = runs.wait(id, Duration::ZERO);
        let status = waited.status.unwrap_or_else(|| panic!("agent.wait of run {id:?} answered no status"));
        match record.get("finished").filter(|f| !f.is_null()) {
            Some(finished) => assert_eq!(Some(status.as_str()), finished["status"].as_str(), "run {id:?}"),
            None => assert_eq!(status, "error", "an unfinished run nobody runs is ended as interrupted ({id:?})"),
        }
        assert_eq!(runs.session_of(id).as_deref(), record["sessionKey"].as_str(), "the session of run {id:?}");
        assert!(!runs.runs_elsewhere(id), "run {id:?} is run by nobody alive");
    }

    // A new run, and the registry written after it.
    let request = RunRequest {
        run_id: "fuzz-run".into(),
        session_key: "agent:main:main".into(),
        agent_id: "main".into(),
        message: "hi".into(),
        extra_system_prompt: None,
        lane: None,
        channel: None,
        params: Value::Null,
    };
    runs.start(request, Duration::from_secs(5), Arc::new(EchoRuntime), |_, _| {});
    let waited = runs.wait("fuzz-run", Duration::from_secs(5));
    assert_eq!(waited.status.as_deref(), Some("ok"), "{waited:?}");
    assert!(runs.wait_idle(Duration::from_secs(5)));
    let written: Value = serde_json::from_slice(&std::fs::read(&path).expect("the registry is written")).expect("the registry is JSON");
    let kept = written["runs"].as_object().expect("the registry has runs");
    assert!(kept.contains_key("fuzz-run"), "{written}");
    for (id, record) in &listed {
        let ended = record.get("finished").and_then(|f| f.get("endedAt")).and_then(Value::as_i64);
        let current = ended.is_none_or(|at| (NOW as i64).saturating_sub(at) < KEEP_FINISHED_MS);
        if current && id != "fuzz-run" {
            assert!(kept.contains_key(id), "run {id:?} was dropped by a write: {written}");
        }
    }
    drop(runs);
});
