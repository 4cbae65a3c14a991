//! The single `runs.json` registry of older builds, taken over once.

use std::collections::HashMap;
use std::path::Path;

use serde::Deserialize;

use super::{file_name, Asked, Finished, RunFile};
use crate::clock::Clock;
use crate::private_files::create_exclusively;

/// Takes over the single `runs.json` registry of older builds (beside `dir`): each of its
/// runs becomes a file of its own, ended (a run it holds as going on was cut short by its
/// process, which kept no request to run it again), and the old file is kept as
/// `runs.json.imported`.
pub(super) fn import_legacy(dir: &Path, clock: &Clock) -> std::io::Result<()> {
    #[derive(Deserialize)]
    #[serde(rename_all = "camelCase")]
    struct Old {
        session_key: String,
        started_at: i64,
        #[serde(default)]
        finished: Option<Finished>,
    }
    #[derive(Deserialize)]
    struct OldRegistry {
        #[serde(default)]
        runs: HashMap<String, Old>,
    }
    let legacy = dir.with_file_name("runs.json");
    let Ok(bytes) = crate::private_files::read_private(&legacy) else { return Ok(()) };
    let now = clock() as i64;
    let old: OldRegistry = serde_json::from_slice(&bytes).unwrap_or(OldRegistry { runs: HashMap::new() });
    crate::private_files::create_private_dir(dir)?;
    for (run_id, run) in old.runs {
        let finished = run.finished.unwrap_or_else(|| {
            Finished::failed("the run was interrupted: the gateway stopped while it was going on".into(), run.started_at, now)
        });
        let file = RunFile {
            version: 2,
            session_key: run.session_key,
            owner: None,
            attempts: 1,
            started_at: run.started_at,
            asked: Asked {
                agent_id: String::new(),
                message: String::new(),
                extra_system_prompt: None,
                lane: None,
                channel: None,
                params: serde_json::Value::Null,
                timeout_s: 1,
            },
            message_entry: String::new(),
            finished: Some(finished),
            recorded: true,
            run_id,
        };
        let bytes = serde_json::to_vec_pretty(&file).map_err(std::io::Error::other)?;
        match create_exclusively(&dir.join(file_name(&file.run_id)), &bytes) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
            Err(e) => return Err(e),
        }
    }
    std::fs::rename(&legacy, legacy.with_file_name("runs.json.imported"))
}
