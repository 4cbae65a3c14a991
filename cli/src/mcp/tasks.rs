//! Tasks (MCP's tasks extension, `io.modelcontextprotocol/tasks`, on 2026-07-28): a call
//! that starts long work — a `sessions_spawn`, or a `sessions_send` that waits for its
//! reply — from a client that declares the extension is answered at once with a task; the
//! call goes on in the background and the client reads its result with `tasks/get`.
//!
//! A task is kept by the job store (`session_tools_host::Service::open_task`): written
//! before its call does anything, answered before the call's intent is removed, so its
//! status and result are read after the server has been stopped and started again, and
//! reading them never makes anything again.
//!
//! A task is its caller's: the owner is a fingerprint of the request's bearer token (or of
//! the stdio caller's session key), never the token itself. Another caller's task is "not
//! found", exactly like one that never existed. A caller has at most [`MAX_OPEN_TASKS`]
//! tasks working at once.
//!
//! `tasks/cancel` ends the task cancelled at once, as a wait that timed out ends: the
//! call's wait for its reply stops, and what the call started goes on (the run completes,
//! its reply lands in the session's history, its announce is made).

use std::sync::Arc;
use std::time::Duration;

use rmcp::model::{
    CallToolResponse, CallToolResult, CreateTaskResult, DetailedTask, GetTaskResult, JsonObject, ProtocolVersion, Task, TaskPayload,
    TaskStatus,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer};
use serde_json::Value;
use session_tools_host::{Caller, TaskError, TaskRecord, TaskState, TASK_TTL};
use sha2::{Digest, Sha256};

use super::tools::{answer, refusal, Tools};

/// The most tasks one caller (a bearer token, or the stdio caller) may have working at
/// once: each holds an instance of its agent while its call runs (a waiting send, up to
/// its `timeoutSeconds`).
pub const MAX_OPEN_TASKS: usize = 8;

/// How often a client should ask (`pollIntervalMs`).
const POLL_INTERVAL: Duration = Duration::from_secs(1);

/// What becomes of a cancelled task's call, as its status message says.
const CANCELLED: &str = "cancelled by its caller: the call's wait for a reply ended at once; what the call started goes on \
     (a run completes and its reply lands in the session's history, as after a wait that timed out)";

/// Who owns a task, as kept: a fingerprint of the caller, never a secret in clear.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Owner(String);

impl Owner {
    /// The owner of an HTTP request's bearer token.
    pub fn of_token(token: &str) -> Owner {
        Owner::fingerprint("bearer", token)
    }

    /// The owner of the stdio caller (the server's `--as` session).
    pub fn of_stdio(caller: &Caller) -> Owner {
        Owner::fingerprint("stdio", caller.agent_session_key.as_deref().unwrap_or_default())
    }

    fn fingerprint(kind: &str, who: &str) -> Owner {
        let digest =
            Sha256::new().chain_update(b"session-tools task owner\0").chain_update(kind).chain_update(b"\0").chain_update(who).finalize();
        Owner(digest.iter().map(|b| format!("{b:02x}")).collect())
    }
}

/// Whether this call is made as a task: its tool starts long work (a spawn, or a send that
/// waits: `waits`), and the request is of a revision that has the extension and declares it.
pub fn wanted(context: &RequestContext<RoleServer>, tool: &str, waits: bool) -> bool {
    let long = tool == "sessions_spawn" || (tool == "sessions_send" && waits);
    long && modern(context) && context.client_capabilities().is_some_and(|caps| caps.supports_tasks())
}

/// Whether the request itself says a revision with the extension (the session revisions
/// have no such extension: a task is never given there).
pub fn modern(context: &RequestContext<RoleServer>) -> bool {
    context.meta.protocol_version().is_some_and(|v| v.as_str() >= ProtocolVersion::V_2026_07_28.as_str())
}

/// Opens a task for the call and starts it in the background; answers the task, or the
/// refusal of a caller at its cap (a tool error, as the call itself was not made).
pub async fn start(
    tools: &Arc<Tools>,
    owner: Owner,
    caller: Caller,
    name: String,
    arguments: Option<JsonObject>,
) -> Result<CallToolResponse, ErrorData> {
    let opening = tools.clone();
    let tool = name.clone();
    let opened = tokio::task::spawn_blocking(move || opening.service().open_task(&owner.0, &tool, MAX_OPEN_TASKS))
        .await
        .map_err(|e| ErrorData::internal_error(format!("opening the task did not finish: {e}"), None))?;
    let run = match opened {
        Ok(run) => run,
        Err(TaskError::TooMany { limit }) => {
            return Ok(refusal(&format!(
                "{name} was not made: {limit} tasks of this caller are still working, the most one caller may have; \
                 wait until one ends (tasks/get) or cancel one (tasks/cancel), then call again"
            ))
            .into())
        }
        Err(e) => return Err(ErrorData::internal_error(format!("the task could not be kept: {e}"), None)),
    };
    let record = run.record().clone();
    // Counted among the calls in flight from now, so a stop waits for it.
    let counted = tools.counted();
    let cancel = tools.running().start(&record.id);
    let runner = tools.clone();
    let id = record.id.clone();
    tokio::task::spawn_blocking(move || {
        let _counted = counted;
        let arguments = Value::Object(arguments.unwrap_or_default()).to_string();
        if let Err(e) = runner.service().run_task(run, &caller, &arguments, Some(&cancel)) {
            tracing::warn!("task {id} ({name}): {e}");
        }
        runner.running().end(&id);
    });
    Ok(CallToolResponse::Task(CreateTaskResult::new(task(&record))))
}

/// `tasks/get`: the owner's task as it stands, with its result once it has one.
pub async fn get(tools: &Arc<Tools>, owner: Owner, id: String) -> Result<GetTaskResult, ErrorData> {
    let reading = tools.clone();
    let record = tokio::task::spawn_blocking(move || reading.service().task(&owner.0, &id))
        .await
        .map_err(|e| ErrorData::internal_error(format!("reading the task did not finish: {e}"), None))?
        .map_err(refused)?;
    Ok(GetTaskResult::new(detailed(&record)))
}

/// `tasks/update`: no task of this server asks for input, so there is nothing to take;
/// the owner's task is acknowledged (the extension: responses to requests not outstanding
/// are ignored), another is not found.
pub async fn update(tools: &Arc<Tools>, owner: Owner, id: String) -> Result<(), ErrorData> {
    get(tools, owner, id).await.map(|_| ())
}

/// `tasks/cancel`: a working task of the owner ends cancelled and its call's wait ends
/// (see the module); a task that has ended stays as it is.
pub async fn cancel(tools: &Arc<Tools>, owner: Owner, id: String) -> Result<(), ErrorData> {
    let cancelling = tools.clone();
    let task_id = id.clone();
    let record = tokio::task::spawn_blocking(move || cancelling.service().cancel_task(&owner.0, &task_id, CANCELLED))
        .await
        .map_err(|e| ErrorData::internal_error(format!("cancelling the task did not finish: {e}"), None))?
        .map_err(refused)?;
    if matches!(record.state, TaskState::Cancelled { .. }) {
        tools.running().cancel(&id);
    }
    Ok(())
}

/// The extension's errors: an unknown task (or another caller's) is invalid params.
fn refused(error: TaskError) -> ErrorData {
    match error {
        TaskError::NotFound | TaskError::NotKept => ErrorData::invalid_params(
            format!("Failed to retrieve task: Task not found (a task is its caller's, and is kept {} hours)", TASK_TTL.as_secs() / 3600),
            None,
        ),
        other => ErrorData::internal_error(format!("the task store: {other}"), None),
    }
}

fn millis(duration: Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}

/// ISO 8601 of ms since the epoch.
fn iso(ms: u64) -> String {
    let ms = i64::try_from(ms).unwrap_or(i64::MAX);
    chrono::DateTime::from_timestamp_millis(ms).unwrap_or_default().to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

/// A task's metadata as the extension shows it.
fn task(record: &TaskRecord) -> Task {
    let status = match &record.state {
        TaskState::Working => TaskStatus::Working,
        TaskState::Answered { .. } | TaskState::Refused { .. } => TaskStatus::Completed,
        TaskState::Cancelled { .. } => TaskStatus::Cancelled,
        _ => TaskStatus::Failed,
    };
    let message = match &record.state {
        TaskState::Working => format!("{} is being made", record.tool),
        TaskState::Answered { .. } | TaskState::Refused { .. } => format!("{} answered", record.tool),
        TaskState::Cancelled { reason } | TaskState::Lost { reason } => reason.clone(),
        _ => String::new(),
    };
    Task::new(record.id.clone(), status, iso(record.created_ms), iso(record.updated_ms))
        .with_status_message(message)
        .with_ttl_ms(millis(TASK_TTL))
        .with_poll_interval_ms(millis(POLL_INTERVAL))
}

/// The task with its result (the same result the call would have answered) or its error.
fn detailed(record: &TaskRecord) -> DetailedTask {
    let payload = match &record.state {
        TaskState::Working => TaskPayload::Working,
        TaskState::Answered { answer: text } => TaskPayload::Completed { result: result_object(answer(text.clone())) },
        TaskState::Refused { error } => TaskPayload::Completed { result: result_object(refusal(error)) },
        TaskState::Cancelled { .. } => TaskPayload::Cancelled,
        TaskState::Lost { reason } => TaskPayload::Failed { error: internal_error(reason) },
        other => TaskPayload::Failed { error: internal_error(&format!("{other:?}")) },
    };
    DetailedTask::new(task(record), payload)
}

fn result_object(result: CallToolResult) -> JsonObject {
    match serde_json::to_value(result) {
        Ok(Value::Object(object)) => object,
        _ => JsonObject::new(),
    }
}

/// A JSON-RPC internal error (-32603) as the extension's `error` object.
fn internal_error(message: &str) -> JsonObject {
    let mut error = JsonObject::new();
    error.insert("code".into(), (-32603).into());
    error.insert("message".into(), message.into());
    error
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn owners_are_fingerprints_that_tell_callers_apart() {
        let token = "aaaaaaaaaaaaaaaaaaaaaaaa";
        let owner = Owner::of_token(token);
        assert_eq!(owner.0.len(), 64);
        assert!(!owner.0.contains(token));
        assert_eq!(owner, Owner::of_token(token));
        assert_ne!(owner, Owner::of_token("bbbbbbbbbbbbbbbbbbbbbbbb"));
        let stdio = |key: &str| Owner::of_stdio(&Caller { agent_session_key: Some(key.into()), ..Caller::default() });
        assert_eq!(stdio("agent:main:main"), stdio("agent:main:main"));
        assert_ne!(stdio("agent:main:main"), stdio("agent:ops:main"));
        // A token that spells a session key is not that stdio caller.
        assert_ne!(Owner::of_token("agent:main:main"), stdio("agent:main:main"));
    }

    #[test]
    fn times_are_iso_8601() {
        assert_eq!(iso(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(iso(1_769_418_001_120), "2026-01-26T09:00:01.120Z");
    }
}
