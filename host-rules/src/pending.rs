//! What a look at the pending jobs decides: when each is stepped (not while the intent of
//! the call that started it is kept; now, when its timer comes, or once its run ends), the
//! order a pass steps them in, and when a timer is next due. Each host keeps the files, the
//! claims and the clocks; the Rust host's runner adds its probes of the runs waited for.

use session_tools_contract::WaitParams;

use crate::keeping::wait_by_deadline;
use crate::record::{JobRecord, WakeRecord};

/// When a pending job is stepped, as seen at a given time.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Due<'a> {
    /// Not while the intent of the call that started it is kept: that call is still in
    /// flight, or is to be made again, and keeps its jobs itself.
    Held,
    /// Now: it asked to be resumed at once.
    Now,
    /// Now: its timer has come.
    Timer,
    /// When its timer comes, at this time.
    At(u64),
    /// Once its run has ended or its wait has run out: the host waits for it.
    Run(&'a WaitParams),
}

/// When the job that waits for `wake` is stepped at `now_ms`; `call`: the intent it is tied
/// to, held while `kept(call)` (a set of the intents kept; no hashing of its own: the guard
/// component that exports this takes no randomness).
pub fn due<'a>(wake: &'a WakeRecord, call: Option<&str>, kept: impl Fn(&str) -> bool, now_ms: u64) -> Due<'a> {
    if call.is_some_and(kept) {
        return Due::Held;
    }
    match wake {
        WakeRecord::Now => Due::Now,
        WakeRecord::At { at } if *at <= now_ms => Due::Timer,
        WakeRecord::At { at } => Due::At(*at),
        WakeRecord::RunEnd { wait } => Due::Run(wait),
    }
}

/// Puts pending jobs in the order the hosts list them in (and the plugin's pass steps them
/// in): by id, then key.
pub fn in_step_order(jobs: &mut [JobRecord]) {
    jobs.sort_by(|a, b| (&a.id, &a.key).cmp(&(&b.id, &b.key)));
}

/// How a claimed job wakes now (its intent was looked at when it was found due).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum WakeupPlan<'a> {
    /// At once: it asked to be.
    Now,
    /// By its timer, which has come.
    Timer,
    /// Not yet: its timer is still to come.
    NotYet,
    /// Once the wait for its run answers: the wait it asked for, how long to make it (at
    /// most the agent's `max_wait_ms`, ending by the caller's deadline), and whether that
    /// deadline cut it short (a wait that then times out is retried later, not answered).
    Wait { wait: &'a WaitParams, timeout_ms: u64, by_deadline: bool },
}

/// How the claimed job that waits for `wake` wakes at `now_ms`, with the agent's
/// `max_wait_ms` and what is left of the caller's deadline (`left_ms`, when it has one).
pub fn wakeup_plan(wake: &WakeRecord, now_ms: u64, max_wait_ms: u64, left_ms: Option<u64>) -> WakeupPlan<'_> {
    match due(wake, None, |_| false, now_ms) {
        Due::Now => WakeupPlan::Now,
        Due::Timer => WakeupPlan::Timer,
        Due::Held | Due::At(_) => WakeupPlan::NotYet,
        Due::Run(wait) => {
            let (timeout_ms, by_deadline) = wait_by_deadline(wait.timeout_ms, max_wait_ms, left_ms);
            WakeupPlan::Wait { wait, timeout_ms, by_deadline }
        }
    }
}

/// One look at the jobs kept.
#[derive(Debug, Clone, PartialEq)]
pub struct Look {
    /// Every job that could be read, in step order ([`in_step_order`]).
    pub pending: Vec<JobRecord>,
    /// The indices in `pending` of the jobs a pass claims now: due now, or waiting for a run.
    pub due: Vec<usize>,
    /// When the first timer still to come does (of the jobs not held).
    pub next_at: Option<u64>,
    /// The files that hold no job: their key, and what is wrong (they are left alone).
    pub unreadable: Vec<(String, String)>,
}

/// Looks at the jobs kept (each key with its file's text) at `now_ms`, with the intents kept
/// (`kept`, as for [`due`]).
pub fn look(files: Vec<(String, String)>, kept: impl Fn(&str) -> bool, now_ms: u64) -> Look {
    let mut unreadable = Vec::new();
    let mut pending: Vec<JobRecord> = files
        .into_iter()
        .filter_map(|(key, text)| JobRecord::read(&key, text.as_bytes()).map_err(|e| unreadable.push((key, e))).ok())
        .collect();
    in_step_order(&mut pending);
    let (mut due_now, mut next_at) = (Vec::new(), None::<u64>);
    for (i, job) in pending.iter().enumerate() {
        match due(&job.wake, job.call.as_deref(), &kept, now_ms) {
            Due::Held => {}
            Due::At(at) => next_at = Some(next_at.map_or(at, |next| next.min(at))),
            Due::Now | Due::Timer | Due::Run(_) => due_now.push(i),
        }
    }
    Look { pending, due: due_now, next_at, unreadable }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(key: &str, id: &str, wake: &str, call: Option<&str>) -> (String, String) {
        let call = call.map_or(String::new(), |c| format!(r#","call":"{c}""#));
        let text = format!(
            r#"{{"id":"{id}","kind":"a2a","sessionKey":"agent:main:main","state":"{{}}","wake":{wake},"agent":"main","caller":{{}}{call}}}"#
        );
        (key.to_string(), text)
    }

    #[test]
    fn a_look_steps_what_is_due_by_id_then_key_and_says_when_a_timer_comes() {
        let intents = |call: &str| call == "c1";
        let files = vec![
            file("k4", "b", r#"{"type":"runEnd","wait":{"runId":"r","timeoutMs":5}}"#, None),
            file("k3", "a", r#"{"type":"at","at":30}"#, None),
            file("k2", "a", r#"{"type":"at","at":10}"#, None),
            file("k1", "c", r#"{"type":"now"}"#, Some("c1")),
            file("k0", "c", r#"{"type":"at","at":20}"#, Some("c1")),
            file("k5", "d", r#"{"type":"now"}"#, Some("c2")),
            ("bad".to_string(), "{".to_string()),
        ];
        let look = look(files, intents, 10);
        let keys: Vec<&str> = look.pending.iter().map(|r| r.key.as_str()).collect();
        assert_eq!(keys, ["k2", "k3", "k4", "k0", "k1", "k5"]);
        let due: Vec<&str> = look.due.iter().map(|&i| keys[i]).collect();
        assert_eq!(due, ["k2", "k4", "k5"], "a timer that has come, a run to wait for, a call no longer held");
        assert_eq!(look.next_at, Some(30), "a held job's timer is not counted");
        assert_eq!(look.unreadable.len(), 1);
        assert_eq!(look.unreadable[0].0, "bad");
    }

    #[test]
    fn a_job_is_due_now_by_its_timer_or_once_its_run_ends_unless_its_call_is_held() {
        let none = |_: &str| false;
        let wait = WaitParams { run_id: "r".into(), timeout_ms: 5 };
        assert_eq!(due(&WakeRecord::Now, None, none, 0), Due::Now);
        assert_eq!(due(&WakeRecord::At { at: 5 }, None, none, 5), Due::Timer);
        assert_eq!(due(&WakeRecord::At { at: 6 }, None, none, 5), Due::At(6));
        assert_eq!(due(&WakeRecord::RunEnd { wait: wait.clone() }, Some("c"), none, 0), Due::Run(&wait));
        assert_eq!(due(&WakeRecord::Now, Some("c"), |call| call == "c", 0), Due::Held);
    }
}
