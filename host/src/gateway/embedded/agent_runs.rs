//! `agent`: an agent run in a session, after the send policy allows it (reference §4),
//! registered in the [`runs`](super::runs) registry before its message is appended to the
//! session's transcript; the run itself goes on there, and its reply, usage and model are
//! recorded when it ends (the registry says in which order, and why).

use crate::gateway::*;
use serde_json::{json, Value};
use session_tools_contract::policy::Decision;
use session_tools_grammar::js::js_trim;

use std::sync::Arc;

use super::registry::Found;
use super::runs::{Finished, Registered, RunFile, RunSteps};
use super::runtime::{AgentRuntime, RunRequest};
use super::{forbidden, gw, invalid, known_channel, EmbeddedGateway, LABEL_MAX};
use crate::faults::fault_point;

impl EmbeddedGateway {
    /// `agent`: checks the params as the real gateway's schema does, applies the send
    /// policy, creates or updates the entry, appends the message and starts the run.
    pub(super) fn start_run(&self, p: &AgentParams) -> GatewayResult<AgentAccepted> {
        // JavaScript's white space (U+0085 is not; a message of it is a message).
        if js_trim(&p.message).is_empty() {
            return Err(invalid("invalid agent params: at /message: must NOT have fewer than 1 characters"));
        }
        if let Some(channel) = p.channel.as_deref() {
            if !known_channel(channel) {
                return Err(invalid(format!("invalid agent params: unknown channel: {channel}")));
            }
        }
        if let Some(label) = &p.label {
            let n = label.chars().count();
            if n == 0 {
                return Err(invalid("invalid agent params: at /label: must NOT have fewer than 1 characters"));
            }
            if n > LABEL_MAX {
                return Err(invalid(format!("invalid agent params: at /label: must NOT have more than {LABEL_MAX} characters")));
            }
        }
        // The same idempotency key is the same run, whichever process registered it.
        if self.runs().exists(&p.idempotency_key) {
            return Ok(AgentAccepted { run_id: Some(p.idempotency_key.clone()) });
        }
        // No runtime, no run: refused before anything is written (no entry, no message).
        if let Some(advice) = self.no_runtime() {
            return Err(gw(format!("no agent runtime runs agents on this state directory: {advice}")));
        }
        let requested = p.session_key.clone().unwrap_or_else(|| "main".into());
        let existing = self.find(&requested)?;
        let (decision, _why) = self.policy_for(&requested, existing.as_ref().map(|f| &f.entry))?;
        if decision == Decision::Deny {
            return Err(forbidden("send blocked by session policy"));
        }
        let parent = match p.spawned_by.as_deref() {
            Some(s) => self.find(s)?,
            None => None,
        };
        let found = self.upsert(&requested, |entry, _, _| {
            // `sessionId ?? randomUUID()`: an entry without one gets a new transcript.
            if !entry.get("sessionId").is_some_and(Value::is_string) {
                entry.insert("sessionId".into(), Value::String(uuid::Uuid::new_v4().to_string()));
            }
            // Labels are not checked for uniqueness here (only `sessions.patch` does).
            if let Some(label) = p.label.as_deref().map(str::trim).filter(|l| !l.is_empty()) {
                entry.insert("label".into(), Value::String(label.to_string()));
            }
            if let Some(spawned_by) = &p.spawned_by {
                if !entry.contains_key("spawnedBy") {
                    entry.insert("spawnedBy".into(), Value::String(self.rules().canonical(spawned_by)));
                }
            }
            if let Some(channel) = p.channel.as_deref().filter(|c| !c.eq_ignore_ascii_case("webchat")) {
                if !entry.contains_key("channel") {
                    entry.insert("channel".into(), Value::String(js_trim(channel).to_lowercase()));
                }
            }
            // Group fields come from the params, else from the spawning session.
            for (param, field) in [(&p.group_id, "groupId"), (&p.group_channel, "groupChannel"), (&p.group_space, "space")] {
                let inherited = parent.as_ref().and_then(|f| f.entry.get(field)).cloned();
                if let Some(value) = param.clone().map(Value::String).or(inherited) {
                    entry.entry(field.to_string()).or_insert(value);
                }
            }
            if let Some(thinking) = &p.thinking {
                if thinking != "off" {
                    entry.insert("thinkingLevel".into(), Value::String(thinking.clone()));
                }
            }
            Ok(())
        })?;
        let timeout_s = p.timeout.map_or(self.config().agent_timeout_seconds, u64::from);
        let request = RunRequest {
            run_id: p.idempotency_key.clone(),
            session_key: found.key.clone(),
            agent_id: found.agent_id.clone(),
            message: p.message.clone(),
            extra_system_prompt: p.extra_system_prompt.clone(),
            lane: p.lane.clone(),
            channel: p.channel.clone(),
            params: crate::gateway::wire::params::agent(crate::gateway::wire::Era::V3, p),
        };
        // Exactly once: the run is registered (its intent on disk) before its message is
        // appended, so a second `agent` with this key, here or in another process, finds it
        // and appends nothing.
        let file = match self.runs().register(&request, std::time::Duration::from_secs(timeout_s.max(1))) {
            Ok(Registered::New(file)) => *file,
            Ok(Registered::Existing) => return Ok(AgentAccepted { run_id: Some(p.idempotency_key.clone()) }),
            Ok(Registered::TooMany) => {
                return Err(gw(format!(
                    "agent {} has {} runs going on; try again when some have ended",
                    found.agent_id,
                    super::runs::MAX_RUNS_IN_FLIGHT_PER_AGENT
                )))
            }
            Err(e) => return Err(gw(format!("recording the run: {e}"))),
        };
        if let Err(e) = self.append_run_message(&found, &file, false) {
            self.runs().fail(file, e.clone());
            return Err(gw(e));
        }
        fault_point("agent.message-appended");
        self.runs().start(file);
        Ok(AgentAccepted { run_id: Some(p.idempotency_key.clone()) })
    }

    /// Appends a run's message under the entry id its file names (unless `check` finds it
    /// there already); answers whether it was appended now.
    fn append_run_message(&self, found: &Found, run: &RunFile, check: bool) -> Result<bool, String> {
        let message = json!({"role": "user", "content": [{"type": "text", "text": run.asked.message}], "timestamp": run.started_at});
        self.append_entry(found, &message, &run.message_entry, check).map_err(|e| e.message)
    }

    /// Records a finished run: the reply in the transcript under the entry id its file
    /// names (unless `check` finds it there already), usage and model on the entry.
    fn record_run_end(&self, run: &RunFile, result: &Finished, check: bool) -> Result<(), String> {
        let Some(found) = self.find(&run.session_key).map_err(|e| e.message)? else {
            return Ok(());
        };
        if let (Some(reply), Some(entry_id)) = (&result.reply, &result.reply_entry) {
            let mut message = json!({
                "role": "assistant",
                "content": [{"type": "text", "text": reply}],
                "stopReason": if result.status == "ok" { "stop" } else { "error" },
                "timestamp": result.ended_at,
            });
            if let Some(model) = &result.model {
                let (provider, id) = model.split_once('/').unwrap_or(("", model.as_str()));
                message["provider"] = json!(provider);
                message["model"] = json!(id);
            }
            if let Some(usage) = &result.usage {
                message["usage"] = json!({"input": usage.input_tokens, "output": usage.output_tokens, "totalTokens": usage.total_tokens});
            }
            self.append_entry(&found, &message, entry_id, check).map_err(|e| e.message)?;
        }
        self.upsert(&run.session_key, |entry, _, _| {
            if let Some(model) = &result.model {
                let (provider, id) = model.split_once('/').unwrap_or(("", model.as_str()));
                if !provider.is_empty() {
                    entry.insert("modelProvider".into(), json!(provider));
                }
                entry.insert("model".into(), json!(id));
            }
            if let Some(usage) = &result.usage {
                for (field, value) in [("inputTokens", usage.input_tokens), ("outputTokens", usage.output_tokens)] {
                    if let Some(v) = value {
                        entry.insert(field.into(), json!(v as u64));
                    }
                }
                let total = usage.total_tokens.or(usage.input_tokens);
                if let Some(t) = total {
                    entry.insert("totalTokens".into(), json!(t as u64));
                }
            }
            entry.insert("abortedLastRun".into(), Value::Bool(result.status == "timeout"));
            Ok(())
        })
        .map(|_| ())
        .map_err(|e| e.message)
    }
}

impl RunSteps for EmbeddedGateway {
    fn append_message(&self, run: &RunFile, check: bool) -> Result<bool, String> {
        let found = self.find(&run.session_key).map_err(|e| e.message)?.ok_or_else(|| format!("session {} is gone", run.session_key))?;
        self.append_run_message(&found, run, check)
    }

    fn record_end(&self, run: &RunFile, finished: &Finished, check: bool) -> Result<(), String> {
        self.record_run_end(run, finished, check)
    }

    fn runtime(&self) -> Option<Arc<dyn AgentRuntime>> {
        self.runtime.clone()
    }
}
