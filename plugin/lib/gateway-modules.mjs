// The running gateway's own modules, found next to its `dist/gateway/call.js` (plugins get
// no API for them): what the bridge's persistent connection and its in-process history
// reader are made of. Both fall back to the RPC when a package lays them out otherwise.

import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';

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
