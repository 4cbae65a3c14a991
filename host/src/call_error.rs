//! How a call into the guest failed ([`CallError`]): the sandbox's answer, which the
//! library's [`Error`](crate::Error) carries, in a module of its own so that neither needs
//! the other's module (the sandbox reads the config, the config's errors are the crate's).
//! Its kinds and words are the rules every host shares (`session_tools_host_rules`): the
//! plugin's errors say the same, through the guard component.

pub use session_tools_host_rules::CallError;
