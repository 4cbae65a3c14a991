// Histories (a list's, and `sessions_history`'s) read in the gateway's own process, with the
// gateway's own functions (gateway-histories.mjs); the answer is made by the gateway wire's
// `local-history` (`transcript/src/history.rs`, E3, E4), so no rule is written here.
//
// Why: the gateway answers `chat.history` one call at a time on its one thread, at several
// milliseconds a call, so a `sessions_list` with `messageLimit` over 200 rows waited seconds.
// Any session this reader cannot answer (an error of the gateway's functions, a key without
// an agent, a limit the gateway's schema refuses, a transcript past the bound below) is asked
// of the gateway, as before.

import { localHistory } from './wire-codecs.mjs';

/**
 * How many events beyond `limit` are handed over first (the newest): a history wants a
 * handful of messages, and each event crosses into the component as text. When they hold
 * too few messages, every event is handed over.
 */
const TAIL_MARGIN = 8;

/**
 * A session's events handed to the wire component at most (JSON text, UTF-16 units); above
 * it, the gateway answers. The main thread's wire instance keeps the memory a read grew it
 * to, so this bounds what one history can leave behind in the gateway's process.
 */
export const MAX_EVENTS_TEXT = 16 << 20;

/**
 * The newest `n` events as JSON text, newest first; null past the in-process bound. `known`:
 * the newest ones already written (a first, shorter pass), taken as they are.
 */
function newestTexts(events, n, known = null) {
  const texts = new Array(n);
  let size = 0;
  for (let i = 0; i < n; i++) {
    texts[i] = known !== null && i < known.length ? known[i] : (JSON.stringify(events[events.length - 1 - i]) ?? 'null');
    size += texts[i].length;
    if (size > MAX_EVENTS_TEXT) return null;
  }
  return texts;
}

/** How long the reader holds the gateway's thread at a time (ms). */
export const SLICE_MS = 10;

export class LocalHistories {
  /**
   * `functions`: the gateway's own (gateway-histories.mjs): `agentOf(key)` (throws on a key
   * without an agent), `getSessionEntry({sessionKey, agentId})`,
   * `loadTranscriptEventsSync({sessionKey, agentId, sessionId})` (the transcript's events,
   * oldest first), and `batch?()`, called before each batch.
   */
  constructor(functions) {
    this.m = functions;
  }

  /**
   * The `chat.history` answers for a batch of params, each `{text}` (JSON text, which crosses
   * to the worker as it is) or `{error}` (the caller asks the gateway). `canonical(key)`: the
   * key as the gateway stores it. The reads are synchronous, about a millisecond a session:
   * the gateway's thread is yielded every `sliceMs`.
   */
  async read(list, canonical = (key) => key, sliceMs = SLICE_MS) {
    this.m.batch?.();
    const out = [];
    let started = performance.now();
    for (const params of list) {
      out.push(this.one(params, canonical));
      if (performance.now() - started >= sliceMs) {
        await new Promise((resolve) => setImmediate(resolve));
        started = performance.now();
      }
    }
    return out;
  }

  one(params, canonical) {
    try {
      const { sessionKey, limit } = params;
      if (typeof sessionKey !== 'string' || sessionKey === '') return { error: 'invalid params: asked of the gateway' };
      const storeKey = canonical(sessionKey);
      // A key without an agent (`global`) throws here: the gateway resolves it by its config.
      const scope = { sessionKey: storeKey, agentId: this.m.agentOf(storeKey) };
      const entry = this.m.getSessionEntry(scope);
      // A reader of another version that answers later is not read as "no session".
      if (typeof entry?.then === 'function') return { error: 'the gateway read the entry asynchronously: asked of the gateway' };
      const sessionId = typeof entry?.sessionId === 'string' ? entry.sessionId : undefined;
      const events = sessionId ? this.m.loadTranscriptEventsSync({ ...scope, sessionId }) : [];
      if (!Array.isArray(events)) return { error: 'the gateway read no event list: asked of the gateway' };
      const entryText = entry === undefined || entry === null ? undefined : JSON.stringify(entry);
      const few = Number.isInteger(limit) && limit > 0 ? limit + TAIL_MARGIN : events.length;
      let text;
      let newest = null;
      if (few < events.length) {
        newest = newestTexts(events, few);
        if (newest) text = localHistory(sessionKey, entryText, newest, false, limit);
      }
      if (text === undefined) {
        const texts = newestTexts(events, events.length, newest);
        if (!texts) return { error: 'a transcript larger than the in-process bound: asked of the gateway' };
        text = localHistory(sessionKey, entryText, texts, true, limit);
      }
      return { text };
    } catch (e) {
      return { error: e?.message ?? String(e) };
    }
  }
}
