//! How the command line shows things: JSON, tables of sessions, transcripts.

use std::io::Write;

use anyhow::Result;
use serde_json::Value;
use session_tools_host::gateway::embedded::iso_time;
use session_tools_host::gateway::{SessionRow, TranscriptMessage};

pub fn print_json(value: &Value) -> Result<()> {
    let mut out = crate::out::Out;
    serde_json::to_writer_pretty(&mut out, value)?;
    writeln!(out)?;
    Ok(())
}

pub fn pretty(json: &str) -> String {
    serde_json::from_str::<Value>(json).and_then(|v| serde_json::to_string_pretty(&v)).unwrap_or_else(|_| json.to_string())
}

pub fn print_sessions(rows: &[SessionRow]) {
    if rows.is_empty() {
        crate::outln!("(no sessions)");
        return;
    }
    crate::outln!("{:<58} {:<7} {:<9} {:<24} {:<6} LABEL / NAME", "KEY", "KIND", "CHANNEL", "UPDATED", "POLICY");
    for r in rows {
        let updated = r.updated_at.map(|t| iso_time(t.max(0) as u64)).unwrap_or_default();
        let name = r.label.clone().or_else(|| r.display_name.clone()).unwrap_or_default();
        crate::outln!(
            "{:<58} {:<7} {:<9} {:<24} {:<6} {}",
            r.key,
            r.kind.as_deref().unwrap_or(""),
            r.channel.as_deref().or(r.last_channel.as_deref()).unwrap_or("-"),
            updated,
            r.send_policy.as_deref().unwrap_or("-"),
            name
        );
    }
}

/// The text of a message's content, for display.
pub fn message_text(message: &Value) -> String {
    match message.get("content") {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(items)) => items
            .iter()
            .map(|b| match b.get("type").and_then(Value::as_str) {
                Some("text") => b.get("text").and_then(Value::as_str).unwrap_or("").to_string(),
                Some("toolCall") => format!("[tool call {}]", b.get("name").and_then(Value::as_str).unwrap_or("?")),
                Some("thinking") => "[thinking]".to_string(),
                Some(other) => format!("[{other}]"),
                None => String::new(),
            })
            .collect::<Vec<_>>()
            .join(" "),
        _ => String::new(),
    }
}

pub fn print_history(messages: &[TranscriptMessage]) {
    if messages.is_empty() {
        crate::outln!("(no messages)");
    }
    for m in messages {
        let value: Value = serde_json::from_str(&m.json).unwrap_or(Value::Null);
        let role = m.role.as_deref().unwrap_or("?");
        let text = message_text(&value);
        let mut lines = text.lines();
        crate::outln!("{role:>10}: {}", lines.next().unwrap_or(""));
        for line in lines {
            crate::outln!("{:>10}  {line}", "");
        }
    }
}
