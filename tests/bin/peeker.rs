//! Opens every file under the directories it is given, again and again, as whatever user it
//! runs as (the privacy test runs it as another user), until its standard input closes or
//! 60 s pass (and once more then); then prints one JSON object: the rounds it made, every
//! file it saw and every file it could open, each with how many times.
//!
//! Usage: peeker DIR...

#![forbid(unsafe_code)]

use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

#[derive(Default)]
struct Seen {
    rounds: u64,
    seen: BTreeMap<String, u64>,
    opened: BTreeMap<String, u64>,
}

impl Seen {
    fn walk(&mut self, dir: &Path) {
        let Ok(entries) = std::fs::read_dir(dir) else { return };
        for entry in entries.flatten() {
            // The entry's own type: a link is not followed.
            let Ok(kind) = entry.file_type() else { continue };
            let path = entry.path();
            if kind.is_dir() {
                self.walk(&path);
            } else if kind.is_file() {
                let name = path.display().to_string();
                *self.seen.entry(name.clone()).or_default() += 1;
                if let Ok(mut file) = std::fs::File::open(&path) {
                    let _ = file.read(&mut [0u8; 1]);
                    *self.opened.entry(name).or_default() += 1;
                }
            }
        }
    }
}

fn main() {
    let dirs: Vec<PathBuf> = std::env::args().skip(1).map(PathBuf::from).collect();
    let done = Arc::new(AtomicBool::new(false));
    let flag = done.clone();
    std::thread::spawn(move || {
        let _ = std::io::stdin().read_to_end(&mut Vec::new());
        flag.store(true, Ordering::SeqCst);
    });
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut seen = Seen::default();
    loop {
        // A last round after the input closed: every file there then is seen at least once.
        let last = done.load(Ordering::SeqCst) || Instant::now() > deadline;
        for dir in &dirs {
            seen.walk(dir);
        }
        seen.rounds += 1;
        if last {
            break;
        }
    }
    let report = serde_json::json!({"rounds": seen.rounds, "seen": seen.seen, "opened": seen.opened});
    println!("{report}");
}
