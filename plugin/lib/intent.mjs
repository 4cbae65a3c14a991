// Tool calls exactly once in effect across a stop (mirrors
// `host/src/jobs/intent.rs`).
//
// A tool call that writes (`sessions_send`, `sessions_spawn`) makes side effects and then
// answers the jobs that carry its work on; a process that stops between the two would
// leave a run going with no job to announce it. So a call's side effects are preceded by
// its *intent*: at the call's first gateway call that writes, `calls/<id>.json` (who
// called, which tool, the arguments; the id seeds the call's ids) is written beside the
// jobs, under a lock that names this process (owner-lock.mjs), held until the call's jobs
// are kept. The process that runs the jobs and finds an intent whose holder is gone makes
// the call again, once, with the same ids (ids.mjs), so the replay sends the same
// idempotency keys, which the gateway de-duplicates (the same run, no second message), and
// answers the same jobs, which are kept under keys derived from the intent (a job kept
// before is left as it is). Jobs of a call are not stepped while its intent is on disk.

import { randomUUID } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';

import { ensureDir, sweepTemporaries, writeAtomically } from './files.mjs';
import { OwnerLock, sweepLocks } from './owner-lock.mjs';

/** The gateway calls that write: an intent is on disk before the first of them. */
const WRITES = new Set(['agent', 'send', 'sessions.patch', 'sessions.delete']);

const validId = (id) => typeof id === 'string' && /^[A-Za-z0-9_-]{1,128}$/.test(id);
const intentPath = (dir, id) => join(dir, `${id}.json`);
const lockPath = (dir, id) => `${intentPath(dir, id)}.lock`;

/** A new intent of a call about to be made (its id: 32 hex digits, as the Rust host's). */
export function newIntent(agent, caller, tool, args) {
  return { id: randomUUID().replaceAll('-', ''), agent, caller, tool, arguments: args, replays: 0 };
}

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

/** Whether a call's intent is on disk (its jobs are not stepped meanwhile). */
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

  /** Writes the intent again (its replay count). */
  rewrite(intent) {
    writeAtomically(this.path, `${JSON.stringify(intent, null, 2)}\n`);
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

/** Writes an intent under its lock and answers it held. */
export function recordIntent(dir, intent) {
  ensureDir(dir);
  const lock = OwnerLock.tryAcquire(lockPath(dir, intent.id));
  if (!lock) throw new Error(`the intent ${intent.id} is held by another process`);
  try {
    writeAtomically(intentPath(dir, intent.id), `${JSON.stringify(intent, null, 2)}\n`);
  } catch (e) {
    lock.release();
    throw e;
  }
  return new HeldIntent(dir, intent.id, lock);
}

/**
 * Claims an intent whose holder is gone: answers `{intent, held}`, or null (held by a live
 * process, gone, or unreadable: then kept aside as `<id>.json.unreadable`, never replayed
 * blindly).
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
  let intent = null;
  try {
    intent = JSON.parse(text);
  } catch {
    // below
  }
  const valid =
    intent &&
    typeof intent === 'object' &&
    intent.id === id &&
    typeof intent.agent === 'string' &&
    typeof intent.tool === 'string' &&
    typeof intent.arguments === 'string' &&
    intent.caller &&
    typeof intent.caller === 'object';
  if (!valid) {
    try {
      renameSync(held.path, `${held.path}.unreadable`);
    } catch {
      // gone meanwhile
    }
    held.done();
    return null;
  }
  return { intent: { ...intent, replays: Number.isInteger(intent.replays) ? intent.replays : 0 }, held };
}

/** Records a call's intent at its first gateway call that writes (see the module). */
export class IntentRecorder {
  /** `dir`: the intents' directory; null records nothing (jobs kept in memory). */
  constructor(intent, dir) {
    this.intent = intent;
    this.dir = dir;
    this.held = null;
    this.failure = null;
  }

  get id() {
    return this.intent.id;
  }

  /**
   * Records the intent, once; a failure refuses the write that asked for it (no side effect
   * without its intent on disk).
   */
  beforeWrite() {
    if (!this.dir) return;
    if (!this.held && !this.failure) {
      try {
        this.held = recordIntent(this.dir, this.intent);
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
    return new RecordingGateway(inner, this);
  }
}

/** A gateway that records a call's intent before its first write; forwards everything. */
export class RecordingGateway {
  constructor(inner, recorder) {
    this.inner = inner;
    this.recorder = recorder;
  }

  async call(method, params) {
    if (WRITES.has(method)) this.recorder.beforeWrite();
    return this.inner.call(method, params);
  }

  histories(list) {
    return this.inner.histories(list);
  }
}
