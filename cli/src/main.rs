#![forbid(unsafe_code)]
use std::process::ExitCode;

use clap::Parser;
use session_tools_cli::{exit_code, Cli};

fn main() -> ExitCode {
    exit_code(Cli::parse())
}
