//! The `session-tools` CLI, built inside the tests package (see Cargo.toml), with the
//! tests' fault points (`src/fault_points.rs`).

#![forbid(unsafe_code)]

use clap::Parser;

fn main() -> std::process::ExitCode {
    session_tools_tests::fault_points::install_from_env();
    session_tools_cli::exit_code(session_tools_cli::Cli::parse())
}
