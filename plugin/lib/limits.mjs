// Resource limits of a guest instance, per agent, enforced by sandbox.mjs, worker.mjs,
// jobs.mjs and the caps written into the modules; read by the Rust host's one reader
// (`deployment/src/limits.rs`: the keys, their units, defaults and bounds), asked of the guard
// component's `deployment` export, so an error names what was wrong in the Rust host's words.

import { asked, pureInstance } from './components.mjs';
import { guardComponent } from './guard.mjs';

/** A `limits` record with its 64-bit values (BigInt in jco) as numbers. */
const asNumbers = (limits) => Object.fromEntries(Object.entries(limits).map(([field, value]) => [field, Number(value)]));

/**
 * Reads a limits file's JSON text (`{"default": {...}, "agents": {"<id>": {...}}}`) over
 * the built-in defaults: `{default, agents: Map(normalised id → limits)}`, each limits in
 * bytes, milliseconds and counts (`memoryBytes`, `cpuMs`, `wallMs`, …). Throws an Error
 * naming `origin` and what was wrong. `dir`: where the transpiled components are.
 */
export function readLimits(text, origin, dir) {
  const read = asked(() => guardComponent(dir).deployment.agentLimitsOf(text, origin));
  return { default: asNumbers(read.defaults), agents: new Map(read.agents.map(([id, limits]) => [id, asNumbers(limits)])) };
}

/** Limits for every agent: the plugin config's `limits` (`{default, agents}`) over the defaults. */
export class AgentLimits {
  constructor(spec = {}) {
    // `default` and `agents`, as read.
    Object.assign(this, readLimits(JSON.stringify(spec ?? {}), 'limits'));
  }

  forAgent(agent) {
    return this.agents.get(agent) ?? this.default;
  }
}

/** The built-in limits (`dir`: as readLimits'). */
export function defaultLimits(dir) {
  return readLimits('{}', 'limits', dir).default;
}

/**
 * A core module (bytes) with every memory it defines capped at `memoryBytes` and every table
 * at `tableElements`, written into the module, as Node's engine has no per-instance limits
 * (`deployment/src/module_caps.rs`): `{bytes, memories, tables}` (each `{min, max}`, in
 * pages and elements). Throws naming what was wrong. A fresh instance of the guard caps it,
 * so that the module's copy does not stay in the memory of the one kept for the process.
 */
export function capModule(module, { memoryBytes, tableElements = 2 ** 32 - 1 }, dir) {
  return asked(() => pureInstance('guard', dir).deployment.capModule(module, BigInt(memoryBytes), Math.min(tableElements, 2 ** 32 - 1)));
}
