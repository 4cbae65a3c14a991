//! `session-tools bench` (being written).

use anyhow::Result;

/// Options of `session-tools bench`.
#[derive(clap::Args, Debug, Clone)]
pub struct BenchArgs {}

pub fn run(_args: &BenchArgs) -> Result<i32> {
    anyhow::bail!("the benchmark is not written yet")
}
