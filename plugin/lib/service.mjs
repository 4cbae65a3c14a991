// The session tools as a service over a gateway, as the Rust host's (`host/src/service/`):
// the component compiled once, sandboxed instances in the pools the guard component's
// `decide` names, and the background jobs tool calls start (jobs.mjs, intent.mjs).

import { decide, jobRules } from './guard.mjs';
import { CallError } from './sandbox.mjs';
import { JobRunner } from './jobs.mjs';
import { callerContext } from './records.mjs';

/** Idle instances by pool, the least recently returned dropped first when full. */
export class Broker {
  constructor({ runtime, setupFor, maxIdle = 16, maxInstances = 64 }) {
    this.runtime = runtime;
    this.setupFor = setupFor;
    this.maxIdle = maxIdle;
    this.maxInstances = maxInstances;
    this.idle = []; // [pool, sandbox], the least recently returned first
    this.live = 0;
  }

  /** Drops the least recently returned idle instance; answers whether there was one. */
  evictOldest() {
    const oldest = this.idle.shift();
    if (oldest) this.drop(oldest[1]);
    return oldest !== undefined;
  }

  drop(sandbox) {
    this.live -= 1;
    sandbox.close();
  }

  /**
   * The most recently returned idle instance of the pool, or a new configured instance of
   * the agent (of the guarded composition for a restricted caller; `wait`: the guard alone,
   * which has no tools to configure).
   */
  async checkout(agent, pool, restriction = null, { wait = false } = {}) {
    if (this.closed) throw CallError.of('setup', 'the session tools are stopping');
    const idle = this.idle.findLastIndex(([p]) => p === pool);
    if (idle >= 0) return this.idle.splice(idle, 1)[0][1];
    while (this.live >= this.maxInstances) {
      if (!this.evictOldest()) throw CallError.of('setup', `all ${this.maxInstances} instances are busy; try again shortly`);
    }
    this.live += 1;
    try {
      return await this.runtime.instantiate(this.setupFor(agent, restriction, wait));
    } catch (e) {
      this.live -= 1;
      throw e;
    }
  }

  /** Returns an instance to its pool, unless it broke (or the broker was closed meanwhile). */
  checkin(pool, sandbox) {
    if (sandbox.broken || this.closed || this.maxIdle === 0) return this.drop(sandbox);
    if (this.idle.length >= this.maxIdle) this.evictOldest();
    this.idle.push([pool, sandbox]);
  }

  close() {
    this.closed = true;
    while (this.evictOldest());
  }
}

export class Service {
  /**
   * `gateway`: `{call(method, params), histories(list)}` (the gateway's JSON, carried for
   * the gateway wire), keeping the runs the wire starts (`runStarted`, `runSession`: see
   * sandbox.mjs); `config`: a DeploymentConfig; `limits`: AgentLimits; `jobStore`: where
   * jobs are kept (a DirJobStore); `log(level, message)`.
   */
  constructor({ runtime, gateway, config, stateDir, limits, log, jobStore, maxIdle, maxInstances, now }) {
    this.gateway = gateway;
    this.limits = limits;
    this.log = log ?? (() => {});
    this.now = now ?? (() => Date.now());
    this.broker = new Broker({
      runtime,
      maxIdle,
      maxInstances,
      setupFor: (agent, restriction, wait) => ({
        name: agent,
        gateway,
        limits: limits.forAgent(agent),
        log: this.log,
        ...(restriction ? { guard: { rules: config.rules, restriction } } : {}),
        ...(wait ? { part: 'guard' } : { config: { json: config.json, stateDir } }),
      }),
    });
    this.configText = JSON.stringify(config.raw ?? {});
    this.jobs = new JobRunner(jobStore, this);
    this.scheduler = null;
    /** Tool calls in flight (a graceful stop waits for them). */
    this.calls = new Set();
    this.stopped = null;
  }

  /** How a caller (caller-context shape) is served: the guard's `decide`. */
  access(ctx) {
    try {
      return decide(this.configText, ctx);
    } catch (e) {
      throw CallError.of('setup', e.message);
    }
  }

  async withInstance(acc, gateway, f, { agent = acc.agent, wait = false } = {}) {
    const pool = wait ? `${acc.pool}\nwait` : acc.pool;
    const sandbox = await this.broker.checkout(agent, pool, acc.restriction, { wait });
    sandbox.gateway = gateway;
    try {
      return await f(sandbox);
    } finally {
      this.broker.checkin(pool, sandbox);
    }
  }

  /**
   * Calls a tool as `caller` (caller-context JSON), in an instance of the caller's agent;
   * answers the tool's JSON result text, and keeps the jobs it starts. Its intent is kept
   * before its first gateway call that writes (intent.mjs). Throws a CallError.
   */
  async call(caller, tool, argumentsJson) {
    if (this.stopped) throw CallError.of('setup', 'the session tools are stopping');
    const ctx = callerContext(caller);
    const acc = this.access(ctx);
    const intent = this.jobs.intentFor(acc.agent, ctx, tool, argumentsJson);
    const seed = jobRules().callSeed(intent.id);
    const call = (async () => {
      let output;
      try {
        output = await this.withInstance(acc, intent.guard(this.gateway), (s) => s.callTool(tool, ctx, argumentsJson, { seed }));
      } catch (e) {
        // The call has ended (with an error): nothing is left to make again.
        intent.take()?.done();
        throw e;
      }
      this.jobs.start(acc.agent, ctx, output.jobs, intent.id, intent.take());
      if (output.jobs.length > 0) this.scheduler?.ring();
      return output.result;
    })();
    this.calls.add(call);
    try {
      return await call;
    } finally {
      this.calls.delete(call);
    }
  }

  /**
   * A job runs in an instance of its agent, seeing the gateway as its caller may, with ids
   * seeded by its key and step (the same step made again gets the same ids). Its record goes
   * as it is kept: the rules' `jobOf` (worker.mjs) takes the job's own fields of it.
   */
  async resume(record, wakeup) {
    const acc = this.access(callerContext(record.caller));
    const seed = jobRules().stepSeed(record.key, record.steps ?? 0);
    return this.withInstance(acc, this.gateway, (s) => s.resumeJob(record, wakeup, { seed }), { agent: record.agent });
  }

  /** Makes a call again from the intent its process left, with its ids; answers its jobs. */
  async replay(intent) {
    const ctx = callerContext(intent.caller);
    const acc = this.access(ctx);
    const seed = jobRules().callSeed(intent.id);
    const output = await this.withInstance(acc, this.gateway, (s) => s.callTool(intent.tool, ctx, intent.arguments, { seed }));
    return output.jobs;
  }

  /**
   * The runner's own wait for a job's run: a restricted caller's goes through the guard
   * component alone (its exported `gateway`), which answers only for the caller's runs.
   */
  async wait(record, params) {
    const acc = this.access(callerContext(record.caller));
    if (!acc.restriction) return { ok: await this.gateway.call('agent.wait', params) };
    return this.withInstance(acc, this.gateway, (s) => s.guardedWait(params), { agent: record.agent, wait: true });
  }

  /** Runs jobs in the background (resuming those a previous process left) until stop(). */
  startScheduler() {
    if (this.stopped) throw new Error('the session tools have stopped');
    if (!this.scheduler) this.scheduler = this.jobs.startScheduler();
    return this.scheduler;
  }

  /**
   * Stops the background scheduler alone (the service goes on serving calls): the steps in
   * flight end, the waits are let go. A reloaded plugin starts its next scheduler only then
   * (plugin.mjs), so two never run at once.
   */
  async stopScheduler() {
    const scheduler = this.scheduler;
    this.scheduler = null;
    await scheduler?.stop();
  }

  /**
   * Stops gracefully, as the Rust host's service: no new call or step starts, those in
   * flight end and keep what they started, waits are abandoned; then the instances and the
   * gateway connection go, never under work in flight. `graceMs`: past it, the stop answers
   * false and goes on in the background (what a process that exits meanwhile cut short is
   * made again by the next one). Answers whether everything in flight ended; asked again,
   * it is the same stop.
   */
  async stop({ graceMs = Infinity } = {}) {
    this.stopped ??= (async () => {
      this.jobs.stop();
      await this.stopScheduler();
      await this.jobs.settle();
      while (this.calls.size > 0) await Promise.allSettled([...this.calls]);
      this.broker.close();
      // The bridge's connection (openclaw-gateway.mjs) ends with the service that owns it.
      this.gateway?.close?.();
    })();
    const ended = this.stopped.then(() => true);
    if (!Number.isFinite(graceMs)) return ended;
    let timer;
    const grace = new Promise((resolve) => (timer = setTimeout(resolve, Math.max(0, graceMs), false)));
    return Promise.race([ended, grace]).finally(() => clearTimeout(timer));
  }
}
