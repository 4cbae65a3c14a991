//! `session-tools-bench --live`: the real OpenClaw gateway (the reference's era by default,
//! `--package openclaw@2026.9.6` for today's; installed from the npm registry on first use)
//! on generated 1,000- and 10,000-session states in the layout its era reads, and, on the
//! same gateway in one run, our tools through the live-gateway client against OpenClaw's own
//! (`POST /tools/invoke`), and our plain `sessions_list` against the gateway's own
//! `sessions.list` RPC with the same params.

use std::fmt::Write as _;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{anyhow, bail, Result};
use openclaw_harness::{Era, Gateway, GatewayOptions, Installation, DEFAULT_PACKAGE};
use serde_json::{json, Value};
use session_tools_host::gateway::embedded::Layout;
use session_tools_host::gateway::live::LiveGateway;
use session_tools_host::gateway::{Gateway as _, ListParams};
use session_tools_host::{Caller, EngineOptions, Service, ServiceBuilder};

use super::gen::{self, Manifest, Spec};
use super::http::invoke_tool;
use super::report::{ms, Figure, Target, Unit};
use super::stats::{ns_since, sample_pair, Plan, Stats};
use super::Ctx;

pub(super) const REQUESTER: &str = "agent:main:main";

/// How long a gateway may take to start: today's takes 15-90 s on this 2-CPU machine
/// (the harness's tests allow it as much).
pub(super) const STARTUP: Duration = Duration::from_secs(240);

/// How long a gateway may take to start on a state of `sessions` sessions: 2026.9.6 checks
/// and repairs every session row of a state it has not seen before (its log: key groups
/// canonicalised, skills catalogs stripped), which took longer than [`STARTUP`] at 10,000.
pub(super) fn startup_for(sessions: usize) -> Duration {
    STARTUP + Duration::from_secs(60) * u32::try_from(sessions / 1_000).unwrap_or(u32::MAX).min(60)
}

/// The gateway package the run starts (`--package`, else the harness's default, the
/// reference's era) and the layout its states are written in.
pub(super) fn chosen_package(ctx: &Ctx) -> (String, Layout) {
    match &ctx.args.package {
        Some(package) => (package.spec.clone(), package.layout),
        None => (DEFAULT_PACKAGE.to_string(), Layout::Files),
    }
}

/// The harness runs `installation` as the era whose layout the states are written in (the
/// command line's era of a package and the harness's must agree, or the gateway would
/// refuse or misread the state).
pub(super) fn check_era(installation: &Installation, layout: Layout) -> Result<()> {
    let reads = match installation.era {
        Era::January2026 => Layout::Files,
        Era::Today => Layout::Sqlite,
    };
    if reads != layout {
        bail!("{} reads {}, but its states were to be written as {}", installation.package, reads.describe(), layout.describe());
    }
    Ok(())
}

/// A generated state of `n` sessions (20-message transcripts) in `layout`: 2026.9's
/// databases are written by the same generator as the `tools` section's (`gen_sqlite`).
pub(super) fn state(ctx: &Ctx, name: &str, n: usize, layout: Layout) -> Result<Manifest> {
    let t = Instant::now();
    let manifest = gen::generate(&ctx.work.join(format!("{name}-{n}")), &Spec { layout, ..Spec::openclaw(n, 20) })?;
    session_tools_cli::note!("  state of {n} sessions ({}) generated in {:.1} s", layout.describe(), t.elapsed().as_secs_f64());
    Ok(manifest)
}

/// One case measured both ways.
struct Case {
    name: String,
    ours: Stats,
    theirs: Stats,
    /// Rows (or messages) each answered.
    rows: (usize, usize),
}

pub(super) fn count(answer: &Value, field: &str) -> usize {
    answer.get(field).and_then(Value::as_array).map_or(0, Vec::len)
}

/// Both answered the same sessions (or the comparison means nothing). 2026.9's tool answers
/// at most 64 KiB (`SESSIONS_LIST_MAX_RESULT_BYTES`) and says so with `truncationReason:
/// "byte-limit"`: it then answers the first rows of the same list, each of which must be ours.
pub(super) fn same_rows(case: &str, ours: &Value, theirs: &Value) -> Result<()> {
    // N5: ours shows the caller's own main session as "main", OpenClaw's its full key.
    let keys = |v: &Value| -> Vec<String> {
        let mut keys: Vec<String> = v
            .get("sessions")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|s| s.get("key")?.as_str().map(|k| if k == "main" { REQUESTER.to_string() } else { k.to_string() }))
            .collect();
        keys.sort();
        keys
    };
    let (ours_keys, theirs_keys) = (keys(ours), keys(theirs));
    let cut_to_fit = theirs.get("truncationReason").and_then(Value::as_str) == Some("byte-limit");
    let same = if cut_to_fit { theirs_keys.iter().all(|k| ours_keys.binary_search(k).is_ok()) } else { ours_keys == theirs_keys };
    if !same {
        let only = |a: &[String], b: &[String]| a.iter().filter(|k| !b.contains(k)).take(3).cloned().collect::<Vec<_>>().join(", ");
        bail!(
            "{case}: ours lists {} rows, OpenClaw's {}, not the same sessions (only ours: {}; only OpenClaw's: {})",
            count(ours, "sessions"),
            count(theirs, "sessions"),
            only(&ours_keys, &theirs_keys),
            only(&theirs_keys, &ours_keys)
        );
    }
    Ok(())
}

/// One timed call of OpenClaw's tool, and the rows it answered.
fn once(f: impl FnOnce() -> Result<Value>) -> Result<(f64, usize)> {
    let t = Instant::now();
    let answer = f()?;
    Ok((ns_since(t), count(&answer, "sessions")))
}

/// Times `ours` and `theirs` alternately; slow cases (OpenClaw's `messageLimit`, seconds
/// a call) get a couple of samples.
pub(super) fn pair(
    ctx: &Ctx,
    mut ours: impl FnMut() -> Result<Value>,
    mut theirs: impl FnMut() -> Result<Value>,
) -> Result<(Stats, Stats, Value, Value)> {
    let t = Instant::now();
    let a = ours()?;
    let per_ours = t.elapsed();
    let t = Instant::now();
    let b = theirs()?;
    let per_theirs = t.elapsed();
    let slowest = per_ours.max(per_theirs);
    let plan = if slowest > Duration::from_secs(2) {
        Plan::new(0, if ctx.quick { 1 } else { 2 }, 2, Duration::ZERO)
    } else {
        let mut plan = ctx.plan(slowest);
        plan.warmup = plan.warmup.min(3);
        plan
    };
    let timed = |f: &mut dyn FnMut() -> Result<Value>| -> Result<f64> {
        let t = Instant::now();
        f()?;
        Ok(ns_since(t))
    };
    let (x, y) = sample_pair(plan, || timed(&mut ours), || timed(&mut theirs))?;
    Ok((x, y, a, b))
}

pub fn run(ctx: &mut Ctx, sizes: &[usize]) -> Result<()> {
    let mut cases: Vec<Case> = Vec::new();
    let mut extra: Vec<String> = Vec::new();
    let (package, layout) = chosen_package(ctx);
    let era = Era::of(&package);
    for &n in sizes {
        ctx.progress.detail(format_args!("live gateway: {n} sessions: generating the state"));
        let manifest = state(ctx, "live", n, layout)?;
        ctx.progress.detail(format_args!("live gateway: {n} sessions: starting OpenClaw's gateway"));
        let t = Instant::now();
        let options = GatewayOptions { package: package.clone(), startup_timeout: startup_for(n), ..GatewayOptions::default() };
        let gateway = Gateway::start(&manifest.dir, options).map_err(|e| anyhow!("starting the real OpenClaw gateway ({package}): {e}"))?;
        check_era(gateway.installation(), layout)?;
        session_tools_cli::note!("  {package} up on port {} in {:.1} s", gateway.port(), t.elapsed().as_secs_f64());
        let live = Arc::new(LiveGateway::builder(gateway.url()).with_token(gateway.token()).open()?);
        let service =
            ServiceBuilder::over_live(&live).with_engine(EngineOptions::default().with_cache_dir(Some(ctx.cache.clone()))).build()?;
        let (port, token) = (gateway.port(), gateway.token().to_string());
        let main = Caller { agent_session_key: Some(REQUESTER.into()), ..Caller::default() };
        let call = |service: &Service, tool: &str, args: &str| -> Result<Value> {
            let text = service.call(&main, tool, args).map_err(|e| anyhow!("{tool} {args}: {e}"))?;
            Ok(serde_json::from_str(&text)?)
        };
        let theirs = |tool: &str, args: Value| invoke_tool(port, &token, tool, &args, REQUESTER);
        let size = super::report::thousands(n as f64);
        ctx.progress.detail(format_args!("live gateway: {n} sessions: measuring ours against OpenClaw's"));

        // Our sessions_list answers at most 200 rows (N3, N18); OpenClaw's is asked for as
        // many, so both do the same work. What OpenClaw answers by default (every row) is
        // timed once beside it.
        let (ours, theirs_stats, a, b) =
            pair(ctx, || call(&service, "sessions_list", "{}"), || theirs("sessions_list", json!({"limit": 200})))?;
        same_rows("sessions_list {}", &a, &b)?;
        cases.push(Case {
            name: format!("sessions_list {{}}, {size} sessions"),
            ours,
            theirs: theirs_stats,
            rows: (count(&a, "sessions"), count(&b, "sessions")),
        });
        let (every, rows) = once(|| theirs("sessions_list", json!({})))?;
        extra.push(format!("OpenClaw's `sessions_list {{}}` over {size} sessions as called ({rows} rows): {} ms", ms(every)));

        // Plain sessions_list against the RPC it makes (guest/src/list.rs: N18's limit,
        // global and unknown sessions for an unrestricted caller), on the same connection.
        let rpc_params = json!({"limit": 200, "includeGlobal": true, "includeUnknown": true});
        let (ours, rpc, _, _) = pair(
            ctx,
            || call(&service, "sessions_list", "{}"),
            || live.request("sessions.list", rpc_params.clone(), true).map_err(|e| anyhow!("sessions.list: {e}")),
        )?;
        let overhead = ours.median / rpc.median;
        ctx.report.add(
            Figure::value("live", format!("sessions_list {{}} / the sessions.list RPC it makes, {size} sessions"), overhead, Unit::Ratio)
                .target(Target::AtMost(1.2))
                .note(format!("ours {} ms, RPC {} ms (200 rows, same connection)", ms(ours.median), ms(rpc.median))),
        );
        // Where the difference goes: the same RPC's answer made typed rows by the gateway
        // wire component (what the tool is handed), against the raw RPC.
        let typed_params = ListParams { limit: Some(200), include_global: Some(true), include_unknown: Some(true), ..Default::default() };
        let (typed, rpc, _, _) = pair(
            ctx,
            || live.sessions_list(&typed_params).map(|_| Value::Null).map_err(|e| anyhow!("sessions.list, typed: {e}")),
            || live.request("sessions.list", rpc_params.clone(), true).map_err(|e| anyhow!("sessions.list: {e}")),
        )?;
        ctx.report.add(
            Figure::value(
                "live",
                format!("  of which: its rows typed by the gateway wire / the RPC, {size} sessions"),
                typed.median / rpc.median,
                Unit::Ratio,
            )
            .note(format!("typed rows {} ms, RPC {} ms", ms(typed.median), ms(rpc.median))),
        );

        // messageLimit 5: one history per row. OpenClaw's tool opens a connection per row.
        let (ours, theirs_stats, a, b) = pair(
            ctx,
            || call(&service, "sessions_list", r#"{"messageLimit":5}"#),
            || theirs("sessions_list", json!({"messageLimit": 5, "limit": 200})),
        )?;
        same_rows("sessions_list {messageLimit: 5}", &a, &b)?;
        let speedup = theirs_stats.median / ours.median;
        let mut figure =
            Figure::value("live", format!("OpenClaw's / ours, sessions_list messageLimit 5, {size} sessions"), speedup, Unit::Ratio).note(
                format!(
                    "ours {} ms, OpenClaw's {} ms; rows {} / {}",
                    ms(ours.median),
                    ms(theirs_stats.median),
                    count(&a, "sessions"),
                    count(&b, "sessions")
                ),
            );
        if n == 1_000 {
            figure = figure.target(Target::AtLeast(20.0));
        }
        ctx.report.add(figure);
        cases.push(Case {
            name: format!("sessions_list {{messageLimit: 5}}, {size} sessions"),
            ours,
            theirs: theirs_stats,
            rows: (count(&a, "sessions"), count(&b, "sessions")),
        });
        // The same call with every history a `chat.history` request (a gateway on another
        // machine): bound by the gateway's own cost a request (it copies its whole store).
        let rpc_only = Arc::new(LiveGateway::builder(gateway.url()).with_token(gateway.token()).with_histories_on_disk(false).open()?);
        let over_rpc =
            ServiceBuilder::over_live(&rpc_only).with_engine(EngineOptions::default().with_cache_dir(Some(ctx.cache.clone()))).build()?;
        let (rpc_stats, theirs_again, c, _) = pair(
            ctx,
            || call(&over_rpc, "sessions_list", r#"{"messageLimit":5}"#),
            || theirs("sessions_list", json!({"messageLimit": 5, "limit": 200})),
        )?;
        same_rows("sessions_list {messageLimit: 5}, every history a request", &c, &b)?;
        ctx.report.add(
            Figure::value(
                "live",
                format!("OpenClaw's / ours with every history a request, messageLimit 5, {size} sessions"),
                theirs_again.median / rpc_stats.median,
                Unit::Ratio,
            )
            .note(format!(
                "ours {} ms, OpenClaw's {} ms: the gateway's own chat.history cost bounds both",
                ms(rpc_stats.median),
                ms(theirs_again.median)
            )),
        );
        cases.push(Case {
            name: format!("sessions_list {{messageLimit: 5}} with every history a request, {size} sessions"),
            ours: rpc_stats,
            theirs: theirs_again,
            rows: (count(&c, "sessions"), count(&b, "sessions")),
        });
        drop(over_rpc);
        drop(rpc_only);
        // January's tool as called reads every row's history, a connection each; 2026.9's
        // lists 100 rows without a limit.
        if n <= 1_000 || era == Era::Today {
            let (every, rows) = once(|| theirs("sessions_list", json!({"messageLimit": 5})))?;
            extra.push(format!(
                "OpenClaw's `sessions_list {{messageLimit: 5}}` over {size} sessions as called ({rows} rows): {} ms, {:.1}× ours (N18: ours answers 200)",
                ms(every),
                every / ours.median
            ));
        } else {
            extra.push(format!(
                "OpenClaw's `sessions_list {{messageLimit: 5}}` over {size} sessions with every row is not run: it opens a connection per row \
                 (≈ 39 min at 10,000 when it was measured)"
            ));
        }

        // sessions_history of a 20-message channel.
        let key = manifest.agents[0].history_key.clone().unwrap_or_else(|| REQUESTER.to_string());
        let args = json!({"sessionKey": key}).to_string();
        let (ours, theirs_stats, a, b) =
            pair(ctx, || call(&service, "sessions_history", &args), || theirs("sessions_history", json!({"sessionKey": key})))?;
        if a != b {
            session_tools_cli::note!(
                "  note: sessions_history answers differ between ours and OpenClaw's ({} vs {} messages)",
                count(&a, "messages"),
                count(&b, "messages")
            );
        }
        cases.push(Case {
            name: format!("sessions_history, {size} sessions"),
            ours,
            theirs: theirs_stats,
            rows: (count(&a, "messages"), count(&b, "messages")),
        });
        drop(service);
        drop(live);
        drop(gateway);
    }
    let (stored, their_calls, single) = match era {
        Era::January2026 => {
            ("its `sessions.json` and transcript files", "each gateway call of the tool opens a connection", "a `chat.history` request")
        }
        Era::Today => (
            "its per-agent SQLite databases",
            "the tool's gateway calls are dispatched inside the gateway's process",
            "read there too, once a session the gateway lists was found there with the same `sessionId` (E4)",
        ),
    };
    let mut table = String::new();
    let _ = writeln!(
        table,
        "The real gateway ({package}) on each generated state ({stored}); both columns on the same gateway in one run, alternating. \
         Ours: the component through the live-gateway client (one WebSocket; a list's histories read from the gateway's state directory, \
         which is on this machine, each checked to be of the session the gateway listed, or with every history a `chat.history` request, 32 at a time; \
         a single history {single}). \
         OpenClaw's: its own tool via `POST /tools/invoke` ({their_calls}). \
         Medians (p90), ms.\n"
    );
    let _ = writeln!(table, "| case | ours | OpenClaw's | OpenClaw's / ours | rows (ours / OpenClaw's) |\n|---|---:|---:|---:|---:|");
    for c in &cases {
        let _ = writeln!(
            table,
            "| {} | {} ({}) | {} ({}) | {:.1}× | {} / {} |",
            c.name,
            ms(c.ours.median),
            ms(c.ours.p90),
            ms(c.theirs.median),
            ms(c.theirs.p90),
            c.theirs.median / c.ours.median,
            c.rows.0,
            c.rows.1
        );
    }
    let cut = if era == Era::Today {
        " (2026.9's answers as many of them as fit in 64 KiB, saying `truncationReason: \"byte-limit\"`; the rows column shows how many)"
    } else {
        ""
    };
    let _ = writeln!(
        table,
        "\nOur `sessions_list` answers at most 200 rows (N3, N18); OpenClaw's is asked for `limit: 200` in the table, so both list the same sessions{cut}. \
         What OpenClaw answers as called, without a limit:\n"
    );
    for line in &extra {
        let _ = writeln!(table, "- {line}");
    }
    ctx.report.section("Live: our tools through the bridge against OpenClaw's own, same gateway", table);
    Ok(())
}
