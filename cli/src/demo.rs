//! `session-tools demo`: the tools on a persistent state directory (by default
//! `./demo-state`, created from the sample OpenClaw state built into the binary on first
//! use), with the echo runtime answering runs (its replies say so). Run it twice: the
//! second run sees the sessions, transcripts and deliveries of the first.

use std::path::PathBuf;
use std::time::Duration;

use anyhow::{Context, Result};
use serde_json::{json, Value};
use session_tools_host::gateway::Gateway as _;
use session_tools_host::{Caller, Service};

use crate::backend::{open_embedded, Backend, Choice, Source, StateDir, Target};
use crate::options::{Global, RuntimeChoice};
use crate::sample::{private_dirs, write_private, write_sample};
use crate::show::message_text;

/// The demo's config: the sample's, with agent-to-agent messaging on and `main` allowed to
/// spawn sub-agents for `ops`.
fn demo_config() -> Value {
    json!({
        "agents": {
            "defaults": {"model": {"primary": "anthropic/claude-opus-4-5"}, "sandbox": {"sessionToolsVisibility": "spawned"}},
            "list": [
                {"id": "main", "default": true, "subagents": {"allowAgents": ["ops"]}},
                {"id": "ops", "model": "openai/gpt-5.2"}
            ]
        },
        "session": {"dmScope": "main", "agentToAgent": {"maxPingPongTurns": 2}},
        "tools": {"agentToAgent": {"enabled": true}}
    })
}

fn heading(text: &str) {
    crate::outln!("\n== {text}");
}

fn call(service: &Service, caller: &Caller, tool: &str, args: Value) -> Result<Value> {
    let shown = serde_json::to_string(&args)?;
    crate::outln!(
        "$ session-tools call --as {}{} {tool} '{shown}'",
        caller.agent_session_key.as_deref().unwrap_or(""),
        if caller.sandboxed { " --sandboxed" } else { "" }
    );
    let result = service.call(caller, tool, &shown).map_err(|e| anyhow::anyhow!("{tool}: {e}"))?;
    let value: Value = serde_json::from_str(&result)?;
    service.run_jobs(Duration::from_secs(60));
    Ok(value)
}

fn show(value: &Value, max_lines: usize) {
    let text = serde_json::to_string_pretty(value).unwrap_or_default();
    let lines: Vec<&str> = text.lines().collect();
    for line in lines.iter().take(max_lines) {
        crate::outln!("  {line}");
    }
    if lines.len() > max_lines {
        crate::outln!("  … ({} more lines)", lines.len() - max_lines);
    }
}

pub fn run(global: &Global) -> Result<i32> {
    let dir: PathBuf = global.state.clone().unwrap_or_else(|| PathBuf::from("demo-state"));
    if global.gateway.is_some() {
        return Err(crate::exit::usage(
            "the demo works on a state directory's files with the echo runtime; drop --gateway (use `call` with a running gateway)",
        ));
    }
    let fresh = !dir.join("agents").is_dir();
    if fresh {
        write_sample(&dir).context("creating the demo state from the sample")?;
        write_private(&dir.join("openclaw.json"), serde_json::to_string_pretty(&demo_config())?.as_bytes())?;
    }
    let marker = dir.join("session-tools").join("demo-runs");
    let run: u64 = std::fs::read_to_string(&marker).ok().and_then(|s| s.trim().parse().ok()).unwrap_or(0) + 1;
    private_dirs(marker.parent().expect("has a parent"))?;
    write_private(&marker, run.to_string().as_bytes())?;
    crate::outln!(
        "session-tools demo, run {run}, on {} ({})",
        dir.display(),
        if fresh { "created from the sample OpenClaw state" } else { "persisted from earlier runs" }
    );

    let mut global = global.clone();
    global.state = Some(dir.clone());
    // The demo chooses its runtime: the echo runtime, unless --runtime names another.
    global.runtime.get_or_insert(RuntimeChoice::Echo);
    crate::outln!("(runs are answered by the {} runtime: no model, no tokens)", global.runtime.as_ref().expect("chosen above"));
    let files = Choice { target: Target::Files, source: Source::FilesOption };
    let opened = open_embedded(&global, dir.clone(), StateDir::MustExist, files)?;
    let Backend::Embedded(gateway) = &opened.backend else { anyhow::bail!("the demo runs on the embedded gateway") };
    let service = &opened.service;
    let alice = Caller {
        agent_session_key: Some("agent:main:main".into()),
        agent_channel: Some("discord".into()),
        agent_to: Some("user:240918250145857536".into()),
        agent_account_id: Some("default".into()),
        ..Default::default()
    };
    let sandboxed = Caller { sandboxed: true, ..alice.clone() };

    heading("The tools a model sees");
    for tool in service.describe().map_err(|e| anyhow::anyhow!("{e}"))? {
        crate::outln!("  {:<17} {}", tool.name, tool.description);
    }

    heading("sessions_list: every session the main agent may see, with its last message");
    let listed = call(service, &alice, "sessions_list", json!({"messageLimit": 1}))?;
    crate::outln!("  {} sessions:", listed["count"]);
    for row in listed["sessions"].as_array().into_iter().flatten() {
        let last = row["messages"].as_array().and_then(|m| m.last()).map(message_text).unwrap_or_default();
        let last: String = last.split_whitespace().collect::<Vec<_>>().join(" ").chars().take(60).collect();
        crate::outln!(
            "  {:<60} {:<6} {:<9} {last}",
            row["key"].as_str().unwrap_or(""),
            row["kind"].as_str().unwrap_or(""),
            row["channel"].as_str().unwrap_or("")
        );
    }

    heading("sessions_history: the Discord channel, without tool results");
    show(
        &call(service, &alice, "sessions_history", json!({"sessionKey": "agent:main:discord:channel:1187421193829244938", "limit": 2}))?,
        24,
    );

    heading("agents_list: who main may spawn sub-agents for");
    show(&call(service, &alice, "agents_list", json!({}))?, 20);

    heading("sessions_send: main asks ops in its Slack channel; they ping-pong, then ops announces");
    let message = format!("Demo run {run}: is the incident channel quiet?");
    show(
        &call(
            service,
            &alice,
            "sessions_send",
            json!({"sessionKey": "agent:ops:slack:channel:c07abcdef12", "message": message, "timeoutSeconds": 30}),
        )?,
        12,
    );

    heading("sessions_spawn from a sandboxed session: a sub-agent for ops, announced back to main");
    let spawned = call(
        service,
        &sandboxed,
        "sessions_spawn",
        json!({"task": format!("Check the deploy log for run {run}"), "label": format!("demo-run-{run}"), "agentId": "ops"}),
    )?;
    show(&spawned, 12);
    let child = spawned["childSessionKey"].as_str().unwrap_or("").to_string();

    heading("What the sandboxed session can see: only the sub-agents it spawned");
    let visible = call(service, &sandboxed, "sessions_list", json!({}))?;
    crate::outln!("  {} visible sessions (of {} in the store):", visible["count"], listed["count"]);
    for row in visible["sessions"].as_array().into_iter().flatten() {
        crate::outln!("  {} ({})", row["key"].as_str().unwrap_or(""), row["label"].as_str().unwrap_or(""));
    }
    let denied = call(service, &sandboxed, "sessions_history", json!({"sessionKey": "agent:main:discord:channel:1187421193829244938"}))?;
    crate::outln!("  history of the Discord channel from the sandbox: {}", denied["error"].as_str().unwrap_or("allowed"));
    if !child.is_empty() {
        let history = call(service, &sandboxed, "sessions_history", json!({"sessionKey": child}))?;
        for m in history["messages"].as_array().into_iter().flatten() {
            let text: String = message_text(m).split_whitespace().collect::<Vec<_>>().join(" ").chars().take(90).collect();
            crate::outln!("  {:>9}: {text}", m["role"].as_str().unwrap_or(""));
        }
    }

    heading("The outbox: what was delivered to channels (latest 2)");
    let deliveries = gateway.deliveries()?;
    for d in deliveries.iter().rev().take(2).rev() {
        crate::outln!("  -> {}:{}", d["channel"].as_str().unwrap_or(""), d["to"].as_str().unwrap_or(""));
        for line in d["message"].as_str().unwrap_or("").lines() {
            crate::outln!("     {line}");
        }
    }

    heading("Persistence");
    let rows = gateway.list_rows(&Default::default()).map_err(|e| anyhow::anyhow!("{e}"))?;
    let subagents = rows.iter().filter(|r| r.key.contains(":subagent:")).count();
    let history = gateway
        .chat_history(&session_tools_host::gateway::HistoryParams {
            session_key: "agent:ops:slack:channel:c07abcdef12".into(),
            limit: Some(1000),
        })
        .map_err(|e| anyhow::anyhow!("{e}"))?;
    let earlier = history
        .messages
        .iter()
        .filter(|m| m.role.as_deref() == Some("user"))
        .filter(|m| serde_json::from_str::<Value>(&m.json).is_ok_and(|v| message_text(&v).starts_with("Demo run ")))
        .count();
    crate::outln!("  {} sessions on disk, {subagents} of them sub-agents; {} deliveries in the outbox", rows.len(), deliveries.len());
    crate::outln!("  the ops Slack transcript holds {earlier} demo requests so far (one a run: this is run {run})");
    crate::outln!(
        "\nRun the demo again to see the state grow; inspect it with:\n  session-tools --state {} sessions | history KEY | outbox",
        dir.display()
    );
    Ok(0)
}
