// The bridge's wire conversions (lib/wire.mjs, mirroring host/src/gateway/wire.rs): the
// guest's records to the gateway's JSON params and back, answers treated as untrusted; and
// the memory cap written into a core module (lib/memcap.mjs).

import { test } from 'node:test';
import assert from 'node:assert/strict';

import * as wire from '../lib/wire.mjs';
import { capMemory } from '../lib/memcap.mjs';
import { KeyRules, normalizeAgentId, targetFromKey, isSubagentKey } from '../lib/keys.mjs';

test('params omit absent values, in camelCase, 64-bit integers as numbers', () => {
  assert.deepEqual(wire.listParams({ limit: 5, includeGlobal: true, label: undefined }), { limit: 5, includeGlobal: true });
  assert.deepEqual(wire.historyParams({ sessionKey: 'main' }), { sessionKey: 'main' });
  assert.deepEqual(wire.waitParams({ runId: 'r', timeoutMs: 30000n }), { runId: 'r', timeoutMs: 30000 });
  assert.deepEqual(wire.waitParams({ runId: 'r', timeoutMs: 2n ** 64n - 1n }), { runId: 'r', timeoutMs: Number.MAX_SAFE_INTEGER });
  assert.deepEqual(
    Object.keys(wire.agentParams({ message: 'm', idempotencyKey: 'k', sessionKey: 's', deliver: false, lane: 'subagent', timeout: 0, spawnedBy: 'p' })),
    ['message', 'sessionKey', 'idempotencyKey', 'deliver', 'lane', 'timeout', 'spawnedBy'],
  );
  assert.deepEqual(wire.sendParams({ to: 't', message: 'm', idempotencyKey: 'k', channel: 'discord' }), { to: 't', message: 'm', channel: 'discord', idempotencyKey: 'k' });
  assert.deepEqual(wire.patchParams({ key: 'k', model: 'a/b' }), { key: 'k', model: 'a/b' });
  assert.deepEqual(wire.deleteParams({ key: 'k', deleteTranscript: true }), { key: 'k', deleteTranscript: true });
  assert.deepEqual(wire.resolveParams({ sessionId: 'x', includeGlobal: false }), { sessionId: 'x', includeGlobal: false });
});

test('rows of the wrong shape are dropped or trimmed; thread ids keep their type (N11)', () => {
  const list = wire.sessionList({
    path: 5,
    sessions: [{ key: '' }, { key: 3 }, 'x', null, { key: 'k', label: 7, updatedAt: 10.9, deliveryContext: { threadId: 42, to: 't' }, totalTokens: 'many', systemSent: 'yes' }],
  });
  assert.equal(list.path, undefined);
  assert.equal(list.sessions.length, 1);
  const row = list.sessions[0];
  assert.equal(row.label, undefined);
  assert.equal(row.updatedAt, 10n);
  assert.equal(row.totalTokens, undefined);
  assert.equal(row.systemSent, undefined);
  assert.deepEqual(row.deliveryContext, { channel: undefined, to: 't', accountId: undefined, threadId: { tag: 'number', val: 42 } });
  assert.deepEqual(wire.threadId('99'), { tag: 'text', val: '99' });
  assert.equal(wire.threadId(Infinity), undefined);
  assert.equal(wire.sessionList({ path: '/p', sessions: 'no' }).sessions.length, 0);
  assert.equal(wire.sessionRow({ key: 'k', updatedAt: 1e300 }).updatedAt, 2n ** 63n - 1n, 'a huge time is clamped into s64');
});

test('answers: resolve, history, agent, wait', () => {
  assert.equal(wire.resolvedKey({ ok: true, key: 'agent:main:main' }), 'agent:main:main');
  assert.equal(wire.resolvedKey({}), '');
  assert.equal(wire.resolvedKey(null), '');
  const h = wire.history({ sessionId: 's', messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }, 'odd', { role: 5 }] });
  assert.equal(h.sessionId, 's');
  assert.deepEqual(h.messages.map((m) => m.role), ['user', undefined, undefined]);
  assert.deepEqual(JSON.parse(h.messages[0].json), { role: 'user', content: [{ type: 'text', text: 'hi' }] });
  assert.equal(h.messages[1].json, '"odd"');
  assert.deepEqual(wire.agentAccepted({ runId: 'run-1', status: 'accepted' }), { runId: 'run-1' });
  assert.deepEqual(wire.agentAccepted({ runId: 7 }), { runId: undefined });
  const w = wire.waitResult({ runId: 'r', status: 'ok', startedAt: 1000, endedAt: 2500.7, usage: { input: 10, output: 5, totalTokens: 15 }, model: 'm' });
  assert.deepEqual(w, { status: 'ok', error: undefined, startedAt: 1000n, endedAt: 2500n, usage: { inputTokens: 10, outputTokens: 5, totalTokens: 15 }, model: 'm' });
  assert.deepEqual(wire.waitResultJson(w), { status: 'ok', startedAt: 1000, endedAt: 2500, usage: { inputTokens: 10, outputTokens: 5, totalTokens: 15 }, model: 'm' });
  assert.equal(wire.waitResult({ usage: 'x' }).usage, undefined);
});

test('jobs and wakeups cross threads and files as JSON and come back the same', () => {
  const jobs = [
    { id: 'a', kind: 'a2a', sessionKey: 's', state: '{}', wake: { tag: 'now' } },
    { id: 'b', kind: 'subagent', sessionKey: 's', state: '{"x":1}', wake: { tag: 'run-end', val: { runId: 'r', timeoutMs: 60000n } } },
    { id: 'c', kind: 'archive', sessionKey: 's', state: '', wake: { tag: 'at', val: 1767229200000n } },
  ];
  for (const job of jobs) assert.deepEqual(wire.jobFromJson(JSON.parse(JSON.stringify(wire.jobToJson(job)))), job);
  assert.deepEqual(wire.wakeupFromJson({ type: 'timer' }), { tag: 'timer' });
  assert.deepEqual(wire.wakeupFromJson({ type: 'runEnded', error: 'gone' }), { tag: 'run-ended', val: { tag: 'err', val: { message: 'gone' } } });
  assert.equal(wire.wakeupFromJson({ type: 'runEnded', ok: { status: 'timeout' } }).val.val.status, 'timeout');
});

test('the caller context takes only known string fields', () => {
  assert.deepEqual(wire.callerContext({ agentSessionKey: 'agent:main:main', agentThreadId: 42, sandboxed: 'yes', extra: 1 }), {
    agentSessionKey: 'agent:main:main',
    agentChannel: undefined,
    agentAccountId: undefined,
    agentTo: undefined,
    agentThreadId: '42',
    agentGroupId: undefined,
    agentGroupChannel: undefined,
    agentGroupSpace: undefined,
    sandboxed: false,
    requesterAgentIdOverride: undefined,
  });
});

test('keys canonicalise as the gateway does', () => {
  const r = new KeyRules();
  assert.equal(r.canonical(' main '), 'agent:main:main');
  assert.equal(r.canonical('agent:ops:main'), 'agent:ops:main');
  assert.equal(r.canonical('agent:Ops:main'), 'agent:Ops:main');
  assert.equal(r.canonical('discord:group:x'), 'agent:main:discord:group:x');
  assert.equal(r.canonical('global'), 'global');
  assert.equal(new KeyRules({ scopeGlobal: true }).canonical('agent:ops:main'), 'global');
  assert.equal(normalizeAgentId(' Ops Team! '), 'ops-team');
  assert.equal(normalizeAgentId(''), 'main');
  assert.ok(isSubagentKey('agent:main:SubAgent:x') && !isSubagentKey('agent:main:main'));
  assert.deepEqual(targetFromKey('agent:main:discord:channel:118'), { channel: 'discord', to: 'channel:118', threadId: undefined });
  assert.deepEqual(targetFromKey('telegram:group:-100:topic:7'), { channel: 'telegram', to: 'group:-100', threadId: '7' });
});

function module(memorySection) {
  return Uint8Array.from([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0, ...memorySection]);
}

test('the memory cap is written into the module and enforced by the engine', async () => {
  // (module (memory 1)) with no maximum.
  const { bytes, memories } = capMemory(module([5, 3, 1, 0, 1]), 4 * 65536);
  assert.deepEqual(memories, [{ min: 1, max: 4 }]);
  assert.deepEqual([...bytes.subarray(8)], [5, 4, 1, 1, 1, 4]);
  // A module exporting its memory: growing past the cap fails inside the engine.
  const exported = Uint8Array.from([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0, 5, 3, 1, 0, 1, 7, 7, 1, 3, 0x6d, 0x65, 0x6d, 2, 0]);
  const instance = await WebAssembly.instantiate(capMemory(exported, 4 * 65536).bytes);
  const memory = instance.instance.exports.mem;
  assert.equal(memory.grow(3), 1);
  assert.throws(() => memory.grow(1), RangeError);
  // A smaller existing maximum stays; a minimum above the cap is refused.
  assert.deepEqual(capMemory(module([5, 4, 1, 1, 1, 2]), 4 * 65536).memories, [{ min: 1, max: 2 }]);
  assert.throws(() => capMemory(module([5, 3, 1, 0, 9]), 4 * 65536), /needs 9 pages/);
  assert.throws(() => capMemory(Uint8Array.from([1, 2, 3, 4, 5, 6, 7, 8]), 65536), /not a core WebAssembly module/);
});
