// The plugin's entry point (package.json `openclaw.extensions` / `clawdbot.extensions`).
// See README.md and lib/plugin.mjs.

import { PLUGIN_ID, register } from './lib/plugin.mjs';

export { register };

export default {
  id: PLUGIN_ID,
  name: 'Session tools (WebAssembly)',
  description: "OpenClaw's agent session tools as a sandboxed WebAssembly component, an instance per agent.",
  register,
};
