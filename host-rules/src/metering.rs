//! What a tool call may take of the gateway, as every host meters it: a bounded number of
//! gateway calls, none once the call's wall time or its gateway time is over
//! ([`gateway_call_refused`]), and no answer larger than the agent's limit handed to the
//! guest ([`answer_refused`]), an answer's size counted the one way below (the bytes of its
//! strings, and a fixed amount a row, a message or a key). The hosts measure the time their
//! own way (a Rust host's clocks, the plugin's timers); the verdicts and their words are
//! these. The Rust host bounds its imports with them; the gateway wire component bounds
//! what it hands a plugin's guest.

use session_tools_contract::{AgentAccepted, ErrorKind, GatewayError, History, SessionList, SessionRow, ThreadId, WaitResult};

/// Why a call may make no gateway call more.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum CallRefusal {
    /// More gateway calls than the limit allows.
    TooManyCalls { max_calls: u32 },
    /// The call's wall time is over.
    OutOfTime,
    /// The call spent its gateway time (`budget_s`, in seconds).
    GatewayTimeSpent { budget_s: u64 },
}

impl CallRefusal {
    /// The refusal as the guest gets it.
    pub fn error(self) -> GatewayError {
        match self {
            CallRefusal::TooManyCalls { max_calls } => {
                GatewayError::of(ErrorKind::TooLarge, format!("too many gateway calls in one call (the limit is {max_calls})"))
            }
            CallRefusal::OutOfTime => GatewayError::of(ErrorKind::Timeout, "the call ran out of time"),
            CallRefusal::GatewayTimeSpent { budget_s } => GatewayError::of(
                ErrorKind::Timeout,
                format!("the call spent its gateway time ({budget_s} s) and may make no more gateway calls"),
            ),
        }
    }
}

/// Whether a call may make its `calls`-th gateway call (this one counted): refused past
/// `max_calls`, then once its wall time is over, then once its gateway time
/// (`gateway_budget_s`) is spent, in that order.
pub fn gateway_call_refused(
    calls: u32,
    max_calls: u32,
    out_of_time: bool,
    gateway_time_spent: bool,
    gateway_budget_s: u64,
) -> Option<CallRefusal> {
    if calls > max_calls {
        Some(CallRefusal::TooManyCalls { max_calls })
    } else if out_of_time {
        Some(CallRefusal::OutOfTime)
    } else if gateway_time_spent {
        Some(CallRefusal::GatewayTimeSpent { budget_s: gateway_budget_s })
    } else {
        None
    }
}

/// The refusal of a gateway answer to `method` of `size` bytes, when it is over `limit`
/// (the guest gets an error of kind `too-large` saying so).
pub fn answer_refused(method: &str, size: u64, limit: u64) -> Option<String> {
    (size > limit).then(|| format!("gateway answer too large: {method} returned {size} bytes (the limit is {limit})"))
}

fn opt_len(s: &Option<String>) -> usize {
    s.as_ref().map_or(0, String::len)
}

/// The size of a session's row.
pub fn row_size(r: &SessionRow) -> usize {
    64 + r.key.len()
        + [
            &r.kind,
            &r.channel,
            &r.label,
            &r.display_name,
            &r.session_id,
            &r.model,
            &r.thinking_level,
            &r.verbose_level,
            &r.send_policy,
            &r.last_channel,
            &r.last_to,
            &r.last_account_id,
            &r.spawned_by,
        ]
        .iter()
        .map(|s| opt_len(s))
        .sum::<usize>()
        + r.delivery_context.as_ref().map_or(0, |d| {
            let thread = match &d.thread_id {
                Some(ThreadId::Text(t)) => t.len(),
                Some(ThreadId::Number(_)) => 8,
                None => 0,
            };
            opt_len(&d.channel) + opt_len(&d.to) + opt_len(&d.account_id) + thread
        })
}

/// The size of `sessions.list`'s answer.
pub fn list_size(list: &SessionList) -> usize {
    opt_len(&list.path) + list.sessions.iter().map(row_size).sum::<usize>()
}

/// The size of `chat.history`'s answer.
pub fn history_size(history: &History) -> usize {
    history.messages.iter().map(|m| m.json.len() + opt_len(&m.role) + 16).sum()
}

/// The size of `agent`'s answer.
pub fn accepted_size(accepted: &AgentAccepted) -> usize {
    opt_len(&accepted.run_id)
}

/// The size of `agent.wait`'s answer.
pub fn wait_size(wait: &WaitResult) -> usize {
    opt_len(&wait.status) + opt_len(&wait.error) + opt_len(&wait.model)
}

/// The size of a list of session keys (the spawn tree's answer).
pub fn keys_size<'a>(keys: impl IntoIterator<Item = &'a String>) -> usize {
    keys.into_iter().map(|k| k.len() + 8).sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_broken_bound_is_said() {
        assert_eq!(gateway_call_refused(3, 3, false, false, 20), None);
        assert_eq!(gateway_call_refused(4, 3, true, true, 20), Some(CallRefusal::TooManyCalls { max_calls: 3 }));
        assert_eq!(gateway_call_refused(1, 3, true, true, 20), Some(CallRefusal::OutOfTime));
        let spent = gateway_call_refused(1, 3, false, true, 20).unwrap().error();
        assert_eq!(
            (spent.kind, spent.message.as_str()),
            (ErrorKind::Timeout, "the call spent its gateway time (20 s) and may make no more gateway calls")
        );
        assert_eq!(answer_refused("agent", 10, 10), None);
        assert_eq!(answer_refused("agent", 11, 10).unwrap(), "gateway answer too large: agent returned 11 bytes (the limit is 10)");
    }
}
