// A tool call's intent, recorded before its first gateway call that writes and made again
// once by the process that finds it left (the rules: `host/src/jobs/intent.rs`, and
// `host-rules/`, asked of the guard component). Here are its file (`calls/<id>.json` beside
// the jobs) and its lock naming this process, held until the call's jobs are kept.

import { jobRules } from './guard.mjs';

/**
 * Writes an intent (its id, its file's text) among `calls` (keyed-files.mjs) under its lock,
 * and answers it held (`rewrite`, `done`, `release`: KeyedFiles.lock).
 */
export function recordIntent(calls, id, text) {
  const held = calls.lock(id);
  if (!held) throw new Error(`the intent ${id} is held by another process`);
  try {
    calls.write(id, text);
  } catch (e) {
    held.release();
    throw e;
  }
  return held;
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
