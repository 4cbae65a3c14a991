//! The report on standard output: a reader that goes away early (`… | head`) ends the
//! output quietly; any other write error is the run's error.

use std::io::Write;

use anyhow::{Context, Result};

/// Writes `text` and a newline to stdout.
pub fn line(text: &str) -> Result<()> {
    let mut stdout = std::io::stdout().lock();
    match writeln!(stdout, "{text}").and_then(|()| stdout.flush()) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        other => other.context("writing to standard output"),
    }
}
