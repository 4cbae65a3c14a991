//! `session-tools-bench`: measures the host and the component against the project's
//! targets and writes the figures as markdown for `BENCHMARKS.md`. A binary of its own,
//! beside the command line (the product links none of it): run it with
//! `cargo build --release --bin session-tools && cargo run --release -p session-tools-bench -- --quick`;
//! the sections that time a process (`cold`, `memory`'s big stores, `jobs`) run that
//! `session-tools` (`--cli`, default: the one beside this binary).
//!
//! Everything it needs is generated in a temporary directory: OpenClaw states in the
//! shapes of `make_big_state.py` (10, 1,000 and 10,000 sessions; 1,000- and
//! 10,000-message transcripts; a many-agent state for the scale run) and a
//! compiled-component cache. Sections:
//!
//! - `instantiate`: per-agent instances from the pre-instantiated component (pooled);
//! - `roundtrip`: host→guest calls that do (almost) nothing;
//! - `tools`: `sessions_list` and `sessions_history` through the component and natively
//!   (the same guest crate compiled into this process), same gateway, same state;
//! - `guard`: a sandboxed caller's `sessions_list` behind the N15 guard component beside an
//!   unrestricted caller's, through the service (target: within 1.3x);
//! - `cold`: process start to the first tool result, with and without the cache;
//! - `memory`: resident memory per live agent instance (in child processes);
//! - `scale`: many agents calling at once through [`session_tools_host::Service`], each
//!   checked to see only its own sessions;
//! - `jobs`: pending background flows (10,000 of 1,000 agents) resumed by one process;
//! - `sizes`: the component and the compiled component;
//! - `live` (only with `--live`): the real OpenClaw gateway, our tools through the
//!   live-gateway client against OpenClaw's own.
//! - `plugin` (only with `--plugin`): the OpenClaw plugin installed in the real gateway,
//!   its tools against OpenClaw's core tools on that gateway.

mod gen;
mod gen_sqlite;
mod guard;
mod http;
mod jobs;
mod live;
mod micro;
mod out;
mod package;
mod plugin;
mod process;
mod report;
mod scale;
mod stats;
mod sysinfo;
mod tools;
mod variants;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{Context, Result};

use clap::Parser;
use package::GatewayPackage;
use report::{Figure, Report, Unit};
use session_tools_cli::note;
use session_tools_cli::progress::Progress;
use session_tools_host::gateway::embedded::Layout;
use session_tools_host::EngineOptions;
use session_tools_host::Limits;
use session_tools_host::Runtime;
use stats::Plan;

/// The sections, in the order they run (`variants` and `live` only when asked for).
pub const SECTIONS: [&str; 12] =
    ["sizes", "instantiate", "roundtrip", "variants", "tools", "guard", "scale", "jobs", "memory", "cold", "live", "plugin"];

/// Options of `session-tools-bench`.
#[derive(Parser, Debug, Clone, Default)]
#[command(name = "session-tools-bench", version, about = "Measure the session-tools host and component against the project's targets.")]
pub struct BenchArgs {
    /// A smoke run in well under a minute: smaller states, fewer samples.
    #[arg(long)]
    pub quick: bool,
    /// Where the markdown report goes (`-`: stdout only).
    #[arg(long, value_name = "FILE", default_value = "bench-results.md")]
    pub out: PathBuf,
    /// Session counts for `sessions_list` (default 10,1000,10000; --quick: 10,1000).
    #[arg(long, value_delimiter = ',', value_name = "N,...")]
    pub sessions: Vec<usize>,
    /// Transcript lengths for `sessions_history` (default 1000,10000; --quick: 1000).
    #[arg(long, value_delimiter = ',', value_name = "M,...")]
    pub messages: Vec<usize>,
    /// Live agent instances for the memory figures (default 1000,10000; --quick: 1000).
    #[arg(long, value_delimiter = ',', value_name = "N,...")]
    pub agents: Vec<usize>,
    /// Agents of the scale run (default 500; --quick: 50), each with --scale-sessions.
    #[arg(long, value_name = "N")]
    pub scale_agents: Option<usize>,
    #[arg(long, value_name = "N", default_value_t = 6)]
    pub scale_sessions: usize,
    /// Threads of the scale run (default: 4 × the cores).
    #[arg(long, value_name = "N")]
    pub threads: Option<usize>,
    /// Only these sections (sizes, instantiate, roundtrip, tools, scale, memory, cold; and
    /// `variants`, experiments with other engine settings, never run by default).
    #[arg(long, value_delimiter = ',', value_name = "SECTION,...")]
    pub only: Vec<String>,
    /// Only the live section: the real OpenClaw gateway (installed from the npm registry on
    /// first use) on generated states (--sessions; default 1000,10000, --quick 1000), our
    /// tools through the live-gateway client against OpenClaw's own (`/tools/invoke`).
    #[arg(long)]
    pub live: bool,
    /// Only the plugin section: the OpenClaw plugin (`plugin/`) installed in the real
    /// gateway on generated states (--sessions), its tools against OpenClaw's core tools,
    /// both through `/tools/invoke`. Needs npm.
    #[arg(long)]
    pub plugin: bool,
    /// The OpenClaw gateway --live and --plugin start (default clawdbot@2026.1.24-3, the
    /// reference's era); openclaw@2026.9.6 is today's: protocol 4, the states written in
    /// its SQLite layout.
    #[arg(long, value_name = "NAME@VERSION", value_parser = package::gateway_package)]
    pub package: Option<GatewayPackage>,
    /// The plugin folder for --plugin (default: `plugin/` of the workspace).
    #[arg(long, value_name = "DIR")]
    pub plugin_dir: Option<PathBuf>,
    /// Also run the engine-variant experiments (other engine settings, the component
    /// called without the sandbox's wrapper).
    #[arg(long)]
    pub variants: bool,
    /// Generate the states here (kept afterwards) instead of in a temporary directory.
    #[arg(long, value_name = "DIR")]
    pub work_dir: Option<PathBuf>,
    /// Seconds of sampling per measured case (default 4; --quick: 0.5).
    #[arg(long, value_name = "SECONDS")]
    pub budget: Option<f64>,
    /// The `session-tools` executable the process sections run (default: the one beside
    /// this binary, as `cargo build --release --bin session-tools` leaves it).
    #[arg(long, value_name = "FILE")]
    pub cli: Option<PathBuf>,
    /// Internal: measure memory with this many live instances and print the figures.
    #[arg(long, hide = true)]
    pub child_memory: Option<usize>,
    #[arg(long, hide = true)]
    pub child_state: Option<PathBuf>,
    #[arg(long, hide = true)]
    pub child_cache: Option<PathBuf>,
    /// Sessions of the store N18's memory figure lists (default 300,000).
    #[arg(long, value_name = "N")]
    pub big_sessions: Option<usize>,
    /// Pending sub-agent flows the `jobs` section resumes (default 10,000 of 1,000 agents;
    /// --quick: 1,000 of 100), ten an agent.
    #[arg(long, value_name = "N")]
    pub pending_flows: Option<usize>,
    /// Internal: the memory child makes bare (unconfigured) instances and calls nothing.
    #[arg(long, hide = true)]
    pub child_bare: bool,
}

/// What the sections share.
pub struct Ctx {
    pub quick: bool,
    pub work: PathBuf,
    /// A compiled-component cache holding this component.
    pub cache: PathBuf,
    pub runtime: Runtime,
    pub report: Report,
    pub budget: Duration,
    pub args: BenchArgs,
    /// The run's stages on a terminal (`session_tools_cli::progress`).
    pub progress: Progress,
    /// The `session-tools` executable the process sections run.
    pub cli: PathBuf,
}

impl Ctx {
    /// A plan for calls of about `per_call` each.
    pub fn plan(&self, per_call: Duration) -> Plan {
        let per = per_call.as_secs_f64().max(1e-7);
        let budget = self.budget.as_secs_f64();
        let warmup = ((budget / 10.0 / per) as usize).clamp(1, 200);
        let min = if self.quick { 3 } else { 7 };
        Plan::new(warmup, min, ((budget / per) as usize).clamp(min, 20_000), self.budget)
    }

    fn wants(&self, section: &str) -> bool {
        wants(&self.args, section)
    }
}

/// Whether `args` ask for `section`.
fn wants(args: &BenchArgs, section: &str) -> bool {
    if args.live || args.plugin {
        return (args.live && section == "live") || (args.plugin && section == "plugin");
    }
    if section == "variants" && args.variants {
        return true;
    }
    (args.only.is_empty() && !matches!(section, "variants" | "live" | "plugin")) || args.only.iter().any(|s| s == section)
}

fn or_default(given: &[usize], full: &[usize], quick: &[usize], is_quick: bool) -> Vec<usize> {
    if !given.is_empty() {
        given.to_vec()
    } else if is_quick {
        quick.to_vec()
    } else {
        full.to_vec()
    }
}

fn main() -> std::process::ExitCode {
    match run(&BenchArgs::parse()) {
        Ok(code) => std::process::ExitCode::from(code.clamp(0, 255) as u8),
        Err(error) => {
            eprintln!("error: {error:#}");
            std::process::ExitCode::from(1)
        }
    }
}

/// The `session-tools` executable the process sections run: `--cli`, else the one beside
/// this binary; refused when missing, saying how to build it.
fn command_line(args: &BenchArgs) -> Result<PathBuf> {
    let path = match &args.cli {
        Some(path) => path.clone(),
        None => {
            let exe = std::env::current_exe().context("finding this executable")?;
            exe.with_file_name(format!("session-tools{}", std::env::consts::EXE_SUFFIX))
        }
    };
    if !path.is_file() {
        anyhow::bail!(
            "{} does not exist: the bench times the `session-tools` command line; build it first \
             (cargo build --release --bin session-tools) or name it with --cli FILE",
            path.display()
        );
    }
    Ok(path)
}

pub fn run(args: &BenchArgs) -> Result<i32> {
    if let Some(n) = args.child_memory {
        return process::memory_child(args, n);
    }
    for section in &args.only {
        if !SECTIONS.contains(&section.as_str()) {
            anyhow::bail!("unknown section {section:?} (sections: {})", SECTIONS.join(", "));
        }
    }
    if args.package.is_some() && !(args.live || args.plugin) {
        anyhow::bail!("--package chooses the gateway of --live and --plugin: add one of them");
    }
    let machine = sysinfo::Machine::detect();
    if machine.profile == "debug" {
        note!("warning: this is a debug build; the figures say little (use cargo run --release)");
    }
    note!(
        "session-tools-bench{}: {} ({} cores), {}, {}, wasmtime {}",
        if args.quick { " --quick" } else { "" },
        machine.cpu,
        machine.cores,
        machine.memory,
        machine.rustc,
        machine.wasmtime
    );
    let (work, temporary) = match &args.work_dir {
        Some(dir) => (dir.clone(), false),
        None => {
            let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos());
            (std::env::temp_dir().join(format!("session-tools-bench-{}-{nanos:x}", std::process::id())), true)
        }
    };
    std::fs::create_dir_all(&work).with_context(|| format!("creating {}", work.display()))?;
    let result = run_in(args, machine, &work);
    if temporary {
        let _ = std::fs::remove_dir_all(&work);
    }
    result
}

fn run_in(args: &BenchArgs, machine: sysinfo::Machine, work: &Path) -> Result<i32> {
    let started = Instant::now();
    let cache = work.join("cache-warm");
    std::fs::create_dir_all(&cache)?;
    let mut mode = String::new();
    if args.quick {
        mode.push_str(" --quick");
    }
    if args.variants {
        mode.push_str(" --variants");
    }
    if args.live {
        mode.push_str(" --live");
    }
    if args.plugin {
        mode.push_str(" --plugin");
    }
    if let Some(package) = &args.package {
        mode.push_str(&format!(" --package {}", package.spec));
    }
    if !args.only.is_empty() {
        mode.push_str(&format!(" --only {}", args.only.join(",")));
    }
    let load_at_start = sysinfo::load_average();
    if load_at_start.split_whitespace().next().and_then(|l| l.parse::<f64>().ok()).is_some_and(|l| l > 1.0) {
        note!("note: the machine is busy (load average {load_at_start}); figures will be slower and noisier");
    }
    let mut report = Report { machine, mode, figures: Vec::new(), sections: Vec::new(), started, load_at_start };

    // The engine and the states, then each section asked for.
    let stages = 2 + SECTIONS.iter().filter(|s| wants(args, s)).count();
    let progress = Progress::stages("bench", stages as u64);
    progress.stage("engine");
    let options = EngineOptions::default().with_cache_dir(Some(cache.clone()));
    let t = Instant::now();
    let runtime = Runtime::new(session_tools_host::COMPONENT, &options, &Limits::default())?;
    report.add(
        Figure::value("engine", "Runtime::new, compiling the component (empty cache)", stats::ns_since(t), Unit::Ns)
            .note("Cranelift, in this process; done once per component and machine"),
    );
    let budget = Duration::from_secs_f64(args.budget.unwrap_or(if args.quick { 0.5 } else { 4.0 }));
    let cli = command_line(args)?;
    let mut ctx = Ctx { quick: args.quick, work: work.to_path_buf(), cache, runtime, report, budget, args: args.clone(), progress, cli };
    let plan = Plan::new(1, if ctx.quick { 3 } else { 10 }, 50, ctx.budget);
    let from_cache = stats::sample(plan, || -> Result<f64> {
        let t = Instant::now();
        let rt = Runtime::new(session_tools_host::COMPONENT, &options, &Limits::default())?;
        let ns = stats::ns_since(t);
        drop(rt);
        Ok(ns)
    })?;
    let limits = Limits::default();
    let engine_only = stats::sample(plan, || -> Result<f64> {
        let t = Instant::now();
        let engine = session_tools_host::bench_internals::build_engine(&options, &limits)?;
        let ns = stats::ns_since(t);
        drop(engine);
        Ok(ns)
    })?;
    let small_pool = options.clone().with_pool_instances(16);
    let engine_small = stats::sample(plan, || -> Result<f64> {
        let t = Instant::now();
        let engine = session_tools_host::bench_internals::build_engine(&small_pool, &limits)?;
        let ns = stats::ns_since(t);
        drop(engine);
        Ok(ns)
    })?;
    let unpooled = options.clone().with_pooling(false);
    let engine_unpooled = stats::sample(plan, || -> Result<f64> {
        let t = Instant::now();
        let engine = session_tools_host::bench_internals::build_engine(&unpooled, &limits)?;
        let ns = stats::ns_since(t);
        drop(engine);
        Ok(ns)
    })?;
    let engine = session_tools_host::bench_internals::build_engine(&options, &limits)?;
    let load_only = stats::sample(plan, || -> Result<f64> {
        let t = Instant::now();
        let component =
            session_tools_host::bench_internals::load_component(&engine, session_tools_host::COMPONENT, options.cache_dir.as_deref())?;
        let ns = stats::ns_since(t);
        drop(component);
        Ok(ns)
    })?;
    drop(engine);
    let dropping = stats::sample(plan, || -> Result<f64> {
        let rt = Runtime::new(session_tools_host::COMPONENT, &options, &Limits::default())?;
        let t = Instant::now();
        drop(rt);
        Ok(stats::ns_since(t))
    })?;
    ctx.report.add(
        Figure::time("engine", "Runtime::new from the compiled-component cache", from_cache)
            .note("engine with a 1,000-slot pool, deserialize the .cwasm, link, instantiate_pre"),
    );
    ctx.report.add(Figure::time("engine", "  of which: build_engine (1,000-slot pool)", engine_only));
    ctx.report.add(Figure::time("engine", "  (for comparison: build_engine with a 16-slot pool)", engine_small));
    ctx.report.add(Figure::time("engine", "  (for comparison: build_engine without pooling)", engine_unpooled));
    ctx.report.add(
        Figure::time("engine", "  of which: load_component from the cache", load_only)
            .note("cache key (SHA-256 of the 640 KiB component), ownership checks, read and SHA-256 of the .cwasm, deserialize"),
    );
    ctx.report.add(Figure::time("engine", "drop of a Runtime", dropping).note("pool unmapped; the epoch thread woken and joined"));

    ctx.progress.stage("states");
    let t = Instant::now();
    let small = gen::generate(&work.join("state-10"), &gen::Spec::openclaw(10, 20))?;
    note!("  state-10 generated in {:.1} s", t.elapsed().as_secs_f64());

    if ctx.wants("sizes") {
        ctx.progress.stage("sizes");
        process::sizes(&mut ctx)?;
    }
    if ctx.wants("instantiate") || ctx.wants("roundtrip") || ctx.wants("variants") {
        let opened = tools::open(&small.dir)?;
        if ctx.wants("instantiate") {
            ctx.progress.stage("instantiate");
            micro::instantiation(&mut ctx, &opened)?;
        }
        if ctx.wants("roundtrip") {
            ctx.progress.stage("roundtrip");
            micro::round_trip(&mut ctx, &opened)?;
        }
        if ctx.wants("variants") {
            ctx.progress.stage("engine variants");
            variants::run(&mut ctx, &opened)?;
        }
    }
    if ctx.wants("tools") {
        ctx.progress.stage("tools");
        let sessions = or_default(&args.sessions, &[10, 1_000, 10_000], &[10, 1_000], ctx.quick);
        let messages = or_default(&args.messages, &[1_000, 10_000], &[1_000], ctx.quick);
        tools::run(&mut ctx, &small, &sessions, &messages)?;
    }
    if ctx.wants("guard") {
        ctx.progress.stage("the N15 guard");
        guard::run(&mut ctx, 1_000)?;
    }
    if ctx.wants("scale") {
        ctx.progress.stage("scale");
        scale::run(&mut ctx)?;
    }
    if ctx.wants("jobs") {
        ctx.progress.stage("pending jobs resumed");
        let (flows, agents) = match ctx.args.pending_flows {
            Some(flows) => (flows, (flows / 10).max(1)),
            None if ctx.quick => (1_000, 100),
            None => (10_000, 1_000),
        };
        jobs::run(&mut ctx, flows, agents)?;
        jobs::isolation(&mut ctx)?;
    }
    if ctx.wants("memory") {
        ctx.progress.stage("memory");
        let agents = or_default(&args.agents, &[1_000, 10_000], &[1_000], ctx.quick);
        process::memory(&mut ctx, &small, &agents)?;
        let big = ctx.args.big_sessions.unwrap_or(300_000);
        process::big_store(&mut ctx, big, Layout::Sqlite)?;
        process::big_store(&mut ctx, big, Layout::Files)?;
    }
    if ctx.wants("cold") {
        ctx.progress.stage("cold start");
        process::cold_start(&mut ctx, &small)?;
    }
    if ctx.wants("live") {
        ctx.progress.stage("live gateway");
        let sessions = or_default(&args.sessions, &[1_000, 10_000], &[1_000], ctx.quick);
        live::run(&mut ctx, &sessions)?;
    }
    if ctx.wants("plugin") {
        ctx.progress.stage("plugin in the gateway");
        let sessions = or_default(&args.sessions, &[1_000, 10_000], &[1_000], ctx.quick);
        plugin::run(&mut ctx, &sessions)?;
    }

    ctx.progress.clear();
    let table = ctx.report.table();
    out::line(&format!("\n{table}"))?;
    let markdown = ctx.report.markdown();
    if ctx.args.out.as_os_str() == "-" {
        out::line(&markdown)?;
    } else {
        std::fs::write(&ctx.args.out, &markdown).with_context(|| format!("writing {}", ctx.args.out.display()))?;
        note!("markdown written to {} ({:.0} s in all)", ctx.args.out.display(), started.elapsed().as_secs_f64());
    }
    Ok(0)
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use super::{run, BenchArgs};

    /// `--package` takes a gateway of an era the bench knows, and says which it knows
    /// otherwise; it goes with `--live` or `--plugin` only. Both refusals come before any
    /// measurement.
    #[test]
    fn a_gateway_package_of_no_known_era_or_without_live_is_refused() {
        let error =
            BenchArgs::try_parse_from(["session-tools-bench", "--live", "--package", "openclaw@2027.1.0", "--out", "-"]).unwrap_err();
        assert_eq!(error.exit_code(), 2, "{error}");
        let said = error.to_string();
        assert!(said.contains("\"openclaw@2027.1.0\" is of no OpenClaw era"), "{said}");
        assert!(said.contains("openclaw@2026.9.x") && said.contains("clawdbot@2026.1.x"), "{said}");
        let args = BenchArgs::try_parse_from(["session-tools-bench", "--package", "openclaw@2026.9.6", "--out", "-"]).unwrap();
        let error = run(&args).unwrap_err().to_string();
        assert!(error.contains("--package chooses the gateway of --live and --plugin"), "{error}");
    }
}
