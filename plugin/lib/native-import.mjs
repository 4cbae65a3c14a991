// The gateway's own module instances, for the gateway's modules.
//
// The gateway loads plugins through jiti, which rewrites an `import()` written in plugin
// code into its own loader; that loader evaluates a second copy of whatever it loads. For
// the gateway's own modules a second copy is wrong: its session-store cache (which the
// gateway's `sessions.list` has just filled, and whose cold load is a JSON5 parse of the
// whole store, 4 s at 10,000 sessions) would be a different, cold one. Node's own
// `require` of an ES module (Node ≥ 22.12, which OpenClaw requires) answers the instance
// the runtime already has; where it cannot (an older Node, a module with top-level await),
// the module is imported as usual.

import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const runtimeRequire = createRequire(import.meta.url);

/** The module at `url`, as the runtime itself has it loaded where it can be. */
export async function nativeImport(url) {
  try {
    return runtimeRequire(fileURLToPath(url));
  } catch {
    return import(url);
  }
}
