// What an instance is given of the deployment config (N16): the paths the component reads
// (wit/config-paths.json, copied into component/ by the build) and nothing else, as the
// Rust host gives it (host/src/config/guest.rs). The planted-secrets fixture is the one
// tests/hostile.rs reads.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { CONFIG_PATHS_FILE, DeploymentConfig, guestConfigJson, parsePaths } from '../lib/config.mjs';
import { AgentLimits } from '../lib/limits.mjs';
import { Service } from '../lib/service.mjs';
import { REPO_DIR } from '../scripts/build-component.mjs';
import { hostileRuntime, TreeGateway } from './helpers.mjs';

const fixture = JSON.parse(readFileSync(join(REPO_DIR, 'tests/fixtures/planted-secrets.json'), 'utf8'));

/** A planted value as it would appear in JSON text (a string's escaped contents, a number). */
const plantedText = (value) => {
  const text = JSON.stringify(value);
  return text.startsWith('"') ? text.slice(1, -1) : text;
};

function assertNoSecret(given) {
  const whole = JSON.stringify(fixture.config);
  for (const secret of fixture.planted) {
    const text = plantedText(secret);
    assert.ok(whole.includes(text), `the fixture plants ${text}`);
    assert.ok(!given.includes(text), `${text} reached the component: ${given}`);
  }
  assert.deepEqual(JSON.parse(given), fixture.expected);
}

test('the paths are the ones the component reads, from the one file', () => {
  assert.equal(readFileSync(CONFIG_PATHS_FILE, 'utf8'), readFileSync(join(REPO_DIR, 'wit/config-paths.json'), 'utf8'));
});

test('an instance is given none of the config secrets, and all it reads', async () => {
  assert.ok(fixture.planted.length >= 39, `${fixture.planted.length} planted`);
  assertNoSecret(new DeploymentConfig(fixture.config).json);
  // Through the service, as the hostile component was configured.
  const runtime = await hostileRuntime();
  const gateway = new TreeGateway([]);
  const svc = new Service({ runtime, gateway, config: new DeploymentConfig(fixture.config), stateDir: '/state', limits: new AgentLimits() });
  try {
    for (const who of [{ agentSessionKey: 'agent:main:main' }, { agentSessionKey: 'agent:main:main', sandboxed: true }]) {
      const given = JSON.parse(await svc.call(who, 'config', '{}'));
      assertNoSecret(given.config);
    }
  } finally {
    await svc.stop();
  }
});

const kept = (paths, config) => JSON.parse(guestConfigJson(config, parsePaths(JSON.stringify({ paths }))));

test('what the paths reach is kept, with its type; nothing else', () => {
  // The cases of host/src/config/guest.rs.
  const config = {
    a: { b: 'x', c: 1, secret: 's', o: { deep: 's' }, l: [1, 2] },
    list: [{ id: 'a', token: 's' }, 'loose', { token: 's' }, { id: { nested: 's' } }],
    m: { p: { models: [{ id: 'm', key: 's' }] }, q: 's' },
    n: { primary: 'p', fallbacks: ['s'] },
    top: 's',
  };
  assert.deepEqual(kept(['a.b', 'a.c', 'a.o', 'a.l', 'list[].id', 'm.*.models[].id', 'n', 'n.primary', 'missing.x'], config), {
    a: { b: 'x', c: 1, o: {}, l: [] },
    list: [{ id: 'a' }, null, {}, { id: {} }],
    m: { p: { models: [{ id: 'm' }] } },
    n: { primary: 'p' },
  });
  const shapes = { a: 's', list: { id: 's' }, arr: [[{ k: 's' }, 1], { k: 's' }], leaf: [{ s: 1 }] };
  assert.deepEqual(kept(['a.b', 'list[].id', 'arr[][]', 'leaf[]'], shapes), { arr: [[{}, 1], null], leaf: [{}] });
  assert.equal(kept(['a'], ['s']), null);
  assert.equal(kept(['a'], 's'), null);
  // A key like any other, whatever JavaScript makes of it.
  assert.deepEqual(kept(['m.*.id'], JSON.parse('{"m": {"__proto__": {"id": "x", "k": "s"}}}')), JSON.parse('{"m": {"__proto__": {"id": "x"}}}'));
});

test('a bad paths file is named as the Rust host names it', () => {
  for (const [file, why] of [
    ['[]', 'no "paths" array'],
    ['{"paths": [1]}', 'paths[0] is not a string'],
    ['{"paths": ["a..b"]}', 'paths[0] "a..b": a step without a key'],
    ['{"paths": ["a[0]"]}', 'paths[0] "a[0]": the step "a[0]" has brackets other than a trailing []'],
    ['{"paths": ["[]"]}', 'paths[0] "[]": a step without a key'],
  ]) {
    assert.throws(() => parsePaths(file), { message: why }, file);
  }
});
