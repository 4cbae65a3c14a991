// The N15 guard component's pure functions, on the main thread (no copy of its rules in JavaScript): who is
// restricted (`guard.decide`, N15/N10), the key rules a deployment config sets, a key's
// canonical spelling and an agent id's normal form; and, exported beside them, the rules of
// the `deployment/` crate (limits.mjs, config.mjs) and of `host-rules/` (`jobRules`: call
// errors, job records, intents, keys and seeded ids; jobs.mjs, intent.mjs, sandbox.mjs,
// worker.mjs). These rules are written once, in Rust (`guard/`, over the key grammar of
// `grammar/`; `deployment/`; `host-rules/`), and the Rust host runs the
// same code natively: the plugin asks one instance of the guard component (transpiled into
// component/ by scripts/build-component.mjs) and keeps no copy of them. Every function
// here calls no import, so the instance is given none that does anything.

import { asked, COMPONENT, pureInstance } from './components.mjs';

/** The instances kept, by the directory of the transpiled components. */
const instances = new Map();

/**
 * The guard component's exports (`guard`, `deployment`, `jobRules`), from the components in `dir`
 * (component/ unless a build asks of the one it is writing), instantiated at first use
 * (synchronously: the plugin registers its tools synchronously).
 */
export function guardComponent(dir = COMPONENT) {
  if (!instances.has(dir)) instances.set(dir, pureInstance('guard', dir));
  return instances.get(dir);
}

const guard = () => guardComponent().guard;

/** The rules every host follows around a call and a job (`host-rules/`, the WIT `job-rules`). */
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

/** How the gateway canonicalises keys under `rules` (`{mainKey, scopeGlobal, defaultAgent}`). */
export class KeyRules {
  constructor(rules = { mainKey: 'main', scopeGlobal: false, defaultAgent: 'main' }) {
    this.rules = { mainKey: rules.mainKey, scopeGlobal: rules.scopeGlobal === true, defaultAgent: rules.defaultAgent };
  }

  /** The key rules a deployment config (an object) sets. */
  static of(config) {
    return new KeyRules(keyRulesOf(JSON.stringify(config ?? {})));
  }

  canonical(key) {
    return guard().canonicalKey(this.rules, typeof key === 'string' ? key : '');
  }
}

/** An agent id as the gateway normalises it. */
export function normalizeAgentId(id) {
  return guard().normalizeAgentId(typeof id === 'string' ? id : '');
}
