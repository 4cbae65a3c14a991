//! What needs processes of its own: cold start (this executable run as `call`), and the
//! memory of many live instances (a child process, so the figures are not blurred by the
//! rest of the run). Also the sizes on disk.

use std::fmt::Write as _;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

use anyhow::{anyhow, bail, Context, Result};

use super::gen::copy_dir;
use super::gen::Manifest;
use super::report::{thousands, Figure, Target, Unit};
use super::stats::{ns_since, Stats};
use super::sysinfo::{pss, Rss};
use super::tools::{main_caller, open};
use super::{BenchArgs, Ctx};
use session_tools_host::gateway::embedded::Layout;
use session_tools_host::EngineOptions;
use session_tools_host::Limits;
use session_tools_host::Runtime;

fn cwasm_in(dir: &Path) -> Option<(PathBuf, u64)> {
    std::fs::read_dir(dir)
        .ok()?
        .filter_map(|e| e.ok())
        .filter(|e| e.path().extension().is_some_and(|x| x == "cwasm"))
        .filter_map(|e| Some((e.path(), e.metadata().ok()?.len())))
        .max_by_key(|(_, len)| *len)
}

pub fn sizes(ctx: &mut Ctx) -> Result<()> {
    ctx.report.add(Figure::value(
        "sizes",
        "component (.wasm, embedded in the host)",
        session_tools_host::COMPONENT.len() as f64,
        Unit::Bytes,
    ));
    match cwasm_in(&ctx.cache) {
        Some((_, len)) => ctx.report.add(Figure::value("sizes", "compiled component (.cwasm in the cache)", len as f64, Unit::Bytes)),
        None => session_tools_cli::note!("  no .cwasm in {}", ctx.cache.display()),
    }
    if let Ok(exe) = std::fs::metadata(&ctx.cli) {
        ctx.report.add(Figure::value("sizes", "session-tools executable", exe.len() as f64, Unit::Bytes));
    }
    Ok(())
}

/// Runs `session-tools --state STATE call --as agent:main:main sessions_list {}`; answers
/// the time to the first byte of the result on stdout and the time to exit.
fn spawn_call(cli: &Path, state: &Path, cache: &Path) -> Result<(f64, f64)> {
    let t = Instant::now();
    let mut child = Command::new(cli)
        .arg("--state")
        .arg(state)
        .args(["call", "--as", "agent:main:main", "--wait", "0", "sessions_list", "{}"])
        .env("SESSION_TOOLS_CACHE_DIR", cache)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .context("starting session-tools call")?;
    let mut stdout = child.stdout.take().ok_or_else(|| anyhow!("no stdout"))?;
    let mut first = [0u8; 1];
    let got = stdout.read(&mut first)?;
    let first_ns = ns_since(t);
    let mut rest = Vec::new();
    stdout.read_to_end(&mut rest)?;
    let output = child.wait_with_output()?;
    let exit_ns = ns_since(t);
    if !output.status.success() || got == 0 || !String::from_utf8_lossy(&rest).contains("\"count\"") {
        bail!("session-tools call failed ({}): {}", output.status, String::from_utf8_lossy(&output.stderr));
    }
    Ok((first_ns, exit_ns))
}

pub fn cold_start(ctx: &mut Ctx, small: &Manifest) -> Result<()> {
    let state = ctx.work.join("state-cold");
    copy_dir(&small.dir, &state)?;
    let (warm_runs, cold_runs) = if ctx.quick { (5, 1) } else { (30, 5) };
    // Page cache and the cache file warm.
    for _ in 0..3 {
        spawn_call(&ctx.cli, &state, &ctx.cache)?;
    }
    let (mut first, mut exit) = (Vec::new(), Vec::new());
    for _ in 0..warm_runs {
        let (f, e) = spawn_call(&ctx.cli, &state, &ctx.cache)?;
        first.push(f);
        exit.push(e);
    }
    let (mut cold_first, mut cold_exit) = (Vec::new(), Vec::new());
    for i in 0..cold_runs {
        let empty = ctx.work.join(format!("cache-empty-{i}"));
        std::fs::create_dir_all(&empty)?;
        let (f, e) = spawn_call(&ctx.cli, &state, &empty)?;
        cold_first.push(f);
        cold_exit.push(e);
        let _ = std::fs::remove_dir_all(&empty);
    }
    let r = &mut ctx.report;
    r.add(
        Figure::time("cold start", "process start → first tool result, with the compiled cache", Stats::of(&first))
            .target(Target::AtMost(20e6))
            .note("`session-tools --state S call --as agent:main:main sessions_list {}`, 10 sessions; time to the first byte on stdout"),
    );
    r.add(Figure::time("cold start", "  same, process start → exit", Stats::of(&exit)));
    r.add(
        Figure::time("cold start", "process start → first tool result, empty cache (compiles)", Stats::of(&cold_first))
            .note("SESSION_TOOLS_CACHE_DIR = a new empty directory each time"),
    );
    r.add(Figure::time("cold start", "  same, process start → exit", Stats::of(&cold_exit)));
    Ok(())
}

#[derive(Debug, serde::Serialize, serde::Deserialize)]
struct MemoryFigures {
    asked: usize,
    live: usize,
    error: Option<String>,
    before: Rss,
    configured: Rss,
    after_call: Rss,
    /// Proportional set size (total, anon, file) at the same three points.
    pss: [(u64, u64, u64); 3],
    instantiate_ns: f64,
    call_ns: f64,
    pool_ns: f64,
}

/// In the child: `n` live, configured instances, then one `sessions_list` on each.
pub fn memory_child(args: &BenchArgs, n: usize) -> Result<i32> {
    let state = args.child_state.clone().ok_or_else(|| anyhow!("--child-state is required"))?;
    let options = EngineOptions::default().with_pooling(true).with_pool_instances(n as u32 + 16).with_cache_dir(args.child_cache.clone());
    let t = Instant::now();
    let runtime = Runtime::new(session_tools_host::COMPONENT, &options, &Limits::default())?;
    let pool_ns = ns_since(t);
    let o = open(&state)?;
    let caller = main_caller();
    // One instance first, so one-time host allocations are not counted per instance.
    let mut first = runtime.instantiate(&o.setup).map_err(|e| anyhow!("{e}"))?;
    first.call_tool("sessions_list", &caller, "{}").map_err(|e| anyhow!("{e}"))?;
    let mut live = Vec::with_capacity(n);
    let before = Rss::now();
    let pss_before = pss();
    let mut error = None;
    let t = Instant::now();
    for i in 0..n {
        let mut setup = o.setup.clone();
        setup.name = format!("agent-{i}");
        let made = if args.child_bare { runtime.instantiate_bare(&setup) } else { runtime.instantiate(&setup) };
        match made {
            Ok(sandbox) => live.push(sandbox),
            Err(e) => {
                error = Some(format!("instance {i}: {e}"));
                break;
            }
        }
    }
    let instantiate_ns = ns_since(t) / live.len().max(1) as f64;
    let configured = Rss::now();
    let pss_configured = pss();
    let t = Instant::now();
    for sandbox in live.iter_mut().filter(|_| !args.child_bare) {
        if let Err(e) = sandbox.call_tool("sessions_list", &caller, "{}") {
            error.get_or_insert(format!("call: {e}"));
            break;
        }
    }
    let call_ns = ns_since(t) / live.len().max(1) as f64;
    let after_call = Rss::now();
    let pss_after = pss();
    let figures = MemoryFigures {
        asked: n,
        live: live.len(),
        error,
        before,
        configured,
        after_call,
        pss: [pss_before, pss_configured, pss_after],
        instantiate_ns,
        call_ns,
        pool_ns,
    };
    crate::out::line(&format!("BENCH-CHILD {}", serde_json::to_string(&figures)?))?;
    Ok(0)
}

fn spawn_memory_child(ctx: &Ctx, small: &Manifest, n: usize, bare: bool) -> Result<MemoryFigures> {
    let exe = std::env::current_exe()?;
    let mut command = Command::new(exe);
    command.args(["--child-memory", &n.to_string()]).arg("--child-state").arg(&small.dir).arg("--child-cache").arg(&ctx.cache);
    if bare {
        command.arg("--child-bare");
    }
    let output = command.stdin(Stdio::null()).output()?;
    let stdout = String::from_utf8_lossy(&output.stdout);
    let Some(line) = stdout.lines().find_map(|l| l.strip_prefix("BENCH-CHILD ")) else {
        bail!("the memory child for {n} instances failed ({}): {}", output.status, String::from_utf8_lossy(&output.stderr));
    };
    Ok(serde_json::from_str(line)?)
}

pub fn memory(ctx: &mut Ctx, small: &Manifest, agents: &[usize]) -> Result<()> {
    let mut table = String::from(
        "Resident memory (VmRSS) added per live agent instance: each instance from `Runtime::instantiate` (configured), \
         then after one `sessions_list` (10 sessions) on each. Measured in a child process with a pool of N + 16 slots. \
         Anonymous memory is the instances' own; file-backed is the compiled code and the copy-on-write memory image \
         mapped from the .cwasm, counted by VmRSS once per mapping although the pages are shared; PSS divides shared \
         pages among their users, so it is the physical memory an instance really adds.\n\n\
         | live instances | VmRSS per instance, configured (anon + file) | VmRSS per instance after one call (anon + file) | PSS per instance after one call (anon + file) | instantiate + configure, mean | call, mean | Runtime::new with the pool |\n\
         |---:|---:|---:|---:|---:|---:|---:|\n",
    );
    let mut most_live = 0usize;
    for &n in agents {
        let m = spawn_memory_child(ctx, small, n, false)?;
        if let Some(e) = &m.error {
            session_tools_cli::note!("  {n} instances: stopped at {}: {e}", m.live);
        }
        most_live = most_live.max(m.live);
        let per = |a: &Rss, b: &Rss| {
            let live = m.live.max(1) as f64;
            ((b.total as f64 - a.total as f64) / live, (b.anon as f64 - a.anon as f64) / live, (b.file as f64 - a.file as f64) / live)
        };
        let (cfg_total, cfg_anon, cfg_file) = per(&m.before, &m.configured);
        let (call_total, call_anon, call_file) = per(&m.before, &m.after_call);
        let fmt = |v: f64| Unit::Bytes.fmt(v);
        let live = m.live.max(1) as f64;
        let (p0, p2) = (m.pss[0], m.pss[2]);
        let pss_per = ((p2.0 as f64 - p0.0 as f64) / live, (p2.1 as f64 - p0.1 as f64) / live, (p2.2 as f64 - p0.2 as f64) / live);
        // The target is read as physical memory (PSS): VmRSS counts the memory image's
        // file pages once per instance that maps them, though they are one set of pages.
        let pss_configured = (m.pss[1].0 as f64 - p0.0 as f64) / live;
        ctx.report.add(
            Figure::value("memory", format!("PSS per idle configured instance, {} live", thousands(n as f64)), pss_configured, Unit::Bytes)
                .target(Target::AtMost(64.0 * 1024.0))
                .note("physical memory: pages shared between instances (code, the memory image) divided among them"),
        );
        ctx.report.add(
            Figure::value("memory", format!("RSS per idle configured instance, {} live", thousands(n as f64)), cfg_total, Unit::Bytes)
                .note(format!("anon {}, file {} (the image's shared pages, counted once per instance)", fmt(cfg_anon), fmt(cfg_file))),
        );
        ctx.report.add(
            Figure::value(
                "memory",
                format!("RSS per idle instance after one sessions_list, {} live", thousands(n as f64)),
                call_total,
                Unit::Bytes,
            )
            .note(format!(
                "anon {}, file {}; process RSS {} with {} instances",
                fmt(call_anon),
                fmt(call_file),
                fmt(m.after_call.total as f64),
                thousands(m.live as f64)
            )),
        );
        ctx.report.add(
            Figure::value(
                "memory",
                format!("PSS per idle instance after one sessions_list, {} live", thousands(n as f64)),
                pss_per.0,
                Unit::Bytes,
            )
            .target(Target::AtMost(64.0 * 1024.0))
            .note("physical memory: pages shared between instances (code, the memory image) divided among them"),
        );
        let _ = writeln!(
            table,
            "| {} | {} ({} + {}) | {} ({} + {}) | {} ({} + {}) | {} | {} | {} |",
            thousands(m.live as f64),
            fmt(cfg_total),
            fmt(cfg_anon),
            fmt(cfg_file),
            fmt(call_total),
            fmt(call_anon),
            fmt(call_file),
            fmt(pss_per.0),
            fmt(pss_per.1),
            fmt(pss_per.2),
            Unit::Ns.fmt(m.instantiate_ns),
            Unit::Ns.fmt(m.call_ns),
            Unit::Ns.fmt(m.pool_ns)
        );
    }
    // The instance alone (instantiate_bare, nothing run in it but its start-up).
    if let Some(&n) = agents.iter().min() {
        let m = spawn_memory_child(ctx, small, n, true)?;
        let live = m.live.max(1) as f64;
        let total = (m.configured.total as f64 - m.before.total as f64) / live;
        let anon = (m.configured.anon as f64 - m.before.anon as f64) / live;
        let file = (m.configured.file as f64 - m.before.file as f64) / live;
        let pss_anon = (m.pss[1].1 as f64 - m.pss[0].1 as f64) / live;
        ctx.report.add(
            Figure::value("memory", format!("RSS per bare instance (instantiate_bare), {} live", thousands(n as f64)), total, Unit::Bytes)
                .note(format!("anon {}, file {}; PSS anon {}", Unit::Bytes.fmt(anon), Unit::Bytes.fmt(file), Unit::Bytes.fmt(pss_anon))),
        );
        let _ = writeln!(
            table,
            "\nA bare instance (`instantiate_bare`, not configured, {} live): {} per instance ({} anon + {} file); instantiate_bare {} on average.",
            thousands(m.live as f64),
            Unit::Bytes.fmt(total),
            Unit::Bytes.fmt(anon),
            Unit::Bytes.fmt(file),
            Unit::Ns.fmt(m.instantiate_ns)
        );
    }
    if agents.iter().any(|&n| n >= 10_000) {
        ctx.report.add(
            Figure::value("memory", "live agent instances held in one process", most_live as f64, Unit::Count)
                .target(Target::AtLeast(10_000.0)),
        );
    }
    ctx.report.section("Memory per live agent instance", table);
    Ok(())
}

/// N18 over a store of `sessions` sessions (300,000 by default): `sessions_list {}` as a
/// separate process with the default limits, its time and its peak memory (VmHWM)
/// against the size of `sessions.json`. Without N18 the component was handed every row
/// and failed at the 128 MiB memory limit from about 100,000 sessions.
pub fn big_store(ctx: &mut Ctx, sessions: usize, layout: Layout) -> Result<()> {
    let t = Instant::now();
    let spec =
        super::gen::Spec { transcripts: false, main_messages: 1, history_messages: 1, layout, ..super::gen::Spec::openclaw(sessions, 1) };
    let (dir, store, suffix) = match layout {
        Layout::Files => (format!("big-{sessions}"), "sessions.json", ""),
        Layout::Sqlite => (format!("big-{sessions}-sqlite"), "openclaw-agent.sqlite", ", 2026.9 SQLite"),
    };
    let manifest = super::gen::generate(&ctx.work.join(dir), &spec)?;
    session_tools_cli::note!(
        "  store of {} sessions{suffix} ({} MiB) generated in {:.1} s",
        thousands(sessions as f64),
        manifest.store_bytes >> 20,
        t.elapsed().as_secs_f64()
    );
    let t = Instant::now();
    let child = Command::new(&ctx.cli)
        .arg("--state")
        .arg(&manifest.dir)
        .args(["call", "--as", "agent:main:main", "--wait", "0", "sessions_list", "{}"])
        .env("SESSION_TOOLS_CACHE_DIR", &ctx.cache)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .context("starting session-tools call")?;
    let (peak_kib, finished) = watch_peak(child)?;
    let wall = ns_since(t);
    let status = finished.status.code().unwrap_or(-1);
    let output = (finished.stdout, finished.stderr);
    let answer: serde_json::Value = serde_json::from_slice(&output.0).map_err(|e| {
        anyhow!("sessions_list {{}} over {sessions} sessions did not answer JSON ({e}): {}", String::from_utf8_lossy(&output.1))
    })?;
    let rows = answer.get("count").and_then(serde_json::Value::as_u64).unwrap_or(0);
    if status != 0 || rows != 200 {
        bail!("sessions_list {{}} over {sessions} sessions: exit status {status}, {rows} rows: {}", String::from_utf8_lossy(&output.1));
    }
    let peak = peak_kib as f64 * 1024.0;
    let size = thousands(sessions as f64);
    ctx.report.add(
        Figure::value(
            "memory",
            format!("N18: sessions_list {{}} over {size} sessions{suffix}, a process's peak memory / {store}"),
            peak / manifest.store_bytes as f64,
            Unit::Ratio,
        )
        .target(Target::AtMost(4.0))
        .note(format!("peak {} MiB for a {} MiB store; 200 rows, default limits", (peak as u64) >> 20, manifest.store_bytes >> 20)),
    );
    ctx.report.add(Figure::value(
        "memory",
        format!("N18: sessions_list {{}} over {size} sessions{suffix}, peak memory"),
        peak,
        Unit::Bytes,
    ));
    ctx.report.add(Figure::value(
        "memory",
        format!("N18: sessions_list {{}} over {size} sessions{suffix}, the whole process"),
        wall,
        Unit::Ns,
    ));
    Ok(())
}

/// Waits for a child, reading its output, and answers its peak memory (KiB) with its
/// output. The peak is read from the child's own VmHWM while it lives: `ru_maxrss` after
/// a fork and exec also counts the forked copy of this (large) process.
pub fn watch_peak(child: std::process::Child) -> Result<(u64, std::process::Output)> {
    let pid = child.id();
    let watcher = std::thread::spawn(move || {
        let mut peak_kib = 0u64;
        while let Ok(status) = std::fs::read_to_string(format!("/proc/{pid}/status")) {
            let Some(kib) =
                status.lines().find_map(|l| l.strip_prefix("VmHWM:")).and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
            else {
                break; // a zombie: no memory left to read
            };
            peak_kib = peak_kib.max(kib);
            std::thread::sleep(std::time::Duration::from_millis(2));
        }
        peak_kib
    });
    let (stdout, stderr) = read_all(child)?;
    let peak_kib = watcher.join().unwrap_or(0);
    let child_pid = i32::try_from(pid).ok().and_then(rustix::process::Pid::from_raw).ok_or_else(|| anyhow!("child pid {pid}"))?;
    let status = match rustix::process::waitpid(Some(child_pid), rustix::process::WaitOptions::empty()) {
        Ok(Some((_, status))) => status.as_raw(),
        Ok(None) => bail!("waiting for the child: it did not end"),
        Err(e) => bail!("waiting for the child: {e}"),
    };
    let status = std::os::unix::process::ExitStatusExt::from_raw(status);
    Ok((peak_kib, std::process::Output { status, stdout, stderr }))
}

/// A child's stdout and stderr, read to their ends (without waiting for it).
fn read_all(mut child: std::process::Child) -> Result<(Vec<u8>, Vec<u8>)> {
    let mut stderr = child.stderr.take().ok_or_else(|| anyhow!("no stderr"))?;
    let errors = std::thread::spawn(move || {
        let mut text = Vec::new();
        let _ = stderr.read_to_end(&mut text);
        text
    });
    let mut out = Vec::new();
    child.stdout.take().ok_or_else(|| anyhow!("no stdout"))?.read_to_end(&mut out)?;
    let err = errors.join().unwrap_or_default();
    // The child is waited for by its pid (wait4), not by `Child::wait`.
    std::mem::forget(child);
    Ok((out, err))
}
