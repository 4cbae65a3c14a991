//! Stopping a gateway with everything it started: its process group, TERM then KILL, and
//! the members still alive afterwards read from `/proc`.

use std::process::Child;
use std::time::{Duration, Instant};

/// The processes (not zombies) whose process group is `pgid`, from `/proc`.
fn group_members(pgid: u32) -> Vec<u32> {
    let Ok(entries) = std::fs::read_dir("/proc") else { return Vec::new() };
    entries
        .filter_map(Result::ok)
        .filter_map(|e| e.file_name().to_str().and_then(|n| n.parse::<u32>().ok()))
        .filter(|pid| {
            let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else { return false };
            let Some(rest) = stat.rfind(')').map(|i| &stat[i + 1..]) else { return false };
            let fields: Vec<&str> = rest.split_whitespace().collect();
            fields.len() > 2 && fields[0] != "Z" && fields[2] == pgid.to_string()
        })
        .collect()
}

fn signal_group(pgid: u32, signal: rustix::process::Signal) {
    let pgid = i32::try_from(pgid).ok().filter(|p| *p > 1).and_then(rustix::process::Pid::from_raw);
    if let Some(pgid) = pgid {
        let _ = rustix::process::kill_process_group(pgid, signal);
    }
}

/// SIGTERM to the group, SIGKILL after `grace`; reaps the leader; answers the members
/// still alive after that (should be none).
pub(super) fn kill_group(child: &mut Child, grace: Duration) -> Vec<u32> {
    let pgid = child.id();
    if matches!(child.try_wait(), Ok(None)) {
        signal_group(pgid, rustix::process::Signal::TERM);
        let until = Instant::now() + grace;
        while matches!(child.try_wait(), Ok(None)) && Instant::now() < until {
            std::thread::sleep(Duration::from_millis(25));
        }
    }
    // Whatever is left of the group (the leader too, if it ignored SIGTERM).
    signal_group(pgid, rustix::process::Signal::KILL);
    let _ = child.wait();
    let until = Instant::now() + Duration::from_secs(3);
    loop {
        let left = group_members(pgid);
        if left.is_empty() || Instant::now() > until {
            return left;
        }
        signal_group(pgid, rustix::process::Signal::KILL);
        std::thread::sleep(Duration::from_millis(25));
    }
}
