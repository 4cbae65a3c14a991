// The deployment config as the host reads it (`host/src/config.rs`): only what the host
// decides itself (key rules, who is restricted under N15, which agents a restricted caller
// may spawn in). The rest is the component's to read: every instance is configured with the
// paths the component reads and nothing else (N16), as `host/src/config/guest.rs` does, from
// the same file (`wit/config-paths.json`, copied into component/ by the build).

import { readFileSync } from 'node:fs';

import { DEFAULT_AGENT_ID, KeyRules, normalizeAgentId, normalizeMainKey } from './keys.mjs';
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
    const get = (...path) => path.reduce((v, k) => (v && typeof v === 'object' ? v[k] : undefined), this.raw);
    const list = Array.isArray(get('agents', 'list')) ? get('agents', 'list') : [];
    const agents = list
      .filter((e) => e && typeof e === 'object' && !Array.isArray(e))
      .map((e) => ({ id: normalizeAgentId(typeof e.id === 'string' ? e.id : ''), isDefault: e.default === true, entry: e }));
    this.agents = agents;
    this.defaultAgent = (agents.find((a) => a.isDefault) ?? agents[0])?.id ?? DEFAULT_AGENT_ID;
    const mainKey = get('session', 'mainKey');
    this.mainKey = normalizeMainKey(typeof mainKey === 'string' ? mainKey : undefined);
    this.scopeGlobal = get('session', 'scope') === 'global';
    this.json = guestConfigJson(this.raw);
    this.rules = new KeyRules({ mainKey: this.mainKey, scopeGlobal: this.scopeGlobal, defaultAgent: this.defaultAgent });
  }

  agentEntry(agentId) {
    return this.agents.find((a) => a.id === agentId)?.entry;
  }

  /** `sandbox.sessionToolsVisibility` of an agent (N10: its own, else the defaults'). */
  toolsVisibility(agentId) {
    const own = this.agentEntry(agentId)?.sandbox?.sessionToolsVisibility;
    if (typeof own === 'string') return own;
    const dflt = this.raw.agents?.defaults?.sandbox?.sessionToolsVisibility;
    return typeof dflt === 'string' ? dflt : undefined;
  }

  /** `subagents.allowAgents` of an agent: `{any, ids}` (normalised, in order, no duplicates). */
  allowAgents(agentId) {
    const allow = this.agentEntry(agentId)?.subagents?.allowAgents;
    const values = Array.isArray(allow) ? allow.filter((v) => typeof v === 'string').map((v) => v.trim()) : [];
    const ids = [];
    for (const v of values) {
      if (!v || v === '*') continue;
      const id = normalizeAgentId(v);
      if (!ids.includes(id)) ids.push(id);
    }
    return { any: values.includes('*'), ids };
  }
}
