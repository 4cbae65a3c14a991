// A lock file that names its holder, for what the Rust host holds with an OS lock (a call's
// intent, `host/src/jobs/intent.rs`). Node has no `flock`, and an OS lock would have to be
// released by the kernel when its holder dies; instead the lock file records who holds it
// and a process that finds it judges whether that holder is gone.
//
// Why not simply "the state directory belongs to one gateway process": the plugin is also
// loaded by OpenClaw's command-line processes, and one that runs an agent itself makes
// tool calls (and writes intents) beside the gateway that runs the jobs. So the gateway
// must tell a call still in flight in another process from one whose process died.
//
// - The lock is created exclusively with its owner record already in it (a hard link of a
//   complete file, files.mjs): nobody ever reads an empty lock.
// - The owner record: pid, host name, and on Linux the boot id, the PID namespace and the
//   process's start time (`/proc/<pid>/stat`), so a pid used again by another process is
//   not taken for the holder; elsewhere the time the machine booted.
// - When its holder is gone is the rule of `host-rules/src/lock_holder.rs` (asked of the
//   guard component); this module reads the facts it asks for (this process's identity,
//   whether the holder's process still runs).
// - Breaking a stale lock: renamed aside (one process wins), then created anew. Only the
//   process that runs the jobs (one gateway per state directory) breaks locks; the writers
//   of intents only ever create their own, under fresh ids.

import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync, readlinkSync, renameSync, rmSync } from 'node:fs';
import { hostname, uptime } from 'node:os';
import { join } from 'node:path';

import { createExclusively } from './files.mjs';
import { jobRules } from './guard.mjs';

/** The start time of a process (clock ticks since boot, `/proc/<pid>/stat` field 22). */
function startTime(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // The command name (field 2) is in parentheses and may hold spaces or parentheses.
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
}

function identityOfThisProcess() {
  const id = { pid: process.pid, host: hostname() };
  try {
    if (readlinkSync('/proc/self') === String(process.pid)) {
      id.boot = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
      id.pidNamespace = readlinkSync('/proc/self/ns/pid');
      id.started = startTime(process.pid);
      return id;
    }
  } catch {
    // no /proc of this namespace: the boot time below
  }
  id.bootedAt = Math.round(Date.now() - uptime() * 1000);
  return id;
}

let own = null;

/** This process as a lock's owner. */
export function ownIdentity() {
  return (own ??= identityOfThisProcess());
}

/** Whether the holder a lock's owner record (its file's text) names is known to be gone (see the module). */
export function holderIsGone(owner, self = ownIdentity()) {
  const holder = jobRules().holderOfLock(owner, JSON.stringify(self));
  switch (holder.tag) {
    case 'gone-unless-started': {
      const [pid, started] = holder.val;
      try {
        return started !== undefined && startTime(pid) !== started;
      } catch {
        return true; // no such process
      }
    }
    case 'gone-unless-exists':
      try {
        process.kill(holder.val, 0);
        return false;
      } catch (e) {
        return e.code === 'ESRCH';
      }
    default:
      return holder.tag === 'gone';
  }
}

/**
 * Takes the lock at `path` for this process (let go by removing the file), or answers false
 * when a holder that may still be alive has it. A lock whose holder is gone is broken.
 */
export function tryLock(path) {
  const record = `${JSON.stringify({ ...ownIdentity(), createdAt: new Date().toISOString() })}\n`;
  for (let attempt = 0; attempt < 3; attempt++) {
    // Only the lock itself: what it guards is synced by its writer.
    if (createExclusively(path, record, { sync: false })) return true;
    let owner;
    try {
      owner = readFileSync(path, 'utf8');
    } catch (e) {
      if (e.code === 'ENOENT') continue;
      throw e;
    }
    if (!holderIsGone(owner)) return false;
    const aside = `${path}.${process.pid}.${randomUUID()}.stale`;
    try {
      renameSync(path, aside);
    } catch (e) {
      if (e.code === 'ENOENT') continue;
      throw e;
    }
    rmSync(aside, { force: true });
  }
  return false;
}

/**
 * Removes the locks (`<file>.lock`, among `names` in `dir`) of files that are gone and whose
 * holder is gone too: what a process that died between removing a file and its lock left.
 */
export function sweepLocks(dir, names) {
  for (const name of names) {
    if (!name.endsWith('.json.lock')) continue;
    const target = join(dir, name.slice(0, -'.lock'.length));
    if (existsSync(target)) continue;
    const lock = join(dir, name);
    if (tryLock(lock) && !existsSync(target)) rmSync(lock, { force: true });
  }
}
