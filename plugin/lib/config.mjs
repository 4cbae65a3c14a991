// The deployment config as the plugin holds it: the config itself (the bridge reads it), what
// an instance is given of it (N16) and the key rules the gateway spells keys by; both rules
// are asked of the guard component (`deployment/src/guest_config.rs`, `guard/`).

import { asked } from './components.mjs';
import { guardComponent, keyRulesOf } from './guard.mjs';
import { documentsShape } from './wire-codecs.mjs';

/**
 * What an instance is given of a config, as JSON text (a config that is not an object keeps
 * nothing: `null`, which the component refuses as it would the config).
 */
export function guestConfigJson(config) {
  return asked(() => guardComponent().deployment.guestConfig(JSON.stringify(config ?? null)), 'what an instance is given of the config');
}

export class DeploymentConfig {
  constructor(raw) {
    // One shape for everything that reads it, whichever era wrote it (E2): OpenClaw 2026.9
    // hands a plugin its config with `agents.entries`; the wire converts it (its one copy).
    this.raw = raw && typeof raw === 'object' && !Array.isArray(raw) ? documentsShape(raw) : {};
    this.json = guestConfigJson(this.raw);
    // How the gateway spells keys (`session.mainKey`, `session.scope`, the default agent).
    this.rules = keyRulesOf(JSON.stringify(this.raw));
  }
}
