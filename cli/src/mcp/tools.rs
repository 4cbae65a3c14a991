//! The component's tools as MCP tools: their descriptions as `describe()` gives them, and
//! a call's answer as an MCP result.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Condvar, Mutex};

use rmcp::model::{CallToolResult, ContentBlock, JsonObject, Tool, ToolAnnotations};
use serde_json::Value;
use session_tools_host::{CallCancel, CallError, Caller, Service};

/// The tools of one service.
pub struct Tools {
    service: Service,
    tools: Vec<Tool>,
    names: HashSet<String>,
    /// Calls in flight (a graceful stop lets them end), tasks' included.
    in_flight: (Mutex<usize>, Condvar),
    /// The calls of tasks running in this process.
    running: Running,
}

/// The task calls running in this process, by task id: what stops their waits.
#[derive(Default)]
pub struct Running {
    calls: Mutex<HashMap<String, CallCancel>>,
}

impl Running {
    pub fn start(&self, id: &str) -> CallCancel {
        let cancel = CallCancel::new();
        self.calls.lock().unwrap_or_else(|p| p.into_inner()).insert(id.to_string(), cancel.clone());
        cancel
    }

    pub fn end(&self, id: &str) {
        self.calls.lock().unwrap_or_else(|p| p.into_inner()).remove(id);
    }

    pub fn cancel(&self, id: &str) {
        if let Some(cancel) = self.calls.lock().unwrap_or_else(|p| p.into_inner()).get(id) {
            cancel.cancel();
        }
    }
}

/// One call counted in flight until dropped.
pub struct Counted(Arc<Tools>);

impl Drop for Counted {
    fn drop(&mut self) {
        self.0.end_call();
    }
}

impl Tools {
    /// Asks the component for its tools, once.
    pub fn new(service: Service) -> anyhow::Result<Tools> {
        let described = service.describe().map_err(|e| anyhow::anyhow!("describing the tools: {e}"))?;
        let mut tools = Vec::new();
        for d in described {
            // The input schema as the component gives it.
            let schema: JsonObject = match serde_json::from_str(&d.parameters) {
                Ok(Value::Object(schema)) => schema,
                _ => anyhow::bail!("the component's input schema of {} is not a JSON object", d.name),
            };
            let output: JsonObject = match serde_json::from_str(&d.result_schema) {
                Ok(Value::Object(schema)) => schema,
                _ => anyhow::bail!("the component's result schema of {} is not a JSON object", d.name),
            };
            // The hints as the component gives them, every one said out loud: MCP's defaults
            // for a missing hint are the cautious ones (destructive, open world).
            let hints = d.hints;
            let annotations = ToolAnnotations::with_title(d.title.clone())
                .read_only(hints.read_only)
                .destructive(hints.destructive)
                .idempotent(hints.idempotent)
                .open_world(hints.open_world);
            let tool = Tool::new(d.name, d.description, Arc::new(schema))
                .with_title(d.title)
                .with_raw_output_schema(Arc::new(output))
                .with_annotations(annotations);
            tools.push(tool);
        }
        let names = tools.iter().map(|t| t.name.to_string()).collect();
        Ok(Tools { service, tools, names, in_flight: (Mutex::new(0), Condvar::new()), running: Running::default() })
    }

    /// Waits until no call is in flight (each ends within its limits).
    pub fn wait_idle(&self) {
        let (count, ended) = &self.in_flight;
        let mut count = count.lock().unwrap_or_else(|p| p.into_inner());
        while *count > 0 {
            count = ended.wait(count).unwrap_or_else(|p| p.into_inner());
        }
    }

    /// The service the tools are called on.
    pub fn service(&self) -> &Service {
        &self.service
    }

    /// The calls of tasks running in this process.
    pub fn running(&self) -> &Running {
        &self.running
    }

    /// Counts a call in flight until the answer is dropped.
    pub fn counted(self: &Arc<Self>) -> Counted {
        *self.in_flight.0.lock().unwrap_or_else(|p| p.into_inner()) += 1;
        Counted(self.clone())
    }

    fn end_call(&self) {
        let mut count = self.in_flight.0.lock().unwrap_or_else(|p| p.into_inner());
        *count = count.saturating_sub(1);
        self.in_flight.1.notify_all();
    }

    pub fn list(&self) -> Vec<Tool> {
        self.tools.clone()
    }

    pub fn knows(&self, name: &str) -> bool {
        self.names.contains(name)
    }

    /// Calls a tool as `caller` in the caller's own instance (blocks while it runs); a
    /// wait for a run's end in it ends at `cancel`.
    pub fn call(&self, caller: &Caller, name: &str, arguments: Option<JsonObject>, cancel: &CallCancel) -> CallToolResult {
        let arguments = Value::Object(arguments.unwrap_or_default()).to_string();
        *self.in_flight.0.lock().unwrap_or_else(|p| p.into_inner()) += 1;
        let called = self.service.call_cancellable(caller, name, &arguments, Some(cancel));
        self.end_call();
        match called {
            Ok(result) => answer(result),
            Err(e) => {
                if !matches!(e, CallError::Tool(_)) {
                    tracing::warn!("{name} as {}: {e}", caller.agent_session_key.as_deref().unwrap_or("?"));
                }
                refusal(&e.to_string())
            }
        }
    }
}

/// A call that failed before its tool could answer, in the shape of a refusal, so that the
/// result satisfies the tool's output schema like every other (and is an error result).
pub fn refusal(message: &str) -> CallToolResult {
    answer(serde_json::json!({ "status": "error", "error": message }).to_string())
}

/// A tool's JSON result as an MCP result: the object as `structuredContent` and as text.
/// A refusal or failure the tool answers as its result (`"status": "forbidden"` or
/// `"error"`, with the message in `error`) is an error result (`isError: true`).
pub fn answer(result: String) -> CallToolResult {
    match serde_json::from_str::<Value>(&result) {
        Ok(Value::Object(object)) => {
            let refused = matches!(object.get("status").and_then(Value::as_str), Some("forbidden" | "error"));
            let mut answer = CallToolResult::success(vec![ContentBlock::text(result)]);
            answer.structured_content = Some(Value::Object(object));
            answer.is_error = Some(refused);
            answer
        }
        // The host checks that results are JSON; one that is not an object is text only.
        _ => CallToolResult::success(vec![ContentBlock::text(result)]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_carry_the_object_and_its_text() {
        let ok = answer(r#"{"count":1,"sessions":[]}"#.into());
        assert_eq!(ok.is_error, Some(false));
        assert_eq!(ok.structured_content.as_ref().unwrap()["count"], 1);
        assert_eq!(ok.content[0].as_text().unwrap().text, r#"{"count":1,"sessions":[]}"#);
        for status in ["forbidden", "error"] {
            let refused = answer(format!(r#"{{"status":"{status}","error":"no"}}"#));
            assert_eq!(refused.is_error, Some(true), "{status}");
            assert_eq!(refused.structured_content.unwrap()["error"], "no");
        }
        assert_eq!(answer(r#"{"status":"timeout"}"#.into()).is_error, Some(false));
        let bare = answer("[1]".into());
        assert!(bare.structured_content.is_none() && bare.is_error == Some(false));
    }
}
