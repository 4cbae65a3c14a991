//! `POST /tools/invoke` on a gateway on loopback: OpenClaw's own session tools, called the
//! way its HTTP API exposes them (Bearer token, JSON body `{tool, args, sessionKey}`), for
//! the live benchmark's comparison. A minimal HTTP/1.1 client: one request per connection
//! (`Connection: close`), a body by `Content-Length`, chunks, or the end of the stream.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::time::Duration;

use anyhow::{bail, Context, Result};
use serde_json::{json, Value};

/// Calls one of the gateway's own tools; answers its `details` (the tool's JSON result).
pub fn invoke_tool(port: u16, token: &str, tool: &str, args: &Value, session_key: &str) -> Result<Value> {
    let body = json!({"tool": tool, "args": args, "sessionKey": session_key}).to_string();
    let mut stream = TcpStream::connect(("127.0.0.1", port)).with_context(|| format!("connecting to the gateway on port {port}"))?;
    stream.set_read_timeout(Some(Duration::from_secs(3600)))?;
    let _ = stream.set_nodelay(true);
    write!(
        stream,
        "POST /tools/invoke HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nAuthorization: Bearer {token}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )?;
    let mut reader = BufReader::new(stream);
    let mut status_line = String::new();
    reader.read_line(&mut status_line)?;
    let status: u16 = status_line.split_whitespace().nth(1).and_then(|s| s.parse().ok()).context("no HTTP status line")?;
    let (mut length, mut chunked) = (None, false);
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line)? == 0 || line.trim().is_empty() {
            break;
        }
        let Some((name, value)) = line.split_once(':') else { continue };
        match name.trim().to_ascii_lowercase().as_str() {
            "content-length" => length = value.trim().parse::<usize>().ok(),
            "transfer-encoding" => chunked = value.trim().eq_ignore_ascii_case("chunked"),
            _ => {}
        }
    }
    let mut body = Vec::new();
    if chunked {
        loop {
            let mut size = String::new();
            reader.read_line(&mut size)?;
            let size = usize::from_str_radix(size.trim().split(';').next().unwrap_or("0"), 16).context("a bad chunk size")?;
            if size == 0 {
                break;
            }
            let start = body.len();
            body.resize(start + size, 0);
            reader.read_exact(&mut body[start..])?;
            let mut crlf = [0u8; 2];
            reader.read_exact(&mut crlf)?;
        }
    } else if let Some(length) = length {
        body.resize(length, 0);
        reader.read_exact(&mut body)?;
    } else {
        reader.read_to_end(&mut body)?;
    }
    let value: Value = serde_json::from_slice(&body).with_context(|| format!("/tools/invoke {tool}: HTTP {status}, not JSON"))?;
    if status != 200 || value.get("ok") != Some(&Value::Bool(true)) {
        bail!("/tools/invoke {tool}: HTTP {status}: {value}");
    }
    Ok(value.pointer("/result/details").cloned().unwrap_or(Value::Null))
}
