#![forbid(unsafe_code)]
use std::process::ExitCode;

use clap::Parser;
use session_tools_cli::{run, Cli};

fn main() -> ExitCode {
    match run(Cli::parse()) {
        Ok(code) => ExitCode::from(code.clamp(0, 255) as u8),
        Err(error) => {
            eprintln!("error: {error:#}");
            ExitCode::from(1)
        }
    }
}
