//! A scripted OpenAI-compatible model server on 127.0.0.1, for agent runs of the real
//! gateway: `POST /v1/chat/completions`, streamed (server-sent events) or not.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{Ipv4Addr, Shutdown, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

use serde_json::{json, Value};

/// A tool call in a request's history (an assistant message's `tool_calls`).
#[derive(Debug, Clone, PartialEq)]
pub struct ToolCall {
    pub id: String,
    pub name: String,
    /// The arguments as the JSON text the model sent.
    pub arguments: String,
}

/// One message of a request.
#[derive(Debug, Clone, PartialEq)]
pub struct ModelMessage {
    /// `system`, `developer`, `user`, `assistant` or `tool`.
    pub role: String,
    /// The text content (text parts joined with newlines).
    pub text: String,
    /// An assistant message's tool calls.
    pub tool_calls: Vec<ToolCall>,
    /// A `tool` message's call id (its text is the tool's result).
    pub tool_call_id: Option<String>,
}

/// How today's gateway marks the `user` message of its own context that it appends after
/// the conversation (seen in 2026.9.6's requests to the mock model).
const GATEWAY_CONTEXT: &str = "<<<BEGIN_OPENCLAW_INTERNAL_CONTEXT>>>";

impl ModelMessage {
    /// Whether this is the `user` message of today's gateway's own context (2026.9 appends
    /// one to every request), not a message of the conversation.
    pub fn is_gateway_context(&self) -> bool {
        self.role == "user" && self.text.trim_start().starts_with(GATEWAY_CONTEXT)
    }

    /// Whether this is a message of the conversation's user.
    pub fn is_from_user(&self) -> bool {
        self.role == "user" && !self.is_gateway_context()
    }
}

/// A tool offered to the model.
#[derive(Debug, Clone, PartialEq)]
pub struct ModelTool {
    pub name: String,
    pub description: String,
    /// The JSON schema of the arguments.
    pub parameters: Value,
}

/// One request the gateway made.
#[derive(Debug, Clone)]
pub struct ModelRequest {
    /// The model id asked for.
    pub model: String,
    pub stream: bool,
    pub messages: Vec<ModelMessage>,
    pub tools: Vec<ModelTool>,
    /// The whole request body.
    pub body: Value,
}

impl ModelRequest {
    fn parse(body: Value) -> ModelRequest {
        let text_of = |content: &Value| -> String {
            match content {
                Value::String(s) => s.clone(),
                Value::Array(parts) => parts
                    .iter()
                    .filter_map(|p| if p["type"] == "text" { p["text"].as_str() } else { p.as_str() })
                    .collect::<Vec<_>>()
                    .join("\n"),
                _ => String::new(),
            }
        };
        let messages = body["messages"]
            .as_array()
            .map(|messages| {
                messages
                    .iter()
                    .map(|m| ModelMessage {
                        role: m["role"].as_str().unwrap_or_default().to_string(),
                        text: text_of(&m["content"]),
                        tool_calls: m["tool_calls"]
                            .as_array()
                            .map(|calls| {
                                calls
                                    .iter()
                                    .map(|c| ToolCall {
                                        id: c["id"].as_str().unwrap_or_default().to_string(),
                                        name: c["function"]["name"].as_str().unwrap_or_default().to_string(),
                                        arguments: c["function"]["arguments"].as_str().unwrap_or_default().to_string(),
                                    })
                                    .collect()
                            })
                            .unwrap_or_default(),
                        tool_call_id: m["tool_call_id"].as_str().map(str::to_string),
                    })
                    .collect()
            })
            .unwrap_or_default();
        let tools = body["tools"]
            .as_array()
            .map(|tools| {
                tools
                    .iter()
                    .map(|t| {
                        let f = if t.get("function").is_some() { &t["function"] } else { t };
                        ModelTool {
                            name: f["name"].as_str().unwrap_or_default().to_string(),
                            description: f["description"].as_str().unwrap_or_default().to_string(),
                            parameters: f["parameters"].clone(),
                        }
                    })
                    .collect()
            })
            .unwrap_or_default();
        ModelRequest {
            model: body["model"].as_str().unwrap_or_default().to_string(),
            stream: body["stream"].as_bool().unwrap_or(false),
            messages,
            tools,
            body,
        }
    }

    /// The names of the tools offered.
    pub fn tool_names(&self) -> Vec<&str> {
        self.tools.iter().map(|t| t.name.as_str()).collect()
    }

    /// Whether a tool of that name was offered.
    pub fn offers_tool(&self, name: &str) -> bool {
        self.tools.iter().any(|t| t.name == name)
    }

    /// The system prompt (first `system`/`developer` message).
    pub fn system_prompt(&self) -> Option<&str> {
        self.messages.iter().find(|m| m.role == "system" || m.role == "developer").map(|m| m.text.as_str())
    }

    /// The text of the last `user` message (not counting today's gateway's own context,
    /// [`ModelMessage::is_gateway_context`]).
    pub fn last_user_text(&self) -> Option<&str> {
        self.messages.iter().rev().find(|m| m.is_from_user()).map(|m| m.text.as_str())
    }

    /// The tool results in the request, as (tool call id, result text).
    pub fn tool_results(&self) -> Vec<(&str, &str)> {
        self.messages.iter().filter(|m| m.role == "tool").map(|m| (m.tool_call_id.as_deref().unwrap_or(""), m.text.as_str())).collect()
    }

    /// The tool results after the last user message: what the previous reply's calls gave.
    pub fn new_tool_results(&self) -> Vec<(&str, &str)> {
        let start = self.messages.iter().rposition(ModelMessage::is_from_user).map_or(0, |i| i + 1);
        self.messages[start..]
            .iter()
            .filter(|m| m.role == "tool")
            .map(|m| (m.tool_call_id.as_deref().unwrap_or(""), m.text.as_str()))
            .collect()
    }

    /// The tool call (from the history) with that id.
    pub fn tool_call(&self, id: &str) -> Option<&ToolCall> {
        self.messages.iter().flat_map(|m| &m.tool_calls).find(|c| c.id == id)
    }
}

/// What the model answers.
#[derive(Debug, Clone, PartialEq)]
pub enum ModelReply {
    /// A text answer (`finish_reason: "stop"`).
    Text(String),
    /// Tool calls (name, arguments as JSON text) (`finish_reason: "tool_calls"`).
    ToolCalls(Vec<(String, String)>),
    /// An HTTP error with an OpenAI-style error body.
    Error { status: u16, message: String },
}

type Script = dyn Fn(&ModelRequest) -> ModelReply + Send + Sync;

struct Shared {
    script: Box<Script>,
    requests: Mutex<Vec<ModelRequest>>,
    calls: AtomicU64,
}

/// The server; stopped on drop.
pub struct MockModel {
    port: u16,
    shared: Arc<Shared>,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl std::fmt::Debug for MockModel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MockModel").field("port", &self.port).finish()
    }
}

impl MockModel {
    /// Starts the server on a free port of 127.0.0.1; `script` answers each chat request
    /// (it runs on the connection's thread; a panic in it answers HTTP 500).
    pub fn start(script: impl Fn(&ModelRequest) -> ModelReply + Send + Sync + 'static) -> Result<MockModel, String> {
        let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).map_err(|e| format!("mock model: cannot bind 127.0.0.1: {e}"))?;
        let port = listener.local_addr().map_err(|e| e.to_string())?.port();
        let shared = Arc::new(Shared { script: Box::new(script), requests: Mutex::new(Vec::new()), calls: AtomicU64::new(0) });
        let stop = Arc::new(AtomicBool::new(false));
        let thread = {
            let shared = shared.clone();
            let stop = stop.clone();
            std::thread::Builder::new()
                .name(format!("mock-model-{port}"))
                .spawn(move || {
                    for stream in listener.incoming() {
                        if stop.load(Ordering::SeqCst) {
                            break;
                        }
                        let Ok(stream) = stream else { continue };
                        let shared = shared.clone();
                        let _ = std::thread::Builder::new().name("mock-model-conn".into()).spawn(move || {
                            if let Err(e) = serve(stream, &shared) {
                                eprintln!("[mock model] connection error: {e}");
                            }
                        });
                    }
                })
                .map_err(|e| format!("mock model: cannot start its thread: {e}"))?
        };
        Ok(MockModel { port, shared, stop, thread: Some(thread) })
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    /// `http://127.0.0.1:<port>/v1`.
    pub fn base_url(&self) -> String {
        format!("http://127.0.0.1:{}/v1", self.port)
    }

    /// Every chat request so far, oldest first.
    pub fn requests(&self) -> Vec<ModelRequest> {
        self.shared.requests.lock().unwrap_or_else(std::sync::PoisonError::into_inner).clone()
    }

    /// The config fragment that makes a gateway use this server as provider
    /// `provider_name`, model `model_id`, for every agent (merge it into
    /// [`GatewayOptions::extra_config`](super::GatewayOptions::extra_config)).
    pub fn model_config(&self, provider_name: &str, model_id: &str) -> Value {
        json!({
            "models": {
                "mode": "merge",
                "providers": {
                    provider_name: {
                        "baseUrl": self.base_url(),
                        "apiKey": "mock-model-key",
                        "api": "openai-completions",
                        "models": [{
                            "id": model_id,
                            "name": model_id,
                            "reasoning": false,
                            "input": ["text"],
                            "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0},
                            "contextWindow": 200000,
                            "maxTokens": 8192,
                        }],
                    },
                },
            },
            "agents": {"defaults": {"model": {"primary": format!("{provider_name}/{model_id}")}}},
        })
    }
}

impl Drop for MockModel {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        // Wake the accept loop.
        let _ = TcpStream::connect_timeout(&(Ipv4Addr::LOCALHOST, self.port).into(), Duration::from_secs(1));
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

struct HttpRequest {
    method: String,
    path: String,
    body: Vec<u8>,
}

fn read_request(reader: &mut BufReader<TcpStream>) -> std::io::Result<Option<HttpRequest>> {
    let mut line = String::new();
    if reader.read_line(&mut line)? == 0 {
        return Ok(None);
    }
    let mut parts = line.split_whitespace();
    let method = parts.next().unwrap_or_default().to_string();
    let path = parts.next().unwrap_or_default().to_string();
    let mut length = 0usize;
    let mut chunked = false;
    loop {
        let mut header = String::new();
        if reader.read_line(&mut header)? == 0 || header.trim().is_empty() {
            break;
        }
        if let Some((name, value)) = header.split_once(':') {
            let (name, value) = (name.trim().to_ascii_lowercase(), value.trim());
            if name == "content-length" {
                length = value.parse().unwrap_or(0);
            } else if name == "transfer-encoding" && value.to_ascii_lowercase().contains("chunked") {
                chunked = true;
            }
        }
    }
    let mut body = Vec::new();
    if chunked {
        loop {
            let mut size = String::new();
            reader.read_line(&mut size)?;
            let size = usize::from_str_radix(size.trim().split(';').next().unwrap_or("0"), 16).unwrap_or(0);
            let mut chunk = vec![0; size + 2];
            reader.read_exact(&mut chunk)?;
            if size == 0 {
                break;
            }
            body.extend_from_slice(&chunk[..size]);
        }
    } else {
        body.resize(length, 0);
        reader.read_exact(&mut body)?;
    }
    Ok(Some(HttpRequest { method, path, body }))
}

fn respond(stream: &mut TcpStream, status: u16, content_type: &str, body: &str) -> std::io::Result<()> {
    let reason = match status {
        200 => "OK",
        400 => "Bad Request",
        404 => "Not Found",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        _ => "Status",
    };
    write!(
        stream,
        "HTTP/1.1 {status} {reason}\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )?;
    stream.flush()
}

/// Serves one connection: one request, answered with `Connection: close`.
fn serve(stream: TcpStream, shared: &Shared) -> std::io::Result<()> {
    stream.set_read_timeout(Some(Duration::from_secs(60)))?;
    let mut writer = stream.try_clone()?;
    let mut reader = BufReader::new(stream);
    let Some(request) = read_request(&mut reader)? else { return Ok(()) };
    let path = request.path.split('?').next().unwrap_or_default();
    if request.method == "GET" && path.ends_with("/models") {
        let body = json!({"object": "list", "data": []}).to_string();
        respond(&mut writer, 200, "application/json", &body)?;
    } else if request.method == "POST" && path.ends_with("/chat/completions") {
        let body: Value = match serde_json::from_slice(&request.body) {
            Ok(body) => body,
            Err(e) => {
                let body = json!({"error": {"message": format!("mock model: body is not JSON: {e}"), "type": "invalid_request_error"}});
                return respond(&mut writer, 400, "application/json", &body.to_string());
            }
        };
        let parsed = ModelRequest::parse(body);
        let include_usage = parsed.body["stream_options"]["include_usage"].as_bool().unwrap_or(false);
        let reply = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| (shared.script)(&parsed)))
            .unwrap_or_else(|_| ModelReply::Error { status: 500, message: "the mock model's script panicked".into() });
        let stream_reply = parsed.stream;
        let model = parsed.model.clone();
        shared.requests.lock().unwrap_or_else(std::sync::PoisonError::into_inner).push(parsed);
        let n = shared.calls.fetch_add(1, Ordering::SeqCst) + 1;
        answer(&mut writer, &reply, stream_reply, include_usage, &model, n)?;
    } else {
        let body =
            json!({"error": {"message": format!("mock model: no route for {} {}", request.method, request.path), "type": "not_found"}});
        respond(&mut writer, 404, "application/json", &body.to_string())?;
    }
    let _ = writer.shutdown(Shutdown::Both);
    Ok(())
}

fn answer(stream: &mut TcpStream, reply: &ModelReply, streamed: bool, include_usage: bool, model: &str, n: u64) -> std::io::Result<()> {
    let id = format!("chatcmpl-mock-{n}");
    let created = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs());
    let usage = json!({"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15});
    let calls: Vec<Value> = match reply {
        ModelReply::ToolCalls(calls) => calls
            .iter()
            .enumerate()
            .map(|(i, (name, arguments))| {
                json!({"index": i, "id": format!("call_mock_{n}_{i}"), "type": "function", "function": {"name": name, "arguments": arguments}})
            })
            .collect(),
        _ => Vec::new(),
    };
    let (text, finish) = match reply {
        ModelReply::Text(text) => (Some(text.as_str()), "stop"),
        ModelReply::ToolCalls(_) => (None, "tool_calls"),
        ModelReply::Error { status, message } => {
            let body = json!({"error": {"message": message, "type": "mock_error", "code": status}});
            return respond(stream, *status, "application/json", &body.to_string());
        }
    };
    if !streamed {
        let mut message = json!({"role": "assistant", "content": text});
        if !calls.is_empty() {
            // `index` belongs to streamed deltas only.
            let calls: Vec<Value> = calls
                .into_iter()
                .map(|mut c| {
                    c.as_object_mut().map(|o| o.remove("index"));
                    c
                })
                .collect();
            message["tool_calls"] = Value::from(calls);
        }
        let body = json!({
            "id": id, "object": "chat.completion", "created": created, "model": model,
            "choices": [{"index": 0, "message": message, "finish_reason": finish}],
            "usage": usage,
        });
        return respond(stream, 200, "application/json", &body.to_string());
    }
    write!(stream, "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\nConnection: close\r\n\r\n")?;
    let chunk =
        |choices: Value| json!({"id": id, "object": "chat.completion.chunk", "created": created, "model": model, "choices": choices});
    let mut events = vec![chunk(json!([{"index": 0, "delta": {"role": "assistant", "content": ""}, "finish_reason": null}]))];
    if let Some(text) = text {
        events.push(chunk(json!([{"index": 0, "delta": {"content": text}, "finish_reason": null}])));
    }
    for call in calls {
        events.push(chunk(json!([{"index": 0, "delta": {"tool_calls": [call]}, "finish_reason": null}])));
    }
    events.push(chunk(json!([{"index": 0, "delta": {}, "finish_reason": finish}])));
    if include_usage {
        let mut last = chunk(json!([]));
        last["usage"] = usage;
        events.push(last);
    }
    for event in events {
        write!(stream, "data: {event}\n\n")?;
    }
    write!(stream, "data: [DONE]\n\n")?;
    stream.flush()
}
