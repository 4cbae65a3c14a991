// A tool call's caller context, the component's own record (not the gateway's: what the
// gateway's JSON means is the gateway wire's to say), as the bridge passes it between threads
// and keeps it with a job: from the tool context OpenClaw gives, loose JSON. (A job's own
// JSON is the rules': `job-rules`' `job-json` and `job-of`, worker.mjs.)

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
