//! The records of the send policy (WIT `policy`; reference §4): what a send is judged on,
//! the decision, and the owner's `/send` command.

/// Whether a send may go.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decision {
    /// It may.
    Allow,
    /// It may not.
    Deny,
}

/// The session entry fields the policy reads.
#[derive(Debug, Clone, Default)]
pub struct PolicyEntry {
    /// The session's own override (`allow`, `deny`, or none).
    pub send_policy: Option<String>,
    /// The session's channel.
    pub channel: Option<String>,
    /// The channel the session last spoke on.
    pub last_channel: Option<String>,
    /// `direct`, `group` or `channel`.
    pub chat_type: Option<String>,
}

/// A send to evaluate.
#[derive(Debug, Clone, Default)]
pub struct PolicyInput {
    /// The target session's entry, when it has one.
    pub entry: Option<PolicyEntry>,
    /// The target session's key.
    pub session_key: Option<String>,
    /// The channel the send goes to, when the caller names one.
    pub channel: Option<String>,
    /// The chat type the send goes to, when the caller names one.
    pub chat_type: Option<String>,
}

/// A per-session override mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SendMode {
    /// Sends to the session are allowed whatever the config says.
    Allow,
    /// Sends to the session are refused whatever the config says.
    Deny,
    /// The config decides.
    Inherit,
}

/// The owner command `/send [mode]` (reference §4).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SendCommand {
    /// `/send`: show the session's mode.
    Show,
    /// `/send allow|deny|inherit`.
    Set(SendMode),
    /// `/send <word>` with a word that is no mode.
    Invalid(String),
}
