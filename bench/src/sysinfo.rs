//! The machine and the versions a run was made with, and the process's memory.

/// Where and with what a run was made.
#[derive(Debug, Clone)]
pub struct Machine {
    pub cpu: String,
    pub cores: usize,
    pub memory: String,
    pub kernel: String,
    pub rustc: String,
    pub wasmtime: String,
    pub crate_version: String,
    pub profile: &'static str,
    pub commit: Option<String>,
}

impl Machine {
    pub fn detect() -> Machine {
        let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
        let cpu = cpuinfo
            .lines()
            .find_map(|l| l.strip_prefix("model name").and_then(|r| r.split_once(':')).map(|(_, v)| v.trim().to_string()))
            .unwrap_or_else(|| std::env::consts::ARCH.to_string());
        let memory = meminfo_kib("MemTotal").map_or_else(|| "unknown".into(), |k| format!("{:.1} GiB", k as f64 / 1024.0 / 1024.0));
        let kernel = std::fs::read_to_string("/proc/sys/kernel/osrelease")
            .map(|s| format!("{} {}", std::env::consts::OS, s.trim()))
            .unwrap_or_else(|_| std::env::consts::OS.to_string());
        Machine {
            cpu,
            cores: std::thread::available_parallelism().map_or(1, |n| n.get()),
            memory,
            kernel,
            rustc: rustc_version(),
            wasmtime: locked_version("wasmtime").unwrap_or_else(|| "48 (exact version unknown)".into()),
            crate_version: env!("CARGO_PKG_VERSION").to_string(),
            profile: if cfg!(debug_assertions) { "debug" } else { "release" },
            commit: git_commit(),
        }
    }
}

fn meminfo_kib(field: &str) -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    text.lines().find_map(|l| l.strip_prefix(field).and_then(|r| r.trim_start_matches(':').split_whitespace().next()?.parse().ok()))
}

/// The version of a package in the workspace's `Cargo.lock` (as this binary was built).
fn locked_version(name: &str) -> Option<String> {
    const LOCK: &str = include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/../Cargo.lock"));
    let needle = format!("name = \"{name}\"\nversion = \"");
    let start = LOCK.find(&needle)? + needle.len();
    let end = LOCK[start..].find('"')?;
    Some(LOCK[start..start + end].to_string())
}

/// The compiler that built this binary (rustc records itself in the binary's `.comment`
/// section); else the `rustc` on the PATH.
fn rustc_version() -> String {
    if let Some(found) = std::env::current_exe().ok().and_then(|exe| std::fs::read(exe).ok()).and_then(|bytes| {
        let needle = b"rustc version ";
        let at = bytes.windows(needle.len()).position(|w| w == needle)?;
        let rest = &bytes[at + needle.len()..];
        let end = rest.iter().position(|b| *b == 0 || *b == b')').unwrap_or(rest.len().min(80));
        let end = if rest.get(end) == Some(&b')') { end + 1 } else { end };
        Some(format!("rustc {}", String::from_utf8_lossy(&rest[..end])))
    }) {
        return found;
    }
    std::process::Command::new("rustc")
        .arg("--version")
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| format!("{} (rustc on PATH)", String::from_utf8_lossy(&o.stdout).trim()))
        .unwrap_or_else(|| "unknown".into())
}

fn git_commit() -> Option<String> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let out = std::process::Command::new("git").arg("-C").arg(dir).args(["rev-parse", "--short", "HEAD"]).output().ok()?;
    let commit = String::from_utf8_lossy(&out.stdout).trim().to_string();
    if !out.status.success() || commit.is_empty() {
        return None;
    }
    let dirty = std::process::Command::new("git")
        .arg("-C")
        .arg(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(".."))
        .args(["status", "--porcelain", "--untracked-files=no"])
        .output()
        .ok()
        .is_some_and(|o| !o.stdout.is_empty());
    Some(if dirty { format!("{commit} (with uncommitted changes)") } else { commit })
}

/// The load average over the last minute (other work on the machine).
pub fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg").map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" ")).unwrap_or_default()
}

/// The process's resident memory, from `/proc/self/status`, in bytes.
#[derive(Debug, Clone, Copy, Default, serde::Serialize, serde::Deserialize)]
pub struct Rss {
    pub total: u64,
    pub anon: u64,
    pub file: u64,
}

impl Rss {
    pub fn now() -> Rss {
        let text = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
        let field = |name: &str| -> u64 {
            text.lines()
                .find_map(|l| l.strip_prefix(name).and_then(|r| r.trim_start_matches(':').split_whitespace().next()?.parse::<u64>().ok()))
                .unwrap_or(0)
                * 1024
        };
        Rss { total: field("VmRSS"), anon: field("RssAnon"), file: field("RssFile") + field("RssShmem") }
    }
}

/// Minor page faults of the calling thread so far (`/proc/thread-self/stat`, field 10).
pub fn minor_faults() -> u64 {
    let text = std::fs::read_to_string("/proc/thread-self/stat").unwrap_or_default();
    text.rsplit_once(')').and_then(|(_, rest)| rest.split_whitespace().nth(7)?.parse().ok()).unwrap_or(0)
}

/// Proportional set size (shared pages divided among their users), from
/// `/proc/self/smaps_rollup`, in bytes: (total, anon, file).
pub fn pss() -> (u64, u64, u64) {
    let text = std::fs::read_to_string("/proc/self/smaps_rollup").unwrap_or_default();
    let field = |name: &str| -> u64 {
        text.lines()
            .find_map(|l| l.strip_prefix(name).and_then(|r| r.trim_start_matches(':').split_whitespace().next()?.parse::<u64>().ok()))
            .unwrap_or(0)
            * 1024
    };
    (field("Pss"), field("Pss_Anon"), field("Pss_File"))
}

/// How much faster `threads` threads of pure computation get through the same work per
/// thread than one thread does (on a shared VM, less than the core count).
pub fn parallel_speedup(threads: usize) -> f64 {
    fn spin() -> u64 {
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        for i in 0..20_000_000u64 {
            x = (x ^ i).wrapping_mul(0xBF58_476D_1CE4_E5B9).rotate_left(17);
        }
        x
    }
    let t = std::time::Instant::now();
    std::hint::black_box(spin());
    let one = t.elapsed().as_secs_f64();
    let t = std::time::Instant::now();
    let handles: Vec<_> = (0..threads).map(|_| std::thread::spawn(|| std::hint::black_box(spin()))).collect();
    for h in handles {
        let _ = h.join();
    }
    let many = t.elapsed().as_secs_f64();
    threads as f64 * one / many
}
