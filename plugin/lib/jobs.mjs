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
//
// Exactly once in effect across a stop, as the Rust host's runner: a job is
// stepped only under its claim (across processes, as `host/src/jobs/store.rs` claims one)
// and from its record as it is on disk, read again once claimed; a step's ids are seeded
// by the job's key and step count (ids.mjs), so a step made again after a stop sends the
// same keys; the new jobs a step starts are kept under keys derived from the step, and a
// call's jobs under keys derived from its intent, each saved only if absent (a step or a
// call made again keeps them once); a call's jobs are not stepped while its intent is on
// disk, and an intent left by a process that stopped is made again, once (intent.mjs).
//
// A claim is a lock file beside the job that names its holder (owner-lock.mjs: Node has no
// OS lock that dies with its process), held from the job's wait to the end of its step: a
// second process that runs jobs over the same directory (two gateways, a command line that
// runs them), and a second scheduler in this one, pass the job by; a holder that died is
// judged gone and its claim broken. A call's intent is held the same way (intent.mjs).

import { createHash, randomUUID } from 'node:crypto';
import { readFileSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';

import { createExclusively, ensureDir, sweepTemporaries, writeAtomically } from './files.mjs';
import { claimIntent, intentExists, intentIds, IntentRecorder, newIntent, sweepCalls } from './intent.mjs';
import { OwnerLock, sweepLocks } from './owner-lock.mjs';

const validKey = (key) => typeof key === 'string' && /^[A-Za-z0-9_-]{1,128}$/.test(key);

const byIdThenKey = (a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : a.key < b.key ? -1 : a.key > b.key ? 1 : 0);

/**
 * How far in the future a job's timer may be set (30 days): a guest asking for later is
 * resumed then and may set it again. Scheduling is each host's own (it depends on where the host runs).
 */
const MAX_TIMER_MS = 30 * 86_400_000;

/** How often leftovers of writers that died are looked for, at most. */
const SWEEP_EVERY_MS = 60_000;

/**
 * The key of a new job a step starts (`successor_key` of the Rust host): derived from the
 * step, so the step made again after a stop keeps it once, and as short as any key however
 * deep the chain.
 */
export function successorKey(key, steps, n) {
  return createHash('sha256').update(`${key}/${steps}/${n}`).digest().subarray(0, 16).toString('hex');
}

/** A claimed job (`record`: as it was when claimed); `release()` lets it go, once. */
export class JobClaim {
  constructor(record, free) {
    this.record = record;
    this.free = free;
    this.released = false;
  }

  release() {
    if (this.released) return;
    this.released = true;
    this.free();
  }
}

export class MemoryJobStore {
  constructor() {
    this.jobs = new Map();
    this.claimed = new Set();
    this.callsDir = null;
  }
  /** Claims a job for its holder alone: answers a JobClaim, or null when it is held or has ended. */
  claim(key) {
    if (this.claimed.has(key) || !this.jobs.has(key)) return null;
    this.claimed.add(key);
    return new JobClaim(this.get(key), () => this.claimed.delete(key));
  }
  save(record) {
    this.jobs.set(record.key, structuredClone(record));
  }
  /** Saves a job only if no job has its key; answers whether it was saved. */
  saveNew(record) {
    if (this.jobs.has(record.key)) return false;
    this.save(record);
    return true;
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
  intents() {
    return new Set();
  }
  hasIntent() {
    return false;
  }
  sweep() {}
}

export class DirJobStore {
  constructor(dir) {
    this.dir = dir;
    /** Beside the jobs, the intents of tool calls in flight that have started side effects. */
    this.callsDir = join(dir, 'calls');
  }
  path(key) {
    if (!validKey(key)) throw new Error(`invalid job key ${JSON.stringify(key)}`);
    return join(this.dir, `${key}.json`);
  }
  static text(record) {
    const { key: _key, ...body } = record;
    return `${JSON.stringify(body, null, 2)}\n`;
  }
  save(record) {
    ensureDir(this.dir);
    writeAtomically(this.path(record.key), DirJobStore.text(record));
  }
  /**
   * Saves a job only if no job has its key (answers whether it was saved): a call or a step
   * made again after a stop saves what it had not saved, and leaves alone what it had.
   */
  saveNew(record) {
    ensureDir(this.dir);
    return createExclusively(this.path(record.key), DirJobStore.text(record));
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
  /**
   * Claims a job across processes (its lock, `<key>.json.lock`, names this process):
   * answers a JobClaim with the job as it is on disk once claimed, or null when another
   * holder that may be alive has it, or it has ended. Released after the job's file is
   * written or removed, so a process that claims it next reads what the step left.
   */
  claim(key) {
    let path;
    try {
      path = this.path(key);
    } catch {
      return null;
    }
    const lock = OwnerLock.tryAcquire(`${path}.lock`);
    if (!lock) return null;
    const record = this.get(key);
    if (!record) {
      lock.release();
      return null;
    }
    return new JobClaim(record, () => lock.release());
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
  /** The ids of the call intents on disk. */
  intents() {
    return intentIds(this.callsDir);
  }
  hasIntent(id) {
    return intentExists(this.callsDir, id);
  }
  /**
   * Removes what writers that died left: old temporaries, the claims of jobs that ended
   * under a holder that died, the locks of intents never written.
   */
  sweep() {
    try {
      const names = readdirSync(this.dir);
      sweepTemporaries(this.dir, names);
      sweepLocks(this.dir, names);
    } catch {
      // no directory yet
    }
    sweepCalls(this.callsDir);
  }
}

/**
 * Runs jobs for a host: `{limits(agent), now(), log(level, msg), resume(record, wakeup) →
 * Promise<jobs>, wait(record, params) → Promise<{ok}|{error}>, replay?(intent) →
 * Promise<jobs>}`.
 */
export class JobRunner {
  constructor(store, host) {
    this.store = store;
    this.host = host;
    /** Keys (and `call:<intent>`) being worked on in this process (never picked up twice). */
    this.busy = new Set();
    this.reported = new Set();
    /** Steps and replays in flight (a graceful stop waits for them). */
    this.inFlight = new Set();
    this.stopping = false;
    this.sweptAt = -Infinity;
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

  /** Whether a job belongs to a call whose intent is still on disk (not stepped before). */
  uncommitted(record) {
    return typeof record.call === 'string' && this.store.hasIntent(record.call);
  }

  /** The pending jobs that may be stepped: a call's jobs wait while its intent is on disk. */
  steppable() {
    const jobs = this.pending();
    const intents = this.store.intents();
    return intents.size === 0 ? jobs : jobs.filter((r) => !(typeof r.call === 'string' && intents.has(r.call)));
  }

  /** A recorder of the intent of a tool call about to be made (intent.mjs). */
  intentFor(agent, caller, tool, argumentsJson) {
    return new IntentRecorder(newIntent(agent, caller, tool, argumentsJson), this.store.callsDir ?? null);
  }

  /**
   * Keeps the jobs a tool call started (bounded). A call that recorded its intent keeps
   * them under the intent's keys, then lets the intent go.
   */
  start(agent, caller, jobs, intent = null) {
    const call = intent?.recorded() ? intent.id : null;
    this.commit(agent, caller, jobs, call, call ? intent.take() : null);
  }

  /**
   * Keeps a call's jobs; with an intent, under keys derived from it (`<intent>-<n>`, a job
   * kept before is left as it is), then the intent is removed.
   */
  commit(agent, caller, jobs, call, held) {
    this.admit(agent, caller, jobs, null).forEach((record, n) => {
      if (call) {
        record.key = `${call}-${n}`;
        record.call = call;
        this.persist(record, true);
      } else {
        this.persist(record, false);
      }
    });
    if (held) {
      try {
        held.done();
      } catch (e) {
        this.host.log('error', `cannot remove the intent of call ${call}: ${e.message}`);
      }
    }
  }

  persist(record, onlyIfNew = false) {
    try {
      if (onlyIfNew) this.store.saveNew(record);
      else this.store.save(record);
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

  /** Counts work in flight until it ends (a graceful stop waits for it). */
  track(work) {
    this.inFlight.add(work);
    work.then(
      () => this.inFlight.delete(work),
      () => this.inFlight.delete(work),
    );
    return work;
  }

  /** Resolves once no step or replay is in flight. */
  async settle() {
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
  }

  /** Asks foreground runs (`runReady`) to return after the step in flight. */
  stop() {
    this.stopping = true;
  }

  /** One step of a job; its successors replace it. */
  step(record, wakeup) {
    return this.track(this.stepUntracked(record, wakeup));
  }

  async stepUntracked(record, wakeup) {
    try {
      const next = await this.host.resume(record, wakeup);
      // The first successor under the job's own id continues it (same key); every other
      // successor is a new job under a key derived from this step, saved only if absent
      // (so a step made again after a stop keeps it once).
      let continues = false;
      this.admit(record.agent, record.caller, next, record).forEach((successor, n) => {
        if (!continues && successor.id === record.id) {
          continues = true;
          successor.key = record.key;
          this.persist(successor);
        } else {
          successor.key = successorKey(record.key, record.steps, n);
          this.persist(successor, true);
        }
      });
      if (!continues) this.store.remove(record.key);
    } catch (e) {
      this.host.log('warn', `job ${record.id} (${record.kind}) failed and is dropped: ${e.message}`);
      this.store.remove(record.key);
    }
  }

  /** The intents on disk not being made again here (their holders may be alive). */
  replayable() {
    if (!this.store.callsDir || !this.host.replay) return [];
    const now = Date.now();
    if (now - this.sweptAt >= SWEEP_EVERY_MS) {
      this.sweptAt = now;
      this.store.sweep();
    }
    return [...this.store.intents()].filter((id) => !this.busy.has(`call:${id}`));
  }

  /**
   * Makes a tool call again from an intent its process left (once; a second stop in its
   * replay drops it), then keeps its jobs under the intent's keys. Answers whether it ran.
   */
  async replay(id) {
    const busy = `call:${id}`;
    if (this.busy.has(busy)) return false;
    this.busy.add(busy);
    try {
      return await this.track(this.replayClaimed(id));
    } finally {
      this.busy.delete(busy);
    }
  }

  async replayClaimed(id) {
    const claimed = claimIntent(this.store.callsDir, id);
    if (!claimed) return false;
    const { intent, held } = claimed;
    if (intent.replays >= 1) {
      this.host.log('warn', `call ${intent.id} (${intent.tool}) stopped twice before its jobs were kept; it is dropped`);
      held.done();
      return false;
    }
    intent.replays += 1;
    try {
      held.rewrite(intent);
    } catch (e) {
      this.host.log('error', `cannot record the replay of call ${intent.id}: ${e.message}`);
      held.release();
      return false;
    }
    this.host.log('info', `making call ${intent.id} (${intent.tool}) again: its process stopped before its jobs were kept`);
    let jobs;
    try {
      jobs = await this.host.replay(intent);
    } catch (e) {
      this.host.log('warn', `call ${intent.id} (${intent.tool}) failed when made again and is dropped: ${e.message}`);
      held.done();
      return true;
    }
    this.commit(intent.agent, intent.caller, jobs, intent.id, held);
    return true;
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
   * Runs the jobs that can make progress now, one after another, until none is left,
   * `deadlineMs` passes or `stop()` is asked: intents left by stopped processes, waits for
   * runs for real, and timers whose time has come. Answers how many steps (and replays)
   * ran.
   */
  async runReady(deadlineMs = Infinity) {
    const until = Date.now() + deadlineMs;
    const over = () => this.stopping || Date.now() >= until;
    let steps = 0;
    for (;;) {
      if (over()) return steps;
      let ran = 0;
      for (const id of this.replayable()) {
        if (over()) return steps;
        if (await this.replay(id)) ran += 1;
      }
      const now = this.host.now();
      const ready = this.steppable().filter((r) => this.ready(r, now) && !this.busy.has(r.key));
      if (ready.length === 0 && ran === 0) return steps;
      let heldElsewhere = 0;
      for (const listed of ready) {
        if (over()) return steps + ran;
        if (this.busy.has(listed.key)) continue;
        // Claimed (no other process or scheduler steps it meanwhile), as it is on disk now:
        // it may have moved on since it was listed.
        const claim = this.store.claim(listed.key);
        if (!claim) {
          heldElsewhere += 1;
          continue;
        }
        this.busy.add(listed.key);
        try {
          const record = claim.record;
          if (this.uncommitted(record)) continue;
          const wakeup = await this.wakeupOf(record, Number.isFinite(until) ? until : undefined);
          if (wakeup && !this.stopping) {
            await this.step(record, wakeup);
            ran += 1;
          }
        } finally {
          claim.release();
          this.busy.delete(listed.key);
        }
      }
      steps += ran;
      // What is left is another's to make progress with (its holder's, while alive).
      if (ran === 0 && heldElsewhere === ready.length) return steps;
      if (ran === 0) await new Promise((r) => setTimeout(r, 50));
    }
  }

  /**
   * Runs jobs in the background until `stop()`: intents left by stopped processes, ready
   * jobs and due timers in turn, and each wait for a run's end concurrently, so one slow
   * flow never holds up another (nor a tool call). Answers `{stop, ring}`; `ring()` says
   * there may be new work. `stop()` is graceful: no new step starts, the steps and replays
   * in flight end (each bounded by its instance's limits), and waits in flight are
   * abandoned (nothing was done yet for them; their jobs stay pending). It may be asked
   * again; every ask resolves when that is done.
   */
  startScheduler() {
    let stopped = false;
    let timer = null;
    let wake = null;
    let dirty = false;
    /** The claims of the jobs this scheduler waits for or steps. */
    const held = new Set();
    const ring = () => {
      dirty = true;
      if (wake) wake();
    };
    const failed = (what) => (e) => this.host.log('error', `the host failed while ${what}; it stays pending: ${e.message}`);
    const loop = async () => {
      while (!stopped) {
        dirty = false;
        // Calls whose process stopped before their jobs were kept, one at a time.
        for (const id of this.replayable()) {
          if (stopped) break;
          await this.replay(id).catch(failed(`making call ${id} again`));
        }
        const now = this.host.now();
        let nextTimer = Infinity;
        for (const record of this.steppable()) {
          if (stopped) break;
          if (this.busy.has(record.key)) continue;
          if (record.wake.type === 'at' && record.wake.at > now) {
            nextTimer = Math.min(nextTimer, record.wake.at);
            continue;
          }
          // Claimed (no other process or scheduler steps it meanwhile), as it is on disk
          // now: it may have moved on since it was listed.
          const claim = this.store.claim(record.key);
          if (!claim) continue;
          held.add(claim);
          this.busy.add(record.key);
          const work = (async () => {
            const current = claim.record;
            if (this.uncommitted(current)) return;
            const wakeup = await this.wakeupOf(current, undefined);
            // A stop that came during the wait let the claim go: the job is another's now.
            if (!wakeup || stopped || claim.released) return;
            claim.stepping = true;
            await this.step(current, wakeup);
          })();
          work
            .catch(failed(`stepping job ${record.id} (${record.kind})`))
            .finally(() => {
              held.delete(claim);
              claim.release();
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
        // The waits in flight are abandoned: their jobs go to whoever runs jobs next (a
        // reloaded plugin's scheduler), now rather than when the gateway answers.
        for (const claim of held) if (!claim.stepping) claim.release();
        ring();
        await done;
        await this.settle();
      },
    };
  }
}
