// The gateway wire's pure functions on the main thread (wire/, E1-E4), by the one copy the
// Rust host runs natively: a config OpenClaw 2026.9 hands the plugin (`agents.entries`, the
// default agent in `agents.defaults.systemAgent.agentId`) read in the documents' shape
// (`wire/src/documents_config.rs`), and `chat.history`'s answer from a session's entry and events read
// in the gateway's process (`transcript/src/history.rs`, for local-histories.mjs). Instances of
// the wire component (transpiled into component/ by scripts/build-component.mjs), made at
// first use, one per use so that histories (large inputs) never share memory with the
// config's reading; an instance that trapped is dropped and the next call makes a fresh one.
// They are given no transport and no runs (the functions call neither).

import { asked, pureInstance } from './components.mjs';

const instances = new Map();

/** A fresh instance's `wire` export (synchronously: configs are read synchronously). */
const instantiateWire = () => pureInstance('wire').wire;

/**
 * `use(wire)` with the instance kept for `slot`, made at first use; a trap (the engine's
 * `RuntimeError`, not an export's `err`) drops it, so what it left behind is never used again.
 */
export function withWire(slot, use, make = instantiateWire) {
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
 * `chat.history`'s answer (JSON text) of a session read in the gateway's process: its entry
 * (JSON text, or undefined), its transcript's events (JSON text each, newest first; `whole`:
 * all of them) and the call's `limit`, read by the embedded gateway's own rule
 * (`transcript/src/history.rs`, E3-E4). Undefined when the events, not whole, hold too few
 * messages (the caller hands over all of them). Throws, naming why, where the gateway must
 * answer instead.
 */
export function localHistory(sessionKey, entryText, eventTexts, whole, limit) {
  return withWire('history', (wire) => wire.localHistory(sessionKey, entryText, eventTexts, whole, limit));
}
