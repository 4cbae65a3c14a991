// The transpiled components in component/ (build output, not in git: `pretest` and
// `prepack` write it) are never hand-edited and never stale: they must be exactly what
// scripts/build-component.mjs makes of the current components (the .wasm files the Rust
// host builds and embeds, `SESSION_TOOLS_*_WASM`), transpiled afresh here into a temporary
// directory and compared byte for byte.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { checkComponent, defaultWasm, DEFAULT_OUT, PARTS, REPO_DIR, sha256 } from '../scripts/build-component.mjs';
import { DEFAULT_TOOL_NAMES } from '../lib/plugin.mjs';

const manifest = () => JSON.parse(readFileSync(join(DEFAULT_OUT, 'manifest.json'), 'utf8'));

test('component/ is a fresh transpile of the current components, unedited', async () => {
  const wasm = defaultWasm();
  const built = manifest();
  assert.deepEqual(Object.keys(built.components).sort(), Object.keys(PARTS).sort(), 'the tools, the guarded tools, the guard and the wire');
  for (const [part, path] of Object.entries(wasm)) {
    assert.equal(
      built.components[part].component.sha256,
      sha256(readFileSync(path)),
      `component/ holds the ${part} of another build than ${path}: run \`npm run build\` in plugin/`,
    );
  }
  const problems = await checkComponent(wasm, DEFAULT_OUT);
  assert.deepEqual(problems, [], `component/ is not what the build makes of the components (${problems.join('; ')}): run \`npm run build\` in plugin/, never edit it`);
});

test('the components import nothing but the gateway, the host services, inert WASI (the guard its tree and audit, the wire its transport and runs)', () => {
  const { components } = manifest();
  const lists = JSON.parse(readFileSync(join(REPO_DIR, 'wit/component-imports.json'), 'utf8'));
  for (const part of Object.keys(PARTS)) assert.deepEqual(components[part].imports.filter((i) => !PARTS[part].allowed.includes(i)), [], part);
  for (const part of ['guarded', 'guard']) {
    for (const i of lists.guard) assert.ok(components[part].imports.includes(i), `${part} imports ${i}`);
  }
  for (const [part, c] of Object.entries(components)) {
    // The wire's one exception: std's hash-map seed, which the worker answers with a constant.
    const granting = c.imports.filter((i) => /filesystem|sockets|clocks|random|http/.test(i) && !(part === 'wire' && i === 'wasi:random/insecure-seed'));
    assert.deepEqual(granting, [], part);
  }
});

test('the kept tool descriptions are the five tools, in order', () => {
  const tools = JSON.parse(readFileSync(join(DEFAULT_OUT, 'tools.json'), 'utf8'));
  assert.deepEqual(tools.map((t) => t.name), Object.keys(DEFAULT_TOOL_NAMES));
  for (const t of tools) assert.equal(JSON.parse(t.parameters).type, 'object', t.name);
});
