//! Tool calls through the real component, run by the host in wasmtime: every call must
//! end in a JSON result or a tool error, and the jobs it starts must not break the
//! instance — never a trap, a limit or an invalid answer. Input: as `gateway_answers`
//! (`<tool><caller><config>` then `{"args": …, "answers": […]}` or `[answers…]`); a
//! payload that is not JSON is taken as the arguments (as in `tool_args`).
#![no_main]

use std::sync::{Arc, OnceLock};

use libfuzzer_sys::fuzz_target;
use session_tools_fuzz::{check_answer, default_answers, Input, QueueGateway, Services};
use session_tools_host::config::GuestConfig;
use session_tools_host::{AgentSetup, CallError, EngineOptions, Limits, Runtime};

fn runtime() -> &'static Runtime {
    static RUNTIME: OnceLock<Runtime> = OnceLock::new();
    RUNTIME.get_or_init(|| {
        let cache = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/component-cache");
        let options = EngineOptions { cache_dir: Some(cache), ..EngineOptions::default() };
        Runtime::new(session_tools_host::COMPONENT, &options, &Limits::default()).expect("loading the component")
    })
}

fuzz_target!(|data: &[u8]| {
    let input = Input::parse(data);
    let (args, answers) = input.answers().unwrap_or_else(|| (input.text(), default_answers()));
    let gateway = Arc::new(QueueGateway::new(answers));
    let services = Arc::new(Services::new());
    let setup = AgentSetup {
        name: "fuzz".into(),
        gateway: gateway.clone(),
        services: services.clone(),
        config: GuestConfig::of(&serde_json::from_str(input.config_json).expect("the fixed configs are JSON")),
        state_dir: "/state".into(),
        limits: Limits::default(),
    };
    let mut sandbox = runtime().instantiate(&setup).expect("instantiating the component");
    match sandbox.call_tool(input.tool, &input.caller, &args) {
        Ok(output) => {
            let jobs = check_answer(input.tool, &args, &Ok(output));
            // The host's job runner, every step in this instance (`Sandbox::run_jobs`).
            if let Err(e) = sandbox.run_jobs(&input.caller, jobs) {
                panic!("{}: a job broke the instance: {e}", input.tool);
            }
        }
        Err(CallError::Tool(e)) => {
            check_answer(input.tool, &args, &Err(e));
        }
        Err(e) => panic!("{}: {e} (arguments {args:?})", input.tool),
    }
    assert!(!sandbox.is_broken(), "the instance is broken");
});
