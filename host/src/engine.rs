//! The wasmtime engine: configured once per process for fast, bounded instances, with the
//! compiled component cached on disk so a cold process loads it instead of compiling.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context, Result};
use sha2::{Digest, Sha256};
use wasmtime::component::Component;
use wasmtime::{Config, Engine, InstanceAllocationStrategy, PoolingAllocationConfig};

use crate::limits::Limits;

/// How often the engine's epoch advances. Per-call CPU budgets are checked at this
/// granularity.
pub const EPOCH_TICK: Duration = Duration::from_millis(10);

/// How the engine is set up.
#[derive(Debug, Clone)]
pub struct EngineOptions {
    /// Keep instance memories in a pre-reserved pool (fast instantiation). The pool's size
    /// is `pool_instances`.
    pub pooling: bool,
    /// How many instances the pool holds at most (live agents plus jobs in flight).
    pub pool_instances: u32,
    /// Where compiled components are cached; `None` disables the cache.
    pub cache_dir: Option<PathBuf>,
}

impl Default for EngineOptions {
    fn default() -> Self {
        EngineOptions { pooling: true, pool_instances: 1_000, cache_dir: default_cache_dir() }
    }
}

/// `$SESSION_TOOLS_CACHE_DIR`, else `$XDG_CACHE_HOME/session-tools`, else
/// `~/.cache/session-tools`.
pub fn default_cache_dir() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("SESSION_TOOLS_CACHE_DIR") {
        return (!dir.is_empty()).then(|| PathBuf::from(dir));
    }
    if let Some(dir) = std::env::var_os("XDG_CACHE_HOME").filter(|d| !d.is_empty()) {
        return Some(PathBuf::from(dir).join("session-tools"));
    }
    std::env::var_os("HOME").filter(|d| !d.is_empty()).map(|home| PathBuf::from(home).join(".cache/session-tools"))
}

/// Builds the engine: component model on, async concurrency off (the world is
/// synchronous), epoch interruption for CPU budgets, copy-on-write memory images.
pub fn build_engine(options: &EngineOptions, limits: &Limits) -> Result<Engine> {
    build_engine_with(options, limits, |_, _| {})
}

/// [`build_engine`] with its settings changed by `tweak` before the engine is made (the
/// pooling settings apply only with `options.pooling`): for experiments such as
/// `session-tools bench --only variants`.
pub fn build_engine_with(
    options: &EngineOptions,
    limits: &Limits,
    tweak: impl FnOnce(&mut Config, &mut PoolingAllocationConfig),
) -> Result<Engine> {
    let mut config = Config::new();
    config.wasm_component_model(true);
    config.epoch_interruption(true);
    config.memory_init_cow(true);
    config.concurrency_support(false);
    config.max_wasm_stack(limits.wasm_stack_bytes);
    if options.pooling {
        let mut pool = PoolingAllocationConfig::default();
        pool.total_component_instances(options.pool_instances);
        pool.total_core_instances(options.pool_instances.saturating_mul(4));
        pool.total_memories(options.pool_instances.saturating_mul(2));
        pool.total_tables(options.pool_instances.saturating_mul(2));
        pool.max_memory_size(limits.memory_bytes);
        pool.max_memories_per_component(4);
        pool.max_tables_per_component(4);
        pool.table_elements(limits.table_elements as usize);
        pool.linear_memory_keep_resident(64 * 1024);
        pool.table_keep_resident(16 * 1024);
        // Reset only the pages an instance dirtied (Linux 6.7+; elsewhere the usual reset):
        // a reused slot then starts with no page faults (BENCHMARKS.md: instantiate and
        // configure 19.9 -> 8.2 us).
        pool.pagemap_scan(wasmtime::Enabled::Auto);
        // The world is synchronous: no async fiber stacks (2 ms off engine creation).
        pool.total_stacks(0);
        // Reserve just what the memory cap allows, so thousands of pooled slots fit in the
        // address space; bounds checks stay elided by the guard region.
        config.memory_reservation(limits.memory_bytes as u64);
        config.memory_guard_size(64 << 20);
        tweak(&mut config, &mut pool);
        config.allocation_strategy(InstanceAllocationStrategy::Pooling(pool));
    } else {
        tweak(&mut config, &mut PoolingAllocationConfig::default());
    }
    Engine::new(&config).map_err(anyhow::Error::from).context("creating the wasmtime engine")
}

/// Loads a component: from the compiled cache when it holds this component for this
/// engine, else by compiling it (and filling the cache).
pub fn load_component(engine: &Engine, bytes: &[u8], cache_dir: Option<&Path>) -> Result<Component> {
    let Some(dir) = cache_dir else {
        return Component::new(engine, bytes).map_err(anyhow::Error::from).context("compiling the component");
    };
    let path = dir.join(cache_file_name(engine, bytes));
    if path.is_file() {
        // SAFETY: the file was written by `precompile_component` of an engine with the
        // same compatibility hash (it is in the file name) into a directory only this
        // user can write; wasmtime still checks the header before using it.
        match unsafe { Component::deserialize_file(engine, &path) } {
            Ok(component) => return Ok(component),
            Err(_) => {
                let _ = std::fs::remove_file(&path);
            }
        }
    }
    let compiled = engine.precompile_component(bytes).map_err(anyhow::Error::from).context("compiling the component")?;
    if let Err(e) = write_cache(dir, &path, &compiled) {
        eprintln!("session-tools: cannot write the compiled-component cache {}: {e:#}", path.display());
    }
    // SAFETY: these bytes were just produced by this engine.
    unsafe { Component::deserialize(engine, &compiled) }.map_err(anyhow::Error::from).context("loading the compiled component")
}

/// `<sha256(engine compatibility hash, component)>.cwasm`.
fn cache_file_name(engine: &Engine, bytes: &[u8]) -> String {
    use std::hash::{Hash, Hasher};
    let mut engine_hash = std::collections::hash_map::DefaultHasher::new();
    engine.precompile_compatibility_hash().hash(&mut engine_hash);
    let mut digest = Sha256::new();
    digest.update(engine_hash.finish().to_le_bytes());
    digest.update(bytes);
    let hex: String = digest.finalize().iter().map(|b| format!("{b:02x}")).collect();
    format!("{}.cwasm", &hex[..32])
}

fn write_cache(dir: &Path, path: &Path, compiled: &[u8]) -> Result<()> {
    create_private_dir(dir)?;
    let tmp = dir.join(format!(".{}.{}.tmp", std::process::id(), uuid::Uuid::new_v4()));
    std::fs::write(&tmp, compiled)?;
    std::fs::rename(&tmp, path).inspect_err(|_| {
        let _ = std::fs::remove_file(&tmp);
    })?;
    Ok(())
}

fn create_private_dir(dir: &Path) -> Result<()> {
    std::fs::create_dir_all(dir)?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700))?;
    }
    Ok(())
}

/// Advances the engine's epoch every [`EPOCH_TICK`] while alive.
pub struct EpochTicker {
    stop: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl EpochTicker {
    pub fn start(engine: &Engine) -> EpochTicker {
        let stop = Arc::new(AtomicBool::new(false));
        let weak = engine.weak();
        let flag = stop.clone();
        let thread = std::thread::Builder::new()
            .name("session-tools-epoch".into())
            .spawn(move || {
                // Parked rather than asleep, so a drop wakes it at once (a process that
                // is done does not wait out a tick).
                while !flag.load(Ordering::Relaxed) {
                    let due = std::time::Instant::now() + EPOCH_TICK;
                    while !flag.load(Ordering::Relaxed) {
                        let left = due.saturating_duration_since(std::time::Instant::now());
                        if left.is_zero() {
                            break;
                        }
                        std::thread::park_timeout(left);
                    }
                    if flag.load(Ordering::Relaxed) {
                        break;
                    }
                    match weak.upgrade() {
                        Some(engine) => engine.increment_epoch(),
                        None => break,
                    }
                }
            })
            .expect("spawning the epoch thread");
        EpochTicker { stop, thread: Some(thread) }
    }
}

impl Drop for EpochTicker {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(thread) = self.thread.take() {
            thread.thread().unpark();
            let _ = thread.join();
        }
    }
}
