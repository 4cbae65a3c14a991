// The gateway's own functions that read a session's entry and its transcript, for the
// in-process history reader (local-histories.mjs): the plugin SDK's on 2026.5 and later;
// before, the January packages' own modules that their `chat.history` handler reads with,
// with the session store loaded once per batch instead of once per session.

import { existsSync, readFileSync } from 'node:fs';

import { importBeside, importSdk, requireExports } from './gateway-modules.mjs';
import { normalizeAgentId } from './guard.mjs';

/**
 * The SDK's session-store reader (`getSessionEntry`, `loadTranscriptEventsSync`) and its
 * reading of a key's agent (named, the reads skip resolving it again); throws saying where
 * it looked.
 */
export async function loadSdkHistoryModules(entry = process.argv[1]) {
  const tried = [];
  const store = await importSdk('session-store-runtime', (m) => typeof m?.getSessionEntry === 'function' && typeof m?.loadTranscriptEventsSync === 'function', tried, entry);
  const keys = await importSdk('session-key-runtime', (m) => typeof m?.resolveAgentIdFromSessionKey === 'function', tried, entry);
  if (!store || !keys) throw new Error(`no session-store reader of the plugin SDK (tried ${tried.join('; ')})`);
  return {
    getSessionEntry: store.getSessionEntry,
    loadTranscriptEventsSync: store.loadTranscriptEventsSync,
    agentOf: keys.resolveAgentIdFromSessionKey,
  };
}

/**
 * The January packages' functions next to `callModulePath`, in the SDK's shape; throws when
 * absent. They are the gateway's own instances (its loader hands a plugin's `import()` the
 * runtime's module), so the session-store cache is the gateway's own.
 */
export async function loadHistoryModules(callModulePath) {
  const [utils, sessions, config] = await importBeside(callModulePath, ['session-utils.js', '../config/sessions.js', '../config/config.js']);
  const m = requireExports({
    resolveSessionTranscriptCandidates: utils.resolveSessionTranscriptCandidates,
    resolveStorePath: sessions.resolveStorePath,
    loadSessionStore: sessions.loadSessionStore,
    loadConfig: config.loadConfig,
  });
  let cfg = {};
  let stores = new Map();
  const store = (agentId) => {
    const path = m.resolveStorePath(cfg.session?.store, { agentId });
    if (!stores.has(path)) stores.set(path, m.loadSessionStore(path));
    return { path, entries: stores.get(path) };
  };
  return {
    batch: () => {
      cfg = m.loadConfig();
      stores = new Map();
    },
    // The store's agent of a canonical key (`resolveSessionStoreAgentId`, which the package
    // does not export): the id in `agent:<id>:…` when it is already in normal form; anything
    // else (`global`, `unknown`, an id the gateway would rewrite) is left to the gateway.
    agentOf: (key) => {
      const [, id] = /^agent:([^:]*):./.exec(key) ?? [];
      if (id === undefined || normalizeAgentId(id) !== id) throw new Error(`no agent in ${key}: asked of the gateway`);
      return id;
    },
    getSessionEntry: ({ sessionKey, agentId }) => store(agentId).entries[sessionKey],
    // The lines of the file `readSessionMessages` reads, as it reads them (blank and
    // unreadable lines skipped).
    loadTranscriptEventsSync: ({ sessionKey, agentId, sessionId }) => {
      const { path, entries } = store(agentId);
      const file = m.resolveSessionTranscriptCandidates(sessionId, path, entries[sessionKey]?.sessionFile).find((c) => existsSync(c));
      const lines = file ? readFileSync(file, 'utf8').split(/\r?\n/) : [];
      return lines.flatMap((line) => {
        try {
          return line.trim() ? [JSON.parse(line)] : [];
        } catch {
          return [];
        }
      });
    },
  };
}
