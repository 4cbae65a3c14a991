//! `POST /tools/invoke` on a gateway on loopback: a tool called the way OpenClaw's HTTP API
//! exposes it (Bearer token, JSON body `{tool, args, sessionKey}`), for the benchmarks'
//! comparisons and the tests of what that surface offers. A minimal HTTP/1.1 client: one
//! request per connection (`Connection: close`), a body by `Content-Length`, chunks, or the
//! end of the stream.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::time::Duration;

use serde_json::{json, Value};

/// What the gateway answered: the HTTP status and the JSON body (`{ok, result}` or
/// `{ok: false, error: {type, message}}`).
#[derive(Debug, Clone)]
pub struct Invoked {
    pub status: u16,
    pub body: Value,
}

impl Invoked {
    /// The tool's own JSON result (`result.details`), when the call succeeded.
    pub fn details(&self) -> Option<&Value> {
        (self.status == 200 && self.body.get("ok") == Some(&Value::Bool(true)))
            .then(|| self.body.pointer("/result/details").unwrap_or(&Value::Null))
    }
}

/// Calls `tool` of the gateway on `port` as `session_key`; an error says what failed on the way.
pub fn invoke_tool(port: u16, token: &str, tool: &str, args: &Value, session_key: &str) -> Result<Invoked, String> {
    let io = |what: &'static str| move |e: std::io::Error| format!("POST /tools/invoke {tool} on port {port}: {what}: {e}");
    let body = json!({"tool": tool, "args": args, "sessionKey": session_key}).to_string();
    let mut stream = TcpStream::connect(("127.0.0.1", port)).map_err(io("connecting"))?;
    stream.set_read_timeout(Some(Duration::from_secs(3600))).map_err(io("setting a timeout"))?;
    let _ = stream.set_nodelay(true);
    write!(
        stream,
        "POST /tools/invoke HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nAuthorization: Bearer {token}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .map_err(io("sending"))?;
    let mut reader = BufReader::new(stream);
    let mut status_line = String::new();
    reader.read_line(&mut status_line).map_err(io("reading the status"))?;
    let status: u16 = status_line
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| format!("POST /tools/invoke {tool}: no HTTP status line ({status_line:?})"))?;
    let (mut length, mut chunked) = (None, false);
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).map_err(io("reading the headers"))? == 0 || line.trim().is_empty() {
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
            reader.read_line(&mut size).map_err(io("reading a chunk"))?;
            let size = usize::from_str_radix(size.trim().split(';').next().unwrap_or("0"), 16)
                .map_err(|_| format!("POST /tools/invoke {tool}: a bad chunk size {size:?}"))?;
            if size == 0 {
                break;
            }
            let start = body.len();
            body.resize(start + size, 0);
            reader.read_exact(&mut body[start..]).map_err(io("reading a chunk"))?;
            let mut crlf = [0u8; 2];
            reader.read_exact(&mut crlf).map_err(io("reading a chunk"))?;
        }
    } else if let Some(length) = length {
        body.resize(length, 0);
        reader.read_exact(&mut body).map_err(io("reading the body"))?;
    } else {
        reader.read_to_end(&mut body).map_err(io("reading the body"))?;
    }
    let body: Value = serde_json::from_slice(&body).map_err(|_| format!("POST /tools/invoke {tool}: HTTP {status}, not JSON"))?;
    Ok(Invoked { status, body })
}
