//! What a tool call or a job step leaves pending, within its agent's bounds: at most
//! `max_jobs_per_call` new jobs, a chain of steps at most `max_steps_per_job` long, at most
//! `max_pending_jobs` pending for the agent, and every wait clamped (a run's end waited for
//! at most `max_wait_ms` a step, a timer at most [`MAX_TIMER_MS`] ahead); and the keys they
//! are kept under, so a call or a step made again after a stop keeps each job once. What is
//! refused is said ([`Refusal`]), for the host's log and metrics.

use session_tools_contract::{Caller, Job, Wake};

use crate::keys::{call_key, successor_key};
use crate::record::JobRecord;

/// How far in the future a job's timer may be set (30 days): a guest asking for later is
/// resumed then and may set it again.
pub const MAX_TIMER_MS: u64 = 30 * 86_400_000;

/// An agent's bounds on its jobs (from its limits).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bounds {
    pub max_jobs_per_call: u32,
    pub max_steps_per_job: u32,
    pub max_pending_jobs: u32,
    pub max_wait_ms: u64,
}

/// A job (or jobs) refused: the limit, as metrics name it (`jobs_per_call`,
/// `steps_per_job`, `pending_jobs`), and a line for the log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    pub limit: &'static str,
    pub message: String,
}

/// What a host does with the jobs a call or a step answered.
#[derive(Debug, Clone, PartialEq)]
pub struct Kept {
    /// The records to save, in order, each with whether it is saved only if no job has its
    /// key yet (a job a call or a step made again had kept before is left as it is).
    pub saves: Vec<(JobRecord, bool)>,
    /// Whether the job stepped has ended (no successor continues it): its record goes.
    pub ends: bool,
    pub refused: Vec<Refusal>,
}

/// The jobs a tool call started, kept under keys derived from `call` (the id of its intent,
/// or a new one): with `recorded` (its intent was kept), each only if absent and tied to the
/// intent (not stepped while it is kept). `pending()`: the agent's pending jobs, asked only
/// when needed.
#[allow(clippy::too_many_arguments)] // each is one fact of the call, named at the call site
pub fn keep_call(
    bounds: Bounds,
    agent: &str,
    caller: &Caller,
    jobs: Vec<Job>,
    call: &str,
    recorded: bool,
    now_ms: u64,
    pending: impl FnOnce() -> usize,
) -> Kept {
    let (admitted, refused) = admit(bounds, agent, caller, jobs, None, now_ms, pending);
    let saves = admitted
        .into_iter()
        .enumerate()
        .map(|(n, mut record)| {
            record.key = call_key(call, n);
            record.call = recorded.then(|| call.to_string());
            (record, recorded)
        })
        .collect();
    Kept { saves, ends: false, refused }
}

/// The jobs a step of `parent` answered: the first under the parent's own id continues it
/// (its key, replaced); every other one is a new job under a key derived from the step,
/// kept only if absent. Without a continuation the parent ends.
pub fn keep_step(bounds: Bounds, parent: &JobRecord, jobs: Vec<Job>, now_ms: u64, pending: impl FnOnce() -> usize) -> Kept {
    let (admitted, refused) = admit(bounds, &parent.agent, &parent.caller, jobs, Some(parent), now_ms, pending);
    let mut continues = false;
    let saves = admitted
        .into_iter()
        .enumerate()
        .map(|(n, mut record)| {
            if !continues && record.id == parent.id {
                continues = true;
                record.key = parent.key.clone();
                (record, false)
            } else {
                record.key = successor_key(&parent.key, parent.steps, n);
                (record, true)
            }
        })
        .collect();
    Kept { saves, ends: !continues, refused }
}

/// The jobs a call (`parent: None`) or a step started, within the bounds, not yet keyed.
fn admit(
    bounds: Bounds,
    agent: &str,
    caller: &Caller,
    jobs: Vec<Job>,
    parent: Option<&JobRecord>,
    now_ms: u64,
    pending: impl FnOnce() -> usize,
) -> (Vec<JobRecord>, Vec<Refusal>) {
    let mut refused = Vec::new();
    let steps = parent.map_or(0, |p| p.steps.saturating_add(1));
    if steps > bounds.max_steps_per_job {
        if let Some(parent) = parent {
            let message = format!("job {} ({}) reached its {} steps and is dropped", parent.id, parent.kind, bounds.max_steps_per_job);
            refused.push(Refusal { limit: "steps_per_job", message });
        }
        return (Vec::new(), refused);
    }
    let max_jobs = bounds.max_jobs_per_call as usize;
    if jobs.len() > max_jobs {
        let message = format!("[{agent}] {} background jobs past the limit of {max_jobs} a call are dropped", jobs.len() - max_jobs);
        refused.push(Refusal { limit: "jobs_per_call", message });
    }
    let continuing = parent.map(|p| p.id.as_str());
    let mut pending = Some(pending);
    let mut count: Option<usize> = None;
    let horizon = now_ms.saturating_add(MAX_TIMER_MS);
    let mut admitted = Vec::new();
    for mut job in jobs.into_iter().take(max_jobs) {
        match &mut job.wake {
            Wake::RunEnd(wait) => wait.timeout_ms = wait.timeout_ms.min(bounds.max_wait_ms),
            Wake::At(at) => *at = (*at).min(horizon),
            Wake::Now => {}
        }
        // A step's own continuation replaces it; anything else is one more pending job.
        if Some(job.id.as_str()) != continuing {
            let n = count.get_or_insert_with(|| pending.take().map_or(0, |f| f()));
            if *n >= bounds.max_pending_jobs as usize {
                let message = format!("[{agent}] job {} ({}) refused: {} jobs are pending", job.id, job.kind, bounds.max_pending_jobs);
                refused.push(Refusal { limit: "pending_jobs", message });
                continue;
            }
            *n += 1;
        }
        let mut record = JobRecord::with_key(String::new(), job, agent, caller);
        record.steps = steps;
        admitted.push(record);
    }
    (admitted, refused)
}

/// How long a host waits for a job's run at a time: what the job asks, at most the agent's
/// `max_wait_ms` (jobs are read from files, so this holds for any file), and ending by the
/// caller's deadline when it has one (`left_ms`); never under 1 ms unless asked.
pub fn wait_bound(requested_ms: u64, max_wait_ms: u64, left_ms: Option<u64>) -> u64 {
    let left = left_ms.map_or(max_wait_ms, |left| left.min(max_wait_ms));
    requested_ms.min(left.max(1))
}

/// The wait [`wait_bound`] gives, and whether the caller's deadline cut it short: a wait
/// that then times out is retried later, not answered to the job.
pub fn wait_by_deadline(requested_ms: u64, max_wait_ms: u64, left_ms: Option<u64>) -> (u64, bool) {
    let ms = wait_bound(requested_ms, max_wait_ms, left_ms);
    (ms, ms < wait_bound(requested_ms, max_wait_ms, None))
}

#[cfg(test)]
mod tests {
    use super::*;
    use session_tools_contract::WaitParams;

    const BOUNDS: Bounds = Bounds { max_jobs_per_call: 2, max_steps_per_job: 3, max_pending_jobs: 3, max_wait_ms: 1000 };

    fn job(id: &str, wake: Wake) -> Job {
        Job { id: id.into(), kind: "a2a".into(), session_key: "agent:main:main".into(), state: "{}".into(), wake }
    }

    #[test]
    fn a_call_keeps_its_jobs_under_its_intent_within_the_bounds() {
        let jobs = vec![
            job("a", Wake::RunEnd(WaitParams { run_id: "r".into(), timeout_ms: 99_999 })),
            job("b", Wake::At(u64::MAX)),
            job("c", Wake::Now),
        ];
        let kept = keep_call(BOUNDS, "main", &Caller::default(), jobs, "c1", true, 10, || 0);
        let keys: Vec<(&str, bool)> = kept.saves.iter().map(|(r, new)| (r.key.as_str(), *new)).collect();
        assert_eq!(keys, [("c1-0", true), ("c1-1", true)]);
        assert_eq!(kept.saves[0].0.job().wake, Wake::RunEnd(WaitParams { run_id: "r".into(), timeout_ms: 1000 }));
        assert_eq!(kept.saves[1].0.job().wake, Wake::At(10 + MAX_TIMER_MS));
        assert!(kept.saves.iter().all(|(r, _)| r.call.as_deref() == Some("c1") && r.steps == 0));
        assert_eq!(kept.refused[0].limit, "jobs_per_call");
        let full = keep_call(BOUNDS, "main", &Caller::default(), vec![job("a", Wake::Now)], "c2", false, 0, || 3);
        assert!(full.saves.is_empty() && full.refused[0].limit == "pending_jobs");
    }

    #[test]
    fn a_step_continues_its_job_and_keys_new_ones_by_the_step() {
        let mut parent = JobRecord::with_key("p".into(), job("a", Wake::Now), "main", &Caller::default());
        parent.steps = 1;
        let kept = keep_step(BOUNDS, &parent, vec![job("a", Wake::Now), job("b", Wake::Now)], 0, || 0);
        assert!(!kept.ends, "{kept:?}");
        // The continuation is not counted; the new job is (asked lazily, here once).
        let kept = keep_step(BOUNDS, &parent, vec![job("a", Wake::Now)], 0, || panic!("a continuation alone counts nothing"));
        assert_eq!(kept.saves[0].0.key, "p");
        let kept = keep_step(BOUNDS, &parent, vec![job("b", Wake::Now)], 0, || 0);
        assert!(kept.ends);
        assert_eq!(kept.saves[0].0.key, successor_key("p", 1, 0));
        assert!(kept.saves[0].1 && kept.saves[0].0.steps == 2);
        parent.steps = 3;
        let over = keep_step(BOUNDS, &parent, vec![job("a", Wake::Now)], 0, || 0);
        assert!(over.ends && over.saves.is_empty() && over.refused[0].limit == "steps_per_job");
    }

    #[test]
    fn waits_end_by_the_bound_and_the_deadline() {
        assert_eq!(wait_bound(5000, 1000, None), 1000);
        assert_eq!(wait_bound(5000, 1000, Some(200)), 200);
        assert_eq!(wait_bound(5000, 1000, Some(0)), 1);
        assert_eq!(wait_bound(30, 1000, Some(200)), 30);
        assert_eq!(wait_by_deadline(5000, 1000, Some(200)), (200, true));
        assert_eq!(wait_by_deadline(5000, 1000, Some(2000)), (1000, false));
        assert_eq!(wait_by_deadline(30, 1000, Some(200)), (30, false));
    }
}
