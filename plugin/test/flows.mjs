// What the exactly-once tests (exactly-once.test.mjs) share with the process one of them
// kills (killed-call.mjs): a gateway whose runs answer, with OpenClaw's de-duplication of
// idempotency keys; the deployment (agent-to-agent on, one ping-pong turn); and a service
// keeping its jobs under a state directory, as the plugin's job service does.

import { readdirSync } from 'node:fs';
import { join } from 'node:path';

import { DeploymentConfig } from '../lib/config.mjs';
import { DirJobStore } from '../lib/jobs.mjs';
import { keyRulesOf } from '../lib/guard.mjs';
import { AgentLimits } from '../lib/limits.mjs';
import { Service } from '../lib/service.mjs';
import { TreeGateway } from './helpers.mjs';

export const REQUESTER = 'agent:main:main';
export const TARGET = 'agent:ops:main';
export const ANNOUNCE = 'Agent-to-agent announce step.';
/** A send that does not wait: the agent-to-agent flow runs as a job. */
export const SEND = JSON.stringify({ sessionKey: TARGET, message: 'ping', timeoutSeconds: 0 });

const CONFIG = { tools: { agentToAgent: { enabled: true, allow: ['*'] } }, session: { agentToAgent: { maxPingPongTurns: 1 } } };

/**
 * The gateway of the flows: each run answers (`re: <message>`, the announce step its
 * announce), and `before(method, params)`, when set, runs before each call is answered (a
 * test holds a call there, or a process dies there).
 */
export class FlowGateway extends TreeGateway {
  constructor() {
    super(
      [
        { key: REQUESTER, sessionId: '0d6c1f7e-0000-4000-8000-000000000001' },
        { key: TARGET, sessionId: '1a2b3c4d-0000-4000-8000-000000000003', deliveryContext: { channel: 'discord', to: 'channel:42' } },
      ],
      keyRulesOf('{}'),
      { reply: (_session, message) => (message === ANNOUNCE ? 'ops answered the ping' : `re: ${message}`) },
    );
    this.before = null;
  }

  async call(method, params) {
    await this.before?.(method, params);
    return super.call(method, params);
  }

  /** The messages a session's transcript holds, by role and text. */
  transcript(key) {
    return (this.sessions.get(key).messages ?? []).map((m) => `${m.role}: ${m.content[0].text}`);
  }
}

export const jobsDirOf = (stateDir) => join(stateDir, 'session-tools', 'plugin-jobs');

/** The job files of a directory. */
export const jobFiles = (dir) => {
  try {
    return readdirSync(dir).filter((n) => n.endsWith('.json'));
  } catch {
    return [];
  }
};

/** A service over `gateway` keeping its jobs under `stateDir`, as the plugin makes it. */
export function flowService(runtime, stateDir, gateway, log = () => {}) {
  return new Service({
    runtime,
    gateway,
    config: new DeploymentConfig(CONFIG),
    stateDir,
    limits: new AgentLimits(),
    log,
    jobStore: new DirJobStore(jobsDirOf(stateDir)),
  });
}
