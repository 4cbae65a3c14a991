// The deployment config as the host reads it (`host/src/config.rs`): only what the host
// decides itself (key rules, who is restricted under N15, which agents a restricted caller
// may spawn in). The rest is the component's to read: every instance is configured with the
// whole config, secrets redacted.

import { DEFAULT_AGENT_ID, KeyRules, normalizeAgentId, normalizeMainKey } from './keys.mjs';

/** A config as a guest may see it: strings under keys naming a secret are redacted. */
export function withoutSecrets(value) {
  const namesASecret = (key) => {
    const k = [...key].filter((c) => /[\p{L}\p{N}]/u.test(c)).join('').toLowerCase();
    return ['token', 'password', 'secret', 'apikey', 'privatekey'].some((s) => k.endsWith(s));
  };
  if (Array.isArray(value)) return value.map(withoutSecrets);
  if (value && typeof value === 'object') {
    const out = {};
    for (const [k, v] of Object.entries(value)) {
      out[k] = namesASecret(k) && typeof v === 'string' ? '[redacted]' : withoutSecrets(v);
    }
    return out;
  }
  return value;
}

export class DeploymentConfig {
  constructor(raw) {
    this.raw = raw && typeof raw === 'object' && !Array.isArray(raw) ? raw : {};
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
    this.json = JSON.stringify(withoutSecrets(this.raw));
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
