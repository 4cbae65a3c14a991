//! What an operator sees of `mcp --http`: `/metrics` behind its own token, its
//! counters moved by a real MCP client's calls, and a JSON log line per tool call.

use serde_json::{json, Value};

use super::*;

/// One GET on a fresh connection: the status and the body.
fn raw_get(url: &str, token: Option<&str>) -> (u16, String) {
    let rest = url.strip_prefix("http://").unwrap();
    let (host, path) = rest.split_at(rest.find('/').unwrap());
    let mut stream = TcpStream::connect(host).unwrap();
    stream.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    let mut request = format!("GET {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n");
    if let Some(token) = token {
        request.push_str(&format!("Authorization: Bearer {token}\r\n"));
    }
    request.push_str("\r\n");
    stream.write_all(request.as_bytes()).unwrap();
    let mut received = String::new();
    stream.read_to_string(&mut received).expect("the whole answer (the server closes the connection)");
    let (head, body) = received.split_once("\r\n\r\n").unwrap_or((&received, ""));
    let status = head.split_whitespace().nth(1).and_then(|s| s.parse().ok()).unwrap_or(0);
    (status, body.to_string())
}

/// The value of the sample `line` (name and labels, as written) in a metrics text.
fn sample(text: &str, line: &str) -> Option<f64> {
    text.lines().find_map(|l| l.strip_prefix(line)?.strip_prefix(' ')?.parse().ok())
}

#[test]
fn metrics_move_with_a_real_clients_calls_and_need_their_own_token() {
    let state = sample_copy();
    let (main, sandboxed, reader) = (random_hex(24), random_hex(24), random_hex(24));
    let server = HttpServer::start_with(
        state.path(),
        &json!({
            "agents": [
                {"token": main, "sessionKey": "agent:main:main"},
                {"token": sandboxed, "sessionKey": "agent:main:main", "sandboxed": true},
            ],
            "metrics": {"token": reader},
        }),
        &["--log-format", "json", "--log-level", "info"],
    );
    let metrics_url = server.url.replace("/mcp", "/metrics");

    // Only the metrics token reads them: not an agent's, not none.
    for token in [None, Some(main.as_str()), Some(sandboxed.as_str())] {
        let (status, body) = raw_get(&metrics_url, token);
        assert_eq!(status, 401, "{token:?}: {body}");
    }
    let (status, before) = raw_get(&metrics_url, Some(&reader));
    assert_eq!(status, 200, "{before}");
    let calls = r#"session_tools_tool_calls_total{agent="main",tool="sessions_list"}"#;
    assert_eq!(sample(&before, calls), None, "{before}");
    assert_eq!(sample(&before, "session_tools_tool_calls_in_flight"), Some(0.0), "{before}");

    let lists = json!([call_step("sessions_list", json!({})), call_step("sessions_list", json!({}))]);
    let as_main = python_client(&["http", &server.url, &main], &lists);
    assert!(as_main.get("fatal").is_none(), "{as_main:#}\nserver: {}", server.stderr());
    // The sandboxed caller's read of a session outside its tree is refused by the
    // component (a tool answer, `forbidden`): a call like any other. (The host's N15 guard
    // counts what a component asks past it: `cli::the_json_log_has_a_line_per_tool_call_and_per_n15_refusal`
    // with the hostile one, `metrics::tests` for the counter.)
    let refused = json!([call_step("sessions_history", json!({"sessionKey": DISCORD, "limit": 1}))]);
    let as_sandboxed = python_client(&["http", &server.url, &sandboxed], &refused);
    assert_eq!(as_sandboxed["results"][0]["isError"], true, "{as_sandboxed:#}");

    let (status, after) = raw_get(&metrics_url, Some(&reader));
    assert_eq!(status, 200, "{after}");
    assert_eq!(sample(&after, calls), Some(2.0), "{after}");
    assert_eq!(
        sample(&after, r#"session_tools_tool_call_duration_seconds_count{agent="main",tool="sessions_list"}"#),
        Some(2.0),
        "{after}"
    );
    assert_eq!(sample(&after, r#"session_tools_tool_calls_total{agent="main",tool="sessions_history"}"#), Some(1.0), "{after}");
    assert!(!after.contains("session_tools_n15_refusals_total{"), "{after}");
    assert!(!after.contains("session_tools_tool_errors_total{"), "{after}");
    assert_eq!(sample(&after, "session_tools_tool_calls_in_flight"), Some(0.0), "{after}");
    assert!(sample(&after, "session_tools_idle_instances").is_some_and(|n| n >= 1.0), "{after}");
    assert_eq!(sample(&after, "session_tools_pending_jobs"), Some(0.0), "{after}");
    assert!(after.trim_end().ends_with("# EOF"), "{after}");

    // The log: one JSON line per tool call, with its agent, tool, outcome and duration.
    let log = server.stderr();
    let calls: Vec<Value> = log
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .filter(|line| line["fields"]["event"] == "tool_call")
        .collect();
    assert_eq!(calls.len(), 3, "{log}");
    for call in &calls {
        assert_eq!(call["target"], "session_tools_host::events", "{call}");
        assert_eq!(call["fields"]["agent"], "main", "{call}");
        assert_eq!(call["fields"]["outcome"], "ok", "{call}");
        assert!(call["fields"]["duration_ms"].as_f64().is_some_and(|ms| ms > 0.0), "{call}");
    }
    let tools: Vec<&str> = calls.iter().map(|c| c["fields"]["tool"].as_str().unwrap()).collect();
    assert_eq!(tools, ["sessions_list", "sessions_list", "sessions_history"]);
}

#[test]
fn without_a_metrics_token_there_are_no_metrics() {
    let state = sample_copy();
    let main = random_hex(24);
    let server = HttpServer::start(state.path(), &json!({"agents": [{"token": main, "sessionKey": "agent:main:main"}]}));
    let (status, body) = raw_get(&server.url.replace("/mcp", "/metrics"), Some(&main));
    assert_eq!(status, 404, "{body}");
}

/// What docs/mcp.md tells a person to run for the HTTP server, run as written: the
/// command that makes a token (named in the prose), and the `curl` that reads the
/// metrics (its address the test server's, its token in `$METRICS_TOKEN` as the page says).
#[test]
fn the_mcp_page_s_token_and_metrics_commands_work_as_written() {
    let page = std::fs::read_to_string(root().join("docs/mcp.md")).unwrap();
    let make_token = "openssl rand -hex 32";
    assert!(page.contains(&format!("`{make_token}`")), "docs/mcp.md names `{make_token}`");
    let make = || {
        let made = Command::new("sh").args(["-c", make_token]).output().expect("running sh");
        assert!(
            made.status.success(),
            "`{make_token}` failed (openssl must be on PATH: apt-get install openssl): {}",
            String::from_utf8_lossy(&made.stderr)
        );
        String::from_utf8(made.stdout).unwrap().trim().to_string()
    };
    let (token, reader) = (make(), make());
    assert!(token.len() == 64 && token.bytes().all(|b| b.is_ascii_hexdigit()), "{token}");

    let state = sample_copy();
    let server = HttpServer::start(
        state.path(),
        &json!({"agents": [{"token": token, "sessionKey": "agent:main:main"}], "metrics": {"token": reader}}),
    );
    let output = python_client(&["http", &server.url, &token], &json!([call_step("sessions_list", json!({}))]));
    assert!(output.get("fatal").is_none(), "{output:#}\nserver: {}", server.stderr());
    ok_result(&output["results"][0]);

    let (blocks, _) = session_tools_tests::doc_pages::split_blocks(&page);
    let block = blocks.iter().find(|b| b.body.trim_start().starts_with("curl ")).expect("docs/mcp.md's metrics command");
    let page_address = "http://127.0.0.1:8765";
    assert!(block.body.contains(page_address), "{}", block.body);
    let command = block.body.replace(page_address, server.url.trim_end_matches("/mcp"));
    let read = Command::new("sh").args(["-ec", &command]).env("METRICS_TOKEN", &reader).output().expect("running sh");
    let (out, err) = (String::from_utf8_lossy(&read.stdout), String::from_utf8_lossy(&read.stderr));
    assert!(read.status.success(), "{command} failed (curl must be on PATH: apt-get install curl): {err}");
    assert_eq!(sample(&out, r#"session_tools_tool_calls_total{agent="main",tool="sessions_list"}"#), Some(1.0), "{out}");
    assert!(out.trim_end().ends_with("# EOF"), "{out}");
}
