// The gateway wire's pure functions on this (the main) thread: the one copy of what differs
// between OpenClaw's eras (wire/, E1) for the few things the bridge does outside an
// instance's worker. A gateway's config handed to the plugin as OpenClaw 2026.9 keeps it
// (`agents.entries`) read in the documents' shape (E2), and the spawn tree's lists walked
// page by page with the wire's params and page rule (E6). One wire instance, made on first
// use; it is given no transport (these functions make no call: a call is an error).

import { readFileSync } from 'node:fs';

import { instantiate } from '../component/gateway_wire.js';
import { BoundedOutput, wasiImports } from './wasi.mjs';

const COMPONENT_DIR = new URL('../component/', import.meta.url);

let exports = null;

function wire() {
  if (exports) return exports;
  const manifest = JSON.parse(readFileSync(new URL('manifest.json', COMPONENT_DIR), 'utf8'));
  if (!manifest.wire) throw new Error('component/ has no gateway wire: rebuild it with `npm run build`');
  const modules = Object.fromEntries(manifest.wire.coreModules.map((f) => [f, new WebAssembly.Module(readFileSync(new URL(f, COMPONENT_DIR)))]));
  const refuse = (what) => () => {
    throw new Error(`the gateway wire's pure functions called ${what}`);
  };
  const sink = new BoundedOutput(0);
  exports = instantiate(
    (f) => {
      if (!modules[f]) throw new Error(`no core module ${f} of the gateway wire`);
      return modules[f];
    },
    {
      'openclaw:session-tools/types': {},
      'openclaw:session-tools/transport': { call: refuse('transport.call'), callMany: refuse('transport.call-many') },
      'openclaw:session-tools/runs': { runAccepted: refuse('runs.run-accepted'), sessionOf: refuse('runs.session-of') },
      ...wasiImports({ stdout: sink, stderr: sink }),
    },
  );
  return exports;
}

/** A wire error (jco throws an export's `err` payload as it is) as an Error. */
function thrown(e, kind) {
  if (e instanceof Error) return e;
  const error = new Error(typeof e === 'string' ? e : String(e?.message ?? e));
  error.kind = e?.kind ?? kind;
  return error;
}

/** A config (an object) in the documents' shape (E2); the same object when it already is. */
export function documentsShape(raw) {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return raw;
  let text;
  try {
    text = wire().wire.documentsConfig(JSON.stringify(raw));
  } catch (e) {
    throw thrown(e, 'other');
  }
  return JSON.parse(text);
}

/** `sessions.list` params (the wire's `list-params`) from the bridge's loose JSON ones. */
function listParams(p = {}) {
  const u32 = (v) => (Number.isInteger(v) && v >= 0 && v <= 0xffffffff ? v : undefined);
  const bool = (v) => (typeof v === 'boolean' ? v : undefined);
  const str = (v) => (typeof v === 'string' ? v : undefined);
  return {
    limit: u32(p.limit),
    activeMinutes: u32(p.activeMinutes),
    includeGlobal: bool(p.includeGlobal),
    includeUnknown: bool(p.includeUnknown),
    spawnedBy: str(p.spawnedBy),
    label: str(p.label),
    agentId: str(p.agentId),
    search: str(p.search),
  };
}

/**
 * Every row of a `sessions.list` (as the gateway gave them), asked through `call(method,
 * params)` in the era of `protocol`: each page's params and whether another follows are the
 * wire's to say (an explicit limit, pages on protocol 4, an error past its cap; E6).
 */
export async function listAll(protocol, params, call) {
  const w = wire();
  const asked = listParams(params);
  const rows = [];
  let first = null;
  for (let offset = 0, page = 0; ; page++) {
    w.wire.configure({ protocol });
    const request = w.wire.encodeList(asked, offset);
    const answer = await call(request.method, JSON.parse(request.params));
    first ??= answer;
    if (Array.isArray(answer?.sessions)) rows.push(...answer.sessions);
    let next;
    try {
      w.wire.configure({ protocol });
      next = w.wire.nextPage(asked, offset, page, JSON.stringify(answer ?? null));
    } catch (e) {
      throw thrown(e, 'too-large');
    }
    if (next === undefined) return { ...(first && typeof first === 'object' ? first : {}), sessions: rows };
    offset = next;
  }
}
