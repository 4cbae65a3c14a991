//! `session-tools-bench --plugin`: the OpenClaw plugin (`plugin/`, the same component in
//! Node) installed with `plugins install` into a real gateway (`--package`, as for
//! `--live`) on generated 1,000- and 10,000-session states in the layout its era reads, and
//! its tools timed against OpenClaw's core tools on that same gateway, in one run,
//! alternating: both through the gateway's own `POST /tools/invoke`,
//! so the HTTP request, the gateway's tool-policy pass and the tool's construction cost
//! both sides the same and what differs is the tool.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{anyhow, bail, Context, Result};
use openclaw_harness::{install, install_plugin, pack, Gateway, GatewayOptions};
use serde_json::{json, Value};
use sha2::{Digest, Sha256};

use super::http::invoke_tool;
use super::live::{check_era, chosen_package, count, pair, same_rows, startup_for, state, REQUESTER};
use super::report::{ms, Figure, Target, Unit};
use super::Ctx;

/// The plugin folder: `--plugin-dir`, else `plugin/` of the workspace this binary was built in.
fn plugin_dir(ctx: &Ctx) -> Result<PathBuf> {
    let dir = match &ctx.args.plugin_dir {
        Some(dir) => dir.clone(),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../plugin"),
    };
    if !dir.join("openclaw.plugin.json").is_file() {
        bail!("{} is not the plugin folder (no openclaw.plugin.json): pass --plugin-dir DIR", dir.display());
    }
    Ok(dir)
}

/// The plugin's transpiled components are this binary's (the tools, the N15 guard, the
/// tools behind it, the gateway wire: `component/manifest.json`'s `components`, as
/// `plugin/scripts/build-component.mjs` writes it), or the figures would be of another build.
fn check_built(dir: &Path) -> Result<()> {
    let path = dir.join("component/manifest.json");
    let text = std::fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))?;
    let manifest: Value = serde_json::from_str(&text).with_context(|| format!("{} is not JSON", path.display()))?;
    let digest = |bytes: &[u8]| -> String { Sha256::digest(bytes).iter().map(|b| format!("{b:02x}")).collect() };
    let guarded = session_tools_host::guarded_component(session_tools_host::COMPONENT)
        .map_err(|e| anyhow!("composing the tools behind the N15 guard: {e}"))?;
    for (what, part, ours) in [
        ("component", "tools", digest(session_tools_host::COMPONENT)),
        ("guarded composition", "guarded", digest(&guarded)),
        ("N15 guard", "guard", digest(session_tools_host::GUARD_COMPONENT)),
        ("gateway wire", "wire", digest(session_tools_host::WIRE_COMPONENT)),
    ] {
        let theirs = manifest.pointer(&format!("/components/{part}/component/sha256")).and_then(Value::as_str).unwrap_or_default();
        if theirs != ours {
            bail!(
                "{} was built from another {what} (sha256 {theirs:?}, this binary's is {ours}): rebuild it with \
                 `cd {} && npm ci && npm run build` (it reads this build's components under target/, or the SESSION_TOOLS_*_WASM \
                 variables `scripts/build-component.mjs` names)",
                path.display(),
                dir.display()
            );
        }
    }
    Ok(())
}

pub fn run(ctx: &mut Ctx, sizes: &[usize]) -> Result<()> {
    let dir = plugin_dir(ctx)?;
    check_built(&dir)?;
    ctx.progress.detail(format_args!("plugin: installing OpenClaw and packing the plugin"));
    let (package, layout) = chosen_package(ctx);
    let installation = install(&package).map_err(|e| anyhow!("installing the real OpenClaw gateway ({package}): {e}"))?;
    check_era(&installation, layout)?;
    let archive = pack(&installation, &dir, &ctx.work).map_err(|e| anyhow!("{e}"))?;
    let mut rows: Vec<String> = Vec::new();
    for &n in sizes {
        ctx.progress.detail(format_args!("plugin: {n} sessions: generating the state"));
        let manifest = state(ctx, "plugin", n, layout)?;
        ctx.progress.detail(format_args!("plugin: {n} sessions: starting OpenClaw's gateway with the plugin"));
        let plugins = install_plugin(&installation, &manifest.dir, &archive).map_err(|e| anyhow!("{e}"))?;
        let t = Instant::now();
        let options =
            GatewayOptions { extra_config: json!({"plugins": plugins}), startup_timeout: startup_for(n), ..GatewayOptions::default() };
        let gateway = Gateway::start_installed(installation.clone(), &manifest.dir, options)
            .map_err(|e| anyhow!("starting the real OpenClaw gateway with the plugin: {e}"))?;
        session_tools_cli::note!(
            "  {} with the plugin up on port {} in {:.1} s",
            installation.package,
            gateway.port(),
            t.elapsed().as_secs_f64()
        );
        let (port, token) = (gateway.port(), gateway.token().to_string());
        let invoke = |tool: &str, args: &Value| -> Result<Value> {
            invoke_tool(port, &token, tool, args, REQUESTER).map_err(|e| anyhow!("{e}\n{}", gateway.log_tail(20)))
        };
        let size = super::report::thousands(n as f64);
        let key = manifest.agents[0].history_key.clone().unwrap_or_else(|| REQUESTER.to_string());
        // Ours answers at most 200 rows (N18); OpenClaw's is asked for as many.
        let cases: [(&str, Value, Value, Option<f64>); 4] = [
            ("sessions_list {}", json!({}), json!({"limit": 200}), Some(1.0)),
            ("sessions_list {messageLimit: 5}", json!({"messageLimit": 5}), json!({"limit": 200, "messageLimit": 5}), Some(5.0)),
            ("sessions_history", json!({"sessionKey": key}), json!({"sessionKey": key}), Some(1.0)),
            ("agents_list", json!({}), json!({}), Some(1.0)),
        ];
        for (name, ours_args, theirs_args, target) in cases {
            ctx.progress.detail(format_args!("plugin: {n} sessions: {name}"));
            let tool = name.split_whitespace().next().unwrap_or(name);
            let ours_tool = format!("st_{tool}");
            let (ours, theirs, a, b) = pair(ctx, || invoke(&ours_tool, &ours_args), || invoke(tool, &theirs_args))?;
            if tool == "sessions_list" {
                same_rows(name, &a, &b)?;
            } else if a != b {
                // The project's decisions change some answers (DECISIONS.md); the figures stand.
                session_tools_cli::note!("  note: {name}: the plugin's answer differs from OpenClaw's");
            }
            let speedup = theirs.median / ours.median;
            let mut figure = Figure::value("plugin", format!("OpenClaw's / the plugin's, {name}, {size} sessions"), speedup, Unit::Ratio)
                .note(format!("plugin {} ms, core {} ms", ms(ours.median), ms(theirs.median)));
            if let Some(target) = target {
                figure = figure.target(Target::AtLeast(target));
            }
            ctx.report.add(figure);
            let (r1, r2) = if tool == "sessions_history" {
                (count(&a, "messages"), count(&b, "messages"))
            } else if tool == "agents_list" {
                (count(&a, "agents"), count(&b, "agents"))
            } else {
                (count(&a, "sessions"), count(&b, "sessions"))
            };
            rows.push(format!(
                "| {name}, {size} sessions | {} ({}) | {} ({}) | {:.1}× | {r1} / {r2} |",
                ms(ours.median),
                ms(ours.p90),
                ms(theirs.median),
                ms(theirs.p90),
                speedup
            ));
        }
        drop(gateway);
    }
    let mut table = String::new();
    let _ = writeln!(
        table,
        "The plugin (`plugin/`, packed with `npm pack`, installed with `{} plugins install`) in the real gateway on each generated state, \
         nothing denied: the plugin's `st_*` tools and OpenClaw's core tools on the same gateway, alternating, both through \
         `POST /tools/invoke` (a request per call). Medians (p90), ms.\n",
        installation.package
    );
    let _ = writeln!(table, "| case | plugin | core | core / plugin | rows (plugin / core) |\n|---|---:|---:|---:|---:|");
    for row in rows {
        let _ = writeln!(table, "{row}");
    }
    ctx.report.section("Plugin: the component inside OpenClaw against OpenClaw's core tools", table);
    Ok(())
}
