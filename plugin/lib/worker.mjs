// One sandboxed instance of the component, alone in a worker thread (loaded by Node
// itself, never by the gateway's module loader), with the gateway wire (wire/) beside it:
// the guest's `gateway` imports, and a guarded instance's N15 guard's `tree`, are the wire's
// exports, and the wire's one generic call is carried to the main thread. No rule of the
// wire or of the guard is here.
//
// The component's imports are plain synchronous functions (jco), and the gateway is
// asynchronous, on the main thread: a gateway import posts its request to the main thread
// and blocks on `Atomics.wait` until the main thread has posted the answer on a port of its
// own, which this thread then reads synchronously (`receiveMessageOnPort`). The main thread
// bounds every call (CPU and wall deadlines, gateway calls and time) and terminates this
// thread when the guest breaks a limit: nothing here has to be trusted to stop.

import { parentPort, receiveMessageOnPort, workerData } from 'node:worker_threads';
import { randomUUID } from 'node:crypto';

import { asked, instantiatePure } from './components.mjs';
import { BoundedOutput, wasiImports } from './wasi.mjs';

const { parts, protocol, flag, replyPort, limits, name, fixedNow, guard } = workerData;

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

const log = (level, message) => parentPort.postMessage({ type: 'log', level, message });

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

// ---- the gateway, through the wire ----
let wire = null; // the wire component's exports

// What the host decided itself about a call the wire made in the import in progress (a
// limit, a scripted case's answer), by the index of the call in its batch: the wire reads
// only the gateway's own error frames, so their kind and message reach the guest from here.
let verdicts = [];

/** An answer of the main thread (`{text}`: JSON text, or `{error, kind?, frame?}`) as the transport's, of the call at `index`. */
function transported(answer, index) {
  if (answer.error === undefined) return { tag: 'ok', val: answer.text };
  const message = String(answer.error);
  if (answer.frame !== undefined) return { tag: 'err', val: { tag: 'gateway', val: JSON.stringify(answer.frame) } };
  if (answer.kind === 'timeout' || answer.kind === 'unavailable') return { tag: 'err', val: { tag: answer.kind, val: message } };
  verdicts[index] = { kind: answer.kind ?? 'other', message };
  return { tag: 'err', val: { tag: 'unavailable', val: message } };
}

// The gateway's own answer to the last `agent.wait` the wire carried: what the job runner
// keeps as a run's end (the wire reads it when the job resumes).
let lastWait = null;

/** A gateway call, carried by the main thread. */
function carry(request, index) {
  const answer = hostCall({ method: request.method, params: JSON.parse(request.params) });
  if (request.method === 'agent.wait') lastWait = answer;
  return transported(answer, index);
}

/**
 * `chat.history` requests, one (`sessions_history`) or a list's batch, as one call to the
 * main thread, which reads what it can in the gateway's process (E4) and asks the gateway
 * the rest.
 */
function histories(requests) {
  const answer = hostCall({ method: 'chat.histories', params: requests.map((r) => JSON.parse(r.params)) });
  const answers = answer.error !== undefined ? requests.map(() => answer) : Array.isArray(answer.ok) ? answer.ok : [];
  if (answers.length !== requests.length) {
    const error = `the gateway answered ${answers.length} histories for ${requests.length}`;
    return requests.map((_, i) => transported({ error }, i));
  }
  return answers.map(transported);
}

const transportImports = {
  call: (request) => (request.method === 'chat.history' ? histories([request])[0] : carry(request, 0)),
  callMany: (requests) => (requests.length > 0 && requests.every((r) => r.method === 'chat.history') ? histories(requests) : requests.map(carry)),
};

// The runs the wire starts are the main thread's to keep, across instances (the N15 guard
// asks whose a run is, through the wire's `tree`).
const runsImports = {
  runAccepted: (runId, sessionKey) => parentPort.postMessage({ type: 'run', runId, sessionKey }),
  sessionOf: (runId) => {
    const answer = hostCall({ method: 'runs.session-of', params: runId });
    return typeof answer.ok === 'string' ? answer.ok : undefined;
  },
};

/**
 * The gateway error the wire gave for the call at `index`: the host's own verdict where it
 * gave one. An answer past the size limit (refused by the wire, configured with it below) is
 * logged, as the Rust host logs it.
 */
function ours(e, index) {
  const verdict = verdicts[index];
  if (!verdict && e?.kind === 'too-large') log('warn', `[${name}] ${e.message}`);
  return verdict ?? e;
}

/**
 * The wire's exports as the guest's (or its guard's) imports: jco throws an export's `err`
 * payload as it is (an Error is a trap) and makes a thrown non-Error the import's `err`.
 */
function forwarded(exports) {
  const forward = (call) => (arg) => {
    verdicts = [];
    try {
      const out = call(arg);
      // `chat-histories` answers a result for each history.
      return Array.isArray(out) ? out.map((a, i) => (a?.tag === 'err' ? { tag: 'err', val: ours(a.val, i) } : a)) : out;
    } catch (e) {
      throw e instanceof Error ? e : ours(e, 0);
    }
  };
  return Object.fromEntries(Object.entries(exports).map(([f, call]) => [f, forward(call)]));
}

// A refused call: the host's own line (as the Rust host's), outside the guest's log budget,
// so a guest that fills its log cannot hide a refusal.
const auditImports = {
  refused: (method, what, own) => log('warn', `N15: refused ${method}: ${what} for sandboxed session ${own}`),
};

/**
 * A job's wakeup from its JSON (`{type: 'now'|'timer'}`, or `{type: 'runEnded', ok|error}`
 * with the answer of the `agent.wait` the host made): the answer is read by the wire.
 */
function wakeupOf(w) {
  if (w?.type === 'timer') return { tag: 'timer' };
  if (w?.type !== 'runEnded') return { tag: 'now' };
  verdicts = [];
  const answer = w.error !== undefined ? transported(w, 0) : { tag: 'ok', val: JSON.stringify(w.ok ?? null) };
  try {
    return { tag: 'run-ended', val: { tag: 'ok', val: wire.wire.decodeWait(answer) } };
  } catch (e) {
    if (e instanceof Error) throw e;
    return { tag: 'run-ended', val: { tag: 'err', val: ours(e, 0) } };
  }
}

// The rules of `host-rules/` (seeded ids, a job's JSON), from an instance of the guard
// component made at first use.
let rules = null;
let instantiateGuard = null;
const jobRules = () => (rules ??= instantiatePure('guard', instantiateGuard, (f) => parts.guard.modules[f]).jobRules);

// The ids of the call in progress: seeded by the host for a tool call or a job step (the
// rules' `seededId`), so the same call or step made again after a stop sends the same
// idempotency keys.
let seed = null;
let drawn = 0;

// A job crosses between the threads as the JSON the job store keeps (the rules' shape).
const jobJson = (job) => JSON.parse(jobRules().jobJson(job));
const jobOf = (job) => jobRules().jobOf(JSON.stringify(job));

const hostImports = {
  nowMs: () => BigInt(fixedNow ?? Date.now()),
  newUuid: () => (seed ? jobRules().seededId(seed, BigInt(drawn++)) : randomUUID()),
  log: (level, message) => {
    const size = Buffer.byteLength(message);
    if (size > logLeft) logDropped += size;
    else {
      logLeft -= size;
      log(level, `[${name}] ${message}`);
    }
  },
};

// ---- instantiation ----
let memory = null;
let api = null;

/** The core modules by file name of `part` (`{js, modules}`: the Runtime's `load`), of `what`. */
const coreModule = ({ modules }, what) => (file) => {
  if (!modules[file]) throw new Error(`no core module ${file} of ${what}`);
  return modules[file];
};

async function instantiate() {
  ({ instantiate: instantiateGuard } = await import(parts.guard.js));
  const { instantiate: instantiateWire } = await import(parts.wire.js);
  wire = instantiateWire(coreModule(parts.wire, 'the gateway wire'), {
    'openclaw:session-tools/transport': transportImports,
    'openclaw:session-tools/runs': runsImports,
    ...wasiImports({ stdout, stderr }),
  });
  // The protocol the bridge's gateway speaks decides every method's params; the wire hands
  // the guest no answer past the agent's limit (counted as the Rust host counts it).
  const connection = { protocol, maxAnswerBytes: BigInt(limits.maxGatewayAnswerBytes) };
  asked(() => wire.wire.configure(connection), 'configuring the gateway wire');
  const { instantiate } = await import(parts.instance.js);
  const imports = {
    'openclaw:session-tools/gateway': forwarded(wire.gateway),
    'openclaw:session-tools/host': hostImports,
    'openclaw:session-tools/tree': forwarded(wire.tree),
    'openclaw:session-tools/audit': auditImports,
    ...wasiImports({ stdout, stderr }),
  };
  const instantiateCore = (module, importObject) => {
    const instance = new WebAssembly.Instance(module, importObject);
    if (!memory && instance.exports.memory instanceof WebAssembly.Memory) memory = instance.exports.memory;
    return instance;
  };
  api = instantiate(coreModule(parts.instance, 'the instance'), imports, instantiateCore);
}

// ---- calls ----

/**
 * An error value the guest answered (jco throws the `err` payload of an export's `result`
 * as it is: a string, or a variant object), or a trap (an Error: a wasm trap, a stack
 * overflow, the guest's exit, an import that failed).
 */
function classify(e, stderrText) {
  if (!(e instanceof Error)) return { kind: 'answer', payload: e };
  const message = e.message;
  const bytes = memory ? memory.buffer.byteLength : 0;
  const alloc = /memory allocation of (\d+) bytes failed/.exec(stderrText ?? '');
  if ((alloc && bytes + Number(alloc[1]) > limits.memoryBytes) || bytes + 2 ** 20 > limits.memoryBytes) return { kind: 'memory' };
  if (e instanceof RangeError && /call stack/i.test(message)) return { kind: 'trap', message: `stack overflow: ${message}` };
  const trap = e instanceof WebAssembly.RuntimeError && !message.startsWith('wasm trap');
  return { kind: 'trap', message: trap ? `wasm trap: ${message}` : message };
}

// The guard is told who it serves (N15) before every call: it also forgets what it learned
// in the call before, so each call starts from what the gateway says now. A guard that
// refuses its set-up stops the call (and the instance): it fails closed.
const configureGuard = () => asked(() => api.guard.configure(guard.rules, guard.restriction), 'the N15 guard refused its set-up');

// The operations the main thread asks for (sandbox.mjs), by name.
const OPERATIONS = {
  configure: (args) => api.setup.configure(args),
  describe: () => api.tools.describe(),
  call: (args) => {
    const out = api.tools.call(args.tool, args.caller, args.arguments);
    return { result: out.result, jobs: out.jobs.map(jobJson) };
  },
  resume: (args) => api.jobs.resume(jobOf(args.job), wakeupOf(args.wakeup)).map(jobJson),
  evaluateSendPolicy: (args) => api.policy.evaluateSendPolicy(args.input),
  // The job runner's own wait for a run, through the guard alone: refused (the guard's error)
  // unless the run is the caller's; else the gateway's own answer, as the runner keeps it.
  wait: ({ params }) => {
    lastWait = null;
    api.gateway.agentWait({ runId: String(params.runId), timeoutMs: BigInt(Math.max(0, Math.floor(Number(params.timeoutMs) || 0))) });
    if (!lastWait || lastWait.error !== undefined) throw new Error('the guard let agent.wait through, but no answer of the gateway came back');
    return JSON.parse(lastWait.text);
  },
};

function run(op, args) {
  if (!Object.hasOwn(OPERATIONS, op)) throw new Error(`unknown operation ${op}`);
  if (guard && ['call', 'resume', 'wait'].includes(op)) configureGuard();
  return OPERATIONS[op](args);
}

/** Posts the answer of call `id` (instantiating is call 0): its value, or why it `failed`. */
function done(id, failed, result) {
  const stderrText = flushOutput();
  const answer = failed ? { ok: false, error: classify(result, stderrText) } : { ok: true, value: result };
  parentPort.postMessage({ type: 'done', id, ...answer });
}

parentPort.on('message', (msg) => {
  if (msg.type !== 'run') return;
  seed = Array.isArray(msg.seed) ? msg.seed : null;
  drawn = 0;
  try {
    done(msg.id, false, run(msg.op, msg.args));
  } catch (e) {
    done(msg.id, true, e);
  }
  seed = null;
});

// Whatever fails while instantiating is a failure of the instance, never a guest's answer.
instantiate().then(
  () => done(0, false),
  (e) => done(0, true, e instanceof Error ? e : new Error(String(e))),
);
