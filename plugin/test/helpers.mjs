// Shared by the plugin's tests: the hostile test component transpiled once per process,
// a gateway with a real spawn tree in memory, and log recorders. A missing prerequisite
// fails the test with a message saying what is missing; nothing is skipped.

import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

import { buildComponent, defaultWasm, REPO_DIR } from '../scripts/build-component.mjs';
import { canonicalKey, keyRulesOf, normalizeAgentId } from '../lib/guard.mjs';
import { DirJobStore } from '../lib/jobs.mjs';
import { defaultLimits } from '../lib/limits.mjs';
import { Runtime } from '../lib/sandbox.mjs';

/** A built test-only component of `tests/hostile-guest` (`fs`: the variant importing wasi:filesystem). */
export function hostileWasm(fs = false) {
  const variable = fs ? 'HOSTILE_GUEST_FS_WASM' : 'HOSTILE_GUEST_WASM';
  const file = fs ? 'hostile_guest_fs.wasm' : 'hostile_guest.wasm';
  if (process.env[variable]) {
    if (!existsSync(process.env[variable])) throw new Error(`${variable}=${process.env[variable]} does not exist`);
    return process.env[variable];
  }
  // The project's tests run in release; a debug build's is taken too.
  const found = ['release', 'debug']
    .map((profile) => join(REPO_DIR, 'target', profile, 'build'))
    .flatMap((build) => (existsSync(build) ? readdirSync(build) : []).filter((d) => d.startsWith('session-tools-tests-')).map((d) => join(build, d, 'out', file)))
    .filter((p) => existsSync(p))
    .sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs);
  if (found.length === 0) {
    throw new Error(
      `the hostile test component is not built: run \`cargo test --release -p session-tools-tests --no-run\` in ${REPO_DIR} (or set ${variable})`,
    );
  }
  return found[0];
}

/**
 * The hostile component behind the N15 guard, composed as the host composes it
 * (`compose_guarded`, written by the Rust plugin tests' set-up: tests/src/plugin.rs).
 */
export function hostileGuardedWasm() {
  const file = process.env.HOSTILE_GUEST_GUARDED_WASM;
  if (!file) {
    throw new Error(
      'HOSTILE_GUEST_GUARDED_WASM is not set: the hostile component behind the guard is composed by the host\'s compose_guarded; run the plugin tests through `cargo test --release -p session-tools-tests --test integration -- plugin::`, which writes it',
    );
  }
  if (!existsSync(file)) throw new Error(`HOSTILE_GUEST_GUARDED_WASM=${file} does not exist`);
  return file;
}

let hostile = null;

/** The hostile component (plain and behind the guard, with the guard and the wire), transpiled once per process into a temporary directory. */
export async function hostileRuntime() {
  if (!hostile) {
    hostile = (async () => {
      const dir = mkdtempSync(join(tmpdir(), 'session-tools-hostile-'));
      const { guard, wire } = defaultWasm();
      await buildComponent({ tools: hostileWasm(), guarded: hostileGuardedWasm(), guard, wire }, dir, { describe: false });
      return new Runtime(dir);
    })();
  }
  return hostile;
}

export const COMPONENT_DIR = resolve(REPO_DIR, 'plugin/component');

let jobsRoot = null;

/** A job store of its own, as the plugin keeps jobs: a fresh directory, removed when the test process exits. */
export function tempJobStore() {
  if (!jobsRoot) {
    jobsRoot = mkdtempSync(join(tmpdir(), 'session-tools-jobs-'));
    process.once('exit', () => rmSync(jobsRoot, { recursive: true, force: true }));
  }
  return new DirJobStore(mkdtempSync(join(jobsRoot, 'store-')));
}

/** Limits for the hostile tests (as tests/hostile.rs: 300 ms CPU, 32 MiB, 1 s wall, 100 gateway calls). */
export function testLimits(overrides = {}) {
  return { ...defaultLimits(), cpuMs: 300, memoryBytes: 32 * 2 ** 20, wallMs: 1000, maxGatewayCalls: 100, maxResultBytes: 4 * 2 ** 20, ...overrides };
}

/** Collects log lines (`level` dropped) for assertions. */
export function recorder() {
  const lines = [];
  const log = (_level, message) => lines.push(message);
  return { lines, log };
}

/** An error as the gateway answers it: its message, and the frame the gateway wire reads. */
export function gatewayError(code, message) {
  return Object.assign(new Error(message), { frame: { code, message } });
}

/** The agent of a key `agent:<id>:…` (as the gateway's `sessions.list {agentId}` filter reads it), else undefined. */
function agentOf(key) {
  const parts = key.split(':');
  return parts[0] === 'agent' && parts.length >= 3 ? normalizeAgentId(parts[1]) : undefined;
}

/**
 * A gateway with sessions and runs in memory and a real spawn tree: the gateway JSON
 * methods (`call`, `histories`), answering as OpenClaw's (keys canonicalised by the guard
 * component's key rules, errors with their frame), and whose each run is (`runSession`, as
 * the bridge keeps it). The N15 guard asks it of the spawn tree through the gateway wire,
 * as it asks a real gateway. Sessions: `{key, spawnedBy?, sessionId?, label?,
 * deliveryContext?, lastTo?, lastChannel?}` in canonical spelling.
 *
 * As OpenClaw's gateway, `agent` and `send` drop a repeated idempotency key (`agent`
 * answers the run it started for it, registered before the message is appended; `send`
 * delivers nothing again). `reply(sessionKey, message)`, when given, is what each run
 * answers: its message and the reply are appended to the session's transcript.
 */
export class TreeGateway {
  constructor(sessions = [], rules = keyRulesOf('{}'), { reply } = {}) {
    this.rules = rules;
    this.sessions = new Map(sessions.map((s) => [s.key, { ...s }]));
    this.calls = [];
    this.runs = new Map();
    this.outbox = [];
    this.waits = [];
    this.reply = reply;
    this.sent = new Set();
  }

  canonicalKey(key) {
    return canonicalKey(this.rules, key);
  }

  runSession(runId) {
    return this.runs.get(runId)?.sessionKey;
  }

  async histories(list) {
    return Promise.all(
      list.map(async (p) => {
        try {
          return { ok: await this.call('chat.history', p) };
        } catch (e) {
          return { error: e.message, frame: e.frame };
        }
      }),
    );
  }

  async call(method, params) {
    this.calls.push({ method, params });
    const find = (key) => this.sessions.get(this.canonicalKey(key));
    switch (method) {
      case 'sessions.list': {
        let rows = [...this.sessions.values()];
        if (params.spawnedBy !== undefined) rows = rows.filter((r) => r.spawnedBy === this.canonicalKey(params.spawnedBy));
        if (params.label !== undefined) rows = rows.filter((r) => r.label === params.label);
        if (params.agentId !== undefined) rows = rows.filter((r) => agentOf(r.key) === normalizeAgentId(params.agentId));
        if (params.search !== undefined) rows = rows.filter((r) => r.key.toLowerCase().includes(params.search.toLowerCase()));
        return { path: '/state/agents/main/sessions/sessions.json', sessions: rows.slice(0, params.limit ?? rows.length) };
      }
      case 'sessions.resolve': {
        let row;
        if (params.key !== undefined) row = find(params.key);
        else if (params.sessionId !== undefined) row = [...this.sessions.values()].find((r) => r.sessionId === params.sessionId.trim());
        else if (params.label !== undefined) row = [...this.sessions.values()].find((r) => r.label === params.label);
        if (!row) throw gatewayError('INVALID_REQUEST', `No session found: ${params.key ?? params.sessionId ?? params.label}`);
        return { ok: true, key: row.key };
      }
      case 'chat.history': {
        const row = find(params.sessionKey);
        return { sessionId: row?.sessionId, messages: row?.messages ?? [] };
      }
      case 'agent': {
        // As OpenClaw's: the run id is the idempotency key, and a key it knows answers that
        // run, whichever session asks.
        if (typeof params.idempotencyKey === 'string' && this.runs.has(params.idempotencyKey)) {
          return { runId: params.idempotencyKey, status: 'accepted' };
        }
        const key = this.canonicalKey(params.sessionKey ?? 'main');
        if (!this.sessions.has(key)) this.sessions.set(key, { key, ...(params.spawnedBy ? { spawnedBy: this.canonicalKey(params.spawnedBy) } : {}) });
        else if (params.spawnedBy && !this.sessions.get(key).spawnedBy) this.sessions.get(key).spawnedBy = this.canonicalKey(params.spawnedBy);
        const runId = typeof params.idempotencyKey === 'string' ? params.idempotencyKey : `run-${this.runs.size + 1}`;
        this.runs.set(runId, { sessionKey: key, message: params.message });
        if (this.reply) {
          const row = this.sessions.get(key);
          row.messages = [
            ...(row.messages ?? []),
            { role: 'user', content: [{ type: 'text', text: params.message }] },
            { role: 'assistant', content: [{ type: 'text', text: this.reply(key, params.message) }] },
          ];
        }
        return { runId, status: 'accepted' };
      }
      case 'agent.wait':
        this.waits.push(params.timeoutMs);
        if (!this.runs.has(params.runId)) return { runId: params.runId, status: 'timeout' };
        return { runId: params.runId, status: 'ok', startedAt: 1, endedAt: 2 };
      case 'send':
        if (params.idempotencyKey && this.sent.has(params.idempotencyKey)) return {};
        if (params.idempotencyKey) this.sent.add(params.idempotencyKey);
        this.outbox.push(params);
        return {};
      case 'sessions.patch': {
        const key = this.canonicalKey(params.key);
        const row = this.sessions.get(key) ?? { key };
        if (params.label !== undefined) row.label = params.label;
        if (params.model !== undefined) row.model = params.model;
        this.sessions.set(key, row);
        return { ok: true, key };
      }
      case 'sessions.delete':
        this.sessions.delete(this.canonicalKey(params.key));
        return { ok: true };
      default:
        throw gatewayError('INVALID_REQUEST', `unknown method ${method}`);
    }
  }
}
