//! The errors of opening and running the host. A tool call's own failures are a
//! [`CallError`](crate::CallError).

use std::path::PathBuf;

use crate::call_error::CallError;

/// What went wrong opening a service, a gateway or the component, or keeping jobs.
#[derive(Debug)]
#[non_exhaustive]
pub enum Error {
    /// The component could not be compiled, loaded or linked: what wasmtime (or the
    /// cache, or the composition) said, with its causes as the error's `source` chain.
    Component(Box<dyn std::error::Error + Send + Sync + 'static>),
    /// A config (a file, or a value given in code) is not valid: where it came from, and
    /// what is wrong with it.
    Config {
        /// The file, or what in the code gave the value.
        origin: String,
        /// What is wrong with it.
        message: String,
    },
    /// The state directory does not exist (and may not be created), or is not usable.
    StateDir {
        /// The directory.
        path: PathBuf,
        /// What is wrong with it.
        message: String,
    },
    /// A file could not be read or written.
    Io {
        /// What was being read or written.
        what: String,
        /// The system's error.
        source: std::io::Error,
    },
    /// An instance the service needs from the start (the send-policy one) could not be
    /// started or configured.
    Instance(CallError),
    /// A gateway could not be opened or reached.
    Gateway(String),
}

/// A result of the host library.
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Error::Component(_) => f.write_str("the component cannot be loaded"),
            Error::Config { origin, message } => write!(f, "{origin}: {message}"),
            Error::StateDir { path, message } => write!(f, "the state directory {} {message}", path.display()),
            Error::Io { what, source } => write!(f, "{what}: {source}"),
            Error::Instance(error) => write!(f, "the component cannot start: {error}"),
            Error::Gateway(message) => f.write_str(message),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Io { source, .. } => Some(source),
            Error::Instance(error) => Some(error),
            Error::Component(cause) => Some(cause.as_ref()),
            _ => None,
        }
    }
}

impl Error {
    pub(crate) fn io(what: impl Into<String>, source: std::io::Error) -> Error {
        Error::Io { what: what.into(), source }
    }
}
