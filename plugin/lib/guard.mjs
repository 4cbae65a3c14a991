// The rules written once in Rust and run natively by the Rust host, asked of one instance of
// the guard component on the main thread: who is restricted and the key rules (`guard/`,
// N15), limits and configs (`deployment/`: limits.mjs, config.mjs), and the rules around a
// call and a job (`host-rules/`: `jobRules`). None of them calls an import.

import { asked, COMPONENT, pureInstance } from './components.mjs';

/** The instances kept, by the directory of the transpiled components. */
const instances = new Map();

/**
 * The guard component's exports (`guard`, `deployment`, `jobRules`) from the components in
 * `dir`, instantiated at first use, synchronously (the plugin registers its tools so).
 */
export function guardComponent(dir = COMPONENT) {
  if (!instances.has(dir)) instances.set(dir, pureInstance('guard', dir));
  return instances.get(dir);
}

const guard = () => guardComponent().guard;

/** The rules every host follows around a call and a job (the WIT `job-rules`). */
export const jobRules = () => guardComponent().jobRules;

/**
 * How `caller` (a caller context, records.mjs: its `agentSessionKey`, `sandboxed` and
 * `requesterAgentIdOverride` are read) is served under the deployment config (JSON text):
 * `{agent, restriction: null | {ownKey?, spawnedOnly, scope, spawnAny, spawnAgents}, pool}`
 * (`pool`: the instances that may serve it). Throws naming what was wrong.
 */
export function decide(configJson, caller) {
  const access = asked(() => guard().decide(configJson, caller), 'the N15 guard cannot decide who the caller is');
  return { agent: access.agent, restriction: access.restriction ?? null, pool: access.pool };
}

/** The key rules of a deployment config (JSON text): `{mainKey, scopeGlobal, defaultAgent}`. */
export function keyRulesOf(configJson) {
  return asked(() => guard().keyRulesOf(configJson), 'the key rules of the config');
}

/** `key` as the gateway stores it under `rules` (`keyRulesOf`'s). */
export function canonicalKey(rules, key) {
  return guard().canonicalKey(rules, typeof key === 'string' ? key : '');
}

/** An agent id as the gateway normalises it. */
export function normalizeAgentId(id) {
  return guard().normalizeAgentId(typeof id === 'string' ? id : '');
}
