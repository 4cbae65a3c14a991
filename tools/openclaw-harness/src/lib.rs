//! A real OpenClaw gateway for the tests and the live benchmark: installed from the npm registry into a cache
//! outside the repository ([`install`]), started on loopback against a state directory
//! ([`Gateway::start`]), driven over its WebSocket protocol ([`Gateway::rpc`], [`Client`])
//! and its `POST /tools/invoke` ([`invoke_tool`]),
//! and pointed at a scripted OpenAI-compatible model server on loopback ([`MockModel`])
//! when a test needs agent runs. Both eras ([`Era`]): the documents' (protocol 3, the
//! default package) and today's ([`TODAY_PACKAGE`]: Node 24, protocol 4, SQLite state,
//! ready at `/readyz`; a legacy state is imported first by its own `openclaw doctor --fix`,
//! [`import_legacy`]).
//!
//! Only npm and the npm registry are needed, once: the cache (`$SESSION_TOOLS_OPENCLAW_HOME`,
//! default `$HOME/.cache/session-tools/openclaw`, never inside a git repository) keeps
//! Node 22 and the gateway package for later runs; a fresh install takes about 80 s (npm
//! ~45 s, then a first start that fills the package's transpile cache ~35 s), later gateway
//! starts 4-10 s. Every failure is an error saying what failed and how to fix it; nothing
//! here skips a test. `SESSION_TOOLS_OPENCLAW_KEEP=1` keeps each gateway's temporary
//! directory (config, logs, fake `HOME`) for a look afterwards.
//!
//! ```no_run
//! use openclaw_harness::{Gateway, GatewayOptions, MockModel, ModelReply};
//! let model = MockModel::start(|_| ModelReply::Text("pong".into())).unwrap();
//! let state = tempfile::tempdir().unwrap(); // an OpenClaw state directory
//! let options = GatewayOptions { extra_config: model.model_config("mock", "m1"), ..Default::default() };
//! let gateway = Gateway::start(state.path(), options).unwrap_or_else(|e| panic!("{e}"));
//! let list = gateway.rpc("sessions.list", serde_json::json!({})).unwrap();
//! let done = gateway.rpc_final("agent", serde_json::json!({"message": "ping", "sessionKey": "main", "idempotencyKey": "r1"}));
//! ```

#![forbid(unsafe_code)]

mod gateway;
mod install;
mod model;
mod plugin;
mod tools_invoke;

pub use gateway::import_legacy;
pub use gateway::{Client, Gateway, GatewayOptions, RpcError};
pub use install::install_node_only as install_node;
pub use install::{
    cache_home, Era, Installation, DEFAULT_PACKAGE, HOME_ENV, NODE_24_VERSION, NODE_VERSION, OPENCLAW_PACKAGE, TODAY_PACKAGE,
};
/// Installs (on first use, into [`cache_home`]) Node (22 or 24, by [`Era`]) and the gateway `package`
/// (`name@version`), and starts it once to fill its transpile cache; answers where they
/// are. Blocks for minutes the first time; other processes wait on its lock file.
pub fn install(package: &str) -> Result<Installation, String> {
    install::install_with(package, gateway::warm_up)
}

pub use model::{MockModel, ModelMessage, ModelReply, ModelRequest, ModelTool, ToolCall};
pub use plugin::{install_plugin, pack};
pub use tools_invoke::{invoke_tool, Invoked};

use std::io::Read;
use std::path::Path;

use serde_json::Value;

/// Merges `extra` into `base`: objects key by key (recursively), anything else replaced.
pub fn deep_merge(base: &mut Value, extra: &Value) {
    match (base, extra) {
        (Value::Object(base), Value::Object(extra)) => {
            for (key, value) in extra {
                match base.get_mut(key) {
                    Some(slot) => deep_merge(slot, value),
                    None => {
                        base.insert(key.clone(), value.clone());
                    }
                }
            }
        }
        (base, extra) => *base = extra.clone(),
    }
}

/// `bytes` random bytes from the OS, as lowercase hex.
pub fn random_hex(bytes: usize) -> String {
    let mut buf = vec![0u8; bytes];
    let filled = std::fs::File::open("/dev/urandom").and_then(|mut f| f.read_exact(&mut buf)).is_ok();
    if !filled {
        // No /dev/urandom: time and pid are unique enough for a loopback token.
        let seed = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos())
            ^ u128::from(std::process::id()) << 64;
        for (i, b) in buf.iter_mut().enumerate() {
            *b = (seed >> ((i % 16) * 8)) as u8 ^ (i as u8).wrapping_mul(151);
        }
    }
    buf.iter().map(|b| format!("{b:02x}")).collect()
}

/// The last `lines` lines of a text file (lossy), or a note that it cannot be read.
pub fn file_tail(path: &Path, lines: usize) -> String {
    match std::fs::read(path) {
        Ok(bytes) => {
            let text = String::from_utf8_lossy(&bytes);
            let all: Vec<&str> = text.lines().collect();
            all[all.len().saturating_sub(lines)..].join("\n")
        }
        Err(e) => format!("(cannot read {}: {e})", path.display()),
    }
}
