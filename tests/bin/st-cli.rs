//! The `session-tools` CLI, built inside the tests package (see Cargo.toml), with the
//! tests' fault points (`src/fault_points.rs`).

#![forbid(unsafe_code)]

use clap::Parser;

fn main() -> std::process::ExitCode {
    session_tools_tests::fault_points::install_from_env();
    match session_tools_cli::run(session_tools_cli::Cli::parse()) {
        Ok(code) => std::process::ExitCode::from(code.clamp(0, 255) as u8),
        Err(error) => {
            eprintln!("error: {error:#}");
            std::process::ExitCode::from(1)
        }
    }
}
