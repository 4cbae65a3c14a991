//! Standard output for the command line: a reader that closes it early (`… | head -3`)
//! ends the output quietly, not the process with a panic; the command itself finishes
//! (its writes and background work are not cut short).

use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};

/// Set once stdout's reader has gone away; later output is dropped.
static CLOSED: AtomicBool = AtomicBool::new(false);

/// Standard output that swallows a broken pipe.
pub struct Out;

impl Write for Out {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if CLOSED.load(Ordering::Relaxed) {
            return Ok(buf.len());
        }
        match std::io::stdout().lock().write(buf) {
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {
                CLOSED.store(true, Ordering::Relaxed);
                Ok(buf.len())
            }
            other => other,
        }
    }

    fn flush(&mut self) -> std::io::Result<()> {
        if CLOSED.load(Ordering::Relaxed) {
            return Ok(());
        }
        match std::io::stdout().lock().flush() {
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {
                CLOSED.store(true, Ordering::Relaxed);
                Ok(())
            }
            other => other,
        }
    }
}

/// `println!` to [`Out`]: a closed pipe is ignored; any other write error is reported on
/// stderr once.
#[macro_export]
macro_rules! outln {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        if let Err(e) = writeln!($crate::out::Out, $($arg)*) {
            eprintln!("error: writing to standard output: {e}");
        }
    }};
}
