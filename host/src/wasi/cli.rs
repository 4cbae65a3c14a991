//! `wasi:cli` and `wasi:random/insecure-seed`: an empty environment, no terminal, closed
//! stdin, the output streams, and `exit` as the end of the call.

use std::fmt;

use wasmtime::component::Resource;

use super::wasi::cli::terminal_input::{self, TerminalInput};
use super::wasi::cli::terminal_output::{self, TerminalOutput};
use super::wasi::cli::{environment, exit, stderr, stdin, stdout, terminal_stderr, terminal_stdin, terminal_stdout};
use super::wasi::io::streams::{InputStream, OutputStream};
use super::wasi::random::insecure_seed;
use super::{io, Wasi};

/// A component called `exit`: the call ends here, as with a trap (the instance is not
/// used again).
#[derive(Debug)]
pub(crate) struct Exit {
    code: u8,
}

impl fmt::Display for Exit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "the component exited (status {})", self.code)
    }
}

impl std::error::Error for Exit {}

impl environment::Host for Wasi {
    fn get_environment(&mut self) -> wasmtime::Result<Vec<(String, String)>> {
        Ok(Vec::new())
    }

    fn get_arguments(&mut self) -> wasmtime::Result<Vec<String>> {
        Ok(Vec::new())
    }

    fn initial_cwd(&mut self) -> wasmtime::Result<Option<String>> {
        Ok(None)
    }
}

impl exit::Host for Wasi {
    fn exit(&mut self, status: Result<(), ()>) -> wasmtime::Result<()> {
        Err(wasmtime::Error::new(Exit { code: u8::from(status.is_err()) }))
    }

    fn exit_with_code(&mut self, code: u8) -> wasmtime::Result<()> {
        Err(wasmtime::Error::new(Exit { code }))
    }
}

impl stdin::Host for Wasi {
    fn get_stdin(&mut self) -> wasmtime::Result<Resource<InputStream>> {
        Ok(io::stdin())
    }
}

impl stdout::Host for Wasi {
    fn get_stdout(&mut self) -> wasmtime::Result<Resource<OutputStream>> {
        Ok(io::stdout())
    }
}

impl stderr::Host for Wasi {
    fn get_stderr(&mut self) -> wasmtime::Result<Resource<OutputStream>> {
        Ok(io::stderr())
    }
}

// No terminal is attached, so no terminal handle is ever made.

impl terminal_input::Host for Wasi {}

impl terminal_input::HostTerminalInput for Wasi {
    fn drop(&mut self, _terminal: Resource<TerminalInput>) -> wasmtime::Result<()> {
        Ok(())
    }
}

impl terminal_output::Host for Wasi {}

impl terminal_output::HostTerminalOutput for Wasi {
    fn drop(&mut self, _terminal: Resource<TerminalOutput>) -> wasmtime::Result<()> {
        Ok(())
    }
}

impl terminal_stdin::Host for Wasi {
    fn get_terminal_stdin(&mut self) -> wasmtime::Result<Option<Resource<TerminalInput>>> {
        Ok(None)
    }
}

impl terminal_stdout::Host for Wasi {
    fn get_terminal_stdout(&mut self) -> wasmtime::Result<Option<Resource<TerminalOutput>>> {
        Ok(None)
    }
}

impl terminal_stderr::Host for Wasi {
    fn get_terminal_stderr(&mut self) -> wasmtime::Result<Option<Resource<TerminalOutput>>> {
        Ok(None)
    }
}

impl insecure_seed::Host for Wasi {
    /// From std's own per-process random keys (drawn from the OS once): unpredictable to the
    /// component, which is all a hash seed needs, and no dependency for it.
    fn insecure_seed(&mut self) -> wasmtime::Result<(u64, u64)> {
        use std::hash::BuildHasher;
        let keys = std::collections::hash_map::RandomState::new();
        Ok((keys.hash_one(0u8), keys.hash_one(1u8)))
    }
}
