// One agent's sandboxed instance, seen from the main thread: a worker thread holding exactly
// one instance of the component (worker.mjs), and the gateway bridge it calls through. Node's
// engine can neither interrupt a guest nor cap an instance's memory, so the Rust host's limits
// (host/src/sandbox/, docs/limits.md) are kept here: the guest's CPU time in a call (wall time
// minus the time its imports took) by a timer that terminates its worker (no other agent's);
// wall time, gateway calls and gateway time by metering each import (refused as `host-rules/`
// says, `agent.wait` shortened to fit); memory by the cap written into the core modules
// (limits.mjs) and a bounded JS heap. Any failure of the worker discards the instance.

import { Worker } from 'node:worker_threads';
import { pathToFileURL } from 'node:url';

import { transpiled } from './components.mjs';
import { jobRules } from './guard.mjs';
import { capModule } from './limits.mjs';

const WORKER = new URL('./worker.mjs', import.meta.url);

/**
 * Why a call into the guest failed: its kind (`cpu_limit`, `too_large`, ...) and words are
 * the Rust host's `CallError` (`host-rules/`), asked of the guard component: the same
 * errors in the logs and for the model whichever host runs the tools.
 */
export class CallError extends Error {
  /** `error`: a WIT `call-error` (`{tag, val}`), or a tool's own `tool-error` (whose cases it shares). */
  constructor(error) {
    const failure = jobRules().describeCallError(error);
    super(failure.message);
    this.name = 'CallError';
    this.kind = failure.kind;
    /** Whether the instance is unusable afterwards. */
    this.discardsInstance = failure.discardsInstance;
  }

  /** The `call-error` of case `tag` (`cpu-limit`, `setup`, ...) with its values, numbers as its u64s. */
  static of(tag, ...values) {
    const val = values.map((v) => (typeof v === 'number' ? BigInt(Math.max(0, Math.floor(v))) : v));
    return new CallError(val.length > 1 ? { tag, val } : { tag, val: val[0] });
  }
}

/**
 * The transpiled components (a directory written by scripts/build-component.mjs: `tools`,
 * `wire` and `guard`, and `guarded` where built), compiled once per memory cap and shared by
 * every instance of the process.
 */
export class Runtime {
  constructor(dir) {
    this.dir = dir;
    this.compiled = new Map();
    // The gateway wire and the guard, which every instance loads beside it, compiled at once.
    this.load('wire');
    this.load('guard');
  }

  /** The transpiled component `name` (`{js, bytes}`: components.mjs's `transpiled`). */
  part(name) {
    try {
      return transpiled(name, this.dir);
    } catch (e) {
      throw CallError.of('setup', e.message);
    }
  }

  /**
   * The component `name` as a worker loads it: `{js}`, its module's URL, and `{modules}`, its
   * core modules compiled, each memory and table capped as `limits` say (`memoryBytes`,
   * `tableElements`; null: as built).
   */
  load(name, limits = null) {
    const key = `${name} ${limits?.memoryBytes} ${limits?.tableElements}`;
    let loaded = this.compiled.get(key);
    if (!loaded) {
      const { js, bytes } = this.part(name);
      const capped = (b) => (limits ? capModule(b, limits, this.dir).bytes : b);
      const compile = async ([file, b]) => [file, await WebAssembly.compile(capped(b))];
      loaded = Promise.all(Object.entries(bytes).map(compile)).then((modules) => ({ js: pathToFileURL(js).href, modules: Object.fromEntries(modules) }));
      this.compiled.set(key, loaded);
      loaded.catch(() => this.compiled.delete(key));
    }
    return loaded;
  }

  /**
   * A fresh instance. `setup`: `{name, gateway, limits, log(level, msg), fixedNow?, guard?,
   * part?, config?}`; `gateway`: the bridge's (openclaw-gateway.mjs: `call`, `histories`,
   * `runStarted`, `runSession`, `protocol`). With `guard` (`{rules, restriction}`, N15), the
   * instance is of the guarded composition (`part: 'guard'`: the guard alone, for `wait`),
   * told who it serves before every call. With `config` (`{json, stateDir}`), it is configured.
   */
  async instantiate(setup) {
    const sandbox = new Sandbox(this, setup);
    try {
      await sandbox.start(setup);
      if (setup.config) await sandbox.configure(setup.config);
    } catch (e) {
      sandbox.close();
      throw e;
    }
    return sandbox;
  }
}

let nextId = 1;

// A gateway answer crosses to the worker as JSON text, the form the wire reads: a string is
// copied, where an object would be cloned there and written out again (a 2026.9 list of 200
// rows is some 300 KB).
const json = (value) => JSON.stringify(value === undefined ? null : value);

/** A history's answer for the worker: its error, else `{text}` (a reader's as it is, else its object written out). */
function historyAnswer(a) {
  if (a.error !== undefined) return { error: String(a.error), kind: a.kind, frame: a.frame };
  return { text: a.text !== undefined ? String(a.text) : json(a.ok) };
}

export class Sandbox {
  constructor(runtime, setup) {
    this.runtime = runtime;
    this.name = setup.name;
    this.gateway = setup.gateway; // whom the guest's calls go to (a service sets each call's)
    this.runs = setup.gateway; // who keeps the runs the wire starts (the bridge, for its N15 guard)
    this.limits = setup.limits;
    this.log = setup.log ?? (() => {});
    this.broken = null; // why the instance was discarded (a CallError), if it was
    this.current = null; // the call in progress
    this.worker = null;
  }

  /** Starts the worker and its instance (`guard`, `part`, `fixedNow`: see `Runtime.instantiate`). */
  async start({ guard = null, part = guard ? 'guarded' : 'tools', fixedNow }) {
    this.flag = new Int32Array(new SharedArrayBuffer(4)); // shared: set when an answer is posted
    const { port1, port2 } = new MessageChannel();
    this.replyPort = port1;
    const worker = new Worker(WORKER, {
      workerData: {
        parts: {
          instance: await this.runtime.load(part, this.limits),
          wire: await this.runtime.load('wire'),
          guard: await this.runtime.load('guard'),
        },
        guard,
        // The protocol the bridge's gateway speaks (3 until it says otherwise).
        protocol: this.gateway.protocol ?? 3,
        flag: this.flag,
        replyPort: port2,
        limits: this.limits,
        name: this.name,
        fixedNow,
      },
      transferList: [port2],
      // The worker sees nothing of the host process: no environment (N16), no argv, no
      // stdin, and its own output is not the process's.
      env: {},
      argv: [],
      execArgv: [],
      stdin: false,
      stdout: true,
      stderr: true,
      resourceLimits: { maxOldGenerationSizeMb: 64 + Math.ceil((2 * this.limits.maxResultBytes) / 2 ** 20), stackSizeMb: 4 },
    });
    worker.stdout.resume();
    worker.stderr.resume();
    this.worker = worker;
    worker.on('message', (msg) => this.onMessage(msg));
    worker.on('error', (e) => this.onWorkerGone(e));
    worker.on('exit', (code) => this.onWorkerGone(null, code));
    // Instantiating is the worker's call 0, answered as any call is; once it is done, an
    // idle instance does not keep the process alive (a call in progress does).
    await new Promise((resolve, reject) => {
      this.current = { id: 0, doing: 'instantiating', resolve, reject };
    });
  }

  onMessage(msg) {
    if (msg.type === 'log') this.log(msg.level, msg.message);
    else if (msg.type === 'import') this.onImport(msg);
    else if (msg.type === 'run') this.runs?.runStarted?.(msg.runId, msg.sessionKey);
    else if (msg.type === 'done') this.onDone(msg);
  }

  /** Why the instance failed: its memory cap reached, else as `message` says. */
  failure(memory, message) {
    return memory ? CallError.of('memory-limit', this.limits.memoryBytes) : CallError.of('trap', message);
  }

  onWorkerGone(error, code) {
    if (this.closing) return;
    const memory = error?.code === 'ERR_WORKER_OUT_OF_MEMORY' || /out of memory/i.test(error?.message ?? '');
    const message = error ? `the instance's worker failed: ${error.message}` : `the instance's worker exited (code ${code})`;
    this.stop(this.current, this.failure(memory, message));
  }

  /** Stops the worker (the instance is gone). */
  close() {
    if (this.worker && !this.closing) {
      this.closing = true;
      this.worker.terminate().catch(() => {});
      this.replyPort?.close();
    }
  }

  // ---- one call at a time ----

  /**
   * Runs one export in the worker. `seed`: the parts the guest's ids of this call are derived
   * from (the rules' `callSeed`, `stepSeed`), so the same call or step made again gets the
   * same ids; absent, they are random.
   */
  enter(op, args, doing, seed = null) {
    if (this.broken) return Promise.reject(this.broken);
    if (this.current) return Promise.reject(CallError.of('host-fault', 'the instance is busy with another call'));
    const id = nextId++;
    return new Promise((resolve, reject) => {
      const call = {
        id,
        doing,
        resolve,
        reject,
        cpuUsed: 0,
        started: performance.now(),
        inHost: 0,
        gatewayCalls: 0,
      };
      this.current = call;
      this.worker.ref();
      this.resumeCpu(call);
      call.wallTimer = setTimeout(() => this.stop(call, CallError.of('wall-limit', this.limits.wallMs)), this.limits.wallMs);
      this.worker.postMessage({ type: 'run', id, op, args, seed });
    });
  }

  /** The guest runs: its time is counted, and past its CPU budget the call is stopped. */
  resumeCpu(call) {
    call.guestSince = performance.now();
    call.cpuTimer = setTimeout(() => {
      if (this.current !== call || call.guestSince === null) return;
      this.pauseCpu(call);
      if (call.cpuUsed >= this.limits.cpuMs) this.stop(call, CallError.of('cpu-limit', this.limits.cpuMs));
      else this.resumeCpu(call);
    }, Math.max(1, this.limits.cpuMs - call.cpuUsed));
  }

  /** The guest waits for the host (an import): its time is not counted. */
  pauseCpu(call) {
    if (call.guestSince !== null) {
      call.cpuUsed += performance.now() - call.guestSince;
      call.guestSince = null;
    }
    clearTimeout(call.cpuTimer);
  }

  /** Stops a call that broke a limit, or whose instance failed: the worker is terminated, the instance discarded. */
  stop(call, error) {
    if (this.current !== call) return;
    if (!this.broken) {
      this.broken = error;
      this.log('warn', `[${this.name}] ${error.message}; the instance is discarded`);
    }
    this.close();
    this.finish(error);
  }

  finish(error, value) {
    const call = this.current;
    if (!call) return;
    this.current = null;
    if (!this.closing) this.worker.unref();
    clearTimeout(call.cpuTimer);
    clearTimeout(call.wallTimer);
    if (error) call.reject(error);
    else call.resolve(value);
  }

  onDone(msg) {
    const call = this.current;
    if (!call || call.id !== msg.id) return;
    if (msg.ok) return this.finish(null, msg.value);
    if (msg.error.kind === 'answer') return this.finish(null, { errorPayload: msg.error.payload, transient: call.transient === true });
    this.stop(call, this.failure(msg.error.kind === 'memory', `${msg.error.message} (while ${call.doing})`));
  }

  reply(answer) {
    try {
      this.replyPort.postMessage(answer);
    } catch (e) {
      this.replyPort.postMessage({ error: `the host could not pass the answer on: ${e.message}` });
    }
    Atomics.store(this.flag, 0, 1);
    Atomics.notify(this.flag, 0);
  }

  /** A gateway import of the guest (or of its N15 guard, metered as the guest's): bounded, answered through the bridge. */
  async onImport({ method, params }) {
    const call = this.current;
    if (!call) return;
    this.pauseCpu(call);
    const answer = await this.answer(call, method, params);
    if (this.current !== call || this.broken) return;
    this.resumeCpu(call);
    this.reply(answer);
  }

  /** The answer to an import: refused past the call's limits, else the bridge's (its time counted as the call's). */
  async answer(call, method, params) {
    const limits = this.limits;
    call.gatewayCalls += method === 'chat.histories' ? Math.max(1, params.length) : 1;
    const now = performance.now();
    const wallLeft = limits.wallMs - (now - call.started);
    const gatewayLeft = limits.gatewayMs - call.inHost;
    const budgetS = BigInt(Math.floor(limits.gatewayMs / 1000));
    const refused = jobRules().gatewayCallRefused(call.gatewayCalls, limits.maxGatewayCalls, wallLeft <= 0, gatewayLeft <= 0, budgetS);
    if (refused) return { error: refused.message, kind: refused.kind };
    if (method === 'agent.wait') {
      params = { ...params, timeoutMs: Math.max(0, Math.min(params.timeoutMs, Math.floor(Math.min(wallLeft, gatewayLeft)))) };
    }
    try {
      // Whose a run is (the guard asks through the wire's `tree`): the bridge keeps it.
      if (method === 'runs.session-of') return { ok: (await this.runs?.runSession?.(params)) ?? null };
      if (method === 'chat.histories') return { ok: (await this.gateway.histories(params)).map(historyAnswer) };
      return { text: json(await this.gateway.call(method, params)) };
    } catch (e) {
      if (e?.transient === true) call.transient = true;
      // A gateway error frame goes to the wire as it came; the host's own verdicts (the
      // N15 guard, a scripted answer) keep their kind (the worker's default: `other`).
      return { error: e instanceof Error ? e.message : String(e?.message ?? e), kind: e?.kind, frame: e?.frame };
    } finally {
      call.inHost += performance.now() - now;
    }
  }

  // ---- the exports ----

  /**
   * The job runner's own wait for a restricted caller's run, through the guard alone (worker.mjs):
   * answers as the runner's `wait` (jobs.mjs), `{ok}` (JSON) or `{error, transient}`.
   */
  async guardedWait(params) {
    const out = await this.enter('wait', { params }, 'waiting for a run');
    if (out && 'errorPayload' in out) return { error: String(out.errorPayload?.message ?? out.errorPayload), transient: out.transient };
    return { ok: out };
  }

  async configure({ json, stateDir }) {
    const out = await this.enter('configure', { config: json, stateDir }, 'configuring');
    if (out && 'errorPayload' in out) throw CallError.of('setup', `invalid config: ${out.errorPayload}`);
  }

  async describe() {
    return this.enter('describe', {}, 'describing the tools');
  }

  /** Calls a tool as `caller` (records.mjs's `callerContext`); answers `{result (JSON text), jobs (JSON)}`. `seed`: see `enter`. */
  async callTool(tool, caller, argumentsJson, { seed = null } = {}) {
    const limits = this.limits;
    const size = Buffer.byteLength(argumentsJson);
    if (size > limits.maxArgumentBytes) throw CallError.of('too-large', 'tool-arguments', size, limits.maxArgumentBytes);
    const out = await this.enter('call', { tool, caller, arguments: argumentsJson }, `calling ${tool}`, seed);
    if ('errorPayload' in out) throw new CallError(out.errorPayload);
    const resultSize = Buffer.byteLength(out.result);
    if (resultSize > limits.maxResultBytes) throw CallError.of('too-large', 'tool-result', resultSize, limits.maxResultBytes);
    try {
      JSON.parse(out.result);
    } catch (e) {
      throw CallError.of('bad-answer', `the result is not JSON: ${e.message}`);
    }
    return out;
  }

  /** Resumes a job (JSON); answers the jobs that follow it. `seed`: see `enter`. */
  async resumeJob(job, wakeup, { seed = null } = {}) {
    const out = await this.enter('resume', { job, wakeup }, `resuming a ${job.kind} job`, seed);
    if ('errorPayload' in out) throw CallError.of('bad-answer', `the job could not be resumed: ${out.errorPayload}`);
    return out;
  }

  async evaluateSendPolicy(input) {
    return this.enter('evaluateSendPolicy', { input }, 'evaluating the send policy');
  }
}
