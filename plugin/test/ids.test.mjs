// Seeded ids (ids.mjs): the derivation the Rust host uses (`SeededIds` of
// host/src/jobs/intent.rs), checked against the test vector both hosts check, and the ids a
// guest draws in a call are the seeded ones (the worker's `new-uuid`).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { REPO_DIR } from '../scripts/build-component.mjs';
import { DeploymentConfig } from '../lib/config.mjs';
import { callSeed, SeededIds, seededUuid, seedOf } from '../lib/ids.mjs';
import { AgentLimits } from '../lib/limits.mjs';
import { Runtime } from '../lib/sandbox.mjs';
import { Service } from '../lib/service.mjs';
import { callerContext } from '../lib/records.mjs';
import { COMPONENT_DIR, TreeGateway } from './helpers.mjs';

const VECTOR = join(REPO_DIR, 'host/src/jobs/seeded-ids.json');

test('seeded ids match the test vector the Rust host checks too', () => {
  const { cases } = JSON.parse(readFileSync(VECTOR, 'utf8'));
  assert.ok(cases.length >= 10, `${VECTOR} has its cases`);
  for (const { parts, counter, uuid } of cases) {
    const ids = new SeededIds(parts);
    let id;
    for (let n = 0; n <= counter; n++) id = ids.next();
    assert.equal(id, uuid, JSON.stringify({ parts, counter }));
    assert.equal(seededUuid(seedOf(parts), counter), uuid);
  }
});

test("a call's ids are the ones its seed gives, the same every time it is made", async () => {
  const runtime = new Runtime(COMPONENT_DIR);
  const caller = callerContext({ agentSessionKey: 'agent:main:main' });
  const spawn = async (seed) => {
    const gateway = new TreeGateway([{ key: 'agent:main:main', sessionId: 's-main' }]);
    const sandbox = await runtime.instantiateConfigured({ name: 'main', gateway, limits: new AgentLimits().forAgent('main') }, '{}', '/state');
    try {
      const out = await sandbox.callTool('sessions_spawn', caller, JSON.stringify({ task: 'count the files' }), { seed });
      const agent = gateway.calls.find((c) => c.method === 'agent').params;
      return { result: JSON.parse(out.result), agent, jobIds: out.jobs.map((j) => j.id) };
    } finally {
      sandbox.close();
    }
  };
  const seed = callSeed('3f2a9c1e5b7d4e8f9a0b1c2d3e4f5a6b');
  const ids = new SeededIds(seed);
  const [childId, runKey, flowId, archiveId] = [ids.next(), ids.next(), ids.next(), ids.next()];
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
  const svc = new Service({ runtime: new Runtime(COMPONENT_DIR), gateway, config: new DeploymentConfig({}), stateDir: '/state', limits: new AgentLimits() });
  try {
    // Two calls with the same arguments: two intents, so two different keys.
    for (let i = 0; i < 2; i++) await svc.call({ agentSessionKey: 'agent:main:main' }, 'sessions_spawn', JSON.stringify({ task: 'same task' }));
    const keys = gateway.calls.filter((c) => c.method === 'agent').map((c) => c.params.idempotencyKey);
    assert.equal(new Set(keys).size, 2, JSON.stringify(keys));
  } finally {
    await svc.stop();
  }
});
