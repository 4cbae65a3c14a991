// The transpiled component in component/ is never hand-edited and never stale: it must be
// exactly what scripts/build-component.mjs makes of the current component (the .wasm the
// Rust host builds and embeds), whose sha256 it records.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { checkComponent, defaultWasm, DEFAULT_OUT, sha256 } from '../scripts/build-component.mjs';
import { ALLOWED_IMPORTS } from '../lib/wasi.mjs';
import { DEFAULT_TOOL_NAMES } from '../lib/plugin.mjs';

test('the transpiled component was built from the current component, unedited', async () => {
  const wasm = defaultWasm();
  const manifest = JSON.parse(readFileSync(join(DEFAULT_OUT, 'manifest.json'), 'utf8'));
  assert.equal(
    manifest.component.sha256,
    sha256(readFileSync(wasm)),
    `component/ was transpiled from another build of the component than ${wasm}: run \`npm run build\` in plugin/`,
  );
  const problems = await checkComponent(wasm, DEFAULT_OUT);
  assert.deepEqual(problems, [], `component/ is not what the build makes of ${wasm} (${problems.join('; ')}): run \`npm run build\` in plugin/, never edit it`);
});

test('the component imports nothing but the gateway, the host services and inert WASI', () => {
  const manifest = JSON.parse(readFileSync(join(DEFAULT_OUT, 'manifest.json'), 'utf8'));
  assert.deepEqual(manifest.imports.filter((i) => !ALLOWED_IMPORTS.includes(i)), []);
  assert.ok(!manifest.imports.some((i) => /filesystem|sockets|clocks|random|http/.test(i)), manifest.imports.join(' '));
});

test('the kept tool descriptions are the five tools, in order', () => {
  const tools = JSON.parse(readFileSync(join(DEFAULT_OUT, 'tools.json'), 'utf8'));
  assert.deepEqual(tools.map((t) => t.name), Object.keys(DEFAULT_TOOL_NAMES));
  for (const t of tools) assert.equal(JSON.parse(t.parameters).type, 'object', t.name);
});
