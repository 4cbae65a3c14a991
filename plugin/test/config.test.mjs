// What an instance is given of the deployment config (N16): the paths the component reads
// (wit/config-paths.json) and nothing else, and the limits of an agent's instance, both read
// by the Rust code every host runs (deployment/), which the plugin asks through the guard
// component. The planted-secrets fixture is the one tests/hostile.rs reads; the limits cases
// are the ones deployment/src/limits.rs reads natively.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { DeploymentConfig, guestConfigJson } from '../lib/config.mjs';
import { AgentLimits, readLimits } from '../lib/limits.mjs';
import { Service } from '../lib/service.mjs';
import { REPO_DIR } from '../scripts/build-component.mjs';
import { hostileRuntime, tempJobStore, TreeGateway } from './helpers.mjs';

const readJson = (path) => JSON.parse(readFileSync(join(REPO_DIR, path), 'utf8'));
const fixture = readJson('tests/fixtures/planted-secrets.json');

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

test('an instance is given none of the config secrets, and all it reads', async () => {
  assert.ok(fixture.planted.length >= 39, `${fixture.planted.length} planted`);
  assertNoSecret(new DeploymentConfig(fixture.config).json);
  // Through the service, as the hostile component was configured.
  const runtime = await hostileRuntime();
  const gateway = new TreeGateway([]);
  const svc = new Service({ runtime, gateway, config: new DeploymentConfig(fixture.config), stateDir: '/state', limits: new AgentLimits(), jobStore: tempJobStore() });
  try {
    for (const who of [{ agentSessionKey: 'agent:main:main' }, { agentSessionKey: 'agent:main:main', sandboxed: true }]) {
      const given = JSON.parse(await svc.call(who, 'config', '{}'));
      assertNoSecret(given.config);
    }
  } finally {
    await svc.stop();
  }
});

test('what the paths reach is kept, with its type; a key is a key, whatever JavaScript makes of it', () => {
  const providers = JSON.parse('{"__proto__": {"models": [{"id": "m", "key": "s"}, "loose"], "apiKey": "s"}, "openai": "s"}');
  const config = { models: { providers }, session: { mainKey: 'work', scope: { per: 'sender' }, secret: 's' }, top: 's' };
  // A path's end keeps an object empty (`session.scope`); a value of another shape is left out.
  const expected = '{"models": {"providers": {"__proto__": {"models": [{"id": "m"}, null]}}}, "session": {"mainKey": "work", "scope": {}}}';
  assert.deepEqual(JSON.parse(guestConfigJson(config)), JSON.parse(expected));
  assert.equal(guestConfigJson(['s']), 'null');
  assert.equal(guestConfigJson(undefined), 'null');
  assert.equal(new DeploymentConfig('s').json, '{}', 'a config that is not an object is taken for none');
});

test('limits are read as the Rust host reads them, word for word (tests/fixtures/limits-cases.json)', () => {
  const { cases } = readJson('tests/fixtures/limits-cases.json');
  assert.ok(cases.length >= 20, `${cases.length} cases`);
  for (const c of cases) {
    if (c.error !== undefined) {
      assert.throws(() => readLimits(c.text, c.origin), { message: c.error }, c.name);
      continue;
    }
    const read = readLimits(c.text, c.origin);
    const subset = (limits, expected, who) => {
      for (const [field, value] of Object.entries(expected)) assert.equal(limits[field], value, `${c.name}: ${who}.${field}`);
    };
    subset(read.default, c.expect.default, 'default');
    assert.deepEqual([...read.agents.keys()].sort(), Object.keys(c.expect.agents).sort(), `${c.name}: the agents`);
    for (const [id, expected] of Object.entries(c.expect.agents)) subset(read.agents.get(id), expected, id);
  }
});

test('the plugin config\'s limits: its schema is the limits file\'s, read under `limits`', () => {
  const schema = readJson('wit/limits.schema.json');
  for (const manifest of ['plugin/openclaw.plugin.json', 'plugin/clawdbot.plugin.json']) {
    assert.deepEqual(readJson(manifest).configSchema.properties.limits, schema, manifest);
  }
  const limits = new AgentLimits({ default: { tableElements: 30000 }, agents: { ' Ops ': { wallSeconds: 2 } } });
  assert.equal(limits.forAgent('main').tableElements, 30000);
  assert.equal(limits.forAgent('ops').wallMs, 2000);
  assert.equal(limits.forAgent('ops').tableElements, 30000, 'agents inherit the default');
  assert.throws(() => new AgentLimits({ default: { memoryMiB: 4096 } }), { message: 'limits: default.memoryMiB is too large (at most 4095)' });
});
