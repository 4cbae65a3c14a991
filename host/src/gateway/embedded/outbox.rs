//! What the gateway delivered to channels with `send`: this gateway has no channel
//! connections, so deliveries are recorded in `<state>/session-tools/outbox.jsonl` (one
//! JSON object a line), where the CLI shows them. The file holds delivered message text:
//! it is created 0600 and reached from the state directory without following links
//! ([`Confined`]).
//!
//! A repeated idempotency key is one delivery, across processes too (a flow
//! resumed after a stop sends its announce again with the same key): a delivery is checked
//! and appended under the outbox's OS lock, against every key of the file, which each
//! process reads once and then only from where it last read.

use std::collections::HashSet;
use std::io::{Read, Seek, SeekFrom, Write};
use std::sync::Mutex;

use serde_json::{json, Value};
use session_tools_contract::{GatewayResult, SendParams};
use session_tools_grammar::js::js_trim;

use super::confined::Confined;
use super::{gw, invalid, known_channel, EmbeddedGateway};
use crate::os_lock::OsLock;

pub struct Outbox {
    file: Confined,
    seen: Mutex<Seen>,
}

/// The keys of the file as far as this process has read it.
#[derive(Default)]
struct Seen {
    keys: HashSet<String>,
    /// The file read (its inode) and how far.
    file: Option<u64>,
    read_to: u64,
}

impl Outbox {
    /// The outbox at `file`; a link in its place (or on the way) is refused now, not at
    /// the first delivery. Its keys are read at the first delivery.
    pub fn open(file: Confined) -> std::io::Result<Outbox> {
        match file.open_read() {
            Ok(_) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(e),
        }
        Ok(Outbox { file, seen: Mutex::new(Seen::default()) })
    }

    fn read_file(file: &Confined) -> std::io::Result<Vec<Value>> {
        let text = file.open_read().and_then(|mut f| {
            let mut text = String::new();
            f.read_to_string(&mut text).map(|_| text)
        });
        match text {
            Ok(text) => Ok(text.lines().filter_map(|l| serde_json::from_str(l).ok()).collect()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Vec::new()),
            Err(e) => Err(e),
        }
    }

    /// Reads the lines written since this process last read (all of them when the file is
    /// another one than it read), noting their keys.
    fn catch_up(seen: &mut Seen, file: &mut std::fs::File) -> std::io::Result<()> {
        let meta = file.metadata()?;
        #[cfg(unix)]
        let inode = std::os::unix::fs::MetadataExt::ino(&meta);
        #[cfg(not(unix))]
        let inode = 0;
        if seen.file != Some(inode) || meta.len() < seen.read_to {
            *seen = Seen { file: Some(inode), ..Seen::default() };
        }
        file.seek(SeekFrom::Start(seen.read_to))?;
        let mut text = Vec::new();
        file.read_to_end(&mut text)?;
        // Only whole lines count (a line being written by a process that died is not one).
        let whole = text.iter().rposition(|b| *b == b'\n').map_or(0, |i| i + 1);
        for line in text[..whole].split(|b| *b == b'\n') {
            if let Ok(value) = serde_json::from_slice::<Value>(line) {
                if let Some(key) = value.get("idempotencyKey").and_then(Value::as_str) {
                    seen.keys.insert(key.to_string());
                }
            }
        }
        seen.read_to += whole as u64;
        Ok(())
    }

    /// Records a delivery (once per idempotency key, whichever process made it first).
    pub fn deliver(&self, params: &SendParams, now_ms: u64) -> std::io::Result<()> {
        let mut seen = crate::poison::lock_rebuilt(&self.seen);
        if seen.keys.contains(&params.idempotency_key) {
            return Ok(());
        }
        self.file.create_dirs()?;
        let _lock = OsLock::acquire(&self.file.path())?;
        let mut file = self.file.open_append()?;
        Self::catch_up(&mut seen, &mut file)?;
        if seen.keys.contains(&params.idempotency_key) {
            return Ok(());
        }
        let line = json!({
            "ts": now_ms,
            "channel": params.channel,
            "to": params.to,
            "accountId": params.account_id,
            "message": params.message,
            "idempotencyKey": params.idempotency_key,
        });
        let mut bytes = line.to_string().into_bytes();
        bytes.push(b'\n');
        // A line cut short by a process that died gets its line break first.
        let len = file.metadata()?.len();
        if len > seen.read_to {
            bytes.insert(0, b'\n');
        }
        file.write_all(&bytes)?;
        crate::faults::fault_point("outbox.written");
        seen.read_to = file.metadata()?.len();
        seen.keys.insert(params.idempotency_key.clone());
        Ok(())
    }

    /// Every delivery, oldest first.
    pub fn read_all(&self) -> std::io::Result<Vec<Value>> {
        Outbox::read_file(&self.file)
    }
}

impl EmbeddedGateway {
    /// `send`: checked as the real gateway checks it, then recorded in the outbox.
    pub(super) fn deliver(&self, p: &SendParams) -> GatewayResult<()> {
        if js_trim(&p.to).is_empty() {
            return Err(invalid("invalid send params: at /to: must NOT have fewer than 1 characters"));
        }
        if p.message.is_empty() {
            return Err(invalid("invalid send params: at /message: must NOT have fewer than 1 characters"));
        }
        if let Some(channel) = &p.channel {
            if !known_channel(channel) || channel.eq_ignore_ascii_case("webchat") {
                return Err(invalid(format!("unsupported channel: {channel}")));
            }
        }
        self.outbox().deliver(p, self.now()).map_err(|e| gw(format!("recording the delivery: {e}")))
    }
}
