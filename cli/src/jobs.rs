//! `session-tools jobs`: runs the background jobs left pending (flows of calls whose
//! process ended before they did), for a while, and says what is still pending.

use std::time::Duration;

use anyhow::Result;
use serde_json::{json, Value};

use crate::backend::{Backend, Opened, NO_RUNTIME_ADVICE};
use crate::show::print_json;

pub fn run(opened: &Opened, wait: u64, json: bool) -> Result<i32> {
    let service = opened.service.clone();
    let before = service.pending_jobs().len();
    // The jobs' next steps are runs: on the files without a runtime, none would be
    // answered, so none is started.
    if let Backend::Embedded(gateway) = &opened.backend {
        if before > 0 && !gateway.runs_agents() {
            return Err(crate::exit::usage(format!(
                "{before} background jobs are pending, and their steps start agent runs: {NO_RUNTIME_ADVICE}"
            )));
        }
    }
    crate::stop::Stop::install(Some(service.clone()));
    let steps = {
        // Cleared before the result goes to stdout.
        let progress = crate::progress::Progress::job_steps("jobs");
        progress.detail(format_args!("({before} pending at the start; for up to {wait} s)"));
        let steps = service.run_jobs(Duration::from_secs(wait));
        progress.detail(format_args!("(waiting for the runs still going on)"));
        if !opened.wait_for_runs(Duration::from_secs(wait.max(10))) {
            crate::note!("warning: runs still going on are cut short as the process exits");
        }
        steps
    };
    let after = service.pending_jobs();
    if json {
        let pending: Vec<Value> = after
            .iter()
            .map(
                |job| json!({"id": job.id, "kind": job.kind, "sessionKey": job.session_key, "agent": job.agent, "waitsFor": job.waits_for}),
            )
            .collect();
        print_json(&json!({"pendingBefore": before, "steps": steps, "pending": pending}))?;
        return Ok(0);
    }
    crate::outln!("{before} pending jobs; {steps} steps run; {} still pending", after.len());
    for job in after {
        crate::outln!("  {} {} for {} (waits for {})", job.kind, job.id, job.session_key, job.waits_for);
    }
    Ok(0)
}
