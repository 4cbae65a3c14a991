// A list's histories read in the gateway's own process, with the gateway's own functions:
// what its `chat.history` handler does (`server-methods/chat.js`), but with the session
// store loaded once per batch instead of once per session.
//
// Why: the handler starts every call with `loadSessionEntry`, which loads and
// `structuredClone`s the whole session store (about 6.5 ms at 1,000 sessions), and the
// gateway answers one call at a time, so a `sessions_list` with `messageLimit` over 200 rows
// spent 1.3 s of the gateway's only thread on copies. The plugin runs inside that process:
// the same modules give the same answer (the handler's own steps below, in its order), one
// copy a batch. The RPC is still used when these modules are not where this package version
// keeps them, and for any session this reader fails on.

import { importBeside, requireExports } from './gateway-modules.mjs';

/** The chat.history handler's limits (`server-methods/chat.js`). */
const HARD_MAX = 1000;
const DEFAULT_LIMIT = 200;

/**
 * Loads the gateway's modules the handler uses, next to `callModulePath`; throws when absent.
 * They are the instances the gateway itself runs (the plugin loader's jiti hands a plugin's
 * `import()` the runtime's module), so the session-store cache is the gateway's own.
 */
export async function loadHistoryModules(callModulePath) {
  const [utils, sanitize, constants, sessions, config] = await importBeside(callModulePath, [
    'session-utils.js',
    'chat-sanitize.js',
    'server-constants.js',
    '../config/sessions.js',
    '../config/config.js',
  ]);
  return requireExports({
    resolveSessionStoreKey: utils.resolveSessionStoreKey,
    readSessionMessages: utils.readSessionMessages,
    capArrayByJsonBytes: utils.capArrayByJsonBytes,
    stripEnvelopeFromMessages: sanitize.stripEnvelopeFromMessages,
    getMaxChatHistoryMessagesBytes: constants.getMaxChatHistoryMessagesBytes,
    resolveStorePath: sessions.resolveStorePath,
    loadSessionStore: sessions.loadSessionStore,
    loadConfig: config.loadConfig,
  });
}

/**
 * The store's agent for a canonical key (`resolveSessionStoreAgentId`, which the package
 * does not export): the id in `agent:<id>:…` when it is already in normal form; anything
 * else (`global`, `unknown`, an id the gateway would rewrite) is left to the gateway.
 */
function storeAgentId(canonicalKey) {
  const match = /^agent:([a-z0-9][a-z0-9_-]{0,63}):./.exec(canonicalKey);
  return match ? match[1] : null;
}

export class GatewayHistories {
  constructor(modules) {
    this.m = modules;
  }

  /**
   * The `chat.history` answers (`{sessionKey, sessionId, messages}`) for a batch of params,
   * each `{ok}` or `{error}` (an error is asked of the gateway again by the caller).
   */
  read(list) {
    const m = this.m;
    const cfg = m.loadConfig();
    const stores = new Map();
    const maxBytes = m.getMaxChatHistoryMessagesBytes();
    return list.map((params) => {
      try {
        const { sessionKey, limit } = params;
        // What the handler's schema would refuse is the gateway's to answer (its error).
        if (typeof sessionKey !== 'string' || sessionKey === '') return { error: 'invalid params: asked of the gateway' };
        if (limit !== undefined && !(Number.isInteger(limit) && limit >= 1 && limit <= HARD_MAX)) return { error: 'invalid limit: asked of the gateway' };
        // loadSessionEntry, with the store loaded once per path for the batch.
        const canonicalKey = m.resolveSessionStoreKey({ cfg, sessionKey });
        const agentId = storeAgentId(canonicalKey);
        if (!agentId) return { error: `no agent in ${canonicalKey}: asked of the gateway` };
        const storePath = m.resolveStorePath(cfg.session?.store, { agentId });
        if (!stores.has(storePath)) stores.set(storePath, m.loadSessionStore(storePath));
        const entry = stores.get(storePath)[canonicalKey];
        const sessionId = entry?.sessionId;
        const rawMessages = sessionId && storePath ? m.readSessionMessages(sessionId, storePath, entry?.sessionFile) : [];
        const requested = typeof limit === 'number' ? limit : DEFAULT_LIMIT;
        const max = Math.min(HARD_MAX, requested);
        const sliced = rawMessages.length > max ? rawMessages.slice(-max) : rawMessages;
        const sanitized = m.stripEnvelopeFromMessages(sliced);
        const capped = m.capArrayByJsonBytes(sanitized, maxBytes).items;
        return { ok: { sessionKey, sessionId, messages: capped } };
      } catch (e) {
        return { error: e?.message ?? String(e) };
      }
    });
  }
}
