//! Arbitrary bytes as a pending job's file (`session-tools/jobs/<key>.json`) in a copy of
//! the sample state, listed and run by a service over the embedded gateway, as
//! `session-tools jobs` does: the file is read by the host's job store, its wait bounded by
//! the job runner, and its state resumed by the real component as its caller may.
//!
//! What must hold:
//! - no panic anywhere (a panic the host catches aborts too: libFuzzer's panic hook);
//! - a job file that cannot be read is left where it is, byte for byte (reported, not lost);
//! - no job step traps the component, exceeds a limit or faults the host (whatever state
//!   and caller a file holds, the guest answers with jobs or an error);
//! - every job file left is a readable job, and every store the steps wrote is JSON.
#![no_main]

use std::sync::{Arc, Mutex};
use std::time::Duration;

use libfuzzer_sys::fuzz_target;
use session_tools_fuzz::host::*;
use session_tools_host::{Limits, ServiceBuilder};

const JOB_FILE: &str = "fuzz-job.json";

fuzz_target!(|data: &[u8]| {
    let dir = fresh_state();
    // Agent-to-agent messaging on, so the flows a job file holds go their whole way.
    let config = dir.path().join("moltbot.json");
    let mut value: serde_json::Value = serde_json::from_slice(&std::fs::read(&config).unwrap()).unwrap();
    value["tools"] = serde_json::json!({"agentToAgent": {"enabled": true, "allow": ["*"]}});
    std::fs::write(&config, value.to_string()).unwrap();
    // The runs the seed jobs wait for have ended (a reply each), so their flows go on.
    let ended = |session: &str, reply: &str| {
        serde_json::json!({"sessionKey": session, "startedAt": NOW - 2000, "finished": {
            "status": "ok", "reply": reply, "startedAt": NOW - 2000, "endedAt": NOW - 1000}})
    };
    let runs = serde_json::json!({"version": 1, "runs": {
        "04fc0f1b-2608-4277-afcb-5fa44437ecba": ended(DISCORD, "pong, señor"),
        "72171e2e-38d6-4e35-b02b-d2202a0ce1ae": ended("agent:main:main", "谢谢 🎉"),
        "1d6ac2df-7c94-4ae5-acce-0a5bc5c49ca7": ended("agent:main:subagent:6f1e2d3c-4b5a-4978-8a6b-5c4d3e2f1a0b", "Result: done"),
    }});
    std::fs::create_dir_all(dir.path().join("session-tools")).unwrap();
    std::fs::write(dir.path().join(RUNS_FILE), runs.to_string()).unwrap();
    let jobs = dir.path().join(JOBS_DIR);
    std::fs::create_dir_all(&jobs).unwrap();
    std::fs::write(jobs.join(JOB_FILE), data).unwrap();

    let gateway = open_gateway(dir.path());
    let logged: Arc<Mutex<Vec<String>>> = Arc::default();
    let log = logged.clone();
    // Short waits and few steps a job (so an input runs in milliseconds); the rest as
    // by default.
    let mut limits = Limits::default();
    limits.max_wait = Duration::from_millis(1);
    limits.max_steps_per_job = 8;
    let service = ServiceBuilder::over_embedded(&gateway)
        .with_runtime(runtime())
        .with_limits(limits)
        .with_log(Arc::new(move |_, message| log.lock().unwrap().push(message.to_string())))
        .build()
        .expect("opening the service");

    let listed = service.pending_jobs();
    assert!(listed.len() <= 1, "{listed:?}");
    let steps = service.run_jobs(Duration::from_millis(200));
    assert!(gateway.runs().wait_idle(Duration::from_secs(5)), "the runs the jobs started did not end");
    drop(service);

    let messages = logged.lock().unwrap().clone();
    if std::env::var_os("FUZZ_VERBOSE").is_some() {
        eprintln!("listed {listed:?}; {steps} steps; log: {messages:#?}");
    }
    let broken: Vec<&String> = messages.iter().filter(|m| m.contains("the instance is discarded")).collect();
    assert!(broken.is_empty(), "a job step broke the instance: {broken:?}");
    if listed.is_empty() {
        assert_eq!(std::fs::read(jobs.join(JOB_FILE)).ok().as_deref(), Some(data), "a job file that could not be read was not kept");
        assert!(messages.iter().any(|m| m.contains("unreadable job file")), "an unreadable job file was not reported: {messages:?}");
    }
    for entry in std::fs::read_dir(&jobs).unwrap().flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let bytes = std::fs::read(entry.path()).unwrap();
        // Every job file the host wrote (the input itself may still be there as it was).
        if name.ends_with(".json") && !(name == JOB_FILE && bytes == data) {
            assert!(serde_json::from_slice::<serde_json::Value>(&bytes).is_ok(), "{name} is not JSON");
        }
    }
    check_stores_are_json(dir.path());
});
