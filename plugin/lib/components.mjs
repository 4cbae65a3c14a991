// The transpiled components (component/, written by scripts/build-component.mjs) read once on
// the main thread (the sandbox's Runtime compiles them for its workers), and instances for their
// pure functions: the guard's (guard.mjs) and the gateway wire's (wire-codecs.mjs), loaded at first
// use, synchronously (an ES module without top-level await, as jco writes it, so the plugin's
// modules load before a build too), given imports that fail when called, since they call none.

import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { BoundedOutput, wasiImports } from './wasi.mjs';

export const COMPONENT = fileURLToPath(new URL('../component/', import.meta.url));

const require = createRequire(import.meta.url);

/**
 * The exports of a new instance of the component `part` (`guard` or `wire`) given no import
 * that does anything: the inert WASI, and every other interface failing when called.
 * `instantiate`: the transpiled module's; `module(file)`: its core modules by name.
 */
export function instantiatePure(part, instantiate, module) {
  const sink = new BoundedOutput(0);
  const wasi = wasiImports({ stdout: sink, stderr: sink });
  const fail = (iface, name) => () => {
    throw new Error(`a pure function called ${part} ${iface}.${String(name)}`);
  };
  const failing = (iface) => new Proxy({}, { get: (_, name) => fail(iface, name) });
  return instantiate(module, new Proxy(wasi, { get: (given, iface) => given[iface] ?? failing(iface) }));
}

/**
 * `f()`, whose error is an export's `err` (jco throws it as it is; an Error is a trap),
 * thrown as an Error saying what it was `doing` when given.
 */
export function asked(f, doing) {
  try {
    return f();
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    throw new Error(doing ? `${doing}: ${message}` : message);
  }
}

/** The transpiled components read, by directory and part. */
const read = new Map();

/**
 * The transpiled component `part` of `dir`, read once: `{js}` (its module's path) and
 * `{bytes}` (its core modules', by file name). Throws saying how to build it.
 */
export function transpiled(part, dir = COMPONENT) {
  const id = `${dir}\n${part}`;
  if (!read.has(id)) {
    let manifest;
    try {
      manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8'));
    } catch (e) {
      throw new Error(`${dir} holds no transpiled components (${e.message}): run \`npm run build\` in plugin/`);
    }
    const found = manifest.components?.[part];
    if (!found) throw new Error(`${dir} holds no ${part} component: run \`npm run build\` in plugin/`);
    read.set(id, { js: join(dir, found.js), bytes: Object.fromEntries(found.coreModules.map((f) => [f, readFileSync(join(dir, f))])) });
  }
  return read.get(id);
}

/** A new instance of the component `part` of `dir` (its modules compiled once). */
export function pureInstance(part, dir = COMPONENT) {
  const found = transpiled(part, dir);
  found.compiled ??= Object.fromEntries(Object.entries(found.bytes).map(([f, b]) => [f, new WebAssembly.Module(b)]));
  return instantiatePure(part, require(found.js).instantiate, (f) => found.compiled[f]);
}
