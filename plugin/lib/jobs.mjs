// Background jobs (`host/src/jobs/`): the work a tool call starts (the agent-to-agent flow
// of `sessions_send`, the sub-agent completion and announce of `sessions_spawn`, the
// archive of sub-agent sessions). A job is a small state machine whose state the guest
// owns; the host persists it, waits for what it waits for, and resumes it in an instance of
// its agent.
//
// Kept one file a job (`<dir>/<key>.json`, written atomically, removed when the job ends)
// so a gateway restart resumes what was going on, or in memory (conformance runs). Files
// are named by keys the host assigns, never by the ids the guest chose. Every bound of the
// Rust host applies: jobs a call may start, steps a job may take, jobs an agent may have
// pending, and every wait clamped.

import { randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync, fsyncSync, openSync, closeSync } from 'node:fs';
import { join } from 'node:path';

import { MAX_TIMER_MS } from './limits.mjs';

const validKey = (key) => typeof key === 'string' && /^[A-Za-z0-9_-]{1,128}$/.test(key);

const byIdThenKey = (a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : a.key < b.key ? -1 : a.key > b.key ? 1 : 0);

export class MemoryJobStore {
  constructor() {
    this.jobs = new Map();
  }
  save(record) {
    this.jobs.set(record.key, structuredClone(record));
  }
  remove(key) {
    this.jobs.delete(key);
  }
  get(key) {
    const r = this.jobs.get(key);
    return r ? structuredClone(r) : undefined;
  }
  loadAll() {
    return { jobs: [...this.jobs.values()].map((r) => structuredClone(r)).sort(byIdThenKey), problems: [] };
  }
}

export class DirJobStore {
  constructor(dir) {
    this.dir = dir;
  }
  path(key) {
    if (!validKey(key)) throw new Error(`invalid job key ${JSON.stringify(key)}`);
    return join(this.dir, `${key}.json`);
  }
  save(record) {
    mkdirSync(this.dir, { recursive: true });
    const path = this.path(record.key);
    const { key: _key, ...body } = record;
    const tmp = `${path}.${process.pid}.${randomUUID()}.tmp`;
    writeFileSync(tmp, `${JSON.stringify(body, null, 2)}\n`);
    const fd = openSync(tmp, 'r');
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, path);
  }
  remove(key) {
    try {
      rmSync(this.path(key), { force: true });
    } catch {
      // an invalid key names no file
    }
  }
  get(key) {
    try {
      return { ...JSON.parse(readFileSync(this.path(key), 'utf8')), key };
    } catch {
      return undefined;
    }
  }
  loadAll() {
    const jobs = [];
    const problems = [];
    let names = [];
    try {
      names = readdirSync(this.dir);
    } catch {
      return { jobs, problems };
    }
    for (const name of names) {
      if (!name.endsWith('.json')) continue;
      const key = name.slice(0, -5);
      if (!validKey(key)) continue;
      try {
        const record = JSON.parse(readFileSync(join(this.dir, name), 'utf8'));
        if (!record || typeof record !== 'object' || typeof record.id !== 'string' || typeof record.agent !== 'string') {
          throw new Error('not a job record');
        }
        jobs.push({ ...record, key });
      } catch (e) {
        problems.push(`${join(this.dir, name)}: ${e.message}`);
      }
    }
    return { jobs: jobs.sort(byIdThenKey), problems };
  }
}

/**
 * Runs jobs for a host: `{limits(agent), now(), log(level, msg), resume(record, wakeup) →
 * Promise<jobs>, wait(record, params) → Promise<{ok}|{error}>}`.
 */
export class JobRunner {
  constructor(store, host) {
    this.store = store;
    this.host = host;
    this.busy = new Set();
    this.reported = new Set();
  }

  pending() {
    const { jobs, problems } = this.store.loadAll();
    for (const problem of problems) {
      if (this.reported.has(problem)) continue;
      this.reported.add(problem);
      this.host.log('warn', `unreadable job file kept aside: ${problem}`);
    }
    return jobs;
  }

  pendingOf(agent) {
    return this.pending().filter((r) => r.agent === agent).length;
  }

  /** Keeps the jobs a tool call started (bounded). */
  start(agent, caller, jobs) {
    for (const record of this.admit(agent, caller, jobs, null)) this.persist(record);
  }

  persist(record) {
    try {
      this.store.save(record);
    } catch (e) {
      this.host.log('error', `cannot persist job ${record.id}: ${e.message}`);
    }
  }

  /** The jobs a call (`parent` null) or a step started, within the agent's limits. */
  admit(agent, caller, jobs, parent) {
    const limits = this.host.limits(agent);
    const steps = parent ? parent.steps + 1 : 0;
    if (steps > limits.maxStepsPerJob) {
      if (parent) this.host.log('warn', `job ${parent.id} (${parent.kind}) reached its ${limits.maxStepsPerJob} steps and is dropped`);
      return [];
    }
    if (jobs.length > limits.maxJobsPerCall) {
      this.host.log('warn', `[${agent}] ${jobs.length - limits.maxJobsPerCall} background jobs past the limit of ${limits.maxJobsPerCall} a call are dropped`);
    }
    const continuing = parent?.id;
    let pending;
    const horizon = this.host.now() + MAX_TIMER_MS;
    const admitted = [];
    for (const job of jobs.slice(0, limits.maxJobsPerCall)) {
      const wake = { ...job.wake };
      if (wake.type === 'runEnd') wake.wait = { ...wake.wait, timeoutMs: Math.min(wake.wait.timeoutMs, limits.maxWaitMs) };
      if (wake.type === 'at') wake.at = Math.min(wake.at, horizon);
      if (job.id !== continuing) {
        pending ??= this.pendingOf(agent);
        if (pending >= limits.maxPendingJobs) {
          this.host.log('warn', `[${agent}] job ${job.id} (${job.kind}) refused: ${limits.maxPendingJobs} jobs are pending`);
          continue;
        }
        pending += 1;
      }
      admitted.push({ key: randomUUID(), id: job.id, kind: job.kind, sessionKey: job.sessionKey, state: job.state, wake, agent, caller, steps });
    }
    return admitted;
  }

  /** The one rule for a wait a job asks for: at most `maxWaitMs`, and ending by `until`. */
  boundedWait(record, until) {
    const maxWait = this.host.limits(record.agent).maxWaitMs;
    const left = until === undefined ? maxWait : Math.min(maxWait, until - Date.now());
    return { ...record.wake.wait, timeoutMs: Math.max(1, Math.min(record.wake.wait.timeoutMs, Math.floor(left))) };
  }

  /** The job as a guest gets it. */
  static job(record) {
    return { id: record.id, kind: record.kind, sessionKey: record.sessionKey, state: record.state, wake: record.wake };
  }

  /** One step of a job; its successors replace it. */
  async step(record, wakeup) {
    try {
      const next = await this.host.resume(record, wakeup);
      let continues = false;
      for (const successor of this.admit(record.agent, record.caller, next, record)) {
        if (!continues && successor.id === record.id) {
          continues = true;
          successor.key = record.key;
        }
        this.persist(successor);
      }
      if (!continues) this.store.remove(record.key);
    } catch (e) {
      this.host.log('warn', `job ${record.id} (${record.kind}) failed and is dropped: ${e.message}`);
      this.store.remove(record.key);
    }
  }

  ready(record, now) {
    if (record.wake.type === 'at') return record.wake.at <= now;
    return true;
  }

  /** The wakeup of a claimed job (waiting for its run's end first); null: not now. */
  async wakeupOf(record, until) {
    switch (record.wake.type) {
      case 'now':
        return { type: 'now' };
      case 'at':
        return record.wake.at <= this.host.now() ? { type: 'timer' } : null;
      case 'runEnd': {
        const bounded = this.boundedWait(record, until);
        const answer = await this.host.wait(record, bounded);
        if (answer.transient) return null;
        // A wait cut short by our own deadline (not by the limit) is retried later.
        const limit = this.boundedWait(record, undefined).timeoutMs;
        if (answer.ok && answer.ok.status === 'timeout' && bounded.timeoutMs < limit) return null;
        return answer.error !== undefined ? { type: 'runEnded', error: answer.error } : { type: 'runEnded', ok: answer.ok };
      }
      default:
        return { type: 'now' };
    }
  }

  /**
   * Runs the jobs that can make progress now, one after another, until none is left or
   * `deadlineMs` passes: waits for runs for real, and timers whose time has come. Answers
   * how many steps ran.
   */
  async runReady(deadlineMs = Infinity) {
    const until = Date.now() + deadlineMs;
    let steps = 0;
    for (;;) {
      const now = this.host.now();
      const ready = this.pending().filter((r) => this.ready(r, now) && !this.busy.has(r.key));
      if (ready.length === 0 || Date.now() >= until) return steps;
      let ran = 0;
      for (const listed of ready) {
        if (Date.now() >= until) return steps;
        if (this.busy.has(listed.key)) continue;
        this.busy.add(listed.key);
        try {
          const record = this.store.get(listed.key);
          if (!record) continue;
          const wakeup = await this.wakeupOf(record, Number.isFinite(until) ? until : undefined);
          if (wakeup) {
            await this.step(record, wakeup);
            steps += 1;
            ran += 1;
          }
        } finally {
          this.busy.delete(listed.key);
        }
      }
      if (ran === 0) await new Promise((r) => setTimeout(r, 50));
    }
  }

  /**
   * Runs jobs in the background until `stop()`: ready jobs and due timers in turn, and each
   * wait for a run's end concurrently, so one slow flow never holds up another (nor a tool
   * call). Answers `{stop, ring}`; `ring()` says there may be new work.
   */
  startScheduler() {
    let stopped = false;
    let timer = null;
    let wake = null;
    let dirty = false;
    const ring = () => {
      dirty = true;
      if (wake) wake();
    };
    const loop = async () => {
      while (!stopped) {
        dirty = false;
        const now = this.host.now();
        let nextTimer = Infinity;
        for (const record of this.pending()) {
          if (this.busy.has(record.key)) continue;
          if (record.wake.type === 'at' && record.wake.at > now) {
            nextTimer = Math.min(nextTimer, record.wake.at);
            continue;
          }
          this.busy.add(record.key);
          const work = (async () => {
            const current = this.store.get(record.key);
            if (!current) return;
            const wakeup = await this.wakeupOf(current, undefined);
            if (wakeup && !stopped) await this.step(current, wakeup);
          })();
          work
            .catch((e) => this.host.log('error', `the host failed while stepping job ${record.id} (${record.kind}); it stays pending: ${e.message}`))
            .finally(() => {
              this.busy.delete(record.key);
              ring();
            });
          // Ready jobs run one at a time; waits for runs go on concurrently.
          if (record.wake.type !== 'runEnd') await work.catch(() => {});
        }
        const pause = Math.min(1000, Math.max(1, nextTimer - now));
        if (dirty || stopped) continue;
        await new Promise((resolve) => {
          wake = resolve;
          timer = setTimeout(resolve, pause);
          timer.unref?.();
        });
        clearTimeout(timer);
        wake = null;
      }
    };
    const done = loop();
    return {
      ring,
      stop: async () => {
        stopped = true;
        ring();
        await done;
      },
    };
  }
}
