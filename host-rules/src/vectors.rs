//! The shared cases (`vectors/job-rules.json`) run natively: the plugin runs the same file
//! through the guard component (`plugin/test/ids.test.mjs`, `exactly-once.test.mjs`), so both
//! hosts keep, key, refuse, look at pending jobs and word the same.

use serde_json::Value;
use session_tools_contract::{Caller, ErrorKind, Job, ToolError};

use crate::intent::CallIntent;
use crate::keeping::{keep_call, keep_step, wait_bound, Bounds, Kept};
use crate::record::JobRecord;
use crate::CallError;

fn vector() -> Value {
    serde_json::from_str(include_str!("../vectors/job-rules.json")).expect("the vector is JSON")
}

fn cases<'a>(v: &'a Value, name: &str) -> &'a Vec<Value> {
    let cases = v[name].as_array().unwrap_or_else(|| panic!("{name} in the vector"));
    assert!(!cases.is_empty(), "{name} has cases");
    cases
}

fn u(v: &Value) -> u64 {
    v.as_u64().unwrap_or_else(|| panic!("{v} is a whole number"))
}

fn call_error(e: &Value) -> CallError {
    let s = |v: &Value| v.as_str().unwrap().to_string();
    let val = &e["val"];
    match e["tag"].as_str().unwrap() {
        "unknown-tool" => CallError::Tool(ToolError::UnknownTool(s(val))),
        "invalid-arguments" => CallError::Tool(ToolError::InvalidArguments(s(val))),
        "failed" => CallError::Tool(ToolError::Failed(s(val))),
        "not-configured" => CallError::Tool(ToolError::NotConfigured),
        "too-large" => CallError::TooLarge {
            what: if val[0] == "tool-arguments" { "tool arguments" } else { "tool result" },
            size: u(&val[1]) as usize,
            limit: u(&val[2]) as usize,
        },
        "cpu-limit" => CallError::CpuLimit { budget_ms: u(val).into() },
        "wall-limit" => CallError::WallLimit { budget_ms: u(val).into() },
        "memory-limit" => CallError::MemoryLimit { limit: u(val) as usize },
        "trap" => CallError::Trap(s(val)),
        "bad-answer" => CallError::BadAnswer(s(val)),
        "setup" => CallError::Setup(s(val)),
        "host-fault" => CallError::HostFault(s(val)),
        other => panic!("no call error {other}"),
    }
}

fn bounds(v: &Value) -> Bounds {
    Bounds {
        max_jobs_per_call: u(&v["maxJobsPerCall"]) as u32,
        max_steps_per_job: u(&v["maxStepsPerJob"]) as u32,
        max_pending_jobs: u(&v["maxPendingJobs"]) as u32,
        max_wait_ms: u(&v["maxWaitMs"]),
    }
}

fn jobs(v: &Value) -> Vec<Job> {
    v.as_array().unwrap().iter().map(|j| JobRecord::job_from_json(j).unwrap()).collect()
}

fn record(key: &str, v: &Value) -> JobRecord {
    JobRecord::read(key, v.to_string().as_bytes()).unwrap_or_else(|e| panic!("{v}: {e}"))
}

fn check(kept: Kept, expected: &Value, about: &Value) {
    let saves: Vec<(JobRecord, bool)> = expected["saves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| (record(s["key"].as_str().unwrap(), &s["record"]), s["onlyIfNew"].as_bool().unwrap()))
        .collect();
    assert_eq!(kept.saves, saves, "{about}");
    assert_eq!(kept.ends, expected["ends"].as_bool().unwrap(), "{about}");
    let refused: Vec<(&str, &str)> = kept.refused.iter().map(|r| (r.limit, r.message.as_str())).collect();
    let expected: Vec<(&str, &str)> =
        expected["refused"].as_array().unwrap().iter().map(|r| (r["limit"].as_str().unwrap(), r["message"].as_str().unwrap())).collect();
    assert_eq!(refused, expected, "{about}");
}

#[test]
fn call_errors_have_the_shared_kinds_and_words() {
    for case in cases(&vector(), "callErrors") {
        let error = call_error(&case["error"]);
        assert_eq!(error.kind(), case["kind"], "{case}");
        assert_eq!(error.to_string(), case["message"], "{case}");
        assert_eq!(error.discards_instance(), case["discardsInstance"], "{case}");
    }
}

#[test]
fn calls_and_steps_keep_their_jobs_as_the_shared_cases_say() {
    let v = vector();
    for case in cases(&v, "keepCall") {
        let caller: Caller = serde_json::from_value(case["caller"].clone()).unwrap();
        let pending = u(&case["pending"]) as usize;
        let kept = keep_call(
            bounds(&case["bounds"]),
            case["agent"].as_str().unwrap(),
            &caller,
            jobs(&case["jobs"]),
            case["call"].as_str().unwrap(),
            case["recorded"].as_bool().unwrap(),
            u(&case["nowMs"]),
            || pending,
        );
        check(kept, &case["kept"], &case["about"]);
    }
    for case in cases(&v, "keepStep") {
        let parent = record(case["key"].as_str().unwrap(), &case["parent"]);
        let pending = u(&case["pending"]) as usize;
        let kept = keep_step(bounds(&case["bounds"]), &parent, jobs(&case["jobs"]), u(&case["nowMs"]), || pending);
        check(kept, &case["kept"], &case["about"]);
    }
    for case in cases(&v, "waitBound") {
        let left = case["leftMs"].as_u64();
        assert_eq!(wait_bound(u(&case["requestedMs"]), u(&case["maxWaitMs"]), left), u(&case["ms"]), "{case}");
    }
}

#[test]
fn pending_jobs_are_looked_at_and_woken_as_the_shared_cases_say() {
    use crate::pending::{look, wakeup_plan, WakeupPlan};
    let v = vector();
    let strings = |v: &Value| -> Vec<String> { v.as_array().unwrap().iter().map(|s| s.as_str().unwrap().to_string()).collect() };
    for case in cases(&v, "lookAtJobs") {
        let files = case["files"].as_array().unwrap().iter().map(|f| (f[0].as_str().unwrap().into(), f[1].as_str().unwrap().into()));
        let intents = strings(&case["intents"]);
        let look = look(files.collect(), |call| intents.iter().any(|i| i == call), u(&case["nowMs"]));
        let keys: Vec<String> = look.pending.iter().map(|r| r.key.clone()).collect();
        assert_eq!(keys, strings(&case["pending"]), "{}", case["about"]);
        let due: Vec<String> = look.due.iter().map(|&i| keys[i].clone()).collect();
        assert_eq!(due, strings(&case["due"]), "{}", case["about"]);
        assert_eq!(look.next_at, case["nextAt"].as_u64(), "{}", case["about"]);
        let unreadable: Vec<String> = look.unreadable.into_iter().map(|(key, _)| key).collect();
        assert_eq!(unreadable, strings(&case["unreadable"]), "{}", case["about"]);
    }
    for case in cases(&v, "wakeupOf") {
        let wake = serde_json::from_value(case["wake"].clone()).unwrap();
        let plan = match wakeup_plan(&wake, u(&case["nowMs"]), u(&case["maxWaitMs"]), case["leftMs"].as_u64()) {
            WakeupPlan::Now => serde_json::json!({"tag": "now"}),
            WakeupPlan::Timer => serde_json::json!({"tag": "timer"}),
            WakeupPlan::NotYet => serde_json::json!({"tag": "not-yet"}),
            WakeupPlan::Wait { timeout_ms, by_deadline, .. } => serde_json::json!({"tag": "wait", "val": [timeout_ms, by_deadline]}),
        };
        assert_eq!(plan, case["plan"], "{}", case["about"]);
    }
}

#[test]
fn intents_are_made_again_once_as_the_shared_cases_say() {
    let v = vector();
    for case in cases(&v, "intents") {
        let intent: CallIntent = serde_json::from_value(case["intent"].clone()).unwrap();
        match intent.replayed() {
            Ok(again) => assert_eq!(again, serde_json::from_value::<CallIntent>(case["replayed"].clone()).unwrap(), "{case}"),
            Err(dropped) => assert_eq!(dropped, case["dropped"], "{case}"),
        }
    }
    let writes: Vec<&str> = v["writes"].as_array().unwrap().iter().map(|m| m.as_str().unwrap()).collect();
    assert_eq!(writes, crate::intent::WRITES);
}

#[test]
fn gateway_calls_and_answers_are_metered_as_the_shared_cases_say() {
    use crate::metering::{answer_refused, gateway_call_refused};
    let v = vector();
    for case in cases(&v, "gatewayCalls") {
        let refused = gateway_call_refused(
            u(&case["calls"]) as u32,
            u(&case["maxCalls"]) as u32,
            case["outOfTime"].as_bool().unwrap(),
            case["gatewayTimeSpent"].as_bool().unwrap(),
            u(&case["gatewayBudgetS"]),
        )
        .map(|refusal| {
            let error = refusal.error();
            // The WIT `error-kind` names the plugin's guard component answers with.
            let kind = match error.kind {
                ErrorKind::Timeout => "timeout",
                ErrorKind::TooLarge => "too-large",
                other => panic!("no case of {other:?}"),
            };
            serde_json::json!({"kind": kind, "message": error.message})
        });
        assert_eq!(refused.unwrap_or(Value::Null), case["refused"], "{case}");
    }
    for case in cases(&v, "answers") {
        let refused = answer_refused(case["method"].as_str().unwrap(), u(&case["size"]), u(&case["limit"]));
        assert_eq!(refused.map_or(Value::Null, Value::from), case["refused"], "{case}");
    }
}
