// One sandboxed instance of the component, alone in a worker thread (loaded by Node
// itself, never by the gateway's module loader).
//
// The component's imports are plain synchronous functions (jco), and the gateway is
// asynchronous, on the main thread: a gateway import posts its request to the main thread
// and blocks on `Atomics.wait` until the main thread has posted the answer on a port of its
// own, which this thread then reads synchronously (`receiveMessageOnPort`). The main thread
// bounds every call (CPU and wall deadlines, gateway calls and time) and terminates this
// thread when the guest breaks a limit: nothing here has to be trusted to stop.

import { parentPort, receiveMessageOnPort, workerData } from 'node:worker_threads';
import { randomUUID } from 'node:crypto';

import { SeededIds } from './ids.mjs';
import * as wire from './wire.mjs';
import { BoundedOutput, GuestExit, wasiImports } from './wasi.mjs';

const { componentJs, modules, signal, replyPort, limits, name, fixedNow, guard } = workerData;
const flag = new Int32Array(signal);

/** A request to the main thread, answered synchronously. */
function hostCall(request) {
  Atomics.store(flag, 0, 0);
  parentPort.postMessage({ type: 'import', ...request });
  for (;;) {
    const got = receiveMessageOnPort(replyPort);
    if (got) return got.message;
    Atomics.wait(flag, 0, 0, 1000);
  }
}

// ---- the per-call log budget (guest log lines and stdio) ----
const stdout = new BoundedOutput(limits.maxLogBytes);
const stderr = new BoundedOutput(limits.maxLogBytes);
let logLeft = limits.maxLogBytes;
let logDropped = 0;

function log(level, message) {
  parentPort.postMessage({ type: 'log', level, message });
}

function flushOutput() {
  const out = stdout.take();
  const err = stderr.take();
  if (out.text) log('info', `[${name}] guest: ${out.text.trimEnd()}`);
  if (err.text) log('warn', `[${name}] guest: ${err.text.trimEnd()}`);
  for (const dropped of [out.dropped, err.dropped]) {
    if (dropped > 0) log('warn', `[${name}] guest output: ${dropped} bytes dropped`);
  }
  if (logDropped > 0) log('warn', `[${name}] guest log: ${logDropped} bytes dropped`);
  logLeft = limits.maxLogBytes;
  logDropped = 0;
  return err.text;
}

// ---- the gateway imports ----
const ok = (val) => ({ tag: 'ok', val });
// A gateway error (WIT 0.2.0): its kind and message; the host side says the kind.
const err = (message, kind = 'other') => ({ tag: 'err', val: { kind, message } });

function refuseLarge(method, size) {
  const limit = limits.maxGatewayAnswerBytes;
  if (size <= limit) return null;
  log('warn', `[${name}] ${method} answer of ${size} bytes refused (limit ${limit})`);
  return err(`gateway answer too large: ${method} returned ${size} bytes (the limit is ${limit})`, 'too-large');
}

function gateway(method, params, convert, size) {
  const answer = hostCall({ method, params });
  if (answer.error !== undefined) return err(answer.error, answer.kind);
  const value = convert(answer.ok);
  return (size && refuseLarge(method, size(value))) || ok(value);
}

const len = (s) => (typeof s === 'string' ? Buffer.byteLength(s) : 0);

const gatewayImports = {
  sessionsList: (p) =>
    gateway('sessions.list', wire.listParams(p), wire.sessionList, (l) => len(l.path) + l.sessions.reduce((n, r) => n + wire.rowSize(r), 0)),
  sessionsResolve: (p) => gateway('sessions.resolve', wire.resolveParams(p), wire.resolvedKey, len),
  chatHistory: (p) => gateway('chat.history', wire.historyParams(p), wire.history, wire.historySize),
  chatHistories: (list) => {
    const answer = hostCall({ method: 'chat.histories', params: list.map(wire.historyParams) });
    if (answer.error !== undefined) return list.map(() => err(answer.error, answer.kind));
    const answers = Array.isArray(answer.ok) ? answer.ok : [];
    if (answers.length !== list.length) {
      const message = `the gateway answered ${answers.length} histories for ${list.length}`;
      return list.map(() => err(message));
    }
    // Together one answer for the size limit: past it, the rest are refused.
    let total = 0;
    return answers.map((a) => {
      if (a.error !== undefined) return err(a.error, a.kind);
      const h = wire.history(a.ok);
      total += wire.historySize(h);
      return refuseLarge('chat.histories', total) || ok(h);
    });
  },
  agent: (p) => gateway('agent', wire.agentParams(p), wire.agentAccepted, (a) => len(a.runId)),
  agentWait: (p) => gateway('agent.wait', wire.waitParams(p), wire.waitResult, (w) => len(w.status) + len(w.error) + len(w.model)),
  send: (p) => gateway('send', wire.sendParams(p), () => undefined),
  sessionsPatch: (p) => gateway('sessions.patch', wire.patchParams(p), () => undefined),
  sessionsDelete: (p) => gateway('sessions.delete', wire.deleteParams(p), () => undefined),
};

// ---- the N15 guard's imports (a guarded instance, issue 22) ----
// The spawn tree, bridged and metered like the gateway; keys are canonical (the guard's).
const treeImports = {
  spawnedTrees: (roots) => gateway('tree.spawned-trees', roots, (keys) => (Array.isArray(keys) ? keys.map(String) : []), (keys) => keys.reduce((n, k) => n + len(k) + 8, 0)),
  rowsOf: (keys) =>
    gateway('tree.rows-of', keys, (rows) => wire.sessionList({ sessions: rows }).sessions, (rows) => rows.reduce((n, r) => n + wire.rowSize(r), 0)),
  exists: (key) => gateway('tree.exists', key, (found) => found === true),
  runSession: (runId) => {
    const answer = hostCall({ method: 'tree.run-session', params: runId });
    return typeof answer.ok === 'string' ? answer.ok : undefined;
  },
};

// A refused call: the host's own line (as the Rust host's), outside the guest's log budget,
// so a guest that fills its log cannot hide a refusal.
const auditImports = {
  refused: (method, what, own) => log('warn', `N15: refused ${method}: ${what} for sandboxed session ${own}`),
};

// The ids of the call in progress: seeded by the host (ids.mjs) for a tool call or a job
// step, so the same call or step made again after a stop sends the same idempotency keys.
let ids = null;

const hostImports = {
  nowMs: () => BigInt(fixedNow ?? Date.now()),
  newUuid: () => (ids ? ids.next() : randomUUID()),
  log: (level, message) => {
    const size = Buffer.byteLength(message);
    if (size > logLeft) {
      logDropped += size;
      return;
    }
    logLeft -= size;
    log(level, `[${name}] ${message}`);
  },
};

// ---- instantiation ----
let memory = null;
let api = null;

async function instantiate() {
  const { instantiate } = await import(componentJs);
  const imports = {
    'openclaw:session-tools/types': {},
    'openclaw:session-tools/gateway': gatewayImports,
    'openclaw:session-tools/host': hostImports,
    'openclaw:session-tools/tree': treeImports,
    'openclaw:session-tools/audit': auditImports,
    ...wasiImports({ stdout, stderr }),
  };
  const getCoreModule = (file) => {
    const module = modules[file];
    if (!module) throw new Error(`no core module ${file}`);
    return module;
  };
  const instantiateCore = (module, importObject) => {
    const instance = new WebAssembly.Instance(module, importObject);
    if (!memory && instance.exports.memory instanceof WebAssembly.Memory) memory = instance.exports.memory;
    return instance;
  };
  api = instantiate(getCoreModule, imports, instantiateCore);
}

// ---- calls ----

/**
 * An error value the guest answered (jco throws the `err` payload of an export's `result`
 * as it is: a string, or a variant object), or a trap (an Error: a wasm trap, a stack
 * overflow, the guest's exit, an import that failed).
 */
function classify(e, stderrText) {
  if (!(e instanceof Error)) return { kind: 'answer', payload: e };
  const message = e instanceof Error ? e.message : String(e);
  const bytes = memory ? memory.buffer.byteLength : 0;
  const alloc = /memory allocation of (\d+) bytes failed/.exec(stderrText ?? '');
  const capped = limits.memoryBytes;
  if ((alloc && bytes + Number(alloc[1]) > capped) || bytes + 2 ** 20 > capped) {
    return { kind: 'memory', message, memoryBytes: bytes };
  }
  if (e instanceof GuestExit) return { kind: 'trap', message: e.message };
  if (e instanceof RangeError && /call stack/i.test(message)) return { kind: 'trap', message: `stack overflow: ${message}` };
  const trap = e instanceof WebAssembly.RuntimeError && !message.startsWith('wasm trap');
  return { kind: 'trap', message: trap ? `wasm trap: ${message}` : message };
}

/**
 * Tells the guard who it serves (N15), before every call: it also forgets what it learned
 * in the call before, so each call starts from what the gateway says now. A guard that
 * refuses its set-up stops the call (and the instance): it fails closed.
 */
function configureGuard() {
  try {
    api.guard.configure(guard.rules, guard.restriction);
  } catch (e) {
    throw new Error(`the N15 guard refused its set-up: ${e instanceof Error ? e.message : String(e)}`);
  }
}

function run(op, args) {
  if (guard && ['call', 'resume', 'wait'].includes(op)) configureGuard();
  switch (op) {
    case 'configure':
      return api.setup.configure({ config: args.config, stateDir: args.stateDir });
    case 'describe':
      return api.tools.describe();
    case 'call': {
      const out = api.tools.call(args.tool, wire.callerContext(args.caller), args.arguments);
      return { result: out.result, jobs: out.jobs.map(wire.jobToJson) };
    }
    case 'resume':
      return api.jobs.resume(wire.jobFromJson(args.job), wire.wakeupFromJson(args.wakeup)).map(wire.jobToJson);
    case 'wait':
      return { runId: String(args.params.runId), ...wire.waitResultJson(api.gateway.agentWait({ runId: String(args.params.runId), timeoutMs: BigInt(Math.max(0, Math.floor(Number(args.params.timeoutMs) || 0))) })) };
    case 'evaluateSendPolicy':
      return api.policy.evaluateSendPolicy(args.input);
    case 'parseSendCommand':
      return api.policy.parseSendCommand(args.text) ?? null;
    default:
      throw new Error(`unknown operation ${op}`);
  }
}

parentPort.on('message', (msg) => {
  if (msg.type !== 'run') return;
  let answer;
  try {
    ids = Array.isArray(msg.seed) ? new SeededIds(msg.seed) : null;
    answer = { type: 'done', id: msg.id, ok: true, value: run(msg.op, msg.args) };
    flushOutput();
  } catch (e) {
    const stderrText = flushOutput();
    answer = { type: 'done', id: msg.id, ok: false, error: classify(e, stderrText) };
  }
  ids = null;
  parentPort.postMessage(answer);
});

instantiate().then(
  () => parentPort.postMessage({ type: 'ready' }),
  (e) => {
    const stderrText = flushOutput();
    parentPort.postMessage({ type: 'ready', error: classify(e, stderrText) });
  },
);
