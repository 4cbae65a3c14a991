//! Both protocol generations, served on purpose: 2026-07-28 without a session
//! (`server/discover`, then `tools/call`, each request with its version in `_meta` and the
//! `Mcp-Method`/`Mcp-Name` headers) over HTTP and stdio, and the session-based 2025-06-18
//! and 2025-11-25; a revision the server does not speak is refused by name. One token
//! keeping its cap of stateless calls busy leaves another token answered at once.
//! A waiting call reports progress, and a cancelled one (a closed response stream over
//! HTTP, `notifications/cancelled` over stdio) frees its instance at once while its run
//! completes.
//!
//! Raw requests, for what no client sends yet; the real clients of each generation are
//! driven in `tests/mcp.rs`.

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use session_tools_tests::sample_copy;

use super::clients::python_client;
use super::limits::{assert_refused, kept_alive_or_none, median, request, Wire, DEADLINE};
use super::{call_step, ok_result, random_hex, server_command, HttpServer, RawAnswer, DISCORD, SUBAGENT};

pub(super) const MODERN: &str = "2026-07-28";

/// Every revision the server speaks, as `server/discover` lists them.
const SERVED: [&str; 3] = ["2025-06-18", "2025-11-25", MODERN];

/// Runs that take `ms` when their message is `slow` (the scripted runtime), for the waits
/// below; every other run answers at once.
fn slow_runs(ms: u64) -> String {
    json!({"runs": [{"match": {"message": "slow"}, "reply": "slow done", "durationMs": ms}]}).to_string()
}

/// A server with the scripted runtime whose `slow` runs take `ms`.
pub(super) fn slow_server(state: &std::path::Path, agents: &Value, ms: u64, extra: &[&str]) -> (HttpServer, tempfile::NamedTempFile) {
    let rules = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(rules.path(), slow_runs(ms)).unwrap();
    let runtime = format!("scripted:{}", rules.path().display());
    let mut args = vec!["--runtime", runtime.as_str()];
    args.extend_from_slice(extra);
    (HttpServer::start_with(state, agents, &args), rules)
}

/// The stdio server's command line (`server_command` with `extra`) with the scripted
/// runtime whose `slow` runs take `ms`, instead of the echo one.
pub(super) fn slow_stdio_command(state: &std::path::Path, ms: u64, extra: &[&str]) -> (Vec<String>, tempfile::NamedTempFile) {
    let rules = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(rules.path(), slow_runs(ms)).unwrap();
    let runtime = format!("scripted:{}", rules.path().display());
    let mut argv = server_command(state, extra);
    let echo = argv.iter().position(|a| a == "echo").unwrap();
    argv.drain(echo - 1..=echo);
    argv.extend(["--runtime".to_string(), runtime]);
    (argv, rules)
}

/// The `_meta` of a 2026-07-28 request.
pub(super) fn modern_meta(version: &str) -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": version,
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "1"},
    })
}

/// A 2026-07-28 request: its body and the headers the transport requires.
pub(super) fn modern(id: u64, method: &str, mut params: Value, token: &str) -> (Value, Vec<(&'static str, String)>) {
    let meta = params.get("_meta").cloned().unwrap_or_else(|| json!({}));
    let mut merged = modern_meta(MODERN);
    merged.as_object_mut().unwrap().extend(meta.as_object().unwrap().clone());
    params["_meta"] = merged;
    let mut headers = vec![
        ("Authorization", format!("Bearer {token}")),
        ("MCP-Protocol-Version", MODERN.to_string()),
        ("Mcp-Method", method.to_string()),
    ];
    if let Some(name) = params.get("name").and_then(Value::as_str) {
        headers.push(("Mcp-Name", name.to_string()));
    }
    (json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}), headers)
}

/// The JSON-RPC answer to `id` in an answer's body (an event stream or plain JSON).
pub(super) fn answer_to(answer: &RawAnswer, id: u64) -> Value {
    let messages =
        answer.body.lines().filter_map(|line| serde_json::from_str::<Value>(line.strip_prefix("data:").unwrap_or(line).trim()).ok());
    messages.into_iter().find(|m| m["id"] == id).unwrap_or_else(|| panic!("no answer to {id}: {answer:?}"))
}

fn post(url: &str, body: &Value, headers: &[(&str, String)]) -> RawAnswer {
    request(url, "POST", headers, Some(body))
}

#[test]
fn the_2026_revision_is_served_without_a_session_and_the_session_revisions_with_one() {
    let state = sample_copy();
    let token = random_hex(24);
    let server = HttpServer::start(state.path(), &json!({"agents": [{"token": token, "sessionKey": "agent:main:main"}]}));
    let url = server.url.as_str();

    // server/discover: the revisions, the tools capability, who answers; no session.
    let (body, headers) = modern(1, "server/discover", json!({}), &token);
    let answer = post(url, &body, &headers);
    assert_eq!(answer.status, 200, "{answer:?}");
    assert!(answer.header("mcp-session-id").is_none(), "no session on 2026-07-28: {answer:?}");
    let discovered = &answer_to(&answer, 1)["result"];
    assert_eq!(discovered["supportedVersions"], json!(SERVED), "{discovered}");
    assert!(discovered["capabilities"]["tools"].is_object(), "{discovered}");
    assert_eq!(discovered["_meta"]["io.modelcontextprotocol/serverInfo"]["name"], "session-tools", "{discovered}");
    // Cache hints, as on the tool list: none of it changes while the server lives.
    assert_eq!(discovered["ttlMs"], 300_000, "{discovered}");
    assert_eq!(discovered["cacheScope"], "private", "{discovered}");

    // tools/list: cache hints, the tools in describe's order, annotated.
    let (body, headers) = modern(2, "tools/list", json!({}), &token);
    let listed = answer_to(&post(url, &body, &headers), 2)["result"].clone();
    assert_eq!(listed["ttlMs"], 300_000, "{listed}");
    assert_eq!(listed["cacheScope"], "private", "{listed}");
    let names: Vec<&str> = listed["tools"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["sessions_list", "sessions_history", "sessions_send", "sessions_spawn", "agents_list"]);
    super::check_annotations(listed["tools"].as_array().unwrap());

    // tools/call, no session: a complete result.
    let (body, headers) = modern(3, "tools/call", json!({"name": "sessions_list", "arguments": {}}), &token);
    let answer = post(url, &body, &headers);
    assert!(answer.header("mcp-session-id").is_none(), "{answer:?}");
    let called = &answer_to(&answer, 3)["result"];
    assert_eq!(called["resultType"], "complete", "{called}");
    assert_eq!(called["isError"], false, "{called}");
    assert_eq!(called["structuredContent"]["count"], 6, "{called}");

    // What the transport requires is required; a revision not served is refused by name.
    let (body, mut headers) = modern(4, "tools/call", json!({"name": "sessions_list", "arguments": {}}), &token);
    headers.retain(|(name, _)| *name != "Mcp-Method");
    let refused = answer_to(&post(url, &body, &headers), 4);
    assert_eq!(refused["error"]["code"], -32020, "a missing Mcp-Method header: {refused}");
    let (mut body, mut headers) = modern(5, "tools/call", json!({"name": "sessions_list", "arguments": {}}), &token);
    body["params"]["_meta"] = modern_meta("2099-01-01");
    headers.iter_mut().filter(|(name, _)| *name == "MCP-Protocol-Version").for_each(|(_, v)| *v = "2099-01-01".into());
    let refused = answer_to(&post(url, &body, &headers), 5);
    assert_eq!(refused["error"]["code"], -32022, "{refused}");
    assert_eq!(refused["error"]["data"]["supported"], json!(SERVED), "{refused}");
    // The Origin check holds without a session too: a page of another site is refused
    // before anything else; a page of the server's own name is served.
    for (origin, status) in [("http://evil.example", 403), ("http://localhost", 200)] {
        let (body, mut headers) = modern(6, "tools/call", json!({"name": "sessions_list", "arguments": {}}), &token);
        headers.push(("Origin", origin.to_string()));
        let answer = post(url, &body, &headers);
        assert_eq!(answer.status, status, "{origin}: {answer:?}");
    }

    // The session revisions: initialize agrees on the client's revision and opens a session.
    for version in &SERVED[..2] {
        let auth = [("Authorization", format!("Bearer {token}"))];
        let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {"protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}}});
        let opened = post(url, &init, &auth);
        assert_eq!(answer_to(&opened, 1)["result"]["protocolVersion"], *version, "{opened:?}");
        let session = opened.header("mcp-session-id").unwrap_or_else(|| panic!("{version}: no session: {opened:?}"));
        let in_session =
            [("Authorization", format!("Bearer {token}")), ("Mcp-Session-Id", session), ("MCP-Protocol-Version", version.to_string())];
        let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
        assert_eq!(post(url, &initialized, &in_session).status, 202, "{version}");
        let call = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "agents_list", "arguments": {}}});
        let called = answer_to(&post(url, &call, &in_session), 2);
        assert_eq!(called["result"]["structuredContent"]["agents"][0]["id"], "main", "{version}: {called}");
    }
}

#[test]
fn over_stdio_the_2026_revision_needs_no_initialize() {
    let state = sample_copy();
    let argv = server_command(state.path(), &["--as", "agent:main:main"]);
    let mut child =
        Command::new(&argv[0]).args(&argv[1..]).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::null()).spawn().unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut ask = |frame: Value| -> Value {
        writeln!(stdin, "{frame}").unwrap();
        let line = lines.next().expect("an answer").unwrap();
        serde_json::from_str(&line).unwrap()
    };
    let discovered = ask(json!({"jsonrpc": "2.0", "id": 1, "method": "server/discover", "params": {"_meta": modern_meta(MODERN)}}));
    assert_eq!(discovered["result"]["supportedVersions"], json!(SERVED), "{discovered}");
    assert_eq!(discovered["result"]["ttlMs"], 300_000, "{discovered}");
    let called = ask(json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "sessions_list", "arguments": {}, "_meta": modern_meta(MODERN)}}));
    assert_eq!(called["result"]["resultType"], "complete", "{called}");
    assert_eq!(called["result"]["structuredContent"]["count"], 6, "{called}");
    drop(stdin);
    assert!(child.wait().unwrap().success());
}

#[test]
fn one_token_with_its_cap_of_stateless_calls_waiting_leaves_another_answered_at_once() {
    let state = sample_copy();
    let (hog, other) = (random_hex(24), random_hex(24));
    let (server, _rules) = slow_server(
        state.path(),
        &super::hog_and_other(&hog, &other),
        // The runs outlast everything the other token does meanwhile.
        10_000,
        &["--max-streams-per-token", "4", "--header-timeout", "300"],
    );
    let url = server.url.as_str();
    let waiting_call = |id: u64| {
        let arguments = json!({"sessionKey": SUBAGENT, "message": "slow", "timeoutSeconds": 30});
        modern(id, "tools/call", json!({"name": "sessions_send", "arguments": arguments, "_meta": {"progressToken": id}}), &hog)
    };
    // Four calls waiting for their runs, each holding its answer's stream: all sent, then
    // each seen waiting (its first progress opens its answer).
    let mut held: Vec<Wire> = (0..4)
        .map(|i| {
            let (body, headers) = waiting_call(10 + i);
            let mut wire = Wire::open(url);
            wire.send("POST", &headers, Some(&body));
            wire
        })
        .collect();
    for wire in &mut held {
        let head = wire.head();
        assert_eq!(head.status, 200, "{head:?}");
        assert_eq!(head.header("content-type").as_deref(), Some("text/event-stream"), "{head:?}");
        assert!(wire.read_until(b"notifications/progress"), "the call waits");
    }
    // A fifth is refused, naming the cap: a stateless client's calls in flight are capped
    // by its token's streams.
    let (body, headers) = waiting_call(20);
    assert_refused(&post(url, &body, &headers), 429, "--max-streams-per-token");

    // Meanwhile the other token is answered at once: stateless, and by a real client in a
    // session.
    let started = Instant::now();
    let (body, headers) = modern(30, "tools/call", json!({"name": "sessions_list", "arguments": {}}), &other);
    let answered = answer_to(&post(url, &body, &headers), 30);
    let stateless = started.elapsed();
    assert_eq!(answered["result"]["structuredContent"]["count"], 6, "{answered}");
    let output =
        python_client(&["http", url, &other], &json!([call_step("sessions_list", json!({})), call_step("agents_list", json!({}))]));
    assert!(output.get("fatal").is_none(), "{output:#}\nserver: {}", server.stderr());
    let mut seconds = vec![stateless.as_secs_f64(), output["initializeSeconds"].as_f64().unwrap()];
    for result in output["results"].as_array().unwrap() {
        ok_result(result);
        seconds.push(result["seconds"].as_f64().unwrap());
    }
    eprintln!("figures: the other token's requests while one token waits at its cap of stateless calls: {seconds:?}");
    assert!(median(&seconds) < 1.0, "the other token waited {seconds:?}");

    // The capped token's calls still end with their runs' replies.
    for (i, wire) in held.iter_mut().enumerate() {
        assert!(wire.read_until(b"slow done"), "call {i} ended without its reply");
    }
}

#[test]
fn a_stateless_token_s_bodies_and_connections_are_capped_while_another_token_is_answered_at_once() {
    let state = sample_copy();
    let (hog, other) = (random_hex(24), random_hex(24));
    let server = HttpServer::start_with(
        state.path(),
        &super::hog_and_other(&hog, &other),
        &["--max-connections-per-token", "3", "--header-timeout", "300", "--verbose"],
    );
    let url = server.url.as_str();
    // Three connections of the hog's (each counted once a request on it carried the
    // token), each now sending a stateless request's body and stopping halfway: three
    // bodies being read, the most a token can have (one a connection).
    let (request, headers) = modern(40, "tools/list", json!({}), &hog);
    let body = request.to_string();
    let mut held: Vec<Wire> = (0..3)
        .map(|_| {
            let mut wire = kept_alive_or_none(url, &hog).expect("a connection of the hog's within its cap");
            wire.send_head(&headers, body.len());
            wire.write(&body.as_bytes()[..10]);
            wire
        })
        .collect();
    // A fourth connection: refused and closed, naming the cap.
    let refused = post(url, &request, &headers);
    assert_refused(&refused, 429, "--max-connections-per-token");
    assert_eq!(refused.header("connection").as_deref(), Some("close"), "{refused:?}");

    // Meanwhile another token's client, on 2026-07-28 too, is answered at once.
    let plan = Value::Array((0..5).map(|_| call_step("sessions_list", json!({}))).collect());
    let output = python_client(&["--mode", "auto", "http", url, &other], &plan);
    assert!(output.get("fatal").is_none(), "{output:#}\nserver: {}", server.stderr());
    assert_eq!(output["protocolVersion"], MODERN, "{output:#}");
    let mut seconds = vec![output["initializeSeconds"].as_f64().unwrap()];
    for result in output["results"].as_array().unwrap() {
        assert_eq!(ok_result(result)["count"], 6, "{result}");
        seconds.push(result["seconds"].as_f64().unwrap());
    }
    eprintln!("figures: another token's stateless client while one token has a body halfway on each of its connections: {seconds:?}");
    assert!(median(&seconds) < 1.0, "the other token waited {seconds:?}");

    // The hog lost nothing: a body sent to its end is answered.
    for wire in &mut held {
        assert!(!wire.closed(), "a connection of the capped token was closed");
    }
    held[0].write(&body.as_bytes()[10..]);
    assert_eq!(held[0].head().status, 200);
    assert!(held[0].read_until(b"sessions_spawn"), "the tool list");
    let log = server.stderr();
    assert!(log.contains("refused agents[0] (agent:main:main): too many connections"), "{log}");
    assert!(!log.contains("refused agents[1]"), "the other token was never refused: {log}");

    // One body is at most 4 MiB: a larger one is refused before it is read whole.
    let mut wire = Wire::open(url);
    let (_, headers) = modern(41, "tools/list", json!({}), &other);
    let length = 5 * 1024 * 1024;
    wire.send_head(&headers, length);
    let mut writer = wire.try_clone();
    // Written from a thread: the server answers without reading it all, and may close.
    let writing = std::thread::spawn(move || {
        let _ = std::io::Write::write_all(&mut writer, &vec![b' '; length]);
    });
    let head = wire.head();
    assert_eq!(head.status, 413, "{head:?}");
    assert!(wire.read_until(b"request body too large: the limit is 4194304 bytes"), "the refusal names the limit");
    let _ = wire.try_clone().shutdown(std::net::Shutdown::Both);
    writing.join().unwrap();
}

/// `/metrics`' gauge of calls in flight.
fn in_flight(url: &str, metrics_token: &str) -> u64 {
    let answer = request(&url.replace("/mcp", "/metrics"), "GET", &[("Authorization", format!("Bearer {metrics_token}"))], None);
    answer
        .body
        .lines()
        .find_map(|line| line.strip_prefix("session_tools_tool_calls_in_flight "))
        .and_then(|n| n.trim().parse().ok())
        .unwrap_or_else(|| panic!("no in-flight gauge: {answer:?}"))
}

#[test]
fn a_waiting_call_reports_progress_and_a_closed_stream_frees_its_instance_while_the_run_completes() {
    let state = sample_copy();
    let (token, metrics) = (random_hex(24), random_hex(24));
    let (server, _rules) = slow_server(
        state.path(),
        &json!({"agents": [{"token": token, "sessionKey": "agent:main:main"}], "metrics": {"token": metrics}}),
        4_000,
        &[],
    );
    let url = server.url.as_str();
    let (body, headers) = modern(
        1,
        "tools/call",
        json!({"name": "sessions_send", "arguments": {"sessionKey": DISCORD, "message": "slow", "timeoutSeconds": 30},
               "_meta": {"progressToken": "wait-1"}}),
        &token,
    );
    let mut wire = Wire::open(url);
    wire.send("POST", &headers, Some(&body));
    assert_eq!(wire.head().status, 200);
    // Progress while it waits: the seconds waited of the 30 it may.
    assert!(wire.read_until(br#""method":"notifications/progress","params":{"progressToken":"wait-1""#), "no progress");
    assert!(wire.read_until(br#""total":30.0"#), "the progress names the most it waits");
    assert_eq!(in_flight(url, &metrics), 1, "the call waits");

    // The client goes: the wait ends, the call is no longer in flight, within a second.
    drop(wire);
    let closed = Instant::now();
    let deadline = closed + DEADLINE;
    while in_flight(url, &metrics) != 0 {
        assert!(Instant::now() < deadline, "the cancelled call was still in flight after {DEADLINE:?}");
        std::thread::yield_now();
    }
    let freed = closed.elapsed();
    eprintln!("figures: a cancelled wait left the calls in flight {freed:?} after its stream closed");
    assert!(freed < Duration::from_secs(1), "freed after {freed:?}");

    // Its instance is free: the same caller's next call is answered; and the run goes on
    // to its end, its reply in the target's history.
    let history = json!({"name": "sessions_history", "arguments": {"sessionKey": DISCORD, "limit": 5}});
    let deadline = Instant::now() + DEADLINE;
    loop {
        let (body, headers) = modern(2, "tools/call", history.clone(), &token);
        let answered = answer_to(&post(url, &body, &headers), 2);
        if answered.to_string().contains("slow done") {
            break;
        }
        assert!(Instant::now() < deadline, "the run did not complete: {answered}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[test]
fn over_stdio_a_cancelled_wait_ends_at_once_and_its_run_completes() {
    let state = sample_copy();
    // The log says when each tool call ends (one JSON line a call).
    let (argv, _rules) =
        slow_stdio_command(state.path(), 4_000, &["--as", "agent:main:main", "--log-format", "json", "--log-level", "info"]);
    let mut child =
        Command::new(&argv[0]).args(&argv[1..]).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    let (log_tx, log) = std::sync::mpsc::channel();
    let log_lines = BufReader::new(child.stderr.take().unwrap());
    std::thread::spawn(move || {
        for line in log_lines.lines().map_while(Result::ok) {
            let _ = log_tx.send((Instant::now(), line));
        }
    });
    let mut stdin = child.stdin.take().unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut next = || -> Value { serde_json::from_str(&lines.next().expect("a frame").unwrap()).unwrap() };
    let mut send = |frame: Value| writeln!(stdin, "{frame}").unwrap();
    send(json!({"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}}}));
    assert_eq!(next()["result"]["protocolVersion"], "2025-11-25");
    send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    send(json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "sessions_send", "arguments": {"sessionKey": DISCORD, "message": "slow", "timeoutSeconds": 30},
                   "_meta": {"progressToken": 7}}}));
    let progress = next();
    assert_eq!(progress["method"], "notifications/progress", "{progress}");
    assert_eq!(progress["params"]["progressToken"], 7, "{progress}");
    send(json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 2, "reason": "the user gave up"}}));
    let cancelled = Instant::now();
    // The call ends (its log line comes) within a second: no longer in flight.
    let ended = loop {
        let (at, line) = log.recv_timeout(DEADLINE).expect("the cancelled call's log line");
        let Ok(entry) = serde_json::from_str::<Value>(&line) else { continue };
        if entry["fields"]["event"] == "tool_call" && entry["fields"]["tool"] == "sessions_send" {
            break at;
        }
    };
    let ended = ended.saturating_duration_since(cancelled);
    eprintln!("figures: over stdio, a cancelled wait ended {ended:?} after notifications/cancelled");
    assert!(ended < Duration::from_secs(1), "the cancelled call ended {ended:?} after its cancel");
    // The next call is answered, and before it nothing but progress of the cancelled one.
    let history = |id: u64| {
        json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": "sessions_history", "arguments": {"sessionKey": DISCORD, "limit": 5}}})
    };
    send(history(3));
    let answered = loop {
        let frame = next();
        if frame["id"] == 3 {
            break frame;
        }
        assert_eq!(frame["method"], "notifications/progress", "the cancelled call is not answered: {frame}");
    };
    assert!(answered["result"]["structuredContent"]["messages"].is_array(), "{answered}");
    // The run goes on to its end.
    let deadline = Instant::now() + DEADLINE;
    for id in 4.. {
        send(history(id));
        let frame = next();
        if frame["id"] == id && frame.to_string().contains("slow done") {
            break;
        }
        assert!(Instant::now() < deadline, "the run did not complete: {frame}");
        std::thread::sleep(Duration::from_millis(100));
    }
    drop(stdin);
    assert!(child.wait().unwrap().success());
}
