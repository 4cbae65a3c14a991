// Tool calls exactly once in effect across a stop (`host/src/jobs/intent.rs`): a tool call
// that writes (`sessions_send`, `sessions_spawn`) records its *intent* before its first
// gateway call that writes, and the process that runs the jobs and finds an intent whose
// holder is gone makes the call again, once, with the same ids, so the gateway drops what
// was already done. The intent's record, its replay and the gateway calls that write are the
// Rust host's rules (`host-rules/`, asked of the guard component, guard.mjs); here are its
// file (`calls/<id>.json` beside the jobs) and its lock, which names this process
// (owner-lock.mjs), held until the call's jobs are kept.

import { existsSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';

import { ensureDir, sweepTemporaries, writeAtomically } from './files.mjs';
import { jobRules } from './guard.mjs';
import { OwnerLock, sweepLocks } from './owner-lock.mjs';

const validId = (id) => typeof id === 'string' && jobRules().validKey(id);
const intentPath = (dir, id) => join(dir, `${id}.json`);
const lockPath = (dir, id) => `${intentPath(dir, id)}.lock`;

/** The ids of the intents in `dir`. */
export function intentIds(dir) {
  let names;
  try {
    names = readdirSync(dir);
  } catch {
    return new Set();
  }
  return new Set(names.filter((n) => n.endsWith('.json')).map((n) => n.slice(0, -5)).filter(validId));
}

/** Whether a call's intent is kept (its jobs are not stepped meanwhile). */
export function intentExists(dir, id) {
  return validId(id) && existsSync(intentPath(dir, id));
}

/**
 * Removes what writers that died left in `dir`: temporaries older than a minute, and the
 * locks of intents never written whose holder is gone.
 */
export function sweepCalls(dir) {
  let names;
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  sweepTemporaries(dir, names);
  sweepLocks(dir, names);
}

/** A held intent: its file and its lock. */
export class HeldIntent {
  constructor(dir, id, lock) {
    this.path = intentPath(dir, id);
    this.lock = lock;
  }

  /** Writes the intent again (its file's text). */
  rewrite(text) {
    writeAtomically(this.path, text);
  }

  /** The call's jobs are kept: the intent is removed, then its lock. */
  done() {
    rmSync(this.path, { force: true });
    this.lock.release();
  }

  /** Lets the intent go without removing it (another process may take it). */
  release() {
    this.lock.release();
  }
}

/** Writes an intent (its id, its file's text) under its lock and answers it held. */
export function recordIntent(dir, id, text) {
  ensureDir(dir);
  const lock = OwnerLock.tryAcquire(lockPath(dir, id));
  if (!lock) throw new Error(`the intent ${id} is held by another process`);
  try {
    writeAtomically(intentPath(dir, id), text);
  } catch (e) {
    lock.release();
    throw e;
  }
  return new HeldIntent(dir, id, lock);
}

/**
 * Claims an intent whose holder is gone: answers `{intent, text, held}` (`text`: its JSON),
 * or null (held by a live process, gone, or unreadable: then kept aside as
 * `<id>.json.unreadable`, never made again blindly).
 */
export function claimIntent(dir, id) {
  if (!validId(id)) return null;
  const lock = OwnerLock.tryAcquire(lockPath(dir, id));
  if (!lock) return null;
  const held = new HeldIntent(dir, id, lock);
  let text;
  try {
    text = readFileSync(held.path, 'utf8');
  } catch (e) {
    // Committed meanwhile (gone): its lock goes too; unreadable for now: left as it is.
    if (e.code === 'ENOENT') held.done();
    else held.release();
    return null;
  }
  const read = jobRules().readIntent(id, text);
  if (read === undefined) {
    try {
      renameSync(held.path, `${held.path}.unreadable`);
    } catch {
      // gone meanwhile
    }
    held.done();
    return null;
  }
  return { intent: JSON.parse(read), text: read, held };
}

/** Records a call's intent at its first gateway call that writes (see the module). */
export class IntentRecorder {
  /** `text`: the intent's file text; `dir`: the intents' directory; null records nothing (jobs kept in memory). */
  constructor(id, text, dir) {
    this.id = id;
    this.text = text;
    this.dir = dir;
    this.held = null;
    this.failure = null;
  }

  /**
   * Records the intent, once; a failure refuses the write that asked for it (no side effect
   * without its intent on disk).
   */
  beforeWrite() {
    if (!this.dir) return;
    if (!this.held && !this.failure) {
      try {
        this.held = recordIntent(this.dir, this.id, this.text);
      } catch (e) {
        this.failure = e;
      }
    }
    if (this.failure) throw new Error(`cannot record the call's intent in ${this.dir}: ${this.failure.message}`);
  }

  /** Whether the intent was written (the call's jobs are then kept as the intent's). */
  recorded() {
    return this.held !== null;
  }

  /** The held intent, once the call's jobs are kept (null when none was written). */
  take() {
    const held = this.held;
    this.held = null;
    return held;
  }

  /** The gateway of the call: the intent is recorded before its first call that writes. */
  guard(inner) {
    const writes = new Set(jobRules().writes());
    return {
      call: async (method, params) => {
        if (writes.has(method)) this.beforeWrite();
        return inner.call(method, params);
      },
      histories: (list) => inner.histories(list),
    };
  }
}
