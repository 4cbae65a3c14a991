// Background work exactly once in effect across a stop, in the plugin's job service (issue
// 20, as tests/exactly_once.rs for the Rust host): a call killed after its intent and its
// first write is made again once by the next process with the same keys, which the
// gateway drops; a job step made again from the state a stopped process left sends the
// same keys; the jobs of a call still in flight elsewhere wait; no side effect without its
// intent on disk; a graceful stop lets the call and the step in flight end before the
// gateway connection goes, and a second stop is the same stop.
//
// Every test is driven by events (a call held at a gateway request until the test lets it
// go, a process killed at a given request), never by timing.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

import { jobRules } from '../lib/guard.mjs';
import { IntentRecorder } from '../lib/intent.mjs';
import { DirJobStore, JobRunner, readJob } from '../lib/jobs.mjs';
import { holderIsGone, ownIdentity } from '../lib/owner-lock.mjs';
import { AgentLimits } from '../lib/limits.mjs';
import { Runtime } from '../lib/sandbox.mjs';
import { callerContext } from '../lib/records.mjs';
import { ANNOUNCE, FlowGateway, flowService, jobFiles, jobsDirOf, REQUESTER, SEND, TARGET } from './flows.mjs';
import { REPO_DIR } from '../scripts/build-component.mjs';
import { COMPONENT_DIR, recorder } from './helpers.mjs';

const KILLED_CALL = fileURLToPath(new URL('./killed-call.mjs', import.meta.url));
const runtime = new Runtime(COMPONENT_DIR);
const writes = (calls) => calls.filter((c) => c.method === 'agent' || c.method === 'send');
const stateDir = () => mkdtempSync(join(tmpdir(), 'session-tools-once-'));
const callsOf = (dir) => {
  try {
    return readdirSync(join(jobsDirOf(dir), 'calls'));
  } catch {
    return [];
  }
};

/** A point where a gateway request is held until `release()`; `reached` once it is. */
function hold() {
  let reached;
  let release;
  const point = { reached: new Promise((r) => (reached = r)), released: new Promise((r) => (release = r)) };
  point.arrive = async () => {
    reached();
    await point.released;
  };
  point.release = release;
  return point;
}

test('a call killed after its intent and first write is made again once, with the same keys, and the gateway drops the repeat', { timeout: 120_000 }, async () => {
  const dir = stateDir();
  const record = join(dir, 'received.jsonl');
  const killed = spawnSync(process.execPath, [KILLED_CALL, dir, record], { encoding: 'utf8', timeout: 60_000 });
  assert.equal(killed.signal, 'SIGKILL', `the process died at its first agent call\n${killed.stderr}`);
  const received = readFileSync(record, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
  const [first] = writes(received);
  assert.equal(writes(received).length, 1);
  assert.equal(first.method, 'agent');

  // What the dead process left: its intent, under a lock naming it, and no job yet.
  const jobsDir = jobsDirOf(dir);
  const [intentFile] = callsOf(dir).filter((n) => n.endsWith('.json'));
  const intent = JSON.parse(readFileSync(join(jobsDir, 'calls', intentFile), 'utf8'));
  assert.equal(intent.tool, 'sessions_send');
  assert.equal(intent.replays, 0);
  assert.equal(JSON.parse(readFileSync(join(jobsDir, 'calls', `${intentFile}.lock`), 'utf8')).pid, killed.pid);
  assert.deepEqual(jobFiles(jobsDir), []);

  // The gateway had taken that request: its run is going, its message in the transcript.
  const gateway = new FlowGateway();
  await gateway.call('agent', first.params);
  gateway.calls.length = 0;

  const rec = recorder();
  const next = flowService(runtime, dir, gateway, rec.log);
  try {
    await next.jobs.runReady();
  } finally {
    await next.stop();
  }
  const made = writes(gateway.calls);
  assert.deepEqual(made[0], first, 'the call made again sent the very same request (its ids are seeded by its intent)');
  assert.ok(rec.lines.some((l) => l.includes(`making call ${intent.id} (sessions_send) again`)), rec.lines.join('\n'));
  assert.deepEqual(
    gateway.transcript(TARGET).filter((m) => m === 'user: ping'),
    ['user: ping'],
    'the target got the message once: the gateway dropped the repeated key',
  );
  // The flow the call started went on to its end, once.
  assert.equal(gateway.outbox.length, 1, JSON.stringify(gateway.outbox));
  assert.equal(gateway.outbox[0].message, 'ops answered the ping');
  assert.deepEqual(callsOf(dir), [], 'the intent and its lock are gone');
  assert.deepEqual(jobFiles(jobsDir), []);
  assert.equal(new Set(made.map((c) => c.params.idempotencyKey)).size, made.length, 'each write had a key of its own');
});

test('a job step made again from the state a stopped process left sends the same keys, and the gateway drops the repeats', { timeout: 60_000 }, async () => {
  const dir = stateDir();
  const jobsDir = jobsDirOf(dir);
  const gateway = new FlowGateway();
  // The job files as they are when the announce step begins: what a process that died
  // during that step leaves.
  let kept = null;
  gateway.before = (method, params) => {
    if (method === 'agent' && params.message === ANNOUNCE && !kept) kept = jobFiles(jobsDir).map((n) => [n, readFileSync(join(jobsDir, n), 'utf8')]);
  };
  const first = flowService(runtime, dir, gateway);
  try {
    await first.call({ agentSessionKey: REQUESTER }, 'sessions_send', SEND);
    await first.jobs.runReady();
  } finally {
    await first.stop();
  }
  assert.ok(kept?.length === 1, 'the announce step was made, from one kept job');
  const firstWrites = writes(gateway.calls);
  assert.deepEqual(firstWrites.map((c) => c.method), ['agent', 'agent', 'agent', 'send'], 'send, one ping-pong turn, the announce step, its delivery');
  assert.equal(gateway.outbox.length, 1);

  for (const [name, text] of kept) writeFileSync(join(jobsDir, name), text);
  const before = gateway.calls.length;
  const again = flowService(runtime, dir, gateway);
  try {
    await again.jobs.runReady();
  } finally {
    await again.stop();
  }
  const repeated = writes(gateway.calls.slice(before));
  assert.deepEqual(repeated, firstWrites.slice(2), 'the announce step and its delivery were made again with the requests of their first making');
  assert.equal(gateway.outbox.length, 1, 'the repeated delivery was dropped');
  assert.equal(gateway.transcript(TARGET).filter((m) => m === `user: ${ANNOUNCE}`).length, 1, 'the repeated announce step was not appended');
  assert.deepEqual(jobFiles(jobsDir), []);
});

test("a step's new jobs are kept under keys derived from the step, once however often it is made", async () => {
  const store = new DirJobStore(stateDir());
  const runner = new JobRunner(store, {
    limits: new AgentLimits(),
    now: () => 0,
    log: () => {},
    resume: async (record) => [
      { id: record.id, kind: record.kind, sessionKey: record.sessionKey, state: 'next', wake: record.wake },
      { id: 'helper', kind: 'archive', sessionKey: record.sessionKey, state: `from ${record.state}`, wake: { type: 'at', at: 5 } },
    ],
    wait: async () => ({ ok: {} }),
  });
  const parent = { key: 'k1', id: 'flow', kind: 'a2a', sessionKey: REQUESTER, state: 'start', wake: { type: 'now' }, agent: 'main', caller: {}, steps: 3 };
  await runner.step(parent, { type: 'now' });
  // The successor key of the Rust host (`host-rules/src/keys.rs`), computed here on its own.
  const helperKey = createHash('sha256').update('k1/3/1').digest('hex').slice(0, 32);
  assert.deepEqual(runner.pending().map((r) => [r.key, r.state, r.steps]).sort(), [['k1', 'next', 4], [helperKey, 'from start', 4]].sort());
  // The step made again (its process stopped before it was done): the new job is kept
  // under the same key, not a second time, and what was kept is left as it is.
  store.write(helperKey, store.read(helperKey).replace('"from start"', '"moved on"'));
  await runner.step({ ...parent, state: 'start again' }, { type: 'now' });
  assert.equal(runner.pending().length, 2);
  assert.equal(readJob(helperKey, store.read(helperKey)).state, 'moved on');
});

test('the jobs of a call whose intent a live process holds wait, and the call is not made again', { timeout: 60_000 }, async () => {
  const dir = stateDir();
  const jobsDir = jobsDirOf(dir);
  const gateway = new FlowGateway();
  const svc = flowService(runtime, dir, gateway);
  try {
    await svc.call({ agentSessionKey: REQUESTER }, 'sessions_send', SEND);
    const [job] = svc.jobs.pending();
    assert.match(job.key, /^[0-9a-f]{32}-0$/, 'a call that wrote keeps its jobs under its intent');
    assert.equal(job.key, `${job.call}-0`);
    // The call is in flight in another process of this machine (here: this one) that has
    // not yet kept its jobs.
    const intent = { id: job.call, agent: 'main', caller: callerContext({ agentSessionKey: REQUESTER }), tool: 'sessions_send', arguments: SEND, replays: 0 };
    const other = new IntentRecorder(job.call, JSON.stringify(intent), new DirJobStore(jobsDir).calls);
    other.beforeWrite();
    const seen = gateway.calls.length;
    assert.equal(await svc.jobs.runReady(), 0);
    assert.equal(gateway.calls.length, seen, 'neither stepped nor made again');
    assert.deepEqual(svc.jobs.pending(), [job]);
    other.take().done();
    assert.ok((await svc.jobs.runReady()) > 0);
    assert.deepEqual(jobFiles(jobsDir), []);
    assert.equal(gateway.outbox.length, 1);
  } finally {
    await svc.stop();
  }
});

test('an intent made again once already is dropped, and an unreadable one kept aside, never made blindly', { timeout: 60_000 }, async () => {
  const dir = stateDir();
  const calls = join(jobsDirOf(dir), 'calls');
  mkdirSync(calls, { recursive: true });
  const caller = callerContext({ agentSessionKey: REQUESTER });
  const twice = { id: 'aa11bb22cc33dd44ee55ff6600778899', agent: 'main', caller, tool: 'sessions_send', arguments: SEND, replays: 1 };
  writeFileSync(join(calls, `${twice.id}.json`), JSON.stringify(twice));
  writeFileSync(join(calls, '0123456789abcdef0123456789abcdef.json'), '{"id": "0123456789abcdef0123456789abcdef", "tool":');
  const gateway = new FlowGateway();
  const rec = recorder();
  const svc = flowService(runtime, dir, gateway, rec.log);
  try {
    assert.equal(await svc.jobs.runReady(), 0);
  } finally {
    await svc.stop();
  }
  assert.deepEqual(gateway.calls, []);
  assert.ok(rec.lines.some((l) => l.includes(`call ${twice.id} (sessions_send) stopped twice before its jobs were kept; it is dropped`)), rec.lines.join('\n'));
  assert.deepEqual(readdirSync(calls), ['0123456789abcdef0123456789abcdef.json.unreadable']);
});

test('no side effect without its intent on disk; a call that only reads writes none', { timeout: 60_000 }, async () => {
  const dir = stateDir();
  const gateway = new FlowGateway();
  const svc = flowService(runtime, dir, gateway);
  try {
    await svc.call({ agentSessionKey: REQUESTER }, 'sessions_list', '{}');
    assert.deepEqual(readdirSync(dir), [], 'a call that only reads keeps nothing');
    // The intents' directory cannot be made: the write is refused, the call says why.
    mkdirSync(jobsDirOf(dir), { recursive: true });
    writeFileSync(join(jobsDirOf(dir), 'calls'), 'in the way');
    const sent = JSON.parse(await svc.call({ agentSessionKey: REQUESTER }, 'sessions_send', SEND));
    assert.equal(sent.status, 'error', JSON.stringify(sent));
    assert.match(sent.error, /cannot record the call's intent/);
    assert.deepEqual(writes(gateway.calls), [], 'no agent call was made');
  } finally {
    await svc.stop();
  }
});

test('a job another process has claimed is not stepped here; once that process is gone, its claim is broken', { timeout: 60_000 }, async () => {
  const dir = stateDir();
  const jobsDir = jobsDirOf(dir);
  const gateway = new FlowGateway();
  const svc = flowService(runtime, dir, gateway);
  // Another process that runs jobs over the same directory claims the job and holds it.
  const jobs = pathToFileURL(fileURLToPath(new URL('../lib/jobs.mjs', import.meta.url))).href;
  let other = null;
  try {
    await svc.call({ agentSessionKey: REQUESTER }, 'sessions_send', SEND);
    const [job] = svc.jobs.pending();
    const holder = `
      import { DirJobStore } from ${JSON.stringify(jobs)};
      const claim = new DirJobStore(${JSON.stringify(jobsDir)}).claim(${JSON.stringify(job.key)});
      console.log(claim ? 'claimed' : 'refused');
      setInterval(() => {}, 60_000);
    `;
    other = spawn(process.execPath, ['--input-type=module', '-e', holder], { stdio: ['ignore', 'pipe', 'inherit'] });
    const [said] = await once(other.stdout, 'data');
    assert.equal(said.toString().trim(), 'claimed');
    assert.equal(new DirJobStore(jobsDir).claim(job.key), null, 'a live holder keeps it');
    const seen = gateway.calls.length;
    assert.equal(await svc.jobs.runReady(), 0);
    assert.equal(gateway.calls.length, seen, 'neither waited for nor stepped');
    other.kill('SIGKILL');
    await once(other, 'exit');
    other = null;
    assert.ok((await svc.jobs.runReady()) > 0, 'stepped once its holder is gone');
    assert.deepEqual(jobFiles(jobsDir), []);
    assert.deepEqual(readdirSync(jobsDir).filter((n) => n.endsWith('.lock')), [], 'no claim is left behind');
    assert.equal(gateway.outbox.length, 1);
  } finally {
    other?.kill('SIGKILL');
    await svc.stop();
  }
});

test('a job claimed by this process (another scheduler) is not claimed twice; a claim is released once', () => {
  const store = new DirJobStore(stateDir());
  store.write('k', JSON.stringify({ id: 'flow', kind: 'a2a', sessionKey: REQUESTER, state: '{}', agent: 'main', caller: {}, wake: { type: 'now' } }));
  const claim = store.claim('k');
  assert.equal(claim.value.id, 'flow');
  assert.equal(store.claim('k'), null);
  claim.release();
  const again = store.claim('k');
  assert.ok(again, 'released, it may be claimed again');
  claim.release();
  assert.equal(store.claim('k'), null, "a second release of the first claim does not free the second one's");
  again.release();
  assert.equal(store.claim('gone'), null, 'a job that ended');
});

test('pending jobs are looked at and woken as the shared cases say (host-rules/vectors/job-rules.json)', () => {
  const v = JSON.parse(readFileSync(join(REPO_DIR, 'host-rules/vectors/job-rules.json'), 'utf8'));
  assert.ok(v.lookAtJobs.length > 0 && v.wakeupOf.length > 0, 'the vector has its cases');
  for (const c of v.lookAtJobs) {
    const look = jobRules().lookAtJobs(c.files, c.intents, BigInt(c.nowMs));
    const keys = look.pending.map((text) => JSON.parse(text).key);
    assert.deepEqual(keys, c.pending, c.about);
    assert.deepEqual(Array.from(look.due, (i) => keys[i]), c.due, c.about);
    assert.equal(look.nextAt, c.nextAt === null ? undefined : BigInt(c.nextAt), c.about);
    assert.deepEqual(look.unreadable.map(([key]) => key), c.unreadable, c.about);
  }
  for (const c of v.wakeupOf) {
    const left = c.leftMs === null ? undefined : BigInt(c.leftMs);
    const plan = jobRules().wakeupOf(JSON.stringify(c.wake), BigInt(c.nowMs), BigInt(c.maxWaitMs), left);
    const wanted = c.plan.val === undefined ? { tag: c.plan.tag } : { tag: c.plan.tag, val: [BigInt(c.plan.val[0]), c.plan.val[1]] };
    assert.deepEqual(plan.val === undefined ? { tag: plan.tag } : plan, wanted, c.about);
  }
});

test('a lock holder is judged gone only when that can be told', () => {
  const own = ownIdentity();
  const holderIsGoneOf = (owner) => holderIsGone(JSON.stringify(owner));
  assert.equal(holderIsGoneOf(own), false, 'this process');
  assert.equal(holderIsGoneOf({ ...own, host: `not-${hostname()}` }), false, 'another host cannot be told');
  assert.equal(holderIsGone('{"pid":'), true, 'an unreadable owner');
  const ended = spawnSync(process.execPath, ['-e', ''], { encoding: 'utf8' });
  assert.equal(ended.status, 0);
  assert.equal(holderIsGoneOf({ ...own, pid: ended.pid }), true, 'a process that has ended');
  if (own.boot !== undefined) {
    // Linux: a pid used again by another process, a boot that is over, another namespace.
    assert.equal(holderIsGoneOf({ ...own, started: '1' }), true);
    assert.equal(holderIsGoneOf({ ...own, boot: 'an earlier boot' }), true);
    assert.equal(holderIsGoneOf({ ...own, pid: ended.pid, pidNamespace: 'pid:[1]' }), false);
  } else {
    assert.equal(holderIsGoneOf({ ...own, bootedAt: own.bootedAt - 3_600_000 }), true);
  }
});

test('a graceful stop lets the call in flight end and keep its jobs before the gateway goes; a second stop is the same stop', { timeout: 60_000 }, async () => {
  const dir = stateDir();
  const jobsDir = jobsDirOf(dir);
  const gateway = new FlowGateway();
  const point = hold();
  gateway.before = (method) => (method === 'agent' ? point.arrive() : undefined);
  let atClose = null;
  gateway.close = () => {
    atClose = { jobs: jobFiles(jobsDir), calls: callsOf(dir) };
  };
  const svc = flowService(runtime, dir, gateway);
  svc.startScheduler();
  const call = svc.call({ agentSessionKey: REQUESTER }, 'sessions_send', SEND);
  await point.reached;
  const first = svc.stop();
  const second = svc.stop();
  await assert.rejects(svc.call({ agentSessionKey: REQUESTER }, 'sessions_list', '{}'), /stopping/);
  assert.equal(atClose, null);
  point.release();
  assert.equal(JSON.parse(await call).status, 'accepted');
  assert.deepEqual(await Promise.all([first, second]), [true, true]);
  assert.equal(atClose?.jobs.length, 1, 'the call had kept its job when the gateway connection went');
  assert.deepEqual(atClose.calls, [], 'and let its intent go');
  assert.equal(JSON.parse(readFileSync(join(jobsDir, atClose.jobs[0]), 'utf8')).wake.type, 'runEnd', 'left waiting for the next process');
});

test('a graceful stop lets the job step in flight end and keep what follows; nothing starts after it', { timeout: 60_000 }, async () => {
  const dir = stateDir();
  const jobsDir = jobsDirOf(dir);
  const gateway = new FlowGateway();
  const svc = flowService(runtime, dir, gateway);
  await svc.call({ agentSessionKey: REQUESTER }, 'sessions_send', SEND);
  // The ping-pong turn's run is started by a job step: held there.
  const point = hold();
  gateway.before = (method, params) => (method === 'agent' ? point.arrive(params) : undefined);
  let atClose = null;
  gateway.close = () => {
    atClose = { jobs: jobFiles(jobsDir), calls: gateway.calls.length };
  };
  svc.startScheduler();
  await point.reached;
  const stopped = svc.stop();
  point.release();
  assert.equal(await stopped, true);
  assert.equal(atClose?.jobs.length, 1);
  const job = JSON.parse(readFileSync(join(jobsDir, atClose.jobs[0]), 'utf8'));
  assert.equal(JSON.parse(job.state).phase.phase, 'awaitTurn', `the step kept its state: ${job.state}`);
  assert.equal(job.wake.type, 'runEnd');
  const last = gateway.calls.at(-1);
  assert.equal(last.method, 'agent', 'nothing was asked after the step in flight');
  assert.equal(last.params.message, 're: ping');
  assert.equal(atClose.calls, gateway.calls.length);
});

test('a stop past its grace answers false and leaves the work in flight alone until it ends', { timeout: 60_000 }, async () => {
  const dir = stateDir();
  const gateway = new FlowGateway();
  const point = hold();
  gateway.before = (method) => (method === 'agent' ? point.arrive() : undefined);
  let closed = false;
  gateway.close = () => {
    closed = true;
  };
  const svc = flowService(runtime, dir, gateway);
  const call = svc.call({ agentSessionKey: REQUESTER }, 'sessions_send', SEND);
  await point.reached;
  assert.equal(await svc.stop({ graceMs: 20 }), false);
  assert.equal(closed, false, 'the call in flight keeps its gateway');
  point.release();
  assert.equal(JSON.parse(await call).status, 'accepted');
  assert.equal(await svc.stop(), true);
  assert.equal(closed, true);
});

test('a graceful stop abandons a wait in flight: nothing is done for it, its job stays for the next process', { timeout: 60_000 }, async () => {
  const dir = stateDir();
  const jobsDir = jobsDirOf(dir);
  const gateway = new FlowGateway();
  const svc = flowService(runtime, dir, gateway);
  await svc.call({ agentSessionKey: REQUESTER }, 'sessions_send', SEND);
  const [name] = jobFiles(jobsDir);
  const kept = readFileSync(join(jobsDir, name), 'utf8');
  const point = hold();
  gateway.before = (method) => (method === 'agent.wait' ? point.arrive() : undefined);
  svc.startScheduler();
  await point.reached;
  assert.equal(await svc.stop(), true, 'the stop does not wait for the wait');
  const seen = gateway.calls.length;
  point.release();
  // The wait's answer comes back through promise continuations only: one turn of the event
  // loop later a step would have started (and be counted in flight).
  await new Promise((r) => setImmediate(r));
  await svc.jobs.settle();
  // The held wait itself is recorded once answered; nothing after it.
  assert.deepEqual(gateway.calls.slice(seen).map((c) => c.method), ['agent.wait'], 'no step was made for the wait that ended after the stop');
  assert.equal(readFileSync(join(jobsDir, name), 'utf8'), kept);
});
