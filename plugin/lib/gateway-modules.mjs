// The running gateway's own modules, found next to its `dist/gateway/call.js` (plugins get
// no API for them): what the bridge's persistent connection and its in-process history
// reader are made of. Both fall back to the RPC when a package lays them out otherwise.

import { realpathSync } from 'node:fs';
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

/** Imports each path, relative to the directory of `callModulePath`. */
export function importBeside(callModulePath, paths) {
  const dir = dirname(callModulePath);
  return Promise.all(paths.map((path) => import(pathToFileURL(join(dir, path)).href)));
}

/** `exports` as given; throws naming each one this package version lacks. */
export function requireExports(exports) {
  const missing = Object.entries(exports)
    .filter(([, value]) => value === undefined)
    .map(([name]) => name);
  if (missing.length > 0) throw new Error(`the gateway package lacks ${missing.join(', ')}`);
  return exports;
}
