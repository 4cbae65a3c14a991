// Who a caller is to the host (`host/src/service/access.rs`): the agent whose instances
// serve it, the pool of instances that may serve it, and whether it is restricted (N15).
// Decided by the host alone, from the deployment config, failing closed: every sandboxed
// caller under `spawned` visibility (N10; absent means `spawned`) is restricted, a
// sandboxed sub-agent session included, and a caller with no session sees nothing.

import { DEFAULT_AGENT_ID, normalizeAgentId, parseAgentKey } from './keys.mjs';

function agentOfKey(key) {
  const parsed = key ? parseAgentKey(key) : null;
  return parsed ? normalizeAgentId(parsed.agentId) : DEFAULT_AGENT_ID;
}

/**
 * How `caller` (the guest's caller-context shape) is served under `config`
 * (a DeploymentConfig). Answers `{agent, pool, restriction: null | {own, spawnAgents: {any, ids}}}`.
 */
export function access(config, caller) {
  const raw = typeof caller.agentSessionKey === 'string' ? caller.agentSessionKey.trim() : '';
  const key = raw || undefined;
  const literalMain = (k) => k === 'main' || k === config.mainKey;
  const fromKey = key && !literalMain(key) ? parseAgentKey(key)?.agentId : undefined;
  const agent = normalizeAgentId(caller.requesterAgentIdOverride ?? fromKey ?? '');
  const keyAgent = agentOfKey(key);
  const visibility = config.toolsVisibility(keyAgent);
  const restricted = caller.sandboxed === true && (visibility === undefined || visibility === 'spawned');
  if (!restricted) return { agent, pool: `${agent}\nall`, restriction: null };
  let own = null;
  if (key !== undefined) {
    if (!literalMain(key)) own = key;
    else if (config.scopeGlobal) own = 'global';
    else own = `agent:${keyAgent}:${config.mainKey}`;
  }
  const { any, ids } = config.allowAgents(agent);
  const spawnIds = [agent, ...ids.filter((id) => id !== agent)];
  const scope = own === null ? 'none' : `own ${config.rules.canonical(own)}`;
  return { agent, pool: `${agent}\n${scope}`, restriction: { own, spawnAgents: { any, ids: spawnIds } } };
}
