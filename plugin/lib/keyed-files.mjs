// A directory of JSON files named by their keys (`<dir>/<key>.json`, a key the rules'
// `validKey` accepts), each claimed across processes by the lock beside it
// (`<key>.json.lock`, owner-lock.mjs): how the plugin keeps its jobs and the intents of the
// tool calls in flight (jobs.mjs, intent.mjs), where the Rust host keeps them in the same
// files under OS locks (`host/src/jobs/`).

import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';

import { createExclusively, ensureDir, sweepTemporaries, writeAtomically } from './files.mjs';
import { jobRules } from './guard.mjs';
import { OwnerLock, sweepLocks } from './owner-lock.mjs';

/**
 * Locks `key` of `store` (`lock(key)`, `read(key)`: these files, or jobs in memory) and reads
 * what is kept under it then: `{lock, text}`, or null when another holds it, the key names
 * nothing here or nothing is kept under it (its lock let go again).
 */
export function lockAndRead(store, key) {
  let lock = null;
  try {
    lock = store.lock(key);
  } catch {
    // not a key of this store
  }
  const text = lock ? store.read(key) : undefined;
  if (text === undefined) {
    lock?.release();
    return null;
  }
  return { lock, text };
}

export class KeyedFiles {
  constructor(dir) {
    this.dir = dir;
  }

  /** The file of `key`; throws on a key that names no file here. */
  where(key) {
    if (typeof key !== 'string' || !jobRules().validKey(key)) throw new Error(`invalid key ${JSON.stringify(key)}`);
    return join(this.dir, `${key}.json`);
  }

  /** The text kept under `key`, or undefined. */
  read(key) {
    try {
      return readFileSync(this.where(key), 'utf8');
    } catch {
      return undefined;
    }
  }

  /** The keys of the files kept. */
  keys() {
    let names = [];
    try {
      names = readdirSync(this.dir);
    } catch {
      return [];
    }
    return names.filter((n) => n.endsWith('.json')).map((n) => n.slice(0, -5)).filter((k) => jobRules().validKey(k));
  }

  /**
   * Saves `text` under `key`, written atomically; `onlyIfNew`: only if no file has the key (a
   * call or a step made again after a stop saves what it had not saved, and leaves alone
   * what it had). Answers whether it saved.
   */
  write(key, text, onlyIfNew = false) {
    ensureDir(this.dir);
    if (onlyIfNew) return createExclusively(this.where(key), text);
    writeAtomically(this.where(key), text);
    return true;
  }

  remove(key) {
    try {
      rmSync(this.where(key), { force: true });
    } catch {
      // an invalid key names no file
    }
  }

  /** The lock of `key`, naming this process; null while a holder that may be alive has it. */
  lock(key) {
    ensureDir(this.dir);
    return OwnerLock.tryAcquire(`${this.where(key)}.lock`);
  }

  /**
   * Removes what writers that died left: old temporaries, and the locks of files that are
   * gone (ended under a holder that died, or never written) whose holder is gone too.
   */
  sweep() {
    try {
      const names = readdirSync(this.dir);
      sweepTemporaries(this.dir, names);
      sweepLocks(this.dir, names);
    } catch {
      // no directory yet
    }
  }
}
