//! Helpers shared by the integration tests.

#![forbid(unsafe_code)]

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use session_tools_host::{EngineOptions, Limits, Runtime};

pub mod cli;
pub mod doc_pages;
pub mod fake_gateway;
pub mod fault_points;
/// The real OpenClaw gateway and the mock model ([`openclaw_harness`]).
pub use openclaw_harness as openclaw;
pub mod oracles;
pub mod plugin;

/// The project root.
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("tests/ is in the workspace").to_path_buf()
}

/// The sample OpenClaw state shipped with the project.
pub fn sample_state() -> PathBuf {
    root().join("examples/openclaw-state")
}

/// Copies a directory tree.
pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// A fresh copy of the sample state in a temporary directory.
pub fn sample_copy() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&sample_state(), dir.path());
    dir
}

/// Engine options for tests: the compiled-component cache lives in the target dir.
pub fn engine_options() -> EngineOptions {
    EngineOptions::default().with_cache_dir(Some(root().join("target/component-cache")))
}

/// One runtime (the component compiled once) per test process.
pub fn runtime() -> &'static Runtime {
    static RUNTIME: OnceLock<Runtime> = OnceLock::new();
    RUNTIME
        .get_or_init(|| Runtime::new(session_tools_host::COMPONENT, &engine_options(), &Limits::default()).expect("loading the component"))
}

/// A state directory served as the command line serves it: its embedded gateway, and a
/// service over it (the service's methods through `Deref`).
pub struct Served {
    pub service: session_tools_host::Service,
    pub gateway: std::sync::Arc<session_tools_host::gateway::embedded::EmbeddedGateway>,
}

impl Served {
    /// Opens `dir` with the test compile cache and the echo runtime for runs; `configure`
    /// may change the service's settings (and `gateway` the gateway's, its runtime among
    /// them) before they are opened.
    pub fn open(
        dir: &Path,
        gateway: impl FnOnce(session_tools_host::gateway::embedded::EmbeddedBuilder) -> session_tools_host::gateway::embedded::EmbeddedBuilder,
        configure: impl FnOnce(session_tools_host::ServiceBuilder) -> session_tools_host::ServiceBuilder,
    ) -> session_tools_host::Result<Served> {
        let echo = std::sync::Arc::new(session_tools_host::gateway::embedded::runtime::EchoRuntime);
        let gateway = gateway(session_tools_host::gateway::embedded::EmbeddedGateway::builder(dir).with_runtime(echo)).open()?;
        let builder = session_tools_host::ServiceBuilder::over_embedded(&gateway).with_engine(engine_options());
        Ok(Served { service: configure(builder).build()?, gateway })
    }

    pub fn gateway(&self) -> &std::sync::Arc<session_tools_host::gateway::embedded::EmbeddedGateway> {
        &self.gateway
    }

    /// Waits until the gateway's runs have ended; answers whether they all did in time.
    pub fn wait_for_runs(&self, timeout: std::time::Duration) -> bool {
        self.gateway.wait_runs_idle(timeout)
    }
}

impl std::ops::Deref for Served {
    type Target = session_tools_host::Service;

    fn deref(&self) -> &Self::Target {
        &self.service
    }
}
