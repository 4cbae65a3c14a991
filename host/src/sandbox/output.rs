//! The guest's stdout and stderr: captured into a bounded buffer that the host drains
//! into its log after each call. Output past the bound is dropped (and counted), never
//! turned into a trap.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

#[derive(Default)]
struct Buffer {
    data: Vec<u8>,
    capacity: usize,
    dropped: usize,
}

impl Buffer {
    fn push(&mut self, bytes: &[u8]) {
        let room = self.capacity.saturating_sub(self.data.len());
        let kept = bytes.len().min(room);
        self.data.extend_from_slice(&bytes[..kept]);
        self.dropped += bytes.len() - kept;
    }
}

struct Shared {
    /// Something was written since the last take: most calls print nothing, and then a
    /// take costs one atomic load, not a lock (it runs after every call).
    written: AtomicBool,
    buffer: Mutex<Buffer>,
}

impl Shared {
    /// The capture; after a panic under its lock, what it held is dropped (its capacity
    /// stays).
    fn buffer(&self) -> std::sync::MutexGuard<'_, Buffer> {
        crate::poison::lock_or(&self.buffer, |old| Buffer { capacity: old.capacity, ..Buffer::default() })
    }
}

/// A bounded capture of one output stream.
#[derive(Clone)]
pub struct GuestOutput(Arc<Shared>);

impl GuestOutput {
    pub fn new(capacity: usize) -> Self {
        GuestOutput(Arc::new(Shared {
            written: AtomicBool::new(false),
            buffer: Mutex::new(Buffer { data: Vec::new(), capacity, dropped: 0 }),
        }))
    }

    /// Takes what was written since the last take, and how many bytes were dropped.
    pub fn take(&self) -> (String, usize) {
        if !self.0.written.swap(false, Ordering::Acquire) {
            return (String::new(), 0);
        }
        let mut buffer = self.0.buffer();
        let text = String::from_utf8_lossy(&buffer.data).into_owned();
        let dropped = buffer.dropped;
        buffer.data.clear();
        buffer.dropped = 0;
        (text, dropped)
    }

    fn push(&self, bytes: &[u8]) {
        self.0.buffer().push(bytes);
        self.0.written.store(true, Ordering::Release);
    }
}

impl crate::wasi::Sink for GuestOutput {
    fn write(&self, bytes: &[u8]) {
        self.push(bytes);
    }
}
