// The gateway calls in OpenClaw's wire shape (`host/src/gateway/wire.rs`): the guest's
// records (as jco lifts them: camelCase fields, `undefined` for `none`, BigInt for 64-bit
// integers, `{tag, val}` variants) to the gateway's JSON params (camelCase, absent optional
// values omitted), and the gateway's JSON answers back to guest records. Answers are
// untrusted: a field of the wrong type is treated as absent, a row without a non-empty
// string `key` is dropped.

const I64_MAX = 2n ** 63n - 1n;
const I64_MIN = -(2n ** 63n);

function put(object, key, value) {
  if (value !== undefined && value !== null) object[key] = value;
}

/** A u32/u64 from the guest as a JSON number (u64 past 2^53 is clamped there). */
function num(value) {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'bigint') return value > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(value);
  return value;
}

export function listParams(p) {
  const m = {};
  put(m, 'limit', num(p.limit));
  put(m, 'activeMinutes', num(p.activeMinutes));
  put(m, 'includeGlobal', p.includeGlobal);
  put(m, 'includeUnknown', p.includeUnknown);
  put(m, 'spawnedBy', p.spawnedBy);
  put(m, 'label', p.label);
  put(m, 'agentId', p.agentId);
  put(m, 'search', p.search);
  return m;
}

export function resolveParams(p) {
  const m = {};
  put(m, 'key', p.key);
  put(m, 'sessionId', p.sessionId);
  put(m, 'label', p.label);
  put(m, 'agentId', p.agentId);
  put(m, 'spawnedBy', p.spawnedBy);
  put(m, 'includeGlobal', p.includeGlobal);
  put(m, 'includeUnknown', p.includeUnknown);
  return m;
}

export function historyParams(p) {
  const m = { sessionKey: p.sessionKey };
  put(m, 'limit', num(p.limit));
  return m;
}

export function agentParams(p) {
  const m = { message: p.message };
  put(m, 'sessionKey', p.sessionKey);
  put(m, 'channel', p.channel);
  m.idempotencyKey = p.idempotencyKey;
  put(m, 'deliver', p.deliver);
  put(m, 'lane', p.lane);
  put(m, 'extraSystemPrompt', p.extraSystemPrompt);
  put(m, 'thinking', p.thinking);
  put(m, 'timeout', num(p.timeout));
  put(m, 'label', p.label);
  put(m, 'spawnedBy', p.spawnedBy);
  put(m, 'groupId', p.groupId);
  put(m, 'groupChannel', p.groupChannel);
  put(m, 'groupSpace', p.groupSpace);
  return m;
}

export function waitParams(p) {
  return { runId: p.runId, timeoutMs: num(p.timeoutMs) };
}

export function sendParams(p) {
  const m = { to: p.to, message: p.message };
  put(m, 'channel', p.channel);
  put(m, 'accountId', p.accountId);
  m.idempotencyKey = p.idempotencyKey;
  return m;
}

export function patchParams(p) {
  const m = { key: p.key };
  put(m, 'label', p.label);
  put(m, 'model', p.model);
  return m;
}

export function deleteParams(p) {
  return { key: p.key, deleteTranscript: p.deleteTranscript };
}

// ---- answers (JSON → guest records) ----

const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);

function str(v, key) {
  const x = isObject(v) ? v[key] : undefined;
  return typeof x === 'string' ? x : undefined;
}

function f64(v, key) {
  const x = isObject(v) ? v[key] : undefined;
  return typeof x === 'number' && Number.isFinite(x) ? x : undefined;
}

function i64(v, key) {
  const x = f64(v, key);
  if (x === undefined) return undefined;
  const n = BigInt(Math.floor(Math.max(Math.min(x, 9.3e18), -9.3e18)));
  return n > I64_MAX ? I64_MAX : n < I64_MIN ? I64_MIN : n;
}

function bool(v, key) {
  const x = isObject(v) ? v[key] : undefined;
  return typeof x === 'boolean' ? x : undefined;
}

/** A thread id is a string or a number, and keeps its type (N11). */
export function threadId(v) {
  if (typeof v === 'string') return { tag: 'text', val: v };
  if (typeof v === 'number' && Number.isFinite(v)) return { tag: 'number', val: v };
  return undefined;
}

export function deliveryContext(v) {
  if (!isObject(v)) return undefined;
  return { channel: str(v, 'channel'), to: str(v, 'to'), accountId: str(v, 'accountId'), threadId: threadId(v.threadId) };
}

/** One `sessions.list` row; undefined without a non-empty string key. */
export function sessionRow(v) {
  if (!isObject(v) || typeof v.key !== 'string' || v.key === '') return undefined;
  return {
    key: v.key,
    kind: str(v, 'kind'),
    channel: str(v, 'channel'),
    label: str(v, 'label'),
    displayName: str(v, 'displayName'),
    deliveryContext: deliveryContext(v.deliveryContext),
    updatedAt: i64(v, 'updatedAt'),
    sessionId: str(v, 'sessionId'),
    model: str(v, 'model'),
    contextTokens: f64(v, 'contextTokens'),
    totalTokens: f64(v, 'totalTokens'),
    thinkingLevel: str(v, 'thinkingLevel'),
    verboseLevel: str(v, 'verboseLevel'),
    systemSent: bool(v, 'systemSent'),
    abortedLastRun: bool(v, 'abortedLastRun'),
    sendPolicy: str(v, 'sendPolicy'),
    lastChannel: str(v, 'lastChannel'),
    lastTo: str(v, 'lastTo'),
    lastAccountId: str(v, 'lastAccountId'),
    spawnedBy: str(v, 'spawnedBy'),
  };
}

export function sessionList(v) {
  const rows = isObject(v) && Array.isArray(v.sessions) ? v.sessions : [];
  return { path: str(v, 'path'), sessions: rows.map(sessionRow).filter((r) => r !== undefined) };
}

/** The key of a `sessions.resolve` answer; empty when it has none. */
export function resolvedKey(v) {
  return str(v, 'key') ?? '';
}

export function transcriptMessage(v) {
  return { role: str(v, 'role'), json: JSON.stringify(v) ?? 'null' };
}

export function history(v) {
  const messages = isObject(v) && Array.isArray(v.messages) ? v.messages : [];
  return { sessionId: str(v, 'sessionId'), messages: messages.map(transcriptMessage) };
}

export function agentAccepted(v) {
  return { runId: str(v, 'runId') };
}

export function usage(v) {
  if (!isObject(v)) return undefined;
  return {
    inputTokens: f64(v, 'inputTokens') ?? f64(v, 'input'),
    outputTokens: f64(v, 'outputTokens') ?? f64(v, 'output'),
    totalTokens: f64(v, 'totalTokens'),
  };
}

export function waitResult(v) {
  return {
    status: str(v, 'status'),
    error: str(v, 'error'),
    startedAt: i64(v, 'startedAt'),
    endedAt: i64(v, 'endedAt'),
    usage: usage(isObject(v) ? v.usage : undefined),
    model: str(v, 'model'),
  };
}

/** A guest `wait-result` as JSON (what a job's wakeup carries between threads and files). */
export function waitResultJson(w) {
  const m = {};
  put(m, 'status', w.status);
  put(m, 'error', w.error);
  put(m, 'startedAt', num(w.startedAt));
  put(m, 'endedAt', num(w.endedAt));
  if (w.usage) {
    const u = {};
    put(u, 'inputTokens', w.usage.inputTokens);
    put(u, 'outputTokens', w.usage.outputTokens);
    put(u, 'totalTokens', w.usage.totalTokens);
    m.usage = u;
  }
  put(m, 'model', w.model);
  return m;
}

// ---- sizes of answers, as the Rust host counts them (`sandbox/imports.rs`) ----

const len = (s) => (typeof s === 'string' ? Buffer.byteLength(s) : 0);

export function rowSize(r) {
  let size = 64 + len(r.key);
  for (const f of ['kind', 'channel', 'label', 'displayName', 'sessionId', 'model', 'thinkingLevel', 'verboseLevel', 'sendPolicy', 'lastChannel', 'lastTo', 'lastAccountId', 'spawnedBy']) {
    size += len(r[f]);
  }
  const d = r.deliveryContext;
  if (d) size += len(d.channel) + len(d.to) + len(d.accountId) + (d.threadId ? (d.threadId.tag === 'text' ? len(d.threadId.val) : 8) : 0);
  return size;
}

export function historySize(h) {
  return h.messages.reduce((n, m) => n + len(m.json) + len(m.role) + 16, 0);
}

// ---- jobs (guest records ↔ JSON, as kept in files and sent between threads) ----

export function jobToJson(job) {
  let wake;
  switch (job.wake.tag) {
    case 'run-end':
      wake = { type: 'runEnd', wait: waitParams(job.wake.val) };
      break;
    case 'at':
      wake = { type: 'at', at: num(job.wake.val) };
      break;
    default:
      wake = { type: 'now' };
  }
  return { id: job.id, kind: job.kind, sessionKey: job.sessionKey, state: job.state, wake };
}

export function jobFromJson(j) {
  let wake;
  switch (j.wake?.type) {
    case 'runEnd':
      wake = { tag: 'run-end', val: { runId: String(j.wake.wait?.runId ?? ''), timeoutMs: BigInt(Math.max(0, Math.floor(Number(j.wake.wait?.timeoutMs) || 0))) } };
      break;
    case 'at':
      wake = { tag: 'at', val: BigInt(Math.max(0, Math.floor(Number(j.wake.at) || 0))) };
      break;
    default:
      wake = { tag: 'now' };
  }
  return { id: String(j.id), kind: String(j.kind), sessionKey: String(j.sessionKey), state: String(j.state), wake };
}

/** A wakeup as JSON (`{type: 'now'|'timer'}` or `{type: 'runEnded', ok|error}`) to the guest's. */
export function wakeupFromJson(w) {
  switch (w?.type) {
    case 'timer':
      return { tag: 'timer' };
    case 'runEnded':
      return {
        tag: 'run-ended',
        val: w.error !== undefined ? { tag: 'err', val: { message: String(w.error) } } : { tag: 'ok', val: waitResult(w.ok) },
      };
    default:
      return { tag: 'now' };
  }
}

/** The caller context a tool call gives the guest, from loose JSON (only known string fields). */
export function callerContext(c = {}) {
  const s = (k) => {
    const v = c[k];
    if (typeof v === 'string') return v;
    if (typeof v === 'number' && Number.isFinite(v)) return String(v);
    return undefined;
  };
  return {
    agentSessionKey: s('agentSessionKey'),
    agentChannel: s('agentChannel'),
    agentAccountId: s('agentAccountId'),
    agentTo: s('agentTo'),
    agentThreadId: s('agentThreadId'),
    agentGroupId: s('agentGroupId'),
    agentGroupChannel: s('agentGroupChannel'),
    agentGroupSpace: s('agentGroupSpace'),
    sandboxed: c.sandboxed === true,
    requesterAgentIdOverride: s('requesterAgentIdOverride'),
  };
}
