//! The sample OpenClaw state shipped with the project, built into the binary: `demo` works
//! from an installed `session-tools`, wherever it runs.

use std::io::Write;
use std::path::Path;

use anyhow::{Context, Result};

/// A file of the sample state: its path inside it, and its bytes.
macro_rules! sample_file {
    ($path:literal) => {
        ($path, include_bytes!(concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/openclaw-state/", $path)) as &[u8])
    };
}

/// The sample state's files (`examples/openclaw-state`; a unit test checks the list is
/// whole).
pub const SAMPLE_FILES: &[(&str, &[u8])] = &[
    sample_file!("README.md"),
    sample_file!("agents/main/sessions/0f9e8d7c-6b5a-4f3e-9d2c-1b0a9f8e7d6c.jsonl"),
    sample_file!("agents/main/sessions/5b0f3c2e-8d1a-4e6b-9c7f-1a2b3c4d5e6f.jsonl"),
    sample_file!("agents/main/sessions/8c3d9e1f-2a4b-4c6d-8e0f-3a5b7c9d1e2f.jsonl"),
    sample_file!("agents/main/sessions/a9b8c7d6-e5f4-4a3b-8c2d-1e0f9a8b7c6d.jsonl"),
    sample_file!("agents/main/sessions/c1d2e3f4-a5b6-4c7d-8e9f-0a1b2c3d4e5f.jsonl"),
    sample_file!("agents/main/sessions/d4e5f6a7-b8c9-4d0e-9f1a-2b3c4d5e6f7a.jsonl"),
    sample_file!("agents/main/sessions/e7f8a9b0-c1d2-4e3f-8a4b-5c6d7e8f9a0b.jsonl"),
    sample_file!("agents/main/sessions/f0e1d2c3-b4a5-4968-8778-695a4b3c2d1e.jsonl.deleted.2026-01-25T13-00-40.000Z"),
    sample_file!("agents/main/sessions/sessions.json"),
    sample_file!("agents/ops/sessions/3e4f5a6b-7c8d-4e9f-8a0b-1c2d3e4f5a6b.jsonl"),
    sample_file!("agents/ops/sessions/b2c3d4e5-f6a7-4b8c-9d0e-1f2a3b4c5d6e.jsonl"),
    sample_file!("agents/ops/sessions/sessions.json"),
    sample_file!("cron/jobs.json"),
    sample_file!("moltbot.json"),
    sample_file!("subagents/runs.json"),
];

/// Writes the sample state into `to` (created), each directory and file born private, as
/// OpenClaw keeps its own.
pub fn write_sample(to: &Path) -> Result<()> {
    for (path, bytes) in SAMPLE_FILES {
        let target = to.join(path);
        if let Some(parent) = target.parent() {
            private_dirs(parent).with_context(|| format!("creating {}", parent.display()))?;
        }
        write_private(&target, bytes)?;
    }
    Ok(())
}

/// Writes a file, born private (0600) when it is new.
pub fn write_private(target: &Path, bytes: &[u8]) -> Result<()> {
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let mut file = options.open(target).with_context(|| format!("creating {}", target.display()))?;
    file.write_all(bytes).with_context(|| format!("writing {}", target.display()))?;
    Ok(())
}

/// Creates a directory and its missing parents, each born private (0700).
pub fn private_dirs(dir: &Path) -> std::io::Result<()> {
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    builder.create(dir)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every file of the sample on disk is built in, and nothing else.
    #[test]
    fn the_built_in_sample_is_the_whole_sample() {
        fn walk(dir: &Path, base: &Path, into: &mut Vec<String>) {
            for entry in std::fs::read_dir(dir).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    walk(&path, base, into);
                } else {
                    into.push(path.strip_prefix(base).unwrap().to_string_lossy().into_owned());
                }
            }
        }
        let base = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/openclaw-state");
        let mut on_disk = Vec::new();
        walk(&base, &base, &mut on_disk);
        on_disk.sort();
        let built_in: Vec<String> = SAMPLE_FILES.iter().map(|(p, _)| p.to_string()).collect();
        assert_eq!(built_in, on_disk, "add the sample's new files to SAMPLE_FILES");
        let dir = std::env::temp_dir().join(format!("session-tools-sample-{}", uuid::Uuid::new_v4()));
        write_sample(&dir).unwrap();
        for (path, bytes) in SAMPLE_FILES {
            assert_eq!(std::fs::read(dir.join(path)).unwrap(), *bytes, "{path}");
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
