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

/// How the engine is set up: [`EngineOptions::default`], changed with the `with_` methods
/// (fields may be added in a minor release).
#[derive(Debug, Clone)]
#[non_exhaustive]
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

impl EngineOptions {
    /// Whether instance memories come from a pre-reserved pool.
    #[must_use]
    pub fn with_pooling(mut self, pooling: bool) -> Self {
        self.pooling = pooling;
        self
    }

    /// How many instances the pool holds at most.
    #[must_use]
    pub fn with_pool_instances(mut self, pool_instances: u32) -> Self {
        self.pool_instances = pool_instances;
        self
    }

    /// Where compiled components are cached (`None`: no cache).
    #[must_use]
    pub fn with_cache_dir(mut self, cache_dir: Option<PathBuf>) -> Self {
        self.cache_dir = cache_dir;
        self
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
/// `session-tools-bench --only variants`.
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
        // A guarded instance is two guests in one component: 2 memories, 4 tables
        // and 4x the core instances of a plain one (its adapters and shims), and every slot
        // may hold one.
        pool.total_core_instances(options.pool_instances.saturating_mul(24));
        pool.total_memories(options.pool_instances.saturating_mul(2));
        pool.total_tables(options.pool_instances.saturating_mul(4));
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
        // The world is synchronous, and wasmtime is built without `async` (the
        // host answers WASI itself), so the pool reserves no fiber stacks (2 ms off engine
        // creation, BENCHMARKS.md).
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

/// What the compiled-component cache did for one load.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum CacheOutcome {
    /// No cache directory was given: compiled.
    Off,
    /// Loaded from the cache.
    Loaded,
    /// Not in the cache: compiled, and the cache filled.
    Filled,
    /// The cached file was damaged (not a cache file, its digest wrong, or refused by
    /// wasmtime): compiled, and the file replaced. Says what was wrong.
    Replaced(String),
    /// The cache failed the ownership checks: compiled in memory, the cache neither read
    /// nor written. Says which check failed.
    Refused(String),
    /// Compiled, but the cache could not be written. Says why.
    NotWritten(String),
}

impl CacheOutcome {
    /// What the user is to be told, once: `None` when the cache did what it should.
    pub fn notice(&self) -> Option<String> {
        match self {
            CacheOutcome::Off | CacheOutcome::Loaded | CacheOutcome::Filled => None,
            CacheOutcome::Replaced(why) => Some(format!("the compiled-component cache was damaged ({why}); recompiled and replaced")),
            CacheOutcome::Refused(why) => {
                Some(format!("the compiled-component cache is not used: {why}; the component was compiled in memory"))
            }
            CacheOutcome::NotWritten(why) => Some(format!("cannot write the compiled-component cache: {why}")),
        }
    }
}

/// Loads a component: from the compiled cache when it holds this component for this
/// engine and passes its checks, else by compiling it (and filling the cache).
#[cfg_attr(not(feature = "bench-internals"), allow(dead_code))] // the bench's; the host loads through the cache outcome
pub fn load_component(engine: &Engine, bytes: &[u8], cache_dir: Option<&Path>) -> Result<Component> {
    load_component_cached(engine, bytes, cache_dir).map(|(component, _)| component)
}

/// [`load_component`], and what the cache did (for the caller to tell, once, when the
/// cache could not be used: the library does not print).
///
/// The cache holds native code this process will run, so a cached file is used only when
/// the directory and the file are this user's, not writable by anyone else, not links (the
/// file opened with `O_NOFOLLOW`, checked through the descriptor it is read from, with one
/// link), and its digest matches (SECURITY.md, "The compiled-component cache").
pub fn load_component_cached(engine: &Engine, bytes: &[u8], cache_dir: Option<&Path>) -> Result<(Component, CacheOutcome)> {
    let compile = || Component::new(engine, bytes).map_err(anyhow::Error::from).context("compiling the component");
    let Some(dir) = cache_dir else {
        return Ok((compile()?, CacheOutcome::Off));
    };
    let key = cache_key(engine, bytes);
    let path = dir.join(cache_file_name(&key));
    let damaged = match cache::read(dir, &path, &key) {
        cache::Found::Absent => None,
        cache::Found::Refused(why) => return Ok((compile()?, CacheOutcome::Refused(why))),
        cache::Found::Damaged(why) => Some(why),
        cache::Found::Sound(file) => {
            // SAFETY: `deserialize` trusts its bytes to be wasmtime's own output. These are:
            // the file is this user's, in this user's directory, neither writable by anyone
            // else nor a link, so only this user (or root) wrote it; its digest, over the
            // cache key (engine compatibility hash and component) and the bytes, matches, so
            // they are what `precompile_component` gave an engine like this one when the file
            // was written; what wasmtime maps is that same file, by its descriptor; and
            // wasmtime checks its own header (version, target, settings).
            match unsafe { file.deserialize(engine) } {
                Ok(component) => return Ok((component, CacheOutcome::Loaded)),
                Err(e) => Some(format!("{} was refused by wasmtime: {e}", path.display())),
            }
        }
    };
    let compiled = engine.precompile_component(bytes).map_err(anyhow::Error::from).context("compiling the component")?;
    let outcome = match cache::write(dir, &path, &key, &compiled) {
        Err(cache::Unwritten::Refused(why)) => CacheOutcome::Refused(why),
        Err(cache::Unwritten::Failed(why)) => CacheOutcome::NotWritten(why),
        Ok(()) => damaged.map_or(CacheOutcome::Filled, CacheOutcome::Replaced),
    };
    // SAFETY: these bytes were just produced by this engine.
    let component =
        unsafe { Component::deserialize(engine, &compiled) }.map_err(anyhow::Error::from).context("loading the compiled component")?;
    Ok((component, outcome))
}

/// `sha256(format, engine compatibility hash, component)`: what a cached file is of.
fn cache_key(engine: &Engine, bytes: &[u8]) -> [u8; 32] {
    use std::hash::{Hash, Hasher};
    let mut engine_hash = std::collections::hash_map::DefaultHasher::new();
    engine.precompile_compatibility_hash().hash(&mut engine_hash);
    let mut digest = Sha256::new();
    digest.update(cache::FORMAT);
    digest.update(engine_hash.finish().to_le_bytes());
    digest.update(bytes);
    digest.finalize().into()
}

/// `<first half of the key, hex>.cwasm`.
fn cache_file_name(key: &[u8; 32]) -> String {
    let hex: String = key[..16].iter().map(|b| format!("{b:02x}")).collect();
    format!("{hex}.cwasm")
}

/// The cache on disk: its checks, its file format.
mod cache {
    use std::io::Read;
    use std::path::Path;

    use anyhow::Result;
    use sha2::{Digest, Sha256};
    use wasmtime::component::Component;
    use wasmtime::Engine;

    use crate::private_files::{create_private_dir, is_link_refused, private_options, write_atomically, Durability};

    /// A cache file is wasmtime's compiled bytes, then this tag (the format's version), then
    /// the SHA-256 of the cache key and the compiled bytes. At the end, so wasmtime can map
    /// the file itself (it reads its own sections and ignores what follows them).
    pub const FORMAT: &[u8; 8] = b"stcwasm1";
    const TRAILER: usize = FORMAT.len() + 32;

    fn digest(key: &[u8; 32], compiled: &[u8]) -> [u8; 32] {
        let mut digest = Sha256::new();
        digest.update(key);
        digest.update(compiled);
        digest.finalize().into()
    }

    /// What was found in the cache.
    pub enum Found {
        Absent,
        /// A file that passed every check.
        Sound(Checked),
        /// A file of ours that is not what was written.
        Damaged(String),
        /// A directory or a file that fails the ownership checks.
        Refused(String),
    }

    /// A cache file that passed the checks: the descriptor they were made on and its bytes.
    pub struct Checked {
        file: std::fs::File,
        bytes: Vec<u8>,
    }

    impl Checked {
        fn compiled(&self) -> &[u8] {
            &self.bytes[..self.bytes.len() - TRAILER]
        }

        /// The component. Through `/proc/self/fd`, wasmtime maps the very file checked (the
        /// descriptor, not a path looked up again), so its code pages are the page cache's,
        /// shared with every process that loads it; elsewhere, from the bytes read.
        ///
        /// # Safety
        ///
        /// As [`Component::deserialize`]: the bytes are wasmtime's own output.
        pub unsafe fn deserialize(&self, engine: &Engine) -> Result<Component> {
            #[cfg(target_os = "linux")]
            {
                use std::os::fd::AsRawFd;
                let by_descriptor = format!("/proc/self/fd/{}", self.file.as_raw_fd());
                // SAFETY: the caller's.
                if let Ok(component) = unsafe { Component::deserialize_file(engine, by_descriptor) } {
                    return Ok(component);
                }
            }
            // SAFETY: the caller's.
            Ok(unsafe { Component::deserialize(engine, self.compiled()) }?)
        }
    }

    /// Why the cache was not written.
    pub enum Unwritten {
        Refused(String),
        Failed(String),
    }

    /// Whether a directory or a file of the cache can be trusted: this user's, not a link,
    /// writable by nobody else; a file also with a single link (no hard link to it from
    /// elsewhere). `meta` is the directory's own (`lstat`) or the open file's (`fstat`).
    #[cfg(unix)]
    fn check(meta: &std::fs::Metadata, what: &Path, directory: bool) -> Result<(), String> {
        use std::os::unix::fs::MetadataExt;
        let me = rustix::process::geteuid().as_raw();
        let what = what.display();
        if meta.file_type().is_symlink() {
            return Err(format!("{what} is a symbolic link"));
        }
        if directory && !meta.is_dir() {
            return Err(format!("{what} is not a directory"));
        }
        if !directory && !meta.is_file() {
            return Err(format!("{what} is not a regular file"));
        }
        if meta.uid() != me {
            return Err(format!("{what} belongs to uid {}, not to this user (uid {me})", meta.uid()));
        }
        if meta.mode() & 0o022 != 0 {
            return Err(format!("{what} can be written by other users (mode {:o})", meta.mode() & 0o7777));
        }
        if !directory && meta.nlink() != 1 {
            return Err(format!("{what} has {} hard links", meta.nlink()));
        }
        Ok(())
    }

    #[cfg(not(unix))]
    fn check(_: &std::fs::Metadata, what: &Path, _: bool) -> Result<(), String> {
        Err(format!("the owner of {} cannot be checked on this system", what.display()))
    }

    fn check_dir(dir: &Path) -> Result<bool, String> {
        match std::fs::symlink_metadata(dir) {
            Ok(meta) => check(&meta, dir, true).map(|()| true),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(false),
            Err(e) => Err(format!("{}: {e}", dir.display())),
        }
    }

    /// Reads the cached file at `path` in `dir`, checked.
    pub fn read(dir: &Path, path: &Path, key: &[u8; 32]) -> Found {
        match check_dir(dir) {
            Ok(true) => {}
            Ok(false) => return Found::Absent,
            Err(why) => return Found::Refused(why),
        }
        let mut file = match private_options().read(true).open(path) {
            Ok(file) => file,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Found::Absent,
            Err(e) if is_link_refused(&e) => return Found::Refused(format!("{} is a symbolic link", path.display())),
            Err(e) => return Found::Refused(format!("{}: {e}", path.display())),
        };
        // The descriptor read from is the one checked: a file swapped after the check is
        // never the one read.
        if let Err(why) = file.metadata().map_err(|e| format!("{}: {e}", path.display())).and_then(|m| check(&m, path, false)) {
            return Found::Refused(why);
        }
        let mut bytes = Vec::new();
        if let Err(e) = file.read_to_end(&mut bytes) {
            return Found::Damaged(format!("{}: {e}", path.display()));
        }
        let Some(end) = bytes.len().checked_sub(TRAILER).filter(|end| &bytes[*end..*end + FORMAT.len()] == FORMAT) else {
            return Found::Damaged(format!("{} is not a cache file of this version", path.display()));
        };
        if bytes[end + FORMAT.len()..] != digest(key, &bytes[..end]) {
            return Found::Damaged(format!("the digest of {} does not match its contents", path.display()));
        }
        Found::Sound(Checked { file, bytes })
    }

    /// Writes the compiled bytes to `path` in `dir` (made 0700 if need be), with their
    /// digest, atomically, mode 0600.
    pub fn write(dir: &Path, path: &Path, key: &[u8; 32], compiled: &[u8]) -> Result<(), Unwritten> {
        let failed = |e: std::io::Error| Unwritten::Failed(format!("{}: {e}", path.display()));
        create_private_dir(dir).map_err(failed)?;
        check_dir(dir).map_err(Unwritten::Refused)?;
        let mut contents = Vec::with_capacity(compiled.len() + TRAILER);
        contents.extend_from_slice(compiled);
        contents.extend_from_slice(FORMAT);
        contents.extend_from_slice(&digest(key, compiled));
        write_atomically(path, &contents, Durability::Cache).map_err(failed)
    }
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
