#!/usr/bin/env node
// Builds the plugin's transpiled components: the project's WebAssembly components (the very
// `.wasm` files the Rust host embeds) turned by jco into ES modules plus core modules, in
// `component/`. Four components (every rule lives in one of them, none in JavaScript):
// - `tools`: the session tools (`session-tools` world), what an unrestricted caller gets;
// - `guarded`: the N15 guard composed in front of the tools (`guarded-session-tools`),
//   what a restricted caller gets, composed by the host's build (`compose_guarded`);
// - `guard`: the guard alone (`session-guard`), whose pure functions (`guard.decide`, the
//   key rules; `deployment`: limits and what an instance is given of the config) the main
//   thread asks, and whose `gateway` export guards the job runner's own waits;
// - `wire`: the gateway wire (`gateway-wire`, the `.wasm` the Rust live client runs), beside
//   every instance: it maps OpenClaw's JSON to the records of the `gateway` and `tree` the
//   others import.
// `component/` is build output (not in git): `npm run build`, `prepack` and `pretest` write it.
//
//   node scripts/build-component.mjs [--wasm PATH] [--guarded PATH] [--guard PATH] [--wire PATH] [--out DIR] [--check]
//
// PATH defaults to $SESSION_TOOLS_GUEST_WASM / $SESSION_TOOLS_GUARDED_WASM /
// $SESSION_TOOLS_GUARD_WASM / $SESSION_TOOLS_WIRE_WASM, else the host build's outputs under
// `../target/` (built by `cargo build -p session-tools-host`). `--check` writes nothing and
// fails when `component/` is not exactly what this script would write. The build fails when a
// component imports anything but the gateway, the host services and the inert WASI interfaces
// and, for the guard and the guarded tools, the spawn tree and the audit; or the wire anything
// but its transport, its runs and that WASI (`wit/component-imports.json`, the lists the Rust
// host's test checks too).

import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

import { tmpdir } from 'node:os';
import { mkdtempSync } from 'node:fs';

import { defaultLimits } from '../lib/limits.mjs';
import { Runtime } from '../lib/sandbox.mjs';

export const PLUGIN_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const REPO_DIR = resolve(PLUGIN_DIR, '..');
export const DEFAULT_OUT = join(PLUGIN_DIR, 'component');

/** What each component may import (`wit/component-imports.json`). */
const IMPORTS = JSON.parse(readFileSync(join(REPO_DIR, 'wit/component-imports.json'), 'utf8'));
const TOOLS_IMPORTS = [...IMPORTS.tools, ...IMPORTS.wasi];

/** The components the plugin is built from: name in `component/`, where to find them, what they may import. */
export const PARTS = Object.freeze({
  tools: {
    name: 'session_tools',
    variable: 'SESSION_TOOLS_GUEST_WASM',
    built: 'target/wasm/wasm32-wasip2/release/session_tools_guest.wasm',
    allowed: TOOLS_IMPORTS,
  },
  guarded: {
    name: 'session_tools_guarded',
    variable: 'SESSION_TOOLS_GUARDED_WASM',
    built: 'target/wasm/session_tools_guarded.wasm',
    allowed: [...TOOLS_IMPORTS, ...IMPORTS.guard],
  },
  guard: {
    name: 'session_tools_guard',
    variable: 'SESSION_TOOLS_GUARD_WASM',
    built: 'target/wasm/wasm32-wasip2/release/session_tools_guard.wasm',
    allowed: [...TOOLS_IMPORTS, ...IMPORTS.guard],
  },
  wire: {
    name: 'gateway_wire',
    variable: 'SESSION_TOOLS_WIRE_WASM',
    built: 'target/wasm/wasm32-wasip2/release/session_tools_wire.wasm',
    allowed: [...IMPORTS.wire, ...IMPORTS.wasi],
  },
});

/** The components the plugin is built from (`{tools, guarded, guard, wire}` paths): the variables, else the host build's. */
export function defaultWasm() {
  return Object.fromEntries(Object.entries(PARTS).map(([part, p]) => [part, process.env[p.variable] || join(REPO_DIR, p.built)]));
}

export const sha256 = (bytes) => createHash('sha256').update(bytes).digest('hex');

async function loadTranspiler() {
  try {
    return await import('@bytecodealliance/jco-transpile');
  } catch (e) {
    throw new Error(
      `cannot load @bytecodealliance/jco-transpile (${e.message}): run \`npm ci\` in ${PLUGIN_DIR} first (Node 22 and the npm registry are needed once)`,
    );
  }
}

/** Transpiles one component; answers `{files, entry}`. Throws when it imports an interface outside `part.allowed`. */
async function transpilePart(part, wasmPath) {
  const { name, variable, allowed } = PARTS[part];
  if (!existsSync(wasmPath)) {
    throw new Error(
      `the component ${wasmPath} does not exist: build it with \`cargo build -p session-tools-host\` in ${REPO_DIR} (or set ${variable})`,
    );
  }
  const wasm = readFileSync(wasmPath);
  const { transpileBytes } = await loadTranspiler();
  const result = await transpileBytes(new Uint8Array(wasm), {
    name,
    instantiation: 'sync',
    emitTypescriptDeclarations: false,
    wasiShim: false,
    nodejsCompat: true,
  });
  const imports = result.imports.map((i) => i.replace(/@[^@/]*$/, '')).sort();
  const refused = imports.filter((i) => !allowed.includes(i));
  if (refused.length > 0) {
    throw new Error(
      `the component ${wasmPath} imports ${refused.join(', ')}: a guest gets no files, sockets, clocks, randomness or anything else beyond ${allowed.join(', ')}`,
    );
  }
  const files = {};
  for (const [file, bytes] of Object.entries(result.files)) files[file.replace(/^\.?\//, '')] = Buffer.from(bytes);
  const entry = {
    // Where it was read from is left out, so the output depends on the component alone.
    component: { sha256: sha256(wasm), bytes: wasm.length },
    js: `${name}.js`,
    coreModules: Object.keys(files).filter((f) => f.endsWith('.wasm')).sort(),
    imports,
  };
  return { files, entry };
}

/**
 * Transpiles the components (`{tools, guarded?, guard?, wire?}` paths): answers `{files: {name:
 * bytes}, manifest}` without writing.
 */
export async function transpileComponent(wasmPaths) {
  const files = {};
  const components = {};
  for (const part of Object.keys(PARTS)) {
    if (!wasmPaths[part]) continue;
    const out = await transpilePart(part, wasmPaths[part]);
    Object.assign(files, out.files);
    components[part] = out.entry;
  }
  const manifest = {
    note: 'Generated by scripts/build-component.mjs from the components below; do not edit.',
    transpiler: `@bytecodealliance/jco-transpile@${transpilerVersion()}`,
    components,
    files: Object.fromEntries(Object.keys(files).sort().map((f) => [f, sha256(files[f])])),
  };
  files['manifest.json'] = Buffer.from(`${JSON.stringify(manifest, null, 2)}\n`);
  return { files, manifest };
}

function transpilerVersion() {
  try {
    const pkg = join(PLUGIN_DIR, 'node_modules/@bytecodealliance/jco-transpile/package.json');
    return JSON.parse(readFileSync(pkg, 'utf8')).version;
  } catch {
    return 'unknown';
  }
}

/**
 * The tool descriptions of a transpiled component in `dir`, asked of the component itself
 * (the plugin registers its tools synchronously, so they are kept with the build).
 */
async function describeIn(dir) {
  const runtime = new Runtime(dir);
  const noGateway = {
    call: async () => {
      throw new Error('no gateway while describing');
    },
    histories: async (list) => list.map(() => ({ error: 'no gateway while describing' })),
  };
  const sandbox = await runtime.instantiate({ name: 'describe', gateway: noGateway, limits: defaultLimits(dir) });
  try {
    return await sandbox.describe();
  } finally {
    sandbox.close();
  }
}

/** Transpiles `wasmPaths` (see transpileComponent) into `outDir` (emptied first), with `tools.json` when `describe`; answers the manifest. */
export async function buildComponent(wasmPaths, outDir, { describe = true } = {}) {
  const { files, manifest } = await transpileComponent(wasmPaths);
  rmSync(outDir, { recursive: true, force: true });
  mkdirSync(outDir, { recursive: true });
  for (const [name, bytes] of Object.entries(files)) writeFileSync(join(outDir, name), bytes);
  if (describe) {
    const tools = await describeIn(outDir);
    writeFileSync(join(outDir, 'tools.json'), `${JSON.stringify(tools, null, 2)}\n`);
  }
  return manifest;
}

/** Differences between `outDir` and what `wasmPaths` build to (empty: up to date). */
export async function checkComponent(wasmPaths, outDir) {
  const fresh = mkdtempSync(join(tmpdir(), 'session-tools-component-'));
  try {
    await buildComponent(wasmPaths, fresh);
    const files = Object.fromEntries(readdirSync(fresh).map((name) => [name, readFileSync(join(fresh, name))]));
    return compareWith(files, outDir);
  } finally {
    rmSync(fresh, { recursive: true, force: true });
  }
}

function compareWith(files, outDir) {
  const problems = [];
  const present = existsSync(outDir) ? readdirSync(outDir) : [];
  for (const [name, bytes] of Object.entries(files)) {
    const path = join(outDir, name);
    if (!existsSync(path)) problems.push(`${name} is missing`);
    else if (!readFileSync(path).equals(bytes)) problems.push(`${name} differs`);
  }
  for (const name of present) if (!(name in files)) problems.push(`${name} should not be there`);
  return problems;
}

async function main(argv) {
  const wasm = defaultWasm();
  let out = DEFAULT_OUT;
  let check = false;
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--wasm') wasm.tools = resolve(argv[++i]);
    else if (argv[i] === '--guarded') wasm.guarded = resolve(argv[++i]);
    else if (argv[i] === '--guard') wasm.guard = resolve(argv[++i]);
    else if (argv[i] === '--wire') wasm.wire = resolve(argv[++i]);
    else if (argv[i] === '--out') out = resolve(argv[++i]);
    else if (argv[i] === '--check') check = true;
    else throw new Error(`unknown argument ${argv[i]} (usage: build-component.mjs [--wasm PATH] [--guarded PATH] [--guard PATH] [--wire PATH] [--out DIR] [--check])`);
  }
  if (check) {
    const problems = await checkComponent(wasm, out);
    if (problems.length > 0) {
      console.error(`${out} is stale or edited (${problems.join('; ')}): run \`npm run build\` in ${PLUGIN_DIR}`);
      process.exit(1);
    }
    console.log(`${out} matches ${Object.values(wasm).join(', ')}`);
    return;
  }
  const manifest = await buildComponent(wasm, out);
  const built = Object.entries(manifest.components).map(([part, c]) => `${part} ${wasm[part]} (sha256 ${c.component.sha256})`);
  console.log(`transpiled ${built.join(', ')} into ${out}: ${Object.keys(manifest.files).join(', ')}`);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main(process.argv.slice(2)).catch((e) => {
    console.error(`build-component: ${e.message}`);
    process.exit(1);
  });
}
