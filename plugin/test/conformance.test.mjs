// The Node conformance runner itself: a failing case is reported with what differed and the
// calls that were made, and the run ends with the `N passed, M failed` line.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { DEFAULT_CASES, loadCases, runCase } from '../conformance.mjs';
import { Runtime } from '../lib/sandbox.mjs';
import { COMPONENT_DIR } from './helpers.mjs';

const RUNNER = join(COMPONENT_DIR, '..', 'conformance.mjs');

test('a failing case shows a readable diff and the recorded calls', async () => {
  const [original] = loadCases(join(DEFAULT_CASES, '002-sessions_list-kinds-and-messages.json'));
  const c = JSON.parse(original.text);
  c.expect.result = { count: 99 };
  c.expect.calls = [{ method: 'sessions.list', params: { limit: 7 } }];
  delete c.expect.callsExact;
  const report = await runCase(new Runtime(COMPONENT_DIR), { file: 'broken.json', text: JSON.stringify(c) });
  assert.equal(report.name, c.name);
  assert.match(report.failures[0], /^result at \/count: expected 99, got \d+$/);
  assert.match(report.failures[1], /^calls: expected call #0 \{"method":"sessions.list","params":\{"limit":7\}\} was not made in order \(nearest at \/params\/limit: expected 7, got 200\); recorded calls:\n {8}0: sessions.list \{/);
});

test('the runner takes case directories and ends with its pass line', () => {
  const dir = mkdtempSync(join(tmpdir(), 'session-tools-cases-'));
  const [first] = loadCases(join(DEFAULT_CASES, '002-sessions_list-kinds-and-messages.json'));
  writeFileSync(join(dir, 'good.json'), first.text);
  const bad = JSON.parse(first.text);
  bad.expect.result = { count: 99 };
  writeFileSync(join(dir, 'bad.json'), JSON.stringify(bad));
  const run = spawnSync(process.execPath, [RUNNER, dir], { encoding: 'utf8' });
  assert.equal(run.status, 1, run.stderr);
  assert.match(run.stdout, /^FAIL bad\.json: /m);
  assert.match(run.stdout, /\n1 passed, 1 failed\n$/);
  const good = execFileSync(process.execPath, [RUNNER, join(dir, 'good.json')], { encoding: 'utf8' });
  assert.equal(good, '1 passed, 0 failed\n');
  assert.ok(readFileSync(join(dir, 'good.json')).length > 0);
});
