// The bridge to the OpenClaw gateway the plugin runs in: every gateway call of a guest goes
// through the gateway's own client, with the gateway's own credentials, which the guest never
// sees. Plugins get no gateway-call helper in their API, so the client is found next to the
// running gateway's entry point (or at the plugin config's `gatewayCallModule`).
//
// It also keeps the session of every run started through it (the wire reports each), in the
// gateway's canonical spelling: the N15 guard asks whose a run is.

import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

import { connectionDetails, GatewayConnection, loadGatewayClientModules, loadSdkGatewayModules, loopbackDetails } from './gateway-connection.mjs';
import { loadHistoryModules, loadSdkHistoryModules } from './gateway-histories.mjs';
import { packageFiles } from './gateway-modules.mjs';
import { canonicalKey } from './guard.mjs';
import { LocalHistories } from './local-histories.mjs';

/** Whether a reader answered (`{ok}`, or `{text}`: the answer as JSON text), not failed. */
const answered = (a) => a !== undefined && a !== null && a.error === undefined && (a.ok !== undefined || a.text !== undefined);

/** A list's histories in flight at once. */
const WINDOW = 32;
/** `agent.wait` answers after its own timeout; how much longer the bridge waits for it. */
const WAIT_MARGIN_MS = 15_000;
const MAX_RUNS = 10_000;

/** The running gateway's `dist/gateway/call.js`; throws saying where it looked. */
export function findCallModule(explicit) {
  const candidates = explicit ? [resolve(explicit)] : packageFiles(process.argv[1], 'gateway/call.js', ['openclaw', 'clawdbot', 'moltbot']);
  const found = candidates.find((c) => existsSync(c));
  if (!found) {
    throw new Error(
      `cannot find the gateway's dist/gateway/call.js (looked at ${candidates.slice(0, 6).join(', ')}…): set the plugin config's gatewayCallModule to its path`,
    );
  }
  return found;
}

/** The `callGateway` of the running gateway's `call.js` (`found`). */
async function loadCallGateway(found) {
  const module = await import(pathToFileURL(found).href);
  if (typeof module.callGateway !== 'function') throw new Error(`${found} has no callGateway export`);
  return module.callGateway;
}

/** The bridge's reach through one persistent `connection` (see `connectToGateway`). */
function persistent(connection, histories, protocol) {
  const callGateway = ({ method, params, expectFinal, timeoutMs }) => connection.request(method, params, { expectFinal, timeoutMs });
  return { persistent: true, connection, histories, protocol, callGateway, close: () => connection.stop() };
}

/** The in-process history reader over the gateway's functions `load()` answers, or null. */
async function localReader(load, log) {
  try {
    return new LocalHistories(await load());
  } catch (e) {
    log('warn', `a list's histories are asked of the gateway one chat.history at a time (${e.message})`);
    return null;
  }
}

/**
 * How the bridge reaches the gateway: one persistent connection made with the gateway's own
 * client (gateway-connection.mjs), or, when this package's modules are not laid out as
 * expected, its `callGateway` (a connection per call, slower, the same answers). Answers
 * `{callGateway, close, persistent, histories, protocol}` (`histories`: the in-process reader,
 * or null); `log(level, message)` says which.
 */
export async function connectToGateway({ explicit, gatewayConfig, log = () => {} }) {
  let found;
  try {
    found = findCallModule(explicit);
  } catch (e) {
    // OpenClaw 2026.5 and later: no dist/gateway/call.js; the plugin SDK's client (E1).
    let modules;
    try {
      modules = await loadSdkGatewayModules();
    } catch (sdk) {
      throw new Error(`${e.message}; ${sdk.message}`);
    }
    const connection = new GatewayConnection(modules, loopbackDetails(gatewayConfig ?? {}), {
      onHello: (hello) => log('info', `connected to the gateway through the plugin SDK's client (${connection.details.url}, protocol ${hello?.protocol})`),
    });
    const histories = await localReader(() => loadSdkHistoryModules(), log);
    // The SDK's client is that of protocol 4 and later: until its first hello, 4.
    return persistent(connection, histories, () => connection.protocol ?? 4);
  }
  const histories = await localReader(() => loadHistoryModules(found), log);
  try {
    const modules = await loadGatewayClientModules(found);
    const details = await connectionDetails(modules, gatewayConfig ?? {});
    const connection = new GatewayConnection(modules, details);
    return persistent(connection, histories, () => connection.protocol);
  } catch (e) {
    log('warn', `no persistent gateway connection (${e.message}); every gateway call opens its own through callGateway`);
    // The packages with `callGateway` speak protocol 3.
    return { persistent: false, histories, protocol: () => 3, callGateway: await loadCallGateway(found), close: () => {} };
  }
}

/** The gateway's error frame as far as its client kept it, for the wire to read. */
function frameOf(e, message) {
  const code = [e?.code, e?.gatewayCode].find((c) => typeof c === 'string' && /^[A-Z_]+$/.test(c));
  return { ...(code ? { code } : {}), message, ...(e?.details !== undefined ? { details: e.details } : {}) };
}

/** A connection-level failure (not the gateway's answer): worth trying again later. */
export function isTransient(message) {
  return /gateway closed|gateway timeout|ECONNREFUSED|ECONNRESET|socket hang up|connect/i.test(message ?? '');
}

/** `f(item)` for each of `items`, `WINDOW` of them in flight at once. */
async function windowed(items, f) {
  let next = 0;
  const lane = async () => {
    while (next < items.length) await f(items[next++]);
  };
  await Promise.all(Array.from({ length: Math.min(WINDOW, items.length) }, lane));
}

export class OpenClawGateway {
  /** `rules`: the config's key rules (guard.mjs's `keyRulesOf`); `gatewayConfig`: as loaded (no call reads the file again). */
  constructor({ callGateway, close, histories, rules, gatewayConfig, requestTimeoutMs = 30_000, protocol = () => 3 }) {
    this.callGateway = callGateway;
    this.negotiated = protocol;
    this.closeConnection = close;
    this.localHistories = histories ?? null;
    this.gatewayConfig = gatewayConfig;
    this.rules = rules;
    this.requestTimeoutMs = requestTimeoutMs;
    this.runs = new Map();
  }

  /** The protocol the connection negotiated (3 or 4; before its first hello, its client's): the wire's (E1). */
  get protocol() {
    return this.negotiated() ?? 3;
  }

  /** A gateway call in the gateway's JSON, as the wire built it: carried, never read here. */
  async call(method, params) {
    const timeoutMs = method === 'agent.wait' ? (params.timeoutMs ?? 0) + WAIT_MARGIN_MS : this.requestTimeoutMs;
    try {
      return await this.callGateway({
        method,
        params,
        timeoutMs,
        expectFinal: false,
        clientDisplayName: 'session-tools plugin',
        ...(this.gatewayConfig ? { config: this.gatewayConfig } : {}),
      });
    } catch (e) {
      const error = new Error(e?.message ?? String(e));
      error.transient = e?.transient === true || isTransient(error.message);
      // The connection's own failures say their kind; the gateway's errors are its frame.
      if (error.transient) error.kind = e?.kind ?? 'unavailable';
      else error.frame = frameOf(e, error.message);
      throw error;
    }
  }

  /** The wire started a run: it keeps the session it was first started in, canonical (N15). */
  runStarted(runId, sessionKey) {
    if (this.runs.has(runId)) return;
    if (this.runs.size >= MAX_RUNS) this.runs.delete(this.runs.keys().next().value);
    this.runs.set(runId, canonicalKey(this.rules, sessionKey));
  }

  /** Ends the bridge's connection (the service that owns it is stopping). */
  close() {
    this.closeConnection?.();
  }

  /** A batch of `chat.history`: read in this process where it can be (local-histories.mjs), else asked. */
  async histories(list) {
    let out = [];
    try {
      // The reader takes the gateway's thread a slice at a time, yielding it in between.
      if (this.localHistories) out = await this.localHistories.read(list, (key) => canonicalKey(this.rules, key));
    } catch {
      out = [];
    }
    const asked = list.map((_, i) => i).filter((i) => !answered(out[i]));
    await windowed(asked, async (i) => {
      try {
        out[i] = { ok: await this.call('chat.history', list[i]) };
      } catch (e) {
        out[i] = { error: e.message, kind: e.kind, frame: e.frame };
      }
    });
    return out;
  }

  /** The guard's `tree.run-session`, through the wire. */
  runSession(runId) {
    return this.runs.get(runId);
  }
}
