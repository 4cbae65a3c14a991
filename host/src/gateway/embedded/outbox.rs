//! What the gateway delivered to channels with `send`: this gateway has no channel
//! connections, so deliveries are recorded in `<state>/session-tools/outbox.jsonl` (one
//! JSON object a line), where the CLI shows them. A repeated idempotency key is one
//! delivery. The file holds delivered message text: it is created 0600 and reached from
//! the state directory without following links ([`Confined`]).

use std::collections::HashSet;
use std::io::{Read, Write};
use std::sync::Mutex;

use serde_json::{json, Value};
use session_tools_guest::ports::{GatewayResult, SendParams};

use super::confined::Confined;
use super::{gw, known_channel, EmbeddedGateway};

pub struct Outbox {
    file: Confined,
    seen: Mutex<HashSet<String>>,
}

impl Outbox {
    pub fn open(file: Confined) -> std::io::Result<Outbox> {
        let seen =
            Outbox::read_file(&file)?.iter().filter_map(|d| d.get("idempotencyKey").and_then(Value::as_str).map(str::to_string)).collect();
        Ok(Outbox { file, seen: Mutex::new(seen) })
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

    /// Records a delivery (once per idempotency key).
    pub fn deliver(&self, params: &SendParams, now_ms: u64) -> std::io::Result<()> {
        let mut seen = self.seen.lock().unwrap_or_else(|p| p.into_inner());
        if seen.contains(&params.idempotency_key) {
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
        let mut file = self.file.open_append()?;
        file.write_all(format!("{line}\n").as_bytes())?;
        seen.insert(params.idempotency_key.clone());
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
        if p.to.trim().is_empty() {
            return Err(gw("invalid send params: at /to: must NOT have fewer than 1 characters"));
        }
        if p.message.is_empty() {
            return Err(gw("invalid send params: at /message: must NOT have fewer than 1 characters"));
        }
        if let Some(channel) = &p.channel {
            if !known_channel(channel) || channel.eq_ignore_ascii_case("webchat") {
                return Err(gw(format!("unsupported channel: {channel}")));
            }
        }
        self.outbox().deliver(p, self.now()).map_err(|e| gw(format!("recording the delivery: {e}")))
    }
}
