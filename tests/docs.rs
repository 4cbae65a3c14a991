//! Docs that cannot rot: the repository's Markdown and code comments checked against the
//! repository itself, in the fast tier.
//!
//! - `links`: every relative link and anchor of every Markdown file resolves.
//! - `decision_codes`: every decision code cited anywhere is defined in `docs/decisions.md`,
//!   and the user pages cite none.
//! - `issue_numbers`: no code comment or page refers to an issue by its number.
//! - `cli_reference`: `docs/cli.md` is what the command line's definition generates.
//! - `library`: the example of `docs/library.md` compiles and runs.
//! - `runnable`: the shell blocks of the README and `docs/` run (the marking rules are in
//!   that module's header).

mod cli_reference;
mod decision_codes;
mod issue_numbers;
mod library;
mod links;
mod markdown;
mod runnable;
