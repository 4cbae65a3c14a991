// The rules both hosts follow around a call and a job (`host-rules/`), run through the guard
// component the plugin asks: the seeded ids and the job and error cases the Rust host checks
// natively (`host-rules/vectors/`), and the ids a guest draws in a call are the seeded ones
// (the worker's `new-uuid`).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { REPO_DIR } from '../scripts/build-component.mjs';
import { DeploymentConfig } from '../lib/config.mjs';
import { jobRules } from '../lib/guard.mjs';
import { readJob } from '../lib/jobs.mjs';
import { AgentLimits } from '../lib/limits.mjs';
import { CallError, Runtime } from '../lib/sandbox.mjs';
import { Service } from '../lib/service.mjs';
import { callerContext } from '../lib/records.mjs';
import { COMPONENT_DIR, tempJobStore, TreeGateway } from './helpers.mjs';

const vector = (name) => JSON.parse(readFileSync(join(REPO_DIR, 'host-rules/vectors', name), 'utf8'));
const seededIds = (parts) => {
  let n = 0;
  return () => jobRules().seededId(parts, BigInt(n++));
};

test('seeded ids match the test vector the Rust host checks too', () => {
  const { cases } = vector('seeded-ids.json');
  assert.ok(cases.length >= 10, 'the vector has its cases');
  for (const { parts, counter, uuid } of cases) assert.equal(jobRules().seededId(parts, BigInt(counter)), uuid, JSON.stringify({ parts, counter }));
});

test('call errors have the kinds and words the Rust host gives them', () => {
  const { callErrors } = vector('job-rules.json');
  const u64 = (v) => (typeof v === 'number' ? BigInt(v) : v);
  for (const c of callErrors) {
    const val = Array.isArray(c.error.val) ? c.error.val.map(u64) : u64(c.error.val);
    const error = new CallError(c.error.val === undefined ? { tag: c.error.tag } : { tag: c.error.tag, val });
    assert.deepEqual([error.kind, error.message, error.discardsInstance], [c.kind, c.message, c.discardsInstance], JSON.stringify(c.error));
  }
  assert.equal(CallError.of('cpu-limit', 2000).kind, 'cpu_limit');
  assert.equal(CallError.of('too-large', 'tool-result', 3, 2).message, 'tool result too large: 3 bytes (the limit is 2)');
});

test('calls and steps keep their jobs as the Rust host does', () => {
  const v = vector('job-rules.json');
  const bounds = (b) => ({ ...b, maxWaitMs: BigInt(b.maxWaitMs) });
  const check = (kept, expected, about) => {
    const saves = kept.saves.map((s) => ({ key: s.key, onlyIfNew: s.onlyIfNew, record: readJob(s.key, s.text) }));
    const wanted = expected.saves.map((s) => ({ key: s.key, onlyIfNew: s.onlyIfNew, record: readJob(s.key, JSON.stringify(s.record)) }));
    assert.deepEqual(saves, wanted, about);
    assert.equal(kept.ends, expected.ends, about);
    assert.deepEqual(kept.refused, expected.refused, about);
  };
  for (const c of v.keepCall) {
    const kept = jobRules().keepCall(bounds(c.bounds), c.agent, JSON.stringify(c.caller), JSON.stringify(c.jobs), c.call, c.recorded, BigInt(c.nowMs), c.pending);
    check(kept, c.kept, c.about);
  }
  for (const c of v.keepStep) {
    const kept = jobRules().keepStep(bounds(c.bounds), c.key, JSON.stringify(c.parent), JSON.stringify(c.jobs), BigInt(c.nowMs), c.pending);
    check(kept, c.kept, c.about);
  }
  for (const c of v.waitBound) {
    const left = c.leftMs === null ? undefined : BigInt(c.leftMs);
    assert.equal(jobRules().waitBound(BigInt(c.requestedMs), BigInt(c.maxWaitMs), left), BigInt(c.ms), JSON.stringify(c));
  }
  for (const c of v.intents) {
    const text = JSON.stringify(c.intent);
    const normal = (intent) => JSON.parse(jobRules().readIntent(intent.id, JSON.stringify(intent)));
    if (c.replayed) assert.deepEqual(JSON.parse(jobRules().replayedIntent(text)), normal(c.replayed), c.about);
    else assert.throws(() => jobRules().replayedIntent(text), (e) => String(e) === c.dropped, c.about);
  }
  assert.deepEqual(jobRules().writes(), v.writes);
});

test('gateway calls are metered as the Rust host meters them', () => {
  for (const c of vector('job-rules.json').gatewayCalls) {
    const refused = jobRules().gatewayCallRefused(c.calls, c.maxCalls, c.outOfTime, c.gatewayTimeSpent, BigInt(c.gatewayBudgetS));
    assert.deepEqual(refused ?? null, c.refused, JSON.stringify(c));
  }
});

test("a call's ids are the ones its seed gives, the same every time it is made", async () => {
  const runtime = new Runtime(COMPONENT_DIR);
  const caller = callerContext({ agentSessionKey: 'agent:main:main' });
  const spawn = async (seed) => {
    const gateway = new TreeGateway([{ key: 'agent:main:main', sessionId: 's-main' }]);
    const config = { json: '{}', stateDir: '/state' };
    const sandbox = await runtime.instantiate({ name: 'main', gateway, limits: new AgentLimits().forAgent('main'), config });
    try {
      const out = await sandbox.callTool('sessions_spawn', caller, JSON.stringify({ task: 'count the files' }), { seed });
      const agent = gateway.calls.find((c) => c.method === 'agent').params;
      return { result: JSON.parse(out.result), agent, jobIds: out.jobs.map((j) => j.id) };
    } finally {
      sandbox.close();
    }
  };
  const seed = jobRules().callSeed('3f2a9c1e5b7d4e8f9a0b1c2d3e4f5a6b');
  const next = seededIds(seed);
  const [childId, runKey, flowId, archiveId] = [next(), next(), next(), next()];
  const first = await spawn(seed);
  // sessions_spawn draws the child's id, the run's key, then its jobs' ids: the completion
  // flow and the archive (guest/src/spawn.rs).
  assert.equal(first.result.childSessionKey, `agent:main:subagent:${childId}`);
  assert.equal(first.agent.idempotencyKey, runKey);
  assert.deepEqual(first.jobIds, [flowId, archiveId]);
  const again = await spawn(seed);
  assert.deepEqual(again.agent, first.agent, 'the same call made again sends the same request');
  const unseeded = await spawn(null);
  assert.notEqual(unseeded.agent.idempotencyKey, runKey, 'without a seed the ids are random');
});

test('two calls with the same arguments send different keys: each call has an intent of its own', async () => {
  const gateway = new TreeGateway([{ key: 'agent:main:main', sessionId: 's-main' }]);
  const svc = new Service({ runtime: new Runtime(COMPONENT_DIR), gateway, config: new DeploymentConfig({}), stateDir: '/state', limits: new AgentLimits(), jobStore: tempJobStore() });
  try {
    // Two calls with the same arguments: two intents, so two different keys.
    for (let i = 0; i < 2; i++) await svc.call({ agentSessionKey: 'agent:main:main' }, 'sessions_spawn', JSON.stringify({ task: 'same task' }));
    const keys = gateway.calls.filter((c) => c.method === 'agent').map((c) => c.params.idempotencyKey);
    assert.equal(new Set(keys).size, 2, JSON.stringify(keys));
  } finally {
    await svc.stop();
  }
});
