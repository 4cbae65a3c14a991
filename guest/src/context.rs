//! What every tool and job runs with, shared by all of them (a leaf: it imports no tool):
//! the caller, the environment (gateway, host services, config), what a call answers, and
//! the background jobs a call or a job step starts.

use crate::config::Config;
use crate::ports::{Gateway, Host};

pub use crate::ports::calls::{Caller, Job, ToolError, ToolOutput, Wake, Wakeup};

/// What every tool and job runs against.
#[derive(Clone, Copy)]
pub struct Env<'a> {
    pub gw: &'a dyn Gateway,
    pub host: &'a dyn Host,
    pub cfg: &'a Config,
}
