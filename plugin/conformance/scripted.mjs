// A scripted gateway: canned answers and a scripted agent runtime, recording every call
// (the `gateway` object of a conformance case, `tests/conformance/FORMAT.md`;
// `host/src/gateway/scripted.rs`). A plain mock: it does not canonicalise keys or evaluate
// the send policy, and its runs finish at once in virtual time. Calls and answers are the
// gateway's JSON, exactly as they would go over the wire.

import { matches } from './pattern.mjs';

const str = (v, k) => (v && typeof v[k] === 'string' ? v[k] : undefined);

/**
 * The kind of a scripted error: the conformance format writes errors as the reference's
 * client words them, and the two it branches on carry their kind (a client-side timeout,
 * a missing session) — the test double reading its own script, as `scripted.rs` does.
 */
function scriptedKind(message) {
  if (message.startsWith('gateway timeout')) return 'timeout';
  if (message.startsWith('No session found')) return 'not-found';
  return 'other';
}

export class ScriptedGateway {
  /** Reads a case's `gateway` object; `now` is the virtual time runs start at. */
  constructor(gateway, now) {
    const g = gateway ?? {};
    this.now = now;
    this.calls = [];
    this.runs = [];
    this.responses = (Array.isArray(g.responses) ? g.responses : []).map((r, i) => {
      const method = str(r, 'method');
      if (method === undefined) throw new Error(`gateway.responses[${i}] has no method`);
      let answer;
      if (r.error !== undefined) {
        const error = typeof r.error === 'string' ? r.error : JSON.stringify(r.error);
        answer = { error, kind: scriptedKind(error) };
      } else answer = { ok: r.result !== undefined ? r.result : {} };
      const times = Number.isSafeInteger(r.times) && r.times >= 0 ? r.times : undefined;
      return { method, params: r.params, answer, timesLeft: times };
    });
    this.rules = (Array.isArray(g.runs) ? g.runs : []).map((r, i) => {
      const status = str(r, 'status') ?? 'ok';
      if (!['ok', 'error', 'timeout'].includes(status)) throw new Error(`gateway.runs[${i}].status must be ok, error or timeout`);
      return {
        pattern: r.match ?? {},
        reply: str(r, 'reply'),
        status,
        error: str(r, 'error'),
        usage: r.usage,
        model: str(r, 'model'),
        durationMs: Number.isSafeInteger(r.durationMs) ? r.durationMs : 0,
      };
    });
  }

  /** Records a call and answers it from `responses` if an entry fits (else undefined). */
  scripted(method, params) {
    this.calls.push({ method, params: structuredClone(params) });
    const entry = this.responses.find(
      (r) => r.method === method && r.timesLeft !== 0 && (r.params === undefined || matches(r.params, params)),
    );
    if (!entry) return undefined;
    if (entry.timesLeft !== undefined) entry.timesLeft -= 1;
    return entry.answer;
  }

  /** A gateway call: resolves to the JSON answer, or rejects with the gateway's message. */
  async call(method, params) {
    return this.callSync(method, params);
  }

  callSync(method, params) {
    const answer = this.scripted(method, params);
    if (answer?.error !== undefined) throw Object.assign(new Error(answer.error), { kind: answer.kind });
    if (answer !== undefined) return answer.ok;
    switch (method) {
      case 'chat.history':
        return this.transcript(params);
      case 'agent':
        return this.startRun(params);
      case 'agent.wait':
        return this.waitFor(params);
      default:
        return {};
    }
  }

  /** One recorded `chat.history` call each, in order, as the cases record them. */
  async histories(list) {
    return list.map((params) => {
      try {
        return { ok: this.callSync('chat.history', params) };
      } catch (e) {
        return { error: e.message, kind: e.kind ?? 'other' };
      }
    });
  }

  transcript(params) {
    const messages = [];
    for (const run of this.runs.filter((r) => r.sessionKey === params.sessionKey)) {
      messages.push({ role: 'user', content: [{ type: 'text', text: run.message }] });
      if (run.reply !== undefined && run.status !== 'timeout') {
        messages.push({ role: 'assistant', content: [{ type: 'text', text: run.reply }] });
      }
    }
    const limit = typeof params.limit === 'number' ? params.limit : messages.length;
    return { messages: messages.slice(Math.max(0, messages.length - limit)) };
  }

  startRun(params) {
    const id = `run-${this.runs.length + 1}`;
    const rule = this.rules.find((r) => matches(r.pattern, params));
    this.runs.push({
      id,
      sessionKey: params.sessionKey ?? '',
      message: params.message,
      reply: rule?.reply,
      status: rule?.status ?? 'ok',
      error: rule?.error,
      usage: rule?.usage,
      model: rule?.model,
      startedAt: this.now,
      endedAt: this.now + (rule?.durationMs ?? 0),
    });
    return { runId: id, status: 'accepted' };
  }

  waitFor(params) {
    const run = this.runs.find((r) => r.id === params.runId);
    if (!run) return {};
    if (run.status === 'timeout') return { runId: run.id, status: 'timeout' };
    const answer = { runId: run.id, status: run.status, startedAt: run.startedAt, endedAt: run.endedAt };
    if (run.error !== undefined) answer.error = run.error;
    if (run.usage !== undefined) answer.usage = run.usage;
    if (run.model !== undefined) answer.model = run.model;
    return answer;
  }

  /** The session a run belongs to (for the N15 guard's `agent.wait` check). */
  runSession(runId) {
    return this.runs.find((r) => r.id === runId)?.sessionKey;
  }
}
