// A tool call's intent, recorded before its first gateway call that writes and made again
// once by the process that finds it left (the rules: `host/src/jobs/intent.rs`, and
// `host-rules/`, asked of the guard component). Here are its file (`calls/<id>.json` beside
// the jobs) and its lock naming this process, held until the call's jobs are kept.

import { rmSync } from 'node:fs';

import { jobRules } from './guard.mjs';

/**
 * An intent of `calls` this process holds under `lock`: `rewrite(text)` writes it again,
 * `done()` removes it, then its lock (the call's jobs are kept), `release()` lets it go
 * without removing it (another process may take it).
 */
function held(calls, id, lock) {
  return {
    rewrite: (text) => calls.write(id, text),
    done: () => {
      rmSync(calls.where(id), { force: true });
      lock.release();
    },
    release: () => lock.release(),
  };
}

/** Writes an intent (its id, its file's text) among `calls` (keyed-files.mjs) under its lock, and answers it held. */
export function recordIntent(calls, id, text) {
  const lock = calls.lock(id);
  if (!lock) throw new Error(`the intent ${id} is held by another process`);
  try {
    calls.write(id, text);
  } catch (e) {
    lock.release();
    throw e;
  }
  return held(calls, id, lock);
}

/**
 * Claims an intent whose holder is gone: answers `{text, held}` (`text`: its JSON), or null
 * (held by a live process, gone, or unreadable: then kept aside as `<id>.json.unreadable`,
 * never made again blindly).
 */
export function claimIntent(calls, id) {
  const claim = calls.claim(id, (text) => jobRules().readIntent(id, text), true);
  return claim && { text: claim.value, held: held(calls, id, claim) };
}

/** Records a call's intent at its first gateway call that writes (see the module). */
export class IntentRecorder {
  /** `text`: the intent's file text; `calls`: where intents are kept (keyed-files.mjs). */
  constructor(id, text, calls) {
    this.id = id;
    this.text = text;
    this.calls = calls;
    this.held = null;
    this.failure = null;
  }

  /**
   * Records the intent, once; a failure refuses the write that asked for it (no side effect
   * without its intent on disk).
   */
  beforeWrite() {
    if (!this.held && !this.failure) {
      try {
        this.held = recordIntent(this.calls, this.id, this.text);
      } catch (e) {
        this.failure = e;
      }
    }
    if (this.failure) throw new Error(`cannot record the call's intent in ${this.calls.dir}: ${this.failure.message}`);
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
