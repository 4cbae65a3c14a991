//! Hostile guests and no ambient authority (N15, N16): a test-only component that
//! misbehaves on purpose (`tests/hostile-guest/`, built by `tests/build.rs`) is run by the
//! real host, and each attack gets the host's exact answer: a CPU, wall or memory limit, a
//! trap that discards the instance, a refused result, a bounded number of gateway calls, a
//! refused gateway call for a sandboxed caller, or a component refused at load.

#![forbid(unsafe_code)]

use std::collections::HashMap;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use session_tools_guest::ports::{self, LogLevel};
use session_tools_host::config::GuestConfig;
use session_tools_host::gateway::live::LiveGateway;
use session_tools_host::gateway::scripted::ScriptedGateway;
use session_tools_host::gateway::{one_by_one, Gateway, GatewayError, GatewayResult, SessionTree};
use session_tools_host::{AgentSetup, CallError, Caller, EngineOptions, Limits, LogSink, Runtime, Sandbox, Service, ServiceBuilder};
use session_tools_tests::fake_gateway::{standard, FakeGateway, Reply};
use session_tools_tests::{engine_options, root, runtime, sample_copy, Served};

const CPU: Duration = Duration::from_millis(300);
const MEMORY: usize = 32 << 20;
const MAX_RESULT: usize = 64 << 10;
const MAX_GATEWAY_CALLS: u32 = 100;
const WALL: Duration = Duration::from_secs(1);

fn hostile() -> &'static [u8] {
    static BYTES: OnceLock<Vec<u8>> = OnceLock::new();
    BYTES.get_or_init(|| std::fs::read(env!("HOSTILE_GUEST_WASM")).expect("reading the hostile guest"))
}

fn limits() -> Limits {
    let mut limits = Limits::default();
    limits.memory_bytes = MEMORY;
    limits.cpu_per_call = CPU;
    limits.max_result_bytes = MAX_RESULT;
    limits.max_gateway_calls_per_call = MAX_GATEWAY_CALLS;
    limits.wall_per_call = WALL;
    limits
}

fn small_engine() -> EngineOptions {
    engine_options().with_pool_instances(32)
}

/// The hostile component, compiled once, with the small limits.
fn hostile_runtime() -> &'static Runtime {
    static RUNTIME: OnceLock<Runtime> = OnceLock::new();
    RUNTIME.get_or_init(|| Runtime::new(hostile(), &small_engine(), &limits()).expect("loading the hostile guest"))
}

/// A clock, ids, and every log line kept.
#[derive(Default)]
struct Recorder {
    lines: Mutex<Vec<String>>,
    ids: AtomicU64,
}

impl Recorder {
    fn lines(&self) -> Vec<String> {
        self.lines.lock().unwrap().clone()
    }
}

impl ports::Host for Recorder {
    fn now_ms(&self) -> u64 {
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_millis() as u64
    }
    fn new_uuid(&self) -> String {
        format!("00000000-0000-4000-8000-{:012}", self.ids.fetch_add(1, Ordering::Relaxed))
    }
    fn log(&self, _level: LogLevel, message: &str) {
        self.lines.lock().unwrap().push(message.to_string());
    }
}

/// A gateway that counts what it is asked: `sessions.resolve` answers at once,
/// `agent.wait` sleeps for the wait it is given.
#[derive(Default)]
struct Stub {
    resolves: AtomicU32,
    waits: Mutex<Vec<u64>>,
}

fn nothing<T>() -> GatewayResult<T> {
    Err(GatewayError::new("stub gateway"))
}

impl Gateway for Stub {
    fn sessions_list(&self, _: &ports::ListParams) -> GatewayResult<ports::SessionList> {
        nothing()
    }
    fn sessions_resolve(&self, _: &ports::ResolveParams) -> GatewayResult<String> {
        self.resolves.fetch_add(1, Ordering::Relaxed);
        Ok("agent:main:main".into())
    }
    fn chat_histories(&self, p: &[ports::HistoryParams]) -> Vec<GatewayResult<ports::History>> {
        one_by_one(self, p)
    }
    fn chat_history(&self, _: &ports::HistoryParams) -> GatewayResult<ports::History> {
        nothing()
    }
    fn agent(&self, _: &ports::AgentParams) -> GatewayResult<ports::AgentAccepted> {
        nothing()
    }
    fn agent_wait(&self, params: &ports::WaitParams) -> GatewayResult<ports::WaitResult> {
        self.waits.lock().unwrap().push(params.timeout_ms);
        std::thread::sleep(Duration::from_millis(params.timeout_ms.min(5_000)));
        Ok(ports::WaitResult { status: Some("timeout".into()), ..Default::default() })
    }
    fn send(&self, _: &ports::SendParams) -> GatewayResult<()> {
        nothing()
    }
    fn sessions_patch(&self, _: &ports::PatchParams) -> GatewayResult<()> {
        nothing()
    }
    fn sessions_delete(&self, _: &ports::DeleteParams) -> GatewayResult<()> {
        nothing()
    }
}

/// A configured instance of the hostile component on the stub gateway.
fn sandbox(limits: Limits) -> (Sandbox, Arc<Stub>, Arc<Recorder>) {
    let stub = Arc::new(Stub::default());
    let recorder = Arc::new(Recorder::default());
    let setup = AgentSetup::new("hostile", stub.clone(), recorder.clone(), GuestConfig::empty(), "/nonexistent", limits);
    (hostile_runtime().instantiate(&setup).expect("instantiating the hostile guest"), stub, recorder)
}

fn caller(key: &str, sandboxed: bool) -> Caller {
    Caller { agent_session_key: Some(key.into()), sandboxed, ..Caller::default() }
}

fn call(sandbox: &mut Sandbox, tool: &str, args: Value) -> Result<Value, CallError> {
    sandbox.call_tool(tool, &caller("agent:main:main", false), &args.to_string()).map(|out| serde_json::from_str(&out.result).unwrap())
}

/// Asserts an instance still answers, and how many tool calls it has seen.
fn assert_ok(sandbox: &mut Sandbox, calls: u64) {
    assert_eq!(call(sandbox, "ok", json!({})).unwrap(), json!({"ok": true, "calls": calls}));
}

#[test]
fn a_spinning_guest_is_stopped_at_its_cpu_budget_while_another_agent_keeps_answering() {
    let (mut spinner, _, recorder) = sandbox(limits());
    let (mut other, _, _) = sandbox(limits());
    assert_ok(&mut spinner, 1);
    let spin = std::thread::spawn(move || {
        let started = Instant::now();
        let result = call(&mut spinner, "spin", json!({}));
        (result, started.elapsed(), spinner.is_broken())
    });
    // Meanwhile, in this thread, another agent's instance answers call after call.
    let mut answered = 0u64;
    let mut slowest = Duration::ZERO;
    while !spin.is_finished() {
        let started = Instant::now();
        assert_ok(&mut other, answered + 1);
        slowest = slowest.max(started.elapsed());
        answered += 1;
    }
    let (result, elapsed, broken) = spin.join().unwrap();
    let error = result.unwrap_err();
    assert_eq!(error, CallError::CpuLimit { budget_ms: 300 });
    assert_eq!(error.to_string(), "the tool used up its CPU budget of 300 ms and was stopped");
    assert!(elapsed >= CPU && elapsed < Duration::from_secs(3), "stopped after {elapsed:?}");
    assert!(broken, "a runaway instance is discarded");
    assert!(answered >= 5, "the other agent answered only {answered} calls while the spinner ran {elapsed:?}");
    assert!(slowest < Duration::from_secs(1), "the other agent's slowest call took {slowest:?}");
    assert!(
        recorder.lines().contains(&"[hostile] the tool used up its CPU budget of 300 ms and was stopped; the instance is discarded".into()),
        "{:?}",
        recorder.lines()
    );
}

#[test]
fn a_guest_allocating_without_bound_is_stopped_at_its_memory_limit() {
    let (mut hog, _, _) = sandbox(limits());
    let started = Instant::now();
    let error = call(&mut hog, "hog", json!({})).unwrap_err();
    assert_eq!(error, CallError::MemoryLimit { limit: MEMORY });
    assert_eq!(error.to_string(), "the tool exceeded its memory limit of 32 MiB and was stopped");
    assert!(started.elapsed() < Duration::from_secs(3), "{:?}", started.elapsed());
    assert!(hog.is_broken());
    assert_eq!(call(&mut hog, "ok", json!({})).unwrap_err(), error, "a discarded instance answers nothing more");
}

#[test]
fn a_trap_or_a_stack_overflow_breaks_the_instance_for_good() {
    for (tool, trap) in [
        ("trap", "wasm trap: wasm `unreachable` instruction executed (while calling trap)"),
        ("unreachable", "wasm trap: wasm `unreachable` instruction executed (while calling unreachable)"),
        ("deep", "wasm trap: call stack exhausted (while calling deep)"),
    ] {
        let (mut sandbox, _, recorder) = sandbox(limits());
        assert_ok(&mut sandbox, 1);
        let error = call(&mut sandbox, tool, json!({})).unwrap_err();
        assert_eq!(error, CallError::Trap(trap.into()), "{tool}");
        assert!(error.discards_instance() && sandbox.is_broken(), "{tool}");
        assert_eq!(call(&mut sandbox, "ok", json!({})).unwrap_err(), error, "{tool}: the broken instance answers the same");
        assert_eq!(sandbox.describe().unwrap_err(), error, "{tool}");
        let lines = recorder.lines();
        assert!(lines.contains(&format!("[hostile] the tool crashed: {trap}; the instance is discarded")), "{lines:?}");
        if tool == "trap" {
            // The panic message went to stderr, and from there to the host's log.
            assert!(lines.iter().any(|l| l.starts_with("[hostile] guest: ") && l.contains("hostile guest panics on purpose")), "{lines:?}");
        }
    }
}

#[test]
fn oversized_and_invalid_answers_are_refused_without_breaking_the_instance() {
    let (mut sandbox, _, _) = sandbox(limits());
    let at_limit = call(&mut sandbox, "huge", json!({"bytes": MAX_RESULT})).unwrap();
    assert_eq!(at_limit.as_str().unwrap().len(), MAX_RESULT - 2);
    assert_eq!(
        call(&mut sandbox, "huge", json!({"bytes": MAX_RESULT + 1})).unwrap_err(),
        CallError::TooLarge { what: "tool result", size: MAX_RESULT + 1, limit: MAX_RESULT }
    );
    assert_eq!(
        call(&mut sandbox, "bad-json", json!({})).unwrap_err(),
        CallError::BadAnswer("the result is not JSON: key must be a string at line 1 column 2".into())
    );
    // Arguments over the limit never reach the guest (its call count does not move).
    let big = "x".repeat(Limits::default().max_argument_bytes);
    assert_eq!(
        sandbox.call_tool("ok", &caller("agent:main:main", false), &json!(big).to_string()).unwrap_err(),
        CallError::TooLarge { what: "tool arguments", size: big.len() + 2, limit: Limits::default().max_argument_bytes }
    );
    assert!(!sandbox.is_broken());
    assert_ok(&mut sandbox, 4);
}

#[test]
fn a_result_that_is_not_utf8_is_refused_and_breaks_the_instance() {
    let (mut sandbox, _, _) = sandbox(limits());
    let error = call(&mut sandbox, "bad-utf8", json!({})).unwrap_err();
    assert_eq!(error, CallError::Trap("invalid utf-8 sequence of 1 bytes from index 1 (while calling bad-utf8)".into()));
    assert!(sandbox.is_broken());
}

#[test]
fn a_flood_of_gateway_calls_is_cut_at_the_per_call_limit() {
    let (mut sandbox, stub, _) = sandbox(limits());
    let answer = call(&mut sandbox, "flood", json!({"import": "resolve", "stopOnError": true})).unwrap();
    assert_eq!(answer, json!({"calls": MAX_GATEWAY_CALLS + 1, "error": "too many gateway calls in one call (the limit is 100)"}));
    assert_eq!(stub.resolves.load(Ordering::Relaxed), MAX_GATEWAY_CALLS, "the gateway saw only the calls within the limit");
    // The count is per call: the next call gets its own.
    let again = call(&mut sandbox, "flood", json!({"import": "resolve", "stopOnError": true})).unwrap();
    assert_eq!(again["calls"], json!(MAX_GATEWAY_CALLS + 1));
    assert_eq!(stub.resolves.load(Ordering::Relaxed), 2 * MAX_GATEWAY_CALLS);
    // A guest that ignores the refusals keeps spinning, and the CPU budget stops it.
    let started = Instant::now();
    assert_eq!(call(&mut sandbox, "flood", json!({"import": "resolve"})).unwrap_err(), CallError::CpuLimit { budget_ms: 300 });
    assert!(started.elapsed() < Duration::from_secs(3), "{:?}", started.elapsed());
    assert_eq!(stub.resolves.load(Ordering::Relaxed), 3 * MAX_GATEWAY_CALLS);
}

#[test]
fn a_flood_of_clock_reads_is_not_a_gateway_call_and_is_stopped_by_the_cpu_budget() {
    let (mut sandbox, stub, _) = sandbox(limits());
    let started = Instant::now();
    assert_eq!(call(&mut sandbox, "flood", json!({"import": "now-ms"})).unwrap_err(), CallError::CpuLimit { budget_ms: 300 });
    let elapsed = started.elapsed();
    assert!(elapsed >= CPU && elapsed < Duration::from_secs(3), "{elapsed:?}");
    assert_eq!(stub.resolves.load(Ordering::Relaxed), 0);
}

#[test]
fn waits_on_the_gateway_are_cut_to_the_wall_limit() {
    let (mut sandbox, stub, _) = sandbox(limits());
    let started = Instant::now();
    let error = call(&mut sandbox, "flood", json!({"import": "wait"})).unwrap_err();
    let elapsed = started.elapsed();
    assert_eq!(error, CallError::WallLimit { budget_ms: 1000 });
    assert_eq!(error.to_string(), "the tool took longer than its time limit of 1000 ms and was stopped");
    assert!(elapsed >= WALL && elapsed < Duration::from_secs(3), "{elapsed:?}");
    // The guest asked to wait for ever; the host shortened each wait to the time left.
    let waits = stub.waits.lock().unwrap().clone();
    assert!(!waits.is_empty() && waits.iter().all(|w| *w <= 1000), "{waits:?}");
}

#[test]
fn time_in_gateway_calls_is_bounded_per_call() {
    let mut limits = limits();
    (limits.wall_per_call, limits.gateway_time_per_call) = (Duration::from_secs(30), Duration::from_millis(700));
    let (mut sandbox, stub, _) = sandbox(limits);
    let started = Instant::now();
    let answer = call(&mut sandbox, "flood", json!({"import": "wait", "stopOnError": true})).unwrap();
    assert!(started.elapsed() < Duration::from_secs(3), "{:?}", started.elapsed());
    assert!(answer.to_string().contains("the call spent its gateway time"), "{answer}");
    // Each wait was shortened to the gateway time left.
    let waits = stub.waits.lock().unwrap().clone();
    assert!(!waits.is_empty() && waits.iter().all(|w| *w <= 700), "{waits:?}");
    assert!(!sandbox.is_broken());
}

#[test]
fn the_guest_finds_no_environment_and_its_output_is_bounded() {
    let (mut sandbox, _, recorder) = sandbox(limits());
    assert_eq!(call(&mut sandbox, "env", json!({})).unwrap(), json!({"vars": [], "args": [], "stdin": {"read": true, "bytes": 0}}));
    assert_eq!(call(&mut sandbox, "shout", json!({})).unwrap(), json!({"shouted": true}));
    let lines = recorder.lines();
    // 1 MiB each on stdout, stderr and the log import; 16 KiB of each is kept.
    let per_call = Limits::default().max_log_bytes_per_call;
    let written = 1024 * 1025;
    assert!(lines.contains(&format!("[hostile] guest output: {} bytes dropped", written - per_call)), "{lines:?}");
    assert_eq!(lines.iter().filter(|l| l.starts_with("[hostile] guest output: ")).count(), 2);
    assert!(lines.contains(&format!("[hostile] guest log: {} bytes dropped", 1024 * 1024 - per_call)), "{lines:?}");
    assert_eq!(lines.iter().filter(|l| l.starts_with("[hostile] xxx")).count(), per_call / 1024);
    let kept: usize = lines.iter().map(String::len).sum();
    assert!(kept < 4 * per_call, "{kept} bytes of log for one call");
}

/// Log lines of a service, kept.
fn log_sink() -> (LogSink, Arc<Mutex<Vec<String>>>) {
    let lines = Arc::new(Mutex::new(Vec::new()));
    let sink = lines.clone();
    (Arc::new(move |_level: LogLevel, message: &str| sink.lock().unwrap().push(message.to_string())), lines)
}

/// The hostile component as a service over a copy of the sample state.
fn hostile_service() -> (Served, tempfile::TempDir, Arc<Mutex<Vec<String>>>) {
    let state = sample_copy();
    let (service, lines) = hostile_service_in(state.path(), small_engine());
    (service, state, lines)
}

/// The hostile component as a service over a state directory.
fn hostile_service_in(state: &std::path::Path, engine: EngineOptions) -> (Served, Arc<Mutex<Vec<String>>>) {
    let (log, lines) = log_sink();
    let served = Served::open(state, |g| g, |s| s.with_component(hostile()).with_engine(engine).with_limits(limits()).with_log(log))
        .expect("opening the service");
    (served, lines)
}

#[test]
fn the_service_replaces_an_instance_that_broke() {
    let (service, _state, lines) = hostile_service();
    let main = caller("agent:main:main", false);
    let ok = |n: u64| {
        let answer: Value = serde_json::from_str(&service.call(&main, "ok", "{}").unwrap()).unwrap();
        assert_eq!(answer, json!({"ok": true, "calls": n}));
    };
    ok(1);
    ok(2); // the same pooled instance
    for (tool, error) in [
        ("trap", CallError::Trap("wasm trap: wasm `unreachable` instruction executed (while calling trap)".into())),
        ("deep", CallError::Trap("wasm trap: call stack exhausted (while calling deep)".into())),
        ("spin", CallError::CpuLimit { budget_ms: 300 }),
        ("hog", CallError::MemoryLimit { limit: MEMORY }),
    ] {
        assert_eq!(service.call(&main, tool, "{}").unwrap_err(), error, "{tool}");
        ok(1); // a fresh instance: its count starts again
        ok(2);
    }
    // Refused answers do not cost the instance.
    assert!(matches!(service.call(&main, "bad-json", "{}").unwrap_err(), CallError::BadAnswer(_)));
    ok(4);
    let discarded = lines.lock().unwrap().iter().filter(|l| l.starts_with("[main] ") && l.ends_with("; the instance is discarded")).count();
    assert_eq!(discarded, 4);
}

#[test]
fn a_job_the_guest_cannot_resume_is_dropped_and_its_id_names_no_file() {
    let (service, state, lines) = hostile_service();
    // Twice, from two agents: the same guest id must not make the second job replace the first.
    assert_eq!(service.call(&caller("agent:main:main", false), "bad-job", "{}").unwrap(), r#"{"jobs":1}"#);
    assert_eq!(service.call(&caller("agent:ops:main", false), "bad-job", "{}").unwrap(), r#"{"jobs":1}"#);
    let jobs_dir = state.path().join("session-tools/jobs");
    let mut files: Vec<String> =
        std::fs::read_dir(&jobs_dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    files.sort();
    assert_eq!(files.len(), 2, "{files:?}");
    for file in &files {
        // Named by the host (its call's id, 32 hex digits, and the job's place in the call),
        // never by the guest's id.
        let (call, n) = file.strip_suffix(".json").unwrap().split_once('-').unwrap_or_else(|| panic!("{file}"));
        assert!(call.len() == 32 && call.chars().all(|c| c.is_ascii_hexdigit()) && n.parse::<usize>().is_ok(), "{file}");
    }
    assert!(!state.path().join("escaped-job.json").exists() && !state.path().parent().unwrap().join("escaped-job.json").exists());
    let pending = service.pending_jobs();
    assert_eq!(pending.len(), 2);
    assert!(pending.iter().all(|p| p.id == "../../../escaped-job"));
    let mut agents: Vec<&str> = pending.iter().map(|p| p.agent.as_str()).collect();
    agents.sort();
    assert_eq!(agents, ["main", "ops"]);
    assert_eq!(service.run_jobs(Duration::from_secs(5)), 2);
    assert!(service.pending_jobs().is_empty());
    assert_eq!(std::fs::read_dir(&jobs_dir).unwrap().count(), 0);
    let expected = "job ../../../escaped-job (hostile) failed and is dropped: the tool answered something invalid: hostile guest: unreadable job state";
    assert_eq!(lines.lock().unwrap().iter().filter(|l| *l == expected).count(), 2, "{:?}", lines.lock().unwrap());
}

const OWN: &str = "agent:main:main";
const CHILD: &str = "agent:main:subagent:6f1e2d3c-4b5a-4978-8a6b-5c4d3e2f1a0b";
const CHILD_SESSION_ID: &str = "e7f8a9b0-c1d2-4e3f-8a4b-5c6d7e8f9a0b";
const DISCORD: &str = "agent:main:discord:channel:1187421193829244938";
const OPS_SLACK: &str = "agent:ops:slack:channel:c07abcdef12";

fn spy(service: &Service, who: &Caller, args: Value) -> Value {
    serde_json::from_str(&service.call(who, "spy", &args.to_string()).unwrap()).unwrap()
}

#[test]
fn a_sandboxed_caller_cannot_reach_outside_its_spawned_tree_in_any_spelling() {
    let (service, _state, lines) = hostile_service();
    let me = caller(OWN, true);
    // A run in another agent's session, started by its owner.
    let ops_run = service
        .gateway()
        .agent(&ports::AgentParams {
            message: "hello".into(),
            session_key: Some("agent:ops:main".into()),
            idempotency_key: "ops-run-1".into(),
            ..Default::default()
        })
        .unwrap()
        .run_id
        .unwrap();

    // The cases are one table, run by both hosts (one copy of every case).
    let table: Value = serde_json::from_str(include_str!("fixtures/n15-cases.json")).expect("tests/fixtures/n15-cases.json");
    assert_eq!(table["own"], OWN);
    let fill = |value: &Value| -> Value {
        let text = value.to_string().replace("{opsRun}", &ops_run).replace("{childSessionId}", CHILD_SESSION_ID).replace("{child}", CHILD);
        serde_json::from_str(&text).unwrap()
    };
    let refused = table["refused"].as_array().unwrap();
    assert!(refused.len() >= 30, "the table holds the refused cases");
    for case in refused {
        let case = fill(case);
        let (args, method, what) = (&case["args"], case["method"].as_str().unwrap(), case["what"].as_str().unwrap());
        let answer = spy(&service, &me, args.clone());
        assert_eq!(answer, json!({"error": format!("forbidden: {what} is not visible from this sandboxed agent session")}), "{args}");
        let line = format!("N15: refused {method}: {what} for sandboxed session {OWN}");
        assert_eq!(lines.lock().unwrap().last(), Some(&line), "{args}");
    }
    let logged = lines.lock().unwrap().iter().filter(|l| l.starts_with("N15: refused ")).count();
    assert_eq!(logged, refused.len());

    // Nothing outside the tree was changed.
    let gateway = service.gateway();
    assert!(gateway.find(OPS_SLACK).unwrap().is_some() && gateway.find(DISCORD).unwrap().is_some());
    assert!(gateway.find("agent:main:planted").unwrap().is_none());
    assert_eq!(gateway.find("agent:ops:main").unwrap().unwrap().entry.get("label"), None);
    assert!(gateway.deliveries().unwrap().is_empty());

    // Its own session (in its spellings) and the sub-agent it spawned are allowed.
    for case in table["allowed"].as_array().unwrap() {
        let case = fill(case);
        let (args, expected) = (&case["args"], &case["expect"]);
        let mut answer = spy(&service, &me, args.clone());
        if args["method"] == "chat-history" {
            // How many messages there are does not matter here, only that they were read.
            assert!(answer["ok"].is_u64(), "{args}: {answer}");
            answer = json!({"ok": 0});
        }
        assert_eq!(&answer, expected, "{args}");
    }
    // The gateway also finds the Discord channel session; the guard filters it out (what
    // the gateway finds is this host's sample, so the case is not in the shared table).
    assert_eq!(spy(&service, &me, json!({"method": "sessions-list", "search": "discord"})), json!({"ok": [CHILD]}));
    // A new sub-agent spawned from its own session joins its tree.
    let spawned = "agent:main:subagent:99999999-8888-4777-8666-555555555555";
    let run = spy(&service, &me, json!({"method": "agent", "key": spawned, "spawnedBy": OWN, "label": "child-2"}));
    assert!(run["ok"].is_string(), "{run}");
    assert_eq!(spy(&service, &me, json!({"method": "chat-history", "key": spawned}))["ok"].as_u64().map(|_| ()), Some(()));
    let listed = spy(&service, &me, json!({"method": "sessions-list"}));
    let mut keys: Vec<&str> = listed["ok"].as_array().unwrap().iter().map(|k| k.as_str().unwrap()).collect();
    keys.sort();
    assert_eq!(keys, [OWN, CHILD, spawned]);
    assert_eq!(lines.lock().unwrap().iter().filter(|l| l.starts_with("N15: refused ")).count(), refused.len());
    assert_eq!(gateway.deliveries().unwrap().len(), 1);
    // An unrestricted caller of the same agent sees everything (the guard is per caller).
    let everything = spy(&service, &caller(OWN, false), json!({"method": "sessions-list"}));
    let all = everything["ok"].as_array().unwrap();
    assert!(all.contains(&json!(OPS_SLACK)) && all.contains(&json!(DISCORD)) && all.contains(&json!(spawned)), "{everything}");
    service.wait_for_runs(Duration::from_secs(10));
}

/// The import names of a component, with WASI patch versions as `x`.
fn imports(component: &[u8]) -> Vec<String> {
    let engine = runtime().engine();
    let component = wasmtime::component::Component::new(engine, component).unwrap();
    let version = regex_lite::Regex::new(r"@0\.2\.\d+$").unwrap();
    let mut names: Vec<String> =
        component.component_type().imports(engine).map(|(name, _)| version.replace(name, "@0.2.x").into_owned()).collect();
    names.sort();
    names
}

#[test]
fn the_component_imports_nothing_but_the_gateway_the_host_services_and_inert_wasi() {
    // `types` holds records only: importing it grants nothing.
    let mut expected: Vec<String> =
        ["openclaw:session-tools/types@0.2.x", "openclaw:session-tools/gateway@0.2.x", "openclaw:session-tools/host@0.2.x"]
            .into_iter()
            .map(String::from)
            .chain(["poll", "error", "streams"].map(|i| format!("wasi:io/{i}@0.2.x")))
            .chain(
                [
                    "environment",
                    "exit",
                    "stdin",
                    "stdout",
                    "stderr",
                    "terminal-input",
                    "terminal-output",
                    "terminal-stdin",
                    "terminal-stdout",
                    "terminal-stderr",
                ]
                .map(|i| format!("wasi:cli/{i}@0.2.x")),
            )
            .collect();
    expected.sort();
    assert_eq!(imports(session_tools_host::COMPONENT), expected, "the real component");
    assert_eq!(imports(hostile()), expected, "the hostile component");
}

#[test]
fn a_component_that_imports_the_file_system_is_refused_at_load() {
    let bytes = std::fs::read(env!("HOSTILE_GUEST_FS_WASM")).unwrap();
    let names = imports(&bytes);
    assert!(names.contains(&"wasi:filesystem/preopens@0.2.x".to_string()), "{names:?}");
    let error = match Runtime::new(&bytes, &small_engine(), &limits()) {
        Ok(_) => panic!("a component importing wasi:filesystem was loaded"),
        Err(e) => {
            // The library's error says what failed; its `source` chain says why.
            let mut text = e.to_string();
            let mut cause = std::error::Error::source(&e);
            while let Some(c) = cause {
                text = format!("{text}: {c}");
                cause = c.source();
            }
            text
        }
    };
    assert_eq!(
        error,
        "the component cannot be loaded: component imports instance `wasi:filesystem/types@0.2.6`, but a matching implementation was not found in the linker: \
         instance export `descriptor` has the wrong type: resource implementation is missing"
    );
}

// Gaps the hostile guest found in the first host, kept closed.

#[test]
fn a_sandboxed_caller_never_gets_an_instance_that_served_an_unrestricted_caller() {
    let (service, _state, _lines) = hostile_service();
    // An unrestricted session of agent main reads another agent's transcript; the guest keeps it.
    let read = spy(&service, &caller(DISCORD, false), json!({"method": "chat-history", "key": OPS_SLACK}));
    assert!(read["ok"].is_u64(), "{read}");
    // A sandboxed session of the same agent must not be served by that instance.
    assert_eq!(service.call(&caller(OWN, true), "leak", "{}").unwrap(), "null");
}

#[test]
fn a_sandboxed_caller_cannot_spawn_into_an_agent_it_may_not_spawn_for() {
    let (service, _state, lines) = hostile_service();
    let key = "agent:ops:subagent:12345678-1234-4234-8234-123456789abc";
    let answer = spy(&service, &caller(OWN, true), json!({"method": "agent", "key": key, "spawnedBy": OWN}));
    assert_eq!(answer, json!({"error": format!("forbidden: session {key} is not visible from this sandboxed agent session")}));
    assert_eq!(lines.lock().unwrap().last(), Some(&format!("N15: refused agent: session {key} for sandboxed session {OWN}")));
    assert!(service.gateway().find(key).unwrap().is_none());
    service.wait_for_runs(Duration::from_secs(10));
}

#[test]
fn a_sandboxed_caller_may_spawn_into_the_agents_its_allow_list_names() {
    let state = sample_copy();
    let config_path = state.path().join("moltbot.json");
    let mut config: Value = serde_json::from_str(&std::fs::read_to_string(&config_path).unwrap()).unwrap();
    config["agents"]["list"][0]["subagents"] = json!({"allowAgents": ["ops"]});
    std::fs::write(&config_path, config.to_string()).unwrap();
    let (service, lines) = hostile_service_in(state.path(), small_engine());
    let me = caller(OWN, true);
    let ops_child = "agent:ops:subagent:12345678-1234-4234-8234-123456789abc";
    let run = spy(&service, &me, json!({"method": "agent", "key": ops_child, "spawnedBy": OWN}));
    assert!(run["ok"].is_string(), "{run}");
    // It joins the caller's tree; an agent the list does not name stays refused.
    assert!(spy(&service, &me, json!({"method": "chat-history", "key": ops_child}))["ok"].is_u64());
    let other = "agent:research:subagent:12345678-1234-4234-8234-123456789abd";
    let refused = spy(&service, &me, json!({"method": "agent", "key": other, "spawnedBy": OWN}));
    assert_eq!(refused, json!({"error": format!("forbidden: session {other} is not visible from this sandboxed agent session")}));
    assert_eq!(lines.lock().unwrap().iter().filter(|l| l.starts_with("N15: refused ")).count(), 1);
    service.wait_for_runs(Duration::from_secs(10));
}

#[test]
fn the_host_restricts_sandboxed_callers_the_guest_would_not() {
    let (service, _state, lines) = hostile_service();
    // No session at all: the guard has nothing to show.
    let nobody = Caller { sandboxed: true, ..Caller::default() };
    assert_eq!(spy(&service, &nobody, json!({"method": "sessions-list"})), json!({"ok": []}));
    assert_eq!(
        spy(&service, &nobody, json!({"method": "chat-history", "key": OWN})),
        json!({"error": format!("forbidden: session {OWN} is not visible from this sandboxed agent session")})
    );
    assert_eq!(lines.lock().unwrap().last().unwrap(), &format!("N15: refused chat.history: session {OWN} for sandboxed session (none)"));
    // A sandboxed sub-agent session (unrestricted in the reference, ref §2.3) sees its own tree only.
    let child = caller(CHILD, true);
    assert_eq!(spy(&service, &child, json!({"method": "sessions-list"})), json!({"ok": [CHILD]}));
    assert_eq!(
        spy(&service, &child, json!({"method": "chat-history", "key": OWN})),
        json!({"error": format!("forbidden: session {OWN} is not visible from this sandboxed agent session")})
    );
    // A caller outside the sandbox is not restricted.
    assert!(spy(&service, &caller(OWN, false), json!({"method": "sessions-list"}))["ok"].as_array().unwrap().len() > 2);
}

#[test]
fn a_guest_that_re_enters_the_host_while_the_host_answers_it_is_stopped() {
    for (import, resolves) in [("log", 1), ("resolve", 1)] {
        let (mut guest, stub, recorder) = sandbox(limits());
        assert_ok(&mut guest, 1);
        // The guest's cabi_realloc calls an import while the host places the resolve answer
        // in guest memory: the canonical ABI forbids leaving the instance there.
        let error = call(&mut guest, "reenter", json!({"import": import})).unwrap_err();
        assert_eq!(error, CallError::Trap("wasm trap: cannot leave component instance (while calling reenter)".into()), "{import}");
        assert!(guest.is_broken(), "{import}");
        // The import never ran: no log line, no second gateway call.
        assert!(!recorder.lines().iter().any(|l| l.contains("re-enters")), "{import}: {:?}", recorder.lines());
        assert_eq!(stub.resolves.load(Ordering::Relaxed), resolves, "{import}");
        // Another agent's instance is unaffected.
        let (mut other, _, _) = sandbox(limits());
        assert_ok(&mut other, 1);
    }
}

#[test]
fn many_callers_cannot_exhaust_the_instance_slots() {
    // 8 slots: the send-policy instance takes one, idle instances at most 6.
    let state = sample_copy();
    let (service, _lines) = hostile_service_in(state.path(), engine_options().with_pool_instances(8));
    // 40 sandboxed sessions, each with a pool of its own, twice round.
    for round in 1..=2 {
        for i in 0..40 {
            let who = caller(&format!("agent:main:discord:channel:{i}"), true);
            let answer: Value = serde_json::from_str(&service.call(&who, "ok", "{}").unwrap()).unwrap();
            assert_eq!(answer["ok"], json!(true), "round {round}, caller {i}");
            assert!(service.idle_instances() <= 6, "{}", service.idle_instances());
        }
    }
    assert_eq!(service.idle_instances(), 6);
}

#[test]
fn a_send_policy_instance_that_traps_is_replaced() {
    let (service, _state, _lines) = hostile_service();
    let gateway = service.gateway();
    let error = gateway.chat_send(OWN, "trap").unwrap_err();
    assert!(error.message.starts_with("the tool crashed: wasm trap: wasm `unreachable` instruction executed"), "{}", error.message);
    // The next message gets a fresh policy instance: it is run as a prompt, as usual.
    let (answer, run) = gateway.chat_send(OWN, "hello").unwrap();
    assert!(run.is_some(), "{answer}");
    service.wait_for_runs(Duration::from_secs(10));
}

/// A gateway whose `sessions.resolve` panics: a bug in the host while it answers an import.
struct Panicker;

impl Gateway for Panicker {
    fn sessions_list(&self, _: &ports::ListParams) -> GatewayResult<ports::SessionList> {
        nothing()
    }
    fn sessions_resolve(&self, _: &ports::ResolveParams) -> GatewayResult<String> {
        panic!("the host's gateway panics on purpose")
    }
    fn chat_histories(&self, p: &[ports::HistoryParams]) -> Vec<GatewayResult<ports::History>> {
        one_by_one(self, p)
    }
    fn chat_history(&self, _: &ports::HistoryParams) -> GatewayResult<ports::History> {
        nothing()
    }
    fn agent(&self, _: &ports::AgentParams) -> GatewayResult<ports::AgentAccepted> {
        nothing()
    }
    fn agent_wait(&self, _: &ports::WaitParams) -> GatewayResult<ports::WaitResult> {
        nothing()
    }
    fn send(&self, _: &ports::SendParams) -> GatewayResult<()> {
        nothing()
    }
    fn sessions_patch(&self, _: &ports::PatchParams) -> GatewayResult<()> {
        nothing()
    }
    fn sessions_delete(&self, _: &ports::DeleteParams) -> GatewayResult<()> {
        nothing()
    }
}

#[test]
fn a_host_panic_while_answering_an_import_is_a_tool_error_that_discards_the_instance() {
    let recorder = Arc::new(Recorder::default());
    let setup = AgentSetup::new("hostile", Arc::new(Panicker), recorder.clone(), GuestConfig::empty(), "/nonexistent", limits());
    let mut sandbox = hostile_runtime().instantiate(&setup).unwrap();
    let error = call(&mut sandbox, "spy", json!({"method": "sessions-resolve", "key": "main"})).unwrap_err();
    assert_eq!(
        error,
        CallError::HostFault(
            "the host failed while answering gateway.sessions-resolve: the host's gateway panics on purpose (while calling spy)".into()
        )
    );
    assert!(error.discards_instance() && sandbox.is_broken());
    assert!(
        recorder.lines().iter().any(|l| l.contains("the host failed while answering gateway.sessions-resolve")),
        "{:?}",
        recorder.lines()
    );
    // The process goes on: a new instance answers.
    let (mut fresh, _, _) = self::sandbox(limits());
    assert_ok(&mut fresh, 1);
}

#[test]
fn a_nul_in_a_guest_chosen_run_id_does_not_crash_the_host() {
    let (service, _state, _) = hostile_service();
    let answer: Value = serde_json::from_str(&service.call(&caller("agent:main:main", false), "nul-run", "{}").unwrap()).unwrap();
    assert_eq!(answer, json!({"ok": "run\u{0}with a NUL"}), "the run is accepted");
    assert!(service.wait_for_runs(Duration::from_secs(10)));
}

/// A hostile service with small bounds on background work.
fn bounded_service(limits: Limits) -> (Served, tempfile::TempDir, Arc<Mutex<Vec<String>>>) {
    let state = sample_copy();
    let (log, lines) = log_sink();
    let served =
        Served::open(state.path(), |g| g, |s| s.with_component(hostile()).with_engine(small_engine()).with_limits(limits).with_log(log))
            .expect("opening the service");
    (served, state, lines)
}

fn job_files(state: &std::path::Path) -> Vec<Value> {
    let dir = state.join("session-tools/jobs");
    let Ok(entries) = std::fs::read_dir(&dir) else { return Vec::new() };
    entries
        .flatten()
        .filter(|e| e.path().extension().is_some_and(|x| x == "json"))
        .map(|e| serde_json::from_slice(&std::fs::read(e.path()).unwrap()).unwrap())
        .collect()
}

#[test]
fn background_work_a_guest_starts_is_bounded() {
    let mut limits = limits();
    (limits.max_jobs_per_call, limits.max_steps_per_job, limits.max_pending_jobs) = (3, 5, 4);
    limits.max_wait = Duration::from_secs(1);
    let main = caller("agent:main:main", false);

    // At most 3 jobs a call; every wait clamped.
    let (service, state, lines) = bounded_service(limits.clone());
    service.call(&main, "jobs", r#"{"count": 10, "wake": "at", "value": 2000000000000000}"#).unwrap();
    let jobs = job_files(state.path());
    assert_eq!(jobs.len(), 3, "{jobs:?}");
    let horizon = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_millis() as u64 + 31 * 86_400_000;
    assert!(jobs.iter().all(|j| j["wake"]["at"].as_u64().unwrap() < horizon), "{jobs:?}");
    assert!(lines.lock().unwrap().iter().any(|l| l.contains("7 background jobs past the limit of 3 a call are dropped")));
    service.call(&main, "jobs", &format!(r#"{{"count": 3, "wake": "wait", "value": {}}}"#, u64::MAX)).unwrap();
    let jobs = job_files(state.path());
    assert_eq!(jobs.len(), 4, "at most 4 pending for the agent");
    let waits: Vec<u64> = jobs.iter().filter_map(|j| j["wake"]["wait"]["timeoutMs"].as_u64()).collect();
    assert_eq!(waits, [1000], "{jobs:?}");
    assert!(lines.lock().unwrap().iter().any(|l| l.contains("refused: 4 jobs are pending")));
    drop(service);

    // A job that continues itself and starts one more at every step ends after 5 steps.
    let (service, state, lines) = bounded_service(limits);
    service.call(&main, "jobs", r#"{"count": 1, "chain": true}"#).unwrap();
    let started = Instant::now();
    let steps = service.run_jobs(Duration::from_secs(20));
    assert!(started.elapsed() < Duration::from_secs(10), "{:?}", started.elapsed());
    assert!(job_files(state.path()).is_empty(), "the chain ended");
    assert!((6..=40).contains(&steps), "{steps} steps");
    assert!(lines.lock().unwrap().iter().any(|l| l.contains("reached its 5 steps and is dropped")), "{:?}", lines.lock().unwrap());
}

#[test]
fn a_sandboxed_caller_may_create_and_configure_its_new_child_and_patch_nothing_else() {
    let (service, state, lines) = hostile_service();
    let me = caller(OWN, true);
    let child = "agent:main:subagent:0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d";
    // A spawn's sequence in one call: configure the new child, then start it (as the reference does).
    let steps = json!({"steps": [
        {"method": "sessions-patch", "key": child, "model": "anthropic/claude-opus-4-5"},
        {"method": "agent", "key": child, "spawnedBy": OWN, "lane": "subagent"},
    ]});
    let answers: Value = serde_json::from_str(&service.call(&me, "sequence", &steps.to_string()).unwrap()).unwrap();
    assert_eq!(answers[0], json!({"ok": null}), "{answers}");
    assert!(answers[1]["ok"].is_string(), "{answers}");
    service.wait_for_runs(Duration::from_secs(10));
    // From then on it is in the caller's tree.
    assert!(spy(&service, &me, json!({"method": "chat-history", "key": child}))["ok"].is_u64());

    // The same path reaches nothing else: an existing session outside the tree, a key that
    // is not a sub-agent's, a sub-agent key in an agent the caller may not spawn for, and
    // an existing sub-agent session of another tree.
    let telegram = caller("agent:main:telegram:group:-1001234567890", true);
    let store = state.path().join("agents/main/sessions/sessions.json");
    let before = std::fs::read_to_string(&store).unwrap();
    for (who, key) in [
        (&me, DISCORD),
        (&me, "agent:main:planted"),
        (&me, "agent:ops:subagent:0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4e"),
        (&me, " AGENT:main:discord:channel:1187421193829244938 "),
        (&telegram, CHILD),
    ] {
        let answer = spy(&service, who, json!({"method": "sessions-patch", "key": key, "model": "anthropic/x"}));
        assert_eq!(
            answer,
            json!({"error": format!("forbidden: session {} is not visible from this sandboxed agent session", key.trim())}),
            "{key}"
        );
    }
    assert_eq!(std::fs::read_to_string(&store).unwrap(), before, "nothing refused was written");
    assert_eq!(lines.lock().unwrap().iter().filter(|l| l.starts_with("N15: refused sessions.patch")).count(), 5);
}

/// A planted value as it would appear in JSON text (a string's escaped contents, a number).
fn planted_text(value: &Value) -> String {
    let text = value.to_string();
    text.strip_prefix('"').and_then(|t| t.strip_suffix('"')).map_or(text.clone(), str::to_string)
}

#[test]
fn the_component_is_given_none_of_the_configs_secrets() {
    // N16: a config with secrets planted everywhere the component does not read, and in
    // fields it does not read under paths it reads (tests/fixtures/planted-secrets.json).
    let fixture: Value =
        serde_json::from_str(&std::fs::read_to_string(root().join("tests/fixtures/planted-secrets.json")).unwrap()).unwrap();
    let planted = fixture["planted"].as_array().unwrap();
    assert!(planted.len() >= 39, "{} planted", planted.len());
    let config = fixture["config"].to_string();
    let state = sample_copy();
    std::fs::write(state.path().join("openclaw.json"), &config).unwrap();
    let (service, _lines) = hostile_service_in(state.path(), small_engine());
    for who in [caller(OWN, false), caller(OWN, true), caller("agent:ops:main", false)] {
        let given: Value = serde_json::from_str(&service.call(&who, "config", "{}").unwrap()).unwrap();
        let given = given["config"].as_str().unwrap();
        for secret in planted {
            let text = planted_text(secret);
            assert!(config.contains(&text), "the fixture plants {text}");
            assert!(!given.contains(&text), "{text} reached the component: {given}");
        }
        // And it gets what it reads, as it is.
        assert_eq!(serde_json::from_str::<Value>(given).unwrap(), fixture["expected"]);
    }
}

/// A job of the hostile guest that waits for the end of a run.
fn wait_job(service: &Served, who: &Caller, run: &str) {
    let args = json!({"count": 1, "wake": "wait", "value": 1000, "runId": run});
    assert_eq!(service.call(who, "jobs", &args.to_string()).unwrap(), r#"{"jobs":1}"#);
}

#[test]
fn a_sandboxed_caller_waits_only_for_runs_it_can_show_are_its_own() {
    let state = sample_copy();
    let (service, lines) = hostile_service_in(state.path(), small_engine());
    let me = caller(OWN, true);
    let refused = |run: &str| json!({"error": format!("forbidden: run {run} is not visible from this sandboxed agent session")});
    let ops_run = service
        .gateway()
        .agent(&ports::AgentParams {
            message: "hi".into(),
            session_key: Some("agent:ops:main".into()),
            idempotency_key: "ops-run-1".into(),
            ..Default::default()
        })
        .unwrap()
        .run_id
        .unwrap();
    // A run of another session and a run nobody started get the same answer (N15).
    for run in [ops_run.as_str(), "no-such-run", ""] {
        assert_eq!(spy(&service, &me, json!({"method": "agent-wait", "runId": run})), refused(run), "{run}");
        assert_eq!(lines.lock().unwrap().last(), Some(&format!("N15: refused agent.wait: run {run} for sandboxed session {OWN}")));
    }
    // Its own run, started in an earlier call (another guard): the gateway says whose it is.
    let mine = spy(&service, &me, json!({"method": "agent", "key": OWN}))["ok"].as_str().unwrap().to_string();
    let waited = spy(&service, &me, json!({"method": "agent-wait", "runId": mine, "timeoutMs": 5000}));
    assert!(waited["ok"].is_string(), "{waited}");
    // Jobs that wait for its run and for another session's, resumed by the next process
    // over the same state: the run registry still shows whose run is whose.
    wait_job(&service, &me, &mine);
    wait_job(&service, &me, &ops_run);
    assert!(service.wait_for_runs(Duration::from_secs(10)));
    drop(service);
    let (service, lines) = hostile_service_in(state.path(), small_engine());
    assert_eq!(service.pending_jobs().len(), 2);
    assert_eq!(service.run_jobs(Duration::from_secs(10)), 2);
    assert!(service.pending_jobs().is_empty());
    let refusals: Vec<String> = lines.lock().unwrap().iter().filter(|l| l.starts_with("N15: refused ")).cloned().collect();
    assert_eq!(refusals, [format!("N15: refused agent.wait: run {ops_run} for sandboxed session {OWN}")]);
}

#[test]
fn a_sandboxed_caller_cannot_make_another_sessions_run_its_own() {
    let (service, _state, lines) = hostile_service();
    let me = caller(OWN, true);
    let gateway = service.gateway();
    let ops_run = gateway
        .agent(&ports::AgentParams {
            message: "hi".into(),
            session_key: Some("agent:ops:main".into()),
            idempotency_key: "ops-run-1".into(),
            ..Default::default()
        })
        .unwrap()
        .run_id
        .unwrap();
    // A run id another session's run has is refused as a key, in any session of its own.
    for key in [OWN, CHILD] {
        let answer = spy(&service, &me, json!({"method": "agent", "key": key, "idempotencyKey": ops_run}));
        assert_eq!(answer, json!({"error": format!("forbidden: run {ops_run} is not visible from this sandboxed agent session")}));
    }
    assert_eq!(lines.lock().unwrap().last(), Some(&format!("N15: refused agent: run {ops_run} for sandboxed session {OWN}")));
    assert_eq!(gateway.run_session(&ops_run).as_deref(), Some("agent:ops:main"), "the run keeps its session");
    // Any other key is replaced by one of the host's: the guest names no run.
    let run = spy(&service, &me, json!({"method": "agent", "key": OWN, "idempotencyKey": "chosen-by-the-guest"}))["ok"]
        .as_str()
        .unwrap()
        .to_string();
    assert_ne!(run, "chosen-by-the-guest");
    assert!(uuid::Uuid::parse_str(&run).is_ok(), "{run}");
    assert_eq!(gateway.run_session(&run).as_deref(), Some(OWN));
    assert_eq!(gateway.run_session("chosen-by-the-guest"), None);
    assert!(service.wait_for_runs(Duration::from_secs(10)));
}

#[test]
fn what_does_not_exist_and_what_is_not_visible_look_the_same() {
    let (service, _state, lines) = hostile_service();
    let me = caller(OWN, true);
    // (exists outside the tree, does not exist): one answer each, the name asked for in it.
    #[rustfmt::skip]
    let pairs = [
        (json!({"method": "sessions-resolve", "label": "incidents"}), json!({"method": "sessions-resolve", "label": "no-such-label"})),
        (json!({"method": "sessions-resolve", "label": "incidents", "agentId": "ops"}), json!({"method": "sessions-resolve", "label": "no-such-label", "agentId": "ops"})),
        (json!({"method": "sessions-resolve", "sessionId": "8c3d9e1f-2a4b-4c6d-8e0f-3a5b7c9d1e2f"}), json!({"method": "sessions-resolve", "sessionId": "00000000-0000-4000-8000-000000000000"})),
        (json!({"method": "sessions-resolve", "key": "agent:ops:main"}), json!({"method": "sessions-resolve", "key": "agent:ops:no-such-session"})),
        (json!({"method": "chat-history", "key": OPS_SLACK}), json!({"method": "chat-history", "key": "agent:ops:slack:channel:no-such-channel"})),
        (json!({"method": "sessions-delete", "key": OPS_SLACK}), json!({"method": "sessions-delete", "key": "agent:ops:slack:channel:no-such-channel"})),
    ];
    let shape = |args: &Value, answer: &Value| {
        let asked = ["key", "sessionId", "label"].iter().find_map(|k| args[k].as_str()).unwrap();
        answer["error"].as_str().map(|e| e.replacen(asked, "<asked>", 1))
    };
    for (there, missing) in &pairs {
        let (a, b) = (spy(&service, &me, there.clone()), spy(&service, &me, missing.clone()));
        assert!(a["error"].as_str().is_some_and(|e| e.starts_with("forbidden: ")), "{there}: {a}");
        assert_eq!(shape(there, &a), shape(missing, &b), "{there} / {missing}");
    }
    assert_eq!(lines.lock().unwrap().iter().filter(|l| l.starts_with("N15: refused ")).count(), 2 * pairs.len());
    // What is visible still resolves.
    assert_eq!(spy(&service, &me, json!({"method": "sessions-resolve", "label": "pricing-research"})), json!({"ok": CHILD}));
}

/// A running gateway as OpenClaw's behaves where it matters here: the run id is the
/// idempotency key, and a key it knows answers that run, whichever session asks. It knows
/// one run this process never saw (`elsewhere-run`, of agent:ops:main).
fn deduplicating_gateway() -> FakeGateway {
    let runs = Mutex::new(HashMap::from([("elsewhere-run".to_string(), "agent:ops:main".to_string())]));
    FakeGateway::start(move |call| {
        let p = &call.params;
        match call.method.as_str() {
            "agent" => {
                let key = p["idempotencyKey"].as_str().unwrap_or_default().to_string();
                runs.lock().unwrap().entry(key.clone()).or_insert_with(|| p["sessionKey"].as_str().unwrap_or("main").to_string());
                Reply::Ok(json!({"runId": key, "status": "accepted", "acceptedAt": 1}))
            }
            "agent.wait" => Reply::Ok(json!({"runId": p["runId"], "status": "ok", "startedAt": 1, "endedAt": 2})),
            "sessions.list" => Reply::Ok(json!({"path": "(multiple)", "count": 0, "sessions": []})),
            _ => standard(call).unwrap_or_else(|| Reply::error("not scripted")),
        }
    })
}

#[test]
fn over_a_live_gateway_a_sandboxed_caller_cannot_take_a_run_of_another_session() {
    let fake = deduplicating_gateway();
    let live = Arc::new(
        LiveGateway::builder(fake.url())
            .with_token("t")
            .with_connect_timeout(Duration::from_secs(5))
            .with_request_timeout(Duration::from_secs(5))
            .open()
            .unwrap_or_else(|e| panic!("opening the fake gateway: {e}")),
    );
    let (log, lines) = log_sink();
    let service = ServiceBuilder::over_live(&live)
        .with_component(hostile())
        .with_engine(small_engine())
        .with_limits(limits())
        .with_log(log)
        .build()
        .unwrap();
    let me = caller(OWN, true);
    let refused = |run: &str| json!({"error": format!("forbidden: run {run} is not visible from this sandboxed agent session")});

    // A run started elsewhere (this process never saw it): the guest's key for it never
    // reaches the gateway, so the gateway's answer cannot make it the caller's.
    let run =
        spy(&service, &me, json!({"method": "agent", "key": OWN, "idempotencyKey": "elsewhere-run"}))["ok"].as_str().unwrap().to_string();
    assert_ne!(run, "elsewhere-run");
    let sent: Vec<String> = fake.calls_of("agent").iter().map(|c| c.params["idempotencyKey"].as_str().unwrap().to_string()).collect();
    assert_eq!(sent, std::slice::from_ref(&run));
    assert_eq!(spy(&service, &me, json!({"method": "agent-wait", "runId": "elsewhere-run"})), refused("elsewhere-run"));
    assert_eq!(live.run_session("elsewhere-run"), None);
    // Its own run: waited for.
    assert_eq!(spy(&service, &me, json!({"method": "agent-wait", "runId": run})), json!({"ok": "ok"}));

    // A run another session started through this host: its key is refused, and no later
    // `agent` with that key (restricted or not) gives it another session.
    let ops = ports::AgentParams {
        message: "hi".into(),
        session_key: Some("agent:ops:main".into()),
        idempotency_key: "ops-run".into(),
        ..Default::default()
    };
    assert_eq!(live.agent(&ops).unwrap().run_id.as_deref(), Some("ops-run"));
    let answer = spy(&service, &me, json!({"method": "agent", "key": OWN, "idempotencyKey": "ops-run"}));
    assert_eq!(answer, refused("ops-run"));
    live.agent(&ports::AgentParams { session_key: Some(OWN.into()), ..ops.clone() }).unwrap();
    assert_eq!(live.run_session("ops-run").as_deref(), Some("agent:ops:main"), "first writer wins");
    assert_eq!(spy(&service, &me, json!({"method": "agent-wait", "runId": "ops-run"})), refused("ops-run"));
    // A run nobody started: the same answer.
    assert_eq!(spy(&service, &me, json!({"method": "agent-wait", "runId": "never-started"})), refused("never-started"));
    assert_eq!(lines.lock().unwrap().iter().filter(|l| l.starts_with("N15: refused ")).count(), 4);
    assert_eq!(fake.calls_of("agent.wait").len(), 1, "only its own run was asked about");
}

#[test]
fn over_a_scripted_gateway_a_sandboxed_caller_waits_only_for_its_own_runs() {
    // A plain mock without a tree; its resolve answers as scripted (else nothing).
    let script = json!({"responses": [
        {"method": "sessions.resolve", "params": {"label": "incidents"}, "result": {"ok": true, "key": OPS_SLACK}},
        {"method": "sessions.resolve", "params": {"label": "gone"}, "error": "No session found with label: gone"},
    ]});
    let gateway = Arc::new(ScriptedGateway::from_json(Some(&script), 0).unwrap());
    let (log, lines) = log_sink();
    let service = Service::builder(gateway.clone())
        .with_component(hostile())
        .with_engine(small_engine())
        .with_limits(limits())
        .with_log(log)
        .build()
        .unwrap();
    let me = caller(OWN, true);
    let refused = |what: &str| json!({"error": format!("forbidden: {what} is not visible from this sandboxed agent session")});
    assert_eq!(spy(&service, &me, json!({"method": "agent-wait", "runId": "run-1"})), refused("run run-1"), "unknown");
    let ops = spy(&service, &caller("agent:ops:main", false), json!({"method": "agent", "key": "agent:ops:main"}));
    assert_eq!(ops, json!({"ok": "run-1"}));
    assert_eq!(spy(&service, &me, json!({"method": "agent-wait", "runId": "run-1"})), refused("run run-1"), "another session's");
    assert_eq!(spy(&service, &me, json!({"method": "agent", "key": OWN, "idempotencyKey": "run-1"})), refused("run run-1"));
    assert_eq!(gateway.run_session("run-1").as_deref(), Some("agent:ops:main"));
    let mine = spy(&service, &me, json!({"method": "agent", "key": OWN}));
    assert_eq!(mine, json!({"ok": "run-2"}));
    assert_eq!(spy(&service, &me, json!({"method": "agent-wait", "runId": "run-2"})), json!({"ok": "ok"}));
    // Found outside the tree, not found, nothing answered: one answer.
    for label in ["incidents", "gone", "never-scripted"] {
        assert_eq!(
            spy(&service, &me, json!({"method": "sessions-resolve", "label": label})),
            refused(&format!("label {label}")),
            "{label}"
        );
    }
    assert_eq!(lines.lock().unwrap().iter().filter(|l| l.starts_with("N15: refused ")).count(), 6);
}

/// A copy of the sample state whose config sets OpenClaw 2026.9's `tools.sessions.visibility`
/// (E3) and lets agents reach each other (the documents' rule that E3 must not widen).
fn narrowed_state(visibility: &str) -> tempfile::TempDir {
    let state = sample_copy();
    let path = state.path().join("moltbot.json");
    let mut config: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    config["tools"] = json!({"sessions": {"visibility": visibility}, "agentToAgent": {"enabled": true, "allow": ["*"]}});
    std::fs::write(&path, config.to_string()).unwrap();
    state
}

fn tool(service: &Service, who: &Caller, name: &str, args: Value) -> Value {
    serde_json::from_str(&service.call(who, name, &args.to_string()).unwrap()).unwrap()
}

#[test]
fn the_visibility_setting_of_2026_9_narrows_the_tools_and_the_guard_for_every_caller() {
    // The tools (the real component): `tree` from a channel session keeps its own tree,
    // from the main session its agent, never another agent even where a2a allows it.
    let state = narrowed_state("tree");
    let service = Served::open(state.path(), |g| g, |s| s).unwrap();
    let keys = |who: &Caller| -> Vec<String> {
        let listed = tool(&service, who, "sessions_list", json!({}));
        listed["sessions"].as_array().unwrap_or_else(|| panic!("{listed}")).iter().map(|s| s["key"].as_str().unwrap().to_string()).collect()
    };
    let from_main = keys(&caller(OWN, false));
    assert!(from_main.contains(&CHILD.to_string()) && from_main.contains(&DISCORD.to_string()), "{from_main:?}");
    assert!(!from_main.iter().any(|k| k.starts_with("agent:ops:")), "no other agent under tree: {from_main:?}");
    assert_eq!(keys(&caller(DISCORD, false)), [DISCORD], "another session's tree is itself and what it spawned");
    let history = tool(&service, &caller(DISCORD, false), "sessions_history", json!({"sessionKey": OWN}));
    assert_eq!(
        history,
        json!({"status": "forbidden", "error": "Session history visibility is restricted to the current session tree (tools.sessions.visibility=tree)."})
    );
    let sent =
        tool(&service, &caller(OWN, false), "sessions_send", json!({"sessionKey": "agent:ops:main", "message": "hi", "timeoutSeconds": 0}));
    assert_eq!(sent["status"], "forbidden", "{sent}");
    assert!(
        sent["error"].as_str().unwrap().starts_with("Session send visibility is restricted. Set tools.sessions.visibility=all"),
        "{sent}"
    );
    // `all` (or unset) leaves the documents' rules: the other agent is listed, a2a allowing.
    let open_state = narrowed_state("all");
    let open = Served::open(open_state.path(), |g| g, |s| s).unwrap();
    let listed = tool(&open, &caller(OWN, false), "sessions_list", json!({}));
    assert!(listed["sessions"].as_array().unwrap().iter().any(|s| s["key"] == OPS_SLACK), "{listed}");

    // The guard (N15's second enforcement) narrows an unsandboxed caller too, whatever the
    // component asks: `self` from the child, and nothing of another agent under `agent`.
    let state = narrowed_state("self");
    let (service, lines) = hostile_service_in(state.path(), small_engine());
    let child = caller(CHILD, false);
    assert_eq!(
        spy(&service, &child, json!({"method": "chat-history", "key": OWN})),
        json!({"error": format!("forbidden: session {OWN} is not visible under tools.sessions.visibility=self")})
    );
    assert_eq!(spy(&service, &child, json!({"method": "sessions-list"})), json!({"ok": [CHILD]}));
    assert!(lines.lock().unwrap().iter().any(|l| l.starts_with(&format!("N15: refused chat.history: session {OWN}"))), "audited");
    let state = narrowed_state("agent");
    let (service, _lines) = hostile_service_in(state.path(), small_engine());
    let listed = spy(&service, &caller(OWN, false), json!({"method": "sessions-list"}));
    let listed: Vec<&str> = listed["ok"].as_array().unwrap().iter().map(|k| k.as_str().unwrap()).collect();
    assert!(listed.contains(&DISCORD) && !listed.contains(&OPS_SLACK), "{listed:?}");
    assert!(spy(&service, &caller(OWN, false), json!({"method": "chat-history", "key": OPS_SLACK}))["error"].is_string());
}
