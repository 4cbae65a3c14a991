// Host-side visibility (N15), in the plugin's gateway bridge (`host/src/sandbox/visibility.rs`):
// for a sandboxed agent whose visibility is `spawned`, every gateway call its guest makes is
// checked here against the caller's own session and the sessions spawned from it,
// transitively (including sessions spawned during the run). Keys are compared in the
// gateway's canonical form, so no spelling gets around it. A refused call is a gateway
// error for the guest and a log line for the host; list answers are filtered.
//
// The guard fails closed: a caller with no session sees nothing, and a new sub-agent
// session joins the tree only in an agent the caller may spawn for
// (`subagents.allowAgents`), whatever the guest asks: a restricted caller may create and
// configure its own new sub-agent session, and nothing else outside its tree.
//
// Runs are the caller's only when that can be shown: `agent.wait` is answered for a run the
// gateway says belongs to a visible session, or that this guard saw the caller start, and
// refused for any other (unknown included). Every run the caller starts gets an idempotency
// key made here, never the guest's (a gateway that answers a known key with its run cannot
// hand the caller a run of another session), and a key that is another session's run is
// refused. What does not resolve and what resolves outside the tree get the same answer.
//
// It works over any gateway (`{call(method, params), histories(list)}`, wire JSON) and
// what it must know of the spawn tree (`tree`): `canonicalKey(key)`,
// `spawnedTrees(roots) → Set`, `rowsOf(keys) → rows`, `exists(key) → bool`,
// `runSession(runId) → key | undefined`.

import { createHash } from 'node:crypto';

import { isSubagentKey, normalizeAgentId, parseAgentKey, targetFromKey } from './keys.mjs';

export class GatewayError extends Error {
  constructor(message) {
    super(message);
    this.name = 'GatewayError';
    this.kind = 'forbidden';
  }
}

function agentOf(canonical) {
  const parsed = parseAgentKey(canonical);
  return parsed ? normalizeAgentId(parsed.agentId) : undefined;
}

const trim = (s) => (typeof s === 'string' ? s.trim() : '');

/**
 * The idempotency key the gateway gets for a restricted guest's key: SHA-256 of a domain
 * tag, the caller's session and the guest's key (each length-prefixed, u64 little-endian),
 * its first 16 bytes in UUID v4 form — as the Rust host's guard derives it, so the same step
 * made again after a stop is the same run (issue 20), and no guest key names another
 * caller's run.
 */
export function derivedKey(own, guestKey) {
  const hash = createHash('sha256');
  for (const part of ['session-tools/n15-run-key', own, guestKey]) {
    const bytes = Buffer.from(part, 'utf8');
    const length = Buffer.alloc(8);
    length.writeBigUInt64LE(BigInt(bytes.length));
    hash.update(length);
    hash.update(bytes);
  }
  const b = hash.digest().subarray(0, 16);
  b[6] = (b[6] & 0x0f) | 0x40;
  b[8] = (b[8] & 0x3f) | 0x80;
  const hex = b.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

export class VisibilityGuard {
  /** The gateway as `callerKey` may see it (null: a caller without a session, which sees nothing). */
  constructor({ inner, tree, log, callerKey, spawnAgents }) {
    this.inner = inner;
    this.tree = tree;
    this.log = log ?? (() => {});
    this.own = callerKey === null || callerKey === undefined ? null : tree.canonicalKey(callerKey);
    this.spawnAgents = spawnAgents ?? { any: false, ids: [] };
    this.visible = new Set();
    this.adopted = new Set();
    /** Runs this caller started through the guard. */
    this.started = new Set();
    /** The idempotency key given to the gateway for each key of the guest. */
    this.keys = new Map();
  }

  /** Recomputes the caller's tree from the gateway's spawn edges (own session only when they cannot be read). */
  async refresh() {
    if (this.own === null) return this.visible;
    const roots = new Set([this.own, ...this.adopted]);
    let visible;
    try {
      visible = await this.tree.spawnedTrees(roots);
    } catch {
      visible = roots;
    }
    this.visible = new Set(visible);
    return this.visible;
  }

  /** Whether a key (in any spelling) is the caller's or in its tree. */
  async canSee(key) {
    if (typeof key !== 'string') return false;
    const canonical = this.tree.canonicalKey(key);
    if (this.visible.has(canonical)) return true;
    return (await this.refresh()).has(canonical);
  }

  refuse(method, what) {
    this.log('warn', `N15: refused ${method}: ${what} for sandboxed session ${this.own ?? '(none)'}`);
    throw new GatewayError(`forbidden: ${what} is not visible from this sandboxed agent session`);
  }

  async check(method, key) {
    if (!(await this.canSee(key))) this.refuse(method, `session ${trim(key)}`);
  }

  /** A sub-agent session the caller is creating now: new, spawned from its tree, in an agent it may spawn for. */
  async isNewChild(key, parent) {
    if (typeof key !== 'string') return false;
    const canonical = this.tree.canonicalKey(key);
    if (!isSubagentKey(canonical)) return false;
    const agent = agentOf(canonical);
    if (!agent || !(this.spawnAgents.any || this.spawnAgents.ids.includes(agent))) return false;
    let exists;
    try {
      exists = await this.tree.exists(canonical);
    } catch {
      return false;
    }
    if (exists !== false) return false;
    return typeof parent === 'string' && (await this.canSee(parent));
  }

  adopt(key) {
    const canonical = this.tree.canonicalKey(key);
    this.adopted.add(canonical);
    this.visible.add(canonical);
  }

  /** Whether a run is the caller's: the gateway says it is a visible session's, or (unknown to it) the caller started it here. */
  async ownsRun(runId) {
    const session = typeof runId === 'string' ? this.tree.runSession(runId) : undefined;
    if (session !== undefined) return this.canSee(session);
    return this.started.has(runId);
  }

  /** The idempotency key the gateway gets for the guest's: derived from the caller's session and the guest's key. */
  ownKey(guestKey) {
    if (!this.keys.has(guestKey)) this.keys.set(guestKey, derivedKey(this.own ?? '', guestKey));
    return this.keys.get(guestKey);
  }

  /** Delivery targets the caller may post to: those of its visible sessions. */
  async maySendTo(channel, to) {
    const visible = await this.refresh();
    let rows = [];
    try {
      rows = await this.tree.rowsOf(new Set(visible));
    } catch {
      rows = [];
    }
    const channelOk = (c) => channel === undefined || (typeof c === 'string' && c.toLowerCase() === channel.toLowerCase());
    return rows.some((row) => {
      const dc = row.deliveryContext && typeof row.deliveryContext === 'object' ? row.deliveryContext : {};
      const fromRow = (dc.to === to && channelOk(dc.channel)) || (row.lastTo === to && channelOk(row.lastChannel));
      const target = typeof row.key === 'string' ? targetFromKey(row.key) : null;
      const fromKey = !!target && target.to === to && channelOk(target.channel);
      return fromRow || fromKey;
    });
  }

  async call(method, params) {
    switch (method) {
      case 'sessions.list': {
        const list = await this.inner.call(method, params);
        const visible = await this.refresh();
        if (!list || typeof list !== 'object' || !Array.isArray(list.sessions)) return list;
        return { ...list, sessions: list.sessions.filter((row) => row && typeof row.key === 'string' && visible.has(row.key)) };
      }
      case 'sessions.resolve': {
        const asked =
          params.key !== undefined
            ? `session ${trim(params.key)}`
            : params.sessionId !== undefined
              ? `sessionId ${params.sessionId}`
              : params.label !== undefined
                ? `label ${params.label}`
                : 'session';
        if (params.key !== undefined && !(await this.canSee(params.key))) return this.refuse(method, asked);
        let answer;
        try {
          answer = await this.inner.call(method, params);
        } catch {
          answer = undefined;
        }
        const key = answer && typeof answer.key === 'string' ? answer.key : '';
        if (key !== '' && (await this.canSee(key))) return answer;
        // Nothing found, a session outside the tree, or a failure: one answer, which names
        // nothing the caller did not ask for (the component masks them alike).
        return this.refuse(method, asked);
      }
      case 'chat.history':
        await this.check(method, params.sessionKey);
        return this.inner.call(method, params);
      case 'agent': {
        const key = params.sessionKey ?? 'main';
        if (!(await this.canSee(key))) {
          if (!(await this.isNewChild(key, params.spawnedBy))) this.refuse(method, `session ${trim(key)}`);
          this.adopt(key);
        }
        // A run of another session keeps its session (first writer wins): its key is
        // refused, and the gateway gets a key of the guard's own for every run.
        const guestKey = params.idempotencyKey;
        const owner = typeof guestKey === 'string' ? this.tree.runSession(guestKey) : undefined;
        if (owner !== undefined && !(await this.canSee(owner))) this.refuse(method, `run ${guestKey}`);
        const idempotencyKey = this.ownKey(guestKey);
        const accepted = await this.inner.call(method, { ...params, idempotencyKey });
        const runId = accepted && typeof accepted.runId === 'string' && accepted.runId !== '' ? accepted.runId : idempotencyKey;
        const session = this.tree.runSession(runId);
        if (session === undefined || (await this.canSee(session))) this.started.add(runId);
        await this.refresh(); // a child it just spawned joins the tree
        return { ...(accepted && typeof accepted === 'object' ? accepted : {}), runId };
      }
      case 'agent.wait':
        if (!(await this.ownsRun(params.runId))) this.refuse(method, `run ${params.runId}`);
        return this.inner.call(method, params);
      case 'send':
        if (!(await this.maySendTo(params.channel, params.to))) this.refuse(method, `target ${params.channel ?? '?'}:${params.to}`);
        return this.inner.call(method, params);
      case 'sessions.patch':
        // A spawn configures its new child (its model) before it starts it: the caller may
        // create that session, and nothing else outside its tree.
        if (!(await this.canSee(params.key))) {
          if (!(await this.isNewChild(params.key, this.own ?? undefined))) this.refuse(method, `session ${trim(params.key)}`);
          this.adopt(params.key);
        }
        return this.inner.call(method, params);
      case 'sessions.delete':
        await this.check(method, params.key);
        return this.inner.call(method, params);
      default:
        return this.refuse(method, `method ${method}`);
    }
  }

  /** Each key checked; only the visible ones go to the gateway, answers put back in place. */
  async histories(list) {
    const checked = [];
    for (const params of list) {
      try {
        await this.check('chat.history', params.sessionKey);
        checked.push(null);
      } catch (e) {
        checked.push(e.message);
      }
    }
    const allowed = list.filter((_, i) => checked[i] === null);
    const answers = allowed.length > 0 ? await this.inner.histories(allowed) : [];
    let next = 0;
    return checked.map((refusal) => (refusal === null ? answers[next++] ?? { error: 'the gateway answered too few histories' } : { error: refusal }));
  }
}
