// The sandbox of part 2, shown with the hostile test component (tests/hostile-guest):
// CPU deadline, memory cap, traps, no ambient authority, bounded output and gateway use.
// The same properties as tests/hostile.rs shows for the Rust host.

import { test } from 'node:test';
import assert from 'node:assert/strict';

import { CallError } from '../lib/sandbox.mjs';
import { buildComponent } from '../scripts/build-component.mjs';
import { hostileRuntime, hostileWasm, recorder, testLimits } from './helpers.mjs';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A gateway that answers every resolve, counting them, and records waits. */
function stubGateway() {
  const stub = { resolves: 0, waits: [] };
  stub.call = async (method, params) => {
    if (method === 'sessions.resolve') {
      stub.resolves += 1;
      return { key: 'agent:main:main' };
    }
    if (method === 'agent.wait') {
      stub.waits.push(params.timeoutMs);
      await new Promise((r) => setTimeout(r, Math.min(params.timeoutMs, 200)));
      return { runId: params.runId, status: 'timeout' };
    }
    return {};
  };
  stub.histories = async (list) => list.map(() => ({ ok: { messages: [] } }));
  return stub;
}

async function sandbox(limits = testLimits()) {
  const runtime = await hostileRuntime();
  const rec = recorder();
  const stub = stubGateway();
  const s = await runtime.instantiate({ name: 'hostile', gateway: stub, limits, log: rec.log, config: { json: '{}', stateDir: '/state' } });
  return { s, stub, rec };
}

const caller = { agentSessionKey: 'agent:main:main', sandboxed: false };

async function call(s, tool, args = {}) {
  return JSON.parse((await s.callTool(tool, caller, JSON.stringify(args))).result);
}

async function rejects(promise) {
  try {
    await promise;
  } catch (e) {
    return e;
  }
  assert.fail('expected the call to fail');
}

test('a spinning guest is stopped at its CPU deadline while another agent keeps answering', async () => {
  const { s: spinner, rec } = await sandbox();
  const { s: other } = await sandbox();
  try {
    assert.deepEqual(await call(spinner, 'ok'), { ok: true, calls: 1 });
    const started = performance.now();
    let done = false;
    const spin = call(spinner, 'spin').then(
      () => assert.fail('the spin returned'),
      (e) => {
        done = true;
        return e;
      },
    );
    let answered = 0;
    let slowest = 0;
    while (!done) {
      const t = performance.now();
      assert.deepEqual(await call(other, 'ok'), { ok: true, calls: answered + 1 });
      slowest = Math.max(slowest, performance.now() - t);
      answered += 1;
    }
    const error = await spin;
    const elapsed = performance.now() - started;
    assert.ok(error instanceof CallError && error.kind === 'cpu_limit', String(error));
    assert.equal(error.message, 'the tool used up its CPU budget of 300 ms and was stopped');
    assert.ok(elapsed >= 300 && elapsed < 3000, `stopped after ${elapsed} ms`);
    assert.ok(spinner.broken instanceof CallError, 'a runaway instance is discarded');
    assert.ok(answered >= 5, `the other agent answered only ${answered} calls while the spinner ran ${elapsed} ms`);
    assert.ok(slowest < 1000, `the other agent's slowest call took ${slowest} ms`);
    assert.ok(rec.lines.includes('[hostile] the tool used up its CPU budget of 300 ms and was stopped; the instance is discarded'), rec.lines.join('\n'));
    // The discarded instance answers nothing more, with the same error.
    assert.equal((await rejects(call(spinner, 'ok'))).message, error.message);
  } finally {
    spinner.close();
    other.close();
  }
});

test('a guest allocating without bound is stopped at its memory cap', async () => {
  const { s: hog } = await sandbox();
  try {
    const started = performance.now();
    const error = await rejects(call(hog, 'hog'));
    assert.ok(error instanceof CallError && error.kind === 'memory_limit', String(error));
    assert.equal(error.message, 'the tool exceeded its memory limit of 32 MiB and was stopped');
    assert.ok(performance.now() - started < 3000);
    assert.ok(hog.broken instanceof CallError);
    assert.equal((await rejects(call(hog, 'ok'))).message, error.message, 'a discarded instance answers nothing more');
  } finally {
    hog.close();
  }
  // The cap is the agent's: a larger one lets the same guest grow further before it is stopped.
  const { s: big } = await sandbox(testLimits({ memoryBytes: 64 * 2 ** 20, cpuMs: 3000 }));
  try {
    assert.equal((await rejects(call(big, 'hog'))).message, 'the tool exceeded its memory limit of 64 MiB and was stopped');
  } finally {
    big.close();
  }
});

test('a trap or a stack overflow discards the instance for good', async () => {
  for (const [tool, trap] of [
    ['trap', /^the tool crashed: wasm trap: wasm `unreachable` instruction executed \(while calling trap\)$/],
    ['unreachable', /^the tool crashed: wasm trap: wasm `unreachable` instruction executed \(while calling unreachable\)$/],
    ['deep', /^the tool crashed: stack overflow: .*call stack.* \(while calling deep\)$/],
  ]) {
    const { s, rec } = await sandbox();
    try {
      assert.deepEqual(await call(s, 'ok'), { ok: true, calls: 1 });
      const error = await rejects(call(s, tool));
      assert.ok(error instanceof CallError && error.kind === 'trap' && error.discardsInstance, `${tool}: ${error}`);
      assert.match(error.message, trap, tool);
      assert.ok(s.broken instanceof CallError, tool);
      assert.equal((await rejects(call(s, 'ok'))).message, error.message, `${tool}: the broken instance answers the same`);
      assert.equal((await rejects(s.describe())).message, error.message, tool);
      assert.ok(rec.lines.includes(`[hostile] ${error.message}; the instance is discarded`), rec.lines.join('\n'));
      if (tool === 'trap') {
        // The panic message went to stderr, and from there to the host's log.
        assert.ok(rec.lines.some((l) => l.startsWith('[hostile] guest: ') && l.includes('hostile guest panics on purpose')), rec.lines.join('\n'));
      }
    } finally {
      s.close();
    }
  }
});

test('the guest finds no environment, even with a gateway token in the process', async () => {
  process.env.OPENCLAW_GATEWAY_TOKEN = 'a-secret-gateway-token';
  process.env.CLAWDBOT_GATEWAY_TOKEN = 'another-secret';
  const { s } = await sandbox();
  try {
    assert.deepEqual(await call(s, 'env'), { vars: [], args: [], stdin: { read: true, bytes: 0 } });
  } finally {
    s.close();
    delete process.env.OPENCLAW_GATEWAY_TOKEN;
    delete process.env.CLAWDBOT_GATEWAY_TOKEN;
  }
});

test("the guest's output is bounded per call", async () => {
  // Some 7,000 import calls (a stdio write is three): more than 300 ms of jco's glue, and
  // over a second of wall time on a loaded machine (the wall limit is not what is tested).
  const { s, rec } = await sandbox(testLimits({ cpuMs: 5000, wallMs: 30_000 }));
  try {
    assert.deepEqual(await call(s, 'shout'), { shouted: true });
    // 1 MiB each on stdout, stderr and the log import; 16 KiB of each is kept.
    const perCall = 16 * 1024;
    const written = 1024 * 1025;
    assert.ok(rec.lines.includes(`[hostile] guest output: ${written - perCall} bytes dropped`), rec.lines.slice(-5).join('\n'));
    assert.equal(rec.lines.filter((l) => l.startsWith('[hostile] guest output: ')).length, 2);
    assert.ok(rec.lines.includes(`[hostile] guest log: ${1024 * 1024 - perCall} bytes dropped`));
    assert.equal(rec.lines.filter((l) => l.startsWith('[hostile] xxx')).length, perCall / 1024);
    const kept = rec.lines.reduce((n, l) => n + l.length, 0);
    assert.ok(kept < 4 * perCall, `${kept} bytes of log for one call`);
  } finally {
    s.close();
  }
});

test('oversized and invalid answers are refused without breaking the instance', async () => {
  const max = 4 * 2 ** 20;
  const { s } = await sandbox(testLimits({ cpuMs: 5000 }));
  try {
    assert.equal((await call(s, 'huge', { bytes: max })).length, max - 2);
    assert.equal((await rejects(call(s, 'huge', { bytes: max + 1 }))).message, `tool result too large: ${max + 1} bytes (the limit is ${max})`);
    const bad = await rejects(call(s, 'bad-json'));
    assert.ok(bad.kind === 'bad_answer' && bad.message.startsWith('the tool answered something invalid: the result is not JSON'), bad.message);
    const big = 'x'.repeat(2 ** 20);
    const tooBig = await rejects(s.callTool('ok', caller, JSON.stringify(big)));
    assert.equal(tooBig.message, `tool arguments too large: ${2 ** 20 + 2} bytes (the limit is ${2 ** 20})`);
    assert.equal(s.broken, null);
    assert.deepEqual(await call(s, 'ok'), { ok: true, calls: 4 });
  } finally {
    s.close();
  }
});

test("a gateway answer past the agent's limit is refused by the wire, in the Rust host's words, and logged", async () => {
  const { s, stub, rec } = await sandbox(testLimits({ maxGatewayAnswerBytes: 5 }));
  try {
    const refused = 'gateway answer too large: sessions.resolve returned 15 bytes (the limit is 5)';
    assert.deepEqual(await call(s, 'flood', { import: 'resolve', stopOnError: true }), { calls: 1, error: refused });
    assert.equal(stub.resolves, 1);
    assert.ok(rec.lines.includes(`[hostile] ${refused}`), rec.lines.join('\n'));
    assert.equal(s.broken, null);
  } finally {
    s.close();
  }
});

test('a flood of gateway calls is cut at the per-call limit, then by the CPU deadline', async () => {
  const { s, stub } = await sandbox();
  try {
    assert.deepEqual(await call(s, 'flood', { import: 'resolve', stopOnError: true }), {
      calls: 101,
      error: 'too many gateway calls in one call (the limit is 100)',
    });
    assert.equal(stub.resolves, 100, 'the gateway saw only the calls within the limit');
    assert.equal((await call(s, 'flood', { import: 'resolve', stopOnError: true })).calls, 101, 'the count is per call');
    const started = performance.now();
    assert.equal((await rejects(call(s, 'flood', { import: 'resolve' }))).kind, 'cpu_limit');
    assert.ok(performance.now() - started < 3000);
    assert.equal(stub.resolves, 300);
  } finally {
    s.close();
  }
  // Clock reads are no gateway calls: the CPU deadline stops that loop.
  const { s: clock, stub: quiet } = await sandbox();
  try {
    assert.equal((await rejects(call(clock, 'flood', { import: 'now-ms' }))).kind, 'cpu_limit');
    assert.equal(quiet.resolves, 0);
  } finally {
    clock.close();
  }
});

test('waits on the gateway are cut to the wall limit and to the gateway time', async () => {
  const { s, stub } = await sandbox();
  try {
    const started = performance.now();
    const error = await rejects(call(s, 'flood', { import: 'wait' }));
    const elapsed = performance.now() - started;
    assert.equal(error.message, 'the tool took longer than its time limit of 1000 ms and was stopped');
    // libuv schedules timers from its cached loop time, which can lag the clock by a
    // millisecond: a 1000 ms timer may fire 999.7 ms after a `performance.now()` taken before.
    assert.ok(elapsed >= 995 && elapsed < 3000, `${elapsed}`);
    assert.ok(stub.waits.length > 0 && stub.waits.every((w) => w <= 1000), stub.waits.join(','));
  } finally {
    s.close();
  }
  const { s: g, stub: gstub } = await sandbox(testLimits({ wallMs: 30_000, gatewayMs: 700 }));
  try {
    const answer = await call(g, 'flood', { import: 'wait', stopOnError: true });
    assert.match(answer.error, /the call spent its gateway time/);
    assert.ok(gstub.waits.every((w) => w <= 700), gstub.waits.join(','));
    assert.equal(g.broken, null);
  } finally {
    g.close();
  }
});

test('a component that imports the file system is refused at build', async () => {
  const out = mkdtempSync(join(tmpdir(), 'session-tools-fs-'));
  await assert.rejects(buildComponent({ tools: hostileWasm(true) }, out, { describe: false }), /imports wasi:filesystem\/.*a guest gets no files/);
});
