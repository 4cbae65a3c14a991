// Session keys as OpenClaw spells them, ported from the guest (`guest/src/keys.rs`,
// `guest/src/channels.rs`) and the host (`host/src/gateway/embedded/canon.rs`). The host's
// own checks (who is restricted, the N15 guard) must not depend on the guest they guard,
// so the plugin has its own copy of these rules.

export const DEFAULT_AGENT_ID = 'main';
export const DEFAULT_MAIN_KEY = 'main';

/** `parseAgentSessionKey`: `{agentId, rest}` of `agent:<id>:<rest>`, else null. */
export function parseAgentKey(key) {
  if (typeof key !== 'string') return null;
  const parts = key.trim().split(':').filter((p) => p.length > 0);
  if (parts.length < 3 || parts[0] !== 'agent') return null;
  const agentId = parts[1].trim();
  if (!agentId) return null;
  return { agentId, rest: parts.slice(2).join(':') };
}

function isSimpleAgentId(value) {
  return /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/.test(value);
}

/** `normalizeAgentId`: lower-cased `[a-z0-9_-]{1,64}`, `main` when nothing is left. */
export function normalizeAgentId(value) {
  const v = (value ?? '').trim();
  if (!v) return DEFAULT_AGENT_ID;
  if (isSimpleAgentId(v)) return v.toLowerCase();
  let out = '';
  let pendingDash = false;
  for (const c of v.toLowerCase()) {
    if (/^[a-z0-9_-]$/.test(c)) {
      if (pendingDash) {
        out += '-';
        pendingDash = false;
      }
      out += c;
    } else {
      pendingDash = true;
    }
  }
  let cut = [...out.replace(/^-+|-+$/g, '')].slice(0, 64).join('');
  if (!isSimpleAgentId(cut)) cut = cut.replace(/-+$/, '');
  return cut || DEFAULT_AGENT_ID;
}

/** `normalizeMainKey`: trimmed and lower-cased, `main` when empty. */
export function normalizeMainKey(value) {
  const v = typeof value === 'string' ? value.trim() : '';
  return v ? v.toLowerCase() : DEFAULT_MAIN_KEY;
}

const startsCi = (value, prefix) => value.slice(0, prefix.length).toLowerCase() === prefix;

/** `isSubagentSessionKey`: the key, or its rest, starts with `subagent:` (any case). */
export function isSubagentKey(key) {
  const k = (key ?? '').trim();
  if (!k) return false;
  if (startsCi(k, 'subagent:')) return true;
  const parsed = parseAgentKey(k);
  return !!parsed && startsCi(parsed.rest, 'subagent:');
}

const CHANNELS = {
  telegram: 'telegram',
  whatsapp: 'whatsapp',
  discord: 'discord',
  googlechat: 'googlechat',
  'google-chat': 'googlechat',
  gchat: 'googlechat',
  slack: 'slack',
  signal: 'signal',
  imessage: 'imessage',
  imsg: 'imessage',
};

/** `normalizeChatChannelId`. */
export function normalizeChannelId(raw) {
  return CHANNELS[(raw ?? '').trim().toLowerCase()] ?? null;
}

function digitsSuffix(rest, marker) {
  const at = rest.lastIndexOf(marker);
  if (at < 0) return null;
  const digits = rest.slice(at + marker.length);
  return /^[0-9]+$/.test(digits) ? [rest.slice(0, at), digits] : null;
}

/** `resolveAnnounceTargetFromKey`: `{channel, to, threadId?}` a group/channel key names. */
export function targetFromKey(key) {
  let parts = (key ?? '').split(':').filter((p) => p.length > 0);
  if (parts.length >= 3 && parts[0] === 'agent') parts = parts.slice(2);
  if (parts.length < 3 || !(parts[1] === 'group' || parts[1] === 'channel')) return null;
  const [channelRaw, kind] = parts;
  const rest = parts.slice(2).join(':');
  const split = digitsSuffix(rest, ':topic:') ?? digitsSuffix(rest, ':thread:');
  const id = split ? split[0] : rest.trim();
  if (!id) return null;
  const normalized = normalizeChannelId(channelRaw);
  const channel = normalized ?? channelRaw.toLowerCase();
  let to;
  if (normalized === null) to = id;
  else if (normalized === 'discord' || normalized === 'slack') to = `channel:${id}`;
  else if (kind === 'channel') to = `channel:${id}`;
  else to = `group:${id}`;
  return { channel, to, threadId: split ? split[1] : undefined };
}

/** How the gateway canonicalises keys (`resolveSessionStoreKey`, reference §1.4). */
export class KeyRules {
  constructor({ mainKey = DEFAULT_MAIN_KEY, scopeGlobal = false, defaultAgent = DEFAULT_AGENT_ID } = {}) {
    this.mainKey = mainKey;
    this.scopeGlobal = scopeGlobal;
    this.defaultAgent = defaultAgent;
  }

  mainSession() {
    return this.scopeGlobal ? 'global' : `agent:${this.defaultAgent}:${this.mainKey}`;
  }

  /** Trimmed; reserved keys kept; main aliases canonicalised; bare keys the default agent's. */
  canonical(raw) {
    const key = (raw ?? '').trim();
    if (!key || key === 'global' || key === 'unknown') return key;
    const parsed = parseAgentKey(key);
    if (parsed) {
      const agent = normalizeAgentId(parsed.agentId);
      if (key === `agent:${agent}:${this.mainKey}` || key === `agent:${agent}:main`) {
        return this.scopeGlobal ? 'global' : `agent:${agent}:${this.mainKey}`;
      }
      return key;
    }
    if (key === 'main' || key === this.mainKey) return this.mainSession();
    return `agent:${this.defaultAgent}:${key}`;
  }
}
