//! The WASI a component is given: the host's own, synchronous answer to exactly the
//! interfaces `wasm32-wasip2` std's runtime imports (`wit/world.wit`), for the tools, the
//! guard and the gateway wire alike (one implementation, and no wasmtime-wasi or tokio).
//!
//! They grant nothing (N16): the environment, the arguments and the working directory are
//! empty, stdin is closed, no terminal is attached, every pollable is ready at once, and
//! `exit` ends the call with an error. Stdout and stderr go where the store says ([`Sink`]:
//! the sandbox's bounded capture into its log) or nowhere. The wire alone is also given
//! `insecure-seed` (the seed of std's hash maps). Files, sockets, clocks and random bytes
//! are not linked at all: a component importing them does not instantiate.
//!
//! No handle is kept on the host: a pollable or stdin stands for nothing, and an output
//! stream's representation says which stream it is, so a guest that makes many handles
//! costs the host no table.

mod cli;
mod io;

use std::sync::Arc;

use wasmtime::component::{HasData, Linker};

wasmtime::component::bindgen!({
    path: "src/wasi/wit",
    world: "std-runtime",
    imports: { default: trappable },
    trappable_error_type: {
        "wasi:io/streams.stream-error" => StreamError,
    },
});

/// Where a component's stdout or stderr goes.
pub(crate) trait Sink: Send + Sync {
    fn write(&self, bytes: &[u8]);
}

/// The WASI side of a store: where the component's output goes.
pub(crate) struct Wasi {
    stdout: Option<Arc<dyn Sink>>,
    stderr: Option<Arc<dyn Sink>>,
}

impl Wasi {
    /// Output goes nowhere (the wire: it reports its faults in its answers).
    #[cfg(any(feature = "live", test))]
    pub fn silent() -> Wasi {
        Wasi { stdout: None, stderr: None }
    }

    /// Stdout and stderr go to `stdout` and `stderr`.
    pub fn with_output(stdout: Arc<dyn Sink>, stderr: Arc<dyn Sink>) -> Wasi {
        Wasi { stdout: Some(stdout), stderr: Some(stderr) }
    }
}

/// An error of a stream operation: the stream is closed, or the guest broke the contract
/// (a trap).
pub(crate) enum StreamError {
    Closed,
    Trap(wasmtime::Error),
}

/// The WASI imports are given the store's [`Wasi`].
pub(crate) struct HasWasi;

impl HasData for HasWasi {
    type Data<'a> = &'a mut Wasi;
}

/// Links what std's runtime imports, except `insecure-seed`: what the tools and the guard
/// are given.
pub(crate) fn add_to_linker<T: 'static>(linker: &mut Linker<T>, get: fn(&mut T) -> &mut Wasi) -> wasmtime::Result<()> {
    use wasi::cli::{environment, exit, stderr, stdin, stdout, terminal_input, terminal_output};
    use wasi::cli::{terminal_stderr, terminal_stdin, terminal_stdout};
    use wasi::io::{error, poll, streams};

    error::add_to_linker::<T, HasWasi>(linker, get)?;
    poll::add_to_linker::<T, HasWasi>(linker, get)?;
    streams::add_to_linker::<T, HasWasi>(linker, get)?;
    environment::add_to_linker::<T, HasWasi>(linker, get)?;
    exit::add_to_linker::<T, HasWasi>(linker, get)?;
    stdin::add_to_linker::<T, HasWasi>(linker, get)?;
    stdout::add_to_linker::<T, HasWasi>(linker, get)?;
    stderr::add_to_linker::<T, HasWasi>(linker, get)?;
    terminal_input::add_to_linker::<T, HasWasi>(linker, get)?;
    terminal_output::add_to_linker::<T, HasWasi>(linker, get)?;
    terminal_stdin::add_to_linker::<T, HasWasi>(linker, get)?;
    terminal_stdout::add_to_linker::<T, HasWasi>(linker, get)?;
    terminal_stderr::add_to_linker::<T, HasWasi>(linker, get)?;
    Ok(())
}

/// Links `insecure-seed` too: the wire's std seeds its hash maps with it.
#[cfg(feature = "live")]
pub(crate) fn add_to_linker_with_seed<T: 'static>(linker: &mut Linker<T>, get: fn(&mut T) -> &mut Wasi) -> wasmtime::Result<()> {
    add_to_linker(linker, get)?;
    wasi::random::insecure_seed::add_to_linker::<T, HasWasi>(linker, get)
}

#[cfg(test)]
mod tests;
