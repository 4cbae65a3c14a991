//! `agent`: an agent run in a session, after the send policy allows it (reference §4),
//! with its message appended to the session's transcript; the run itself goes on in the
//! [`runs`](super::runs) registry, and its reply, usage and model are recorded when it
//! ends.

use crate::gateway::*;
use serde_json::{json, Value};
use session_tools_guest::policy::Decision;

use super::runs::Finished;
use super::runtime::RunRequest;
use super::{gw, known_channel, EmbeddedGateway, LABEL_MAX};

impl EmbeddedGateway {
    /// `agent`: checks the params as the real gateway's schema does, applies the send
    /// policy, creates or updates the entry, appends the message and starts the run.
    pub(super) fn start_run(&self, p: &AgentParams) -> GatewayResult<AgentAccepted> {
        if p.message.trim().is_empty() {
            return Err(gw("invalid agent params: at /message: must NOT have fewer than 1 characters"));
        }
        if let Some(channel) = p.channel.as_deref() {
            if !known_channel(channel) {
                return Err(gw(format!("invalid agent params: unknown channel: {channel}")));
            }
        }
        if let Some(label) = &p.label {
            let n = label.chars().count();
            if n == 0 {
                return Err(gw("invalid agent params: at /label: must NOT have fewer than 1 characters"));
            }
            if n > LABEL_MAX {
                return Err(gw(format!("invalid agent params: at /label: must NOT have more than {LABEL_MAX} characters")));
            }
        }
        if let Some(done) = self.runs().get(&p.idempotency_key) {
            // The same idempotency key is the same run.
            return Ok(AgentAccepted { run_id: Some(done) });
        }
        let requested = p.session_key.clone().unwrap_or_else(|| "main".into());
        let existing = self.find(&requested)?;
        let (decision, _why) = self.policy_for(&requested, existing.as_ref().map(|f| &f.entry))?;
        if decision == Decision::Deny {
            return Err(gw("send blocked by session policy"));
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
                    entry.insert("channel".into(), Value::String(channel.trim().to_lowercase()));
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
        let now = self.now();
        self.append(&found, &json!({"role": "user", "content": [{"type": "text", "text": p.message}], "timestamp": now}))?;
        let timeout_s = p.timeout.map_or(self.config().agent_timeout_seconds, u64::from);
        let request = RunRequest {
            run_id: p.idempotency_key.clone(),
            session_key: found.key.clone(),
            agent_id: found.agent_id.clone(),
            message: p.message.clone(),
            extra_system_prompt: p.extra_system_prompt.clone(),
            lane: p.lane.clone(),
            channel: p.channel.clone(),
            params: crate::gateway::wire::agent_params(p),
        };
        let me = self.me.clone();
        self.runs().start(request, std::time::Duration::from_secs(timeout_s.max(1)), self.runtime.clone(), move |request, result| {
            if let Some(gateway) = me.upgrade() {
                gateway.finish_run(request, result);
            }
        });
        Ok(AgentAccepted { run_id: Some(p.idempotency_key.clone()) })
    }

    /// Records a finished run: the reply in the transcript, usage and model on the entry.
    fn finish_run(&self, request: &RunRequest, result: &Finished) {
        let Ok(Some(found)) = self.find(&request.session_key) else {
            return;
        };
        if let Some(reply) = &result.reply {
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
            let _ = self.append(&found, &message);
        }
        let _ = self.upsert(&request.session_key, |entry, _, _| {
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
        });
    }
}
