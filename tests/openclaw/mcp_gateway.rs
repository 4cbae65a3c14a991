//! `session-tools mcp --gateway`: the MCP server over a running OpenClaw gateway (the real
//! one, on a copy of the sample state), driven by the real Python MCP client, answers as
//! `session-tools call` over the same gateway does. Needs Node/npm, the npm registry and
//! PyPI on first use (cached outside the repository); fails, never skips, without them.

use serde_json::{json, Value};
use session_tools_tests::cli::{binary, cli, stderr, stdout, CLI_BINARY};
use session_tools_tests::openclaw::{Gateway, GatewayOptions};
use session_tools_tests::{root, sample_copy};

use crate::mcp_clients::python_client;

#[test]
fn a_server_over_a_running_gateway_answers_as_call_does() {
    let state = sample_copy();
    let gateway = Gateway::start(state.path(), GatewayOptions::default())
        .unwrap_or_else(|e| panic!("starting the real OpenClaw gateway failed:\n{e}"));
    let jobs = tempfile::tempdir().unwrap();
    let url = gateway.url();
    let live = ["--gateway", url.as_str(), "--token", gateway.token(), "--jobs-dir", jobs.path().to_str().unwrap()];

    // The stdio server as the client starts it (`env` passes the test compile cache: stdio
    // clients start servers with a minimal environment).
    let mut transport = vec![
        "stdio".to_string(),
        "--".into(),
        "env".into(),
        format!("SESSION_TOOLS_CACHE_DIR={}", root().join("target/component-cache").display()),
        binary(CLI_BINARY).display().to_string(),
        "mcp".into(),
        "--state".into(),
        state.path().display().to_string(),
        "--as".into(),
        "agent:main:main".into(),
    ];
    transport.extend(live.iter().map(|s| s.to_string()));
    let transport: Vec<&str> = transport.iter().map(String::as_str).collect();
    let plan = json!([{"op": "call", "tool": "sessions_list", "arguments": {}}]);
    let output = python_client(&transport, &plan);
    assert!(output.get("fatal").is_none(), "the Python client failed: {output:#}");
    let result = &output["results"][0];
    assert_eq!(result["isError"], json!(false), "{output:#}");
    let over_mcp = &result["structuredContent"];

    let state_text = state.path().to_str().unwrap();
    let mut args: Vec<&str> = vec!["--state", state_text];
    args.extend(live);
    args.extend(["call", "--as", "agent:main:main", "sessions_list", "{}"]);
    let out = cli(&args);
    assert!(out.status.success(), "{}", stderr(&out));
    let by_cli: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(over_mcp, &by_cli, "MCP over the gateway vs call over the gateway");
    assert!(by_cli["count"].as_u64().unwrap() >= 6, "{by_cli:#}");
}
