//! What the N15 guard costs (target: within 1.3x of an unrestricted caller): `sessions_list {}` over 1,000 sessions for a
//! sandboxed caller, served by the tools behind the composed guard component, beside the
//! same call by an unrestricted caller served by the plain component, through the service
//! (pools, set-up of the guard before each call, the gateway calls the guard adds).

use std::sync::Arc;
use std::time::Instant;

use anyhow::{anyhow, Result};
use session_tools_guest::Caller;
use session_tools_host::config::DeploymentConfig;
use session_tools_host::gateway::embedded::runtime::EchoRuntime;
use session_tools_host::gateway::embedded::EmbeddedGateway;
use session_tools_host::system_clock;
use session_tools_host::ServiceBuilder;

use super::gen::{self, Spec};
use super::report::{ms, Figure, Target, Unit};
use super::stats::{ns_since, sample_pair, Plan};
use super::Ctx;

pub fn run(ctx: &mut Ctx, sessions: usize) -> Result<()> {
    let dir = ctx.work.join(format!("guard-{sessions}"));
    let manifest = gen::generate(&dir, &Spec::openclaw(sessions, 20))?;
    let config = DeploymentConfig::load(&manifest.dir, None)?;
    let gateway = EmbeddedGateway::open(&manifest.dir, config, Arc::new(EchoRuntime), system_clock())?;
    let service = ServiceBuilder::over_embedded(&gateway).build()?;
    let caller = |sandboxed| Caller { agent_session_key: Some("agent:main:main".into()), sandboxed, ..Caller::default() };
    let (open, restricted) = (caller(false), caller(true));
    let mut sizes = (0, 0);
    // The first restricted call compiles the guarded composition (or loads it from the
    // compiled-component cache): measured apart.
    let t = Instant::now();
    service.call(&restricted, "sessions_list", "{}").map_err(|e| anyhow!("{e}"))?;
    let first = ns_since(t);
    let plan = Plan::new(5, 30, 2_000, ctx.budget / 2);
    let (plain, guarded) = sample_pair(
        plan,
        || -> Result<f64> {
            let t = Instant::now();
            sizes.0 = service.call(&open, "sessions_list", "{}").map_err(|e| anyhow!("{e}"))?.len();
            Ok(ns_since(t))
        },
        || -> Result<f64> {
            let t = Instant::now();
            sizes.1 = service.call(&restricted, "sessions_list", "{}").map_err(|e| anyhow!("{e}"))?.len();
            Ok(ns_since(t))
        },
    )?;
    let case = format!("sessions_list {{}}, {sessions} sessions");
    ctx.report.add(Figure::value("guard", "first restricted call (the guarded composition compiled or loaded)", first, Unit::Ns));
    ctx.report.add(
        Figure::time("guard", format!("{case}, unrestricted (plain component)"), plain).note(format!("result {} KiB", sizes.0 / 1024)),
    );
    ctx.report.add(
        Figure::time("guard", format!("{case}, sandboxed caller (behind the guard component)"), guarded)
            .note(format!("result {} KiB (its own tree only)", sizes.1 / 1024)),
    );
    ctx.report.add(
        Figure::value("guard", format!("restricted/unrestricted, {case}"), guarded.median / plain.median, Unit::Ratio)
            .target(Target::AtMost(1.3))
            .note(format!("{} ms vs {} ms", ms(guarded.median), ms(plain.median))),
    );
    Ok(())
}
