// Visibility (N15) in the plugin: a sandboxed caller under `spawned` visibility is served
// by the tools behind the composed guard component (the same bytes as the Rust host's) and reaches nothing outside
// its own spawn tree, in any spelling, whatever its guest sends (the hostile component's
// `spy` makes the raw gateway calls, composed behind the guard by the host's
// `compose_guarded`), while it may create and configure its own new sub-agent session. The
// hostile cases are one table for both hosts, `tests/fixtures/n15-cases.json` (read here,
// as tests/hostile.rs reads it); what a particular gateway finds stays here.

import { test } from 'node:test';
import assert from 'node:assert/strict';

import { DeploymentConfig } from '../lib/config.mjs';
import { canonicalKey, keyRulesOf, normalizeAgentId } from '../lib/guard.mjs';
import { AgentLimits } from '../lib/limits.mjs';
import { Service } from '../lib/service.mjs';
import { readFileSync } from 'node:fs';
import { OpenClawGateway } from '../lib/openclaw-gateway.mjs';
import { hostileRuntime, recorder, tempJobStore, TreeGateway } from './helpers.mjs';

const OWN = 'agent:main:main';
const CHILD = 'agent:main:subagent:3f2a9c1e-5b7d-4e8f-9a0b-1c2d3e4f5a6b';
const CHILD_SESSION_ID = 'e7f8a9b0-c1d2-4e3f-8a4b-5c6d7e8f9a0b';
const DISCORD = 'agent:main:discord:channel:1187421193829244938';
const OPS_SLACK = 'agent:ops:slack:channel:c07abcdef12';
const TELEGRAM = 'agent:main:telegram:group:-1001234567890';

function sessions() {
  return [
    { key: OWN, sessionId: '0d6c1f7e-0000-4000-8000-000000000001', deliveryContext: { channel: 'discord', to: 'user:240918250145857536' } },
    { key: CHILD, spawnedBy: OWN, sessionId: CHILD_SESSION_ID, label: 'pricing-research' },
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
  const svc = new Service({ runtime, gateway, config: new DeploymentConfig(config), stateDir: '/state', limits: new AgentLimits(), log: rec.log, jobStore: tempJobStore() });
  return { svc, gateway, rec };
}

const me = { agentSessionKey: OWN, sandboxed: true };
const spy = async (svc, who, args) => JSON.parse(await svc.call(who, 'spy', JSON.stringify(args)));
const refusals = (rec) => rec.lines.filter((l) => l.startsWith('N15: refused '));

test('a sandboxed caller cannot reach outside its spawned tree in any spelling', async () => {
  const { svc, gateway, rec } = await service();
  try {
    const opsRun = (await gateway.call('agent', { message: 'hello', sessionKey: 'agent:ops:main', idempotencyKey: 'ops-run-1' })).runId;
    const table = JSON.parse(readFileSync(new URL('../../tests/fixtures/n15-cases.json', import.meta.url), 'utf8'));
    assert.equal(table.own, OWN);
    const fill = (value) =>
      JSON.parse(JSON.stringify(value).replaceAll('{opsRun}', opsRun).replaceAll('{childSessionId}', CHILD_SESSION_ID).replaceAll('{child}', CHILD));
    assert.ok(table.refused.length >= 30, 'the table holds the refused cases');
    for (const { args, method, what } of table.refused.map(fill)) {
      assert.deepEqual(await spy(svc, me, args), { error: `forbidden: ${what} is not visible from this sandboxed agent session` }, JSON.stringify(args));
      assert.equal(rec.lines.at(-1), `N15: refused ${method}: ${what} for sandboxed session ${OWN}`, JSON.stringify(args));
    }
    assert.equal(refusals(rec).length, table.refused.length);
    // Nothing outside the tree was changed, and nothing was sent.
    assert.ok(gateway.sessions.has(OPS_SLACK) && !gateway.sessions.has('agent:main:planted'));
    assert.equal(gateway.sessions.get('agent:ops:main').label, undefined);
    assert.deepEqual(gateway.outbox, []);

    // Its own session (in its spellings) and the sub-agent it spawned are allowed.
    for (const { args, expect } of table.allowed.map(fill)) {
      let answer = await spy(svc, me, args);
      if (args.method === 'chat-history') {
        // How many messages there are does not matter here, only that they were read.
        assert.equal(typeof answer.ok, 'number', `${JSON.stringify(args)}: ${JSON.stringify(answer)}`);
        answer = { ok: 0 };
      }
      assert.deepEqual(answer, expect, JSON.stringify(args));
    }
    // This gateway finds the Discord channel session too; the guard filters it out.
    assert.deepEqual(await spy(svc, me, { method: 'sessions-list', search: 'discord' }), { ok: [] });
    const refused = table.refused;

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
  // Who is restricted is the guard component's `decide` (N15/N10), asked through the service.
  const { svc: opsAll } = await service({ agents: { list: [{ id: 'ops', sandbox: { sessionToolsVisibility: 'all' } }] } });
  try {
    const access = (caller) => opsAll.access(caller);
    assert.equal((await access({ agentSessionKey: OWN, sandboxed: false })).restriction, null);
    assert.equal((await access({ agentSessionKey: 'main', sandboxed: true })).restriction.ownKey, OWN);
    assert.equal((await access({ agentSessionKey: 'agent:ops:main', sandboxed: true })).restriction, null, 'N10: ops sees everything');
    assert.ok((await access({ agentSessionKey: CHILD, sandboxed: true })).restriction, 'a sandboxed sub-agent session is restricted too');
    const nobody = await access({ sandboxed: true });
    assert.equal(nobody.restriction.ownKey ?? null, null);
    assert.equal(nobody.pool, 'main\nnone; spawned');
  } finally {
    await opsAll.stop();
  }

  // E3: 2026.9's tools.sessions.visibility restricts unsandboxed callers too, in pools of their own.
  const { svc: tree } = await service({ tools: { sessions: { visibility: 'tree' } } });
  try {
    const plain = await tree.access({ agentSessionKey: OWN, sandboxed: false });
    assert.equal(plain.restriction.scope, 'tree');
    assert.equal(plain.restriction.spawnedOnly, false);
    assert.equal(plain.pool, `main\nown ${OWN}; visibility tree`);
    assert.equal((await tree.access({ agentSessionKey: OWN, sandboxed: true })).pool, `main\nown ${OWN}; spawned; visibility tree`);
  } finally {
    await tree.stop();
  }

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

test("the job runner's own wait for a restricted caller's run goes through the guard alone", async () => {
  const { svc, gateway, rec } = await service();
  try {
    const opsRun = (await gateway.call('agent', { message: 'hi', sessionKey: 'agent:ops:main', idempotencyKey: 'ops-run-1' })).runId;
    const mine = (await spy(svc, me, { method: 'agent', key: OWN, idempotencyKey: 'mine' })).ok;
    // Two jobs of the sandboxed caller, each waiting for the end of a run: its own, and one
    // of another session (the hostile component names any run it likes).
    for (const runId of [mine, opsRun]) {
      assert.deepEqual(JSON.parse(await svc.call(me, 'jobs', JSON.stringify({ count: 1, wake: 'wait', runId, value: 1000 }))), { jobs: 1 });
    }
    assert.equal(svc.jobs.pending().length, 2);
    const before = refusals(rec).length;
    await svc.jobs.runReady(30_000);
    // Its own run was waited for at the gateway; the other was refused by the guard before
    // any call, and that job woken with the refusal.
    assert.deepEqual(gateway.calls.filter((c) => c.method === 'agent.wait').map((c) => c.params.runId), [mine]);
    assert.deepEqual(refusals(rec).slice(before), [`N15: refused agent.wait: run ${opsRun} for sandboxed session ${OWN}`]);
    assert.equal(svc.jobs.pending().length, 0);
  } finally {
    await svc.stop();
  }
});

test('over the gateway bridge, a run the bridge never saw cannot become the caller\'s', async () => {
  // The bridge (openclaw-gateway.mjs) over a gateway that deduplicates as OpenClaw's does,
  // and knows a run of agent:ops:main started before this process.
  const gateway = new TreeGateway(sessions());
  await gateway.call('agent', { message: 'hi', sessionKey: 'agent:ops:main', idempotencyKey: 'elsewhere-run' });
  const bridge = new OpenClawGateway({ callGateway: ({ method, params }) => gateway.call(method, params), rules: keyRulesOf('{}') });
  const rec = recorder();
  const svc = new Service({ runtime: await hostileRuntime(), gateway: bridge, config: new DeploymentConfig({}), stateDir: '/state', limits: new AgentLimits(), log: rec.log, jobStore: tempJobStore() });
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

test("keys and agent ids are spelled by the guard component's rules, as the gateway spells them", () => {
  const rules = keyRulesOf('{}');
  const r = { canonical: (key) => canonicalKey(rules, key) };
  assert.equal(r.canonical(' main '), 'agent:main:main');
  assert.equal(r.canonical('agent:ops:main'), 'agent:ops:main');
  assert.equal(r.canonical('agent:Ops:main'), 'agent:Ops:main');
  assert.equal(r.canonical('discord:group:x'), 'agent:main:discord:group:x');
  assert.equal(r.canonical('global'), 'global');
  // As JavaScript trims (the reference): U+FEFF is white space, U+0085 is not (the guard's grammar, not a copy).
  assert.equal(r.canonical('\uFEFFmain'), 'agent:main:main');
  assert.equal(r.canonical('\u0085agent:main:x'), 'agent:main:\u0085agent:main:x');
  assert.equal(canonicalKey({ mainKey: 'main', scopeGlobal: true, defaultAgent: 'main' }, 'agent:ops:main'), 'global');
  assert.deepEqual(keyRulesOf(JSON.stringify({ session: { mainKey: ' Home ', scope: 'global' }, agents: { list: [{ id: 'Ops' }, { id: 'x', default: true }] } })), {
    mainKey: 'home',
    scopeGlobal: true,
    defaultAgent: 'x',
  });
  assert.deepEqual(rules, { mainKey: 'main', scopeGlobal: false, defaultAgent: 'main' });
  assert.equal(normalizeAgentId(' Ops Team! '), 'ops-team');
  assert.equal(normalizeAgentId(''), 'main');
  assert.throws(() => keyRulesOf('{'), /the key rules of the config: the deployment config is not JSON/);
});
