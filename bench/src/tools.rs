//! `sessions_list` and `sessions_history` through the component and natively: the same
//! guest crate compiled into this process, against the same embedded gateway (same store
//! cache) and state; outputs compared.

use std::fmt::Write as _;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{anyhow, Result};
use session_tools_guest::{call_tool, Caller};
use session_tools_host::gateway::{Gateway, ListParams};

use super::gen::{self, Manifest, Spec};
use super::report::{ms, ratio, Figure, Target, Unit};
use super::stats::{ns_since, sample, sample_pair, Plan, Stats};
use super::sysinfo::minor_faults;
use super::Ctx;
use session_tools_host::config::DeploymentConfig;
use session_tools_host::gateway::embedded::runtime::EchoRuntime;
use session_tools_host::gateway::embedded::EmbeddedGateway;
use session_tools_host::gateway::embedded::Layout;
use session_tools_host::system_clock;
use session_tools_host::Limits;
use session_tools_host::{tracing_log, SystemServices};
use session_tools_host::{AgentSetup, Sandbox};

/// A state directory opened the way the service opens it.
pub struct Opened {
    pub gateway: Arc<EmbeddedGateway>,
    pub cfg: session_tools_guest::Config,
    pub services: Arc<SystemServices>,
    pub setup: AgentSetup,
}

pub fn open(dir: &Path) -> Result<Opened> {
    let config = DeploymentConfig::load(dir, None)?;
    let state_dir = dir.display().to_string();
    let cfg = session_tools_guest::Config::from_value(&config.raw, &state_dir).map_err(anyhow::Error::msg)?;
    let gateway = EmbeddedGateway::open(dir, config.clone(), Arc::new(EchoRuntime), system_clock())?;
    let services = Arc::new(SystemServices::new(tracing_log()));
    let setup = AgentSetup::new("main", gateway.clone(), services.clone(), config.guest.clone(), state_dir, Limits::default());
    Ok(Opened { gateway, cfg, services, setup })
}

pub fn main_caller() -> Caller {
    Caller { agent_session_key: Some("agent:main:main".into()), ..Default::default() }
}

/// The tool, natively.
pub fn native(o: &Opened, tool: &str, caller: &Caller, args: &str) -> Result<String> {
    let gateway = session_tools_host::gateway::Native(o.gateway.as_ref());
    let env = session_tools_guest::context::Env { gw: &gateway, host: &*o.services, cfg: &o.cfg };
    call_tool(&env, tool, caller, args).map(|out| out.result).map_err(|e| anyhow!("{tool} (native): {e}"))
}

/// The tool, through the component.
pub fn wasm(sandbox: &mut Sandbox, tool: &str, caller: &Caller, args: &str) -> Result<String> {
    sandbox.call_tool(tool, caller, args).map(|out| out.result).map_err(|e| anyhow!("{tool} (wasm): {e}"))
}

/// OpenClaw's own tools on the same data shapes (measured on
/// the real gateway's `POST /tools/invoke` on the same kind of VM, run 2: median, p90 in ms), for the comparison table.
fn peer(case: &str, n: usize) -> Option<&'static str> {
    Some(match (case, n) {
        ("list0", 1_000) => "41.1 (p90 45.6)",
        ("list0", 10_000) => "444 (p90 546)",
        ("list5", 1_000) => "21,459 (p90 23,049)",
        ("list5", 10_000) => "> 300,000 (no answer; ≈ 39 min extrapolated)",
        ("hist20", 1_000) => "19.0 (p90 22.5)",
        ("hist20", 10_000) => "195 (p90 217)",
        _ => return None,
    })
}

struct Row {
    case: String,
    compared: Compared,
    peer: Option<&'static str>,
}

/// Times one case both ways (alternating), after checking both answer the same.
struct Compared {
    wasm: Stats,
    native: Stats,
    identical: bool,
    bytes: usize,
    wasm_faults: f64,
    native_faults: f64,
}

fn compare(ctx: &Ctx, o: &Opened, sandbox: &mut Sandbox, tool: &str, args: &str) -> Result<Compared> {
    let caller = main_caller();
    let t = Instant::now();
    let a = native(o, tool, &caller, args)?;
    let per_call = t.elapsed();
    let b = wasm(sandbox, tool, &caller, args)?;
    let identical = a == b;
    if !identical {
        session_tools_cli::note!(
            "  warning: {tool} {args}: the component and the native build answer differently ({} vs {} bytes)",
            b.len(),
            a.len()
        );
    }
    let mut plan = ctx.plan(per_call);
    plan.warmup = plan.warmup.min(if per_call > Duration::from_millis(200) { 1 } else { 3 });
    let (w, n) = sample_pair(
        plan,
        || -> Result<f64> {
            let t = Instant::now();
            let out = wasm(sandbox, tool, &caller, args)?;
            let ns = ns_since(t);
            drop(out);
            Ok(ns)
        },
        || -> Result<f64> {
            let t = Instant::now();
            let out = native(o, tool, &caller, args)?;
            let ns = ns_since(t);
            drop(out);
            Ok(ns)
        },
    )?;
    // Page faults per call, both ways (a diagnostic: fresh pages cost a fault each).
    let k = ((ctx.budget.as_secs_f64() / 8.0 / per_call.as_secs_f64().max(1e-6)) as usize).clamp(1, 200);
    let before = minor_faults();
    for _ in 0..k {
        wasm(sandbox, tool, &caller, args)?;
    }
    let wasm_faults = (minor_faults() - before) as f64 / k as f64;
    let before = minor_faults();
    for _ in 0..k {
        native(o, tool, &caller, args)?;
    }
    let native_faults = (minor_faults() - before) as f64 / k as f64;
    Ok(Compared { wasm: w, native: n, identical, bytes: a.len(), wasm_faults, native_faults })
}

fn thousands(n: usize) -> String {
    super::report::thousands(n as f64)
}

/// How a case names its state's layout: January's as before, 2026.9's said.
fn layout_suffix(layout: Layout) -> &'static str {
    match layout {
        Layout::Files => "",
        Layout::Sqlite => ", 2026.9 SQLite",
    }
}

/// What a layout's store is called in the notes.
fn store_name(layout: Layout) -> &'static str {
    match layout {
        Layout::Files => "sessions.json",
        Layout::Sqlite => "openclaw-agent.sqlite",
    }
}

/// The targets on 2026.9's layout (as fast as on the files), in ns: `sessions_list {}` at 1,000 sessions,
/// with `messageLimit: 5`, and `sessions_history`.
const SQLITE_LIST: f64 = 2e6;
const SQLITE_LIST_5: f64 = 20e6;
const SQLITE_HISTORY: f64 = 0.2e6;

pub fn run(ctx: &mut Ctx, small: &Manifest, sessions: &[usize], messages: &[usize]) -> Result<()> {
    let mut rows: Vec<Row> = Vec::new();
    let mut extra = String::new();
    for (n, layout) in sessions.iter().flat_map(|&n| [(n, Layout::Files), (n, Layout::Sqlite)]) {
        let suffix = layout_suffix(layout);
        let manifest = if layout == Layout::Files && n == small.total_sessions() && small.agents[0].history_key.is_some() {
            small.clone()
        } else {
            let m = if n >= 5_000 { 5 } else { 20 };
            let t = Instant::now();
            let dir = match layout {
                Layout::Files => format!("state-{n}"),
                Layout::Sqlite => format!("state-{n}-sqlite"),
            };
            let manifest = gen::generate(&ctx.work.join(dir), &Spec { layout, ..Spec::openclaw(n, m) })?;
            session_tools_cli::note!(
                "  state of {n} sessions × {m} messages{suffix} generated in {:.1} s ({} {:.1} MiB, transcripts {:.1} MiB)",
                t.elapsed().as_secs_f64(),
                store_name(layout),
                manifest.store_bytes as f64 / 1048576.0,
                manifest.transcript_bytes as f64 / 1048576.0
            );
            manifest
        };
        let o = open(&manifest.dir)?;
        // The first call after opening parses sessions.json, or reads the database's rows
        // (later calls use the cache until the store changes).
        let caller = main_caller();
        let t = Instant::now();
        native(&o, "sessions_list", &caller, "{\"limit\":1}")?;
        let first = ns_since(t);
        ctx.report.add(
            Figure::value(
                "tools",
                format!("first sessions_list after opening {} sessions{suffix} (store read)", thousands(n)),
                first,
                Unit::Ns,
            )
            .note(format!("{} {}", store_name(layout), Unit::Bytes.fmt(manifest.store_bytes as f64))),
        );
        let mut sandbox = ctx.runtime.instantiate(&o.setup).map_err(|e| anyhow!("{e}"))?;
        for message_limit in [0, 5] {
            let args = if message_limit == 0 { "{}".to_string() } else { format!("{{\"messageLimit\":{message_limit}}}") };
            let c = compare(ctx, &o, &mut sandbox, "sessions_list", &args)?;
            let (w, nat, identical, bytes) = (c.wasm, c.native, c.identical, c.bytes);
            let case = format!("sessions_list {args}, {} sessions{suffix}", thousands(n));
            let r = w.median / nat.median;
            let mut fig = Figure::time("tools", format!("{case} (wasm)"), w).note(format!(
                "native {} ms; wasm/native {:.2}; result {:.0} KiB",
                ms(nat.median),
                r,
                bytes as f64 / 1024.0
            ));
            if !identical {
                fig.note.push_str("; OUTPUTS DIFFER");
            }
            if layout == Layout::Sqlite && n == 1_000 {
                fig = fig.target(Target::AtMost(if message_limit == 0 { SQLITE_LIST } else { SQLITE_LIST_5 }));
            }
            ctx.report.add(fig);
            if message_limit == 0 && n == 1_000 && layout == Layout::Files {
                ctx.report.add(Figure::value("tools", format!("wasm/native, {case}"), r, Unit::Ratio).target(Target::AtMost(1.2)));
            }
            let peer = peer(if message_limit == 0 { "list0" } else { "list5" }, n).filter(|_| layout == Layout::Files);
            rows.push(Row { case, compared: c, peer });
            if message_limit == 0 {
                // Where the time goes: the gateway's rows alone, and the host's check that
                // the result is JSON.
                let params = ListParams { include_global: Some(true), include_unknown: Some(true), ..Default::default() };
                let plan = Plan::new(2, 5, 500, ctx.budget / 4);
                let gw = sample(plan, || -> Result<f64> {
                    let t = Instant::now();
                    let list = o.gateway.sessions_list(&params).map_err(|e| anyhow!("{}", e.message))?;
                    let ns = ns_since(t);
                    drop(list);
                    Ok(ns)
                })?;
                let result = native(&o, "sessions_list", &caller, &args)?;
                let check = sample(plan, || -> Result<f64> {
                    let t = Instant::now();
                    serde_json::from_str::<serde::de::IgnoredAny>(&result)?;
                    Ok(ns_since(t))
                })?;
                // The same rows into the guest, a small result out: `kinds` filters in the
                // guest, after the rows have crossed.
                let few = compare(ctx, &o, &mut sandbox, "sessions_list", r#"{"kinds":["cron"]}"#)?;
                let _ = writeln!(
                    extra,
                    "| {}{suffix} | {} | {} / {} ({:.0} KiB) | {} / {} ({:.0} KiB) | {} | {} | {} |",
                    thousands(n),
                    ms(gw.median),
                    ms(few.native.median),
                    ms(few.wasm.median),
                    few.bytes as f64 / 1024.0,
                    ms(nat.median),
                    ms(w.median),
                    bytes as f64 / 1024.0,
                    ms(check.median),
                    ms(few.wasm.median - few.native.median),
                    ms((w.median - few.wasm.median) - (nat.median - few.native.median))
                );
            }
        }
        // `sessions_history` of the 20-message session (OpenClaw's own figure).
        if let Some(key) = manifest.agents[0].history_key.clone().filter(|_| n >= 1_000) {
            let args = serde_json::json!({ "sessionKey": key }).to_string();
            let c = compare(ctx, &o, &mut sandbox, "sessions_history", &args)?;
            let (w, nat) = (c.wasm, c.native);
            let case = format!("sessions_history, 20-message session, state of {} sessions{suffix}", thousands(n));
            let mut fig = Figure::time("tools", format!("{case} (wasm)"), w).note(format!(
                "native {} ms; wasm/native {:.2}",
                ms(nat.median),
                w.median / nat.median
            ));
            if layout == Layout::Sqlite {
                fig = fig.target(Target::AtMost(SQLITE_HISTORY));
            }
            ctx.report.add(fig);
            rows.push(Row { case, compared: c, peer: peer("hist20", n).filter(|_| layout == Layout::Files) });
        }
    }
    for layout in if messages.is_empty() { vec![] } else { vec![Layout::Files, Layout::Sqlite] } {
        let suffix = layout_suffix(layout);
        let mut spec = Spec { layout, ..Spec::openclaw(10, 5) };
        spec.main_messages = messages.iter().copied().max().unwrap_or(5);
        spec.history_messages = messages.iter().copied().min().unwrap_or(5);
        let t = Instant::now();
        let dir = if layout == Layout::Files { "state-history" } else { "state-history-sqlite" };
        let manifest = gen::generate(&ctx.work.join(dir), &spec)?;
        session_tools_cli::note!("  history state{suffix} generated in {:.1} s", t.elapsed().as_secs_f64());
        let o = open(&manifest.dir)?;
        let mut sandbox = ctx.runtime.instantiate(&o.setup).map_err(|e| anyhow!("{e}"))?;
        let agent = &manifest.agents[0];
        let mut targets = vec![(spec.history_messages, agent.history_key.clone().unwrap_or_default())];
        if spec.main_messages != spec.history_messages {
            targets.push((spec.main_messages, agent.main_key.clone()));
        }
        for (m, key) in targets {
            for args in [serde_json::json!({ "sessionKey": key }), serde_json::json!({ "sessionKey": key, "limit": 1000 })] {
                let args = args.to_string();
                let c = compare(ctx, &o, &mut sandbox, "sessions_history", &args)?;
                let (w, nat) = (c.wasm, c.native);
                let limit = if args.contains("limit") { "limit 1000" } else { "default limit (200)" };
                let case = format!("sessions_history, {} messages, {limit}{suffix}", thousands(m));
                ctx.report.add(Figure::time("tools", format!("{case} (wasm)"), w).note(format!(
                    "native {} ms; wasm/native {:.2}",
                    ms(nat.median),
                    w.median / nat.median
                )));
                rows.push(Row { case, compared: c, peer: None });
            }
        }
    }
    let mut table = String::from(
        "Wall time per call in ms, median (p90). Native: the guest crate compiled into the host, called directly; \
         wasm: the same code in the component through `Sandbox::call_tool` (limits, metering, result check included). \
         Both against one embedded gateway whose parsed store is cached. OpenClaw: its own tools through \
         `/tools/invoke` on the same data shapes, from `openclaw-peer-perf.md` (not measured in this run).\n\n\
         | case | result | native | wasm | wasm/native | same output | page faults per call (wasm / native) | OpenClaw |\n|---|---:|---:|---:|---:|---|---:|---:|\n",
    );
    for Row { case, compared: r, peer } in &rows {
        let _ = writeln!(
            table,
            "| {} | {:.0} KiB | {} ({}) | {} ({}) | {} | {} | {:.1} / {:.1} | {} |",
            case,
            r.bytes as f64 / 1024.0,
            ms(r.native.median),
            ms(r.native.p90),
            ms(r.wasm.median),
            ms(r.wasm.p90),
            ratio(r.wasm.median, r.native.median),
            if r.identical { "yes" } else { "NO" },
            r.wasm_faults,
            r.native_faults,
            peer.unwrap_or("")
        );
    }
    ctx.report.section("sessions_list and sessions_history: component vs native vs OpenClaw", table);
    if !extra.is_empty() {
        ctx.report.section(
            "Where the time of sessions_list {} goes",
            format!(
                "Medians in ms. The gateway builds the rows (host, native code in both cases); the tool turns them into \
                 its result; the host then checks the component's result is JSON. `{{\"kinds\":[\"cron\"]}}` hands the \
                 guest the same rows but filters them in the guest, so its result is small: wasm − native there is what \
                 handing the rows into the component costs more than natively (lowering every row's strings into guest \
                 memory, lifting them in the guest); the rest of the difference is building and returning the result.\n\n\
                 | sessions | gateway rows alone | tool `{{\"kinds\":[\"cron\"]}}` native / wasm (result) | tool `{{}}` native / wasm (result) | host JSON check of the `{{}}` result | extra cost of rows in | extra cost of result out |\n\
                 |---:|---:|---:|---:|---:|---:|---:|\n{extra}"
            ),
        );
    }
    Ok(())
}
