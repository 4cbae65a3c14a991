//! Conversions between the contract's records and the records a WIT bindings generator
//! makes of the `types` interface (wit-bindgen in a component, wasmtime's `bindgen!` in a
//! host): written once, as the macro [`wit_records!`](crate::wit_records), which a crate
//! invokes with the path of its generated `types` module. Both generators give every record
//! the same fields and every variant the same cases, so one body serves them all.

/// A record of a generated `types` module made into the contract's.
pub trait FromWit<W> {
    fn from_wit(wit: W) -> Self;
}

/// The contract's record made into a generated `types` module's.
pub trait IntoWit<W> {
    fn into_wit(self) -> W;
}

/// Both directions of a record whose fields carry over as they are (for [`wit_records!`]).
#[doc(hidden)]
#[macro_export]
macro_rules! __wit_plain {
    ($w:ident, $c:ident, $name:ident { $($field:ident),* $(,)? }) => {
        $crate::__wit_plain!($w, $c, $name => $name { $($field),* });
    };
    ($w:ident, $c:ident, $wname:ident => $name:ident { $($field:ident),* $(,)? }) => {
        impl $crate::wit::FromWit<$w::$wname> for $c::$name {
            fn from_wit(r: $w::$wname) -> $c::$name {
                $c::$name { $($field: r.$field),* }
            }
        }
        impl $crate::wit::IntoWit<$w::$wname> for $c::$name {
            fn into_wit(self) -> $w::$wname {
                $w::$wname { $($field: self.$field),* }
            }
        }
    };
}

/// Both directions of an enum whose cases carry nothing (for [`wit_records!`] and
/// [`wit_calls!`]).
#[doc(hidden)]
#[macro_export]
macro_rules! __wit_cases {
    ($w:ident, $c:ident, $name:ident { $($case:ident),* $(,)? }) => {
        impl $crate::wit::FromWit<$w::$name> for $c::$name {
            fn from_wit(r: $w::$name) -> $c::$name {
                match r {
                    $($w::$name::$case => $c::$name::$case),*
                }
            }
        }
        impl $crate::wit::IntoWit<$w::$name> for $c::$name {
            fn into_wit(self) -> $w::$name {
                match self {
                    $($c::$name::$case => $w::$name::$case),*
                }
            }
        }
    };
}

/// Implements [`FromWit`] and [`IntoWit`] between the contract's records and those of the
/// generated `types` module at the given path (written from the crate root, e.g.
/// `wit_records!(crate::bindings::openclaw::session_tools::types)`).
#[macro_export]
macro_rules! wit_records {
    ($($types:tt)*) => {
        #[allow(unused_imports, clippy::all)]
        const _: () = {
            use $($types)* as w;
            use $crate as c;
            use $crate::wit::{FromWit, IntoWit};

            $crate::__wit_cases!(w, c, ErrorKind { Timeout, NotFound, Forbidden, Unavailable, TooLarge, Invalid, Other });
            impl FromWit<w::GatewayError> for c::GatewayError {
                fn from_wit(e: w::GatewayError) -> c::GatewayError {
                    c::GatewayError { kind: c::ErrorKind::from_wit(e.kind), message: e.message }
                }
            }
            impl IntoWit<w::GatewayError> for c::GatewayError {
                fn into_wit(self) -> w::GatewayError {
                    w::GatewayError { kind: self.kind.into_wit(), message: self.message }
                }
            }
            impl FromWit<w::Wake> for c::Wake {
                fn from_wit(w: w::Wake) -> c::Wake {
                    match w {
                        w::Wake::Now => c::Wake::Now,
                        w::Wake::RunEnd(params) => c::Wake::RunEnd(FromWit::from_wit(params)),
                        w::Wake::At(t) => c::Wake::At(t),
                    }
                }
            }
            impl IntoWit<w::Wake> for c::Wake {
                fn into_wit(self) -> w::Wake {
                    match self {
                        c::Wake::Now => w::Wake::Now,
                        c::Wake::RunEnd(params) => w::Wake::RunEnd(params.into_wit()),
                        c::Wake::At(t) => w::Wake::At(t),
                    }
                }
            }
            impl FromWit<w::Job> for c::Job {
                fn from_wit(j: w::Job) -> c::Job {
                    c::Job { id: j.id, kind: j.kind, session_key: j.session_key, state: j.state, wake: c::Wake::from_wit(j.wake) }
                }
            }
            impl IntoWit<w::Job> for c::Job {
                fn into_wit(self) -> w::Job {
                    w::Job { id: self.id, kind: self.kind, session_key: self.session_key, state: self.state, wake: self.wake.into_wit() }
                }
            }

            impl FromWit<w::ThreadId> for c::ThreadId {
                fn from_wit(t: w::ThreadId) -> c::ThreadId {
                    match t {
                        w::ThreadId::Text(text) => c::ThreadId::Text(text),
                        w::ThreadId::Number(n) => c::ThreadId::Number(n),
                    }
                }
            }
            impl IntoWit<w::ThreadId> for c::ThreadId {
                fn into_wit(self) -> w::ThreadId {
                    match self {
                        c::ThreadId::Text(text) => w::ThreadId::Text(text),
                        c::ThreadId::Number(n) => w::ThreadId::Number(n),
                    }
                }
            }
            impl FromWit<w::DeliveryContext> for c::DeliveryContext {
                fn from_wit(d: w::DeliveryContext) -> c::DeliveryContext {
                    c::DeliveryContext { channel: d.channel, to: d.to, account_id: d.account_id, thread_id: d.thread_id.map(c::ThreadId::from_wit) }
                }
            }
            impl IntoWit<w::DeliveryContext> for c::DeliveryContext {
                fn into_wit(self) -> w::DeliveryContext {
                    w::DeliveryContext { channel: self.channel, to: self.to, account_id: self.account_id, thread_id: self.thread_id.map(IntoWit::into_wit) }
                }
            }
            impl FromWit<w::SessionRow> for c::SessionRow {
                fn from_wit(r: w::SessionRow) -> c::SessionRow {
                    c::SessionRow {
                        key: r.key,
                        kind: r.kind,
                        channel: r.channel,
                        label: r.label,
                        display_name: r.display_name,
                        delivery_context: r.delivery_context.map(c::DeliveryContext::from_wit),
                        updated_at: r.updated_at,
                        session_id: r.session_id,
                        model: r.model,
                        context_tokens: r.context_tokens,
                        total_tokens: r.total_tokens,
                        thinking_level: r.thinking_level,
                        verbose_level: r.verbose_level,
                        system_sent: r.system_sent,
                        aborted_last_run: r.aborted_last_run,
                        send_policy: r.send_policy,
                        last_channel: r.last_channel,
                        last_to: r.last_to,
                        last_account_id: r.last_account_id,
                        spawned_by: r.spawned_by,
                    }
                }
            }
            impl IntoWit<w::SessionRow> for c::SessionRow {
                fn into_wit(self) -> w::SessionRow {
                    w::SessionRow {
                        key: self.key,
                        kind: self.kind,
                        channel: self.channel,
                        label: self.label,
                        display_name: self.display_name,
                        delivery_context: self.delivery_context.map(IntoWit::into_wit),
                        updated_at: self.updated_at,
                        session_id: self.session_id,
                        model: self.model,
                        context_tokens: self.context_tokens,
                        total_tokens: self.total_tokens,
                        thinking_level: self.thinking_level,
                        verbose_level: self.verbose_level,
                        system_sent: self.system_sent,
                        aborted_last_run: self.aborted_last_run,
                        send_policy: self.send_policy,
                        last_channel: self.last_channel,
                        last_to: self.last_to,
                        last_account_id: self.last_account_id,
                        spawned_by: self.spawned_by,
                    }
                }
            }
            impl FromWit<w::SessionList> for c::SessionList {
                fn from_wit(l: w::SessionList) -> c::SessionList {
                    c::SessionList { path: l.path, sessions: l.sessions.into_iter().map(c::SessionRow::from_wit).collect() }
                }
            }
            impl IntoWit<w::SessionList> for c::SessionList {
                fn into_wit(self) -> w::SessionList {
                    w::SessionList { path: self.path, sessions: self.sessions.into_iter().map(IntoWit::into_wit).collect() }
                }
            }
            impl FromWit<w::History> for c::History {
                fn from_wit(h: w::History) -> c::History {
                    c::History { session_id: h.session_id, messages: h.messages.into_iter().map(c::TranscriptMessage::from_wit).collect() }
                }
            }
            impl IntoWit<w::History> for c::History {
                fn into_wit(self) -> w::History {
                    w::History { session_id: self.session_id, messages: self.messages.into_iter().map(IntoWit::into_wit).collect() }
                }
            }
            impl FromWit<w::WaitResult> for c::WaitResult {
                fn from_wit(r: w::WaitResult) -> c::WaitResult {
                    c::WaitResult {
                        status: r.status,
                        error: r.error,
                        started_at: r.started_at,
                        ended_at: r.ended_at,
                        usage: r.usage.map(c::Usage::from_wit),
                        model: r.model,
                    }
                }
            }
            impl IntoWit<w::WaitResult> for c::WaitResult {
                fn into_wit(self) -> w::WaitResult {
                    w::WaitResult {
                        status: self.status,
                        error: self.error,
                        started_at: self.started_at,
                        ended_at: self.ended_at,
                        usage: self.usage.map(IntoWit::into_wit),
                        model: self.model,
                    }
                }
            }
            $crate::__wit_plain!(w, c, TranscriptMessage { role, json });
            $crate::__wit_plain!(w, c, Usage { input_tokens, output_tokens, total_tokens });
            $crate::__wit_plain!(w, c, ListParams { limit, active_minutes, include_global, include_unknown, spawned_by, label, agent_id, search });
            $crate::__wit_plain!(w, c, ResolveParams { key, session_id, label, agent_id, spawned_by, include_global, include_unknown });
            $crate::__wit_plain!(w, c, HistoryParams { session_key, limit });
            $crate::__wit_plain!(w, c, AgentParams {
                message, session_key, idempotency_key, deliver, channel, lane, extra_system_prompt, thinking, timeout, label, spawned_by,
                group_id, group_channel, group_space,
            });
            $crate::__wit_plain!(w, c, AgentAccepted { run_id });
            $crate::__wit_plain!(w, c, WaitParams { run_id, timeout_ms });
            $crate::__wit_plain!(w, c, SendParams { to, message, channel, account_id, idempotency_key });
            $crate::__wit_plain!(w, c, PatchParams { key, label, model });
            $crate::__wit_plain!(w, c, DeleteParams { key, delete_transcript });
        };
    };
}

/// Implements [`FromWit`] and [`IntoWit`] between the contract's call, job and policy
/// records ([`calls`](crate::calls), [`policy`](crate::policy)) and those generated for the
/// exported `tools`, `jobs` and `policy` interfaces at the given paths, which must see the
/// `types` records converted by [`wit_records!`](crate::wit_records). The tools component
/// converts one way and the host the other; both use this one copy.
#[macro_export]
macro_rules! wit_calls {
    (tools: $($tools:ident)::+, jobs: $($jobs:ident)::+, policy: $($policy:ident)::+ $(,)?) => {
        #[allow(unused_imports, clippy::all)]
        const _: () = {
            use $crate::calls as c;
            use $crate::policy as p;
            use $crate::wit::{FromWit, IntoWit};
            use $($jobs)::+ as wj;
            use $($policy)::+ as wp;
            use $($tools)::+ as wt;

            $crate::__wit_plain!(wt, c, CallerContext => Caller {
                agent_session_key, agent_channel, agent_account_id, agent_to, agent_thread_id,
                agent_group_id, agent_group_channel, agent_group_space, sandboxed, requester_agent_id_override,
            });

            impl FromWit<wt::ToolError> for c::ToolError {
                fn from_wit(e: wt::ToolError) -> c::ToolError {
                    match e {
                        wt::ToolError::UnknownTool(name) => c::ToolError::UnknownTool(name),
                        wt::ToolError::InvalidArguments(msg) => c::ToolError::InvalidArguments(msg),
                        wt::ToolError::Failed(msg) => c::ToolError::Failed(msg),
                        wt::ToolError::NotConfigured => c::ToolError::NotConfigured,
                    }
                }
            }
            impl IntoWit<wt::ToolError> for c::ToolError {
                fn into_wit(self) -> wt::ToolError {
                    match self {
                        c::ToolError::UnknownTool(name) => wt::ToolError::UnknownTool(name),
                        c::ToolError::InvalidArguments(msg) => wt::ToolError::InvalidArguments(msg),
                        c::ToolError::Failed(msg) => wt::ToolError::Failed(msg),
                        c::ToolError::NotConfigured => wt::ToolError::NotConfigured,
                    }
                }
            }
            impl FromWit<wt::ToolOutput> for c::ToolOutput {
                fn from_wit(o: wt::ToolOutput) -> c::ToolOutput {
                    c::ToolOutput { result: o.result, jobs: o.jobs.into_iter().map(c::Job::from_wit).collect() }
                }
            }
            impl IntoWit<wt::ToolOutput> for c::ToolOutput {
                fn into_wit(self) -> wt::ToolOutput {
                    wt::ToolOutput { result: self.result, jobs: self.jobs.into_iter().map(IntoWit::into_wit).collect() }
                }
            }

            impl FromWit<wj::Wakeup> for c::Wakeup {
                fn from_wit(w: wj::Wakeup) -> c::Wakeup {
                    match w {
                        wj::Wakeup::Now => c::Wakeup::Now,
                        wj::Wakeup::Timer => c::Wakeup::Timer,
                        wj::Wakeup::RunEnded(r) => c::Wakeup::RunEnded(r.map(FromWit::from_wit).map_err(FromWit::from_wit)),
                    }
                }
            }
            impl IntoWit<wj::Wakeup> for c::Wakeup {
                fn into_wit(self) -> wj::Wakeup {
                    match self {
                        c::Wakeup::Now => wj::Wakeup::Now,
                        c::Wakeup::Timer => wj::Wakeup::Timer,
                        c::Wakeup::RunEnded(r) => wj::Wakeup::RunEnded(r.map(IntoWit::into_wit).map_err(IntoWit::into_wit)),
                    }
                }
            }
            $crate::__wit_cases!(wp, p, Decision { Allow, Deny });
            $crate::__wit_plain!(wp, p, PolicyEntry { send_policy, channel, last_channel, chat_type });
            impl FromWit<wp::PolicyInput> for p::PolicyInput {
                fn from_wit(i: wp::PolicyInput) -> p::PolicyInput {
                    p::PolicyInput { entry: i.entry.map(FromWit::from_wit), session_key: i.session_key, channel: i.channel, chat_type: i.chat_type }
                }
            }
            impl IntoWit<wp::PolicyInput> for p::PolicyInput {
                fn into_wit(self) -> wp::PolicyInput {
                    wp::PolicyInput { entry: self.entry.map(IntoWit::into_wit), session_key: self.session_key, channel: self.channel, chat_type: self.chat_type }
                }
            }
            $crate::__wit_cases!(wp, p, SendMode { Allow, Deny, Inherit });
            impl FromWit<wp::SendCommand> for p::SendCommand {
                fn from_wit(s: wp::SendCommand) -> p::SendCommand {
                    match s {
                        wp::SendCommand::Show => p::SendCommand::Show,
                        wp::SendCommand::Set(mode) => p::SendCommand::Set(FromWit::from_wit(mode)),
                        wp::SendCommand::Invalid(word) => p::SendCommand::Invalid(word),
                    }
                }
            }
            impl IntoWit<wp::SendCommand> for p::SendCommand {
                fn into_wit(self) -> wp::SendCommand {
                    match self {
                        p::SendCommand::Show => wp::SendCommand::Show,
                        p::SendCommand::Set(mode) => wp::SendCommand::Set(mode.into_wit()),
                        p::SendCommand::Invalid(word) => wp::SendCommand::Invalid(word),
                    }
                }
            }
        };
    };
}

/// Implements an exported `gateway` interface (`$out::Guest for $component`) by handing
/// each call to `$with`, which runs a closure on the component's own
/// [`Gateway`](crate::Gateway) (the guard's checks, the wire's protocol) and converts its
/// error. The components that export the gateway (the guard, the wire) use this one copy.
#[macro_export]
macro_rules! wit_gateway_export {
    ($component:ty, out: $($out:ident)::+, types: $($types:ident)::+, with: $with:path $(,)?) => {
        impl $($out)::+::Guest for $component {
            fn sessions_list(params: $($types)::+::ListParams) -> Result<$($types)::+::SessionList, $($types)::+::GatewayError> {
                $with(|g| g.sessions_list(&$crate::wit::FromWit::from_wit(params))).map($crate::wit::IntoWit::into_wit)
            }
            fn sessions_resolve(params: $($types)::+::ResolveParams) -> Result<String, $($types)::+::GatewayError> {
                $with(|g| g.sessions_resolve(&$crate::wit::FromWit::from_wit(params)))
            }
            fn chat_history(params: $($types)::+::HistoryParams) -> Result<$($types)::+::History, $($types)::+::GatewayError> {
                $with(|g| g.chat_history(&$crate::wit::FromWit::from_wit(params))).map($crate::wit::IntoWit::into_wit)
            }
            fn chat_histories(
                params: Vec<$($types)::+::HistoryParams>,
            ) -> Vec<Result<$($types)::+::History, $($types)::+::GatewayError>> {
                let params: Vec<$crate::HistoryParams> = params.into_iter().map($crate::wit::FromWit::from_wit).collect();
                let n = params.len();
                match $with(|g| Ok(g.chat_histories(&params))) {
                    Ok(answers) => answers
                        .into_iter()
                        .map(|a| a.map($crate::wit::IntoWit::into_wit).map_err($crate::wit::IntoWit::into_wit))
                        .collect(),
                    Err(e) => (0..n).map(|_| Err(e.clone())).collect(),
                }
            }
            fn agent(params: $($types)::+::AgentParams) -> Result<$($types)::+::AgentAccepted, $($types)::+::GatewayError> {
                $with(|g| g.agent(&$crate::wit::FromWit::from_wit(params))).map($crate::wit::IntoWit::into_wit)
            }
            fn agent_wait(params: $($types)::+::WaitParams) -> Result<$($types)::+::WaitResult, $($types)::+::GatewayError> {
                $with(|g| g.agent_wait(&$crate::wit::FromWit::from_wit(params))).map($crate::wit::IntoWit::into_wit)
            }
            fn send(params: $($types)::+::SendParams) -> Result<(), $($types)::+::GatewayError> {
                $with(|g| g.send(&$crate::wit::FromWit::from_wit(params)))
            }
            fn sessions_patch(params: $($types)::+::PatchParams) -> Result<(), $($types)::+::GatewayError> {
                $with(|g| g.sessions_patch(&$crate::wit::FromWit::from_wit(params)))
            }
            fn sessions_delete(params: $($types)::+::DeleteParams) -> Result<(), $($types)::+::GatewayError> {
                $with(|g| g.sessions_delete(&$crate::wit::FromWit::from_wit(params)))
            }
        }
    };
}
