// The N15 guard component's pure functions, on the main thread (issue 22): who is
// restricted (`guard.decide`, N15/N10), the key rules a deployment config sets, a key's
// canonical spelling and an agent id's normal form. These rules are written once, in Rust
// (`guard/`, over the key grammar of `grammar/`), and the Rust host runs the same code
// natively: the plugin asks this one instance of the guard component (transpiled into
// component/ by scripts/build-component.mjs) and keeps no copy of them. Every function
// here calls no import, so the instance is given none that does anything.

import { readFileSync } from 'node:fs';

import { instantiate } from '../component/session_tools_guard.js';
import { BoundedOutput, wasiImports } from './wasi.mjs';

const COMPONENT = new URL('../component/', import.meta.url);

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

let exports = null;

/** The guard's `guard` export, instantiated at first use (synchronously: the plugin registers its tools synchronously). */
function guard() {
  if (exports) return exports;
  const manifest = JSON.parse(readFileSync(new URL('manifest.json', COMPONENT), 'utf8'));
  const part = manifest.components?.guard;
  if (!part) throw new Error(`${COMPONENT.pathname} holds no guard component: run \`npm run build\` in plugin/`);
  const modules = Object.fromEntries(part.coreModules.map((f) => [f, new WebAssembly.Module(readFileSync(new URL(f, COMPONENT)))]));
  const sink = new BoundedOutput(0);
  const imports = {
    'openclaw:session-tools/types': {},
    'openclaw:session-tools/gateway': none('gateway'),
    'openclaw:session-tools/tree': none('tree'),
    'openclaw:session-tools/audit': none('audit'),
    ...wasiImports({ stdout: sink, stderr: sink }),
  };
  exports = instantiate((f) => modules[f], imports).guard;
  return exports;
}

/** A guard function's `err` (jco throws it as it is; an Error is a trap) as an Error naming `doing`. */
function failed(doing, e) {
  return new Error(`${doing}: ${e instanceof Error ? e.message : String(e)}`);
}

/**
 * How `caller` (`{agentSessionKey?, sandboxed, requesterAgentIdOverride?}`) is served under
 * the deployment config (JSON text): `{agent, restriction: null | {ownKey?, spawnedOnly, scope, spawnAny,
 * spawnAgents}}`. Throws naming what was wrong.
 */
export function decide(configJson, caller) {
  const identity = {
    agentSessionKey: typeof caller.agentSessionKey === 'string' ? caller.agentSessionKey : undefined,
    sandboxed: caller.sandboxed === true,
    requesterAgentIdOverride: typeof caller.requesterAgentIdOverride === 'string' ? caller.requesterAgentIdOverride : undefined,
  };
  try {
    const access = guard().decide(configJson, identity);
    return { agent: access.agent, restriction: access.restriction ?? null };
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
