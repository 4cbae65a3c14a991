//! Many agents calling at once through a [`Service`] against the embedded gateway, each
//! agent with its own instance, each answer checked for data of other agents.

use std::collections::HashSet;
use std::fmt::Write as _;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Barrier};
use std::time::{Duration, Instant};

use anyhow::{anyhow, Result};
use serde_json::Value;
use session_tools_host::gateway::embedded::EmbeddedGateway;
use session_tools_host::gateway::ListParams;
use session_tools_host::Caller;

use super::gen::{self, Spec};
use super::report::{ms, thousands, Figure, Target, Unit};
use super::stats::{ns_since, Stats};
use super::Ctx;
use session_tools_host::EngineOptions;
use session_tools_host::{tracing_log, Service, ServiceBuilder};

struct World {
    service: Service,
    agents: Vec<String>,
    /// The sessionIds of each agent.
    own: Vec<HashSet<String>>,
    violations: AtomicUsize,
    errors: AtomicUsize,
    first_violation: std::sync::Mutex<Option<String>>,
}

impl World {
    fn violation(&self, what: String) {
        self.violations.fetch_add(1, Ordering::Relaxed);
        self.first_violation.lock().unwrap_or_else(|p| p.into_inner()).get_or_insert(what);
    }

    /// One call of the mix: 8 in 10 `sessions_list {}` (must list exactly the agent's own
    /// sessions), 1 in 10 `sessions_history` of its own main session, 1 in 10
    /// `sessions_history` of another agent's main session (must be refused: agent-to-agent
    /// is off).
    fn call(&self, agent: usize, turn: usize) {
        let id = &self.agents[agent];
        let caller = Caller { agent_session_key: Some(format!("agent:{id}:main")), ..Default::default() };
        let (tool, args) = match turn % 10 {
            8 => ("sessions_history", r#"{"sessionKey":"main","limit":5}"#.to_string()),
            9 => {
                let other = &self.agents[(agent + 1 + turn % (self.agents.len() - 1).max(1)) % self.agents.len()];
                ("sessions_history", serde_json::json!({ "sessionKey": format!("agent:{other}:main") }).to_string())
            }
            _ => ("sessions_list", "{}".to_string()),
        };
        let answer = match self.service.call(&caller, tool, &args) {
            Ok(answer) => answer,
            Err(e) => {
                self.errors.fetch_add(1, Ordering::Relaxed);
                self.first_violation.lock().unwrap_or_else(|p| p.into_inner()).get_or_insert(format!("error: {e}"));
                return;
            }
        };
        let value: Value = serde_json::from_str(&answer).unwrap_or(Value::Null);
        match turn % 10 {
            8 => {
                if value.get("messages").and_then(Value::as_array).is_none_or(|m| m.is_empty()) {
                    self.errors.fetch_add(1, Ordering::Relaxed);
                }
            }
            9 => {
                if value.get("messages").is_some() || value.get("status").and_then(Value::as_str) != Some("forbidden") {
                    self.violation(format!("{id} read another agent's history: {}", &answer[..answer.len().min(200)]));
                }
            }
            _ => {
                let sessions = value.get("sessions").and_then(Value::as_array).cloned().unwrap_or_default();
                let foreign: Vec<&str> = sessions
                    .iter()
                    .filter_map(|s| s.get("sessionId").and_then(Value::as_str))
                    .filter(|sid| !self.own[agent].contains(*sid))
                    .collect();
                if !foreign.is_empty() {
                    self.violation(format!("{id} saw {} sessions of other agents", foreign.len()));
                } else if sessions.len() != self.own[agent].len() {
                    self.errors.fetch_add(1, Ordering::Relaxed);
                }
            }
        }
    }
}

/// All agents once (their instances are made), then `threads` threads calling for
/// `duration`; answers (calls, elapsed, latencies).
fn round(world: &Arc<World>, threads: usize, duration: Duration) -> (usize, Duration, Vec<f64>) {
    let barrier = Arc::new(Barrier::new(threads + 1));
    let handles: Vec<_> = (0..threads)
        .map(|t| {
            let world = world.clone();
            let barrier = barrier.clone();
            std::thread::spawn(move || {
                let mine: Vec<usize> = (t..world.agents.len()).step_by(threads).collect();
                let mut latencies = Vec::new();
                barrier.wait();
                let started = Instant::now();
                let mut turn = 0usize;
                'outer: loop {
                    for &agent in &mine {
                        let t0 = Instant::now();
                        world.call(agent, turn + agent);
                        latencies.push(ns_since(t0));
                        if started.elapsed() >= duration {
                            break 'outer;
                        }
                    }
                    turn += 1;
                }
                latencies
            })
        })
        .collect();
    barrier.wait();
    let started = Instant::now();
    let mut latencies = Vec::new();
    for h in handles {
        latencies.extend(h.join().unwrap_or_default());
    }
    (latencies.len(), started.elapsed(), latencies)
}

pub fn run(ctx: &mut Ctx) -> Result<()> {
    let n_agents = ctx.args.scale_agents.unwrap_or(if ctx.quick { 50 } else { 500 }).max(2);
    let per_agent = ctx.args.scale_sessions.max(1);
    let threads = ctx.args.threads.unwrap_or(4 * std::thread::available_parallelism().map_or(1, |n| n.get())).max(1);
    let spec = Spec {
        agents: (0..n_agents).map(|i| format!("a{i:05}")).collect(),
        sessions: per_agent,
        messages: 5,
        main_messages: 5,
        history_messages: 5,
        seed: 7,
        transcripts: true,
        layout: session_tools_host::gateway::embedded::Layout::Files,
    };
    let t = Instant::now();
    let manifest = gen::generate(&ctx.work.join("state-agents"), &spec)?;
    session_tools_cli::note!("  {n_agents} agents × {per_agent} sessions generated in {:.1} s", t.elapsed().as_secs_f64());
    let gateway = EmbeddedGateway::builder(&manifest.dir).open()?;
    let engine = EngineOptions::default()
        .with_cache_dir(Some(ctx.cache.clone()))
        .with_pool_instances((n_agents as u32 + 64).max(1_000))
        .with_pooling(true);
    let service = ServiceBuilder::over_embedded(&gateway).with_engine(engine).with_log(tracing_log()).build()?;
    let world = Arc::new(World {
        service,
        agents: spec.agents.clone(),
        own: manifest.agents.iter().map(|a| a.sessions.iter().map(|(_, sid)| sid.clone()).collect()).collect(),
        violations: AtomicUsize::new(0),
        errors: AtomicUsize::new(0),
        first_violation: Default::default(),
    });
    // First call of every agent: its instance is made (instantiate + configure) then.
    let t = Instant::now();
    let (warm_calls, _, _) = {
        let w = world.clone();
        let h = std::thread::spawn(move || {
            for a in 0..w.agents.len() {
                w.call(a, 0);
            }
        });
        h.join().map_err(|_| anyhow!("the warm-up thread panicked"))?;
        (world.agents.len(), (), ())
    };
    let first_call = t.elapsed().as_nanos() as f64 / warm_calls as f64;
    let duration = if ctx.quick { Duration::from_secs(1) } else { Duration::from_secs(6) };
    let mut table = format!(
        "{n_agents} agents with {per_agent} sessions each ({} sessions in one state directory), `Service::call` \
         from several threads, each agent served by its own instance (an agent is only ever called from one thread). \
         Mix: 8 in 10 `sessions_list {{}}` (the answer must hold exactly the agent's own sessions: agent-to-agent is off), \
         1 in 10 `sessions_history` of the agent's main session (limit 5), 1 in 10 `sessions_history` of another \
         agent's main session (must be refused). First call of each agent (instance made): {} ms on average.\n\n\
         | threads | calls | calls/s | latency median | p90 | isolation violations | errors |\n|---:|---:|---:|---:|---:|---:|---:|\n",
        thousands(manifest.total_sessions() as f64),
        ms(first_call)
    );
    // What one sessions_list costs the gateway: every agent's rows (what the tool asks
    // for today; the guest drops the other agents' rows) against one agent's rows.
    let gateway = gateway.clone();
    let plan = super::stats::Plan::new(2, 5, 500, ctx.budget / 4);
    let all = super::stats::sample(plan, || -> Result<f64> {
        let t = Instant::now();
        let rows = gateway.list_rows(&ListParams { include_global: Some(true), include_unknown: Some(true), ..Default::default() });
        let ns = ns_since(t);
        drop(rows);
        Ok(ns)
    })?;
    let one = super::stats::sample(plan, || -> Result<f64> {
        let t = Instant::now();
        let rows = gateway.list_rows(&ListParams { agent_id: Some(spec.agents[1].clone()), ..Default::default() });
        let ns = ns_since(t);
        drop(rows);
        Ok(ns)
    })?;
    ctx.report.add(Figure::time(
        "scale",
        format!("gateway sessions.list rows, all {} sessions", thousands(manifest.total_sessions() as f64)),
        all,
    ));
    ctx.report.add(
        Figure::time("scale", format!("gateway sessions.list rows, agentId filter ({per_agent} rows)"), one)
            .note("list_rows checks every agent's store file for changes (a stat each) before filtering"),
    );
    let gateway_note = format!(
        "\nEvery `sessions_list` makes the gateway build the rows of all {} sessions of all agents ({} ms here), \
         which are then handed into the agent's instance and dropped there but for its own {per_agent}; with an \
         `agentId` filter the gateway takes {} ms (it still checks every agent's store file for changes before filtering).\n",
        thousands(manifest.total_sessions() as f64),
        ms(all.median),
        ms(one.median)
    );
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut counts = vec![1, cores, threads];
    counts.dedup();
    counts.sort_unstable();
    counts.dedup();
    for &t in &counts {
        let (calls, elapsed, latencies) = round(&world, t, duration);
        let rate = calls as f64 / elapsed.as_secs_f64();
        let lat = Stats::of(&latencies);
        ctx.report.add(
            Figure::value("scale", format!("throughput, {} agents, {t} thread(s)", thousands(n_agents as f64)), rate, Unit::PerSec)
                .note(format!("latency median {} ms, p90 {} ms", ms(lat.median), ms(lat.p90))),
        );
        let _ = writeln!(
            table,
            "| {t} | {} | {} | {} ms | {} ms | {} | {} |",
            thousands(calls as f64),
            thousands(rate),
            ms(lat.median),
            ms(lat.p90),
            world.violations.load(Ordering::Relaxed),
            world.errors.load(Ordering::Relaxed)
        );
    }
    let violations = world.violations.load(Ordering::Relaxed);
    let errors = world.errors.load(Ordering::Relaxed);
    let first = world.first_violation.lock().unwrap_or_else(|p| p.into_inner()).clone();
    if let Some(first) = &first {
        session_tools_cli::note!("  first problem: {first}");
    }
    ctx.report.add(
        Figure::value("scale", "answers with another agent's data (isolation violations)", violations as f64, Unit::Count)
            .target(Target::AtMost(0.0))
            .note(format!("{errors} errors or wrong counts{}", first.map(|f| format!("; first: {f}")).unwrap_or_default())),
    );
    table.push_str(&gateway_note);
    let speedup = super::sysinfo::parallel_speedup(cores);
    let _ = write!(
        table,
        "\nFor scale: on this machine {cores} threads of pure computation (no memory, no locks) get {speedup:.2}× the work \
         of one thread done in the same time (the ideal is {cores}×).\n"
    );
    ctx.report.add(
        Figure::value("scale", format!("machine: speedup of {cores} CPU-bound threads over 1"), speedup, Unit::Ratio)
            .note("calibration of the VM, not of session-tools"),
    );
    ctx.report.section("Scale run", table);
    Ok(())
}
