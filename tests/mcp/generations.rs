//! Real clients of both protocol generations, each on the revision it speaks: the Python
//! SDK in its own default mode agrees on 2026-07-28 (`server/discover`, no session) over
//! stdio and HTTP, lists the tools with their annotations and output schemas, and calls
//! every tool, each structured result satisfying its tool's schema; the same SDK giving up
//! on a waiting `sessions_send` (in a session, or stateless) frees the call within a
//! second while its run completes. The session revision of each client (`initialize`,
//! 2025-11-25) is asserted where `tests/mcp.rs` drives it.

use std::time::Duration;

use serde_json::{json, Value};
use session_tools_tests::cli::call;
use session_tools_tests::{root, sample_copy};

use super::clients::{python_client, PYTHON_MCP};
use super::revisions::{slow_server, slow_stdio_command};
use super::{
    call_step, check_full_plan, full_plan, ok_result, python_stdio_argv, python_stdio_in, random_hex, HttpServer, DISCORD,
    SESSION_REVISION, STATELESS_REVISION,
};

#[test]
fn the_python_sdk_on_2026_07_28_lists_and_calls_every_tool_over_stdio_and_http_without_a_session() {
    let state = sample_copy();
    let by_cli = call(state.path(), "agent:main:main", &[], "sessions_list", "{}");
    let output = python_stdio_in("auto", state.path(), &["--as", "agent:main:main"], &full_plan());
    check_full_plan(&output, &by_cli, STATELESS_REVISION);

    let state = sample_copy();
    let by_cli = call(state.path(), "agent:main:main", &[], "sessions_list", "{}");
    let token = random_hex(24);
    // `--verbose`: the server logs each session it opens.
    let server =
        HttpServer::start_with(state.path(), &json!({"agents": [{"token": token, "sessionKey": "agent:main:main"}]}), &["--verbose"]);
    let output = python_client(&["--mode", "auto", "http", &server.url, &token], &full_plan());
    assert!(output.get("fatal").is_none(), "{output:#}\nserver: {}", server.stderr());
    check_full_plan(&output, &by_cli, STATELESS_REVISION);
    let log = server.stderr();
    assert!(!log.contains("opened a session"), "a stateless client opened no session: {log}");
    // The same SDK in a session on the same server: the log would have said so.
    let output = python_client(&["--mode", "legacy", "http", &server.url, &token], &json!([call_step("agents_list", json!({}))]));
    assert_eq!(output["protocolVersion"], SESSION_REVISION, "{output:#}");
    ok_result(&output["results"][0]);
    assert!(server.stderr().contains("opened a session"), "{}", server.stderr());
}

/// The plan of a client that gives up on a `sessions_send` waiting up to 30 s for a run
/// of 4 s as soon as the call reports progress, then (`metrics`: the page and its token)
/// watches the calls in flight drop to none, calls again, and waits for the run's reply in
/// the target's history.
fn give_up_plan(metrics: Option<(&str, &str)>) -> Value {
    let mut plan = vec![json!({"op": "cancel", "tool": "sessions_send",
        "arguments": {"sessionKey": DISCORD, "message": "slow", "timeoutSeconds": 30}})];
    if let Some((url, token)) = metrics {
        plan.push(
            json!({"op": "metrics", "url": url, "token": token, "contains": "session_tools_tool_calls_in_flight 0\n", "seconds": 30}),
        );
    }
    plan.push(call_step("sessions_list", json!({})));
    plan.push(json!({"op": "until", "tool": "sessions_history", "arguments": {"sessionKey": DISCORD, "limit": 5},
        "contains": "slow done", "seconds": 30}));
    Value::Array(plan)
}

/// The call given up was not answered, after progress that names its 30 s; the caller's
/// next call is answered; the run's reply lands.
fn check_gave_up(output: &Value, revision: &str) {
    assert_eq!(output["protocolVersion"], revision, "{output:#}");
    let results = output["results"].as_array().unwrap();
    let cancelled = &results[0];
    assert_eq!(cancelled["answered"], false, "the call was given up before its answer: {cancelled}");
    let progress = &cancelled["progress"][0];
    assert_eq!(progress["total"], 30.0, "{cancelled}");
    assert!(progress["progress"].as_f64().is_some_and(|p| p >= 1.0), "the first progress comes a second into the wait: {cancelled}");
    let (next, reply) = (&results[results.len() - 2], &results[results.len() - 1]);
    assert_eq!(ok_result(next)["count"], 6, "{next}");
    assert_eq!(reply["matched"], true, "the run completed after its call was given up: {reply}");
}

#[test]
fn a_real_client_giving_up_on_a_waiting_send_over_http_frees_the_call_within_a_second_on_either_generation() {
    // In a session the SDK sends `notifications/cancelled`; stateless, it closes the
    // answer's stream.
    for (mode, revision) in [("legacy", SESSION_REVISION), ("auto", STATELESS_REVISION)] {
        let state = sample_copy();
        let (token, metrics) = (random_hex(24), random_hex(24));
        let (server, _rules) = slow_server(
            state.path(),
            &json!({"agents": [{"token": token, "sessionKey": "agent:main:main"}], "metrics": {"token": metrics}}),
            4_000,
            &[],
        );
        let metrics_url = server.url.replace("/mcp", "/metrics");
        let output = python_client(&["--mode", mode, "http", &server.url, &token], &give_up_plan(Some((&metrics_url, &metrics))));
        assert!(output.get("fatal").is_none(), "{mode}: {output:#}\nserver: {}", server.stderr());
        check_gave_up(&output, revision);
        let freed = &output["results"][1];
        assert_eq!(freed["matched"], true, "{mode}: the call stayed in flight: {freed}");
        let seconds = freed["sinceCancel"].as_f64().unwrap();
        eprintln!("figures: {revision} over HTTP, the Python SDK gave up on a wait: no call in flight {seconds:.3} s later");
        assert!(seconds < 1.0, "{mode}: still in flight {seconds} s after the client gave up");
    }
}

#[test]
fn a_real_client_on_2026_07_28_giving_up_over_stdio_ends_the_call_within_a_second() {
    let state = sample_copy();
    let (argv, _rules) =
        slow_stdio_command(state.path(), 4_000, &["--as", "agent:main:main", "--log-format", "json", "--log-level", "info"]);
    let (output, log) = python_stdio_argv("auto", &argv, &give_up_plan(None));
    check_gave_up(&output, STATELESS_REVISION);
    // The given-up call's log line (written when it ended) says how long it ran: the client
    // gave up on it at its first progress, a second into the wait at the earliest, so a
    // call that ran under two seconds ended within a second of that.
    let sends: Vec<Value> = log
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .filter(|entry| entry["fields"]["event"] == "tool_call" && entry["fields"]["tool"] == "sessions_send")
        .collect();
    // The first to end: the run's own flow (after its reply, seconds later) comes after.
    assert!(!sends.is_empty(), "no log line of the given-up call: {log}");
    let ran = Duration::from_secs_f64(sends[0]["fields"]["duration_ms"].as_f64().unwrap() / 1000.0);
    eprintln!("figures: 2026-07-28 over stdio, a call the Python SDK gave up on at its first progress ran {ran:?}");
    assert!(ran < Duration::from_secs(2), "the given-up call ran {ran:?}: {}", sends[0]);
}

#[test]
fn the_mcp_page_names_the_client_versions_the_tests_drive() {
    let page = std::fs::read_to_string(root().join("docs/mcp.md")).unwrap();
    let python = PYTHON_MCP.trim_start_matches("mcp==");
    assert!(page.contains(&format!("`mcp` {python}")), "docs/mcp.md names the Python SDK the tests drive, {python}");
    let package: Value = serde_json::from_str(&std::fs::read_to_string(root().join("tests/mcp/node/package.json")).unwrap()).unwrap();
    let node = package["dependencies"]["@modelcontextprotocol/sdk"].as_str().unwrap();
    assert!(page.contains(&format!("`@modelcontextprotocol/sdk` {node}")), "docs/mcp.md names the TypeScript SDK the tests drive, {node}");
}
