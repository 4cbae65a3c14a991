//! Resource limits of a guest instance, configurable per agent, and the one rule for
//! bounding a wait.

use std::time::{Duration, Instant};

/// The moment `after` from now, however large `after` is (a guest or a user may ask for
/// any duration; `Instant` arithmetic would overflow).
pub fn deadline(after: Duration) -> Instant {
    let now = Instant::now();
    now.checked_add(after).unwrap_or_else(|| now + Duration::from_secs(100 * 365 * 86_400))
}

/// How far in the future a job's timer may be set: a guest asking for later is resumed
/// then and may set it again.
pub const MAX_TIMER: Duration = Duration::from_secs(30 * 86_400);

/// What one agent's instance may use: [`Limits::default`], with fields changed as needed
/// (limits may be added in a minor release, so the struct is not built field by field).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Limits {
    /// Linear memory, in bytes (also the size of a pooled memory slot).
    pub memory_bytes: usize,
    /// Guest CPU time per call or job step; time spent waiting on the gateway is not
    /// counted.
    pub cpu_per_call: Duration,
    /// The guest's native stack.
    pub wasm_stack_bytes: usize,
    /// Elements of a table.
    pub table_elements: u32,
    /// Core instances an instance may create.
    pub instances: usize,
    /// Tables an instance may create.
    pub tables: usize,
    /// Memories an instance may create.
    pub memories: usize,
    /// Size of a tool call's JSON arguments.
    pub max_argument_bytes: usize,
    /// Size of a tool's JSON result.
    pub max_result_bytes: usize,
    /// Size of one gateway answer handed to the guest.
    pub max_gateway_answer_bytes: usize,
    /// Log output (guest log lines and stdio) kept per call; the rest is dropped.
    pub max_log_bytes_per_call: usize,
    /// Gateway calls one tool call (or job step) may make.
    pub max_gateway_calls_per_call: u32,
    /// Wall-clock time one call may take, waits on the gateway included; gateway waits are
    /// shortened to fit in it.
    pub wall_per_call: Duration,
    /// Time one call may spend waiting for the gateway's answers, in all.
    pub gateway_time_per_call: Duration,
    /// Background jobs one tool call or job step may start.
    pub max_jobs_per_call: u32,
    /// Steps one background job may take before it is dropped.
    pub max_steps_per_job: u32,
    /// Background jobs an agent may have pending at once; new ones past it are refused.
    pub max_pending_jobs: u32,
    /// How long the host waits for a run's end for one job step (the job is resumed with
    /// `timeout` and may wait again).
    pub max_wait: Duration,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            memory_bytes: 128 << 20,
            cpu_per_call: Duration::from_secs(5),
            wasm_stack_bytes: 512 << 10,
            table_elements: 20_000,
            instances: 32,
            tables: 8,
            memories: 4,
            max_argument_bytes: 1 << 20,
            max_result_bytes: 32 << 20,
            max_gateway_answer_bytes: 64 << 20,
            max_log_bytes_per_call: 16 << 10,
            // A list of every session with messages makes one history call a row.
            max_gateway_calls_per_call: 25_000,
            wall_per_call: Duration::from_secs(15 * 60),
            // `sessions_send` may wait up to its `timeoutSeconds` for a reply inside the call.
            gateway_time_per_call: Duration::from_secs(10 * 60),
            // A send starts one flow and a spawn one; each flow step at most a successor
            // and an announce.
            max_jobs_per_call: 8,
            // A sub-agent wait re-asks every minute for as long as the run goes on: about
            // a day of it, and a ping-pong's 5 turns many times over.
            max_steps_per_job: 2_000,
            max_pending_jobs: 1_000,
            max_wait: Duration::from_secs(10 * 60),
        }
    }
}

/// The keys of a limits override, with their units.
const KEYS: [&str; 14] = [
    "memoryMiB",
    "cpuMs",
    "wallSeconds",
    "maxArgumentBytes",
    "maxResultBytes",
    "maxGatewayAnswerBytes",
    "maxGatewayCalls",
    "maxLogBytes",
    "tableElements",
    "gatewaySeconds",
    "maxJobsPerCall",
    "maxStepsPerJob",
    "maxPendingJobs",
    "maxWaitSeconds",
];

impl Limits {
    /// These limits with the overrides of a JSON object applied (`memoryMiB`, `cpuMs`,
    /// `wallSeconds`, `maxArgumentBytes`, `maxResultBytes`, `maxGatewayAnswerBytes`,
    /// `maxGatewayCalls`, `maxLogBytes`, `tableElements`, `gatewaySeconds`,
    /// `maxJobsPerCall`, `maxStepsPerJob`, `maxPendingJobs`, `maxWaitSeconds`); `origin`
    /// names it in errors.
    pub fn with_overrides(&self, overrides: &serde_json::Value, origin: &str) -> Result<Limits, String> {
        let object = overrides.as_object().ok_or_else(|| format!("{origin} must be an object"))?;
        let mut limits = self.clone();
        for (key, value) in object {
            let n =
                value.as_u64().filter(|n| *n > 0).ok_or_else(|| format!("{origin}.{key} must be a positive whole number (got {value})"))?;
            let as_usize = |n: u64| usize::try_from(n).map_err(|_| format!("{origin}.{key} is too large"));
            match key.as_str() {
                "memoryMiB" => limits.memory_bytes = as_usize(n.checked_mul(1 << 20).ok_or(format!("{origin}.{key} is too large"))?)?,
                "cpuMs" => limits.cpu_per_call = Duration::from_millis(n),
                "wallSeconds" => limits.wall_per_call = Duration::from_secs(n),
                "maxArgumentBytes" => limits.max_argument_bytes = as_usize(n)?,
                "maxResultBytes" => limits.max_result_bytes = as_usize(n)?,
                "maxGatewayAnswerBytes" => limits.max_gateway_answer_bytes = as_usize(n)?,
                "maxGatewayCalls" => {
                    limits.max_gateway_calls_per_call = u32::try_from(n).map_err(|_| format!("{origin}.{key} is too large"))?
                }
                "maxLogBytes" => limits.max_log_bytes_per_call = as_usize(n)?,
                "tableElements" => limits.table_elements = u32::try_from(n).map_err(|_| format!("{origin}.{key} is too large"))?,
                "gatewaySeconds" => limits.gateway_time_per_call = Duration::from_secs(n),
                "maxJobsPerCall" => limits.max_jobs_per_call = u32::try_from(n).map_err(|_| format!("{origin}.{key} is too large"))?,
                "maxStepsPerJob" => limits.max_steps_per_job = u32::try_from(n).map_err(|_| format!("{origin}.{key} is too large"))?,
                "maxPendingJobs" => limits.max_pending_jobs = u32::try_from(n).map_err(|_| format!("{origin}.{key} is too large"))?,
                "maxWaitSeconds" => limits.max_wait = Duration::from_secs(n),
                other => return Err(format!("{origin}: unknown limit {other:?} (known: {})", KEYS.join(", "))),
            }
        }
        Ok(limits)
    }
}

/// Limits for every agent, with per-agent overrides.
#[derive(Debug, Clone, Default, PartialEq)]
#[non_exhaustive]
pub struct AgentLimits {
    /// The limits of every agent without its own.
    pub default: Limits,
    /// Agents with limits of their own, by agent id.
    pub agents: std::collections::HashMap<String, Limits>,
}

impl AgentLimits {
    /// The limits of an agent (its own, else the default).
    pub fn for_agent(&self, agent: &str) -> &Limits {
        self.agents.get(agent).unwrap_or(&self.default)
    }

    /// The largest memory any agent may have (the size of a pooled memory slot).
    pub fn max_memory(&self) -> usize {
        self.agents.values().map(|l| l.memory_bytes).fold(self.default.memory_bytes, usize::max)
    }

    /// Reads `{"default": {...}, "agents": {"<id>": {...}}}` over `base`.
    pub fn from_json(base: &Limits, text: &str, origin: &str) -> Result<AgentLimits, String> {
        let value: serde_json::Value = serde_json::from_str(text).map_err(|e| format!("{origin} is not valid JSON: {e}"))?;
        let object = value.as_object().ok_or_else(|| format!("{origin} must hold a JSON object"))?;
        if let Some(extra) = object.keys().find(|k| *k != "default" && *k != "agents") {
            return Err(format!("{origin}: unknown key {extra:?} (expected \"default\" and \"agents\")"));
        }
        let default = match object.get("default") {
            Some(overrides) => base.with_overrides(overrides, &format!("{origin}: default"))?,
            None => base.clone(),
        };
        let mut agents = std::collections::HashMap::new();
        if let Some(list) = object.get("agents") {
            let list = list.as_object().ok_or_else(|| format!("{origin}: agents must be an object of agent ids"))?;
            for (id, overrides) in list {
                let id = session_tools_grammar::keys::normalize_agent_id(id);
                agents.insert(id.clone(), default.with_overrides(overrides, &format!("{origin}: agents.{id}"))?);
            }
        }
        Ok(AgentLimits { default, agents })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn per_agent_overrides() {
        let limits = AgentLimits::from_json(
            &Limits::default(),
            r#"{"default": {"cpuMs": 200}, "agents": {"Ops": {"memoryMiB": 256}}}"#,
            "limits.json",
        )
        .unwrap();
        assert_eq!(limits.for_agent("main").cpu_per_call, Duration::from_millis(200));
        assert_eq!(limits.for_agent("ops").memory_bytes, 256 << 20);
        assert_eq!(limits.for_agent("ops").cpu_per_call, Duration::from_millis(200), "agents inherit the default");
        assert_eq!(limits.max_memory(), 256 << 20);
        let err = AgentLimits::from_json(&Limits::default(), r#"{"default": {"cpu": 1}}"#, "limits.json").unwrap_err();
        assert!(err.contains("unknown limit \"cpu\""), "{err}");
        let err = AgentLimits::from_json(&Limits::default(), r#"{"agents": {"x": {"cpuMs": -5}}}"#, "limits.json").unwrap_err();
        assert!(err.contains("agents.x.cpuMs must be a positive whole number"), "{err}");
    }
}
