// What the bridge sends and reads differently on a protocol-4 gateway (OpenClaw 2026.5 and
// later; `../shared/spec/openclaw-2026.9.md` §1.6), on top of the one wire mapping
// (wire.mjs): both eras validate params with closed schemas, so each request is built for
// the protocol the connection negotiated (E1). The same rules as the Rust host's
// `host/src/gateway/live/era.rs`; kept apart, and small, so both move into the wire
// component once it is configured with the protocol.

/** Rows asked for in one `sessions.list` page on protocol 4. */
export const PAGE = 500;
/** Rows one list without a limit gathers at most over its pages (more is an error, E6). */
export const MAX_LISTED = 100_000;
/** `chat.history`'s largest `maxChars` on protocol 4 (its projection cuts at 8,000, E4). */
const MAX_CHARS = 500_000;

export const isV4 = (protocol) => typeof protocol === 'number' && protocol >= 4;

/** `sessions.list` params: a page of a list without a limit on protocol 4 (E6). */
export function listParams(protocol, params, offset = 0) {
  if (!isV4(protocol)) return params;
  const out = { ...params };
  if (out.limit === undefined) out.limit = PAGE;
  if (offset > 0) out.offset = offset;
  return out;
}

/** The next page's offset of a protocol-4 answer to a list without a limit, if any. */
export function nextPage(protocol, params, offset, answer) {
  if (!isV4(protocol) || params.limit !== undefined || answer?.hasMore !== true) return undefined;
  const rows = Array.isArray(answer.sessions) ? answer.sessions.length : 0;
  const next = Number.isInteger(answer.nextOffset) ? answer.nextOffset : offset + rows;
  return next > offset ? next : undefined;
}

/** A `sessions.list` answer with each row's parent as `spawnedBy` (E5). */
export function withLineage(answer) {
  if (!Array.isArray(answer?.sessions)) return answer;
  for (const row of answer.sessions) {
    if (!row || typeof row !== 'object') continue;
    const own = typeof row.spawnedBy === 'string' && row.spawnedBy.trim() !== '';
    const parent = typeof row.parentSessionKey === 'string' && row.parentSessionKey.trim() !== '' ? row.parentSessionKey : undefined;
    if (!own && parent) row.spawnedBy = parent;
  }
  return answer;
}

/** `chat.history` params: the whole text on protocol 4 (E4). */
export function historyParams(protocol, params) {
  return isV4(protocol) ? { ...params, maxChars: MAX_CHARS } : params;
}

/** A `chat.history` answer as the transcript holds it: without protocol 4's `__openclaw` (E4). */
export function historyAnswer(protocol, answer) {
  if (!isV4(protocol) || !Array.isArray(answer?.messages)) return answer;
  for (const message of answer.messages) {
    if (message && typeof message === 'object') delete message.__openclaw;
  }
  return answer;
}

/**
 * A child's run on protocol 4 (E5): the `sessions.create` params that make the child first,
 * and the `agent` params without the fields protocol 4 refuses. `null` when nothing differs.
 */
export function spawnSteps(protocol, params) {
  if (!isV4(protocol) || typeof params?.spawnedBy !== 'string' || typeof params.sessionKey !== 'string') return null;
  const { spawnedBy, label, ...agent } = params;
  const create = { key: params.sessionKey, parentSessionKey: spawnedBy };
  const agentId = /^agent:([^:]+):/.exec(params.sessionKey)?.[1];
  if (agentId) create.agentId = agentId;
  if (typeof label === 'string') create.label = label;
  return { create, agent };
}
