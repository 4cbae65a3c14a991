//! Writes to a state directory's store as fast as it can: COUNT sessions of its own
//! (then exits), or forever when no COUNT is given (the crash-safety test kills it).
//!
//! Usage: store-writer STATE_DIR NAME [COUNT]

#![forbid(unsafe_code)]

use std::sync::Arc;

use session_tools_host::config::DeploymentConfig;
use session_tools_host::gateway::embedded::runtime::EchoRuntime;
use session_tools_host::gateway::embedded::{EmbeddedGateway, Patch};
use session_tools_host::system_clock;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let dir = std::path::PathBuf::from(&args[1]);
    let name = &args[2];
    let count: Option<u64> = args.get(3).map(|c| c.parse().expect("COUNT is a number"));
    let config = DeploymentConfig::load(&dir, None).expect("config");
    let gateway = EmbeddedGateway::open(&dir, config, Arc::new(EchoRuntime), system_clock()).expect("gateway");
    for i in 0u64.. {
        if count.is_some_and(|c| i >= c) {
            break;
        }
        let key = match count {
            Some(_) => format!("agent:main:writer-{name}-{i}"),
            None => format!("agent:main:writer-{name}-{}", i % 50),
        };
        let patch = Patch { label: Some(Some(format!("{name}-{i}"))), ..Default::default() };
        if let Err(e) = gateway.patch(&key, &patch) {
            eprintln!("write {i} failed: {e}");
            std::process::exit(1);
        }
    }
}
