//! The intent of a tool call that writes (`sessions_send`, `sessions_spawn`): who called,
//! which tool, with which arguments, recorded by a host before the call's first gateway call
//! that writes ([`WRITES`]) and removed once the call's jobs are kept. A host that finds an
//! intent whose process stopped makes the call again, once ([`CallIntent::replayed`]), with
//! the same ids (its id seeds them, [`crate::seeded::call_seed`]), so the gateway drops what
//! was already done, and keeps its jobs under keys derived from it
//! ([`crate::keys::call_key`]). Jobs of a call are not stepped while its intent is kept.

use serde::{Deserialize, Serialize};
use session_tools_contract::Caller;

/// The gateway calls that write: a call's intent is kept before the first of them.
pub const WRITES: &[&str] = &["agent", "send", "sessions.patch", "sessions.delete"];

/// A tool call in flight that has started to write.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CallIntent {
    /// The call's id, and the seed of its ids.
    pub id: String,
    pub agent: String,
    pub caller: Caller,
    pub tool: String,
    pub arguments: String,
    /// How many times it was made again after its process stopped.
    #[serde(default)]
    pub replays: u32,
}

impl CallIntent {
    /// The intent of a call about to be made, under a new id (32 hex digits, the host's).
    pub fn new(id: String, agent: &str, caller: &Caller, tool: &str, arguments: &str) -> CallIntent {
        CallIntent { id, agent: agent.into(), caller: caller.clone(), tool: tool.into(), arguments: arguments.into(), replays: 0 }
    }

    /// The intent kept as `id` from its file's bytes: `None` when they are not an intent, or
    /// one of another id (such a file is kept aside, never made again blindly).
    pub fn read(id: &str, bytes: &[u8]) -> Option<CallIntent> {
        serde_json::from_slice::<CallIntent>(bytes).ok().filter(|intent| intent.id == id)
    }

    /// The intent as its file holds it.
    pub fn to_file(&self) -> Vec<u8> {
        // Strings and a caller of strings always serialise.
        serde_json::to_vec_pretty(self).unwrap_or_default()
    }

    /// The intent as it is kept while its call is made again (one more replay), or, for a
    /// call that already stopped twice before its jobs were kept, why it is dropped instead
    /// (a line for the host's log).
    pub fn replayed(&self) -> Result<CallIntent, String> {
        if self.replays >= 1 {
            return Err(format!("call {} ({}) stopped twice before its jobs were kept; it is dropped", self.id, self.tool));
        }
        Ok(CallIntent { replays: self.replays + 1, ..self.clone() })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_intent_is_made_again_once() {
        let intent = CallIntent::new("c1".into(), "main", &Caller::default(), "sessions_spawn", "{}");
        let read = CallIntent::read("c1", &intent.to_file()).unwrap();
        assert_eq!(read, intent);
        assert!(CallIntent::read("c2", &intent.to_file()).is_none(), "a file of another id");
        assert!(CallIntent::read("c1", b"{").is_none());
        let again = intent.replayed().unwrap();
        assert_eq!(again.replays, 1);
        let dropped = again.replayed().unwrap_err();
        assert_eq!(dropped, "call c1 (sessions_spawn) stopped twice before its jobs were kept; it is dropped");
    }
}
