//! The live-gateway client against a gateway that fails on cue (`fake_gateway`): drops,
//! silence, slow and out-of-order answers, malformed and oversized frames, a rejected
//! secret, another protocol. What must hold: every failure is an error in words, a read is
//! sent again after a drop and a write without an idempotency key is not, the next call
//! reconnects, and nothing hangs or panics.

#![forbid(unsafe_code)]

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::json;
use session_tools_host::gateway::live::LiveGateway;
use session_tools_host::gateway::{Gateway, HistoryParams, ListParams, PatchParams};
use session_tools_tests::fake_gateway::{standard, Call, FakeGateway, Reply};

fn rows(keys: &[&str]) -> serde_json::Value {
    json!({"path": "(multiple)", "count": keys.len(), "sessions": keys.iter().map(|k| json!({"key": k, "updatedAt": 1})).collect::<Vec<_>>()})
}

fn open(fake: &FakeGateway) -> LiveGateway {
    LiveGateway::builder(fake.url())
        .with_token("t")
        .with_connect_timeout(Duration::from_secs(5))
        .with_request_timeout(Duration::from_secs(5))
        .with_backoff(Duration::from_millis(20), Duration::from_millis(200))
        .open()
        .unwrap_or_else(|e| panic!("opening the fake gateway: {e}"))
}

fn list(gateway: &LiveGateway) -> Result<Vec<String>, String> {
    gateway.sessions_list(&ListParams::default()).map(|l| l.sessions.into_iter().map(|r| r.key).collect()).map_err(|e| e.message)
}

#[test]
fn a_rejected_secret_and_another_protocol_are_said_in_words() {
    let fake = FakeGateway::start(|call| match call.method.as_str() {
        "connect" if call.params["auth"]["token"] == "wrong" => Reply::Error {
            code: "INVALID_REQUEST".into(),
            message: "unauthorized: gateway token mismatch (provide gateway auth token)".into(),
            details: None,
        },
        "connect" if call.params["auth"]["token"] == "old" => Reply::Error {
            code: "INVALID_REQUEST".into(),
            message: "protocol mismatch".into(),
            details: Some(json!({"expectedProtocol": 5})),
        },
        _ => standard(call).unwrap_or(Reply::Silence),
    });
    let err = LiveGateway::builder(fake.url()).with_token("wrong").open().unwrap_err().to_string();
    assert_eq!(
        err,
        format!("gateway token rejected by {} (unauthorized: gateway token mismatch (provide gateway auth token))", fake.url())
    );
    let err = LiveGateway::builder(fake.url()).with_token("old").open().unwrap_err().to_string();
    assert_eq!(err, format!("the gateway at {} speaks protocol 5; this host speaks protocols 3 to 4", fake.url()));
    // A gateway that answers hello-ok with another protocol is refused too.
    let other = FakeGateway::start(|call| match call.method.as_str() {
        "connect" => Reply::Ok(json!({"type": "hello-ok", "protocol": 5, "policy": {}})),
        _ => Reply::Silence,
    });
    let err = LiveGateway::builder(other.url()).with_token("t").open().unwrap_err().to_string();
    assert_eq!(err, format!("the gateway at {} speaks protocol 5; this host speaks protocols 3 to 4", other.url()));
    // No secret, a URL that is not one, nobody listening.
    let err = LiveGateway::builder(fake.url()).open().unwrap_err().to_string();
    assert!(err.starts_with("no secret for the gateway at"), "{err}");
    let err = LiveGateway::builder("http://127.0.0.1:1").with_token("t").open().unwrap_err().to_string();
    assert!(err.contains("must start with ws:// or wss://"), "{err}");
    let err = LiveGateway::builder("ws://127.0.0.1:1").with_token("t").open().unwrap_err().to_string();
    assert!(err.starts_with("cannot connect to the gateway at ws://127.0.0.1:1"), "{err}");
}

#[test]
fn a_read_in_flight_during_a_drop_is_sent_again_on_the_next_connection() {
    let fake = FakeGateway::start(|call| {
        standard(call).unwrap_or_else(|| match (call.method.as_str(), call.connection) {
            ("sessions.list", 1) => Reply::Cut,
            ("sessions.list", _) => Reply::Ok(rows(&["agent:main:main"])),
            _ => Reply::Silence,
        })
    });
    let gateway = open(&fake);
    assert_eq!(list(&gateway), Ok(vec!["agent:main:main".to_string()]));
    assert_eq!(gateway.connections(), 2, "the read went again over a new connection");
    assert_eq!(fake.calls_of("sessions.list").len(), 2);
}

#[test]
fn a_write_in_flight_during_a_drop_fails_saying_it_may_have_taken_effect() {
    let fake = FakeGateway::start(|call| {
        standard(call).unwrap_or_else(|| match (call.method.as_str(), call.connection) {
            ("sessions.patch", 1) => Reply::Close(1012, "service restart".into()),
            ("sessions.patch", _) => Reply::Ok(json!({"ok": true, "key": "agent:main:main"})),
            ("sessions.list", _) => Reply::Ok(rows(&["agent:main:main"])),
            _ => Reply::Silence,
        })
    });
    let gateway = open(&fake);
    let err = gateway.sessions_patch(&PatchParams { key: "agent:main:main".into(), label: Some("x".into()), model: None }).unwrap_err();
    assert!(
        err.message.contains("was lost while it answered sessions.patch") && err.message.contains("may or may not have taken effect"),
        "{}",
        err.message
    );
    assert!(err.message.contains("1012 service restart"), "the gateway's reason is kept: {}", err.message);
    assert_eq!(fake.calls_of("sessions.patch").len(), 1, "a write without an idempotency key is not sent twice");
    // The next call reconnects.
    assert_eq!(list(&gateway), Ok(vec!["agent:main:main".to_string()]));
    assert_eq!(gateway.connections(), 2);
}

#[test]
fn a_slow_answer_times_out_and_the_connection_goes_on() {
    let fake = FakeGateway::start(|call| {
        standard(call).unwrap_or_else(|| match call.method.as_str() {
            "chat.history" => Reply::Silence,
            "sessions.list" => Reply::Ok(rows(&["agent:main:main"])),
            _ => Reply::Silence,
        })
    });
    let gateway = LiveGateway::builder(fake.url()).with_token("t").with_request_timeout(Duration::from_millis(600)).open().unwrap();
    let started = Instant::now();
    let err = gateway.chat_history(&HistoryParams { session_key: "main".into(), limit: None }).unwrap_err();
    assert_eq!(err.message, format!("the gateway at {} did not answer chat.history in time", fake.url()));
    assert!(started.elapsed() < Duration::from_secs(3), "the timeout holds: {:?}", started.elapsed());
    assert_eq!(list(&gateway), Ok(vec!["agent:main:main".to_string()]));
    assert_eq!(gateway.connections(), 1, "a slow answer is not a reason to reconnect");
}

#[test]
fn a_malformed_or_oversized_frame_drops_the_connection_and_reads_go_again() {
    let seen = Arc::new(AtomicU32::new(0));
    let fake = {
        let seen = seen.clone();
        FakeGateway::start(move |call: &Call| {
            standard(call).unwrap_or_else(|| match call.method.as_str() {
                "sessions.list" => match seen.fetch_add(1, Ordering::SeqCst) {
                    0 => Reply::Raw("{this is not json".into()),
                    1 => Reply::Raw(format!(r#"{{"type":"res","id":"x","ok":true,"payload":"{}"}}"#, "a".repeat(2 << 20))),
                    2 => Reply::Raw(r#"{"type":"res","ok":true}"#.into()),
                    _ => Reply::Ok(rows(&["agent:main:main"])),
                },
                _ => Reply::Silence,
            })
        })
    };
    let gateway = LiveGateway::builder(fake.url())
        .with_token("t")
        .with_max_answer_bytes(1 << 20)
        .with_backoff(Duration::from_millis(20), Duration::from_millis(100))
        .open()
        .unwrap();
    assert_eq!(list(&gateway), Ok(vec!["agent:main:main".to_string()]), "the read survives three bad frames");
    assert_eq!(gateway.connections(), 4, "each bad frame cost a connection");
    assert_eq!(seen.load(Ordering::SeqCst), 4);
}

#[test]
fn a_gateway_error_reaches_the_caller_with_the_gateways_message() {
    let fake = FakeGateway::start(|call| {
        standard(call).unwrap_or_else(|| match call.method.as_str() {
            "sessions.resolve" => Reply::error("No session found: agent:main:nope"),
            "agent" => Reply::Error { code: "INVALID_REQUEST".into(), message: "send blocked by session policy".into(), details: None },
            _ => Reply::Silence,
        })
    });
    let gateway = open(&fake);
    let err = gateway
        .sessions_resolve(&session_tools_host::gateway::ResolveParams { key: Some("agent:main:nope".into()), ..Default::default() })
        .unwrap_err();
    assert_eq!(err.message, "No session found: agent:main:nope");
    let err = gateway
        .agent(&session_tools_host::gateway::AgentParams {
            message: "hi".into(),
            session_key: Some("agent:main:main".into()),
            idempotency_key: "k".into(),
            ..Default::default()
        })
        .unwrap_err();
    assert_eq!(err.message, "send blocked by session policy");
}

#[test]
fn many_requests_are_in_flight_at_once_and_each_answer_finds_its_caller() {
    // Each history is answered after a delay that makes answers come back out of order.
    let fake = FakeGateway::start(|call| {
        standard(call).unwrap_or_else(|| match call.method.as_str() {
            "chat.history" => {
                let key = call.params["sessionKey"].as_str().unwrap_or_default().to_string();
                let n: u64 = key.rsplit(':').next().and_then(|n| n.parse().ok()).unwrap_or(0);
                let payload = json!({"sessionKey": key, "messages": [{"role": "user", "content": key}]});
                Reply::After(Duration::from_millis(300 - (n % 10) * 30), Box::new(Reply::Ok(payload)))
            }
            _ => Reply::Silence,
        })
    });
    let gateway = open(&fake);
    let params: Vec<HistoryParams> = (0..40).map(|n| HistoryParams { session_key: format!("agent:main:s:{n}"), limit: Some(1) }).collect();
    let started = Instant::now();
    let answers = gateway.chat_histories(&params);
    let took = started.elapsed();
    for (n, answer) in answers.into_iter().enumerate() {
        let history = answer.unwrap_or_else(|e| panic!("history {n}: {}", e.message));
        assert!(history.messages[0].json.contains(&format!("agent:main:s:{n}\"")), "answer {n}: {}", history.messages[0].json);
    }
    // 40 requests of up to 300 ms each, 32 at a time: two rounds, not forty.
    assert!(took < Duration::from_secs(3), "histories were asked for together: {took:?}");
    // And threads calling at once share the one connection.
    let gateway = Arc::new(gateway);
    let threads: Vec<_> = (0..8)
        .map(|n| {
            let gateway = gateway.clone();
            std::thread::spawn(move || gateway.chat_history(&HistoryParams { session_key: format!("agent:main:t:{n}"), limit: None }))
        })
        .collect();
    for (n, thread) in threads.into_iter().enumerate() {
        let history = thread.join().unwrap().unwrap();
        assert!(history.messages[0].json.contains(&format!("agent:main:t:{n}\"")));
    }
    assert_eq!(gateway.connections(), 1);
}

#[test]
fn a_request_too_large_for_the_gateway_is_refused_before_it_is_sent() {
    let fake = FakeGateway::start(|call| standard(call).unwrap_or(Reply::Ok(json!({"runId": "r", "status": "accepted"}))));
    let gateway = open(&fake);
    let err = gateway
        .agent(&session_tools_host::gateway::AgentParams {
            message: "x".repeat(600 * 1024),
            session_key: Some("agent:main:main".into()),
            idempotency_key: "k".into(),
            ..Default::default()
        })
        .unwrap_err();
    assert!(err.message.starts_with("the agent request is ") && err.message.ends_with("accepts at most 524288"), "{}", err.message);
    assert!(fake.calls_of("agent").is_empty());
}

/// Histories on disk (`gateway/live/on_disk.rs`): a gateway on loopback whose state directory
/// is here has the histories of the sessions it listed read from that directory, each only
/// when its `sessionId` is the one the gateway listed; the others are asked of it.
#[test]
fn histories_are_read_on_disk_only_for_the_sessions_the_gateway_listed() {
    let state = session_tools_tests::sample_copy();
    let dir = state.path().to_str().unwrap().to_string();
    let channel = "agent:main:discord:channel:1187421193829244938";
    let script = move |call: &Call| match call.method.as_str() {
        "connect" => {
            let mut hello = session_tools_tests::fake_gateway::hello();
            hello["snapshot"]["stateDir"] = json!(dir);
            Reply::Ok(hello)
        }
        "sessions.list" => Reply::Ok(json!({"path": "(multiple)", "count": 2, "sessions": [
            {"key": channel, "updatedAt": 2, "sessionId": "8c3d9e1f-2a4b-4c6d-8e0f-3a5b7c9d1e2f"},
            // Reset since the state on disk was written: another sessionId.
            {"key": "agent:main:main", "updatedAt": 1, "sessionId": "00000000-0000-4000-8000-000000000000"},
        ]})),
        "chat.history" => Reply::Ok(json!({
            "sessionKey": call.params["sessionKey"], "sessionId": "from-the-gateway",
            "messages": [{"role": "user", "content": "from the gateway"}],
        })),
        _ => standard(call).unwrap_or_else(|| Reply::error("unexpected")),
    };
    let fake = FakeGateway::start(script);
    let params = |key: &str| HistoryParams { session_key: key.into(), limit: Some(5) };
    let asked = [params(channel), params("agent:main:main"), params("agent:main:never-listed")];

    let gateway = open(&fake);
    assert!(gateway.reads_histories_on_disk(), "{gateway:?}");
    // Before any list, nothing is known: all from the gateway.
    let before = gateway.chat_histories(&asked);
    assert!(before.iter().all(|h| h.as_ref().unwrap().session_id.as_deref() == Some("from-the-gateway")));
    assert_eq!(fake.calls_of("chat.history").len(), 3);

    gateway.sessions_list(&ListParams::default()).unwrap();
    let after = gateway.chat_histories(&asked);
    let on_disk = after[0].as_ref().unwrap();
    assert_eq!(on_disk.session_id.as_deref(), Some("8c3d9e1f-2a4b-4c6d-8e0f-3a5b7c9d1e2f"));
    let embedded = session_tools_host::gateway::embedded::EmbeddedGateway::builder(state.path()).open().unwrap();
    assert_eq!(on_disk, &embedded.chat_history(&params(channel)).unwrap(), "the embedded reader's answer");
    assert!(!on_disk.messages.is_empty());
    for other in &after[1..] {
        assert_eq!(other.as_ref().unwrap().session_id.as_deref(), Some("from-the-gateway"));
    }
    let history_calls: Vec<String> =
        fake.calls_of("chat.history").iter().skip(3).map(|c| c.params["sessionKey"].as_str().unwrap().to_string()).collect();
    assert_eq!(history_calls, ["agent:main:main", "agent:main:never-listed"], "only what the disk cannot answer is asked");

    // Turned off, every history is a request.
    let off = LiveGateway::builder(fake.url()).with_token("t").with_histories_on_disk(false).open().unwrap();
    assert!(!off.reads_histories_on_disk());
    off.sessions_list(&ListParams::default()).unwrap();
    let answers = off.chat_histories(&asked);
    assert!(answers.iter().all(|h| h.as_ref().unwrap().session_id.as_deref() == Some("from-the-gateway")));
    assert_eq!(fake.calls_of("chat.history").len(), 8);
}
