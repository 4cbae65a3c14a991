//! The OpenClaw plugin inside a real OpenClaw gateway, for both packages of the reference's
//! era (`clawdbot@2026.1.24-3`, `openclaw@2026.1.29`) and today's (`openclaw@2026.9.6`, on
//! the sample its own doctor imports), from one package: the plugin packed with `npm pack`,
//! installed with the gateway's own `plugins install`, configured as `plugin/README.md`
//! says, and its tools called by the gateway's agents, whose model is a scripted
//! OpenAI-compatible server on loopback.
//!
//! Shown: the model is offered the plugin's tools and none of the core session tools; each
//! read tool answers what the Rust host answers over the same running gateway; a sandboxed
//! session sees only what it spawned (N15); a sub-agent is not offered the tools (N12); a
//! spawned child's completion is announced back; a `sessions_send` ping-pong runs to its
//! announce (run by the plugin's job service, inside the gateway). On 2026.9 also: the
//! tools come with a limited tool profile as the core ones do, the sandbox list takes them
//! with `alsoAllow`, and `POST /tools/invoke` refuses the plugin's spawn and send as it
//! refuses its own.
//!
//! Sandboxed sessions: the gateway puts a sandboxed session's tools in a Docker container,
//! and only asks Docker to create, start and inspect it before a run (no tool here runs in
//! it). The test gives the gateway a stand-in `docker` on its `PATH` that answers those
//! three; everything else is the real gateway. Without Node/npm or the npm registry the
//! tests fail saying why; they never skip.

#![forbid(unsafe_code)]

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use session_tools_host::gateway::live::LiveGateway;
use session_tools_host::{Caller, Service, ServiceBuilder};
use session_tools_tests::openclaw::{
    deep_merge, file_tail, install, install_plugin, invoke_tool, pack, Era, Gateway, GatewayOptions, MockModel, ModelReply, ModelRequest,
    DEFAULT_PACKAGE, OPENCLAW_PACKAGE, TODAY_PACKAGE,
};
use session_tools_tests::plugin::{plugin_dir, setup};
use session_tools_tests::{engine_options, root, sample_copy, Served};

use crate::imported::imported_sample;

/// The core session tools, and the plugin's default names for them (`plugin/README.md`).
const CORE: [&str; 5] = ["sessions_list", "sessions_history", "sessions_send", "sessions_spawn", "agents_list"];
const PLUGIN: [&str; 5] = ["st_sessions_list", "st_sessions_history", "st_sessions_send", "st_sessions_spawn", "st_agents_list"];

const MAIN: &str = "agent:main:main";
const CHANNEL: &str = "agent:main:discord:channel:1187421193829244938";

/// One gateway at a time: each runs agents, sandboxes and the plugin's workers.
static SERIAL: Mutex<()> = Mutex::new(());
static PACKED: OnceLock<Result<(tempfile::TempDir, PathBuf), String>> = OnceLock::new();

/// `npm pack` of `plugin/` (after [`setup`] rebuilt its component from the host's bytes).
fn packed() -> &'static Path {
    let made = PACKED.get_or_init(|| {
        setup();
        let installation = install(DEFAULT_PACKAGE)?;
        let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
        let tgz = pack(&installation, &plugin_dir(), dir.path())?;
        Ok((dir, tgz))
    });
    match made {
        Ok((_, tgz)) => tgz,
        Err(e) => panic!("{e}"),
    }
}

/// A stand-in `docker` on the gateway's PATH: `tests/fixtures/stand-in-docker.mjs`, run by the
/// gateway's own Node, answers what a Docker daemon answers for the sandbox containers the
/// gateway creates, starts, inspects and removes for a sandboxed session, and runs nothing in
/// them (see the script: today's gateway reads a container's id and mount table before it
/// uses it, and inspects its own container when it runs in one).
fn fake_docker(dir: &Path, node: &Path) -> PathBuf {
    let bin = dir.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let script = bin.join("docker");
    let stand_in = root().join("tests/fixtures/stand-in-docker.mjs");
    assert!(stand_in.is_file(), "{} is missing", stand_in.display());
    let state = dir.join("containers.json");
    let quote = |p: &Path| format!("'{}'", p.display().to_string().replace('\'', r"'\''"));
    // The arguments go on stdin, NUL-separated (see the script).
    let text = format!("#!/bin/sh\nprintf '%s\\0' \"$@\" | exec {} {} {}\n", quote(node), quote(&stand_in), quote(&state));
    std::fs::write(&script, text).unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    bin
}

/// The model: `CALL <tool> <json>` makes it call the tool, a tool's result makes it answer
/// "done"; the flows' steps answer as in `tests/live_gateway.rs`.
fn script(request: &ModelRequest) -> ModelReply {
    let system = request.system_prompt().unwrap_or_default();
    let user = request.last_user_text().unwrap_or_default();
    if system.contains("Agent-to-agent announce step") {
        return ModelReply::Text("Announced: the ping went through.".into());
    }
    if system.contains("Agent-to-agent reply step") {
        return ModelReply::Text("turn reply".into());
    }
    if !request.new_tool_results().is_empty() {
        return ModelReply::Text("done".into());
    }
    // Today's gateway may put an envelope (a timestamp) before the message's text.
    if let Some(call) = user.lines().find_map(|l| l.split_once("CALL ").map(|(_, call)| call.trim())) {
        let (tool, args) = call.split_once(' ').unwrap_or((call, "{}"));
        return ModelReply::ToolCalls(vec![(tool.to_string(), args.to_string())]);
    }
    if user.contains("compute the answer") {
        return ModelReply::Text("The answer is 42.".into());
    }
    if user.contains("ping") {
        return ModelReply::Text("pong".into());
    }
    ModelReply::Text("ok".into())
}

struct Scene {
    model: MockModel,
    gateway: Gateway,
    rust: Service,
    _state: tempfile::TempDir,
    _docker: tempfile::TempDir,
}

fn start(package: &str) -> Scene {
    let tgz = packed();
    let installation = install(package).unwrap_or_else(|e| panic!("installing {package}: {e}"));
    let today = installation.era == Era::Today;
    // Today's gateway runs on the sample as its own doctor imports it into SQLite.
    let state = if today {
        imported_sample(|_| {}).unwrap_or_else(|e| panic!("importing the sample for {package} failed:\n{e}"))
    } else {
        sample_copy()
    };
    let plugins = install_plugin(&installation, state.path(), tgz).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(plugins["entries"]["session-tools"]["enabled"], true, "{plugins:#}");
    assert!(state.path().join("extensions/session-tools/openclaw.plugin.json").is_file());
    let model = MockModel::start(script).unwrap();
    let mut config = model.model_config("mock", "mock-1");
    deep_merge(
        &mut config,
        &json!({
            "plugins": plugins,
            "tools": {
                "deny": CORE,
                "sandbox": {"tools": {"allow": PLUGIN}},
                "subagents": {"tools": {"deny": PLUGIN}},
            },
            "agents": {"defaults": {"sandbox": {"mode": "non-main"}, "subagents": {"model": "mock/mock-1"}}},
        }),
    );
    if !today {
        // Retired by 2026.9, which fixes the ping-pong at 5 turns (E2).
        config["session"] = json!({"agentToAgent": {"maxPingPongTurns": 2}});
    } else {
        // The README's config for 2026.9: the plugin's tools added to its default sandbox
        // allow-list (`alsoAllow`), which keeps the rest of that list (`exec`, `read`, …,
        // `sessions_yield`: a sandboxed child denied the plugin's tools, N12, still has a
        // tool, or 2026.9 refuses its run, "No callable tools remain").
        config["tools"]["sandbox"]["tools"] = json!({"alsoAllow": PLUGIN});
        // A limited tool profile: `messaging` brings the four session tools, as it brings
        // the core ones (the manifest's `toolMetadata.profiles`; without it the model is
        // offered none of the plugin's tools), and leaves out `agents_list`, as it leaves
        // out the core one, which `alsoAllow` adds.
        config["tools"]["profile"] = json!("messaging");
        config["tools"]["alsoAllow"] = json!(["st_agents_list"]);
    }
    let docker = tempfile::tempdir().unwrap();
    let path = format!(
        "{}:{}:{}",
        fake_docker(docker.path(), &installation.node).display(),
        installation.node.parent().unwrap().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let started = Instant::now();
    // The gateway puts the usual bin directories before its PATH at start unless told it
    // did already (`ensureClawdbotCliOnPath`); the stand-in must stay first.
    let env =
        vec![("PATH".into(), path), ("CLAWDBOT_PATH_BOOTSTRAPPED".into(), "1".into()), ("OPENCLAW_PATH_BOOTSTRAPPED".into(), "1".into())];
    let options = GatewayOptions { extra_config: config, env, startup_timeout: Duration::from_secs(240), ..GatewayOptions::default() };
    let gateway = Gateway::start_installed(installation, state.path(), options)
        .unwrap_or_else(|e| panic!("starting {package} with the plugin installed failed:\n{e}"));
    eprintln!("[plugin_gateway] {package} with the plugin up on port {} in {:.1} s", gateway.port(), started.elapsed().as_secs_f64());
    let live = Arc::new(
        LiveGateway::builder(gateway.url())
            .with_token(gateway.token())
            // Both hosts read a list's histories from the gateway's own state (E4): the
            // plugin in its process (January's functions, or 2026.9's plugin SDK and the wire's
            // `local-history`), the Rust host from the state directory the gateway names.
            .with_histories_on_disk(true)
            .open()
            .unwrap_or_else(|e| panic!("opening the live gateway: {e}\n{}", gateway.log_tail(30))),
    );
    assert!(live.reads_histories_on_disk(), "the Rust host reads the gateway's state here");
    let rust = ServiceBuilder::over_live(&live).with_engine(engine_options()).build().unwrap();
    Scene { model, gateway, rust, _state: state, _docker: docker }
}

/// What one agent turn did: the first model request of the run (what the model was offered)
/// and the tool's result as the model got it.
struct Turn {
    offered: Vec<String>,
    result: String,
}

impl Turn {
    fn json(&self) -> Value {
        serde_json::from_str(&self.result).unwrap_or_else(|e| panic!("the tool's result is not JSON ({e}): {}", self.result))
    }
}

impl Scene {
    fn log(&self) -> String {
        format!("--- gateway log ---\n{}\n--- file log ---\n{}", self.gateway.log_tail(40), file_tail(&self.gateway.file_log_path(), 30))
    }

    /// An agent turn of session `key` in which the model calls `tool` with `args`.
    fn turn(&self, key: &str, tool: &str, args: &str) -> Turn {
        let message = format!("CALL {tool} {args}");
        // Only this turn's requests (an earlier turn may have sent the same message).
        let before = self.model.requests().len();
        let final_answer = self.gateway.rpc_final(
            "agent",
            json!({"sessionKey": key, "message": message, "idempotencyKey": uuid::Uuid::new_v4().to_string(), "deliver": false}),
        );
        if let Err(e) = &final_answer {
            panic!("the agent turn of {key} calling {tool} failed: {e}\n{}", self.log());
        }
        let requests = self.model.requests();
        let ours: Vec<&ModelRequest> =
            requests[before..].iter().filter(|r| r.last_user_text().is_some_and(|t| t.contains(&message))).collect();
        let first = ours.first().unwrap_or_else(|| panic!("the model never saw `{message}`\n{}", self.log()));
        let result = ours
            .iter()
            .flat_map(|r| r.new_tool_results().into_iter().map(move |(id, text)| (r, id, text)))
            .find(|(r, id, _)| r.tool_call(id).is_some_and(|c| c.name == tool))
            .map(|(_, _, text)| text.to_string())
            .unwrap_or_else(|| panic!("no result of {tool} reached the model (offered {:?})\n{}", first.tool_names(), self.log()));
        Turn { offered: first.tool_names().into_iter().map(str::to_string).collect(), result }
    }

    /// The Rust host's answer for the same caller, over the same running gateway.
    fn rust(&self, key: &str, sandboxed: bool, tool: &str, args: &str) -> Value {
        let caller = Caller { agent_session_key: Some(key.into()), sandboxed, ..Caller::default() };
        let text = self.rust.call(&caller, tool, args).unwrap_or_else(|e| panic!("the Rust host's {tool}: {e}"));
        serde_json::from_str(&text).unwrap()
    }

    /// The Rust host's `sessions_history` as the plugin reads it: on January's packages
    /// the gateway's `chat.history` (the plugin runs its steps in-process), on 2026.9 the
    /// gateway's own state read directly (E4: the raw transcript; the plugin reads it with
    /// the plugin SDK, the Rust live client would ask the RPC, whose display projection
    /// differs as the README says), so the embedded gateway over the gateway's directory.
    fn rust_history(&self, key: &str, args: &str) -> Value {
        if self.gateway.era() != Era::Today {
            return self.rust(key, false, "sessions_history", args);
        }
        let config = self.gateway.config_path().to_path_buf();
        let embedded = Served::open(self.gateway.state_dir(), |g| g.with_config_path(&config), |s| s)
            .unwrap_or_else(|e| panic!("the embedded gateway over the running gateway's state: {e}"));
        let caller = Caller { agent_session_key: Some(key.into()), ..Caller::default() };
        let text = embedded.call(&caller, "sessions_history", args).unwrap_or_else(|e| panic!("the Rust host's sessions_history: {e}"));
        serde_json::from_str(&text).unwrap()
    }

    fn wait_for(&self, what: &str, timeout: Duration, seen: impl Fn(&[ModelRequest]) -> bool) {
        let until = Instant::now() + timeout;
        while !seen(&self.model.requests()) {
            if Instant::now() > until {
                let asked: Vec<String> =
                    self.model.requests().iter().map(|r| format!("{:?}", r.last_user_text().unwrap_or_default())).collect();
                panic!("{what} did not happen within {} s; the model saw {asked:#?}\n{}", timeout.as_secs(), self.log());
            }
            std::thread::sleep(Duration::from_millis(200));
        }
    }
}

/// A list's rows without the caller's own session (shown as `main`, N5), which its own
/// turn keeps changing.
fn rows_but(list: &Value, key: &str) -> Vec<Value> {
    let rows = list["sessions"].as_array().unwrap_or_else(|| panic!("no sessions in {list:#}"));
    rows.iter().filter(|r| r["key"] != key && r["key"] != "main").cloned().collect()
}

fn the_plugin_serves_the_gateway_s_agents(package: &str) {
    let _serial = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    let scene = start(package);

    // The main session: not sandboxed. The model is offered the plugin's tools, not the core ones.
    let agents = scene.turn(MAIN, "st_agents_list", "{}");
    for name in PLUGIN {
        assert!(agents.offered.iter().any(|o| o == name), "{name} not offered: {:?}", agents.offered);
    }
    for name in CORE {
        assert!(!agents.offered.iter().any(|o| o == name), "core {name} offered: {:?}", agents.offered);
    }
    assert_eq!(agents.json(), scene.rust(MAIN, false, "agents_list", "{}"), "agents_list");

    // `POST /tools/invoke`: 2026.9 keeps its own spawn and send off that surface unless
    // `gateway.tools.allow` names them, and the plugin keeps its own off it too
    // (`plugin/lib/http-surface.mjs`); the reads are offered there. 2026.1.x has no such
    // default: there the two are found (and refuse the empty arguments).
    let (port, token) = (scene.gateway.port(), scene.gateway.token().to_string());
    let invoke = |tool: &str| invoke_tool(port, &token, tool, &json!({}), MAIN).unwrap_or_else(|e| panic!("{e}\n{}", scene.log()));
    let agents = invoke("st_agents_list");
    assert_eq!(agents.details(), Some(&scene.rust(MAIN, false, "agents_list", "{}")), "{:#}", agents.body);
    for tool in ["st_sessions_send", "st_sessions_spawn"] {
        let invoked = invoke(tool);
        if scene.gateway.era() == Era::Today {
            assert_eq!((invoked.status, &invoked.body["error"]["type"]), (404, &json!("not_found")), "{tool}: {:#}", invoked.body);
        } else {
            assert!(invoked.status != 404 && invoked.details().is_none(), "{tool}: HTTP {}: {:#}", invoked.status, invoked.body);
        }
    }

    let args = format!(r#"{{"sessionKey": "{CHANNEL}", "limit": 50}}"#);
    let history = scene.turn(MAIN, "st_sessions_history", &args);
    assert_eq!(history.json(), scene.rust_history(MAIN, &args), "sessions_history");
    assert!(!history.json()["messages"].as_array().unwrap().is_empty(), "{}", history.result);

    let args = r#"{"messageLimit": 2}"#;
    let listed = scene.turn(MAIN, "st_sessions_list", args).json();
    let expected = scene.rust(MAIN, false, "sessions_list", args);
    assert_eq!(rows_but(&listed, MAIN), rows_but(&expected, MAIN), "sessions_list");
    assert!(listed["sessions"].as_array().unwrap().len() >= 5, "{listed:#}");
    // The bridge found the gateway's own client and history functions in this package (it
    // says so when it falls back to a connection per call or a chat.history per row).
    let logged = format!(
        "{}{}",
        std::fs::read_to_string(scene.gateway.log_path()).unwrap_or_default(),
        std::fs::read_to_string(scene.gateway.file_log_path()).unwrap_or_default()
    );
    for fallback in ["no persistent gateway connection", "one chat.history at a time"] {
        assert!(!logged.contains(fallback), "the plugin fell back: {fallback}\n{}", scene.log());
    }

    // A send that waits for the reply, then the ping-pong and the announce in the background
    // (the plugin's job service, inside the gateway).
    let args = format!(r#"{{"sessionKey": "{CHANNEL}", "message": "ping", "timeoutSeconds": 90}}"#);
    let sent = scene.turn(MAIN, "st_sessions_send", &args).json();
    assert_eq!(sent["status"], "ok", "{sent:#}\n{}", scene.log());
    assert_eq!(sent["reply"], "pong", "{sent:#}");
    let count =
        |requests: &[ModelRequest], what: &str| requests.iter().filter(|r| r.system_prompt().unwrap_or_default().contains(what)).count();
    scene.wait_for("the ping-pong's announce step", Duration::from_secs(120), |r| count(r, "Agent-to-agent announce step") == 1);
    let turns = if scene.gateway.era() == Era::Today { 5 } else { 2 };
    assert_eq!(count(&scene.model.requests(), "Agent-to-agent reply step"), turns, "the ping-pong's turns");

    // A spawn: the child is not offered the tools (N12), and its completion is announced.
    let spawned = scene.turn(MAIN, "st_sessions_spawn", r#"{"task": "compute the answer", "label": "answer"}"#).json();
    assert_eq!(spawned["status"], "accepted", "{spawned:#}\n{}", scene.log());
    let child = spawned["childSessionKey"].as_str().unwrap().to_string();
    // The child's own run: its task, not the requester's turn that asked for it.
    let is_child = |r: &ModelRequest| {
        let text = r.last_user_text().unwrap_or_default();
        text.contains("compute the answer") && !text.contains("CALL ")
    };
    scene.wait_for("the child's run", Duration::from_secs(60), |r| r.iter().any(is_child));
    for request in scene.model.requests().iter().filter(|r| is_child(r)) {
        let names = request.tool_names();
        assert!(!names.iter().any(|n| PLUGIN.contains(n) || CORE.contains(n)), "a sub-agent was offered {names:?}");
    }
    scene.wait_for("the child's completion announce", Duration::from_secs(120), |r| {
        r.iter().any(|r| {
            r.last_user_text().unwrap_or_default().contains("Sub-agent announce step")
                && r.system_prompt().unwrap_or_default().contains("The answer is 42.")
        })
    });

    // A sandboxed session (non-main): offered the plugin's tools (the sandbox allow-list),
    // sees only what it spawned, and nothing else.
    let own = scene.turn(CHANNEL, "st_sessions_list", "{}");
    assert!(PLUGIN.iter().all(|n| own.offered.iter().any(|o| o == n)), "{:?}", own.offered);
    if scene.gateway.era() == Era::Today {
        // `alsoAllow` kept 2026.9's default sandbox list (an `allow` would have replaced it).
        assert!(own.offered.iter().any(|o| o == "sessions_yield"), "{:?}", own.offered);
    }
    assert_eq!(own.json(), scene.rust(CHANNEL, true, "sessions_list", "{}"), "a sandboxed sessions_list");
    assert_eq!(own.json()["sessions"], json!([]), "the channel spawned nothing yet: {}", own.result);
    let refused = scene.turn(CHANNEL, "st_sessions_history", &format!(r#"{{"sessionKey": "{MAIN}"}}"#)).json();
    assert_eq!(refused["status"], "forbidden", "{refused:#}");
    let refused = scene.turn(CHANNEL, "st_sessions_history", &format!(r#"{{"sessionKey": "{child}"}}"#)).json();
    assert_eq!(refused["status"], "forbidden", "main's child is not the channel's: {refused:#}");
    let spawned = scene.turn(CHANNEL, "st_sessions_spawn", r#"{"task": "compute the answer again"}"#).json();
    assert_eq!(spawned["status"], "accepted", "{spawned:#}\n{}", scene.log());
    let own_child = spawned["childSessionKey"].as_str().unwrap().to_string();
    let own = scene.turn(CHANNEL, "st_sessions_list", "{}").json();
    let keys: Vec<&str> = own["sessions"].as_array().unwrap().iter().filter_map(|s| s["key"].as_str()).collect();
    assert_eq!(
        keys,
        [own_child.as_str()],
        "{own:#}\nthe Rust host: {:#}\nsessions.list {{spawnedBy}}: {:#}",
        scene.rust(CHANNEL, true, "sessions_list", "{}"),
        scene.gateway.rpc("sessions.list", json!({"spawnedBy": CHANNEL})).unwrap_or_default()
    );
    // The child's row changes while its run goes on: the lists are compared once its run
    // has ended and its completion was announced to the channel (the second announce).
    let announces =
        |r: &[ModelRequest]| r.iter().filter(|r| r.last_user_text().unwrap_or_default().contains("Sub-agent announce step")).count();
    scene.wait_for("the channel's child's completion announce", Duration::from_secs(120), |r| announces(r) >= 2);
    let own = scene.turn(CHANNEL, "st_sessions_list", "{}").json();
    assert_eq!(own, scene.rust(CHANNEL, true, "sessions_list", "{}"), "the same list as the Rust host's");
}

#[test]
fn the_plugin_serves_the_agents_of_clawdbot_2026_1_24() {
    the_plugin_serves_the_gateway_s_agents(DEFAULT_PACKAGE);
}

#[test]
fn the_plugin_serves_the_agents_of_openclaw_2026_1_29() {
    the_plugin_serves_the_gateway_s_agents(OPENCLAW_PACKAGE);
}

/// Today's OpenClaw, from the same packed plugin: its manifest's `contracts.tools`, the
/// bridge through the plugin SDK's gateway client, protocol 4's spawn, and the five tools
/// offered directly with Tool Search on (its default).
#[test]
fn the_plugin_serves_the_agents_of_openclaw_2026_9_6() {
    the_plugin_serves_the_gateway_s_agents(TODAY_PACKAGE);
}
