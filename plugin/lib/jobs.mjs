// Background jobs, run as the Rust host's runner runs them (`host/src/jobs/runner.rs`), by
// its rules (`host-rules/`, asked of the guard component's `jobRules`). The plugin's own:
// the files jobs are kept in, the claims, and the scheduling on Node's event loop. A claim
// is a lock file naming its holder (owner-lock.mjs: Node has no OS lock that dies with its
// process), held from the job's wait to the end of its step: a second process that runs
// jobs over the same directory, and a second scheduler in this one, pass the job by.

import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

import { asked } from './components.mjs';
import { jobRules } from './guard.mjs';
import { IntentRecorder } from './intent.mjs';
import { KeyedFiles } from './keyed-files.mjs';

/** How often leftovers of writers that died are looked for, at most. */
const SWEEP_EVERY_MS = 60_000;

/** The message of what a rule answered as its `err` (jco throws it as it is). */
const said = (e) => (e instanceof Error ? e.message : String(e));

/** A kept job (its record's JSON, with its key) from its file's text; throws saying what is wrong. */
export function readJob(key, text) {
  return JSON.parse(asked(() => jobRules().readJob(key, text)));
}

/**
 * Jobs on disk, a file a job, so a gateway restart resumes them; beside them, the intents
 * of the tool calls in flight (`calls/`, intent.mjs). A job's lock is released after its
 * file is written or removed, so a process that claims it next reads what the step left.
 */
export class DirJobStore extends KeyedFiles {
  constructor(dir) {
    super(dir);
    this.calls = new KeyedFiles(join(dir, 'calls'));
  }
  /** Claims the job `key` as it is kept now (`value`: its record; see KeyedFiles.claim). */
  claim(key) {
    return super.claim(key, (text) => readJob(key, text));
  }
  /** Claims the intent `id` whose holder is gone (`value`: its JSON); an unreadable one is set aside. */
  claimIntent(id) {
    return this.calls.claim(id, (text) => jobRules().readIntent(id, text), true);
  }
  sweep() {
    super.sweep();
    this.calls.sweep();
  }
}

/**
 * Runs the jobs of `host`, the service whose calls start them (service.mjs): its `limits`
 * (AgentLimits), `now()`, `log(level, msg)`, `resume(record, wakeup)` → Promise<jobs>,
 * `wait(record, params)` → Promise<{ok}|{error, transient}> (or a rejection, read alike)
 * and `replay?(intent)` → Promise<jobs>.
 */
export class JobRunner {
  constructor(store, host) {
    this.store = store;
    this.host = host;
    /** The keys of the jobs claimed in this process (a pass passes them by). */
    this.busy = new Set();
    this.reported = new Set();
    /** Steps and replays in flight (a graceful stop waits for them). */
    this.inFlight = new Set();
    this.stopping = false;
    this.sweptAt = -Infinity;
  }

  /**
   * One look at the jobs kept (the rules' `lookAtJobs`): `{pending, due, next}`, the jobs by
   * id, those a pass claims now, and the next timer's time; unreadable files are logged once
   * and left alone.
   */
  look() {
    // A file gone since it was listed is passed by.
    const files = this.store.keys().map((key) => [key, this.store.read(key)]).filter(([, text]) => text !== undefined);
    const look = jobRules().lookAtJobs(files, this.store.calls.keys(), BigInt(this.host.now()));
    for (const [key, why] of look.unreadable) {
      const problem = `${this.store.where(key)}: ${why}`;
      if (this.reported.has(problem)) continue;
      this.reported.add(problem);
      this.host.log('warn', `unreadable job file kept aside: ${problem}`);
    }
    const pending = look.pending.map((text) => JSON.parse(text));
    return { pending, due: Array.from(look.due, (i) => pending[i]), next: look.nextAt === undefined ? Infinity : Number(look.nextAt) };
  }

  pending() {
    return this.look().pending;
  }

  pendingOf(agent) {
    return this.pending().filter((r) => r.agent === agent).length;
  }

  /** A recorder of the intent of a tool call about to be made (intent.mjs). */
  intentFor(agent, caller, tool, argumentsJson) {
    const id = randomUUID().replaceAll('-', '');
    return new IntentRecorder(id, jobRules().newIntent(id, agent, JSON.stringify(caller), tool, argumentsJson), this.store.calls);
  }

  /** An agent's bounds on its jobs, as the rules take them. */
  bounds(agent) {
    const l = this.host.limits.forAgent(agent);
    return { maxJobsPerCall: l.maxJobsPerCall, maxStepsPerJob: l.maxStepsPerJob, maxPendingJobs: l.maxPendingJobs, maxWaitMs: BigInt(l.maxWaitMs) };
  }

  /**
   * Keeps the jobs the tool call `call` (its intent's id) started (the rules' `keepCall`), then
   * removes the intent it `held` (null: none was written).
   */
  start(agent, caller, jobs, call, held = null) {
    try {
      const pending = jobs.length === 0 ? 0 : this.pendingOf(agent);
      const kept = jobRules().keepCall(this.bounds(agent), agent, JSON.stringify(caller), JSON.stringify(jobs), call, held !== null, BigInt(this.host.now()), pending);
      this.keep(kept);
    } catch (e) {
      this.host.log('error', `cannot keep the jobs of call ${call}: ${said(e)}`);
    }
    if (held) {
      try {
        held.done();
      } catch (e) {
        this.host.log('error', `cannot remove the intent of call ${call}: ${e.message}`);
      }
    }
  }

  /** Saves what a call or a step keeps, says what was refused; answers whether the job stepped ends. */
  keep(kept) {
    for (const refusal of kept.refused) this.host.log('warn', refusal.message);
    for (const job of kept.saves) {
      try {
        this.store.write(job.key, job.text, job.onlyIfNew);
      } catch (e) {
        this.host.log('error', `cannot persist job ${job.key}: ${e.message}`);
      }
    }
    return kept.ends;
  }

  /** Counts work in flight until it ends (a graceful stop waits for it). */
  track(work) {
    this.inFlight.add(work);
    work.catch(() => {}).finally(() => this.inFlight.delete(work));
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
  async step(record, wakeup) {
    try {
      const next = await this.host.resume(record, wakeup);
      const pending = next.length === 0 ? 0 : this.pendingOf(record.agent);
      const kept = jobRules().keepStep(this.bounds(record.agent), record.key, JSON.stringify(record), JSON.stringify(next), BigInt(this.host.now()), pending);
      if (this.keep(kept)) this.store.remove(record.key);
    } catch (e) {
      this.host.log('warn', `job ${record.id} (${record.kind}) failed and is dropped: ${said(e)}`);
      this.store.remove(record.key);
    }
  }

  /** The intents on disk (their holders may be alive, this process among them: see `replay`). */
  replayable() {
    if (!this.host.replay) return [];
    const now = Date.now();
    if (now - this.sweptAt >= SWEEP_EVERY_MS) {
      this.sweptAt = now;
      this.store.sweep();
    }
    return this.store.calls.keys();
  }

  /**
   * Makes a tool call again from an intent its process left, once; answers whether it ran.
   * The intent's claim passes it by while its holder lives (a call or a replay of this one).
   */
  async replay(id) {
    const held = this.store.claimIntent(id);
    if (!held) return false;
    let text;
    try {
      text = jobRules().replayedIntent(held.value);
    } catch (dropped) {
      this.host.log('warn', said(dropped));
      held.done();
      return false;
    }
    const intent = JSON.parse(text);
    try {
      held.rewrite(text);
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
    this.start(intent.agent, intent.caller, jobs, intent.id, held);
    return true;
  }

  /**
   * Claims the job `key` as it is kept now (it may have moved on since it was listed) and
   * steps it once its wakeup comes (`halted()`: stop before stepping); answers the claim and
   * its work (whether it stepped), or null when another holds the job.
   */
  claimAndStep(key, until, halted) {
    const claim = this.store.claim(key);
    if (!claim) return null;
    this.busy.add(key);
    const work = (async () => {
      const record = claim.value;
      // A call's jobs are not stepped while its intent is kept.
      if (this.store.calls.keys().includes(record.call)) return false;
      const wakeup = await this.wakeupOf(record, until);
      // A stop that came during the wait let the claim go: the job is another's now.
      if (!wakeup || halted() || claim.released) return false;
      claim.stepping = true;
      await this.track(this.step(record, wakeup));
      return true;
    })();
    const done = work.finally(() => {
      claim.release();
      this.busy.delete(key);
    });
    return { claim, work: done };
  }

  /**
   * The wakeup of a claimed job (the rules' `wakeupOf`; `until`: the deadline of its wait),
   * waiting for its run's end first; null: not now.
   */
  async wakeupOf(record, until) {
    const left = Number.isFinite(until) ? BigInt(Math.max(0, Math.floor(until - Date.now()))) : undefined;
    const maxWait = this.bounds(record.agent).maxWaitMs;
    const plan = asked(() => jobRules().wakeupOf(JSON.stringify(record.wake), BigInt(this.host.now()), maxWait, left));
    if (plan.tag !== 'wait') return plan.tag === 'not-yet' ? null : { type: plan.tag };
    const [timeoutMs, byDeadline] = plan.val;
    const params = { ...record.wake.wait, timeoutMs: Number(timeoutMs) };
    // A gateway that cannot be reached (restarting) is asked again later.
    const answer = await this.host.wait(record, params).catch((e) => ({ error: e.message, transient: e.transient }));
    if (answer.transient) return null;
    // A wait cut short by our own deadline (not by the limit) is retried later.
    if (byDeadline && answer.ok?.status === 'timeout') return null;
    return { type: 'runEnded', ...answer };
  }

  /**
   * One pass over the pending work: the intents left by stopped processes made again, then
   * each due job claimed and stepped. `over()`: start nothing more; `halted()`: a job whose
   * wait ended is not stepped (`over` unless given); `until`: the deadline of waits;
   * `onClaim(claim, work)`: given, a wait for a run goes on without the pass awaiting it, so
   * one slow flow never holds up another. Answers `{ran, ready, held, next}`: the steps and
   * replays that ran, the jobs found due, those another holds, and the next timer's time.
   */
  async pass({ over, halted = over, until, onClaim = null }) {
    const failed = (what) => (e) => this.host.log('error', `the host failed while ${what}; it stays pending: ${e.message}`);
    const out = { ran: 0, ready: 0, held: 0, next: Infinity };
    for (const id of this.replayable()) {
      if (over()) return out;
      if (await this.track(this.replay(id)).catch(failed(`making call ${id} again`))) out.ran += 1;
    }
    const { due, next } = this.look();
    out.next = next;
    for (const record of due) {
      if (over()) break;
      if (this.busy.has(record.key)) continue;
      out.ready += 1;
      const claimed = this.claimAndStep(record.key, until, halted);
      if (!claimed) {
        out.held += 1;
        continue;
      }
      const done = claimed.work.catch(failed(`stepping job ${record.id} (${record.kind})`));
      onClaim?.(claimed.claim, done);
      if (!onClaim || record.wake.type !== 'runEnd') out.ran += (await done) === true ? 1 : 0;
    }
    return out;
  }

  /**
   * Runs the jobs that can make progress now, one after another, until none is left,
   * `deadlineMs` passes or `stop()` is asked; answers how many steps and replays ran.
   */
  async runReady(deadlineMs = Infinity) {
    const until = Date.now() + deadlineMs;
    const over = () => this.stopping || Date.now() >= until;
    let steps = 0;
    while (!over()) {
      // A wait that ended by the deadline is stepped still (it was cut to end by then).
      const { ran, ready, held } = await this.pass({ over, halted: () => this.stopping, until });
      steps += ran;
      // Nothing is ready, or what is left is another's to make progress with (its holder's, while alive).
      if (ran === 0 && held === ready) return steps;
      if (ran === 0) await sleep(50);
    }
    return steps;
  }

  /**
   * Runs jobs in the background, each wait for a run concurrently, until `stop()`; answers
   * `{stop, ring}` (`ring()`: there may be new work). `stop()` is graceful, as the Rust
   * host's `Scheduler`: the steps and replays in flight end, the waits are abandoned (their
   * jobs stay pending); every ask resolves when that is done.
   */
  startScheduler() {
    let stopped = false;
    let wake = null;
    let dirty = false;
    /** The claims of the jobs this scheduler waits for or steps. */
    const held = new Set();
    const ring = () => {
      dirty = true;
      wake?.();
    };
    const onClaim = (claim, work) => {
      held.add(claim);
      work.finally(() => {
        held.delete(claim);
        ring();
      });
    };
    const loop = async () => {
      while (!stopped) {
        dirty = false;
        const { next } = await this.pass({ over: () => stopped, onClaim });
        if (dirty || stopped) continue;
        // The timer is unref'd (it keeps no process alive) and left to ring unheard after a wake.
        const timeout = Math.min(1000, Math.max(1, next - this.host.now()));
        await Promise.race([new Promise((resolve) => (wake = resolve)), sleep(timeout, null, { ref: false })]);
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
