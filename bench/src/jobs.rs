//! `jobs`: pending background flows resumed after a restart (none lost, none twice). The state
//! holds `flows` sub-agent flows of `agents` agents, left pending as a process that
//! spawned them and stopped leaves them (each child's run has ended; its announce, the
//! delivery and the cleanup are still to come). One `session-tools jobs` process resumes
//! them all; the figures are its wall time and its peak memory (VmHWM, read while it
//! lives), and the check is that every flow was announced exactly once and no job is left.

use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{anyhow, bail, Context, Result};
use serde_json::json;
use session_tools_host::gateway::embedded::runtime::EchoRuntime;
use session_tools_host::gateway::embedded::EmbeddedGateway;
use session_tools_host::system_clock;
use session_tools_host::{tracing_log, Caller, ServiceBuilder};

use super::report::{Figure, Target, Unit};
use super::stats::ns_since;
use super::Ctx;

/// Spawns `flows` sub-agents as `agents` agents' channel sessions, on `threads` threads,
/// with no scheduler: the flows stay pending, as after a stop.
fn generate(dir: &Path, cache: &Path, flows: usize, agents: usize) -> Result<()> {
    std::fs::create_dir_all(dir)?;
    let list: Vec<serde_json::Value> = (0..agents).map(|a| json!({"id": format!("a{a}"), "default": a == 0})).collect();
    // No archive job: the figure is about the flows themselves.
    let config = json!({"agents": {"list": list, "defaults": {"subagents": {"archiveAfterMinutes": 0}}}});
    std::fs::write(dir.join("openclaw.json"), config.to_string())?;
    let gateway = EmbeddedGateway::builder(dir).with_runtime(Arc::new(EchoRuntime)).with_clock(system_clock()).open()?;
    let options = session_tools_host::EngineOptions::default().with_cache_dir(Some(cache.to_path_buf()));
    let service = ServiceBuilder::over_embedded(&gateway).with_engine(options).with_log(tracing_log()).build()?;
    let threads = 4usize;
    std::thread::scope(|scope| -> Result<()> {
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                let service = service.clone();
                scope.spawn(move || -> Result<()> {
                    for n in (t..flows).step_by(threads) {
                        let agent = n % agents;
                        let caller = Caller {
                            agent_session_key: Some(format!("agent:a{agent}:discord:channel:{agent}")),
                            agent_channel: Some("discord".into()),
                            ..Caller::default()
                        };
                        let answer = service
                            .call(&caller, "sessions_spawn", &json!({"task": format!("task {n}")}).to_string())
                            .map_err(|e| anyhow!("spawn {n}: {e}"))?;
                        if !answer.contains("\"accepted\"") {
                            bail!("spawn {n}: {answer}");
                        }
                    }
                    Ok(())
                })
            })
            .collect();
        for handle in handles {
            handle.join().map_err(|_| anyhow!("a spawning thread panicked"))??;
        }
        Ok(())
    })?;
    if !gateway.wait_runs_idle(Duration::from_secs(600)) {
        bail!("the children's runs did not end");
    }
    let pending = service.pending_jobs().len();
    if pending != flows {
        bail!("{pending} jobs pending after {flows} spawns");
    }
    Ok(())
}

pub fn run(ctx: &mut Ctx, flows: usize, agents: usize) -> Result<()> {
    let dir = ctx.work.join(format!("jobs-{flows}"));
    let t = Instant::now();
    generate(&dir, &ctx.cache, flows, agents)?;
    session_tools_cli::note!("  {flows} pending flows of {agents} agents made in {:.1} s", t.elapsed().as_secs_f64());
    let t = Instant::now();
    let child = Command::new(&ctx.cli)
        .arg("--state")
        .arg(&dir)
        // The flows were made with the echo runtime; their steps start runs, which need one.
        .args(["jobs", "--runtime", "echo", "--wait", "3600"])
        .env("SESSION_TOOLS_CACHE_DIR", &ctx.cache)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .context("starting session-tools jobs")?;
    let (peak_kib, output) = super::process::watch_peak(child)?;
    let wall = ns_since(t);
    if !output.status.success() {
        bail!("session-tools jobs failed: {}", String::from_utf8_lossy(&output.stderr));
    }
    let report = String::from_utf8_lossy(&output.stdout);
    if !report.contains("0 still pending") {
        bail!("jobs left after the resume: {report}");
    }
    let outbox = std::fs::read_to_string(dir.join("session-tools/outbox.jsonl")).unwrap_or_default();
    let announces = outbox.lines().filter(|l| l.contains("Status: success")).count();
    if announces != flows {
        bail!("{announces} announces for {flows} flows");
    }
    let what =
        format!("{} pending sub-agent flows of {} agents", super::report::thousands(flows as f64), super::report::thousands(agents as f64));
    ctx.report.add(
        Figure::value("jobs", format!("resume {what}: one `jobs` process, wall time"), wall, Unit::Ns)
            .target(Target::AtMost(if flows >= 10_000 { 600e9 } else { 60e9 }))
            .note(format!(
                "{:.1} flows/s; each: the announce step run, the announce delivered, the job removed; 4 step workers",
                flows as f64 / (wall / 1e9)
            )),
    );
    ctx.report.add(
        Figure::value("jobs", format!("resume {what}: the process's peak memory"), peak_kib as f64 * 1024.0, Unit::Bytes)
            .target(Target::AtMost(512.0 * 1024.0 * 1024.0))
            .note("VmHWM; no thread per pending wait, the jobs indexed once"),
    );
    Ok(())
}

/// Fairness: one agent at its bound of pending jobs (`maxPendingJobs`, 1,000 sub-agent flows,
/// each with its run on disk) does not slow another agent: the other agent's
/// `sessions_send` (fire and forget), before and after, same process, same state.
pub fn isolation(ctx: &mut Ctx) -> Result<()> {
    let dir = ctx.work.join("isolation");
    std::fs::create_dir_all(&dir)?;
    let config = json!({
        "agents": {"list": [{"id": "noisy", "default": true}, {"id": "quiet"}], "defaults": {"subagents": {"archiveAfterMinutes": 0}}}
    });
    std::fs::write(dir.join("openclaw.json"), config.to_string())?;
    let gateway = EmbeddedGateway::builder(&dir).with_runtime(Arc::new(EchoRuntime)).open()?;
    let options = session_tools_host::EngineOptions::default().with_cache_dir(Some(ctx.cache.clone()));
    let service = ServiceBuilder::over_embedded(&gateway).with_engine(options).with_log(tracing_log()).build()?;
    let quiet = Caller {
        agent_session_key: Some("agent:quiet:discord:channel:2".into()),
        agent_channel: Some("discord".into()),
        ..Caller::default()
    };
    let send = json!({"sessionKey": "agent:quiet:discord:channel:3", "message": "hi", "timeoutSeconds": 0}).to_string();
    let mut call = || -> Result<f64> {
        let t = Instant::now();
        service.call(&quiet, "sessions_send", &send).map_err(|e| anyhow!("the quiet agent's send: {e}"))?;
        Ok(ns_since(t))
    };
    let plan = ctx.plan(Duration::from_millis(5));
    let before = super::stats::sample(plan, &mut call)?;
    let noisy = Caller {
        agent_session_key: Some("agent:noisy:discord:channel:1".into()),
        agent_channel: Some("discord".into()),
        ..Caller::default()
    };
    let bound = session_tools_host::Limits::default().max_pending_jobs as usize;
    for n in 0..bound {
        service.call(&noisy, "sessions_spawn", &json!({"task": format!("task {n}")}).to_string()).map_err(|e| anyhow!("spawn {n}: {e}"))?;
    }
    gateway.wait_runs_idle(Duration::from_secs(600));
    let pending = service.pending_jobs().iter().filter(|j| j.agent == "noisy").count();
    if pending != bound {
        bail!("the noisy agent has {pending} pending jobs, not its bound of {bound}");
    }
    let after = super::stats::sample(plan, &mut call)?;
    let ratio = after.median / before.median;
    ctx.report.add(Figure::time("jobs", "another agent's sessions_send (fire and forget), alone", before));
    ctx.report.add(
        Figure::time("jobs", format!("  the same, one agent at its bound ({bound} pending jobs, {bound} runs on disk)"), after)
            .note("the job index answers an agent's pending count; runs are a file each"),
    );
    ctx.report.add(
        Figure::value("jobs", "  ratio (one agent at its bound / alone)", ratio, Unit::Ratio)
            .target(Target::AtMost(1.5))
            .note("12 → 69 ms (5.8×) before the in-memory index"),
    );
    Ok(())
}
