#!/usr/bin/env node
// DEVELOPMENT TOOL ONLY — never a run-time (or CI) dependency of session-tools.
// Helper of probe.sh: talks to a REAL OpenClaw-lineage gateway (clawdbot@2026.1.24-3, protocol v3)
// started by the specification tree's tools/openclaw-gateway/start.sh and records ground truth for the embedded gateway.
//
//   node probe.mjs run --phase NAME --url ws://127.0.0.1:P --token T --state DIR --out FILE
//       run one phase's fixed list of calls over one WebSocket connection, write raw results
//   node probe.mjs assemble --example DIR --oc-home DIR --out FILE PHASE_FILE...
//       merge the phase files, replace volatile values by placeholders, write the fixture
//
// Needs Node >= 22 (global WebSocket); no npm dependencies.

import fs from "node:fs";
import path from "node:path";

// ------------------------------------------------------------------ constants of the sample state
const DISCORD_KEY = "agent:main:discord:channel:1187421193829244938";
const DISCORD_SID = "8c3d9e1f-2a4b-4c6d-8e0f-3a5b7c9d1e2f";
const SUBAGENT_KEY = "agent:main:subagent:6f1e2d3c-4b5a-4978-8a6b-5c4d3e2f1a0b";
const SUBAGENT_SID = "e7f8a9b0-c1d2-4e3f-8a4b-5c6d7e8f9a0b";
const TELEGRAM_KEY = "agent:main:telegram:group:-1001234567890";
const HOOK_KEY = "agent:main:hook:7a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d";
const CRON_KEY = "agent:main:cron:2f6c8a10-4d3e-4b5a-9c7d-8e1f0a2b3c4d";
const SLACK_KEY = "agent:ops:slack:channel:c07abcdef12";
const LABEL_65 = "l".repeat(65);
// fixed, recognisable idempotency keys (UUID-shaped so they look like what the tools send)
const IDEM = {
  telegramDeny: "0a0a0a0a-0000-4000-8000-000000000001",
  subagentProbe: "0a0a0a0a-0000-4000-8000-000000000002",
  badChannel: "0a0a0a0a-0000-4000-8000-000000000003",
  longLabel: "0a0a0a0a-0000-4000-8000-000000000004",
  send: "0a0a0a0a-0000-4000-8000-000000000005",
  unknownRun: "0a0a0a0a-0000-4000-8000-00000000dead",
};

// ------------------------------------------------------------------ phases: fixed, ordered call lists
// Each call: {name, method, params, write?: [keys whose store entry to snapshot], agentStep?: true}
const PHASES = {
  read: {
    description:
      "Read-only calls (sessions.list, sessions.resolve, chat.history) on a fresh copy of examples/openclaw-state.",
    calls: [
      ["sessions.list {}", "sessions.list", {}],
      ["sessions.list includeGlobal+includeUnknown", "sessions.list", { includeGlobal: true, includeUnknown: true }],
      ["sessions.list limit 2", "sessions.list", { limit: 2 }],
      ["sessions.list activeMinutes 1", "sessions.list", { activeMinutes: 1 }],
      ["sessions.list agentId ops", "sessions.list", { agentId: "ops" }],
      ["sessions.list spawnedBy agent:main:main", "sessions.list", { spawnedBy: "agent:main:main" }],
      ["sessions.list label incidents", "sessions.list", { label: "incidents" }],
      ["sessions.list search discord", "sessions.list", { search: "discord" }],
      ["sessions.list derived titles + last message", "sessions.list", { includeDerivedTitles: true, includeLastMessage: true }],

      ["sessions.resolve key main", "sessions.resolve", { key: "main" }],
      ["sessions.resolve key agent:main:main", "sessions.resolve", { key: "agent:main:main" }],
      ["sessions.resolve key bare discord channel", "sessions.resolve", { key: "discord:channel:1187421193829244938" }],
      ["sessions.resolve key nope", "sessions.resolve", { key: "nope" }],
      ["sessions.resolve sessionId discord", "sessions.resolve", { sessionId: DISCORD_SID }],
      ["sessions.resolve sessionId unknown", "sessions.resolve", { sessionId: "00000000-0000-4000-8000-000000000000" }],
      ["sessions.resolve label pricing-research", "sessions.resolve", { label: "pricing-research" }],
      ["sessions.resolve label incidents agentId ops", "sessions.resolve", { label: "incidents", agentId: "ops" }],
      ["sessions.resolve label incidents (no agentId)", "sessions.resolve", { label: "incidents" }],
      ["sessions.resolve label incidents agentId main", "sessions.resolve", { label: "incidents", agentId: "main" }],
      ["sessions.resolve label blank", "sessions.resolve", { label: "  " }],
      ["sessions.resolve label 65 chars", "sessions.resolve", { label: LABEL_65 }],
      ["sessions.resolve key+label (multiple)", "sessions.resolve", { key: "main", label: "x" }],
      ["sessions.resolve none", "sessions.resolve", {}],
      ["sessions.resolve sessionId subagent spawnedBy main", "sessions.resolve", { sessionId: SUBAGENT_SID, spawnedBy: "agent:main:main" }],
      ["sessions.resolve sessionId discord spawnedBy main", "sessions.resolve", { sessionId: DISCORD_SID, spawnedBy: "agent:main:main" }],
      ["sessions.resolve key discord spawnedBy main (ignored for key?)", "sessions.resolve", { key: DISCORD_KEY, spawnedBy: "agent:main:main" }],

      ["chat.history main", "chat.history", { sessionKey: "main" }],
      ["chat.history main limit 2", "chat.history", { sessionKey: "main", limit: 2 }],
      ["chat.history agent:ops:main", "chat.history", { sessionKey: "agent:ops:main" }],
      ["chat.history discord channel", "chat.history", { sessionKey: DISCORD_KEY }],
      ["chat.history nope", "chat.history", { sessionKey: "nope" }],
      ["chat.history main limit 0", "chat.history", { sessionKey: "main", limit: 0 }],
      ["chat.history main limit 1001", "chat.history", { sessionKey: "main", limit: 1001 }],
      ["chat.history hook", "chat.history", { sessionKey: HOOK_KEY }],
      ["chat.history cron", "chat.history", { sessionKey: CRON_KEY }],
      ["chat.history subagent", "chat.history", { sessionKey: SUBAGENT_KEY }],
      ["chat.history telegram group", "chat.history", { sessionKey: TELEGRAM_KEY }],
      ["chat.history slack channel (ops)", "chat.history", { sessionKey: SLACK_KEY }],
    ],
  },
  patch: {
    description:
      "sessions.patch sequence on ONE fresh copy of the example state; calls run in this order and later calls see earlier writes (e.g. after 'label incidents on agent:main:main' succeeds, 'incidents' exists in both stores).",
    calls: [
      ["patch telegram sendPolicy allow", "sessions.patch", { key: TELEGRAM_KEY, sendPolicy: "allow" }, [TELEGRAM_KEY]],
      ["patch telegram sendPolicy null", "sessions.patch", { key: TELEGRAM_KEY, sendPolicy: null }, [TELEGRAM_KEY]],
      ["patch agent:main:main label incidents (label used in ops store)", "sessions.patch", { key: "agent:main:main", label: "incidents" }, ["agent:main:main"]],
      ["sessions.resolve label incidents after cross-store label", "sessions.resolve", { label: "incidents" }],
      ["sessions.list label incidents after cross-store label", "sessions.list", { label: "incidents" }],
      ["patch agent:ops:main label incidents (same store)", "sessions.patch", { key: "agent:ops:main", label: "incidents" }, ["agent:ops:main"]],
      ["patch agent:main:main model anthropic/claude-opus-4-5", "sessions.patch", { key: "agent:main:main", model: "anthropic/claude-opus-4-5" }, ["agent:main:main"]],
      ["patch agent:main:main model nonsense-model", "sessions.patch", { key: "agent:main:main", model: "nonsense-model" }, ["agent:main:main"]],
      ["patch agent:main:main model null", "sessions.patch", { key: "agent:main:main", model: null }, ["agent:main:main"]],
      ["patch agent:main:new-session label fresh (creates)", "sessions.patch", { key: "agent:main:new-session", label: "fresh" }, ["agent:main:new-session"]],
      ["patch bare key other-session label (canonicalised?)", "sessions.patch", { key: "other-session", label: "other" }, ["agent:main:other-session"]],
      ["patch subagent:x spawnedBy agent:main:main", "sessions.patch", { key: "agent:main:subagent:x", spawnedBy: "agent:main:main" }, ["agent:main:subagent:x"]],
      ["patch subagent:x spawnedBy same value again", "sessions.patch", { key: "agent:main:subagent:x", spawnedBy: "agent:main:main" }, ["agent:main:subagent:x"]],
      ["patch subagent:x spawnedBy changed", "sessions.patch", { key: "agent:main:subagent:x", spawnedBy: "agent:main:other" }, ["agent:main:subagent:x"]],
      ["patch subagent:x spawnedBy null", "sessions.patch", { key: "agent:main:subagent:x", spawnedBy: null }, ["agent:main:subagent:x"]],
      ["patch main spawnedBy agent:main:main", "sessions.patch", { key: "main", spawnedBy: "agent:main:main" }, ["agent:main:main"]],
      ["patch discord label null (clear)", "sessions.patch", { key: DISCORD_KEY, label: null }, [DISCORD_KEY]],
      ["patch subagent label 65 chars", "sessions.patch", { key: SUBAGENT_KEY, label: LABEL_65 }, [SUBAGENT_KEY]],
      ["patch subagent label blank", "sessions.patch", { key: SUBAGENT_KEY, label: "  " }, [SUBAGENT_KEY]],
    ],
  },
  delete: {
    description: "sessions.delete on a fresh copy of the example state (in this order).",
    calls: [
      ["delete main", "sessions.delete", { key: "main" }, ["agent:main:main"]],
      ["delete hook session", "sessions.delete", { key: HOOK_KEY }, [HOOK_KEY]],
      ["delete hook session again", "sessions.delete", { key: HOOK_KEY }, [HOOK_KEY]],
      ["delete nope", "sessions.delete", { key: "nope" }, ["agent:main:nope"]],
      ["sessions.list after delete", "sessions.list", {}],
    ],
  },
  agent: {
    description:
      "agent / agent.wait / send on a fresh copy of the example state. No provider keys: runs are accepted and then fail. For agent calls 'payload' is the first res (accepted) and 'final' the second res with the same id; 'events' are the agent/chat events of that run.",
    calls: [
      ["agent telegram group (sendPolicy deny)", "agent",
        { message: "hi", sessionKey: TELEGRAM_KEY, idempotencyKey: IDEM.telegramDeny }, [TELEGRAM_KEY]],
      ["agent subagent:probe-1 spawnedBy main", "agent",
        { message: "hi", sessionKey: "agent:main:subagent:probe-1", idempotencyKey: IDEM.subagentProbe,
          spawnedBy: "agent:main:main", label: "probe", deliver: false, lane: "subagent", channel: "discord" },
        ["agent:main:subagent:probe-1"]],
      ["agent.wait subagent probe run 1000ms", "agent.wait", { runId: IDEM.subagentProbe, timeoutMs: 1000 }],
      ["agent subagent:probe-1 retry same idempotencyKey", "agent",
        { message: "hi", sessionKey: "agent:main:subagent:probe-1", idempotencyKey: IDEM.subagentProbe,
          spawnedBy: "agent:main:main", label: "probe", deliver: false, lane: "subagent", channel: "discord" },
        ["agent:main:subagent:probe-1"]],
      ["agent.wait unknown runId 0ms", "agent.wait", { runId: IDEM.unknownRun, timeoutMs: 0 }],
      ["agent channel nonsense", "agent",
        { message: "hi", sessionKey: "agent:main:subagent:probe-2", idempotencyKey: IDEM.badChannel, channel: "nonsense" },
        ["agent:main:subagent:probe-2"]],
      ["agent label 65 chars", "agent",
        { message: "hi", sessionKey: "agent:main:subagent:probe-3", idempotencyKey: IDEM.longLabel, label: LABEL_65 },
        ["agent:main:subagent:probe-3"]],
      ["send discord (channels off)", "send",
        { to: "channel:1", message: "x", channel: "discord", idempotencyKey: IDEM.send }],
      ["sessions.list spawnedBy main after agent", "sessions.list", { spawnedBy: "agent:main:main" }],
    ],
  },
};

// ------------------------------------------------------------------ args
function parseArgs(argv) {
  const o = { _: [] };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a.startsWith("--")) o[a.slice(2)] = argv[++i];
    else o._.push(a);
  }
  return o;
}

// ------------------------------------------------------------------ a minimal protocol-v3 client
class Client {
  constructor(url, token) {
    this.url = url;
    this.token = token;
    this.pending = new Map(); // id -> {frames:[], waiters}
    this.events = [];
    this.seq = 0;
  }
  open() {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(this.url);
      this.ws = ws;
      let sent = false;
      const connect = () => {
        if (sent) return;
        sent = true;
        ws.send(JSON.stringify({
          type: "req", id: "connect", method: "connect",
          params: {
            minProtocol: 3, maxProtocol: 3,
            client: { id: "gateway-client", displayName: "openclaw-probe", version: "dev", platform: process.platform, mode: "backend" },
            caps: [], role: "operator", scopes: ["operator.admin"], auth: { token: this.token },
          },
        }));
      };
      const timer = setTimeout(() => reject(new Error("connect timeout")), 20000);
      ws.addEventListener("open", () => setTimeout(connect, 750));
      ws.addEventListener("error", (e) => reject(new Error("socket error " + (e.message ?? ""))));
      ws.addEventListener("close", (ev) => {
        for (const p of this.pending.values()) p.closed = `socket closed ${ev.code} ${ev.reason}`;
        for (const p of this.pending.values()) p.notify?.();
      });
      ws.addEventListener("message", (ev) => {
        const f = JSON.parse(typeof ev.data === "string" ? ev.data : Buffer.from(ev.data).toString("utf8"));
        if (f.type === "event") {
          if (f.event === "connect.challenge") return connect();
          this.events.push(f);
          return;
        }
        if (f.type !== "res") return;
        if (f.id === "connect") {
          clearTimeout(timer);
          if (!f.ok) return reject(new Error("connect failed: " + JSON.stringify(f.error)));
          this.hello = f.payload;
          return resolve(f.payload);
        }
        const p = this.pending.get(f.id);
        if (!p) return;
        p.frames.push(f);
        p.notify?.();
      });
    });
  }
  // Sends one request; resolves with all res frames for it. Waits for a second frame when the first is
  // {status:"accepted"} (agent), up to finalTimeoutMs.
  request(method, params, { timeoutMs = 30000, finalTimeoutMs = 90000 } = {}) {
    const id = `probe-${++this.seq}`;
    const p = { frames: [] };
    this.pending.set(id, p);
    this.ws.send(JSON.stringify({ type: "req", id, method, params }));
    return new Promise((resolve) => {
      const t0 = Date.now();
      const check = () => {
        const done = () => { clearInterval(iv); this.pending.delete(id); resolve(p); };
        if (p.closed) return done();
        const first = p.frames[0];
        if (!first) { if (Date.now() - t0 > timeoutMs) { p.timedOut = true; done(); } return; }
        const accepted = first.ok && first.payload && first.payload.status === "accepted";
        if (!accepted || p.frames.length >= 2) return done();
        if (Date.now() - t0 > finalTimeoutMs) { p.timedOut = true; done(); }
      };
      p.notify = check;
      const iv = setInterval(check, 100);
    });
  }
  close() { try { this.ws.close(); } catch {} }
}

// ------------------------------------------------------------------ state snapshots
function agentOfKey(key) {
  const m = /^agent:([^:]+):/.exec(key);
  return m ? m[1] : "main";
}
function readJson(file) {
  try { return JSON.parse(fs.readFileSync(file, "utf8")); } catch { return undefined; }
}
function snapshot(stateDir, keys) {
  const out = {};
  const agents = [...new Set(keys.map(agentOfKey))];
  for (const agent of agents) {
    const rel = `agents/${agent}/sessions`;
    const store = readJson(path.join(stateDir, rel, "sessions.json")) ?? {};
    const entries = {};
    for (const k of keys.filter((k) => agentOfKey(k) === agent)) entries[k] = store[k] ?? null;
    out[`${rel}/sessions.json`] = entries;
    let files = [];
    try { files = fs.readdirSync(path.join(stateDir, rel)).sort(); } catch {}
    out[`${rel}/`] = files;
  }
  return out;
}

function describeFrame(f) {
  if (!f) return { ok: false, error: { code: "NO_RESPONSE", message: "no response frame" } };
  const r = { ok: !!f.ok };
  if (f.ok) r.payload = f.payload ?? null;
  else {
    r.error = f.error ?? { message: "unknown error" };
    if (f.payload !== undefined) r.payload = f.payload;
  }
  return r;
}

async function runPhase(o) {
  const phase = PHASES[o.phase];
  if (!phase) throw new Error("unknown phase " + o.phase);
  const client = new Client(o.url, o.token);
  const hello = await client.open();
  const calls = [];
  for (const [name, method, params, writeKeys] of phase.calls) {
    const evStart = client.events.length;
    const res = await client.request(method, params);
    const rec = { name, method, params, ...describeFrame(res.frames[0]) };
    if (res.frames.length > 1) rec.final = describeFrame(res.frames[1]);
    if (res.timedOut) rec.timedOut = true;
    if (res.closed) rec.closed = res.closed;
    if (method === "agent") {
      // let the lifecycle/chat events of a run settle, then keep only the ones for this run
      await new Promise((r) => setTimeout(r, 500));
      const runEvents = client.events.slice(evStart)
        .filter((e) => (e.event === "agent" || e.event === "chat") && e.payload?.runId === params.idempotencyKey)
        .map((e) => ({ event: e.event, payload: e.payload }));
      if (runEvents.length) rec.events = runEvents;
    }
    if (writeKeys) rec.stateAfter = snapshot(o.state, writeKeys);
    calls.push(rec);
    process.stderr.write(`[probe] ${o.phase}: ${name}: ${rec.ok ? "ok" : "error " + rec.error?.message?.slice(0, 100)}${rec.final ? " / final " + (rec.final.ok ? "ok" : rec.final.error?.message?.slice(0, 80)) : ""}\n`);
  }
  client.close();
  const out = {
    name: o.phase,
    description: phase.description,
    stateDir: o.state,
    startedAtMs: Number(o["started-at"] ?? Date.now()),
    endedAtMs: Date.now(),
    server: hello?.server ?? null,
    protocol: hello?.protocol ?? null,
    calls,
  };
  fs.writeFileSync(o.out, JSON.stringify(out, null, 2) + "\n");
}

// ------------------------------------------------------------------ assembling + normalising
const UUID_RE = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;
const ARCHIVE_TS_RE = /\.(deleted|reset|bak)\.(\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}(?:\.\d{3})?Z)/g;

function collectExampleFacts(exampleDir) {
  const uuids = new Set(Object.values(IDEM).map((s) => s.toLowerCase()));
  uuids.add("00000000-0000-4000-8000-000000000000");
  const archiveStamps = new Set();
  const walk = (d) => {
    for (const ent of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, ent.name);
      for (const m of ent.name.matchAll(UUID_RE)) uuids.add(m[0].toLowerCase());
      for (const m of ent.name.matchAll(ARCHIVE_TS_RE)) archiveStamps.add(m[2]);
      if (ent.isDirectory()) walk(p);
      else for (const m of fs.readFileSync(p, "utf8").matchAll(UUID_RE)) uuids.add(m[0].toLowerCase());
    }
  };
  walk(exampleDir);
  return { uuids, archiveStamps };
}

function normalise(value, ctx, keyName) {
  // skillsSnapshot written by this gateway (agent runs) lists the bundled skills that are eligible on the
  // probing machine (depends on installed binaries such as gh/tmux): not stable, replaced as a whole.
  // Snapshots that come from the example state are kept.
  if (keyName === "skillsSnapshot" && value && ctx.ocHome && JSON.stringify(value).includes(ctx.ocHome)) {
    ctx.replaced.add("skillsSnapshot written by the gateway (machine-dependent list of bundled skills) -> \"<skillsSnapshot>\"");
    return "<skillsSnapshot>";
  }
  if (Array.isArray(value)) return value.map((v) => normalise(v, ctx));
  if (value && typeof value === "object") {
    const o = {};
    for (const [k, v] of Object.entries(value)) o[k] = normalise(v, ctx, k);
    return o;
  }
  if (typeof value === "number") {
    // epoch-ms values set by the gateway during this phase (updatedAt, ts, acceptedAt, startedAt, ...)
    if (value >= ctx.fromMs && value <= ctx.toMs) { ctx.replaced.add(`${keyName ?? "(number)"} -> <now>`); return "<now>"; }
    return value;
  }
  if (typeof value === "string") {
    let s = value;
    if (ctx.stateDir) s = s.split(ctx.stateDir).join("<stateDir>");
    if (ctx.ocHome) s = s.split(ctx.ocHome).join("<OC_HOME>");
    s = s.replace(ARCHIVE_TS_RE, (m, kind, stamp) => {
      if (ctx.archiveStamps.has(stamp)) return m;
      ctx.replaced.add("archive timestamp in file names -> <ts>");
      return `.${kind}.<ts>`;
    });
    s = s.replace(UUID_RE, (u) => {
      if (ctx.uuids.has(u.toLowerCase())) return u;
      ctx.replaced.add(`generated UUID (${keyName ?? "in text"}) -> <uuid>`);
      return "<uuid>";
    });
    if (s !== value && s.includes("<stateDir>")) ctx.replaced.add("absolute state dir -> <stateDir>");
    if (s !== value && s.includes("<OC_HOME>")) ctx.replaced.add("gateway install dir ($OC_HOME) -> <OC_HOME>");
    return s;
  }
  return value;
}

function assemble(o, files) {
  const { uuids, archiveStamps } = collectExampleFacts(o.example);
  const ocHome = o["oc-home"] ? path.resolve(o["oc-home"]) : undefined;
  const replaced = new Set();
  const phases = [];
  let server = null, protocol = null;
  for (const f of files) {
    const ph = JSON.parse(fs.readFileSync(f, "utf8"));
    server = ph.server ?? server;
    protocol = ph.protocol ?? protocol;
    const ctx = {
      uuids, archiveStamps, replaced, stateDir: ph.stateDir, ocHome,
      fromMs: ph.startedAtMs - 120000, toMs: ph.endedAtMs + 120000,
    };
    // file lists: sort again after placeholders are in
    const calls = normalise(ph.calls, ctx).map((c) => {
      if (c.stateAfter) for (const [k, v] of Object.entries(c.stateAfter)) if (Array.isArray(v)) v.sort();
      return c;
    });
    phases.push({ phase: ph.name, state: "fresh copy of examples/openclaw-state", description: ph.description, calls });
  }
  const out = {
    notes: [
      "Ground truth captured from a REAL OpenClaw-lineage gateway by tools/openclaw-probe/probe.sh (a development tool, never a run-time dependency). Regenerate with: tools/openclaw-probe/probe.sh SHARED_DIR",
      "Gateway: npm clawdbot@2026.1.24-3 (protocol v3) started by SHARED_DIR/tools/openclaw-gateway/start.sh on loopback; config agents.list = [main (default), ops], no model allowlist, channels/cron off, no provider API keys (model calls fail).",
      "Client: role operator, scopes [operator.admin], client id gateway-client/backend. Each phase runs on its own fresh copy of examples/openclaw-state; inside a phase the calls run in the listed order on the same state, so later calls see earlier writes.",
      "Per call: ok + payload (success) or ok:false + error {code,message[,details]}. For `agent`, payload/error is the FIRST res frame and `final` the second res frame with the same request id; `events` are the agent/chat events carrying that runId. For write calls, `stateAfter` holds the affected sessions.json entries (null = no entry) and the file list of that agent's sessions dir, read right after the response.",
      "Volatile values replaced: epoch-ms numbers produced during the run (fields like ts, updatedAt, acceptedAt, startedAt, endedAt that the gateway sets to now) -> \"<now>\"; UUIDs that are not in the example state nor fixed probe inputs (e.g. sessionIds generated for new entries) -> \"<uuid>\"; archive timestamps in transcript file names created during the run (*.jsonl.deleted.<ts>) -> \"<ts>\"; the absolute temp state dir -> \"<stateDir>\"; the gateway install dir -> \"<OC_HOME>\"; a skillsSnapshot written by the gateway (machine-dependent list of eligible bundled skills) -> \"<skillsSnapshot>\". Timestamps that come from the example state are kept as they are.",
      "Environment facts that shape some answers: the gateway runs with its working directory set to an empty temp dir. With per-agent stores sessions.list reports path \"(multiple)\", and includeDerivedTitles/includeLastMessage look for transcripts relative to dirname(\"(multiple)\") = the working directory, so they find none: derivedTitle falls back to displayName, then subject, then '<first 8 chars of sessionId> (<UTC date of updatedAt>)', and lastMessagePreview is absent (this is what the real gateway does, not a probe artefact).",
      "Replacements actually made in this run: " + [...replaced].sort().join("; "),
    ],
    gateway: { package: "clawdbot", version: server?.version ?? null, protocol },
    phases,
  };
  fs.writeFileSync(o.out, JSON.stringify(out, null, 2) + "\n");
}

// ------------------------------------------------------------------ main
const [cmd, ...rest] = process.argv.slice(2);
const o = parseArgs(rest);
if (cmd === "run") await runPhase(o);
else if (cmd === "assemble") assemble(o, o._);
else if (cmd === "phases") console.log(Object.keys(PHASES).join(" "));
else {
  console.error("usage: probe.mjs run|assemble|phases ...");
  process.exit(64);
}
process.exit(0);
