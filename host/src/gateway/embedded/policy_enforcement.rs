//! The session's owner and the send policy: the policy evaluated at the gateway's
//! enforcement points (`agent`, `chat.send`; reference §4), and `chat.send` from the
//! owner, where a standalone `/send on|off|inherit` changes the session's override.

use std::sync::Arc;

use crate::gateway::*;
use serde_json::{Map, Value};
use session_tools_contract::policy::{Decision, PolicyEntry, PolicyInput, SendCommand, SendMode};

use super::{gw, EmbeddedGateway, Patch};
use crate::PolicyEvaluator;

fn text(entry: &Map<String, Value>, key: &str) -> Option<String> {
    entry.get(key).and_then(Value::as_str).map(str::to_string)
}

fn decision_word(decision: Decision) -> &'static str {
    match decision {
        Decision::Allow => "allow",
        Decision::Deny => "deny",
    }
}

impl EmbeddedGateway {
    /// Gives the gateway the component's send-policy evaluation.
    pub fn set_policy(&self, policy: Arc<dyn PolicyEvaluator>) {
        *crate::poison::lock_whole(&self.policy) = Some(policy);
    }

    fn evaluator(&self) -> Option<Arc<dyn PolicyEvaluator>> {
        crate::poison::lock_whole(&self.policy).clone()
    }

    /// Evaluates the send policy for a send to a session (reference §4: the requested key;
    /// G4: its entry is found under any spelling).
    pub fn policy_for(&self, requested_key: &str, entry: Option<&Map<String, Value>>) -> Result<(Decision, String), GatewayError> {
        let Some(policy) = self.evaluator() else {
            return Ok((Decision::Allow, "no policy evaluator is attached".into()));
        };
        let input = PolicyInput {
            entry: entry.map(|e| PolicyEntry {
                send_policy: text(e, "sendPolicy"),
                channel: text(e, "channel"),
                last_channel: text(e, "lastChannel"),
                chat_type: text(e, "chatType"),
            }),
            session_key: Some(requested_key.to_string()),
            channel: entry.and_then(|e| text(e, "channel")),
            chat_type: entry.and_then(|e| text(e, "chatType")),
        };
        policy.evaluate(&input).map_err(|e| gw(format!("send policy evaluation failed: {e}")))
    }

    /// The send policy of a session as it is stored (with the reason).
    pub fn session_policy(&self, key: &str) -> Result<(Decision, String), GatewayError> {
        let found = self.find(key)?;
        self.policy_for(key, found.as_ref().map(|f| &f.entry))
    }

    /// `chat.send` from the session's owner: a standalone `/send on|off|inherit` changes
    /// the session's override and is answered; anything else is subject to the send
    /// policy and starts a run. Answers the reply to show the owner and the run, if any.
    pub fn chat_send(&self, key: &str, message: &str) -> Result<(String, Option<String>), GatewayError> {
        let command = match self.evaluator() {
            Some(p) => p.parse_command(message).map_err(gw)?,
            None => None,
        };
        if let Some(command) = command {
            let canonical = self.rules().canonical(key);
            return match command {
                SendCommand::Show => {
                    let (decision, why) = self.session_policy(key)?;
                    Ok((format!("Send policy for {canonical}: {} ({why}).", decision_word(decision)), None))
                }
                SendCommand::Set(mode) => {
                    let value = match mode {
                        SendMode::Allow => Some("allow".to_string()),
                        SendMode::Deny => Some("deny".to_string()),
                        SendMode::Inherit => None,
                    };
                    self.patch(&canonical, &Patch { send_policy: Some(value.clone()), ..Default::default() })?;
                    let shown = value.unwrap_or_else(|| "inherit (the configured rules apply)".into());
                    Ok((format!("Send policy for {canonical} set to {shown}."), None))
                }
                SendCommand::Invalid(word) => {
                    Ok((format!("Unknown /send mode \"{word}\". Use /send on, /send off or /send inherit."), None))
                }
            };
        }
        let accepted = self.agent(&AgentParams {
            message: message.to_string(),
            session_key: Some(key.to_string()),
            idempotency_key: uuid::Uuid::new_v4().to_string(),
            deliver: Some(false),
            channel: Some("webchat".into()),
            ..Default::default()
        })?;
        Ok(("accepted".into(), accepted.run_id))
    }
}
