// The bridge's gateway wire: the wire component (wire/, transpiled into component/ beside
// the tools) as the worker runs it, over a recording transport: the guest's records to the
// gateway's JSON params for each protocol and back, answers treated as untrusted, an error
// frame's kind read from its code; the records the bridge keeps as JSON (a job's by the
// rules of `host-rules/`, the caller context by lib/records.mjs);
// and the memory and table caps written into a core module (`deployment/src/module_caps.rs`, through the guard component).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

import * as records from '../lib/records.mjs';
import { jobRules } from '../lib/guard.mjs';
import { capModule, defaultLimits } from '../lib/limits.mjs';
import { Runtime } from '../lib/sandbox.mjs';
import { BoundedOutput, wasiImports } from '../lib/wasi.mjs';
import { DEFAULT_OUT, REPO_DIR } from '../scripts/build-component.mjs';
import { COMPONENT_DIR } from './helpers.mjs';

/** A reader's answer: JSON text (as it crosses to the worker), parsed here to be compared. */
function parsed(answer) {
  assert.equal(typeof answer.text, 'string', `an answer, not ${JSON.stringify(answer)}`);
  return JSON.parse(answer.text);
}

/** A wire instance speaking `protocol` whose transport answers with `answer(method, params)` and records each request. */
async function wireOver(answer, protocol = 3, maxAnswerBytes = undefined) {
  const manifest = JSON.parse(readFileSync(join(DEFAULT_OUT, 'manifest.json'), 'utf8'));
  const wire = manifest.components.wire;
  const { instantiate } = await import(pathToFileURL(join(DEFAULT_OUT, wire.js)).href);
  const modules = Object.fromEntries(
    await Promise.all(wire.coreModules.map(async (f) => [f, await WebAssembly.compile(readFileSync(join(DEFAULT_OUT, f)))])),
  );
  const asked = [];
  const runs = [];
  const carry = (request) => {
    asked.push({ ...request, params: JSON.parse(request.params) });
    const out = answer(request.method, JSON.parse(request.params));
    return out.error !== undefined ? { tag: 'err', val: out.error } : { tag: 'ok', val: JSON.stringify(out.ok) };
  };
  const imports = {
    'openclaw:session-tools/types': {},
    'openclaw:session-tools/transport': { call: carry, callMany: (list) => list.map(carry) },
    'openclaw:session-tools/runs': { runAccepted: (runId, key) => runs.push([runId, key]), sessionOf: () => undefined },
    ...wasiImports({ stdout: new BoundedOutput(1024), stderr: new BoundedOutput(1024) }),
  };
  const api = instantiate((f) => modules[f], imports, (m, i) => new WebAssembly.Instance(m, i));
  api.wire.configure({ protocol, maxAnswerBytes });
  return { api, asked, runs };
}

// jco throws an export's `err` payload as it is.
const rejection = (f) => {
  try {
    f();
  } catch (e) {
    return e;
  }
  assert.fail('expected a gateway error');
};

test('params omit absent values, in camelCase, 64-bit integers as numbers', async () => {
  const { api, asked } = await wireOver(() => ({ ok: {} }));
  api.gateway.sessionsList({ limit: 5, includeGlobal: true });
  api.gateway.agentWait({ runId: 'r', timeoutMs: 30000n });
  api.gateway.sessionsResolve({ sessionId: 'x', includeGlobal: false });
  api.gateway.send({ to: 't', message: 'm', idempotencyKey: 'k', channel: 'discord' });
  assert.deepEqual(
    asked.map((r) => [r.method, r.params]),
    [
      ['sessions.list', { limit: 5, includeGlobal: true }],
      ['agent.wait', { runId: 'r', timeoutMs: 30000 }],
      ['sessions.resolve', { sessionId: 'x', includeGlobal: false }],
      ['send', { to: 't', message: 'm', channel: 'discord', idempotencyKey: 'k' }],
    ],
  );
  assert.equal(asked[1].holdsMs, 30000n, 'agent.wait is held as long as it waits');
  assert.deepEqual(
    asked.map((r) => r.resendSafe),
    [true, true, true, true],
  );
});

test('answers are untrusted: rows of the wrong shape are dropped, fields of the wrong type absent', async () => {
  const sessions = [{ key: '' }, { key: 3 }, 'x', { key: 'k', label: 7, updatedAt: 1e300, deliveryContext: { threadId: 42 } }, { key: 'c', parentSessionKey: 'p' }];
  const { api } = await wireOver((method) => ({ ok: method === 'sessions.list' ? { path: 5, sessions } : { sessionId: 's', messages: [{ role: 'user' }, 'odd'] } }));
  const list = api.gateway.sessionsList({});
  assert.equal(list.path, undefined);
  assert.deepEqual(
    list.sessions.map((r) => r.key),
    ['k', 'c'],
  );
  assert.equal(list.sessions[0].label, undefined);
  assert.equal(list.sessions[0].updatedAt, 2n ** 63n - 1n, 'a huge time is clamped into s64');
  assert.deepEqual(list.sessions[0].deliveryContext.threadId, { tag: 'number', val: 42 }, 'a thread id keeps its type (N11)');
  assert.equal(list.sessions[1].spawnedBy, 'p', 'E5: parentSessionKey is lineage');
  const h = api.gateway.chatHistory({ sessionKey: 'main' });
  assert.deepEqual(
    h.messages.map((m) => [m.role, m.json]),
    [
      ['user', '{"role":"user"}'],
      [undefined, '"odd"'],
    ],
  );
});

test('an error frame is typed by its code, and the bridge keeps the runs the wire starts', async () => {
  const { api, runs } = await wireOver((method) =>
    method === 'agent'
      ? { ok: { runId: 'r1', status: 'accepted' } }
      : { error: { tag: 'gateway', val: JSON.stringify({ message: 'No session found: agent:main:x' }) } },
  );
  assert.deepEqual(rejection(() => api.gateway.sessionsResolve({ key: 'x' })), { kind: 'not-found', message: 'No session found: agent:main:x' });
  assert.equal(api.tree.exists('x'), false);
  assert.equal(api.gateway.agent({ message: 'm', sessionKey: 'agent:main:a', idempotencyKey: 'k' }).runId, 'r1');
  assert.deepEqual(runs, [['r1', 'agent:main:a']]);
  const timeout = { tag: 'err', val: { tag: 'timeout', val: 'late' } };
  assert.deepEqual(rejection(() => api.wire.decodeWait(timeout)), { kind: 'timeout', message: 'late' });
  assert.equal(api.wire.decodeWait({ tag: 'ok', val: '{"status":"ok","endedAt":2500.7}' }).endedAt, 2500n);
});

test('protocol 4: every list carries its limit, and a spawn makes its child before the run (E5, E6)', async () => {
  const { api, asked } = await wireOver((method) => ({ ok: method === 'agent' ? { runId: 'r' } : { sessions: [] } }), 4);
  api.gateway.sessionsList({ spawnedBy: 'agent:main:main' });
  api.gateway.agent({ message: 'm', sessionKey: 'agent:main:subagent:1', idempotencyKey: 'k', spawnedBy: 'agent:main:main' });
  assert.deepEqual(
    asked.map((r) => [r.method, r.params]),
    [
      ['sessions.list', { limit: 1000, spawnedBy: 'agent:main:main' }],
      ['sessions.create', { key: 'agent:main:subagent:1', agentId: 'main', parentSessionKey: 'agent:main:main' }],
      ['agent', { message: 'm', sessionKey: 'agent:main:subagent:1', idempotencyKey: 'k' }],
    ],
  );
  await assert.rejects(wireOver(() => ({ ok: {} }), 5), (e) => /protocols 3 and 4, not 5/.test(String(e)));
});

test("the wire hands over no answer past the worker's limit, in the Rust host's words (host-rules/vectors)", async () => {
  const { answers } = JSON.parse(readFileSync(join(REPO_DIR, 'host-rules/vectors/job-rules.json'), 'utf8'));
  for (const c of answers) {
    assert.equal(c.method, 'sessions.resolve', 'a key of `size` bytes is an answer of that size');
    const { api } = await wireOver(() => ({ ok: { ok: true, key: 'k'.repeat(c.size) } }), 3, BigInt(c.limit));
    if (c.refused === null) assert.equal(api.gateway.sessionsResolve({ key: 'k' }).length, c.size);
    else assert.deepEqual(rejection(() => api.gateway.sessionsResolve({ key: 'k' })), { kind: 'too-large', message: c.refused });
  }
  // Unbounded when no limit is set (the Rust host bounds what it hands over itself).
  const { api } = await wireOver(() => ({ ok: { ok: true, key: 'k'.repeat(100) } }));
  assert.equal(api.gateway.sessionsResolve({ key: 'k' }).length, 100);
});

test('jobs cross threads and files as JSON and come back the same', () => {
  const jobs = [
    { id: 'a', kind: 'a2a', sessionKey: 's', state: '{}', wake: { tag: 'now' } },
    { id: 'b', kind: 'subagent', sessionKey: 's', state: '{"x":1}', wake: { tag: 'run-end', val: { runId: 'r', timeoutMs: 60000n } } },
    { id: 'c', kind: 'archive', sessionKey: 's', state: '', wake: { tag: 'at', val: 1767229200000n } },
  ];
  // The rules' JSON of a job (`job-rules`' `job-json`, `job-of`), as the worker passes it.
  for (const job of jobs) assert.deepEqual(jobRules().jobOf(jobRules().jobJson(job)), job);
  assert.deepEqual(JSON.parse(jobRules().jobJson(jobs[1])).wake, { type: 'runEnd', wait: { runId: 'r', timeoutMs: 60000 } });
  // A time past what a JSON number holds exactly is kept at the most it holds.
  assert.equal(JSON.parse(jobRules().jobJson({ ...jobs[2], wake: { tag: 'at', val: 2n ** 64n - 1n } })).wake.at, 2 ** 53 - 1);
  assert.throws(() => jobRules().jobOf('{"id": 1}'), (e) => /not a job/.test(String(e?.message ?? e)));
});

test('the caller context takes only known string fields', () => {
  assert.deepEqual(records.callerContext({ agentSessionKey: 'agent:main:main', agentThreadId: 42, sandboxed: 'yes', extra: 1 }), {
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

function module(memorySection) {
  return Uint8Array.from([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0, ...memorySection]);
}

test('the memory cap is written into the module and enforced by the engine', async () => {
  // (module (memory 1)) with no maximum.
  const { bytes, memories } = capModule(module([5, 3, 1, 0, 1]), { memoryBytes: 4 * 65536 });
  assert.deepEqual(memories, [{ min: 1, max: 4 }]);
  assert.deepEqual([...bytes.subarray(8)], [5, 4, 1, 1, 1, 4]);
  // A module exporting its memory: growing past the cap fails inside the engine.
  const exported = Uint8Array.from([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0, 5, 3, 1, 0, 1, 7, 7, 1, 3, 0x6d, 0x65, 0x6d, 2, 0]);
  const instance = await WebAssembly.instantiate(capModule(exported, { memoryBytes: 4 * 65536 }).bytes);
  const memory = instance.instance.exports.mem;
  assert.equal(memory.grow(3), 1);
  assert.throws(() => memory.grow(1), RangeError);
  // A smaller existing maximum stays; a minimum above the cap is refused.
  assert.deepEqual(capModule(module([5, 4, 1, 1, 1, 2]), { memoryBytes: 4 * 65536 }).memories, [{ min: 1, max: 2 }]);
  assert.throws(() => capModule(module([5, 3, 1, 0, 9]), { memoryBytes: 4 * 65536 }), /needs 9 pages/);
  assert.throws(() => capModule(Uint8Array.from([1, 2, 3, 4, 5, 6, 7, 8]), { memoryBytes: 65536 }), /not a core WebAssembly module/);
});

test('the table cap (tableElements) is written into the module and enforced by the engine', async () => {
  // (module (table (export "t") 2 funcref)) with no maximum.
  const exported = Uint8Array.from([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0, 4, 4, 1, 0x70, 0, 2, 7, 5, 1, 1, 0x74, 1, 0]);
  const { bytes, tables } = capModule(exported, { memoryBytes: 65536, tableElements: 5 });
  assert.deepEqual(tables, [{ min: 2, max: 5 }]);
  const table = (await WebAssembly.instantiate(bytes)).instance.exports.t;
  assert.equal(table.grow(3), 2);
  assert.throws(() => table.grow(1), RangeError);
  // Uncapped, the same module grows on; a smaller maximum stays; a minimum above the cap is refused.
  assert.equal((await WebAssembly.instantiate(exported)).instance.exports.t.grow(10), 2);
  assert.deepEqual(capModule(module([4, 5, 1, 0x70, 1, 1, 3]), { memoryBytes: 65536, tableElements: 5 }).tables, [{ min: 1, max: 3 }]);
  assert.throws(() => capModule(module([4, 4, 1, 0x70, 0, 9]), { memoryBytes: 65536, tableElements: 5 }), /table 0 needs 9 elements/);
  assert.throws(() => capModule(module([4, 4, 1, 0x40, 0, 0]), { memoryBytes: 65536, tableElements: 5 }), /table 0 has the type or encoding 64/);
});

test("an instance's tables are capped at its agent's tableElements", async () => {
  const runtime = new Runtime(COMPONENT_DIR);
  const limits = defaultLimits();
  const { modules } = await runtime.load('tools', limits);
  assert.ok(Object.keys(modules).length > 0);
  // The guest's own tables fit the default, and not a cap below what it starts with.
  const starts = Object.values(runtime.part('tools').bytes).flatMap((b) => capModule(b, limits).tables.map((t) => t.min));
  assert.ok(starts.length > 0 && starts.every((n) => n <= limits.tableElements), `${starts}`);
  const most = Math.max(...starts);
  await assert.rejects(runtime.load('tools', { ...limits, tableElements: most - 1 }), new RegExp(`needs ${most} elements`));
});

test("a history read with the plugin SDK is answered by the wire's rule, the rest asked of the gateway (E3, E4)", async () => {
  const { LocalHistories } = await import('../lib/local-histories.mjs');
  const entries = {
    'agent:main:a': { sessionId: 's-a', updatedAt: 1 },
    'agent:main:hidden': { sessionId: 's-h', archivedAt: 5 },
  };
  const events = {
    's-a': [
      { type: 'session', version: 3, id: 's-a' },
      { type: 'message', id: '1', message: { role: 'user', content: '[Discord Acme #general] hi' } },
      { type: 'model_change', id: '2' },
      { type: 'message', id: '3', message: { role: 'assistant', content: [{ type: 'text', text: 'yo' }] } },
    ],
    's-h': [{ type: 'message', id: '1', message: { role: 'user', content: 'secret' } }],
  };
  const asked = [];
  const reader = new LocalHistories({
    // Stand-ins for OpenClaw's functions (a key without an agent throws, as its own does).
    agentOf: (key) => {
      if (!key.startsWith('agent:')) throw new Error('Session key does not contain an agent id');
      return key.split(':')[1];
    },
    getSessionEntry: ({ sessionKey, agentId }) => (agentId === 'main' ? entries[sessionKey] : undefined),
    loadTranscriptEventsSync: ({ sessionId, agentId }) => {
      assert.equal(agentId, 'main');
      asked.push(sessionId);
      if (sessionId === 's-broken') throw new Error('database is locked');
      return events[sessionId];
    },
  });
  const [a, one, hidden, missing, limit] = await reader.read(
    [
      { sessionKey: 'agent:main:a' },
      { sessionKey: 'AGENT:MAIN:A', limit: 1 },
      { sessionKey: 'agent:main:hidden' },
      { sessionKey: 'agent:main:none' },
      { sessionKey: 'agent:main:a', limit: 0 },
    ],
    (key) => key.toLowerCase(),
  );
  assert.deepEqual(parsed(a), {
    sessionKey: 'agent:main:a',
    sessionId: 's-a',
    messages: [
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: [{ type: 'text', text: 'yo' }] },
    ],
  });
  assert.deepEqual(parsed(one).messages, [{ role: 'assistant', content: [{ type: 'text', text: 'yo' }] }]);
  assert.equal(parsed(one).sessionKey, 'AGENT:MAIN:A', 'the answer names the key as asked');
  assert.deepEqual(parsed(hidden), { sessionKey: 'agent:main:hidden', messages: [] }, 'an archived session has no history (E3)');
  assert.deepEqual(parsed(missing), { sessionKey: 'agent:main:none', messages: [] });
  assert.match(limit.error, /limit of 0/, 'a limit the gateway refuses is the gateway\'s to answer');
  entries['agent:main:b'] = { sessionId: 's-broken' };
  const [broken, global] = await reader.read([{ sessionKey: 'agent:main:b' }, { sessionKey: 'global' }]);
  assert.match(broken.error, /database is locked/, 'an SDK error leaves the session to the gateway');
  assert.match(global.error, /agent id/, 'a key without an agent is the gateway\'s to resolve');
  const later = new LocalHistories({ agentOf: () => 'main', getSessionEntry: async () => entries['agent:main:a'], loadTranscriptEventsSync: () => [] });
  assert.match((await later.read([{ sessionKey: 'agent:main:a' }]))[0].error, /asynchronously/, 'an entry promised is not taken for none');

  // A long transcript: only its newest events cross into the component when they hold the
  // limit's messages; all of them when they do not.
  const crossed = [];
  const event = (i, message) => ({ toJSON: () => (crossed.push(i), { type: 'message', id: String(i), ...(message ? { message } : {}) }) });
  entries['agent:main:long'] = { sessionId: 's-long' };
  events['s-long'] = Array.from({ length: 100 }, (_, i) => event(i, { role: 'assistant', content: `m${i}` }));
  const [long] = await reader.read([{ sessionKey: 'agent:main:long', limit: 2 }]);
  assert.deepEqual(parsed(long).messages, [{ role: 'assistant', content: 'm98' }, { role: 'assistant', content: 'm99' }]);
  assert.equal(crossed.length, 2 + 8, `the newest events only: ${crossed}`);
  crossed.length = 0;
  events['s-long'] = Array.from({ length: 100 }, (_, i) => event(i, i === 3 ? { role: 'user', content: 'old' } : undefined));
  const [sparse] = await reader.read([{ sessionKey: 'agent:main:long', limit: 2 }]);
  assert.deepEqual(parsed(sparse).messages, [{ role: 'user', content: 'old' }]);
  assert.equal(crossed.length, 100, 'too few messages among the newest: every event, each written once');
});

test("on January's packages, a history is read with the package's own store and transcript functions, each store once a batch", async () => {
  const { loadHistoryModules } = await import('../lib/gateway-histories.mjs');
  const { LocalHistories } = await import('../lib/local-histories.mjs');
  const { mkdtempSync, mkdirSync, writeFileSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  // Stand-ins for the package's modules, laid out as it lays them out beside `gateway/call.js`.
  const dist = mkdtempSync(join(tmpdir(), 'january-'));
  mkdirSync(join(dist, 'gateway'));
  mkdirSync(join(dist, 'config'));
  const transcript = join(dist, 's-a.jsonl');
  writeFileSync(
    transcript,
    ['{"type":"session","id":"s-a"}', 'not json', '', '{"message":{"role":"user","content":"[Discord Acme #general] hi"}}', '{"message":{"role":"assistant","content":"yo"}}\r', ''].join('\n'),
  );
  const store = { 'agent:main:a': { sessionId: 's-a' }, 'agent:main:gone': { sessionId: 's-gone' } };
  writeFileSync(join(dist, 'gateway/call.js'), '');
  writeFileSync(
    join(dist, 'gateway/session-utils.js'),
    `export const resolveSessionTranscriptCandidates = (id, storePath, file) => [file, ${JSON.stringify(dist)} + '/' + id + '.jsonl'].filter(Boolean);`,
  );
  writeFileSync(
    join(dist, 'config/sessions.js'),
    `globalThis.januaryLoads = 0;
     export const resolveStorePath = (store, { agentId }) => store + '/' + agentId + '/sessions.json';
     export const loadSessionStore = () => (globalThis.januaryLoads++, ${JSON.stringify(store)});`,
  );
  writeFileSync(join(dist, 'config/config.js'), 'export const loadConfig = () => ({ session: { store: "/state" } });');
  const reader = new LocalHistories(await loadHistoryModules(join(dist, 'gateway/call.js')));
  const [a, gone, global, other] = await reader.read([
    { sessionKey: 'agent:main:a' },
    { sessionKey: 'agent:main:gone', limit: 5 },
    { sessionKey: 'global' },
    { sessionKey: 'agent:Main:x' },
  ]);
  assert.deepEqual(parsed(a), {
    sessionKey: 'agent:main:a',
    sessionId: 's-a',
    messages: [
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: 'yo' },
    ],
  });
  assert.deepEqual(parsed(gone), { sessionKey: 'agent:main:gone', sessionId: 's-gone', messages: [] }, 'no transcript file: no messages');
  assert.match(global.error, /no agent in global/, "a key without an agent is the gateway's to resolve");
  assert.match(other.error, /no agent/, "an agent id not in normal form is the gateway's to resolve");
  assert.equal(globalThis.januaryLoads, 1, 'the store is loaded once for the batch');
  await reader.read([{ sessionKey: 'agent:main:a' }]);
  assert.equal(globalThis.januaryLoads, 2, 'and again for the next batch');
});

test("the main thread's wire instances: one per use, and one that trapped is never used again", async () => {
  const { withWire, localHistory, documentsShape } = await import('../lib/wire-codecs.mjs');
  let made = 0;
  const make = () => ({ id: ++made });
  assert.equal(withWire('test-slot', (w) => w.id, make), 1);
  assert.equal(withWire('test-slot', (w) => w.id, make), 1, 'kept');
  assert.throws(() => withWire('test-slot', () => { throw new Error('an err result'); }, make), /an err result/);
  assert.equal(withWire('test-slot', (w) => w.id, make), 1, "an export's error keeps the instance");
  assert.throws(() => withWire('test-slot', () => { throw new WebAssembly.RuntimeError('unreachable'); }, make), WebAssembly.RuntimeError);
  assert.equal(withWire('test-slot', (w) => w.id, make), 2, 'a trap drops it');
  // The real instances: a history and a config read by separate ones, each answering.
  assert.equal(localHistory('k', undefined, [], true, 5), '{"sessionKey":"k","messages":[]}');
  assert.deepEqual(documentsShape({ agents: { list: [{ id: 'main' }] } }), { agents: { list: [{ id: 'main' }] } });
  assert.throws(() => localHistory('k', '{"sessionId":"s"}', [], true, 0), /limit of 0/);
});

test("the SDK reader yields the gateway's thread between slices, with the same answers", async () => {
  const { LocalHistories } = await import('../lib/local-histories.mjs');
  const order = [];
  const busy = (ms) => {
    const until = performance.now() + ms;
    while (performance.now() < until);
  };
  const reader = new LocalHistories({
    agentOf: () => 'main',
    getSessionEntry: ({ sessionKey }) => {
      busy(3);
      order.push(sessionKey);
      return { sessionId: `s-${sessionKey}` };
    },
    loadTranscriptEventsSync: ({ sessionId }) => [{ type: 'message', message: { role: 'user', content: sessionId } }],
  });
  const list = Array.from({ length: 12 }, (_, i) => ({ sessionKey: `agent:main:${i}`, limit: 1 }));
  setImmediate(() => order.push('other work'));
  const sliced = await reader.read(list, (k) => k, 10);
  const other = order.indexOf('other work');
  assert.ok(other > 0 && other < order.length - 1, `the other work ran between slices: ${order}`);
  assert.deepEqual(sliced, await reader.read(list, (k) => k, Infinity), 'the same answers as read at once');
  assert.deepEqual(parsed(sliced[11]).messages, [{ role: 'user', content: 's-agent:main:11' }]);
});
