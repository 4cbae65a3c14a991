#!/usr/bin/env node
// The second conformance runner: the conformance cases (`tests/conformance/FORMAT.md`) run
// through the transpiled component in Node, against a JS scripted gateway, exactly as the
// Rust host runs them through wasmtime. Same binary, another host, same answers.
//
//   node conformance.mjs [DIR…]      (default: ../tests/conformance/cases, or $CONFORMANCE_DIR)
//
// Prints one block per failing case (what differed, the recorded calls, the guest's log)
// and ends with `N passed, M failed`; exits 1 when a case failed.

import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

import { check, Mismatch, show } from './conformance/pattern.mjs';
import { ScriptedGateway } from './conformance/scripted.mjs';
import { CallError, Runtime } from './lib/sandbox.mjs';
import { AgentLimits, defaultLimits } from './lib/limits.mjs';
import { DirJobStore, JobRunner } from './lib/jobs.mjs';
import { callerContext } from './lib/records.mjs';
import { guestConfigJson } from './lib/config.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));
export const DEFAULT_NOW = 1767225600000;
export const STATE_DIR = '/state';
export const DEFAULT_CASES = resolve(HERE, '../tests/conformance/cases');

/** The `*.json` files of a directory (or one file), sorted by name. */
export function loadCases(path) {
  const files = statSync(path).isDirectory()
    ? readdirSync(path).filter((f) => f.endsWith('.json')).sort().map((f) => join(path, f))
    : [path];
  return files.map((file) => ({ file: file.split('/').pop(), text: readFileSync(file, 'utf8') }));
}

function policyInput(spec) {
  const text = (v, k) => (v && typeof v[k] === 'string' ? v[k] : undefined);
  const entry = spec.entry && typeof spec.entry === 'object' && !Array.isArray(spec.entry) ? spec.entry : undefined;
  return {
    entry: entry && { sendPolicy: text(entry, 'sendPolicy'), channel: text(entry, 'channel'), lastChannel: text(entry, 'lastChannel'), chatType: text(entry, 'chatType') },
    sessionKey: text(spec, 'sessionKey'),
    channel: text(spec, 'channel'),
    chatType: text(spec, 'chatType'),
  };
}

function showCall(call) {
  let params = JSON.stringify(call.params);
  if (params.length > 400) params = `${params.slice(0, 400)}…`;
  return `${call.method} ${params}`;
}

function callMatches(expected, call) {
  const method = typeof expected.method === 'string' ? expected.method : '';
  if (method !== call.method) return `method ${call.method} is not ${method}`;
  if (expected.params === undefined) return null;
  try {
    check(expected.params, call.params, '/params');
    return null;
  } catch (e) {
    if (e instanceof Mismatch) return e.message;
    throw e;
  }
}

/** The recorded calls against `calls`, `callsExact`, `callCounts` and `noCalls`. */
function checkCalls(expect, calls, failures) {
  const listing = () =>
    `recorded calls:${calls.length === 0 ? ' (none)' : ''}${calls.map((c, i) => `\n        ${i}: ${showCall(c)}`).join('')}`;
  if (Array.isArray(expect.calls)) {
    const expected = expect.calls;
    if (expect.callsExact === true) {
      if (expected.length !== calls.length) {
        failures.push(`calls: expected exactly ${expected.length} calls, got ${calls.length}; ${listing()}`);
      } else {
        for (let i = 0; i < expected.length; i++) {
          const why = callMatches(expected[i], calls[i]);
          if (why) {
            failures.push(`calls[${i}]: ${why}; ${listing()}`);
            break;
          }
        }
      }
    } else {
      let next = 0;
      let closest = null;
      for (const call of calls) {
        if (next === expected.length) break;
        const why = callMatches(expected[next], call);
        if (!why) {
          next += 1;
          closest = null;
        } else if (call.method === expected[next].method) {
          closest ??= why;
        }
      }
      if (next < expected.length) {
        const hint = closest ? ` (nearest ${closest})` : '';
        failures.push(`calls: expected call #${next} ${JSON.stringify(expected[next])} was not made in order${hint}; ${listing()}`);
      }
    }
  }
  if (expect.callCounts && typeof expect.callCounts === 'object') {
    for (const [method, count] of Object.entries(expect.callCounts)) {
      const actual = calls.filter((c) => c.method === method).length;
      if (count !== actual) failures.push(`callCounts: expected ${JSON.stringify(count)} ${method} calls, got ${actual}`);
    }
  }
  if (Array.isArray(expect.noCalls)) {
    for (const method of expect.noCalls.filter((m) => typeof m === 'string')) {
      const made = calls.filter((c) => c.method === method).length;
      if (made > 0) failures.push(`noCalls: ${method} was called ${made} times`);
    }
  }
}

/**
 * Runs the jobs a call started to completion in the same instance (virtual time), kept as the
 * plugin keeps them, in a directory of their own removed afterwards.
 */
async function runJobs(sandbox, gateway, caller, jobs, now, log) {
  const dir = mkdtempSync(join(tmpdir(), 'session-tools-case-jobs-'));
  let broke = null;
  const runner = new JobRunner(new DirJobStore(dir), {
    limits: new AgentLimits(),
    now: () => now,
    log,
    resume: async (record, wakeup) => {
      try {
        return await sandbox.resumeJob(record, wakeup);
      } catch (e) {
        if (e instanceof CallError && e.discardsInstance) broke ??= e;
        throw e;
      }
    },
    wait: async (_record, params) => ({ ok: await gateway.call('agent.wait', params) }),
  });
  try {
    // One case a directory: its call's id names the keys its jobs are kept under.
    runner.start(sandbox.name, caller, jobs, 'case');
    await runner.runReady();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  if (broke) throw broke;
}

async function produce(runtime, file, c, gateway, log) {
  const now = c.now ?? DEFAULT_NOW;
  const config = { json: guestConfigJson(c.config ?? {}), stateDir: STATE_DIR };
  const sandbox = await runtime.instantiate({ name: file, gateway, limits: defaultLimits(), log, fixedNow: now, config });
  try {
    if (c.call.describe === true) {
      const tools = await sandbox.describe();
      return { result: tools.map((t) => ({ name: t.name, description: t.description, parameters: JSON.parse(t.parameters) })) };
    }
    if (c.call.sendPolicy !== undefined) {
      const verdict = await sandbox.evaluateSendPolicy(policyInput(c.call.sendPolicy ?? {}));
      return { result: verdict.decision };
    }
    const tool = typeof c.call.tool === 'string' ? c.call.tool : '';
    const args = JSON.stringify(c.call.args ?? {});
    const caller = callerContext(c.context ?? {});
    try {
      const output = await sandbox.callTool(tool, caller, args);
      await runJobs(sandbox, gateway, caller, output.jobs, now, log);
      return { result: JSON.parse(output.result) };
    } catch (e) {
      if (e instanceof CallError && e.kind === 'tool') return { toolError: e.message };
      throw e;
    }
  } finally {
    sandbox.close();
  }
}

/** Runs one case through the component; answers `{file, name, failures}`. */
export async function runCase(runtime, { file, text }) {
  let c;
  try {
    c = JSON.parse(text);
    if (!c || typeof c !== 'object' || typeof c.name !== 'string' || c.call === undefined || c.expect === undefined) {
      throw new Error('a case needs name, call and expect');
    }
  } catch (e) {
    return { file, name: '(unreadable case)', failures: [`invalid case file: ${e.message}`] };
  }
  const report = { file, name: c.name, failures: [] };
  let gateway;
  try {
    gateway = new ScriptedGateway(c.gateway, c.now ?? DEFAULT_NOW);
  } catch (e) {
    report.failures.push(`invalid gateway script: ${e.message}`);
    return report;
  }
  const logs = [];
  const log = (level, message) => logs.push(`${level[0].toUpperCase()}${level.slice(1)}: ${message}`);
  let produced;
  try {
    produced = await produce(runtime, file, c, gateway, log);
  } catch (e) {
    report.failures.push(`the call did not complete: ${e.message}`);
    return report;
  }
  const expect = c.expect;
  const mismatch = (prefix, pattern, value) => {
    try {
      check(pattern, value, '');
    } catch (e) {
      if (!(e instanceof Mismatch)) throw e;
      report.failures.push(`${prefix} ${e.message}`);
    }
  };
  if (expect.result !== undefined) {
    if ('result' in produced) mismatch('result', expect.result, produced.result);
    else report.failures.push(`expected a result, the tool failed: ${produced.toolError}`);
  } else if (expect.toolError !== undefined) {
    if ('toolError' in produced) mismatch('toolError', expect.toolError, produced.toolError);
    else report.failures.push(`expected a tool error, got the result ${show(produced.result)}`);
  }
  checkCalls(expect, gateway.calls, report.failures);
  if (report.failures.length > 0) for (const line of logs.slice(0, 10)) report.failures.push(`(log) ${line}`);
  return report;
}

/** Runs cases, `parallel` at a time (each in its own instance); answers the reports in order. */
export async function runAll(runtime, cases, parallel = 2) {
  const reports = new Array(cases.length);
  let next = 0;
  const lane = async () => {
    while (next < cases.length) {
      const i = next++;
      reports[i] = await runCase(runtime, cases[i]);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, parallel) }, lane));
  return reports;
}

/** Prints failing cases and the summary line; answers whether everything passed. */
export function printReports(reports, out = process.stdout) {
  const failed = reports.filter((r) => r.failures.length > 0);
  for (const report of failed) {
    out.write(`FAIL ${report.file}: ${report.name}\n`);
    for (const failure of report.failures) out.write(`    ${failure}\n`);
  }
  out.write(`${reports.length - failed.length} passed, ${failed.length} failed\n`);
  return failed.length === 0;
}

async function main(argv) {
  const dirs = argv.length > 0 ? argv : [process.env.CONFORMANCE_DIR || DEFAULT_CASES];
  const cases = [];
  for (const dir of dirs) {
    if (!existsSync(dir)) throw new Error(`no such case directory: ${dir}`);
    cases.push(...loadCases(dir));
  }
  if (cases.length === 0) throw new Error(`no *.json cases in ${dirs.join(', ')}`);
  const componentDir = process.env.SESSION_TOOLS_PLUGIN_COMPONENT || join(HERE, 'component');
  if (!existsSync(join(componentDir, 'manifest.json'))) {
    throw new Error(`no transpiled component in ${componentDir}: run \`npm run build\` in ${HERE} first`);
  }
  const runtime = new Runtime(componentDir);
  const parallel = Number(process.env.CONFORMANCE_PARALLEL) || 2;
  const reports = await runAll(runtime, cases, parallel);
  return printReports(reports);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main(process.argv.slice(2)).then(
    (ok) => process.exit(ok ? 0 : 1),
    (e) => {
      console.error(`conformance: ${e.message}`);
      process.exit(2);
    },
  );
}
