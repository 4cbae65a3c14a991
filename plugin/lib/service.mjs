// The session tools as a service over a gateway (`host/src/service/`): the component
// compiled once, a sandboxed instance per agent, pooled per agent and per visibility scope
// (access.mjs) and never shared between agents nor between a restricted caller and one
// that sees more; host-side visibility for restricted callers (N15); and the background
// jobs tool calls start, persisted and resumed.

import { access } from './access.mjs';
import { CallError } from './sandbox.mjs';
import { JobRunner, MemoryJobStore } from './jobs.mjs';
import { VisibilityGuard } from './visibility.mjs';
import { callerContext } from './wire.mjs';

/** Idle instances by pool, the least recently returned dropped first when full. */
export class Broker {
  constructor({ runtime, setupFor, configJson, stateDir, maxIdle = 16, maxInstances = 64 }) {
    this.runtime = runtime;
    this.setupFor = setupFor;
    this.configJson = configJson;
    this.stateDir = stateDir;
    this.maxIdle = maxIdle;
    this.maxInstances = maxInstances;
    this.idle = new Map(); // pool → [sandbox]
    this.order = []; // [pool, sandbox], oldest first
    this.live = 0;
  }

  idleCount() {
    return this.order.length;
  }

  take(pool) {
    const kept = this.idle.get(pool);
    if (!kept || kept.length === 0) return null;
    const sandbox = kept.pop();
    if (kept.length === 0) this.idle.delete(pool);
    this.order = this.order.filter(([, s]) => s !== sandbox);
    return sandbox;
  }

  evictOldest() {
    const oldest = this.order.shift();
    if (!oldest) return false;
    const [pool, sandbox] = oldest;
    const kept = this.idle.get(pool);
    kept.splice(kept.indexOf(sandbox), 1);
    if (kept.length === 0) this.idle.delete(pool);
    this.drop(sandbox);
    return true;
  }

  drop(sandbox) {
    this.live -= 1;
    sandbox.close();
  }

  /** An idle instance of the pool, or a new configured instance of the agent. */
  async checkout(agent, pool) {
    if (this.closed) throw CallError.setup('the session tools are stopping');
    const idle = this.take(pool);
    if (idle) return idle;
    while (this.live >= this.maxInstances) {
      if (!this.evictOldest()) throw CallError.setup(`all ${this.maxInstances} instances are busy; try again shortly`);
    }
    this.live += 1;
    try {
      return await this.runtime.instantiateConfigured(this.setupFor(agent), this.configJson, this.stateDir);
    } catch (e) {
      this.live -= 1;
      throw e;
    }
  }

  /** Returns an instance to its pool, unless it broke (or the broker was closed meanwhile). */
  checkin(pool, sandbox) {
    if (sandbox.isBroken() || this.closed) {
      this.live -= 1;
      sandbox.close();
      return;
    }
    if (this.maxIdle === 0) return this.drop(sandbox);
    if (this.order.length >= this.maxIdle) this.evictOldest();
    if (!this.idle.has(pool)) this.idle.set(pool, []);
    this.idle.get(pool).push(sandbox);
    this.order.push([pool, sandbox]);
  }

  close() {
    this.closed = true;
    while (this.evictOldest());
  }
}

export class Service {
  /**
   * `gateway`: `{call(method, params), histories(list)}` (wire JSON); `tree`: what the N15
   * guard must know (visibility.mjs); `config`: a DeploymentConfig; `limits`: AgentLimits;
   * `jobStore`: where jobs are kept (memory when absent); `log(level, message)`.
   */
  constructor({ runtime, gateway, tree, config, stateDir, limits, log, jobStore, maxIdle, maxInstances, now }) {
    this.runtime = runtime;
    this.gateway = gateway;
    this.tree = tree;
    this.config = config;
    this.stateDir = stateDir;
    this.limits = limits;
    this.log = log ?? (() => {});
    this.now = now ?? (() => Date.now());
    this.broker = new Broker({
      runtime,
      configJson: config.json,
      stateDir,
      maxIdle,
      maxInstances,
      setupFor: (agent) => ({ name: agent, gateway, limits: limits.forAgent(agent), log: this.log }),
    });
    this.jobs = new JobRunner(jobStore ?? new MemoryJobStore(), {
      limits: (agent) => this.limits.forAgent(agent),
      now: () => this.now(),
      log: (level, message) => this.log(level, message),
      resume: (record, wakeup) => this.resume(record, wakeup),
      wait: (record, params) => this.wait(record, params),
    });
    this.scheduler = null;
  }

  access(caller) {
    return access(this.config, callerContext(caller));
  }

  /** The gateway as a caller may see it: a restricted caller gets the guard around it. */
  gatewayFor(acc) {
    if (!acc.restriction) return this.gateway;
    return new VisibilityGuard({
      inner: this.gateway,
      tree: this.tree,
      log: this.log,
      callerKey: acc.restriction.own,
      spawnAgents: acc.restriction.spawnAgents,
    });
  }

  async withInstance(agent, pool, gateway, f) {
    const sandbox = await this.broker.checkout(agent, pool);
    sandbox.setGateway(gateway);
    try {
      return await f(sandbox);
    } finally {
      this.broker.checkin(pool, sandbox);
    }
  }

  /** The tool descriptions, in the component's order. */
  async describe() {
    return this.withInstance('describe', 'describe\ndescribe', this.gateway, (s) => s.describe());
  }

  /**
   * Calls a tool as `caller` (caller-context JSON), in an instance of the caller's agent;
   * answers the tool's JSON result text. The background work it starts is kept and run by
   * the scheduler. Throws a CallError.
   */
  async call(caller, tool, argumentsJson) {
    const ctx = callerContext(caller);
    const acc = access(this.config, ctx);
    const output = await this.withInstance(acc.agent, acc.pool, this.gatewayFor(acc), (s) => s.callTool(tool, ctx, argumentsJson));
    if (output.jobs.length > 0) {
      this.jobs.start(acc.agent, ctx, output.jobs);
      this.scheduler?.ring();
    }
    return output.result;
  }

  /** A job runs in an instance of its agent, seeing the gateway as its caller may. */
  async resume(record, wakeup) {
    const acc = access(this.config, callerContext(record.caller));
    return this.withInstance(record.agent, acc.pool, this.gatewayFor(acc), (s) => s.resumeJob(JobRunner.job(record), wakeup));
  }

  async wait(record, params) {
    const acc = access(this.config, callerContext(record.caller));
    try {
      return { ok: await this.gatewayFor(acc).call('agent.wait', params) };
    } catch (e) {
      // A gateway that cannot be reached (restarting) is asked again later.
      return { error: e.message, transient: e.transient === true };
    }
  }

  /** Runs the jobs that can make progress now (see JobRunner.runReady). */
  runJobs(deadlineMs) {
    return this.jobs.runReady(deadlineMs);
  }

  /** Runs jobs in the background (resuming those a previous process left) until stop(). */
  startScheduler() {
    if (!this.scheduler) this.scheduler = this.jobs.startScheduler();
    return this.scheduler;
  }

  async stop() {
    const scheduler = this.scheduler;
    this.scheduler = null;
    await scheduler?.stop();
    this.broker.close();
    // The bridge's connection (openclaw-gateway.mjs) ends with the service that owns it.
    this.gateway?.close?.();
  }

  pendingJobs() {
    return this.jobs.pending();
  }
}
