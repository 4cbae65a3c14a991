//! Resource limits of a guest instance, configurable per agent: the built-in defaults, the
//! keys a limits file may set (with their units and bounds), and the one reader of such a
//! file, for every host. An error names the file (`origin`), the key and what
//! was wrong with it, in the same words in every host.

use std::collections::BTreeMap;
use std::time::Duration;

use serde::Serialize;
use serde_json::Value;

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

/// What a limit's value counts, and so how large it may be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unit {
    /// Mebibytes (of memory).
    MiB,
    /// Bytes.
    Bytes,
    /// A number of things.
    Count,
    /// Milliseconds.
    Milliseconds,
    /// Seconds.
    Seconds,
}

/// The longest time a limit may set: 24 days, under the 2^31 - 1 ms past which a Node
/// timer fires at once (the plugin's timers enforce these limits).
const MAX_DURATION_MS: u64 = 24 * 86_400_000;

impl Unit {
    /// The largest value, the same in every host whatever its word size: a 32-bit guest
    /// has less than 4 GiB of memory, so neither it nor what it reads or writes can be larger.
    pub fn max(self) -> u64 {
        match self {
            Unit::MiB => u64::from(u32::MAX) >> 20,
            Unit::Bytes | Unit::Count => u64::from(u32::MAX),
            Unit::Milliseconds => MAX_DURATION_MS,
            Unit::Seconds => MAX_DURATION_MS / 1000,
        }
    }
}

/// The keys of a limits override (in a limits file's `default` or an agent's entry), with
/// what their values count.
pub const KEYS: [(&str, Unit); 14] = [
    ("memoryMiB", Unit::MiB),
    ("cpuMs", Unit::Milliseconds),
    ("wallSeconds", Unit::Seconds),
    ("maxArgumentBytes", Unit::Bytes),
    ("maxResultBytes", Unit::Bytes),
    ("maxGatewayAnswerBytes", Unit::Bytes),
    ("maxGatewayCalls", Unit::Count),
    ("maxLogBytes", Unit::Bytes),
    ("tableElements", Unit::Count),
    ("gatewaySeconds", Unit::Seconds),
    ("maxJobsPerCall", Unit::Count),
    ("maxStepsPerJob", Unit::Count),
    ("maxPendingJobs", Unit::Count),
    ("maxWaitSeconds", Unit::Seconds),
];

impl Limits {
    /// These limits with the overrides of a JSON object applied (the keys of [`KEYS`], each
    /// a whole number from 1 to its unit's [`max`](Unit::max)); `origin` names it in errors.
    pub fn with_overrides(&self, overrides: &Value, origin: &str) -> Result<Limits, String> {
        let object = overrides.as_object().ok_or_else(|| format!("{origin} must be an object"))?;
        let mut limits = self.clone();
        for (key, value) in object {
            let Some(&(_, unit)) = KEYS.iter().find(|(name, _)| name == key) else {
                return Err(unknown(origin, key));
            };
            let n =
                value.as_u64().filter(|n| *n > 0).ok_or_else(|| format!("{origin}.{key} must be a positive whole number (got {value})"))?;
            let too_large = || format!("{origin}.{key} is too large (at most {})", unit.max());
            if n > unit.max() {
                return Err(too_large());
            }
            // Within its unit's bound, a value fits its field on every host (usize has at
            // least 32 bits).
            let size = || usize::try_from(n).map_err(|_| too_large());
            let count = || u32::try_from(n).map_err(|_| too_large());
            match key.as_str() {
                "memoryMiB" => limits.memory_bytes = size()? << 20,
                "cpuMs" => limits.cpu_per_call = Duration::from_millis(n),
                "wallSeconds" => limits.wall_per_call = Duration::from_secs(n),
                "maxArgumentBytes" => limits.max_argument_bytes = size()?,
                "maxResultBytes" => limits.max_result_bytes = size()?,
                "maxGatewayAnswerBytes" => limits.max_gateway_answer_bytes = size()?,
                "maxGatewayCalls" => limits.max_gateway_calls_per_call = count()?,
                "maxLogBytes" => limits.max_log_bytes_per_call = size()?,
                "tableElements" => limits.table_elements = count()?,
                "gatewaySeconds" => limits.gateway_time_per_call = Duration::from_secs(n),
                "maxJobsPerCall" => limits.max_jobs_per_call = count()?,
                "maxStepsPerJob" => limits.max_steps_per_job = count()?,
                "maxPendingJobs" => limits.max_pending_jobs = count()?,
                "maxWaitSeconds" => limits.max_wait = Duration::from_secs(n),
                _ => return Err(unknown(origin, key)),
            }
        }
        Ok(limits)
    }
}

/// The limits a limits file may set, in the whole units a host enforces them in (bytes,
/// milliseconds, counts): the `deployment` interface's `limits` record, and the field
/// names the plugin reads (camelCase, as jco names the record's fields).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
#[allow(missing_docs)] // the fields of `Limits` in whole units, as named there
pub struct LimitValues {
    pub memory_bytes: u64,
    pub cpu_ms: u64,
    pub wall_ms: u64,
    pub gateway_ms: u64,
    pub max_wait_ms: u64,
    pub max_argument_bytes: u64,
    pub max_result_bytes: u64,
    pub max_gateway_answer_bytes: u64,
    pub max_log_bytes: u64,
    pub max_gateway_calls: u32,
    pub table_elements: u32,
    pub max_jobs_per_call: u32,
    pub max_steps_per_job: u32,
    pub max_pending_jobs: u32,
}

/// A duration in whole milliseconds, however long.
fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

/// A size in bytes, however wide `usize` is.
fn bytes(n: usize) -> u64 {
    u64::try_from(n).unwrap_or(u64::MAX)
}

impl Limits {
    /// These limits as a host that is not this crate's reads them.
    pub fn values(&self) -> LimitValues {
        LimitValues {
            memory_bytes: bytes(self.memory_bytes),
            cpu_ms: millis(self.cpu_per_call),
            wall_ms: millis(self.wall_per_call),
            gateway_ms: millis(self.gateway_time_per_call),
            max_wait_ms: millis(self.max_wait),
            max_argument_bytes: bytes(self.max_argument_bytes),
            max_result_bytes: bytes(self.max_result_bytes),
            max_gateway_answer_bytes: bytes(self.max_gateway_answer_bytes),
            max_log_bytes: bytes(self.max_log_bytes_per_call),
            max_gateway_calls: self.max_gateway_calls_per_call,
            table_elements: self.table_elements,
            max_jobs_per_call: self.max_jobs_per_call,
            max_steps_per_job: self.max_steps_per_job,
            max_pending_jobs: self.max_pending_jobs,
        }
    }
}

fn unknown(origin: &str, key: &str) -> String {
    let known: Vec<&str> = KEYS.iter().map(|(name, _)| *name).collect();
    format!("{origin}: unknown limit {key:?} (known: {})", known.join(", "))
}

/// Limits for every agent, with per-agent overrides.
#[derive(Debug, Clone, Default, PartialEq)]
#[non_exhaustive]
pub struct AgentLimits {
    /// The limits of every agent without its own.
    pub default: Limits,
    /// Agents with limits of their own, by agent id (in a map without a random seed: the
    /// guard component that exports this reader imports no randomness).
    pub agents: BTreeMap<String, Limits>,
}

impl AgentLimits {
    /// Limits for every agent: `default`, and each agent's own.
    pub fn new(default: Limits, agents: BTreeMap<String, Limits>) -> AgentLimits {
        AgentLimits { default, agents }
    }

    /// The limits of an agent (its own, else the default).
    pub fn for_agent(&self, agent: &str) -> &Limits {
        self.agents.get(agent).unwrap_or(&self.default)
    }

    /// The largest memory any agent may have (the size of a pooled memory slot).
    pub fn max_memory(&self) -> usize {
        self.agents.values().map(|l| l.memory_bytes).fold(self.default.memory_bytes, usize::max)
    }

    /// Reads `{"default": {...}, "agents": {"<id>": {...}}}` (JSON text) over `base`: the
    /// default overrides apply to every agent, an agent's over them. Agent ids are
    /// normalised as the gateway does.
    pub fn from_json(base: &Limits, text: &str, origin: &str) -> Result<AgentLimits, String> {
        let value: Value = serde_json::from_str(text).map_err(|e| format!("{origin} is not valid JSON: {e}"))?;
        let object = value.as_object().ok_or_else(|| format!("{origin} must hold a JSON object"))?;
        if let Some(extra) = object.keys().find(|k| *k != "default" && *k != "agents") {
            return Err(format!("{origin}: unknown key {extra:?} (expected \"default\" and \"agents\")"));
        }
        let default = match object.get("default") {
            Some(overrides) => base.with_overrides(overrides, &format!("{origin}: default"))?,
            None => base.clone(),
        };
        let mut agents = BTreeMap::new();
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
    use serde_json::json;

    /// The cases both hosts read limits by (`tests/fixtures/limits-cases.json`; the plugin
    /// runs them through the guard component).
    #[test]
    fn the_shared_cases() {
        let file: Value = serde_json::from_str(include_str!("../../tests/fixtures/limits-cases.json")).unwrap();
        let cases = file["cases"].as_array().unwrap();
        assert!(cases.len() >= 20, "{} cases", cases.len());
        for case in cases {
            let name = case["name"].as_str().unwrap();
            let read = AgentLimits::from_json(&Limits::default(), case["text"].as_str().unwrap(), case["origin"].as_str().unwrap());
            match (&read, case.get("error")) {
                (Err(error), Some(expected)) => assert_eq!(error, expected.as_str().unwrap(), "{name}"),
                (Ok(limits), None) => {
                    let expect = &case["expect"];
                    let subset = |values: &LimitValues, expected: &Value, who: &str| {
                        let values = serde_json::to_value(values).unwrap();
                        for (field, value) in expected.as_object().unwrap() {
                            assert_eq!(&values[field], value, "{name}: {who}.{field}");
                        }
                    };
                    subset(&limits.default.values(), &expect["default"], "default");
                    let mut ids: Vec<&String> = limits.agents.keys().collect();
                    ids.sort();
                    let mut expected_ids: Vec<&String> = expect["agents"].as_object().unwrap().keys().collect();
                    expected_ids.sort();
                    assert_eq!(ids, expected_ids, "{name}: the agents");
                    for (id, expected) in expect["agents"].as_object().unwrap() {
                        subset(&limits.agents[id].values(), expected, id);
                    }
                }
                (read, _) => panic!("{name}: read {read:?}, expected {case}"),
            }
        }
    }

    #[test]
    fn every_key_sets_its_own_value() {
        let base = Limits::default().values();
        for (key, unit) in KEYS {
            let n = unit.max().min(3);
            let set = Limits::default().with_overrides(&json!({ key: n }), "limits").unwrap().values();
            let (base, set) = (serde_json::to_value(&base).unwrap(), serde_json::to_value(&set).unwrap());
            let changed: Vec<&String> = set.as_object().unwrap().iter().filter(|(f, v)| base[f.as_str()] != **v).map(|(f, _)| f).collect();
            assert_eq!(changed.len(), 1, "{key} changed {changed:?}");
        }
    }

    /// `wit/limits.schema.json` (the plugin manifests' `limits`, checked by the plugin's
    /// tests) says what this reader reads: its keys, and each one's bounds.
    #[test]
    fn the_schema_of_a_limits_file_is_this_reader() {
        let schema: Value = serde_json::from_str(include_str!("../../wit/limits.schema.json")).unwrap();
        for (place, overrides) in
            [("default", &schema["properties"]["default"]), ("agents.*", &schema["properties"]["agents"]["additionalProperties"])]
        {
            assert_eq!(overrides["additionalProperties"], json!(false), "{place}");
            let properties = overrides["properties"].as_object().unwrap();
            let mut listed: Vec<&str> = properties.keys().map(String::as_str).collect();
            let mut known: Vec<&str> = KEYS.iter().map(|(name, _)| *name).collect();
            listed.sort_unstable();
            known.sort_unstable();
            assert_eq!(listed, known, "{place}: the keys");
            for (key, unit) in KEYS {
                let property = &properties[key];
                assert_eq!((&property["type"], &property["minimum"]), (&json!("integer"), &json!(1)), "{place}.{key}");
                assert_eq!(property["maximum"], json!(unit.max()), "{place}.{key}: the bound");
            }
        }
        // Sorted: serde_json keeps a file's order when another crate of the build turns on
        // its `preserve_order`, and its own order otherwise.
        let mut top: Vec<&String> = schema["properties"].as_object().unwrap().keys().collect();
        top.sort_unstable();
        assert_eq!(top, ["agents", "default"]);
        assert_eq!(schema["additionalProperties"], json!(false));
    }

    #[test]
    fn the_largest_memory_is_the_pool_slot() {
        let limits = AgentLimits::from_json(&Limits::default(), r#"{"agents": {"ops": {"memoryMiB": 256}}}"#, "limits.json").unwrap();
        assert_eq!(limits.max_memory(), 256 << 20);
        assert_eq!(limits.for_agent("main"), &limits.default);
    }
}
