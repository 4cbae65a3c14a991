// The gateway's HTTP surface. OpenClaw 2026.9 refuses its own `sessions_spawn` and
// `sessions_send` on `POST /tools/invoke` unless the config's `gateway.tools.allow` names
// them (`DEFAULT_GATEWAY_HTTP_TOOL_DENY`, `dist/dangerous-tools-*.mjs`: "session
// orchestration … doesn't make sense over a non-interactive HTTP surface"). The plugin's
// tools have other names, which that list does not hold: offered there, they would reopen
// what the gateway keeps closed. So the plugin keeps the same default for its own two (as
// E3 has it for visibility: a newer setting narrows, never widens). 2026.1.x has no such
// default and passes no `conversationReadOrigin`: all five are offered there, as before.

/** The component's tools 2026.9 keeps off its HTTP surface by default (its core names). */
export const HTTP_DENIED_TOOLS = Object.freeze(['sessions_spawn', 'sessions_send']);

/**
 * Whether the tool context is of `POST /tools/invoke`: it is the one caller of the plugin
 * tool factories that 2026.9 gives `conversationReadOrigin: "direct-operator"`
 * (`dist/tools-invoke-http-*.mjs`; agent runs and its MCP surface say `"delegated"`).
 */
export function isHttpInvoke(ctx = {}) {
  return ctx?.conversationReadOrigin === 'direct-operator';
}

/** A tool name as 2026.9's policy matches it (`normalizeToolPolicyName`: trimmed, lower case). */
const policyName = (name) => (typeof name === 'string' ? name.trim().toLowerCase() : '');

/**
 * The component's tools not to offer in this tool context: on the HTTP surface, those of
 * `HTTP_DENIED_TOOLS` that `gateway.tools.allow` names neither by the core name nor by the
 * plugin's (`names`: component tool → the plugin's name for it); else none.
 */
export function deniedHere(ctx, config, names) {
  if (!isHttpInvoke(ctx)) return new Set();
  const allow = config?.gateway?.tools?.allow;
  const allowed = new Set(Array.isArray(allow) ? allow.map(policyName) : []);
  return new Set(HTTP_DENIED_TOOLS.filter((tool) => !allowed.has(tool) && !allowed.has(policyName(names[tool]))));
}
