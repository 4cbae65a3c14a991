//! Background jobs (`jobs` in the WIT world): the work a tool call starts that goes on
//! after it returns. The guest owns each job's state; the host keeps jobs ([`store`]),
//! waits for what they wait for, and resumes them in an instance of their agent
//! ([`runner`]).

mod instance;
pub(crate) mod intent;
pub(crate) mod runner;
pub(crate) mod store;
pub(crate) mod tasks;

pub use runner::Scheduler;
pub use tasks::{TaskError, TaskRecord, TaskRun, TaskState, TASK_TTL};
