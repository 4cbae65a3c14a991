// The tools' records the bridge keeps or passes between threads as JSON: a job (kept in the
// job store's files) and a tool call's caller context (from the tool context OpenClaw gives).
// These are the component's own records, not the gateway's: what the gateway's JSON means is
// the gateway wire's to say (wire/, run beside each guest in worker.mjs).

/** A u64 from the guest as a JSON number (past 2^53 it is clamped there). */
function num(value) {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'bigint') return value > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(value);
  return value;
}

const u64 = (v) => BigInt(Math.max(0, Math.floor(Number(v) || 0)));

export function jobToJson(job) {
  let wake;
  switch (job.wake.tag) {
    case 'run-end':
      wake = { type: 'runEnd', wait: { runId: job.wake.val.runId, timeoutMs: num(job.wake.val.timeoutMs) } };
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
      wake = { tag: 'run-end', val: { runId: String(j.wake.wait?.runId ?? ''), timeoutMs: u64(j.wake.wait?.timeoutMs) } };
      break;
    case 'at':
      wake = { tag: 'at', val: u64(j.wake.at) };
      break;
    default:
      wake = { tag: 'now' };
  }
  return { id: String(j.id), kind: String(j.kind), sessionKey: String(j.sessionKey), state: String(j.state), wake };
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
