// A tool call's caller context, the component's own record (not the gateway's: what the
// gateway's JSON means is the gateway wire's to say), as the bridge passes it between threads
// and keeps it with a job: from the tool context OpenClaw gives, loose JSON. (A job's own
// JSON is the rules': `job-rules`' `job-json` and `job-of`, worker.mjs.)

/** The record's text fields: a string, or a finite number written out; anything else is absent. */
const TEXT_FIELDS = [
  'agentSessionKey', 'agentChannel', 'agentAccountId', 'agentTo', 'agentThreadId',
  'agentGroupId', 'agentGroupChannel', 'agentGroupSpace', 'requesterAgentIdOverride',
];

const text = (v) => (typeof v === 'string' ? v : typeof v === 'number' && Number.isFinite(v) ? String(v) : undefined);

/** The caller context a tool call gives the guest, from loose JSON (only known string fields). */
export function callerContext(c = {}) {
  return { ...Object.fromEntries(TEXT_FIELDS.map((k) => [k, text(c[k])])), sandboxed: c.sandboxed === true };
}
