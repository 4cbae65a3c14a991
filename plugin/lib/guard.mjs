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

import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { BoundedOutput, wasiImports } from './wasi.mjs';

const COMPONENT = fileURLToPath(new URL('../component/', import.meta.url));

// The transpiled guard is loaded when first asked for, synchronously (an ES module without
// top-level await, as jco writes it), so these modules load before a build too.
const require = createRequire(import.meta.url);

/** Imports that fail when called: the pure functions never call them. */
function none(what) {
  return new Proxy(
    {},
    {
      get: (_, name) => () => {
        throw new Error(`the guard's pure functions called ${what}.${String(name)}`);
      },
    },
  );
}

/** The instances, by the directory of the transpiled components. */
const instances = new Map();

/**
 * The exports of an instance of the guard component given to its pure functions alone:
 * `instantiate` (the transpiled module's), its core modules by name (`module(file)`).
 */
export function instantiatePure(instantiate, module) {
  const sink = new BoundedOutput(0);
  const imports = {
    'openclaw:session-tools/types': {},
    'openclaw:session-tools/gateway': none('gateway'),
    'openclaw:session-tools/tree': none('tree'),
    'openclaw:session-tools/audit': none('audit'),
    ...wasiImports({ stdout: sink, stderr: sink }),
  };
  return instantiate(module, imports);
}

/**
 * The guard component's exports (`guard`, `deployment`, `jobRules`), from the components in `dir`
 * (component/ unless a build asks of the one it is writing), instantiated at first use
 * (synchronously: the plugin registers its tools synchronously).
 */
export function guardComponent(dir = COMPONENT) {
  if (instances.has(dir)) return instances.get(dir);
  let manifest;
  try {
    manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8'));
  } catch (e) {
    throw new Error(`${dir} holds no transpiled components (${e.message}): run \`npm run build\` in plugin/`);
  }
  const part = manifest.components?.guard;
  if (!part) throw new Error(`${dir} holds no guard component: run \`npm run build\` in plugin/`);
  const { instantiate } = require(join(dir, part.js));
  const modules = Object.fromEntries(part.coreModules.map((f) => [f, new WebAssembly.Module(readFileSync(join(dir, f)))]));
  const exports = instantiatePure(instantiate, (f) => modules[f]);
  instances.set(dir, exports);
  return exports;
}

const guard = () => guardComponent().guard;

/** The rules every host follows around a call and a job (`host-rules/`, the WIT `job-rules`). */
export const jobRules = () => guardComponent().jobRules;

/** A guard function's `err` (jco throws it as it is; an Error is a trap) as an Error naming `doing`. */
function failed(doing, e) {
  return new Error(`${doing}: ${e instanceof Error ? e.message : String(e)}`);
}

/**
 * How `caller` (`{agentSessionKey?, sandboxed, requesterAgentIdOverride?}`) is served under
 * the deployment config (JSON text): `{agent, restriction: null | {ownKey?, spawnedOnly, scope, spawnAny,
 * spawnAgents}, pool}` (`pool`: the instances that may serve it). Throws naming what was wrong.
 */
export function decide(configJson, caller) {
  const identity = {
    agentSessionKey: typeof caller.agentSessionKey === 'string' ? caller.agentSessionKey : undefined,
    sandboxed: caller.sandboxed === true,
    requesterAgentIdOverride: typeof caller.requesterAgentIdOverride === 'string' ? caller.requesterAgentIdOverride : undefined,
  };
  try {
    const access = guard().decide(configJson, identity);
    return { agent: access.agent, restriction: access.restriction ?? null, pool: access.pool };
  } catch (e) {
    throw failed('the N15 guard cannot decide who the caller is', e);
  }
}

/** The key rules of a deployment config (JSON text): `{mainKey, scopeGlobal, defaultAgent}`. */
export function keyRulesOf(configJson) {
  try {
    return guard().keyRulesOf(configJson);
  } catch (e) {
    throw failed('the key rules of the config', e);
  }
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
