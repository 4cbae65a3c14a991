//! Per-agent instantiation and the host→guest round trip.

use std::hint::black_box;
use std::time::{Duration, Instant};

use anyhow::{anyhow, Result};
use wasmtime::Store;

use super::report::{Figure, Target};
use super::stats::{ns_since, sample, Plan};
use super::sysinfo::minor_faults;
use super::tools::{main_caller, Opened};
use super::Ctx;
use session_tools_host::bench_internals::StoreState;
use session_tools_host::CallError;
use session_tools_host::ToolError;

fn plan(ctx: &Ctx, per_call: Duration) -> Plan {
    let mut plan = ctx.plan(per_call);
    plan.min_samples = plan.min_samples.max(200);
    plan.warmup = plan.warmup.max(50);
    plan
}

pub fn instantiation(ctx: &mut Ctx, o: &Opened) -> Result<()> {
    let rt = &ctx.runtime;
    let setup = &o.setup;
    let p = plan(ctx, Duration::from_micros(20));

    let store = sample(p, || -> Result<f64> {
        let t = Instant::now();
        let store = Store::new(rt.engine(), StoreState::new(setup));
        let ns = ns_since(t);
        drop(black_box(store));
        Ok(ns)
    })?;
    let bare = sample(p, || -> Result<f64> {
        let t = Instant::now();
        let sandbox = rt.instantiate_bare(setup)?;
        let ns = ns_since(t);
        drop(black_box(sandbox));
        Ok(ns)
    })?;
    let configured = sample(p, || -> Result<f64> {
        let t = Instant::now();
        let sandbox = rt.instantiate(setup)?;
        let ns = ns_since(t);
        drop(black_box(sandbox));
        Ok(ns)
    })?;
    let dropping = sample(p, || -> Result<f64> {
        let sandbox = rt.instantiate(setup)?;
        let t = Instant::now();
        drop(black_box(sandbox));
        Ok(ns_since(t))
    })?;
    let full = sample(p, || -> Result<f64> {
        let t = Instant::now();
        let mut sandbox = rt.instantiate(setup)?;
        black_box(sandbox.parse_send_command("x")?);
        drop(sandbox);
        Ok(ns_since(t))
    })?;
    let caller = main_caller();
    let full_list = sample(p, || -> Result<f64> {
        let t = Instant::now();
        let mut sandbox = rt.instantiate(setup)?;
        black_box(sandbox.call_tool("sessions_list", &caller, "{}")?);
        drop(sandbox);
        Ok(ns_since(t))
    })?;

    // Page faults per operation (the pool's slots are reset on drop, so a reused slot
    // faults its pages in again).
    let faults = |f: &mut dyn FnMut() -> Result<()>| -> Result<f64> {
        const K: u64 = 500;
        let before = minor_faults();
        for _ in 0..K {
            f()?;
        }
        Ok((minor_faults() - before) as f64 / K as f64)
    };
    let bare_faults = faults(&mut || {
        drop(rt.instantiate_bare(setup)?);
        Ok(())
    })?;
    let configured_faults = faults(&mut || {
        drop(rt.instantiate(setup)?);
        Ok(())
    })?;
    let full_faults = faults(&mut || {
        let mut sandbox = rt.instantiate(setup)?;
        black_box(sandbox.parse_send_command("x")?);
        Ok(())
    })?;

    let r = &mut ctx.report;
    r.add(
        Figure::time("instantiate", "instantiate only (Runtime::instantiate_bare)", bare)
            .target(Target::AtMost(10_000.0))
            .note(format!("pooled slot, from the InstancePre; store creation included; {bare_faults:.1} page faults per instance")),
    );
    r.add(
        Figure::time("instantiate", "  of which: store creation (StoreState::new + Store::new + drop)", store)
            .note("WASI context, resource table, limiter, output buffers"),
    );
    r.add(
        // The instantiation target is for instantiation from the InstancePre; configuring
        // is a guest call, inside the full cycle's target below.
        Figure::time("instantiate", "instantiate + configure (Runtime::instantiate)", configured)
            .note(format!("configure: the deployment config parsed by the guest; {configured_faults:.1} page faults per instance")),
    );
    r.add(Figure::time("instantiate", "drop of a configured instance", dropping).note("slot back to the pool (memory reset)"));
    r.add(
        Figure::time("instantiate", "fresh instance + configure + one call + drop", full)
            .target(Target::AtMost(25_000.0))
            .note(format!("the call: policy.parse-send-command(\"x\"); {full_faults:.1} page faults per cycle")),
    );
    r.add(Figure::time("instantiate", "fresh instance + configure + sessions_list (10 sessions) + drop", full_list));
    Ok(())
}

pub fn round_trip(ctx: &mut Ctx, o: &Opened) -> Result<()> {
    let mut sandbox = ctx.runtime.instantiate(&o.setup).map_err(|e| anyhow!("{e}"))?;
    const BATCH: usize = 1_000;
    let mut p = plan(ctx, Duration::from_micros(300));
    p.max_samples = p.max_samples.min(2_000);
    let parse = sample(p, || -> Result<f64> {
        let t = Instant::now();
        for _ in 0..BATCH {
            black_box(sandbox.parse_send_command(black_box("x"))?);
        }
        Ok(ns_since(t) / BATCH as f64)
    })?;
    let caller = main_caller();
    let invalid = sample(p, || -> Result<f64> {
        let t = Instant::now();
        for _ in 0..BATCH {
            match sandbox.call_tool("sessions_history", &caller, "{}") {
                Err(CallError::Tool(ToolError::InvalidArguments(_))) => {}
                other => anyhow::bail!("expected an argument error, got {other:?}"),
            }
        }
        Ok(ns_since(t) / BATCH as f64)
    })?;
    let describe = sample(plan(ctx, Duration::from_micros(100)), || -> Result<f64> {
        let t = Instant::now();
        black_box(sandbox.describe()?);
        Ok(ns_since(t))
    })?;
    let now = sample(p, || -> Result<f64> {
        let t = Instant::now();
        for _ in 0..BATCH {
            black_box(Instant::now());
        }
        Ok(ns_since(t) / BATCH as f64)
    })?;
    let r = &mut ctx.report;
    r.add(
        Figure::time("roundtrip", "policy.parse-send-command(\"x\") on a live instance", parse)
            .target(Target::AtMost(250.0))
            .note(format!("the most trivial export; mean of {BATCH} calls per sample; Sandbox::enter included")),
    );
    r.add(
        Figure::time("roundtrip", "tools.call sessions_history {} (fails validation)", invalid)
            .note("caller context lowered, arguments parsed, error string lifted"),
    );
    r.add(Figure::time("roundtrip", "tools.describe() (5 tools with JSON schemas)", describe));
    r.add(
        Figure::time("roundtrip", "calibration: Instant::now() on this machine", now)
            .note("what a call would pay to read the clock on entry; Sandbox::enter reads it only at the first epoch tick or gateway call"),
    );
    Ok(())
}
