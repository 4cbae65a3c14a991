//! `session-tools completions SHELL`: a completion script for the shell, from the command
//! line's own definition (`clap_complete`).

use anyhow::Result;
use clap::{CommandFactory, ValueEnum};

/// The shells a completion script is made for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Shell {
    /// Bash.
    Bash,
    /// Zsh.
    Zsh,
    /// Fish.
    Fish,
    /// PowerShell.
    Powershell,
}

pub fn print(shell: Shell) -> Result<i32> {
    let shell = match shell {
        Shell::Bash => clap_complete::Shell::Bash,
        Shell::Zsh => clap_complete::Shell::Zsh,
        Shell::Fish => clap_complete::Shell::Fish,
        Shell::Powershell => clap_complete::Shell::PowerShell,
    };
    let mut command = crate::Cli::command();
    clap_complete::generate(shell, &mut command, "session-tools", &mut crate::out::Out);
    Ok(0)
}
