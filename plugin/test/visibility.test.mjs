// Host-side visibility (N15) in the plugin's gateway bridge: a sandboxed caller under
// `spawned` visibility reaches nothing outside its own spawn tree, in any spelling, whatever
// its guest sends (the hostile component's `spy` makes the raw gateway calls), while it may
// create and configure its own new sub-agent session. Mirrors tests/hostile.rs.

import { test } from 'node:test';
import assert from 'node:assert/strict';

import { DeploymentConfig } from '../lib/config.mjs';
import { AgentLimits } from '../lib/limits.mjs';
import { Service } from '../lib/service.mjs';
import { access } from '../lib/access.mjs';
import { KeyRules } from '../lib/keys.mjs';
import { OpenClawGateway } from '../lib/openclaw-gateway.mjs';
import { hostileRuntime, recorder, TreeGateway } from './helpers.mjs';

const OWN = 'agent:main:main';
const CHILD = 'agent:main:subagent:3f2a9c1e-5b7d-4e8f-9a0b-1c2d3e4f5a6b';
const DISCORD = 'agent:main:discord:channel:1187421193829244938';
const OPS_SLACK = 'agent:ops:slack:channel:c07abcdef12';
const TELEGRAM = 'agent:main:telegram:group:-1001234567890';

function sessions() {
  return [
    { key: OWN, sessionId: '0d6c1f7e-0000-4000-8000-000000000001', deliveryContext: { channel: 'discord', to: 'user:240918250145857536' } },
    { key: CHILD, spawnedBy: OWN, sessionId: 'e7f8a9b0-c1d2-4e3f-8a4b-5c6d7e8f9a0b', label: 'pricing-research' },
    { key: DISCORD, sessionId: '1a2b3c4d-0000-4000-8000-000000000002', deliveryContext: { channel: 'discord', to: 'channel:1187421193829244938' } },
    { key: 'agent:ops:main', sessionId: '1a2b3c4d-0000-4000-8000-000000000003' },
    { key: OPS_SLACK, sessionId: '8c3d9e1f-2a4b-4c6d-8e0f-3a5b7c9d1e2f', label: 'incidents', deliveryContext: { channel: 'slack', to: 'channel:C07ABCDEF12' } },
    { key: TELEGRAM, sessionId: 'b2c3d4e5-f6a7-4b8c-9d0e-1f2a3b4c5d6e' },
  ];
}

async function service(config = {}) {
  const runtime = await hostileRuntime();
  const gateway = new TreeGateway(sessions());
  const rec = recorder();
  const svc = new Service({ runtime, gateway, tree: gateway, config: new DeploymentConfig(config), stateDir: '/state', limits: new AgentLimits(), log: rec.log });
  return { svc, gateway, rec };
}

const me = { agentSessionKey: OWN, sandboxed: true };
const spy = async (svc, who, args) => JSON.parse(await svc.call(who, 'spy', JSON.stringify(args)));
const refusals = (rec) => rec.lines.filter((l) => l.startsWith('N15: refused '));

test('a sandboxed caller cannot reach outside its spawned tree in any spelling', async () => {
  const { svc, gateway, rec } = await service();
  try {
    const opsRun = (await gateway.call('agent', { message: 'hello', sessionKey: 'agent:ops:main', idempotencyKey: 'ops-run-1' })).runId;
    const session = (key) => `session ${key}`;
    const refused = [
      [{ method: 'chat-history', key: DISCORD }, 'chat.history', session(DISCORD)],
      [{ method: 'chat-history', key: 'AGENT:MAIN:discord:channel:1187421193829244938' }, 'chat.history', session('AGENT:MAIN:discord:channel:1187421193829244938')],
      [{ method: 'chat-history', key: `  ${DISCORD}\n` }, 'chat.history', session(DISCORD)],
      [{ method: 'chat-history', key: 'discord:channel:1187421193829244938' }, 'chat.history', session('discord:channel:1187421193829244938')],
      [{ method: 'chat-history', key: 'agent:ops:main' }, 'chat.history', session('agent:ops:main')],
      [{ method: 'chat-history', key: 'AGENT:OPS:MAIN' }, 'chat.history', session('AGENT:OPS:MAIN')],
      [{ method: 'chat-history', key: OPS_SLACK }, 'chat.history', session(OPS_SLACK)],
      [{ method: 'chat-history', key: 'global' }, 'chat.history', session('global')],
      [{ method: 'sessions-resolve', key: 'agent:ops:main' }, 'sessions.resolve', session('agent:ops:main')],
      [{ method: 'sessions-resolve', key: 'telegram:group:-1001234567890' }, 'sessions.resolve', session('telegram:group:-1001234567890')],
      [{ method: 'sessions-resolve', sessionId: 'b2c3d4e5-f6a7-4b8c-9d0e-1f2a3b4c5d6e' }, 'sessions.resolve', 'sessionId b2c3d4e5-f6a7-4b8c-9d0e-1f2a3b4c5d6e'],
      [{ method: 'sessions-resolve', sessionId: ' 8c3d9e1f-2a4b-4c6d-8e0f-3a5b7c9d1e2f ' }, 'sessions.resolve', 'sessionId  8c3d9e1f-2a4b-4c6d-8e0f-3a5b7c9d1e2f '],
      [{ method: 'sessions-resolve', label: 'incidents' }, 'sessions.resolve', 'label incidents'],
      [{ method: 'sessions-patch', key: 'agent:ops:main', label: 'pwned' }, 'sessions.patch', session('agent:ops:main')],
      [{ method: 'sessions-patch', key: 'agent:main:planted', label: 'planted' }, 'sessions.patch', session('agent:main:planted')],
      [{ method: 'sessions-delete', key: OPS_SLACK }, 'sessions.delete', session(OPS_SLACK)],
      [{ method: 'agent', key: 'agent:ops:main' }, 'agent', session('agent:ops:main')],
      [{ method: 'agent', key: 'agent:main:subagent:11111111-2222-4333-8444-555555555555', spawnedBy: 'agent:ops:main' }, 'agent', session('agent:main:subagent:11111111-2222-4333-8444-555555555555')],
      [{ method: 'agent-wait', runId: opsRun }, 'agent.wait', `run ${opsRun}`],
      [{ method: 'send', channel: 'slack', to: 'channel:C07ABCDEF12' }, 'send', 'target slack:channel:C07ABCDEF12'],
      [{ method: 'send', to: 'channel:C07ABCDEF12' }, 'send', 'target ?:channel:C07ABCDEF12'],
      [{ method: 'send', channel: 'discord', to: 'channel:1187421193829244938' }, 'send', 'target discord:channel:1187421193829244938'],
    ];
    for (const [args, method, what] of refused) {
      assert.deepEqual(await spy(svc, me, args), { error: `forbidden: ${what} is not visible from this sandboxed agent session` }, JSON.stringify(args));
      assert.equal(rec.lines.at(-1), `N15: refused ${method}: ${what} for sandboxed session ${OWN}`, JSON.stringify(args));
    }
    assert.equal(refusals(rec).length, refused.length);
    // Nothing outside the tree was changed, and nothing was sent.
    assert.ok(gateway.sessions.has(OPS_SLACK) && !gateway.sessions.has('agent:main:planted'));
    assert.equal(gateway.sessions.get('agent:ops:main').label, undefined);
    assert.deepEqual(gateway.outbox, []);

    // Its own session (in its spellings) and the sub-agent it spawned are allowed.
    const allowed = [
      [{ method: 'chat-history', key: OWN }, { ok: 0 }],
      [{ method: 'chat-history', key: 'main' }, { ok: 0 }],
      [{ method: 'chat-history', key: ' agent:main:main ' }, { ok: 0 }],
      [{ method: 'chat-history', key: CHILD }, { ok: 0 }],
      [{ method: 'sessions-resolve', key: 'main' }, { ok: OWN }],
      [{ method: 'sessions-resolve', sessionId: 'e7f8a9b0-c1d2-4e3f-8a4b-5c6d7e8f9a0b' }, { ok: CHILD }],
      [{ method: 'sessions-resolve', label: 'pricing-research' }, { ok: CHILD }],
      [{ method: 'sessions-list' }, { ok: [OWN, CHILD] }],
      [{ method: 'sessions-list', agentId: 'ops' }, { ok: [] }],
      [{ method: 'sessions-list', search: 'discord' }, { ok: [] }],
      [{ method: 'sessions-patch', key: CHILD, label: 'renamed-in-sandbox' }, { ok: null }],
      [{ method: 'send', channel: 'discord', to: 'user:240918250145857536' }, { ok: null }],
    ];
    for (const [args, expected] of allowed) assert.deepEqual(await spy(svc, me, args), expected, JSON.stringify(args));

    // A new sub-agent spawned from its own session joins its tree.
    const spawned = 'agent:main:subagent:99999999-8888-4777-8666-555555555555';
    assert.equal(typeof (await spy(svc, me, { method: 'agent', key: spawned, spawnedBy: OWN, label: 'child-2' })).ok, 'string');
    assert.deepEqual(await spy(svc, me, { method: 'chat-history', key: spawned }), { ok: 0 });
    assert.deepEqual((await spy(svc, me, { method: 'sessions-list' })).ok.sort(), [OWN, CHILD, spawned].sort());
    assert.equal(refusals(rec).length, refused.length);
    assert.equal(gateway.outbox.length, 1);

    // An unrestricted caller of the same agent sees everything (the guard is per caller).
    const all = (await spy(svc, { agentSessionKey: OWN, sandboxed: false }, { method: 'sessions-list' })).ok;
    assert.ok(all.includes(OPS_SLACK) && all.includes(DISCORD) && all.includes(spawned), all.join(' '));
  } finally {
    await svc.stop();
  }
});

test('a sandboxed caller may create and configure its new child and patch nothing else', async () => {
  const { svc, gateway, rec } = await service();
  try {
    const child = 'agent:main:subagent:0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d';
    // A spawn's sequence in one call: configure the new child, then start it.
    const steps = { steps: [
      { method: 'sessions-patch', key: child, model: 'anthropic/claude-opus-4-5' },
      { method: 'agent', key: child, spawnedBy: OWN, lane: 'subagent' },
    ] };
    const answers = JSON.parse(await svc.call(me, 'sequence', JSON.stringify(steps)));
    assert.deepEqual(answers[0], { ok: null });
    assert.equal(typeof answers[1].ok, 'string');
    assert.deepEqual(await spy(svc, me, { method: 'chat-history', key: child }), { ok: 0 });
    // The same path reaches nothing else.
    const telegram = { agentSessionKey: TELEGRAM, sandboxed: true };
    const before = JSON.stringify([...gateway.sessions.entries()]);
    for (const [who, key] of [
      [me, DISCORD],
      [me, 'agent:main:planted'],
      [me, 'agent:ops:subagent:0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4e'],
      [me, ` AGENT:main:discord:channel:1187421193829244938 `],
      [telegram, CHILD],
    ]) {
      assert.deepEqual(await spy(svc, who, { method: 'sessions-patch', key, model: 'anthropic/x' }), {
        error: `forbidden: session ${key.trim()} is not visible from this sandboxed agent session`,
      }, key);
    }
    assert.equal(JSON.stringify([...gateway.sessions.entries()]), before, 'nothing refused was written');
    assert.equal(rec.lines.filter((l) => l.startsWith('N15: refused sessions.patch')).length, 5);
  } finally {
    await svc.stop();
  }
});

test('spawning into another agent needs it in subagents.allowAgents', async () => {
  const config = { agents: { list: [{ id: 'main', subagents: { allowAgents: ['research'] } }] } };
  const { svc, rec } = await service(config);
  try {
    const ops = 'agent:ops:subagent:5e6f7a8b-9c0d-4e1f-8a2b-3c4d5e6f7a8b';
    assert.deepEqual(await spy(svc, me, { method: 'agent', key: ops, spawnedBy: OWN }), {
      error: `forbidden: session ${ops} is not visible from this sandboxed agent session`,
    });
    assert.equal(rec.lines.at(-1), `N15: refused agent: session ${ops} for sandboxed session ${OWN}`);
    const research = 'agent:research:subagent:5e6f7a8b-9c0d-4e1f-8a2b-3c4d5e6f7a8c';
    assert.equal(typeof (await spy(svc, me, { method: 'agent', key: research, spawnedBy: OWN })).ok, 'string');
  } finally {
    await svc.stop();
  }
});

test('the host restricts sandboxed callers the guest would not, and fails closed', async () => {
  const config = new DeploymentConfig({ agents: { list: [{ id: 'ops', sandbox: { sessionToolsVisibility: 'all' } }] } });
  assert.equal(access(config, { agentSessionKey: OWN, sandboxed: false }).restriction, null);
  assert.equal(access(config, { agentSessionKey: 'main', sandboxed: true }).restriction.own, OWN);
  assert.equal(access(config, { agentSessionKey: 'agent:ops:main', sandboxed: true }).restriction, null, 'N10: ops sees everything');
  assert.ok(access(config, { agentSessionKey: CHILD, sandboxed: true }).restriction, 'a sandboxed sub-agent session is restricted too');
  const nobody = access(config, { sandboxed: true });
  assert.equal(nobody.restriction.own, null);
  assert.equal(nobody.pool, 'main\nnone');

  const { svc, rec } = await service();
  try {
    assert.deepEqual(await spy(svc, { sandboxed: true }, { method: 'chat-history', key: OWN }), {
      error: `forbidden: session ${OWN} is not visible from this sandboxed agent session`,
    });
    assert.equal(rec.lines.at(-1), `N15: refused chat.history: session ${OWN} for sandboxed session (none)`);
  } finally {
    await svc.stop();
  }
});

test('instances are never shared between agents, nor with a restricted caller', async () => {
  const { svc } = await service();
  try {
    const ok = async (who) => JSON.parse(await svc.call(who, 'ok', '{}')).calls;
    const main = { agentSessionKey: OWN, sandboxed: false };
    assert.equal(await ok(main), 1);
    assert.equal(await ok(main), 2, "the agent's instance is kept and reused");
    assert.equal(await ok({ agentSessionKey: 'agent:ops:main', sandboxed: false }), 1, 'another agent gets its own');
    assert.equal(await ok(me), 1, 'a sandboxed caller never gets an instance that served an unrestricted one');
    assert.equal(await ok(me), 2);
    assert.equal(await ok({ agentSessionKey: TELEGRAM, sandboxed: true }), 1, 'nor one that served another restricted session');
    assert.equal(await ok(main), 3);
    // A broken instance is replaced.
    await assert.rejects(svc.call(main, 'trap', '{}'), /the tool crashed/);
    assert.equal(await ok(main), 1);
  } finally {
    await svc.stop();
  }
});

const refusedRun = (run) => ({ error: `forbidden: run ${run} is not visible from this sandboxed agent session` });
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

test('a sandboxed caller waits only for runs it can show are its own, and takes no run of another session', async () => {
  const { svc, gateway, rec } = await service();
  try {
    const opsRun = (await gateway.call('agent', { message: 'hi', sessionKey: 'agent:ops:main', idempotencyKey: 'ops-run-1' })).runId;
    // A run of another session and a run nobody started get the same answer.
    for (const run of [opsRun, 'no-such-run', '']) {
      assert.deepEqual(await spy(svc, me, { method: 'agent-wait', runId: run }), refusedRun(run), run);
      assert.equal(rec.lines.at(-1), `N15: refused agent.wait: run ${run} for sandboxed session ${OWN}`);
    }
    // Another session's run id as a key is refused, in any session of its own; the run keeps its session.
    for (const key of [OWN, CHILD]) {
      assert.deepEqual(await spy(svc, me, { method: 'agent', key, idempotencyKey: opsRun }), refusedRun(opsRun));
    }
    assert.equal(gateway.runSession(opsRun), 'agent:ops:main');
    // Any other key is replaced by one of the host's: the guest names no run.
    const mine = (await spy(svc, me, { method: 'agent', key: OWN, idempotencyKey: 'chosen-by-the-guest' })).ok;
    assert.match(mine, UUID);
    assert.equal(gateway.runSession(mine), OWN);
    assert.equal(gateway.runSession('chosen-by-the-guest'), undefined);
    // Its own run, in a later call (another guard): the gateway says whose it is.
    assert.deepEqual(await spy(svc, me, { method: 'agent-wait', runId: mine }), { ok: 'ok' });
    assert.equal(refusals(rec).length, 5);
  } finally {
    await svc.stop();
  }
});

test('over the gateway bridge, a run the bridge never saw cannot become the caller\'s', async () => {
  // The bridge (openclaw-gateway.mjs) over a gateway that deduplicates as OpenClaw's does,
  // and knows a run of agent:ops:main started before this process.
  const gateway = new TreeGateway(sessions());
  await gateway.call('agent', { message: 'hi', sessionKey: 'agent:ops:main', idempotencyKey: 'elsewhere-run' });
  const bridge = new OpenClawGateway({ callGateway: ({ method, params }) => gateway.call(method, params), rules: new KeyRules() });
  const rec = recorder();
  const svc = new Service({ runtime: await hostileRuntime(), gateway: bridge, tree: bridge, config: new DeploymentConfig({}), stateDir: '/state', limits: new AgentLimits(), log: rec.log });
  try {
    const run = (await spy(svc, me, { method: 'agent', key: OWN, idempotencyKey: 'elsewhere-run' })).ok;
    assert.match(run, UUID);
    assert.deepEqual(gateway.calls.filter((c) => c.method === 'agent').map((c) => c.params.idempotencyKey), ['elsewhere-run', run]);
    assert.deepEqual(await spy(svc, me, { method: 'agent-wait', runId: 'elsewhere-run' }), refusedRun('elsewhere-run'));
    assert.equal(bridge.runSession('elsewhere-run'), undefined);
    assert.deepEqual(await spy(svc, me, { method: 'agent-wait', runId: run }), { ok: 'ok' });
    // A run another session started through the bridge (its wire reports the run) keeps its
    // session (first writer wins).
    const unrestricted = (key) => ({ agentSessionKey: key, sandboxed: false });
    await spy(svc, unrestricted('agent:ops:main'), { method: 'agent', key: 'agent:ops:main', idempotencyKey: 'ops-run' });
    assert.equal(bridge.runSession('ops-run'), 'agent:ops:main');
    assert.deepEqual(await spy(svc, me, { method: 'agent', key: OWN, idempotencyKey: 'ops-run' }), refusedRun('ops-run'));
    await spy(svc, unrestricted('agent:main:main'), { method: 'agent', key: OWN, idempotencyKey: 'ops-run' });
    assert.equal(bridge.runSession('ops-run'), 'agent:ops:main');
    assert.deepEqual(await spy(svc, me, { method: 'agent-wait', runId: 'ops-run' }), refusedRun('ops-run'));
    assert.deepEqual(await spy(svc, me, { method: 'agent-wait', runId: 'never-started' }), refusedRun('never-started'));
    assert.equal(refusals(rec).length, 4);
  } finally {
    await svc.stop();
  }
});

test('what does not exist and what is not visible look the same', async () => {
  const { svc, rec } = await service();
  try {
    const pairs = [
      [{ method: 'sessions-resolve', label: 'incidents' }, { method: 'sessions-resolve', label: 'no-such-label' }],
      [{ method: 'sessions-resolve', sessionId: '8c3d9e1f-2a4b-4c6d-8e0f-3a5b7c9d1e2f' }, { method: 'sessions-resolve', sessionId: '00000000-0000-4000-8000-000000000000' }],
      [{ method: 'sessions-resolve', key: 'agent:ops:main' }, { method: 'sessions-resolve', key: 'agent:ops:no-such-session' }],
      [{ method: 'chat-history', key: OPS_SLACK }, { method: 'chat-history', key: 'agent:ops:slack:channel:no-such-channel' }],
      [{ method: 'sessions-delete', key: OPS_SLACK }, { method: 'sessions-delete', key: 'agent:ops:slack:channel:no-such-channel' }],
    ];
    const shape = (args, answer) => answer.error?.replace(args.key ?? args.sessionId ?? args.label, '<asked>');
    for (const [there, missing] of pairs) {
      const [a, b] = [await spy(svc, me, there), await spy(svc, me, missing)];
      assert.match(a.error ?? '', /^forbidden: /, JSON.stringify(there));
      assert.equal(shape(there, a), shape(missing, b), `${JSON.stringify(there)} / ${JSON.stringify(missing)}`);
    }
    assert.equal(refusals(rec).length, 2 * pairs.length);
    assert.deepEqual(await spy(svc, me, { method: 'sessions-resolve', label: 'pricing-research' }), { ok: CHILD });
  } finally {
    await svc.stop();
  }
});

test('run keys are derived as both hosts derive them (shared vectors)', async () => {
  const { readFileSync } = await import('node:fs');
  const { derivedKey } = await import('../lib/visibility.mjs');
  const file = JSON.parse(readFileSync(new URL('../../tests/fixtures/derived-run-keys.json', import.meta.url), 'utf8'));
  assert.ok(file.vectors.length > 0);
  for (const v of file.vectors) assert.equal(derivedKey(v.own, v.guestKey), v.key, JSON.stringify(v));
});
