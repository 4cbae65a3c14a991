// The deployment config as the host holds it (`host/src/config.rs`): the key rules the
// gateway spells keys by, as the guard component reads them (guard.mjs), and the config an
// instance is given. Who is restricted is the guard's to decide (guard.mjs), the rest is the
// component's to read: every instance is configured with the paths the component reads and
// nothing else (N16), as `host/src/config/guest.rs` does, from the same file
// (`wit/config-paths.json`, copied into component/ by the build).

import { readFileSync } from 'node:fs';

import { KeyRules } from './guard.mjs';
import { documentsShape } from './wire-codecs.mjs';

/** The paths the component reads, as the build keeps them beside the component. */
export const CONFIG_PATHS_FILE = new URL('../component/config-paths.json', import.meta.url);

const newPaths = () => ({ ends: false, keys: new Map(), everyKey: null, elements: null });

/**
 * Reads a paths file (`{"paths": [...]}`, the grammar of its `about`) into a tree: at each
 * place, whether a path ends there, the keys it goes on into (`*`: every key), and `[]`.
 * Throws naming what is wrong.
 */
export function parsePaths(text) {
  let file;
  try {
    file = JSON.parse(text);
  } catch (e) {
    throw new Error(`not JSON: ${e.message}`);
  }
  if (!Array.isArray(file?.paths)) throw new Error('no "paths" array');
  const root = newPaths();
  file.paths.forEach((path, index) => {
    if (typeof path !== 'string') throw new Error(`paths[${index}] is not a string`);
    let node = root;
    for (const step of path.split('.')) {
      const name = step.replace(/(\[\])+$/, '');
      if (name === '') throw new Error(`paths[${index}] ${JSON.stringify(path)}: a step without a key`);
      if (/[[\]]/.test(name)) throw new Error(`paths[${index}] ${JSON.stringify(path)}: the step ${JSON.stringify(step)} has brackets other than a trailing []`);
      if (name === '*') node = node.everyKey ??= newPaths();
      else {
        if (!node.keys.has(name)) node.keys.set(name, newPaths());
        node = node.keys.get(name);
      }
      for (let i = 0; i < (step.length - name.length) / 2; i++) node = node.elements ??= newPaths();
    }
    node.ends = true;
  });
  return root;
}

/** What `paths` (the listed paths through one place) keep of the value there; undefined: nothing. */
function project(value, paths) {
  const ends = paths.some((p) => p.ends);
  if (Array.isArray(value)) {
    const next = paths.map((p) => p.elements).filter((p) => p !== null);
    if (next.length === 0) return ends ? [] : undefined;
    return value.map((item) => project(item, next) ?? null);
  }
  if (value !== null && typeof value === 'object') {
    if (!paths.some((p) => p.keys.size > 0 || p.everyKey !== null)) return ends ? {} : undefined;
    // No prototype: a key such as `__proto__` is a key like any other.
    const kept = Object.create(null);
    for (const [key, item] of Object.entries(value)) {
      const next = paths.flatMap((p) => [p.keys.get(key), p.everyKey]).filter((p) => p !== undefined && p !== null);
      const projected = next.length > 0 ? project(item, next) : undefined;
      if (projected !== undefined) kept[key] = projected;
    }
    return kept;
  }
  return ends && value !== undefined ? value : undefined;
}

let builtIn;

/**
 * The config as an instance is given it, as JSON text: what the paths of
 * `wit/config-paths.json` reach, nothing else (a config that is not an object keeps
 * nothing: `null`, which the component refuses as it would the config).
 */
export function guestConfigJson(config, paths) {
  const tree = paths ?? (builtIn ??= parsePaths(readFileSync(CONFIG_PATHS_FILE, 'utf8')));
  return JSON.stringify(project(config, [tree]) ?? null);
}

export class DeploymentConfig {
  constructor(raw) {
    // One shape for everything that reads it, whichever era wrote it (E2): OpenClaw 2026.9
    // hands a plugin its config with `agents.entries`; the wire converts it (its one copy).
    this.raw = raw && typeof raw === 'object' && !Array.isArray(raw) ? documentsShape(raw) : {};
    this.json = guestConfigJson(this.raw);
    // How the gateway spells keys (`session.mainKey`, `session.scope`, the default agent).
    this.rules = KeyRules.of(this.raw);
  }
}
