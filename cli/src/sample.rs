//! The sample OpenClaw state shipped with the project, and copies of state directories
//! (the demo and the benchmark start from copies).

use std::path::Path;

use anyhow::{Context, Result};

/// The sample state shipped with the project.
pub const SAMPLE_STATE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/openclaw-state");

/// Copies a directory tree.
pub fn copy_dir(from: &Path, to: &Path) -> Result<()> {
    std::fs::create_dir_all(to)?;
    for entry in std::fs::read_dir(from).with_context(|| format!("reading {}", from.display()))? {
        let entry = entry?;
        let target = to.join(entry.file_name());
        if entry.file_type()?.is_dir() {
            copy_dir(&entry.path(), &target)?;
        } else {
            std::fs::copy(entry.path(), &target)?;
        }
    }
    Ok(())
}
