//! A pending job as a host keeps it: the guest's job (its id, kind, session, private state
//! and what it waits for) and who it runs for. A record's JSON is the file it is kept in
//! (`<key>.json`, the key itself being the file's stem): the one format both hosts read and
//! write.

use serde::{Deserialize, Serialize};
use session_tools_contract::{Caller, Job, WaitParams, Wake};

/// What a kept job waits for.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", tag = "type")]
pub enum WakeRecord {
    Now,
    RunEnd { wait: WaitParams },
    At { at: u64 },
}

/// A job and who it runs for.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct JobRecord {
    /// The host's name for the job (its file name); kept while the guest continues the
    /// job under the same id.
    #[serde(skip)]
    pub key: String,
    /// The guest's id for the job.
    pub id: String,
    pub kind: String,
    pub session_key: String,
    pub state: String,
    pub wake: WakeRecord,
    /// The agent whose instance runs it.
    pub agent: String,
    /// The caller whose tool call started it (its visibility applies to the job).
    pub caller: Caller,
    /// How many job steps led to it since its tool call (bounded per agent).
    #[serde(default)]
    pub steps: u32,
    /// The intent of the tool call that started it, while that call is not yet committed
    /// (the job is not stepped before; see [`crate::intent`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub call: Option<String>,
}

impl JobRecord {
    /// A job (or the next step of one) under a given key.
    pub fn with_key(key: String, job: Job, agent: &str, caller: &Caller) -> JobRecord {
        let wake = match job.wake {
            Wake::Now => WakeRecord::Now,
            Wake::RunEnd(wait) => WakeRecord::RunEnd { wait },
            Wake::At(at) => WakeRecord::At { at },
        };
        JobRecord {
            key,
            id: job.id,
            kind: job.kind,
            session_key: job.session_key,
            state: job.state,
            wake,
            agent: agent.to_string(),
            caller: caller.clone(),
            steps: 0,
            call: None,
        }
    }

    /// The job as the guest resumes it.
    pub fn job(&self) -> Job {
        let wake = match &self.wake {
            WakeRecord::Now => Wake::Now,
            WakeRecord::RunEnd { wait } => Wake::RunEnd(wait.clone()),
            WakeRecord::At { at } => Wake::At(*at),
        };
        Job { id: self.id.clone(), kind: self.kind.clone(), session_key: self.session_key.clone(), state: self.state.clone(), wake }
    }

    /// The record kept under `key` (its file's stem) from the file's bytes; the error says
    /// what is wrong with them.
    pub fn read(key: &str, bytes: &[u8]) -> Result<JobRecord, String> {
        let record = serde_json::from_slice::<JobRecord>(bytes).map_err(|e| e.to_string())?;
        Ok(JobRecord { key: key.to_string(), ..record })
    }

    /// The record as its file holds it (the key is the file's name, not in it).
    pub fn to_file(&self) -> Vec<u8> {
        // A record of strings, numbers and a caller of strings always serialises.
        serde_json::to_vec_pretty(self).unwrap_or_default()
    }

    /// The job as a guest's JSON names it, the shape [`JobRecord::job_from_json`] reads: its
    /// times at most 2^53 - 1 ms, the most a JSON number holds exactly for a JavaScript host
    /// (a guest asking for later is resumed then, and may ask again).
    pub fn job_to_json(job: Job) -> serde_json::Value {
        const EXACT: u64 = (1 << 53) - 1;
        let wake = match job.wake {
            Wake::Now => WakeRecord::Now,
            Wake::RunEnd(wait) => WakeRecord::RunEnd { wait: WaitParams { timeout_ms: wait.timeout_ms.min(EXACT), ..wait } },
            Wake::At(at) => WakeRecord::At { at: at.min(EXACT) },
        };
        serde_json::json!({"id": job.id, "kind": job.kind, "sessionKey": job.session_key, "state": job.state, "wake": wake})
    }

    /// The job as a guest's JSON names it (the shape a host without the contract's types
    /// passes jobs in): `{id, kind, sessionKey, state, wake}`, `wake` as a record's.
    pub fn job_from_json(value: &serde_json::Value) -> Result<Job, String> {
        #[derive(Deserialize)]
        #[serde(rename_all = "camelCase")]
        struct Shape {
            id: String,
            kind: String,
            session_key: String,
            state: String,
            wake: WakeRecord,
        }
        let shape = Shape::deserialize(value).map_err(|e| format!("not a job: {e}"))?;
        let wake = match shape.wake {
            WakeRecord::Now => Wake::Now,
            WakeRecord::RunEnd { wait } => Wake::RunEnd(wait),
            WakeRecord::At { at } => Wake::At(at),
        };
        Ok(Job { id: shape.id, kind: shape.kind, session_key: shape.session_key, state: shape.state, wake })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_record_reads_back_as_it_was_written() {
        let job = Job {
            id: "j".into(),
            kind: "a2a".into(),
            session_key: "agent:main:main".into(),
            state: "{}".into(),
            wake: Wake::RunEnd(WaitParams { run_id: "r".into(), timeout_ms: 5 }),
        };
        let mut record = JobRecord::with_key("k".into(), job.clone(), "main", &Caller::default());
        record.steps = 2;
        let back = JobRecord::read("k", &record.to_file()).unwrap();
        assert_eq!(back, record);
        assert_eq!(back.job(), job);
        assert!(JobRecord::read("k", b"{\"id\": 1}").is_err());
        let json = serde_json::json!({"id": "j", "kind": "a2a", "sessionKey": "agent:main:main", "state": "{}", "wake": {"type": "runEnd", "wait": {"runId": "r", "timeoutMs": 5}}});
        assert_eq!(JobRecord::job_from_json(&json).unwrap(), job);
        assert_eq!(JobRecord::job_to_json(job.clone()), json);
        let late = Job { wake: Wake::At(u64::MAX), ..job };
        assert_eq!(JobRecord::job_to_json(late)["wake"]["at"], (1u64 << 53) - 1);
    }
}
