// Where the running gateway's own modules are (plugins get no API for them): the bridge's
// connection and its in-process history reader are made of them, and fall back to the RPC
// when a package lays them out otherwise.

import { existsSync, realpathSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

/**
 * Where a module of the running gateway may be: `within(dir)` for the directory of its entry
 * point (`entry`, followed through links) and each directory above it, six at the most.
 */
export function candidatesAbove(entry, within) {
  const out = [];
  if (!entry) return out;
  let dir;
  try {
    dir = dirname(realpathSync(entry));
  } catch {
    dir = dirname(resolve(entry));
  }
  for (let i = 0; i < 6; i++) {
    out.push(...within(dir));
    const parent = dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  return out;
}

/**
 * Where a file of the running gateway package (`path` under its `dist/`) may be: beside its
 * entry point, under `dist/`, or under `node_modules/<package>/dist/` (each of `packages`)
 * of a directory above.
 */
export function packageFiles(entry, path, packages = ['openclaw']) {
  return candidatesAbove(entry, (dir) => [join(dir, path), join(dir, 'dist', path), ...packages.map((name) => join(dir, 'node_modules', name, 'dist', path))]);
}

/**
 * A module of the plugin SDK (`openclaw/plugin-sdk/<name>`, 2026.5 and later), imported by
 * its name where the gateway links `openclaw` into the plugin, else the running package's
 * file of it; null when neither is `usable`, and `tried` says where it looked.
 */
export async function importSdk(name, usable, tried, entry = process.argv[1]) {
  const specifier = `openclaw/plugin-sdk/${name}`;
  let sdk = null;
  try {
    sdk = await import(specifier);
  } catch (e) {
    tried.push(`${specifier} (${e?.code ?? e?.message})`);
  }
  if (!usable(sdk)) {
    const candidates = packageFiles(entry, `plugin-sdk/${name}.js`);
    const found = candidates.find((c) => existsSync(c));
    if (found) sdk = await import(pathToFileURL(found).href);
    else tried.push(`${candidates.slice(0, 3).join(', ')}…`);
  }
  return usable(sdk) ? sdk : null;
}

/** Imports each path, relative to the directory of `callModulePath`. */
export function importBeside(callModulePath, paths) {
  const dir = dirname(callModulePath);
  return Promise.all(paths.map((path) => import(pathToFileURL(join(dir, path)).href)));
}

/** `exports` as given; throws naming each one this package version lacks. */
export function requireExports(exports) {
  const missing = Object.keys(exports).filter((name) => exports[name] === undefined);
  if (missing.length > 0) throw new Error(`the gateway package lacks ${missing.join(', ')}`);
  return exports;
}
