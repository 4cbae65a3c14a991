//! Tasks of the 2026-07-28 tasks extension, backed by the job store: a `sessions_spawn` (or
//! a waiting `sessions_send`) from a client that declares the extension is answered with a
//! task; the server is stopped and started again, and the task's result is read by the
//! caller that made it — and only by it — exactly once in effect. A caller's working tasks
//! are capped; a cancelled task ends cancelled while its run completes. Over HTTP and stdio,
//! with raw requests (no client speaks the extension yet).

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::time::Instant;

use serde_json::{json, Value};
use session_tools_tests::sample_copy;

use super::limits::{request, DEADLINE};
use super::revisions::{answer_to, modern, modern_meta, slow_server, MODERN};
use super::{assert_satisfies, output_validators, random_hex, server_command, HttpServer, DISCORD};

const TASKS: &str = "io.modelcontextprotocol/tasks";

/// The `_meta` of a request from a client that takes tasks.
fn takes_tasks() -> Value {
    json!({"io.modelcontextprotocol/clientCapabilities": {"extensions": {TASKS: {}}}})
}

/// A 2026-07-28 request over HTTP, from a client that takes tasks; `tasks/*` name their
/// task in `Mcp-Name`.
fn ask(url: &str, id: u64, method: &str, mut params: Value, token: &str) -> Value {
    params["_meta"] = takes_tasks();
    let (body, mut headers) = modern(id, method, params.clone(), token);
    if let Some(task) = params.get("taskId").and_then(Value::as_str) {
        headers.push(("Mcp-Name", task.to_string()));
    }
    answer_to(&request(url, "POST", &headers, Some(&body)), id)
}

/// Asks for a task's state until `done` says it is what the test waits for.
fn poll(url: &str, task: &str, token: &str, done: impl Fn(&Value) -> bool) -> Value {
    let deadline = Instant::now() + DEADLINE;
    for id in 1000.. {
        let got = ask(url, id, "tasks/get", json!({"taskId": task}), token);
        if done(&got) {
            return got;
        }
        assert!(Instant::now() < deadline, "the task did not get there: {got}");
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    unreachable!()
}

/// A task handle's id, after checking the handle's shape.
fn handle(answer: &Value) -> String {
    let result = &answer["result"];
    assert_eq!(result["resultType"], "task", "{answer}");
    assert_eq!(result["status"], "working", "{answer}");
    assert_eq!(result["ttlMs"], 86_400_000, "{answer}");
    assert_eq!(result["pollIntervalMs"], 1000, "{answer}");
    assert!(result["createdAt"].as_str().is_some_and(|t| t.ends_with('Z')), "{answer}");
    let id = result["taskId"].as_str().unwrap_or_else(|| panic!("no task id: {answer}")).to_string();
    assert!(id.len() == 32 && id.bytes().all(|b| b.is_ascii_hexdigit()), "an unguessable id: {id}");
    id
}

/// The refusal of a task that is not the caller's: the extension's "not found".
fn assert_not_found(answer: &Value) {
    assert_eq!(answer["error"]["code"], -32602, "{answer}");
    assert!(answer["error"]["message"].as_str().unwrap().contains("Task not found"), "{answer}");
}

#[test]
fn a_spawn_run_as_a_task_is_read_after_a_restart_by_its_token_and_refused_to_another() {
    let state = sample_copy();
    let (mine, other) = (random_hex(24), random_hex(24));
    let agents = tempfile::NamedTempFile::new().unwrap();
    let tokens = json!({"agents": [{"token": mine, "sessionKey": "agent:main:main"}, {"token": other, "sessionKey": "agent:main:main"}]});
    std::fs::write(agents.path(), tokens.to_string()).unwrap();
    let server = HttpServer::start_at(state.path(), agents.path(), "127.0.0.1:0", &[]);
    let url = server.url.clone();

    // The extension is advertised on 2026-07-28.
    let discovered = ask(&url, 1, "server/discover", json!({}), &mine);
    assert_eq!(discovered["result"]["capabilities"]["extensions"][TASKS], json!({}), "{discovered}");

    // A spawn from a client that takes tasks: a task at once, on disk before the answer.
    let spawn = json!({"name": "sessions_spawn", "arguments": {"task": "tasks: count to three", "label": "task-child"}});
    let task = handle(&ask(&url, 2, "tools/call", spawn.clone(), &mine));
    let kept = state.path().join("session-tools/jobs/tasks").join(format!("{task}.json"));
    assert!(kept.is_file(), "the task is kept in the job store: {}", kept.display());
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        assert_eq!(std::fs::metadata(&kept).unwrap().permissions().mode() & 0o777, 0o600);
    }
    let record = std::fs::read_to_string(&kept).unwrap();
    assert!(!record.contains(&mine), "the token is not kept in clear: {record}");

    // Stopped (its call ends first) and started again on the same state directory.
    drop(server);
    let server = HttpServer::start_at(state.path(), agents.path(), "127.0.0.1:0", &[]);
    let url = server.url.clone();

    // The task's result, with the same token: what the call would have answered, read as
    // often as asked, its run made once.
    let validators = output_validators();
    let mut results = Vec::new();
    for id in [3, 4] {
        let got = ask(&url, id, "tasks/get", json!({"taskId": task}), &mine);
        let result = &got["result"];
        assert_eq!(result["resultType"], "complete", "{got}");
        assert_eq!(result["status"], "completed", "{got}\nserver: {}", server.stderr());
        assert_eq!(result["taskId"], task.as_str(), "{got}");
        assert_eq!(result["result"]["isError"], false, "{got}");
        let structured = &result["result"]["structuredContent"];
        assert_eq!(structured["status"], "accepted", "{got}");
        assert_satisfies(&validators, "sessions_spawn", structured, "the task's result");
        results.push(structured.clone());
    }
    assert_eq!(results[0], results[1], "the same result each time");
    let child = results[0]["childSessionKey"].as_str().unwrap().to_string();
    let history = json!({"name": "sessions_history", "arguments": {"sessionKey": child, "limit": 50}});
    let done = poll_history(&url, &mine, &history, "Done: tasks: count to three")["result"]["structuredContent"].to_string();
    // One run: the task's message once, its reply once (besides the announce step's).
    assert_eq!(done.matches(r#""text":"tasks: count to three""#).count(), 1, "one run: {done}");
    assert_eq!(done.matches(r#""text":"[echo runtime] Done: tasks: count to three""#).count(), 1, "one reply: {done}");
    let listed = ask(&url, 5, "tools/call", json!({"name": "sessions_list", "arguments": {}}), &mine);
    assert_eq!(listed["result"]["structuredContent"]["count"], 7, "the sample's six sessions and one child: {listed}");

    // Another token: not found, as for a task that never was; nor can it cancel it.
    assert_not_found(&ask(&url, 6, "tasks/get", json!({"taskId": task}), &other));
    assert_not_found(&ask(&url, 7, "tasks/cancel", json!({"taskId": task}), &other));
    assert_not_found(&ask(&url, 8, "tasks/get", json!({"taskId": random_hex(16)}), &mine));
    assert_not_found(&ask(&url, 9, "tasks/get", json!({"taskId": "../../openclaw.json"}), &mine));
    assert_eq!(ask(&url, 10, "tasks/get", json!({"taskId": task}), &mine)["result"]["status"], "completed", "still the owner's");

    // A client that does not take tasks gets the result itself, and cannot ask for tasks.
    let (body, headers) = modern(11, "tools/call", spawn, &mine);
    let direct = answer_to(&request(&url, "POST", &headers, Some(&body)), 11);
    assert_eq!(direct["result"]["resultType"], "complete", "{direct}");
    assert_eq!(direct["result"]["structuredContent"]["status"], "accepted", "{direct}");
    let (body, mut headers) = modern(12, "tasks/get", json!({"taskId": task}), &mine);
    headers.push(("Mcp-Name", task.clone()));
    let refused = answer_to(&request(&url, "POST", &headers, Some(&body)), 12);
    assert_eq!(refused["error"]["code"], -32021, "the extension is required: {refused}");

    // A session revision has no tasks: not advertised, and a spawn is answered directly.
    let auth = [("Authorization", format!("Bearer {mine}"))];
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {"extensions": {TASKS: {}}}, "clientInfo": {"name": "raw", "version": "1"}}});
    let opened = request(&url, "POST", &auth, Some(&init));
    let initialized = answer_to(&opened, 1);
    assert!(initialized["result"]["capabilities"].get("extensions").is_none_or(|e| e.get(TASKS).is_none()), "{initialized}");
    let session = opened.header("mcp-session-id").expect("a session");
    let in_session =
        [("Authorization", format!("Bearer {mine}")), ("Mcp-Session-Id", session), ("MCP-Protocol-Version", "2025-11-25".into())];
    request(&url, "POST", &in_session, Some(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"})));
    let call = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "sessions_spawn", "arguments": {"task": "tasks: in a session"}, "_meta": takes_tasks()}});
    let answered = answer_to(&request(&url, "POST", &in_session, Some(&call)), 2);
    assert_eq!(answered["result"]["structuredContent"]["status"], "accepted", "answered directly: {answered}");
    assert!(answered["result"].get("taskId").is_none(), "{answered}");
}

/// A session's history, asked until it holds `text`; answers the last answer.
fn poll_history(url: &str, token: &str, history: &Value, text: &str) -> Value {
    let deadline = Instant::now() + DEADLINE;
    for id in 2000.. {
        let answered = ask(url, id, "tools/call", history.clone(), token);
        if answered.to_string().contains(text) {
            return answered;
        }
        assert!(Instant::now() < deadline, "never seen {text:?}: {answered}");
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    unreachable!()
}

#[test]
fn a_waiting_send_as_a_task_is_cancelled_at_once_while_its_run_completes() {
    let state = sample_copy();
    let token = random_hex(24);
    let (server, _rules) = slow_server(state.path(), &json!({"agents": [{"token": token, "sessionKey": "agent:main:main"}]}), 3_000, &[]);
    let url = server.url.as_str();
    let send = json!({"name": "sessions_send", "arguments": {"sessionKey": DISCORD, "message": "slow", "timeoutSeconds": 30}});
    let task = handle(&ask(url, 1, "tools/call", send, &token));
    assert_eq!(ask(url, 2, "tasks/get", json!({"taskId": task}), &token)["result"]["status"], "working");

    // Cancelled: acknowledged, and the task ends cancelled, saying what goes on.
    let acked = ask(url, 3, "tasks/cancel", json!({"taskId": task}), &token);
    assert_eq!(acked["result"]["resultType"], "complete", "an acknowledgement: {acked}");
    assert!(acked["result"].get("status").is_none(), "an acknowledgement only: {acked}");
    let got = ask(url, 4, "tasks/get", json!({"taskId": task}), &token);
    assert_eq!(got["result"]["status"], "cancelled", "{got}");
    assert!(got["result"]["statusMessage"].as_str().unwrap().contains("goes on"), "{got}");
    assert!(got["result"].get("result").is_none(), "{got}");

    // The run goes on to its end; the task stays cancelled; a second cancel changes nothing.
    let history = json!({"name": "sessions_history", "arguments": {"sessionKey": DISCORD, "limit": 5}});
    poll_history(url, &token, &history, "slow done");
    assert_eq!(ask(url, 5, "tasks/cancel", json!({"taskId": task}), &token)["result"]["resultType"], "complete");
    assert_eq!(ask(url, 6, "tasks/get", json!({"taskId": task}), &token)["result"]["status"], "cancelled");

    // A send that waits and completes: its reply is the task's result.
    let send = json!({"name": "sessions_send", "arguments": {"sessionKey": DISCORD, "message": "hello", "timeoutSeconds": 30}});
    let task = handle(&ask(url, 7, "tools/call", send, &token));
    let done = poll(url, &task, &token, |got| got["result"]["status"] != "working");
    assert_eq!(done["result"]["status"], "completed", "{done}");
    assert_eq!(done["result"]["result"]["structuredContent"]["status"], "ok", "{done}");
    assert_satisfies(&output_validators(), "sessions_send", &done["result"]["result"]["structuredContent"], "the task's result");
}

#[test]
fn a_caller_has_at_most_eight_tasks_working_and_another_caller_is_not_held_by_them() {
    let state = sample_copy();
    let (busy, other) = (random_hex(24), random_hex(24));
    let (server, _rules) = slow_server(
        state.path(),
        &json!({"agents": [{"token": busy, "sessionKey": "agent:main:main"}, {"token": other, "sessionKey": "agent:main:main"}]}),
        10_000,
        &[],
    );
    let url = server.url.as_str();
    let waiting = json!({"name": "sessions_send", "arguments": {"sessionKey": DISCORD, "message": "slow", "timeoutSeconds": 60}});
    let tasks: Vec<String> = (0..8).map(|i| handle(&ask(url, 10 + i, "tools/call", waiting.clone(), &busy))).collect();

    // The ninth: not made, and the answer names the limit and what to do.
    let refused = ask(url, 30, "tools/call", waiting.clone(), &busy);
    assert_eq!(refused["result"]["resultType"], "complete", "{refused}");
    assert_eq!(refused["result"]["isError"], true, "{refused}");
    let error = refused["result"]["structuredContent"]["error"].as_str().unwrap();
    assert!(error.contains("8 tasks") && error.contains("tasks/cancel"), "{refused}");

    // Another token has its own.
    let theirs = handle(&ask(url, 31, "tools/call", waiting.clone(), &other));

    // One of the eight cancelled: room for another.
    ask(url, 32, "tasks/cancel", json!({"taskId": tasks[0]}), &busy);
    let again = handle(&ask(url, 33, "tools/call", waiting, &busy));
    for (i, task) in tasks.iter().skip(1).chain([&again]).enumerate() {
        ask(url, 40 + i as u64, "tasks/cancel", json!({"taskId": task}), &busy);
    }
    ask(url, 50, "tasks/cancel", json!({"taskId": theirs}), &other);
}

/// The stdio server on `state` as `caller`: its input, its answers and its log.
struct StdioServer {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: std::io::Lines<BufReader<std::process::ChildStdout>>,
    log: std::io::Lines<BufReader<std::process::ChildStderr>>,
}

impl StdioServer {
    fn start(state: &Path, caller: &str) -> StdioServer {
        StdioServer::start_stopping_at(state, caller, None)
    }

    /// With `fault`: the process stops at that fault point (the tests' build).
    fn start_stopping_at(state: &Path, caller: &str, fault: Option<&str>) -> StdioServer {
        let argv = server_command(state, &["--as", caller]);
        let mut command = Command::new(&argv[0]);
        command.args(&argv[1..]).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped());
        if let Some(fault) = fault {
            command.env("SESSION_TOOLS_FAULT_POINT", fault);
        }
        let mut child = command.spawn().unwrap();
        let stdin = child.stdin.take();
        let lines = BufReader::new(child.stdout.take().unwrap()).lines();
        let log = BufReader::new(child.stderr.take().unwrap()).lines();
        StdioServer { child, stdin, lines, log }
    }

    fn ask(&mut self, id: u64, method: &str, mut params: Value) -> Value {
        let mut meta = modern_meta(MODERN);
        meta.as_object_mut().unwrap().extend(takes_tasks().as_object().unwrap().clone());
        params["_meta"] = meta;
        writeln!(self.stdin.as_mut().unwrap(), "{}", json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})).unwrap();
        loop {
            let frame: Value = serde_json::from_str(&self.lines.next().expect("an answer").unwrap()).unwrap();
            if frame["id"] == id {
                return frame;
            }
        }
    }

    /// Closes its input: the server ends its calls in flight, then exits.
    fn stop(mut self) {
        drop(self.stdin.take());
        // Its log is read to its end, so it never blocks on a full pipe.
        let log: Vec<String> = self.log.by_ref().map_while(Result::ok).collect();
        assert!(self.child.wait().unwrap().success(), "{log:?}");
    }

    /// Waits until the process has reached its fault point, then kills it there.
    fn kill_at_fault(mut self) {
        let reached = self.log.by_ref().map_while(Result::ok).any(|line| line.starts_with("session-tools fault point reached"));
        assert!(reached, "the fault point was not reached");
        self.child.kill().unwrap();
        self.child.wait().unwrap();
    }
}

#[test]
fn over_stdio_a_task_is_read_after_a_restart_by_the_same_caller_only() {
    let state = sample_copy();
    let mut server = StdioServer::start(state.path(), "agent:main:main");
    let spawned = server.ask(1, "tools/call", json!({"name": "sessions_spawn", "arguments": {"task": "stdio task"}}));
    let task = handle(&spawned);
    server.stop();

    let mut server = StdioServer::start(state.path(), "agent:main:main");
    let got = server.ask(2, "tasks/get", json!({"taskId": task}));
    assert_eq!(got["result"]["status"], "completed", "{got}");
    assert_eq!(got["result"]["result"]["structuredContent"]["status"], "accepted", "{got}");
    server.stop();

    // Another stdio caller does not see it.
    let mut server = StdioServer::start(state.path(), DISCORD);
    assert_not_found(&server.ask(3, "tasks/get", json!({"taskId": task})));
    server.stop();
}

#[test]
fn a_task_whose_server_is_killed_during_its_call_is_answered_by_the_call_made_again_once() {
    let state = sample_copy();
    // Killed just after the call's intent is kept, before its first write.
    let mut server = StdioServer::start_stopping_at(state.path(), "agent:main:main", Some("call.intent-recorded"));
    let task = handle(&server.ask(1, "tools/call", json!({"name": "sessions_spawn", "arguments": {"task": "killed task"}})));
    server.kill_at_fault();

    // At the next start the call is made again from its intent, and answers the task.
    let mut server = StdioServer::start(state.path(), "agent:main:main");
    let deadline = Instant::now() + DEADLINE;
    let got = loop {
        let got = server.ask(2, "tasks/get", json!({"taskId": task}));
        if got["result"]["status"] != "working" {
            break got;
        }
        assert!(Instant::now() < deadline, "the task stayed working: {got}");
        std::thread::sleep(std::time::Duration::from_millis(100));
    };
    assert_eq!(got["result"]["status"], "completed", "{got}");
    let structured = &got["result"]["result"]["structuredContent"];
    assert_eq!(structured["status"], "accepted", "{got}");
    assert_satisfies(&output_validators(), "sessions_spawn", structured, "the task's result");

    // Once: the child has one reply.
    let child = structured["childSessionKey"].as_str().unwrap().to_string();
    let deadline = Instant::now() + DEADLINE;
    let history = loop {
        let answered = server.ask(3, "tools/call", json!({"name": "sessions_history", "arguments": {"sessionKey": child, "limit": 50}}));
        let history = answered["result"]["structuredContent"].to_string();
        if history.contains("Done: killed task") {
            break history;
        }
        assert!(Instant::now() < deadline, "the child never answered: {answered}");
        std::thread::sleep(std::time::Duration::from_millis(100));
    };
    assert_eq!(history.matches(r#""text":"killed task""#).count(), 1, "one run: {history}");
    assert_eq!(history.matches(r#""text":"[echo runtime] Done: killed task""#).count(), 1, "one reply: {history}");
    server.stop();
}
