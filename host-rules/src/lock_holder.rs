//! Whether the holder a lock file names is gone, for a host that keeps a claim as a file
//! naming its holder (the plugin: Node has no OS lock that the kernel releases when its
//! holder dies; the Rust host holds its claims with OS locks and needs no such rule).
//!
//! A lock's owner record names its process: pid and host name, and on Linux the boot id,
//! the PID namespace and the process's start time (`/proc/<pid>/stat`), so a pid used again
//! by another process is not taken for the holder; elsewhere the time the machine booted.
//! A holder is judged gone only when that can be told for sure: same host, and either a
//! boot that is over or (in our PID namespace) no process with that pid and start time.
//! Another host or PID namespace (a gateway in a container sharing the volume) is never
//! taken for dead: its claims wait for it (or for an operator). Judging a live holder dead
//! can only cost a second making of its call with the same seeded ids, which the gateway
//! de-duplicates.
//!
//! The host reads the facts (its own identity, and what it sees of the holder's process
//! when the verdict asks); the judgement is here.

use serde::Deserialize;
use serde_json::Value;

/// Boot times (where no boot id can be read) closer than this are the same boot.
pub const SAME_BOOT_MS: f64 = 60_000.0;

/// A process as a lock names it (the owner record's fields; others are ignored).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Identity {
    pub pid: Option<Value>,
    pub host: Option<Value>,
    /// The boot id (Linux, with a `/proc` of the process's own PID namespace).
    pub boot: Option<Value>,
    pub pid_namespace: Option<Value>,
    /// The process's start time, in clock ticks since boot (`/proc/<pid>/stat` field 22).
    pub started: Option<Value>,
    /// When the machine booted, in ms since the epoch (where no boot id can be read).
    pub booted_at: Option<Value>,
}

/// What a lock's holder is, as far as the owner record tells.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Holder {
    Gone,
    /// Possibly alive: its claim stays.
    Alive,
    /// Gone unless the process `pid` of this PID namespace runs now and started at
    /// `started` (none: the record does not say, and a running process is taken for it).
    GoneUnlessStarted {
        pid: u32,
        started: Option<String>,
    },
    /// Gone if there is no process `pid` (a signal 0 answers that it does not exist).
    GoneUnlessExists(u32),
}

/// The holder a lock's owner record (its file's text) names, judged by this process
/// (`own`). A record that is not an owner, or names no positive pid, names no holder.
pub fn holder(owner: &str, own: &Identity) -> Holder {
    let Ok(owner) = serde_json::from_str::<Identity>(owner) else { return Holder::Gone };
    let Some(pid) = owner.pid.as_ref().and_then(Value::as_u64).and_then(|p| u32::try_from(p).ok()).filter(|p| *p > 0) else {
        return Holder::Gone;
    };
    if owner.host != own.host {
        return Holder::Alive;
    }
    let is_own = own.pid.as_ref().and_then(Value::as_u64) == Some(pid.into());
    if own.boot.is_some() {
        let Some(boot) = owner.boot.as_ref().filter(|b| b.is_string()) else { return Holder::Alive };
        if Some(boot) != own.boot.as_ref() {
            return Holder::Gone;
        }
        if owner.pid_namespace != own.pid_namespace {
            return Holder::Alive;
        }
        if is_own {
            return if owner.started == own.started { Holder::Alive } else { Holder::Gone };
        }
        let started = owner.started.as_ref().and_then(Value::as_str).map(str::to_string);
        return Holder::GoneUnlessStarted { pid, started };
    }
    let (Some(theirs), Some(ours)) = (owner.booted_at.as_ref().and_then(Value::as_f64), own.booted_at.as_ref().and_then(Value::as_f64))
    else {
        return Holder::Alive;
    };
    if (theirs - ours).abs() > SAME_BOOT_MS {
        Holder::Gone
    } else if is_own {
        Holder::Alive
    } else {
        Holder::GoneUnlessExists(pid)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn linux() -> Identity {
        serde_json::from_str(r#"{"pid":100,"host":"h","boot":"b1","pidNamespace":"pid:[4]","started":"555"}"#).unwrap()
    }

    fn elsewhere() -> Identity {
        serde_json::from_str(r#"{"pid":100,"host":"h","bootedAt":1000000}"#).unwrap()
    }

    #[test]
    fn a_record_without_a_holder_names_none() {
        for text in ["", "null", "[]", "{}", r#"{"pid":"100"}"#, r#"{"pid":0}"#, r#"{"pid":-5}"#, r#"{"pid":1.5}"#, r#"{"pid":5000000000}"#]
        {
            assert_eq!(holder(text, &linux()), Holder::Gone, "{text}");
        }
    }

    #[test]
    fn another_host_or_pid_namespace_is_never_taken_for_dead() {
        assert_eq!(holder(r#"{"pid":7,"host":"other","boot":"b0"}"#, &linux()), Holder::Alive);
        assert_eq!(holder(r#"{"pid":7,"host":"h","boot":"b1","pidNamespace":"pid:[9]"}"#, &linux()), Holder::Alive);
        assert_eq!(holder(r#"{"pid":7,"host":"h","bootedAt":1000000}"#, &linux()), Holder::Alive, "a record without a boot id");
        assert_eq!(holder(r#"{"pid":7,"host":"h","boot":"b1"}"#, &elsewhere()), Holder::Alive, "a record without a boot time");
    }

    #[test]
    fn on_linux_a_boot_that_is_over_or_a_pid_used_again_is_gone() {
        assert_eq!(holder(r#"{"pid":7,"host":"h","boot":"b0","pidNamespace":"pid:[4]"}"#, &linux()), Holder::Gone);
        let this = r#"{"pid":100,"host":"h","boot":"b1","pidNamespace":"pid:[4]","started":"555"}"#;
        assert_eq!(holder(this, &linux()), Holder::Alive, "this process");
        assert_eq!(holder(&this.replace("555", "1"), &linux()), Holder::Gone, "this pid, started again");
        assert_eq!(
            holder(r#"{"pid":7,"host":"h","boot":"b1","pidNamespace":"pid:[4]","started":"42"}"#, &linux()),
            Holder::GoneUnlessStarted { pid: 7, started: Some("42".into()) }
        );
        assert_eq!(
            holder(r#"{"pid":7,"host":"h","boot":"b1","pidNamespace":"pid:[4]"}"#, &linux()),
            Holder::GoneUnlessStarted { pid: 7, started: None }
        );
    }

    #[test]
    fn elsewhere_a_boot_is_told_by_its_time() {
        assert_eq!(holder(r#"{"pid":7,"host":"h","bootedAt":1000000}"#, &elsewhere()), Holder::GoneUnlessExists(7));
        assert_eq!(holder(r#"{"pid":7,"host":"h","bootedAt":1059000}"#, &elsewhere()), Holder::GoneUnlessExists(7), "within a minute");
        assert_eq!(holder(r#"{"pid":7,"host":"h","bootedAt":1061000}"#, &elsewhere()), Holder::Gone, "another boot");
        assert_eq!(holder(r#"{"pid":100,"host":"h","bootedAt":1000000}"#, &elsewhere()), Holder::Alive, "this process");
    }
}
