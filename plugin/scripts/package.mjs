#!/usr/bin/env node
// Makes the installable plugin package from a clone, in one command (`npm run package`):
// builds the components with cargo (the host's build writes them under `../target/`),
// installs the transpiler when it is missing (`npm ci`), then `npm pack`, whose `prepack`
// transpiles the components into `component/`. Prints the package's path last.
//
//   npm run package        (in plugin/)

import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const PLUGIN_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const REPO_DIR = resolve(PLUGIN_DIR, '..');

/** Runs a step, its output on this terminal; stops with what failed and what to do. */
function step(what, command, args, cwd, fix) {
  console.error(`${what}: ${command} ${args.join(' ')}`);
  const run = spawnSync(command, args, { cwd, stdio: ['ignore', 'inherit', 'inherit'] });
  if (run.error || run.status !== 0) {
    const why = run.error ? run.error.message : `exit ${run.status}`;
    console.error(`error: ${what} failed (${why}). ${fix}`);
    process.exit(1);
  }
}

/** `npm pack`'s answer: the archive's name (its last line of output). */
function pack() {
  console.error('packing: npm pack');
  const run = spawnSync('npm', ['pack'], { cwd: PLUGIN_DIR, stdio: ['ignore', 'pipe', 'inherit'], encoding: 'utf8' });
  if (run.error || run.status !== 0) {
    console.error(`error: npm pack failed (${run.error ? run.error.message : `exit ${run.status}`})`);
    process.exit(1);
  }
  const name = run.stdout.trim().split('\n').pop();
  return join(PLUGIN_DIR, name);
}

step(
  'building the components',
  'cargo',
  ['build', '--release', '-p', 'session-tools-host'],
  REPO_DIR,
  'Install Rust and its WebAssembly target: rustup target add wasm32-wasip2.',
);
if (!existsSync(join(PLUGIN_DIR, 'node_modules', '@bytecodealliance', 'jco-transpile'))) {
  step('installing the transpiler', 'npm', ['ci'], PLUGIN_DIR, 'npm needs the npm registry once.');
}
console.log(pack());
