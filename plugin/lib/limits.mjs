// Resource limits of a guest instance, configurable per agent (`host/src/limits.rs`), with
// the same defaults and the same override keys.

export const MAX_TIMER_MS = 30 * 86_400_000;

export const DEFAULT_LIMITS = Object.freeze({
  memoryBytes: 128 * 2 ** 20,
  cpuMs: 5_000,
  maxArgumentBytes: 2 ** 20,
  maxResultBytes: 32 * 2 ** 20,
  maxGatewayAnswerBytes: 64 * 2 ** 20,
  maxLogBytes: 16 * 2 ** 10,
  maxGatewayCalls: 25_000,
  wallMs: 15 * 60_000,
  gatewayMs: 10 * 60_000,
  maxJobsPerCall: 8,
  maxStepsPerJob: 2_000,
  maxPendingJobs: 1_000,
  maxWaitMs: 10 * 60_000,
});

/** Override key → [field, multiplier]. */
const KEYS = {
  memoryMiB: ['memoryBytes', 2 ** 20],
  cpuMs: ['cpuMs', 1],
  wallSeconds: ['wallMs', 1000],
  maxArgumentBytes: ['maxArgumentBytes', 1],
  maxResultBytes: ['maxResultBytes', 1],
  maxGatewayAnswerBytes: ['maxGatewayAnswerBytes', 1],
  maxGatewayCalls: ['maxGatewayCalls', 1],
  maxLogBytes: ['maxLogBytes', 1],
  gatewaySeconds: ['gatewayMs', 1000],
  maxJobsPerCall: ['maxJobsPerCall', 1],
  maxStepsPerJob: ['maxStepsPerJob', 1],
  maxPendingJobs: ['maxPendingJobs', 1],
  maxWaitSeconds: ['maxWaitMs', 1000],
};

export const LIMIT_KEYS = Object.keys(KEYS);

/** `base` with the overrides of an object applied; throws naming `origin` on a bad key. */
export function withOverrides(base, overrides, origin) {
  if (overrides === undefined || overrides === null) return { ...base };
  if (typeof overrides !== 'object' || Array.isArray(overrides)) throw new Error(`${origin} must be an object`);
  const limits = { ...base };
  for (const [key, value] of Object.entries(overrides)) {
    const spec = KEYS[key];
    if (!spec) throw new Error(`${origin}: unknown limit ${JSON.stringify(key)} (known: ${LIMIT_KEYS.join(', ')})`);
    if (!Number.isSafeInteger(value) || value <= 0) {
      throw new Error(`${origin}.${key} must be a positive whole number (got ${JSON.stringify(value)})`);
    }
    limits[spec[0]] = value * spec[1];
  }
  if (limits.memoryBytes > 4 * 2 ** 30) throw new Error(`${origin}.memoryMiB is too large (a 32-bit guest has at most 4096 MiB)`);
  return limits;
}

/** Limits for every agent: `{default: {...}, agents: {"<id>": {...}}}` over the defaults. */
export class AgentLimits {
  constructor(spec = {}, normalizeAgentId = (id) => id) {
    this.default = withOverrides(DEFAULT_LIMITS, spec.default, 'limits.default');
    this.agents = new Map();
    for (const [id, overrides] of Object.entries(spec.agents ?? {})) {
      const agent = normalizeAgentId(id);
      this.agents.set(agent, withOverrides(this.default, overrides, `limits.agents.${agent}`));
    }
  }

  forAgent(agent) {
    return this.agents.get(agent) ?? this.default;
  }
}
