//! One instance as the job runner's step host, for the jobs of its own calls:
//! [`Sandbox::run_jobs`] (conformance runs, tests).

use std::sync::Arc;

use session_tools_contract::{Caller, Job, Wakeup};

use super::runner::{JobRunner, StepHost};
use super::store::{JobRecord, JobStore};
use crate::gateway::Gateway;
use crate::limits::Limits;
use crate::sandbox::{CallError, Sandbox, Services};

/// This instance as the job runner's step host: every step runs here, every wait is this
/// instance's gateway's.
struct OneInstance<'a> {
    sandbox: std::sync::Mutex<&'a mut Sandbox>,
    limits: Limits,
    services: Arc<dyn Services>,
    gateway: Arc<dyn Gateway>,
    /// The error that broke the instance, if a step did.
    broke: std::sync::Mutex<Option<CallError>>,
}

impl StepHost for OneInstance<'_> {
    fn limits(&self, _agent: &str) -> Limits {
        self.limits.clone()
    }

    fn services(&self) -> &dyn Services {
        self.services.as_ref()
    }

    fn resume(&self, record: &JobRecord, wakeup: Wakeup) -> Result<Vec<Job>, CallError> {
        let answer = match self.sandbox.lock() {
            Ok(mut sandbox) => sandbox.resume_job(record.job(), wakeup),
            // A step panicked while it held the instance: it is not used again.
            Err(_) => Err(CallError::HostFault("an earlier job step failed while it held the instance".into())),
        };
        if let Err(e) = &answer {
            if e.discards_instance() {
                crate::poison::lock_whole(&self.broke).get_or_insert_with(|| e.clone());
            }
        }
        answer
    }

    fn wait(
        &self,
        _record: &JobRecord,
        params: &session_tools_contract::WaitParams,
    ) -> session_tools_contract::GatewayResult<session_tools_contract::WaitResult> {
        self.gateway.agent_wait(params)
    }
}

impl Sandbox {
    /// Runs the jobs this instance's calls started, here and now, with the host's job
    /// runner (kept in memory: nothing is persisted): every step in this instance, every
    /// wait through its gateway, bounded by its limits. Blocks until no job can make
    /// progress; answers the jobs left waiting for a later time. A step that breaks the
    /// instance ends the run with its error; a job that fails otherwise is dropped (and
    /// logged).
    pub fn run_jobs(&mut self, caller: &Caller, jobs: Vec<Job>) -> Result<Vec<Job>, CallError> {
        let (name, gateway, services, limits) = self.given();
        let runner = JobRunner::new(JobStore::in_memory());
        let host = OneInstance { sandbox: std::sync::Mutex::new(self), limits, services, gateway, broke: std::sync::Mutex::new(None) };
        runner.start(&host, &name, caller, jobs, None);
        // One job after another, in order: an instance serves one call at a time.
        runner.run_ready(&host, std::time::Duration::MAX, 1);
        if let Some(broke) = crate::poison::lock_whole(&host.broke).take() {
            return Err(broke);
        }
        Ok(runner.pending(host.services.as_ref()).iter().map(JobRecord::job).collect())
    }
}
