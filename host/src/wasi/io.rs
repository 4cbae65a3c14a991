//! `wasi:io`: pollables that are always ready, a closed input stream (stdin), and the two
//! output streams, written straight to their [`Sink`](super::Sink).

use wasmtime::component::Resource;

use super::wasi::io::error::{self, Error};
use super::wasi::io::poll::{self, Pollable};
use super::wasi::io::streams::{self, InputStream, OutputStream};
use super::{StreamError, Wasi};

/// What one `check-write` permits, and so the most one `write` takes.
const WRITE_PERMIT: u64 = 64 * 1024;

/// The most `blocking-write-and-flush` takes, as `wasi:io/streams` says.
const BLOCKING_WRITE_MAX: u64 = 4096;

/// Output streams stand for stdout or stderr by their representation.
const STDOUT: u32 = 1;
const STDERR: u32 = 2;

pub(super) fn stdout() -> Resource<OutputStream> {
    Resource::new_own(STDOUT)
}

pub(super) fn stderr() -> Resource<OutputStream> {
    Resource::new_own(STDERR)
}

/// Stdin: a closed stream, which is nothing on the host.
pub(super) fn stdin() -> Resource<InputStream> {
    Resource::new_own(0)
}

/// A pollable that is ready, which is nothing on the host.
fn ready() -> Resource<Pollable> {
    Resource::new_own(0)
}

impl Wasi {
    /// Writes to the stream `stream` stands for; output without a sink is dropped.
    fn write_to(&self, stream: &Resource<OutputStream>, bytes: &[u8]) -> Result<(), StreamError> {
        let sink = match stream.rep() {
            STDOUT => &self.stdout,
            STDERR => &self.stderr,
            other => return Err(StreamError::Trap(wasmtime::format_err!("no output stream {other}"))),
        };
        if let Some(sink) = sink {
            sink.write(bytes);
        }
        Ok(())
    }
}

/// A guest that writes more than it was permitted breaks the stream's contract: a trap,
/// as `wasi:io/streams` says (and no host allocation of a size the guest chose).
fn within(len: u64, most: u64, what: &str) -> Result<usize, StreamError> {
    if len > most {
        return Err(StreamError::Trap(wasmtime::format_err!("{what} of {len} bytes, more than the {most} permitted")));
    }
    Ok(len as usize)
}

impl error::Host for Wasi {}

impl error::HostError for Wasi {
    /// No error is ever made (the streams fail only as closed), so none can be asked about.
    fn to_debug_string(&mut self, _error: Resource<Error>) -> wasmtime::Result<String> {
        Ok(String::new())
    }

    fn drop(&mut self, _error: Resource<Error>) -> wasmtime::Result<()> {
        Ok(())
    }
}

impl poll::Host for Wasi {
    fn poll(&mut self, pollables: Vec<Resource<Pollable>>) -> wasmtime::Result<Vec<u32>> {
        // An empty list traps, as `wasi:io/poll` says; otherwise all are ready.
        if pollables.is_empty() {
            wasmtime::bail!("poll of an empty list");
        }
        Ok((0..pollables.len() as u32).collect())
    }
}

impl poll::HostPollable for Wasi {
    fn ready(&mut self, _pollable: Resource<Pollable>) -> wasmtime::Result<bool> {
        Ok(true)
    }

    fn block(&mut self, _pollable: Resource<Pollable>) -> wasmtime::Result<()> {
        Ok(())
    }

    fn drop(&mut self, _pollable: Resource<Pollable>) -> wasmtime::Result<()> {
        Ok(())
    }
}

impl streams::Host for Wasi {
    fn convert_stream_error(&mut self, error: StreamError) -> wasmtime::Result<streams::StreamError> {
        match error {
            StreamError::Closed => Ok(streams::StreamError::Closed),
            StreamError::Trap(trap) => Err(trap),
        }
    }
}

impl streams::HostInputStream for Wasi {
    fn read(&mut self, _stream: Resource<InputStream>, _len: u64) -> Result<Vec<u8>, StreamError> {
        Err(StreamError::Closed)
    }

    fn blocking_read(&mut self, _stream: Resource<InputStream>, _len: u64) -> Result<Vec<u8>, StreamError> {
        Err(StreamError::Closed)
    }

    fn skip(&mut self, _stream: Resource<InputStream>, _len: u64) -> Result<u64, StreamError> {
        Err(StreamError::Closed)
    }

    fn blocking_skip(&mut self, _stream: Resource<InputStream>, _len: u64) -> Result<u64, StreamError> {
        Err(StreamError::Closed)
    }

    fn subscribe(&mut self, _stream: Resource<InputStream>) -> wasmtime::Result<Resource<Pollable>> {
        Ok(ready())
    }

    fn drop(&mut self, _stream: Resource<InputStream>) -> wasmtime::Result<()> {
        Ok(())
    }
}

impl streams::HostOutputStream for Wasi {
    fn check_write(&mut self, _stream: Resource<OutputStream>) -> Result<u64, StreamError> {
        Ok(WRITE_PERMIT)
    }

    fn write(&mut self, stream: Resource<OutputStream>, contents: Vec<u8>) -> Result<(), StreamError> {
        within(contents.len() as u64, WRITE_PERMIT, "a write")?;
        self.write_to(&stream, &contents)
    }

    fn blocking_write_and_flush(&mut self, stream: Resource<OutputStream>, contents: Vec<u8>) -> Result<(), StreamError> {
        within(contents.len() as u64, BLOCKING_WRITE_MAX, "a blocking write")?;
        self.write_to(&stream, &contents)
    }

    fn flush(&mut self, _stream: Resource<OutputStream>) -> Result<(), StreamError> {
        Ok(())
    }

    fn blocking_flush(&mut self, _stream: Resource<OutputStream>) -> Result<(), StreamError> {
        Ok(())
    }

    fn subscribe(&mut self, _stream: Resource<OutputStream>) -> wasmtime::Result<Resource<Pollable>> {
        Ok(ready())
    }

    fn write_zeroes(&mut self, stream: Resource<OutputStream>, len: u64) -> Result<(), StreamError> {
        let len = within(len, WRITE_PERMIT, "a write of zeroes")?;
        self.write_to(&stream, &vec![0; len])
    }

    fn blocking_write_zeroes_and_flush(&mut self, stream: Resource<OutputStream>, len: u64) -> Result<(), StreamError> {
        let len = within(len, BLOCKING_WRITE_MAX, "a blocking write of zeroes")?;
        self.write_to(&stream, &vec![0; len])
    }

    /// From stdin, the only input stream: closed.
    fn splice(&mut self, _stream: Resource<OutputStream>, _src: Resource<InputStream>, _len: u64) -> Result<u64, StreamError> {
        Err(StreamError::Closed)
    }

    fn blocking_splice(&mut self, _stream: Resource<OutputStream>, _src: Resource<InputStream>, _len: u64) -> Result<u64, StreamError> {
        Err(StreamError::Closed)
    }

    fn drop(&mut self, _stream: Resource<OutputStream>) -> wasmtime::Result<()> {
        Ok(())
    }
}
