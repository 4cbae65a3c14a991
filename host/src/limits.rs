//! Resource limits of a guest instance, configurable per agent.

use std::time::Duration;

/// What one agent's instance may use.
#[derive(Debug, Clone, PartialEq)]
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
    /// Core instances, tables and memories an instance may create.
    pub instances: usize,
    pub tables: usize,
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
        }
    }
}
