#!/usr/bin/env node
// Builds the plugin's transpiled component: the project's WebAssembly component (the very
// `.wasm` the Rust host embeds) turned by jco into an ES module plus core modules, in
// `component/`, with the config paths the component reads (`../wit/config-paths.json`,
// copied as `config-paths.json`); and beside it the gateway wire component (`wire/`, the
// `.wasm` the Rust host's live backend runs), which maps OpenClaw's JSON to the tools' records
// for the bridge (`gateway_wire.js`). Never edit those files by hand: this script writes them,
// and `test/component.test.mjs` fails when they do not match the current components.
//
//   node scripts/build-component.mjs [--wasm PATH] [--wire PATH] [--out DIR] [--check]
//
// PATH defaults to $SESSION_TOOLS_GUEST_WASM, else the host build's output
// `../target/guest/wasm32-wasip2/release/session_tools_guest.wasm` (built by
// `cargo build -p session-tools-host`); the wire to $SESSION_TOOLS_WIRE_WASM, else
// `../target/wire/wasm32-wasip2/release/session_tools_wire.wasm` (the same build). `--check`
// writes nothing and fails when `component/` is not exactly what this script would write. The
// build fails when the component imports anything but the gateway, the host services and the
// inert WASI interfaces (lib/wasi.mjs), or the wire anything but its transport, its runs and
// that WASI.

import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

import { tmpdir } from 'node:os';
import { mkdtempSync } from 'node:fs';

import { ALLOWED_IMPORTS, WIRE_IMPORTS } from '../lib/wasi.mjs';
import { DEFAULT_LIMITS } from '../lib/limits.mjs';
import { Runtime } from '../lib/sandbox.mjs';

export const PLUGIN_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const REPO_DIR = resolve(PLUGIN_DIR, '..');
export const DEFAULT_WASM = join(REPO_DIR, 'target/guest/wasm32-wasip2/release/session_tools_guest.wasm');
export const DEFAULT_WIRE = join(REPO_DIR, 'target/wire/wasm32-wasip2/release/session_tools_wire.wasm');
export const DEFAULT_OUT = join(PLUGIN_DIR, 'component');
const NAME = 'session_tools';
const WIRE_NAME = 'gateway_wire';
const CONFIG_PATHS = 'config-paths.json';
export const CONFIG_PATHS_SOURCE = join(REPO_DIR, 'wit', CONFIG_PATHS);

/** The component the plugin is built from: $SESSION_TOOLS_GUEST_WASM, else the host build's. */
export function defaultWasm() {
  return process.env.SESSION_TOOLS_GUEST_WASM || DEFAULT_WASM;
}

/** The gateway wire the plugin is built with: $SESSION_TOOLS_WIRE_WASM, else the host build's. */
export function defaultWire() {
  return process.env.SESSION_TOOLS_WIRE_WASM || DEFAULT_WIRE;
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

/** Transpiles one component under `name`: its files, and its imports (checked against `allowed`). */
async function transpileOne(wasmPath, name, allowed, refusal) {
  if (!existsSync(wasmPath)) {
    throw new Error(
      `the component ${wasmPath} does not exist: build it with \`cargo build -p session-tools-host\` in ${REPO_DIR} (or set SESSION_TOOLS_GUEST_WASM and SESSION_TOOLS_WIRE_WASM)`,
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
    throw new Error(`the component ${wasmPath} imports ${refused.join(', ')}: ${refusal} (${allowed.join(', ')})`);
  }
  const files = {};
  for (const [file, bytes] of Object.entries(result.files)) files[file.replace(/^\.?\//, '')] = Buffer.from(bytes);
  const coreModules = Object.keys(files).filter((f) => f.endsWith('.wasm')).sort();
  // Where it was read from is left out, so the output depends on the component alone.
  return { files, info: { component: { sha256: sha256(wasm), bytes: wasm.length }, js: `${name}.js`, coreModules, imports } };
}

/**
 * Transpiles the tools component and the gateway wire: answers `{files: {name: bytes},
 * manifest}` without writing. Throws when either imports an interface it may not.
 */
export async function transpileComponent(wasmPath, wirePath = defaultWire()) {
  const tools = await transpileOne(
    wasmPath,
    NAME,
    ALLOWED_IMPORTS,
    'a guest gets no files, sockets, clocks, randomness or anything else beyond the gateway, the host services and inert WASI',
  );
  const wire = await transpileOne(wirePath, WIRE_NAME, WIRE_IMPORTS, 'the gateway wire gets its transport, its runs and inert WASI, nothing else');
  const files = { ...tools.files, ...wire.files };
  // What the component reads of the config (`wit/config-paths.json`): the plugin gives an
  // instance those paths only (lib/config.mjs), as the Rust host does from the same file.
  files[CONFIG_PATHS] = readFileSync(CONFIG_PATHS_SOURCE);
  const manifest = {
    note: 'Generated by scripts/build-component.mjs from the components below; do not edit.',
    ...tools.info,
    transpiler: `@bytecodealliance/jco-transpile@${transpilerVersion()}`,
    wire: wire.info,
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
  const sandbox = await runtime.instantiate({ name: 'describe', gateway: noGateway, limits: DEFAULT_LIMITS });
  try {
    return await sandbox.describe();
  } finally {
    sandbox.close();
  }
}

/** Transpiles `wasmPath` (and the wire) into `outDir` (emptied first), with `tools.json` when `describe`; answers the manifest. */
export async function buildComponent(wasmPath, outDir, { describe = true, wire = defaultWire() } = {}) {
  const { files, manifest } = await transpileComponent(wasmPath, wire);
  rmSync(outDir, { recursive: true, force: true });
  mkdirSync(outDir, { recursive: true });
  for (const [name, bytes] of Object.entries(files)) writeFileSync(join(outDir, name), bytes);
  if (describe) {
    const tools = await describeIn(outDir);
    writeFileSync(join(outDir, 'tools.json'), `${JSON.stringify(tools, null, 2)}\n`);
  }
  return manifest;
}

/** Differences between `outDir` and what `wasmPath` builds to (empty: up to date). */
export async function checkComponent(wasmPath, outDir, wire = defaultWire()) {
  const fresh = mkdtempSync(join(tmpdir(), 'session-tools-component-'));
  try {
    await buildComponent(wasmPath, fresh, { wire });
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
  let wasm = defaultWasm();
  let wire = defaultWire();
  let out = DEFAULT_OUT;
  let check = false;
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--wasm') wasm = resolve(argv[++i]);
    else if (argv[i] === '--wire') wire = resolve(argv[++i]);
    else if (argv[i] === '--out') out = resolve(argv[++i]);
    else if (argv[i] === '--check') check = true;
    else throw new Error(`unknown argument ${argv[i]} (usage: build-component.mjs [--wasm PATH] [--wire PATH] [--out DIR] [--check])`);
  }
  if (check) {
    const problems = await checkComponent(wasm, out, wire);
    if (problems.length > 0) {
      console.error(`${out} is stale or edited (${problems.join('; ')}): run \`npm run build\` in ${PLUGIN_DIR}`);
      process.exit(1);
    }
    console.log(`${out} matches ${wasm}`);
    return;
  }
  const manifest = await buildComponent(wasm, out, { wire });
  console.log(
    `transpiled ${wasm} (sha256 ${manifest.component.sha256}) and ${wire} (sha256 ${manifest.wire.component.sha256}) into ${out}: ${Object.keys(manifest.files).join(', ')}`,
  );
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main(process.argv.slice(2)).catch((e) => {
    console.error(`build-component: ${e.message}`);
    process.exit(1);
  });
}
