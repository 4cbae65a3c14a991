// A tool call's intent, recorded before its first gateway call that writes and made again
// once by the process that finds it left (the rules: `host/src/jobs/intent.rs`, and
// `host-rules/`, asked of the guard component). Here are its file (`calls/<id>.json` beside
// the jobs) and its lock naming this process, held until the call's jobs are kept.

import { jobRules } from './guard.mjs';

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
   * Writes the intent under its lock, once (held until `take()`); a failure refuses the write
   * that asked for it (no side effect without its intent on disk).
   */
  beforeWrite() {
    if (!this.held && !this.failure) {
      let held = null;
      try {
        held = this.calls.lock(this.id);
        if (!held) throw new Error(`the intent ${this.id} is held by another process`);
        held.rewrite(this.text);
        this.held = held;
      } catch (e) {
        held?.release();
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
