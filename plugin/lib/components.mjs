// The transpiled components (component/, written by scripts/build-component.mjs) on the main
// thread, for their pure functions: the guard's (guard.mjs) and the gateway wire's
// (wire-codecs.mjs). Each is loaded at first use, synchronously (an ES module without
// top-level await, as jco writes it, so the plugin's modules load before a build too), and
// instantiated with imports that fail when called, since these functions call none.

import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { BoundedOutput, wasiImports } from './wasi.mjs';

export const COMPONENT = fileURLToPath(new URL('../component/', import.meta.url));

const require = createRequire(import.meta.url);

/** The imports of each component beyond the inert WASI, all failing when called. */
const IMPORTED = { guard: ['gateway', 'tree', 'audit'], wire: ['transport', 'runs'] };

/** An import that fails when called. */
function none(what) {
  return new Proxy(
    {},
    {
      get: (_, name) => () => {
        throw new Error(`a pure function called ${what}.${String(name)}`);
      },
    },
  );
}

/**
 * The exports of a new instance of the component `part` (`guard` or `wire`) given no import
 * that does anything: `instantiate` (the transpiled module's), its core modules by name
 * (`module(file)`).
 */
export function instantiatePure(part, instantiate, module) {
  const sink = new BoundedOutput(0);
  const imports = { 'openclaw:session-tools/types': {}, ...wasiImports({ stdout: sink, stderr: sink }) };
  for (const name of IMPORTED[part]) imports[`openclaw:session-tools/${name}`] = none(`${part} ${name}`);
  return instantiate(module, imports);
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

/** The transpiled components loaded, by directory and part. */
const loaded = new Map();

/** A new instance of the component `part` of `dir` (its modules compiled once). */
export function pureInstance(part, dir = COMPONENT) {
  const id = `${dir}\n${part}`;
  if (!loaded.has(id)) {
    let manifest;
    try {
      manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8'));
    } catch (e) {
      throw new Error(`${dir} holds no transpiled components (${e.message}): run \`npm run build\` in plugin/`);
    }
    const found = manifest.components?.[part];
    if (!found) throw new Error(`${dir} holds no ${part} component: run \`npm run build\` in plugin/`);
    const modules = Object.fromEntries(found.coreModules.map((f) => [f, new WebAssembly.Module(readFileSync(join(dir, f)))]));
    loaded.set(id, { instantiate: require(join(dir, found.js)).instantiate, modules });
  }
  const { instantiate, modules } = loaded.get(id);
  return instantiatePure(part, instantiate, (f) => modules[f]);
}
