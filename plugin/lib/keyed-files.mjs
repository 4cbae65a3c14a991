// A directory of JSON files named by their keys (`<dir>/<key>.json`, keys the rules'
// `validKey` accepts), each claimed across processes by the lock beside it (owner-lock.mjs):
// the plugin's jobs and call intents, in the files the Rust host keeps them in.

import { readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';

import { createExclusively, ensureDir, sweepTemporaries, writeAtomically } from './files.mjs';
import { jobRules } from './guard.mjs';
import { sweepLocks, tryLock } from './owner-lock.mjs';

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

  /** Saves `text` under `key`, written atomically (`onlyIfNew`: only if absent); answers whether it saved. */
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

  /**
   * Takes the lock of `key`, naming this process: `{rewrite(text), done(), release()}`
   * (`done()`: the file removed, then the lock let go; `release()`: let go, once), or null
   * while a holder that may be alive has it.
   */
  lock(key) {
    ensureDir(this.dir);
    const lock = `${this.where(key)}.lock`;
    if (!tryLock(lock)) return null;
    const held = {
      released: false,
      release: () => {
        if (!held.released) rmSync(lock, { force: true });
        held.released = true;
      },
      rewrite: (text) => this.write(key, text),
      done: () => {
        rmSync(this.where(key), { force: true });
        held.release();
      },
    };
    return held;
  }

  /**
   * Claims what is kept under `key` as it is now: its lock (see `lock`) with `value`, what
   * `read(text)` answers, or null when another holds it, nothing is kept, or `read` throws
   * or answers undefined (`setAside`: the file is then renamed `<key>.json.unreadable`,
   * never taken blindly again).
   */
  claim(key, read, setAside = false) {
    let held = null;
    let text;
    try {
      held = this.lock(key);
      text = held ? this.read(key) : undefined;
      if (text !== undefined) held.value = read(text);
    } catch {
      // not a key of these files, or unreadable
    }
    if (held?.value !== undefined) return held;
    if (text !== undefined && setAside) {
      try {
        renameSync(this.where(key), `${this.where(key)}.unreadable`);
      } catch {
        // gone meanwhile
      }
    }
    held?.release();
    return null;
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
