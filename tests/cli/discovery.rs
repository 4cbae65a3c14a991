//! The running gateway is found: when the state directory's own gateway runs, commands
//! work through it with the config's auth; `--files` forces the files; `-v` says which
//! backend and why. The gateway here is the fake one (`tests/src/fake_gateway.rs`): a
//! 2026.1 directory's gateway is found by its configured port answering (and naming the
//! directory it serves), a 2026.9 directory's by its `gateway-owner` lease.

use std::path::Path;
use std::process::Output;

use serde_json::{json, Value};
use session_tools_tests::cli::{command, stderr, stdout};
use session_tools_tests::fake_gateway::{hello, standard, FakeGateway, Reply};
use session_tools_tests::sample_copy;

const TOKEN: &str = "discovery-test-token";

/// A fake gateway that says it serves `served`, and lists one session of its own.
fn fake_serving(served: &Path) -> FakeGateway {
    let served = served.display().to_string();
    FakeGateway::start(move |call| match call.method.as_str() {
        "connect" => {
            let mut hello = hello();
            hello["snapshot"]["stateDir"] = json!(served);
            Reply::Ok(hello)
        }
        "sessions.list" => {
            Reply::Ok(json!({"path": "(multiple)", "count": 1, "sessions": [{"key": "agent:main:from-the-gateway", "updatedAt": 1}]}))
        }
        _ => standard(call).unwrap_or_else(|| Reply::error("not scripted")),
    })
}

fn port_of(fake: &FakeGateway) -> u16 {
    fake.url().rsplit(':').next().unwrap().parse().unwrap()
}

/// Points the state directory's config at the fake's port, with its token.
fn configure(state: &Path, port: u16) {
    let config = json!({"gateway": {"port": port, "auth": {"mode": "token", "token": TOKEN}}});
    std::fs::write(state.join("openclaw.json"), config.to_string()).unwrap();
}

/// The command line with no gateway in the environment (the test's own may have one).
fn run(args: &[&str]) -> Output {
    command(args)
        .env_remove("OPENCLAW_GATEWAY_URL")
        .env_remove("OPENCLAW_GATEWAY_TOKEN")
        .env_remove("OPENCLAW_GATEWAY_PORT")
        .env_remove("CLAWDBOT_GATEWAY_PORT")
        .output()
        .unwrap()
}

fn keys(output: &Output) -> Vec<String> {
    let rows: Value = serde_json::from_str(&stdout(output)).unwrap_or_else(|e| panic!("{e}: {}\n{}", stdout(output), stderr(output)));
    rows.as_array().unwrap().iter().map(|r| r["key"].as_str().unwrap().to_string()).collect()
}

#[test]
fn a_2026_1_directory_s_running_gateway_is_found_and_files_forces_the_files() {
    let state = sample_copy();
    let fake = fake_serving(state.path());
    configure(state.path(), port_of(&fake));
    let dir = state.path().to_str().unwrap();

    let through = run(&["--state", dir, "-v", "sessions", "--json"]);
    assert!(through.status.success(), "{}", stderr(&through));
    assert_eq!(keys(&through), ["agent:main:from-the-gateway"], "the gateway's sessions");
    assert!(!fake.calls_of("sessions.list").is_empty());
    let connect = &fake.calls_of("connect")[0].params;
    assert_eq!(connect["auth"]["token"], TOKEN, "the config's auth: {connect}");
    let said = stderr(&through);
    assert!(
        said.contains(&format!("working on the gateway at {} (found: a gateway answers at {}", fake.url(), fake.url())),
        "-v says which backend and why: {said}"
    );

    let files = run(&["--state", dir, "--files", "-v", "sessions", "--json"]);
    assert!(files.status.success(), "{}", stderr(&files));
    assert!(keys(&files).contains(&"agent:main:discord:channel:1187421193829244938".to_string()), "the files' sessions");
    assert!(stderr(&files).contains("(the --files option)"), "{}", stderr(&files));
    assert_eq!(fake.calls_of("sessions.list").len(), 1, "--files asked the gateway nothing");

    // A run goes to the gateway's agents: --runtime is refused there, not ignored.
    let refused = run(&["--state", dir, "--runtime", "echo", "sessions"]);
    assert_eq!(refused.status.code(), Some(2), "{}", stderr(&refused));
    assert!(stderr(&refused).contains("found: a gateway answers at"), "{}", stderr(&refused));
}

#[test]
fn a_gateway_of_another_directory_on_the_port_is_not_taken_for_this_one() {
    let state = sample_copy();
    let other = tempfile::tempdir().unwrap();
    let fake = fake_serving(other.path());
    configure(state.path(), port_of(&fake));
    let output = run(&["--state", state.path().to_str().unwrap(), "-v", "sessions", "--json"]);
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(keys(&output).contains(&"agent:main:discord:channel:1187421193829244938".to_string()), "the files");
    assert!(stderr(&output).contains(&format!("serves {}", other.path().display())), "{}", stderr(&output));
}

#[test]
fn no_gateway_running_means_the_files_and_the_environment_variable_moves_commands() {
    let state = sample_copy();
    let dir = state.path().to_str().unwrap();
    // A port nothing listens on: bound, then freed.
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    configure(state.path(), port);
    let output = run(&["--state", dir, "-v", "sessions", "--json"]);
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(stderr(&output).contains("(no gateway of the state directory is running)"), "{}", stderr(&output));

    let fake = fake_serving(Path::new("/elsewhere"));
    let output = command(&["--state", dir, "-v", "sessions", "--json"])
        .env("OPENCLAW_GATEWAY_URL", fake.url())
        .env("OPENCLAW_GATEWAY_TOKEN", TOKEN)
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", stderr(&output));
    assert_eq!(keys(&output), ["agent:main:from-the-gateway"]);
    assert!(stderr(&output).contains("(the environment variable OPENCLAW_GATEWAY_URL)"), "{}", stderr(&output));
}

/// A 2026.9 state directory: its state database, where a running gateway holds its lease.
pub(super) fn sqlite_state() -> tempfile::TempDir {
    let state = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(state.path().join("state")).unwrap();
    let db = rusqlite::Connection::open(state.path().join("state/openclaw.sqlite")).unwrap();
    db.execute_batch(
        "CREATE TABLE state_leases (scope TEXT NOT NULL, lease_key TEXT NOT NULL, expires_at INTEGER, payload_json TEXT, PRIMARY KEY (scope, lease_key))",
    )
    .unwrap();
    state
}

/// A live `gateway-owner` lease on `port`, held by this process (so its owner is alive).
fn hold_lease(state: &Path, port: u16) {
    let db = rusqlite::Connection::open(state.join("state/openclaw.sqlite")).unwrap();
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname").unwrap_or_default().trim().to_string();
    let payload = json!({"owner": {"pid": std::process::id(), "host": host}, "port": port});
    let expires = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_millis() as i64 + 600_000;
    db.execute(
        "INSERT INTO state_leases (scope, lease_key, expires_at, payload_json) VALUES ('gateway-owner', 'global', ?1, ?2)",
        rusqlite::params![expires, payload.to_string()],
    )
    .unwrap();
}

#[test]
fn a_2026_9_directory_s_gateway_is_found_by_its_lease() {
    let state = sqlite_state();
    let fake = fake_serving(state.path());
    configure(state.path(), port_of(&fake));
    let dir = state.path().to_str().unwrap();
    let before = run(&["--state", dir, "-v", "sessions", "--json"]);
    assert!(before.status.success(), "{}", stderr(&before));
    assert!(stderr(&before).contains("(no gateway of the state directory is running)"), "no lease, no gateway: {}", stderr(&before));
    assert!(fake.calls_of("connect").is_empty(), "a 2026.9 directory without a lease is not knocked at");

    hold_lease(state.path(), port_of(&fake));
    let output = run(&["--state", dir, "-v", "sessions", "--json"]);
    assert!(output.status.success(), "{}", stderr(&output));
    assert_eq!(keys(&output), ["agent:main:from-the-gateway"], "the gateway's sessions");
    let said = stderr(&output);
    assert!(
        said.contains(&format!(
            "found: an OpenClaw 2026.9 gateway holds the state directory's gateway-owner lease (pid {}, port {})",
            std::process::id(),
            port_of(&fake)
        )),
        "-v names the lease: {said}"
    );
}
