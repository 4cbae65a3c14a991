//! The send policy, evaluated by the component: an instance kept for the gateway's
//! enforcement points (an embedded gateway calls it for `agent` and `chat.send`). An
//! instance that broke (a trap on some input) is replaced at the next evaluation, so one
//! bad message never disables the policy for the rest of the process.

use std::sync::{Arc, Mutex};

use session_tools_contract::policy::{Decision, PolicyInput, SendCommand};

use crate::sandbox::{AgentSetup, CallError, Runtime, Sandbox};

/// Evaluates the send policy at the gateway's enforcement points. The logic lives once, in
/// the component; the host gives the gateway an instance of it.
pub trait PolicyEvaluator: Send + Sync {
    /// The send policy's decision on a send, and the reason for it.
    fn evaluate(&self, input: &PolicyInput) -> Result<(Decision, String), String>;
    /// A standalone message read as the owner's `/send` command, if it is one.
    fn parse_command(&self, text: &str) -> Result<Option<SendCommand>, String>;
}

pub(crate) struct ComponentPolicy {
    runtime: Arc<Runtime>,
    setup: AgentSetup,
    instance: Mutex<Option<Sandbox>>,
}

impl ComponentPolicy {
    /// Starts the instance (its config is checked here: a config the component refuses is
    /// an error now, not at the first call).
    pub fn start(runtime: Arc<Runtime>, setup: AgentSetup) -> Result<ComponentPolicy, CallError> {
        let instance = runtime.instantiate(&setup)?;
        Ok(ComponentPolicy { runtime, setup, instance: Mutex::new(Some(instance)) })
    }

    fn with_instance<T>(&self, f: impl FnOnce(&mut Sandbox) -> Result<T, CallError>) -> Result<T, CallError> {
        let mut slot = crate::poison::lock_rebuilt(&self.instance);
        if slot.as_ref().is_none_or(Sandbox::is_broken) {
            *slot = None;
            *slot = Some(self.runtime.instantiate(&self.setup)?);
        }
        let sandbox = slot.as_mut().expect("an instance was just set");
        let outcome = f(sandbox);
        if sandbox.is_broken() {
            *slot = None;
        }
        outcome
    }

    pub fn evaluate(&self, input: &PolicyInput) -> Result<(Decision, String), CallError> {
        self.with_instance(|sandbox| sandbox.evaluate_send_policy(input))
    }

    pub fn parse_command(&self, text: &str) -> Result<Option<SendCommand>, CallError> {
        self.with_instance(|sandbox| sandbox.parse_send_command(text))
    }
}

impl PolicyEvaluator for ComponentPolicy {
    fn evaluate(&self, input: &PolicyInput) -> Result<(Decision, String), String> {
        ComponentPolicy::evaluate(self, input).map_err(|e| e.to_string())
    }

    fn parse_command(&self, text: &str) -> Result<Option<SendCommand>, String> {
        ComponentPolicy::parse_command(self, text).map_err(|e| e.to_string())
    }
}
