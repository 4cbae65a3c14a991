// The plugin as the gateway loads it: manifests, config, register() with a stand-in for the
// gateway's plugin API (tools for every agent session with the session's context, and the
// job service), over a gateway with a real spawn tree; and jobs kept under the state
// directory and resumed by a new process's service after a restart.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import plugin, { register } from '../index.mjs';
import { callerOf, DEFAULT_TOOL_NAMES, pluginSettings, PLUGIN_DIR } from '../lib/plugin.mjs';
import { DeploymentConfig } from '../lib/config.mjs';
import { canonicalKey } from '../lib/guard.mjs';
import { deniedHere, isHttpInvoke } from '../lib/http-surface.mjs';
import { documentsShape } from '../lib/wire-codecs.mjs';
import { OpenClawGateway } from '../lib/openclaw-gateway.mjs';
import { DirJobStore, JobRunner } from '../lib/jobs.mjs';
import { AgentLimits } from '../lib/limits.mjs';
import { Runtime } from '../lib/sandbox.mjs';
import { Service } from '../lib/service.mjs';
import { FlowGateway, REQUESTER, SEND } from './flows.mjs';
import { COMPONENT_DIR, recorder, tempJobStore, TreeGateway } from './helpers.mjs';

const OWN = 'agent:main:main';
const OTHER = 'agent:ops:main';
const CHILD = 'agent:main:subagent:3f2a9c1e-5b7d-4e8f-9a0b-1c2d3e4f5a6b';

const readJson = (f) => JSON.parse(readFileSync(join(PLUGIN_DIR, f), 'utf8'));
const jobFiles = (dir) => readdirSync(dir).filter((n) => n.endsWith('.json'));

/** Resolves once `done()` holds (looked at every 20 ms, for 20 s at most). */
async function until(done, what) {
  const deadline = Date.now() + 20_000;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`${what} did not happen within 20 s`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

test('both manifests and the package name the plugin, its entry and its config schema', () => {
  const manifest = readJson('openclaw.plugin.json');
  assert.deepEqual(readJson('clawdbot.plugin.json'), manifest);
  assert.equal(manifest.id, 'session-tools');
  assert.equal(manifest.id, plugin.id);
  assert.equal(manifest.configSchema.type, 'object');
  for (const key of ['toolNames', 'visibility', 'limits']) assert.ok(manifest.configSchema.properties[key], key);
  const pkg = readJson('package.json');
  assert.deepEqual(pkg.openclaw.extensions, ['./index.mjs']);
  assert.deepEqual(pkg.clawdbot.extensions, ['./index.mjs']);
  assert.ok(existsSync(join(PLUGIN_DIR, 'package-lock.json')));
  assert.equal(typeof plugin.register, 'function');
  // OpenClaw 2026.9 registers only the agent tools a manifest names (exactly).
  assert.deepEqual(manifest.contracts.tools, Object.values(DEFAULT_TOOL_NAMES));
  // Its tool profiles take each tool where they take the core one (`coding` and `messaging`
  // the four session tools; `agents_list` only `full`); the reads are safe to repeat, the
  // writes change state.
  const meta = manifest.toolMetadata;
  assert.deepEqual(Object.keys(meta), manifest.contracts.tools);
  for (const tool of ['sessions_list', 'sessions_history', 'sessions_send', 'sessions_spawn']) {
    assert.deepEqual(meta[DEFAULT_TOOL_NAMES[tool]].profiles, ['coding', 'messaging'], tool);
  }
  assert.equal(meta.st_agents_list.profiles, undefined);
  for (const tool of ['st_sessions_list', 'st_sessions_history', 'st_agents_list']) assert.equal(meta[tool].replaySafe, true, tool);
  for (const tool of ['st_sessions_send', 'st_sessions_spawn']) assert.deepEqual([meta[tool].sideEffecting, meta[tool].replaySafe], [true, undefined], tool);
});

test('2026.9: the tool context with its reply target, a service start that never throws, one config shape', async () => {
  assert.deepEqual(
    callerOf({ sessionKey: OWN, agentId: 'main', sandboxed: true, senderIsOwner: false, deliveryContext: { channel: 'discord', to: 'channel:1', accountId: 'default', threadId: 42 } }),
    { agentSessionKey: OWN, agentChannel: 'discord', agentAccountId: 'default', agentTo: 'channel:1', agentThreadId: '42', sandboxed: true },
  );
  assert.equal(callerOf({ agentId: 'ops' }).requesterAgentIdOverride, 'ops');
  assert.equal(callerOf({ sessionKey: OWN, messageChannel: 'telegram' }).agentChannel, 'telegram');

  const stateDir = mkdtempSync(join(tmpdir(), 'session-tools-state-'));
  const api = fakeApi({}, stateDir);
  let attempts = 0;
  register(api, {
    makeGateway: async () => {
      attempts += 1;
      throw new Error('cannot reach the gateway');
    },
  });
  await api.services[0].start({ stateDir });
  assert.equal(attempts, 1);
  assert.ok(api.logs.some((m) => /cannot start yet \(cannot reach the gateway\); trying again/.test(m)), api.logs.join('\n'));
  await api.services[0].stop();

  const shaped = documentsShape({
    agents: { defaults: { systemAgent: { agentId: 'ops' } }, entries: { main: {}, ops: { subagents: { allowAgents: ['main'] } } } },
    session: { agentToAgent: { maxPingPongTurns: 2 } },
  });
  assert.deepEqual(shaped.agents.list, [{ id: 'main' }, { id: 'ops', subagents: { allowAgents: ['main'] }, default: true }]);
  assert.deepEqual(shaped.session.agentToAgent, {});
  const config = new DeploymentConfig({ agents: { defaults: { systemAgent: { agentId: 'ops' } }, entries: { main: {}, ops: {} } } });
  assert.equal(config.rules.defaultAgent, 'ops', 'the key rules read the system agent as the default');
  assert.equal(canonicalKey(config.rules, 'main'), 'agent:ops:main');
  const documents = { agents: { list: [{ id: 'main' }] }, session: { agentToAgent: { maxPingPongTurns: 2 } } };
  assert.deepEqual(documentsShape(documents), documents, 'the documents\' shape is left as it is');
});

/** A protocol-4 gateway as the bridge's `callGateway` sees it, keeping what it was asked. */
function protocol4Gateway() {
  const calls = [];
  const callGateway = async ({ method, params }) => {
    calls.push({ method, params });
    switch (method) {
      case 'sessions.list':
        if (params.spawnedBy !== undefined && params.spawnedBy !== OWN) return { sessions: [], hasMore: false };
        // Two pages: the second only for whoever follows `nextOffset` (E6).
        return params.offset === undefined
          ? { sessions: [{ key: OWN, sessionId: 's0', updatedAt: 2 }], hasMore: true, nextOffset: 1000 }
          : { sessions: [{ key: CHILD, parentSessionKey: OWN, sessionId: 's1', updatedAt: 1 }], hasMore: false };
      case 'sessions.create':
        return { ok: true, key: params.key };
      case 'agent':
        return { runId: params.idempotencyKey, sessionKey: params.sessionKey, status: 'accepted' };
      case 'agent.wait':
        return { runId: params.runId, status: 'timeout' };
      case 'chat.history':
        return { sessionId: 's0', messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }], __openclaw: { id: 'm1', seq: 1 } }] };
      default:
        throw Object.assign(new Error(`unexpected ${method}`), { code: 'INVALID_REQUEST' });
    }
  };
  return { calls, bridge: new OpenClawGateway({ callGateway, rules: new DeploymentConfig({}).rules, protocol: () => 4 }) };
}

test("2026.9's HTTP surface: spawn and send kept off POST /tools/invoke unless gateway.tools.allow names them", () => {
  const names = (config, ctx, pluginConfig = {}) => {
    const api = fakeApi(config, mkdtempSync(join(tmpdir(), 'session-tools-state-')), pluginConfig);
    register(api, { makeGateway: async () => gatewayWithTree() });
    return api.tools[0].tool(ctx).map((t) => t.name);
  };
  const all = Object.values(DEFAULT_TOOL_NAMES);
  const reads = ['st_sessions_list', 'st_sessions_history', 'st_agents_list'];
  const http = { sessionKey: OWN, agentId: 'main', conversationReadOrigin: 'direct-operator' };
  assert.deepEqual(names({}, http), reads);
  // An agent run (2026.9 says "delegated") and 2026.1.x (no origin) get all five.
  assert.deepEqual(names({}, { ...http, conversationReadOrigin: 'delegated' }), all);
  assert.deepEqual(names({}, { sessionKey: OWN }), all);
  // Allowed by the core name or the plugin's, as 2026.9 matches policy names (case, spaces).
  assert.deepEqual(names({ gateway: { tools: { allow: [' Sessions_Send '] } } }, http), [...reads.slice(0, 2), 'st_sessions_send', 'st_agents_list']);
  assert.deepEqual(names({}, { ...http, config: { gateway: { tools: { allow: ['my_spawn'] } } } }, { toolNames: { sessions_spawn: 'my_spawn' } }), [
    ...reads.slice(0, 2),
    'my_spawn',
    'st_agents_list',
  ]);
  // The request's config wins over the one the plugin was registered with.
  assert.deepEqual(names({ gateway: { tools: { allow: ['sessions_spawn', 'sessions_send'] } } }, { ...http, runtimeConfig: {} }), reads);
  assert.equal(isHttpInvoke({ conversationReadOrigin: 'direct-operator' }), true);
  assert.deepEqual(deniedHere({}, {}, DEFAULT_TOOL_NAMES), new Set());
});

test('2026.9: the bridge carries what the gateway wire builds for protocol 4 (E4-E6)', async () => {
  const { calls, bridge } = protocol4Gateway();
  assert.equal(bridge.protocol, 4);
  const svc = new Service({ runtime: new Runtime(COMPONENT_DIR), gateway: bridge, config: new DeploymentConfig({}), stateDir: '/state', limits: new AgentLimits(), log: () => {}, jobStore: tempJobStore() });
  try {
    // The tool's list has a limit of its own (200 by default): one page, that limit explicit.
    const listed = JSON.parse(await svc.call({ agentSessionKey: OWN }, 'sessions_list', '{}'));
    assert.deepEqual(listed.sessions.map((s) => s.key), ['main']);
    assert.deepEqual(calls.filter((c) => c.method === 'sessions.list').map((c) => c.params), [{ limit: 200, includeGlobal: true, includeUnknown: true }]);

    const history = JSON.parse(await svc.call({ agentSessionKey: OWN }, 'sessions_history', JSON.stringify({ sessionKey: 'main' })));
    assert.deepEqual(history.messages, [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }], 'E4: protocol 4\'s own field removed');
    assert.equal(calls.find((c) => c.method === 'chat.history').params.maxChars, 500_000);

    const spawned = JSON.parse(await svc.call({ agentSessionKey: OWN }, 'sessions_spawn', JSON.stringify({ task: 't', label: 'l' })));
    assert.equal(spawned.status, 'accepted', JSON.stringify(spawned));
    const create = calls.find((c) => c.method === 'sessions.create');
    assert.deepEqual(create.params, { key: spawned.childSessionKey, agentId: 'main', parentSessionKey: OWN, label: 'l' }, 'E5');
    const agent = calls.find((c) => c.method === 'agent');
    assert.equal(calls.indexOf(create) < calls.indexOf(agent), true, 'the child is made before its run');
    assert.equal(agent.params.spawnedBy, undefined, 'protocol 4 refuses spawnedBy on agent');

    // A sandboxed caller's guard asks the wire for its spawn tree (in the worker): every
    // page, with the wire's params: an explicit limit, then the next page (E6).
    calls.length = 0;
    await svc.call({ agentSessionKey: OWN, sandboxed: true }, 'sessions_list', '{}');
    const tree = calls.filter((c) => c.method === 'sessions.list' && c.params.limit === 1000).map((c) => c.params);
    assert.deepEqual(tree.slice(0, 2), [{ limit: 1000, spawnedBy: OWN }, { limit: 1000, offset: 1000, spawnedBy: OWN }], JSON.stringify(calls));
  } finally {
    await svc.stop();
  }
});

test('the plugin config: own tool names (never a core one), limits per agent', () => {
  const s = pluginSettings({ toolNames: { sessions_list: 'wasm_sessions_list' }, limits: { default: { cpuMs: 200 }, agents: { Ops: { memoryMiB: 256 } } } });
  assert.equal(s.toolNames.sessions_list, 'wasm_sessions_list');
  assert.equal(s.toolNames.agents_list, 'st_agents_list');
  assert.equal(s.limits.forAgent('main').cpuMs, 200);
  assert.equal(s.limits.forAgent('ops').memoryBytes, 256 * 2 ** 20);
  assert.equal(s.limits.forAgent('ops').cpuMs, 200, 'agents inherit the default');
  assert.throws(() => pluginSettings({ toolNames: { sessions_list: 'sessions_list' } }), /name of a core tool/);
  assert.throws(() => pluginSettings({ toolNames: { sessions_list: 'x', agents_list: 'x' } }), /given to two tools/);
  assert.throws(() => pluginSettings({ limits: { default: { cpu: 1 } } }), /unknown limit "cpu"/);
});

function fakeApi(config, stateDir, pluginConfig = {}) {
  const api = { tools: [], services: [], logs: [] };
  Object.assign(api, {
    id: 'session-tools',
    config,
    pluginConfig,
    runtime: { state: { resolveStateDir: () => stateDir } },
    logger: { info: (m) => api.logs.push(m), warn: (m) => api.logs.push(m), error: (m) => api.logs.push(m), debug: () => {} },
    registerTool: (tool, opts) => api.tools.push({ tool, opts }),
    registerService: (service) => api.services.push(service),
  });
  return api;
}

function gatewayWithTree() {
  return new TreeGateway([
    { key: OWN, sessionId: '0d6c1f7e-0000-4000-8000-000000000001', updatedAt: 1767225600000 },
    { key: CHILD, spawnedBy: OWN, sessionId: 'e7f8a9b0-c1d2-4e3f-8a4b-5c6d7e8f9a0b', label: 'pricing-research', updatedAt: 1767225500000 },
    { key: OTHER, sessionId: '1a2b3c4d-0000-4000-8000-000000000003', updatedAt: 1767225400000 },
  ]);
}

test('register() gives every agent session the five tools, run in the component with its context', async () => {
  const stateDir = mkdtempSync(join(tmpdir(), 'session-tools-state-'));
  const gateway = gatewayWithTree();
  const api = fakeApi({ tools: { agentToAgent: { enabled: true, allow: ['*'] } } }, stateDir);
  register(api, { makeGateway: async () => gateway });
  assert.equal(api.tools.length, 1);
  const { tool: factory, opts } = api.tools[0];
  assert.deepEqual(opts.names, Object.values(DEFAULT_TOOL_NAMES));
  assert.equal(api.services.length, 1);
  await api.services[0].start({ stateDir });
  try {
    const tools = factory({ sessionKey: OWN, agentId: 'main', messageChannel: 'discord', sandboxed: false });
    assert.deepEqual(tools.map((t) => t.name), Object.values(DEFAULT_TOOL_NAMES));
    for (const t of tools) {
      assert.equal(typeof t.description, 'string');
      assert.equal(t.parameters.type, 'object');
      assert.equal(typeof t.execute, 'function');
    }
    const list = tools.find((t) => t.name === 'st_sessions_list');
    const all = await list.execute('call-1', {});
    assert.deepEqual(all.details.sessions.map((s) => s.key), ['main', CHILD, OTHER]);
    assert.deepEqual(JSON.parse(all.content[0].text), all.details);
    // A sandboxed session of the same agent lists only the sessions it spawned (the
    // component's rule, reference §5), through the bridge's guard (N15 in the host).
    const sandboxed = factory({ sessionKey: OWN, agentId: 'main', sandboxed: true }).find((t) => t.name === 'st_sessions_list');
    assert.deepEqual((await sandboxed.execute('call-2', {})).details.sessions.map((s) => s.key), [CHILD]);
    // Bad arguments are the tool's error, as the core tool reports it.
    await assert.rejects(tools.find((t) => t.name === 'st_sessions_history').execute('call-3', {}), /sessionKey/);
  } finally {
    await api.services[0].stop();
  }
});

test('a sandboxed list with messages asks only for the histories it may see', async () => {
  const gateway = gatewayWithTree();
  const runtime = new Runtime(COMPONENT_DIR);
  const svc = new Service({ runtime, gateway, config: new DeploymentConfig({}), stateDir: '/state', limits: new AgentLimits(), log: () => {}, jobStore: tempJobStore() });
  try {
    const out = JSON.parse(await svc.call({ agentSessionKey: OWN, sandboxed: true }, 'sessions_list', JSON.stringify({ messageLimit: 2 })));
    assert.deepEqual(out.sessions.map((s) => s.key), [CHILD]);
    const asked = gateway.calls.filter((c) => c.method === 'chat.history').map((c) => c.params.sessionKey);
    assert.deepEqual(asked, [CHILD]);
  } finally {
    await svc.stop();
  }
});

test('background jobs are kept under the state directory and resumed after a restart', async () => {
  const stateDir = mkdtempSync(join(tmpdir(), 'session-tools-state-'));
  const jobsDir = join(stateDir, 'session-tools', 'plugin-jobs');
  const gateway = gatewayWithTree();
  const runtime = new Runtime(COMPONENT_DIR);
  const config = new DeploymentConfig({ tools: { agentToAgent: { enabled: true, allow: ['*'] } } });
  const make = (rec) =>
    new Service({ runtime, gateway, config, stateDir, limits: new AgentLimits(), log: rec.log, jobStore: new DirJobStore(jobsDir) });
  // The first gateway process: a send that does not wait starts the agent-to-agent flow.
  const first = make(recorder());
  const sent = JSON.parse(await first.call({ agentSessionKey: OWN }, 'sessions_send', JSON.stringify({ sessionKey: OTHER, message: 'ping', timeoutSeconds: 0 })));
  assert.equal(sent.status, 'accepted', JSON.stringify(sent));
  const pending = first.jobs.pending();
  assert.equal(pending.length, 1);
  assert.equal(pending[0].kind, 'a2a');
  assert.equal(pending[0].wake.type, 'runEnd');
  assert.equal(pending[0].wake.wait.runId, sent.runId);
  assert.deepEqual(jobFiles(jobsDir), [`${pending[0].key}.json`], 'one file a job');
  assert.deepEqual(readdirSync(join(jobsDir, 'calls')), [], 'the call wrote, and its intent is gone once its job was kept');
  await first.stop(); // the gateway stops before the run ends
  assert.ok(!gateway.calls.some((c) => c.method === 'agent.wait'));

  // The next process resumes it: waits for the run's end, then runs the flow to its end.
  const rec = recorder();
  const second = make(rec);
  second.startScheduler();
  try {
    const deadline = Date.now() + 10_000;
    while (jobFiles(jobsDir).length > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    assert.deepEqual(jobFiles(jobsDir), [], `the job ended: ${rec.lines.join('\n')}`);
    const wait = gateway.calls.find((c) => c.method === 'agent.wait');
    assert.equal(wait?.params.runId, sent.runId);
  } finally {
    await second.stop();
  }
});

test('a reload runs one job scheduler at a time: the old one stops, letting its waits go, before the new one starts', { timeout: 60_000 }, async () => {
  const stateDir = mkdtempSync(join(tmpdir(), 'session-tools-state-'));
  const jobsDir = join(stateDir, 'session-tools', 'plugin-jobs');
  // Every wait for a run is held until the test lets the run end.
  const gateway = new FlowGateway();
  let waits = 0;
  let runEnds;
  const ended = new Promise((r) => (runEnds = r));
  gateway.before = (method) => (method === 'agent.wait' ? ((waits += 1), ended) : undefined);
  // The schedulers that run, as the job runner starts and stops them.
  const original = JobRunner.prototype.startScheduler;
  let running = 0;
  let most = 0;
  const events = [];
  JobRunner.prototype.startScheduler = function () {
    const scheduler = original.call(this);
    running += 1;
    most = Math.max(most, running);
    events.push('start');
    const stop = scheduler.stop;
    let stopped = null;
    scheduler.stop = () =>
      (stopped ??= stop().then(() => {
        running -= 1;
        events.push('stop');
      }));
    return scheduler;
  };
  const config = { tools: { agentToAgent: { enabled: true, allow: ['*'] } }, session: { agentToAgent: { maxPingPongTurns: 1 } } };
  const first = fakeApi(config, stateDir);
  let second = null;
  try {
    register(first, { makeGateway: async () => gateway });
    await first.services[0].start({ stateDir });
    const send = first.tools[0].tool({ sessionKey: REQUESTER }).find((t) => t.name === 'st_sessions_send');
    assert.equal((await send.execute('call-1', JSON.parse(SEND))).details.status, 'accepted');
    await until(() => waits === 1, 'the scheduler waiting for the run');
    // The gateway loads the plugin again with another config: its next call makes a new service.
    second = fakeApi({ ...config, agents: { defaults: { timeoutSeconds: 600 } } }, stateDir);
    register(second, { makeGateway: async () => gateway });
    await second.tools[0].tool({ sessionKey: REQUESTER }).find((t) => t.name === 'st_sessions_list').execute('call-2', {});
    // The new scheduler waits for the same run: the old one let the job go when it stopped.
    await until(() => waits === 2, "the new scheduler waiting for the job's run");
    assert.deepEqual(events, ['start', 'stop', 'start']);
    runEnds();
    await until(() => jobFiles(jobsDir).length === 0, 'the flow ending');
    assert.equal(gateway.outbox.length, 1, 'the flow ran once, to its one delivery');
  } finally {
    runEnds();
    await (second ?? first).services[0].stop();
    JobRunner.prototype.startScheduler = original;
  }
  assert.equal(most, 1, `never two schedulers at once: ${events.join(', ')}`);
});
