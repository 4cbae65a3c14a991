//! The MCP client set-ups of `docs/mcp.md` work as pasted: each fenced block marked
//! `mcp-client=NAME` is read as its client reads it, the command it names is started
//! against a copy of the sample state, and a real MCP client (the Python SDK, as in
//! `tests/mcp.rs`) lists the tools through it.
//!
//! What is put in for the person's own: `session-tools` is the built binary; a path that
//! ends in `/.openclaw` (`~/.openclaw`, `/home/me/.openclaw`, VS Code's
//! `${userHome}/.openclaw`) is the copy; the HTTP example's port is one the system picks,
//! and its agents file one made here with a fresh token (the page's tokens are elided).

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use serde_json::{json, Value};
use session_tools_tests::cli::binary;
use session_tools_tests::doc_pages::{read, simple_commands, split_blocks, Block};
use session_tools_tests::{root, sample_copy};

use crate::mcp::clients::python_client;

const TOOLS: [&str; 5] = ["sessions_list", "sessions_history", "sessions_send", "sessions_spawn", "agents_list"];

/// The word as the server gets it, the person's own parts put in.
fn put_in(word: &str, state: &Path) -> String {
    if word == "session-tools" {
        binary("st-cli").display().to_string()
    } else if word.ends_with("/.openclaw") {
        state.display().to_string()
    } else {
        word.to_string()
    }
}

/// The server command a block names, as its client would start it.
fn server_of(client: &str, block: &Block) -> Vec<String> {
    match client {
        "claude-code" => {
            let commands = simple_commands(&block.body).unwrap_or_else(|e| panic!("{client}: {e}"));
            let [words] = commands.as_slice() else { panic!("{client}: one command: {commands:?}") };
            assert_eq!(&words[..3], ["claude", "mcp", "add"], "{client}: {words:?}");
            let dashes = words.iter().position(|w| w == "--").unwrap_or_else(|| panic!("{client}: `--` before the server: {words:?}"));
            words[dashes + 1..].to_vec()
        }
        "claude-desktop" | "cursor" | "vscode" => {
            let config: Value = serde_json::from_str(&block.body).unwrap_or_else(|e| panic!("{client}: not JSON ({e}): {}", block.body));
            let servers = if client == "vscode" { &config["servers"] } else { &config["mcpServers"] };
            let servers = servers.as_object().unwrap_or_else(|| panic!("{client}: no servers: {config}"));
            let [(_, server)] = servers.iter().collect::<Vec<_>>()[..] else { panic!("{client}: one server: {config}") };
            if client == "vscode" {
                assert_eq!(server["type"], "stdio", "VS Code's servers name their type: {server}");
            }
            let mut words = vec![server["command"].as_str().unwrap_or_else(|| panic!("{client}: a command: {server}")).to_string()];
            words.extend(server["args"].as_array().unwrap().iter().map(|a| a.as_str().unwrap().to_string()));
            words
        }
        other => panic!("no rule for the client {other}"),
    }
}

fn listed_tools(output: &Value, what: &str) -> Vec<String> {
    assert!(output.get("fatal").is_none(), "{what}: the MCP client failed: {output:#}");
    output["results"][0]["tools"]
        .as_array()
        .unwrap_or_else(|| panic!("{what}: {output:#}"))
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_string())
        .collect()
}

/// `session-tools mcp --http …` started; stopped when dropped.
struct Served(Child);

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Starts the HTTP example and answers the URL it serves.
fn start_http(block: &Block, state: &Path, agents: &Path) -> (Served, String) {
    let commands = simple_commands(&block.body).unwrap_or_else(|e| panic!("http: {e}"));
    let [words] = commands.as_slice() else { panic!("http: one command: {commands:?}") };
    let words: Vec<String> = words
        .iter()
        .map(|w| match w.as_str() {
            w if w.ends_with(".json") => agents.display().to_string(),
            // The address keeps its host; the port is one the system picks.
            w if w.parse::<std::net::SocketAddr>().is_ok() => format!("{}:0", w.rsplit_once(':').unwrap().0),
            w => put_in(w, state),
        })
        .collect();
    let mut child = Command::new(&words[0])
        .args(&words[1..])
        .env("OPENCLAW_STATE_DIR", state)
        .env("SESSION_TOOLS_CACHE_DIR", root().join("target/component-cache"))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("http: starting {words:?}: {e}"));
    let (tx, rx) = std::sync::mpsc::channel();
    let lines = BufReader::new(child.stderr.take().unwrap());
    std::thread::spawn(move || {
        let mut said = String::new();
        for line in lines.lines().map_while(Result::ok) {
            if let Some(url) = line.strip_prefix("serving MCP on ").and_then(|rest| rest.split_whitespace().next()) {
                let _ = tx.send(Ok(url.to_string()));
            }
            said.push_str(&line);
            said.push('\n');
        }
        let _ = tx.send(Err(said));
    });
    match rx.recv_timeout(Duration::from_secs(60)) {
        Ok(Ok(url)) => (Served(child), url),
        other => {
            let _ = child.kill();
            panic!("http: {words:?} did not start serving: {other:?}")
        }
    }
}

#[test]
fn every_client_set_up_of_the_mcp_page_lists_the_tools() {
    let page = read(&root().join("docs/mcp.md"));
    let (blocks, _) = split_blocks(&page);
    let marked: Vec<(String, &Block)> =
        blocks.iter().filter_map(|b| b.marks().iter().find_map(|m| m.strip_prefix("mcp-client=")).map(|c| (c.to_string(), b))).collect();
    let clients: Vec<&str> = marked.iter().map(|(c, _)| c.as_str()).collect();
    for wanted in ["claude-code", "claude-desktop", "cursor", "vscode", "http"] {
        assert!(clients.contains(&wanted), "docs/mcp.md has a `mcp-client={wanted}` block: {clients:?}");
    }
    let state = sample_copy();
    for (client, block) in &marked {
        let what = format!("docs/mcp.md line {} ({client})", block.line);
        let output = if client == "http" {
            let token = format!("{:032x}", std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos());
            let agents = state.path().join("agents-file.json");
            std::fs::write(&agents, json!({"agents": [{"token": token, "sessionKey": "agent:main:main"}]}).to_string()).unwrap();
            let (_served, url) = start_http(block, state.path(), &agents);
            python_client(&["http", &url, &token], &json!([{"op": "list"}]))
        } else {
            let server: Vec<String> = server_of(client, block).iter().map(|w| put_in(w, state.path())).collect();
            assert!(server[0].ends_with("st-cli"), "{what}: the server is session-tools: {server:?}");
            // Stdio clients start servers with a small environment: `env` hands over the
            // test compile cache.
            let mut transport = vec!["stdio".to_string(), "--".into(), "env".into()];
            transport.push(format!("SESSION_TOOLS_CACHE_DIR={}", root().join("target/component-cache").display()));
            transport.extend(server);
            let transport: Vec<&str> = transport.iter().map(String::as_str).collect();
            python_client(&transport, &json!([{"op": "list"}]))
        };
        assert_eq!(listed_tools(&output, &what), TOOLS, "{what}");
    }
}
