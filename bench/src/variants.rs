//! Experiments (`--only variants`): the engine of `engine.rs` with one setting changed at a
//! time, and the component's calls made straight through the bindings (no `Sandbox`), to
//! see what an engine setting or the sandbox's own per-call work costs. The engines are
//! `build_engine`'s, changed with `build_engine_with`.

use std::hint::black_box;
use std::time::{Duration, Instant};

use anyhow::Result;
use wasmtime::component::{HasSelf, Linker};
use wasmtime::{Config, Enabled, Engine, PoolingAllocationConfig, Store};

use super::report::{Figure, Unit};
use super::stats::{ns_since, sample};
use super::sysinfo::minor_faults;
use super::tools::Opened;
use super::Ctx;
use session_tools_host::bench_internals::link_wasi;
use session_tools_host::bench_internals::Settings;
use session_tools_host::bench_internals::StoreState;
use session_tools_host::bench_internals::{build_engine_with, load_component};
use session_tools_host::bench_internals::{SessionTools, SessionToolsPre};
use session_tools_host::EngineOptions;
use session_tools_host::Limits;

type Tweak = fn(&mut Config, &mut PoolingAllocationConfig);

/// `build_engine` of `engine.rs` (pooling, 1,000 slots), then `tweak`.
fn engine(limits: &Limits, tweak: Tweak) -> Result<Engine> {
    let options = EngineOptions::default().with_pooling(true).with_pool_instances(1_000).with_cache_dir(None);
    build_engine_with(&options, limits, tweak)
}

const VARIANTS: [(&str, Tweak); 6] = [
    ("as engine.rs (baseline: pagemap_scan(Auto), no fiber stacks)", |_, _| {}),
    ("pagemap_scan(No)", |_, p| {
        p.pagemap_scan(Enabled::No);
    }),
    ("linear_memory_keep_resident(2 MiB)", |_, p| {
        p.linear_memory_keep_resident(2 << 20);
    }),
    ("memory_init_cow(false)", |c, _| {
        c.memory_init_cow(false);
    }),
    ("memory_init_cow(false) + keep_resident(2 MiB)", |c, p| {
        c.memory_init_cow(false);
        p.linear_memory_keep_resident(2 << 20);
    }),
    ("epoch_interruption(false) (no CPU budget: for scale only)", |c, _| {
        c.epoch_interruption(false);
    }),
];

struct Raw {
    engine: Engine,
    pre: SessionToolsPre<StoreState>,
}

impl Raw {
    fn new(ctx: &Ctx, tweak: Tweak) -> Result<Raw> {
        let engine = engine(&Limits::default(), tweak)?;
        let component = load_component(&engine, session_tools_host::COMPONENT, Some(&ctx.cache))?;
        let mut linker = Linker::new(&engine);
        SessionTools::add_to_linker::<StoreState, HasSelf<StoreState>>(&mut linker, |s| s)?;
        link_wasi(&mut linker)?;
        let pre = SessionToolsPre::new(linker.instantiate_pre(&component)?)?;
        Ok(Raw { engine, pre })
    }

    fn instance(&self, o: &Opened) -> Result<(Store<StoreState>, SessionTools)> {
        let mut store = Store::new(&self.engine, StoreState::new(&o.setup));
        store.set_epoch_deadline(1 << 40);
        let tools = self.pre.instantiate(&mut store)?;
        Ok((store, tools))
    }

    fn configure(store: &mut Store<StoreState>, tools: &SessionTools, o: &Opened) -> Result<()> {
        let settings = Settings { config: o.setup.config.json().to_string(), state_dir: o.setup.state_dir.clone() };
        tools.openclaw_session_tools_setup().call_configure(store, &settings)?.map_err(anyhow::Error::msg)
    }
}

pub fn run(ctx: &mut Ctx, o: &Opened) -> Result<()> {
    let mut table = String::from(
        "Each row: an engine with `engine.rs`'s settings but one change, instances made and called straight through \
         the bindings (a `Store<StoreState>` and `SessionToolsPre::instantiate`, no `Sandbox`: no limiter, no metering). \
         Medians; faults: minor page faults per cycle.\n\n\
         | engine | Engine::new | drop of the engine | instantiate | + configure | drop (configured) | instantiate + configure + call + drop | faults/cycle | parse-send-command round trip |\n\
         |---|---:|---:|---:|---:|---:|---:|---:|---:|\n",
    );
    let mut plan = ctx.plan(Duration::from_micros(20));
    plan.min_samples = plan.min_samples.max(200);
    plan.warmup = plan.warmup.max(50);
    for (name, tweak) in VARIANTS {
        let mut engine_plan = plan;
        engine_plan.min_samples = 10;
        engine_plan.max_samples = 40;
        engine_plan.warmup = 2;
        let (mut build, mut teardown) = (Vec::new(), Vec::new());
        let building = sample(engine_plan, || -> Result<f64> {
            let t = Instant::now();
            let e = engine(&Limits::default(), tweak)?;
            build.push(ns_since(t));
            let t = Instant::now();
            drop(e);
            teardown.push(ns_since(t));
            Ok(0.0)
        });
        let (build, teardown) = (super::stats::Stats::of(&build), super::stats::Stats::of(&teardown));
        if let Err(e) = building {
            table.push_str(&format!("| {name} | unavailable: {e:#} | | | | | | | |\n"));
            continue;
        }
        let raw = match Raw::new(ctx, tweak) {
            Ok(raw) => raw,
            Err(e) => {
                table.push_str(&format!("| {name} | unavailable: {e:#} | | | | | | | |\n"));
                continue;
            }
        };
        let bare = sample(plan, || -> Result<f64> {
            let t = Instant::now();
            let instance = raw.instance(o)?;
            let ns = ns_since(t);
            drop(black_box(instance));
            Ok(ns)
        })?;
        let configured = sample(plan, || -> Result<f64> {
            let t = Instant::now();
            let (mut store, tools) = raw.instance(o)?;
            Raw::configure(&mut store, &tools, o)?;
            let ns = ns_since(t);
            drop(black_box((store, tools)));
            Ok(ns)
        })?;
        let dropping = sample(plan, || -> Result<f64> {
            let (mut store, tools) = raw.instance(o)?;
            Raw::configure(&mut store, &tools, o)?;
            let t = Instant::now();
            drop(black_box((store, tools)));
            Ok(ns_since(t))
        })?;
        let cycle = || -> Result<()> {
            let (mut store, tools) = raw.instance(o)?;
            Raw::configure(&mut store, &tools, o)?;
            black_box(tools.openclaw_session_tools_policy().call_parse_send_command(&mut store, "x")?);
            drop((store, tools));
            Ok(())
        };
        let full = sample(plan, || -> Result<f64> {
            let t = Instant::now();
            cycle()?;
            Ok(ns_since(t))
        })?;
        let before = minor_faults();
        for _ in 0..500 {
            cycle()?;
        }
        let faults = (minor_faults() - before) as f64 / 500.0;
        let (mut store, tools) = raw.instance(o)?;
        Raw::configure(&mut store, &tools, o)?;
        const BATCH: usize = 1_000;
        let mut rt_plan = plan;
        rt_plan.max_samples = rt_plan.max_samples.min(2_000);
        let round_trip = sample(rt_plan, || -> Result<f64> {
            let t = Instant::now();
            for _ in 0..BATCH {
                black_box(tools.openclaw_session_tools_policy().call_parse_send_command(&mut store, black_box("x"))?);
            }
            Ok(ns_since(t) / BATCH as f64)
        })?;
        let f = |v: f64| Unit::Ns.fmt(v);
        table.push_str(&format!(
            "| {name} | {} | {} | {} | {} | {} | {} | {faults:.1} | {} |\n",
            f(build.median),
            f(teardown.median),
            f(bare.median),
            f(configured.median),
            f(dropping.median),
            f(full.median),
            f(round_trip.median)
        ));
        ctx.report.add(
            Figure::time("variants", format!("{name}: instantiate + configure + call + drop"), full)
                .note(format!("round trip {}; {faults:.1} faults/cycle", f(round_trip.median))),
        );
    }
    ctx.report.section("Engine variants (experiments, not the product's configuration)", table);
    Ok(())
}
