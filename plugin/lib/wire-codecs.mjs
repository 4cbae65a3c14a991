// The gateway wire's pure functions on the main thread, the code the Rust host runs natively:
// a config OpenClaw 2026.9 hands the plugin read in the documents' shape (E2), and
// `chat.history`'s answer from what local-histories.mjs read (E3, E4). One instance per use,
// so that histories (large inputs) never share memory with the config's reading; one that
// trapped is dropped.

import { asked, pureInstance } from './components.mjs';

const instances = new Map();

/**
 * `use(wire)` with the instance kept for `slot`, made at first use (`make`: synchronously, as
 * configs are read); a trap (the engine's `RuntimeError`, not an export's `err`) drops it, so
 * what it left behind is never used again.
 */
export function withWire(slot, use, make = () => pureInstance('wire').wire) {
  let wire = instances.get(slot);
  if (!wire) {
    wire = make();
    instances.set(slot, wire);
  }
  try {
    return use(wire);
  } catch (e) {
    if (e instanceof WebAssembly.RuntimeError) instances.delete(slot);
    throw e;
  }
}

/** A config (an object) in the documents' shape (E2); one of that shape comes back as it was. */
export function documentsShape(raw) {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return raw;
  return JSON.parse(asked(() => withWire('config', (wire) => wire.documentsConfig(JSON.stringify(raw))), "reading the config in the documents' shape"));
}

/**
 * `chat.history`'s answer (JSON text) of a session read in the gateway's process (the wire's
 * `local-history`): undefined when the events, not `whole`, hold too few messages; throws,
 * naming why, where the gateway must answer instead.
 */
export function localHistory(sessionKey, entryText, eventTexts, whole, limit) {
  return withWire('history', (wire) => wire.localHistory(sessionKey, entryText, eventTexts, whole, limit));
}
