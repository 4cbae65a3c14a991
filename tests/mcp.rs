//! `session-tools mcp` driven by real, independent MCP clients: the Python SDK over stdio
//! and streamable HTTP, and the TypeScript SDK over both. The clients are installed on
//! first use into a cache outside the repository (`mcp/clients.rs`); the servers run as
//! separate processes on copies of the sample state.

#![forbid(unsafe_code)]

#[path = "mcp/clients.rs"]
pub(crate) mod clients;
#[path = "mcp/generations.rs"]
mod generations;
#[path = "mcp/limits.rs"]
mod limits;
#[path = "mcp/observability.rs"]
mod observability;
#[path = "mcp/revisions.rs"]
mod revisions;
#[path = "mcp/tasks.rs"]
mod tasks;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use session_tools_host::conformance::{load_dir, run_all};
use session_tools_tests::cli::{binary, call, cli, stderr, stdout};
use session_tools_tests::{root, runtime, sample_copy};

use clients::{node_client_calls, node_client_run, python_client, python_client_logged};

const DISCORD: &str = "agent:main:discord:channel:1187421193829244938";
const SUBAGENT: &str = "agent:main:subagent:6f1e2d3c-4b5a-4978-8a6b-5c4d3e2f1a0b";

/// The stdio server as a command line the clients start: `env` passes the test compile
/// cache (stdio clients start servers with a minimal environment).
fn server_command(state: &Path, extra: &[&str]) -> Vec<String> {
    let mut argv = vec![
        "env".to_string(),
        format!("SESSION_TOOLS_CACHE_DIR={}", root().join("target/component-cache").display()),
        binary("st-cli").display().to_string(),
        "mcp".into(),
        "--state".into(),
        state.display().to_string(),
        // Runs are the echo runtime's, chosen explicitly (there is no default runtime).
        "--runtime".into(),
        "echo".into(),
    ];
    argv.extend(extra.iter().map(|s| s.to_string()));
    argv
}

/// The Python client over stdio against a server started with `extra`, in a session
/// (`initialize`).
fn python_stdio(state: &Path, extra: &[&str], plan: &Value) -> Value {
    python_stdio_in("legacy", state, extra, plan)
}

/// The Python client over stdio, agreeing on a revision by `mode` (`client.py --mode`).
fn python_stdio_in(mode: &str, state: &Path, extra: &[&str], plan: &Value) -> Value {
    python_stdio_argv(mode, &server_command(state, extra), plan).0
}

/// The Python client over stdio with the server command line `argv`: its output, and the
/// server's log (standard error).
fn python_stdio_argv(mode: &str, argv: &[String], plan: &Value) -> (Value, String) {
    let mut transport = vec!["--mode".to_string(), mode.to_string(), "stdio".to_string(), "--".into()];
    transport.extend(argv.iter().cloned());
    let transport: Vec<&str> = transport.iter().map(String::as_str).collect();
    let (output, log) = python_client_logged(&transport, plan);
    assert!(output.get("fatal").is_none(), "the Python client failed: {output:#}\n{log}");
    (output, log)
}

/// The tools as `describe` prints them, in MCP's shape.
fn described_tools() -> Vec<Value> {
    let output = cli(&["describe"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let tools: Value = serde_json::from_str(&stdout(&output)).unwrap();
    tools
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            let hints = &t["hints"];
            // Every hint said out loud (MCP's defaults for a missing one are the cautious ones).
            let annotations = json!({"title": t["title"], "readOnlyHint": hints["readOnly"], "destructiveHint": hints["destructive"],
                "idempotentHint": hints["idempotent"], "openWorldHint": hints["openWorld"]});
            json!({"name": t["name"], "title": t["title"], "description": t["description"], "inputSchema": t["parameters"],
                "outputSchema": t["resultSchema"], "annotations": annotations})
        })
        .collect()
}

/// Each tool's output schema as `describe` gives it, compiled.
fn output_validators() -> Vec<(String, jsonschema::Validator)> {
    described_tools()
        .into_iter()
        .map(|t| {
            let name = t["name"].as_str().unwrap().to_string();
            let validator = jsonschema::draft202012::new(&t["outputSchema"]).unwrap_or_else(|e| panic!("{name}: not a JSON Schema: {e}"));
            (name, validator)
        })
        .collect()
}

/// Panics, naming the tool, the result and every violation, unless `result` satisfies the
/// output schema of `tool`.
fn assert_satisfies(validators: &[(String, jsonschema::Validator)], tool: &str, result: &Value, what: &str) {
    let (_, validator) = validators.iter().find(|(name, _)| name == tool).unwrap_or_else(|| panic!("{what}: no tool {tool}"));
    let errors: Vec<String> = validator.iter_errors(result).map(|e| format!("{} at {}", e, e.instance_path())).collect();
    assert!(errors.is_empty(), "{what}: the result of {tool} does not satisfy its output schema: {errors:?}\n{result:#}");
}

/// The three reads say so, the two writes say they are not idempotent and reach out.
fn check_annotations(tools: &[Value]) {
    for tool in tools {
        let (name, hints) = (tool["name"].as_str().unwrap(), &tool["annotations"]);
        let read = matches!(name, "sessions_list" | "sessions_history" | "agents_list");
        assert_eq!(hints["readOnlyHint"], read, "{tool:#}");
        assert_eq!(hints["idempotentHint"], read, "{tool:#}");
        assert_eq!(hints["openWorldHint"], !read, "{tool:#}");
        assert_eq!(hints["destructiveHint"], false, "{tool:#}");
        assert!(tool["title"].as_str().is_some_and(|t| !t.is_empty()), "{tool:#}");
        assert_eq!(tool["outputSchema"]["type"], "object", "{tool:#}");
    }
}

fn call_step(tool: &str, arguments: Value) -> Value {
    json!({"op": "call", "tool": tool, "arguments": arguments})
}

/// The plan every transport runs as `agent:main:main`: list, each tool, a tool error and
/// an unknown tool.
fn full_plan() -> Value {
    json!([
        {"op": "list"},
        call_step("sessions_list", json!({})),
        call_step("sessions_history", json!({"sessionKey": DISCORD, "limit": 2})),
        call_step("sessions_send", json!({"sessionKey": DISCORD, "message": "mcp ping", "timeoutSeconds": 10})),
        call_step("sessions_spawn", json!({"task": "mcp task: count to three", "label": "mcp-child"})),
        call_step("agents_list", json!({})),
        call_step("sessions_history", json!({})),
        call_step("sessions_list", json!({"limit": "many"})),
        call_step("no_such_tool", json!({})),
    ])
}

/// A successful result: not an error, its object as structured content and as text.
fn ok_result(result: &Value) -> &Value {
    assert_eq!(result["isError"], false, "{result:#}");
    let structured = &result["structuredContent"];
    assert!(structured.is_object(), "{result:#}");
    let text: Value = serde_json::from_str(result["text"][0].as_str().unwrap()).unwrap();
    assert_eq!(&text, structured, "the text content is the same JSON");
    structured
}

/// The session-based revision the SDKs' `initialize` offers and the server agrees on.
const SESSION_REVISION: &str = "2025-11-25";

/// The stateless revision.
const STATELESS_REVISION: &str = "2026-07-28";

/// What `full_plan` must answer on `revision`, the one the client must have agreed on;
/// `by_cli`: `sessions_list {}` as `call` answered it on the same state before.
fn check_full_plan(output: &Value, by_cli: &Value, revision: &str) {
    assert_eq!(output["protocolVersion"], revision, "the revision the client agreed on");
    // The handshake of the revision: `initialize` (a session), or `server/discover` only.
    let (server, capabilities) = if revision == STATELESS_REVISION {
        let discover = &output["discover"];
        assert!(output["initialize"].is_null(), "no initialize on {revision}: {output:#}");
        assert_eq!(discover["supportedVersions"], json!(["2025-06-18", SESSION_REVISION, STATELESS_REVISION]), "{discover}");
        assert_eq!((&discover["ttlMs"], &discover["cacheScope"]), (&json!(300_000), &json!("private")), "{discover}");
        (&discover["_meta"]["io.modelcontextprotocol/serverInfo"], &discover["capabilities"])
    } else {
        let init = &output["initialize"];
        assert!(output["discover"].is_null(), "{output:#}");
        assert_eq!(init["protocolVersion"], revision, "{init}");
        (&init["serverInfo"], &init["capabilities"])
    };
    assert_eq!(server["name"], "session-tools", "{output:#}");
    assert!(capabilities["tools"].is_object(), "{output:#}");
    let results = output["results"].as_array().unwrap();

    // Tools: exactly describe()'s, with their schemas and hints as they are.
    assert_eq!(results[0]["tools"].as_array().unwrap(), &described_tools());
    check_annotations(results[0]["tools"].as_array().unwrap());
    // Every call's structured content satisfies its tool's output schema, errors included.
    let validators = output_validators();
    let plan = full_plan();
    for (step, result) in plan.as_array().unwrap().iter().zip(results).skip(1) {
        if let Some(structured) = result.get("structuredContent").filter(|v| !v.is_null()) {
            assert_satisfies(&validators, step["tool"].as_str().unwrap(), structured, "over MCP");
        }
    }

    // Each tool.
    let listed = ok_result(&results[1]);
    assert_eq!(listed, by_cli, "tools/call sessions_list {{}} answers what `session-tools call` does");
    assert_eq!(listed["count"], 6);
    let history = ok_result(&results[2]);
    assert_eq!(history["sessionKey"], DISCORD);
    let messages = history["messages"].as_array().unwrap();
    assert!(!messages.is_empty() && messages.len() <= 2, "{history}");
    let sent = ok_result(&results[3]);
    assert_eq!((&sent["status"], &sent["reply"]), (&json!("ok"), &json!("[echo runtime] echo: mcp ping")), "{sent}");
    let spawned = ok_result(&results[4]);
    assert_eq!(spawned["status"], "accepted", "{spawned}");
    assert!(spawned["childSessionKey"].as_str().unwrap().starts_with("agent:main:subagent:"), "{spawned}");
    let agents = ok_result(&results[5]);
    assert_eq!(agents["agents"][0]["id"], "main", "{agents}");

    // Tool errors are results with isError and the message.
    assert_eq!(results[6]["isError"], true, "{}", results[6]);
    assert_eq!(results[6]["structuredContent"]["status"], "error", "{}", results[6]);
    assert!(results[6]["text"][0].as_str().unwrap().contains("sessionKey required"), "{}", results[6]);
    assert_eq!(results[7]["isError"], true, "{}", results[7]);
    assert!(results[7]["text"][0].as_str().unwrap().contains("limit must be a number"), "{}", results[7]);
    // An unknown tool is a protocol error.
    assert_eq!(results[8]["error"]["code"], -32602, "{}", results[8]);
    assert!(results[8]["error"]["message"].as_str().unwrap().contains("unknown tool: no_such_tool"), "{}", results[8]);
}

#[test]
fn python_client_over_stdio_lists_and_calls_every_tool() {
    let state = sample_copy();
    let by_cli = call(state.path(), "agent:main:main", &[], "sessions_list", "{}");
    let output = python_stdio(state.path(), &["--as", "agent:main:main"], &full_plan());
    check_full_plan(&output, &by_cli, SESSION_REVISION);
}

#[test]
fn python_client_over_http_lists_and_calls_every_tool() {
    let state = sample_copy();
    let by_cli = call(state.path(), "agent:main:main", &[], "sessions_list", "{}");
    let token = random_hex(24);
    let server = HttpServer::start(state.path(), &json!({"agents": [{"token": token, "sessionKey": "agent:main:main"}]}));
    let output = python_client(&["http", &server.url, &token], &full_plan());
    assert!(output.get("fatal").is_none(), "{output:#}\nserver: {}", server.stderr());
    check_full_plan(&output, &by_cli, SESSION_REVISION);
}

#[test]
fn every_conformance_result_satisfies_its_tools_output_schema() {
    let validators = output_validators();
    let mut checked = 0;
    for dir in ["tests/conformance/cases", "tests/conformance/own-cases"] {
        let files = load_dir(&root().join(dir)).unwrap();
        for report in run_all(runtime(), &files) {
            assert!(report.passed(), "{}: {:?}", report.file, report.failures);
            if let Some((tool, result)) = &report.result {
                assert_satisfies(&validators, tool, result, &report.file);
                checked += 1;
            }
        }
    }
    // The public cases alone hold over a hundred tool results, refusals among them.
    assert!(checked > 100, "only {checked} results checked");
    // The check can fail: a result with a field of the wrong type, a refusal without its
    // message, a status no tool answers.
    for (tool, wrong) in [
        ("sessions_list", json!({"count": "6", "sessions": []})),
        ("sessions_list", json!({"status": "forbidden"})),
        ("sessions_send", json!({"runId": "r", "status": "maybe"})),
        ("sessions_spawn", json!({"status": "accepted"})),
        ("agents_list", json!({"requester": "main", "allowAny": false, "agents": [{"id": 7, "configured": true}]})),
    ] {
        let (_, validator) = validators.iter().find(|(name, _)| name == tool).unwrap();
        assert!(!validator.is_valid(&wrong), "{tool} accepted {wrong}");
    }
}

#[test]
fn a_sandboxed_server_sees_only_its_spawned_sessions() {
    let state = sample_copy();
    let all = call(state.path(), "agent:main:main", &[], "sessions_list", "{}");
    let others: Vec<&str> =
        all["sessions"].as_array().unwrap().iter().map(|r| r["key"].as_str().unwrap()).filter(|k| *k != SUBAGENT).collect();
    assert_eq!(others.len(), 5);
    let mut plan = vec![call_step("sessions_list", json!({})), call_step("sessions_history", json!({"sessionKey": SUBAGENT, "limit": 1}))];
    for key in &others {
        plan.push(call_step("sessions_history", json!({"sessionKey": key})));
        plan.push(call_step("sessions_send", json!({"sessionKey": key, "message": "let me in", "timeoutSeconds": 0})));
    }
    let output = python_stdio(state.path(), &["--as", "agent:main:main", "--sandboxed"], &Value::Array(plan));
    let results = output["results"].as_array().unwrap();
    let listed = ok_result(&results[0]);
    let keys: Vec<&str> = listed["sessions"].as_array().unwrap().iter().map(|r| r["key"].as_str().unwrap()).collect();
    assert_eq!(keys, [SUBAGENT]);
    assert_eq!(ok_result(&results[1])["messages"].as_array().unwrap().len(), 1);
    // Every session outside its spawned tree is refused, as a tool error.
    for (key, pair) in others.iter().zip(results[2..].chunks(2)) {
        for refused in pair {
            assert_eq!(refused["isError"], true, "{key}: {refused}");
            assert_eq!(refused["structuredContent"]["status"], "forbidden", "{key}: {refused}");
            assert!(refused["text"][0].as_str().unwrap().contains("forbidden"), "{key}: {refused}");
        }
    }
}

#[test]
fn two_http_tokens_are_two_callers_and_others_are_refused() {
    let state = sample_copy();
    let (main, sandboxed) = (random_hex(24), random_hex(24));
    let server = HttpServer::start(
        state.path(),
        &json!({"agents": [
            {"token": main, "sessionKey": "agent:main:main"},
            {"token": sandboxed, "sessionKey": "agent:main:main", "sandboxed": true},
        ]}),
    );
    let plan = json!([call_step("sessions_list", json!({})), call_step("sessions_history", json!({"sessionKey": DISCORD, "limit": 1})),]);
    let as_main = python_client(&["http", &server.url, &main], &plan);
    let as_sandboxed = python_client(&["http", &server.url, &sandboxed], &plan);
    for output in [&as_main, &as_sandboxed] {
        assert!(output.get("fatal").is_none(), "{output:#}\nserver: {}", server.stderr());
    }
    assert_eq!(ok_result(&as_main["results"][0])["count"], 6);
    assert_eq!(ok_result(&as_main["results"][1])["sessionKey"], DISCORD);
    let keys: Vec<&Value> = ok_result(&as_sandboxed["results"][0])["sessions"].as_array().unwrap().iter().map(|r| &r["key"]).collect();
    assert_eq!(keys, [SUBAGENT]);
    assert_eq!(as_sandboxed["results"][1]["isError"], true, "{}", as_sandboxed["results"][1]);

    // A forged token gets nothing, not even initialize.
    let forged = python_client(&["http", &server.url, &random_hex(24)], &plan);
    let fatal = forged["fatal"].as_str().unwrap_or_else(|| panic!("a forged token was served: {forged:#}"));
    assert!(fatal.contains("unauthorized"), "{fatal}");
    assert!(forged.get("results").is_none());

    // On the wire: no token, a forged one, a near miss: 401; another path: 404.
    let initialize = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}}});
    let near_miss = format!("{}x", &main[..main.len() - 1]);
    for token in [None, Some(random_hex(24)), Some(near_miss), Some(String::new())] {
        let answer = raw_post(&server.url, token.as_deref(), None, &initialize);
        assert_eq!(answer.status, 401, "{token:?}: {answer:?}");
        assert!(answer.head.to_lowercase().contains("www-authenticate: bearer"), "{answer:?}");
        assert!(answer.body.contains("unauthorized"), "{answer:?}");
    }
    let elsewhere = raw_post(&server.url.replace("/mcp", "/other"), Some(&main), None, &initialize);
    assert_eq!(elsewhere.status, 404, "{elsewhere:?}");

    // A session belongs to the token that opened it.
    let opened = raw_post(&server.url, Some(&main), None, &initialize);
    assert_eq!(opened.status, 200, "{opened:?}");
    let session = opened.header("mcp-session-id").unwrap_or_else(|| panic!("no session id: {opened:?}"));
    let list = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"});
    let hijack = raw_post(&server.url, Some(&sandboxed), Some(&session), &list);
    assert_eq!(hijack.status, 403, "{hijack:?}");
    assert!(hijack.body.contains("another token"), "{hijack:?}");
}

#[test]
fn background_flows_run_while_the_server_lives_and_resume_after_a_restart() {
    let state = sample_copy();
    // A send whose ping-pong is left to the jobs (timeoutSeconds 0): it runs while the
    // server lives.
    let output = python_stdio(
        state.path(),
        &["--as", "agent:main:main"],
        &json!([
            call_step("sessions_send", json!({"sessionKey": DISCORD, "message": "live ping", "timeoutSeconds": 0})),
            {"op": "until", "tool": "sessions_history", "arguments": {"sessionKey": DISCORD, "limit": 50},
             "contains": "Thanks, noted: echo: live ping", "seconds": 60},
            call_step("sessions_spawn", json!({"task": "live task: count to three"})),
        ]),
    );
    let results = output["results"].as_array().unwrap();
    assert_eq!(ok_result(&results[0])["status"], "accepted");
    assert_eq!(results[1]["matched"], true, "the agent-to-agent ping-pong ran: {}", results[1]);
    // A sub-agent: its completion flow asks the child for its result, then announces it on
    // the requester's channel.
    let child = ok_result(&results[2])["childSessionKey"].as_str().unwrap().to_string();
    let output = python_stdio(
        state.path(),
        &["--as", "agent:main:main"],
        &json!([{"op": "until", "tool": "sessions_history", "arguments": {"sessionKey": child, "limit": 50},
                 "contains": "Result: [echo runtime] Done: live task: count to three", "seconds": 60}]),
    );
    assert_eq!(output["results"][0]["matched"], true, "the sub-agent's completion flow ran: {}", output["results"][0]);
    // The announce is the flow's last step, after the child's history has its result.
    let until = std::time::Instant::now() + std::time::Duration::from_secs(60);
    let mut outbox = cli(&["--state", state.path().to_str().unwrap(), "outbox", "--json"]);
    while !stdout(&outbox).contains("Done: live task: count to three") && std::time::Instant::now() < until {
        std::thread::sleep(std::time::Duration::from_millis(200));
        outbox = cli(&["--state", state.path().to_str().unwrap(), "outbox", "--json"]);
    }
    assert!(stdout(&outbox).contains("Done: live task: count to three"), "announced: {}", stdout(&outbox));

    // A flow left over by an earlier process (`call --wait 0` ends before its ping-pong)
    // goes on when a server starts.
    let dir = state.path().to_str().unwrap();
    let args = format!(r#"{{"sessionKey":"{DISCORD}","message":"resumed ping","timeoutSeconds":0}}"#);
    let left = cli(&["--state", dir, "--runtime", "echo", "call", "--as", "agent:main:main", "--wait", "0", "sessions_send", &args]);
    assert!(left.status.success(), "{}", stderr(&left));
    let before =
        call(state.path(), "agent:main:main", &["--wait", "0"], "sessions_history", &format!(r#"{{"sessionKey":"{DISCORD}","limit":50}}"#));
    assert!(!before.to_string().contains("Thanks, noted: echo: resumed ping"), "the flow had not run yet");
    let output = python_stdio(
        state.path(),
        &["--as", "agent:main:main"],
        &json!([{"op": "until", "tool": "sessions_history", "arguments": {"sessionKey": DISCORD, "limit": 50},
                 "contains": "Thanks, noted: echo: resumed ping", "seconds": 60}]),
    );
    assert_eq!(output["results"][0]["matched"], true, "the left-over flow resumed: {}", output["results"][0]);
}

/// What the TypeScript SDK said and was answered, as `check_full_plan` reads a client's
/// output; checks the revision it offered and sent, and the requests it made.
fn node_output_as_plan(output: &Value, http: bool) -> Value {
    assert!(output.get("fatal").is_none(), "the Node client failed: {output:#}");
    // Its 1.x line speaks the session-based revisions: it offers its newest in
    // `initialize`, never asks `server/discover`, and over HTTP sends the agreed revision
    // in a session.
    assert_eq!(output["offered"], SESSION_REVISION, "{output:#}");
    let methods: Vec<&str> = output["methods"].as_array().unwrap().iter().map(|m| m.as_str().unwrap()).collect();
    assert_eq!(methods[..2], ["initialize", "tools/list"], "{methods:?}");
    assert!(methods[2..].iter().all(|m| *m == "tools/call"), "{methods:?}");
    if http {
        assert_eq!(output["headerVersion"], SESSION_REVISION, "{output:#}");
        assert!(output["sessionId"].as_str().is_some_and(|id| !id.is_empty()), "a session: {output:#}");
    } else {
        assert!(output["headerVersion"].is_null() && output["sessionId"].is_null(), "{output:#}");
    }
    let mut results = vec![json!({"tools": output["tools"]})];
    results.extend(output["calls"].as_array().unwrap().iter().cloned());
    json!({
        "protocolVersion": output["protocolVersion"],
        "initialize": {"protocolVersion": output["protocolVersion"], "serverInfo": output["server"], "capabilities": output["capabilities"]},
        "discover": null,
        "results": results,
    })
}

/// `full_plan`'s calls as `client.mjs` takes them.
fn node_calls() -> Value {
    full_plan().as_array().unwrap()[1..].iter().map(|step| json!({"name": step["tool"], "arguments": step["arguments"]})).collect()
}

#[test]
fn node_client_over_stdio_and_http_lists_and_calls_every_tool() {
    let state = sample_copy();
    let by_cli = call(state.path(), "agent:main:main", &[], "sessions_list", "{}");
    let mut transport = vec!["stdio".to_string(), "--".into()];
    transport.extend(server_command(state.path(), &["--as", "agent:main:main"]));
    let transport: Vec<&str> = transport.iter().map(String::as_str).collect();
    let output = node_client_calls(&transport, &node_calls());
    check_full_plan(&node_output_as_plan(&output, false), &by_cli, SESSION_REVISION);

    let state = sample_copy();
    let by_cli = call(state.path(), "agent:main:main", &[], "sessions_list", "{}");
    let token = random_hex(24);
    let server = HttpServer::start(state.path(), &json!({"agents": [{"token": token, "sessionKey": "agent:main:main"}]}));
    let output = node_client_calls(&["http", &server.url, &token], &node_calls());
    check_full_plan(&node_output_as_plan(&output, true), &by_cli, SESSION_REVISION);

    // A sandboxed token's client sees its own tree only.
    let state = sample_copy();
    let sandboxed = random_hex(24);
    let server =
        HttpServer::start(state.path(), &json!({"agents": [{"token": sandboxed, "sessionKey": "agent:main:main", "sandboxed": true}]}));
    let output = node_client_run(&["http", &server.url, &sandboxed], "sessions_list", &json!({}));
    let listed = ok_result(&node_output_as_plan(&output, true)["results"][1]).clone();
    assert_eq!(listed["sessions"][0]["key"], SUBAGENT, "{listed}");
    assert_eq!(listed["count"], 1, "{listed}");
}

#[test]
fn stdout_carries_only_protocol_frames_and_end_of_input_ends_the_server() {
    let state = sample_copy();
    let argv = server_command(state.path(), &["--as", "agent:main:main", "--verbose"]);
    let mut child =
        Command::new(&argv[0]).args(&argv[1..]).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    let frames = [
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}}}),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "sessions_list", "arguments": {}}}),
        json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
            "params": {"name": "sessions_send", "arguments": {"sessionKey": DISCORD, "message": "hi", "timeoutSeconds": 5}}}),
        json!({"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {"name": "sessions_history", "arguments": {"sessionKey": 7}}}),
    ];
    let mut stdin = child.stdin.take().unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut answered = Vec::new();
    for frame in &frames {
        writeln!(stdin, "{frame}").unwrap();
        if frame.get("id").is_some() {
            // Answers come in order here: one request at a time.
            let line = lines.next().expect("an answer").unwrap();
            let value: Value = serde_json::from_str(&line).unwrap_or_else(|e| panic!("not a JSON-RPC frame on stdout ({e}): {line}"));
            assert_eq!(value["jsonrpc"], "2.0", "{line}");
            assert_eq!(value["id"], frame["id"], "{line}");
            answered.push(value);
        }
    }
    drop(stdin);
    let rest: Vec<String> = lines.map(Result::unwrap).collect();
    assert!(rest.is_empty(), "nothing but answers on stdout: {rest:?}");
    let started = Instant::now();
    let status = child.wait().unwrap();
    let mut err = String::new();
    child.stderr.take().unwrap().read_to_string(&mut err).unwrap();
    assert!(status.success(), "{status:?}: {err}");
    assert!(started.elapsed() < Duration::from_secs(30), "the server ended within its --wait");
    assert!(!err.contains("panicked"), "{err}");
    assert_eq!(answered[2]["result"]["structuredContent"]["status"], "ok", "{}", answered[2]);
    assert_eq!(answered[3]["result"]["isError"], true, "{}", answered[3]);
}

#[test]
fn bad_agents_files_and_arguments_are_clear_errors() {
    let state = sample_copy();
    let dir = state.path().to_str().unwrap();
    let file = state.path().join("agents.json");
    let path = file.to_str().unwrap();
    let serve = |extra: &[&str]| {
        let mut argv = vec!["--state", dir, "mcp"];
        argv.extend_from_slice(extra);
        cli(&argv)
    };
    let token = "0123456789abcdef0123";
    for (content, expected) in [
        (None, "cannot read the agents file"),
        (Some("{\"agents\": [".to_string()), "EOF while parsing"),
        (Some(r#"{"agents": []}"#.to_string()), "no agents"),
        (Some(r#"{"agents": [{"token": "short", "sessionKey": "agent:main:main"}]}"#.to_string()), "at least 16"),
        (Some(format!(r#"{{"agents": [{{"token": "{token}", "session": "agent:main:main"}}]}}"#)), "unknown field `session`"),
        (
            Some(format!(r#"{{"agents": [{{"token": "{token}", "sessionKey": "a"}}, {{"token": "{token}", "sessionKey": "b"}}]}}"#)),
            "agents[1]: the same token as agents[0]",
        ),
    ] {
        let _ = std::fs::remove_file(&file);
        if let Some(content) = &content {
            std::fs::write(&file, content).unwrap();
        }
        let output = serve(&["--http", "127.0.0.1:0", "--agents", path]);
        assert_eq!(output.status.code(), Some(1), "{content:?}: {}", stderr(&output));
        let err = stderr(&output);
        assert!(err.contains(path) && err.contains(expected), "{content:?}: {err}");
        assert!(stdout(&output).is_empty() && !err.contains("panicked"), "{err}");
    }
    for (extra, expected) in [
        (&["--http", "127.0.0.1:0"][..], "--agents"),
        (&[][..], "--as"),
        (&["--as", "  "][..], "--as needs a session key"),
        (&["--http", "nowhere", "--agents", path][..], "expected IP:PORT"),
        (&["--http", "127.0.0.1:0", "--agents", path, "--as", "agent:main:main"][..], "cannot be used with"),
    ] {
        let output = serve(extra);
        assert_ne!(output.status.code(), Some(0), "{extra:?}");
        assert!(stderr(&output).contains(expected), "{extra:?}: {}", stderr(&output));
    }
    let missing = cli(&["--state", "/nonexistent/state", "mcp", "--as", "agent:main:main"]);
    // 3: the state directory cannot be opened.
    assert_eq!(missing.status.code(), Some(3));
    assert!(stderr(&missing).contains("/nonexistent/state"), "{}", stderr(&missing));
}

#[test]
fn a_non_loopback_address_is_served_with_a_warning() {
    let state = sample_copy();
    let file = state.path().join("agents.json");
    std::fs::write(&file, json!({"agents": [{"token": random_hex(24), "sessionKey": "agent:main:main"}]}).to_string()).unwrap();
    let server = HttpServer::start_at(state.path(), &file, "0.0.0.0:0", &[]);
    let warned = server.stderr();
    assert!(warned.contains("not a loopback address") && warned.contains("TLS"), "{warned}");
    assert!(warned.contains("other users may read it"), "an agents file readable by others is a warning: {warned}");
}

/// `bytes` random bytes as hex: a bearer token.
fn random_hex(bytes: usize) -> String {
    let mut buf = vec![0u8; bytes];
    std::fs::File::open("/dev/urandom").and_then(|mut f| f.read_exact(&mut buf)).expect("reading /dev/urandom");
    buf.iter().map(|b| format!("{b:02x}")).collect()
}

/// `session-tools mcp --http` on a free loopback port, stopped (SIGTERM) when dropped.
struct HttpServer {
    child: Child,
    url: String,
    stderr: Arc<Mutex<String>>,
    _agents: Option<tempfile::NamedTempFile>,
}

/// The agents file of the fairness tests: `hog`'s token is a sandboxed caller (its calls go
/// to its own child session, in instances of their own), `other`'s the main session's.
fn hog_and_other(hog: &str, other: &str) -> Value {
    json!({"agents": [
        {"token": hog, "sessionKey": "agent:main:main", "sandboxed": true},
        {"token": other, "sessionKey": "agent:main:main"},
    ]})
}

impl HttpServer {
    fn start(state: &Path, agents: &Value) -> HttpServer {
        HttpServer::start_with(state, agents, &[])
    }

    /// With `extra` arguments (limits, `--verbose`).
    fn start_with(state: &Path, agents: &Value, extra: &[&str]) -> HttpServer {
        let file = tempfile::NamedTempFile::new().unwrap();
        std::fs::write(file.path(), agents.to_string()).unwrap();
        let mut server = HttpServer::start_at(state, file.path(), "127.0.0.1:0", extra);
        server._agents = Some(file);
        server
    }

    fn start_at(state: &Path, agents: &Path, addr: &str, extra: &[&str]) -> HttpServer {
        let mut child = Command::new(binary("st-cli"))
            .args(["mcp", "--state", state.to_str().unwrap(), "--http", addr, "--agents", agents.to_str().unwrap()])
            // Runs are the echo runtime's unless the test chooses (there is no default).
            .args(if extra.contains(&"--runtime") { &[][..] } else { &["--runtime", "echo"][..] })
            .args(extra)
            .env("SESSION_TOOLS_CACHE_DIR", root().join("target/component-cache"))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("starting session-tools mcp --http");
        let stderr = Arc::new(Mutex::new(String::new()));
        let (tx, rx) = std::sync::mpsc::channel();
        let lines = BufReader::new(child.stderr.take().unwrap());
        let log = stderr.clone();
        std::thread::spawn(move || {
            for line in lines.lines().map_while(Result::ok) {
                if let Some(url) = line.strip_prefix("serving MCP on ").and_then(|rest| rest.split_whitespace().next()) {
                    let _ = tx.send(url.to_string());
                }
                let mut log = log.lock().unwrap();
                log.push_str(&line);
                log.push('\n');
            }
        });
        let url = rx.recv_timeout(Duration::from_secs(60)).unwrap_or_else(|_| {
            let _ = child.kill();
            panic!("the HTTP server did not start: {}", stderr.lock().unwrap())
        });
        // Clients talk to loopback whatever address the server listens on.
        let url = url.replace("0.0.0.0", "127.0.0.1");
        HttpServer { child, url, stderr, _agents: None }
    }

    fn stderr(&self) -> String {
        self.stderr.lock().unwrap().clone()
    }
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        let _ = Command::new("kill").args(["-TERM", &self.child.id().to_string()]).status();
        let deadline = Instant::now() + Duration::from_secs(30);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// An HTTP answer read off the wire.
#[derive(Debug)]
struct RawAnswer {
    status: u16,
    head: String,
    body: String,
}

impl RawAnswer {
    fn header(&self, name: &str) -> Option<String> {
        self.head.lines().find_map(|line| {
            let (key, value) = line.split_once(':')?;
            key.trim().eq_ignore_ascii_case(name).then(|| value.trim().to_string())
        })
    }
}

/// One POST with plain HTTP/1.1 on a fresh connection (the head, and what of the body
/// arrives within a second).
fn raw_post(url: &str, token: Option<&str>, session: Option<&str>, body: &Value) -> RawAnswer {
    let rest = url.strip_prefix("http://").unwrap();
    let (host, path) = rest.split_at(rest.find('/').unwrap());
    let mut stream = TcpStream::connect(host).unwrap();
    stream.set_read_timeout(Some(Duration::from_secs(1))).unwrap();
    let body = body.to_string();
    let mut request = format!(
        "POST {path} HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: {}\r\nConnection: close\r\n",
        body.len()
    );
    if let Some(token) = token {
        request.push_str(&format!("Authorization: Bearer {token}\r\n"));
    }
    if let Some(session) = session {
        request.push_str(&format!("Mcp-Session-Id: {session}\r\n"));
    }
    request.push_str("\r\n");
    request.push_str(&body);
    stream.write_all(request.as_bytes()).unwrap();
    let mut received = Vec::new();
    let mut buf = [0u8; 4096];
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        match stream.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => received.extend_from_slice(&buf[..n]),
            // An event stream stays open: what came is enough once the head is complete.
            Err(_) if received.windows(4).any(|w| w == b"\r\n\r\n") => break,
            Err(_) if Instant::now() > deadline => break,
            Err(_) => {}
        }
    }
    let text = String::from_utf8_lossy(&received).into_owned();
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    let status = head.split_whitespace().nth(1).and_then(|s| s.parse().ok()).unwrap_or(0);
    RawAnswer { status, head: head.to_string(), body: body.to_string() }
}
