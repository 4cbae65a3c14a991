// How the plugin writes its own files (the job store and the call intents; mirrors
// `host/src/gateway/embedded/files.rs`): born with their final mode (0600 files, 0700
// directories), complete before anyone can see them, and no leftovers kept forever.

import { randomUUID } from 'node:crypto';
import { closeSync, fsyncSync, linkSync, mkdirSync, openSync, readdirSync, renameSync, rmSync, statSync, writeSync } from 'node:fs';
import { join } from 'node:path';

/** How old a temporary must be before it is taken for a dead writer's and removed. */
const TEMPORARY_AGE_MS = 60_000;

export function ensureDir(dir) {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
}

/** A temporary beside `path` (`<name>.<pid>.<uuid>.tmp`) holding `text`, synced when asked. */
function temporary(path, text, sync) {
  const tmp = `${path}.${process.pid}.${randomUUID()}.tmp`;
  const fd = openSync(tmp, 'wx', 0o600);
  try {
    writeSync(fd, text);
    if (sync) fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  return tmp;
}

/** Replaces `path` with `text` at once (written and synced first, then renamed over it). */
export function writeAtomically(path, text) {
  const tmp = temporary(path, text, true);
  try {
    renameSync(tmp, path);
  } catch (e) {
    rmSync(tmp, { force: true });
    throw e;
  }
}

/**
 * Creates `path` with `text` only if it does not exist (a hard link of a complete file, so
 * nobody ever reads it half written); answers whether it was created. `sync`: the content
 * is on disk before the file appears.
 */
export function createExclusively(path, text, { sync = true } = {}) {
  const tmp = temporary(path, text, sync);
  try {
    linkSync(tmp, path);
    return true;
  } catch (e) {
    if (e.code === 'EEXIST') return false;
    throw e;
  } finally {
    rmSync(tmp, { force: true });
  }
}

/**
 * Removes what writers which died left in `dir` (older than a minute): temporaries, and
 * broken locks set aside (owner-lock.mjs).
 */
export function sweepTemporaries(dir, names = readdirSync(dir)) {
  const now = Date.now();
  for (const name of names) {
    if (!name.endsWith('.tmp') && !name.endsWith('.stale')) continue;
    const path = join(dir, name);
    try {
      if (now - statSync(path).mtimeMs > TEMPORARY_AGE_MS) rmSync(path, { force: true });
    } catch {
      // gone meanwhile
    }
  }
}
