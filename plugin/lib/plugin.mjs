// The OpenClaw plugin: the five session tools, each caller served in a sandboxed instance of
// its own agent (and visibility scope), and a service that runs the background jobs.
//
// `register(api)` is synchronous (the gateway ignores a promise) and may run several times
// in one process (the gateway loads its plugins again for another workspace or a changed
// config): everything lives in one process-wide state, and the service is made at the first
// tool call or service start, then kept while the config stays the same.

import { dirname, join } from 'node:path';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

import { DeploymentConfig } from './config.mjs';
import { DirJobStore } from './jobs.mjs';
import { AgentLimits } from './limits.mjs';
import { deniedHere } from './http-surface.mjs';
import { connectToGateway, OpenClawGateway } from './openclaw-gateway.mjs';
import { CallError, Runtime } from './sandbox.mjs';
import { Service } from './service.mjs';

export const PLUGIN_ID = 'session-tools';
export const PLUGIN_DIR = join(dirname(fileURLToPath(import.meta.url)), '..');
export const COMPONENT_DIR = join(PLUGIN_DIR, 'component');

/** The component's tool names, in its order, and the plugin's default names for them. */
export const DEFAULT_TOOL_NAMES = Object.freeze({
  sessions_list: 'st_sessions_list',
  sessions_history: 'st_sessions_history',
  sessions_send: 'st_sessions_send',
  sessions_spawn: 'st_sessions_spawn',
  agents_list: 'st_agents_list',
});

const STATE = Symbol.for('openclaw.session-tools.plugin');

/**
 * How long the job service's stop waits for the calls and steps in flight: the gateway gives
 * its whole shutdown 5 s, and stops other parts after this one. What the exit cuts short is
 * made again by the next process, once.
 */
export const STOP_GRACE_MS = 3_000;

function state() {
  globalThis[STATE] ??= { runtime: null, service: null, current: null, key: null, scheduler: false, stateDir: null, scheduled: null, switching: null };
  return globalThis[STATE];
}

/**
 * Runs the job scheduler of `service`, and of no other: the one it replaces (a reload, a
 * changed config) is stopped first, or it would go on with the old config. Switches are made
 * one after another; a service no longer current, or stopped meanwhile, gets none.
 */
function schedule(service) {
  const s = state();
  s.switching = (s.switching ?? Promise.resolve())
    .catch(() => {})
    .then(async () => {
      if (s.scheduled === service) return;
      const running = s.scheduled;
      s.scheduled = null;
      await running?.stopScheduler();
      if (!s.scheduler || s.current !== service) return;
      service.startScheduler();
      s.scheduled = service;
    });
  return s.switching;
}

/** The plugin config (validated by the manifest's schema), with defaults. */
export function pluginSettings(pluginConfig = {}) {
  const names = { ...DEFAULT_TOOL_NAMES, ...(pluginConfig.toolNames ?? {}) };
  const taken = new Set();
  for (const [tool, name] of Object.entries(names)) {
    if (!(tool in DEFAULT_TOOL_NAMES)) throw new Error(`toolNames.${tool}: the component has no tool ${tool}`);
    if (typeof name !== 'string' || !/^[A-Za-z0-9_-]{1,64}$/.test(name)) throw new Error(`toolNames.${tool} must be a tool name ([A-Za-z0-9_-], at most 64)`);
    if (name in DEFAULT_TOOL_NAMES) {
      throw new Error(`toolNames.${tool}: ${name} is the name of a core tool; the gateway skips a plugin tool that takes it (turn the core tools off with tools.deny and keep the plugin's own names)`);
    }
    if (taken.has(name)) throw new Error(`toolNames: ${name} is given to two tools`);
    taken.add(name);
  }
  return {
    toolNames: names,
    visibility: pluginConfig.visibility ?? 'spawned',
    limits: new AgentLimits(pluginConfig.limits ?? {}),
    maxIdleInstances: pluginConfig.maxIdleInstances ?? 16,
    maxInstances: pluginConfig.maxInstances ?? 64,
    gatewayCallModule: pluginConfig.gatewayCallModule,
    requestTimeoutMs: (pluginConfig.requestTimeoutSeconds ?? 30) * 1000,
  };
}

/** The gateway config as the instances get it: `visibility` fills in the default visibility. */
export function effectiveConfig(config, settings) {
  const raw = structuredClone(config ?? {});
  const defaults = ((raw.agents ??= {}).defaults ??= {});
  const sandbox = (defaults.sandbox ??= {});
  if (typeof sandbox.sessionToolsVisibility !== 'string') sandbox.sessionToolsVisibility = settings.visibility;
  return new DeploymentConfig(raw);
}

/** The tool descriptions kept with the build (component/tools.json). */
export function toolDescriptions(componentDir = COMPONENT_DIR) {
  return JSON.parse(readFileSync(join(componentDir, 'tools.json'), 'utf8'));
}

/**
 * The caller of a tool, from the gateway's tool context. OpenClaw 2026.9 also passes the
 * reply target and thread (`deliveryContext`) and the caller's agent (`agentId`); older
 * gateways pass neither.
 */
export function callerOf(ctx = {}) {
  const text = (v) => (typeof v === 'string' && v.trim() !== '' ? v : undefined);
  const thread = (v) => (typeof v === 'number' && Number.isFinite(v) ? String(v) : text(v));
  const delivery = ctx.deliveryContext && typeof ctx.deliveryContext === 'object' ? ctx.deliveryContext : {};
  const sessionKey = typeof ctx.sessionKey === 'string' ? ctx.sessionKey : undefined;
  const caller = {
    agentSessionKey: sessionKey,
    agentChannel: text(ctx.messageChannel) ?? text(delivery.channel),
    agentAccountId: text(ctx.agentAccountId) ?? text(delivery.accountId),
    agentTo: text(delivery.to),
    agentThreadId: thread(delivery.threadId),
    sandboxed: ctx.sandboxed === true,
  };
  // Without a session, the agent the gateway names is the requester's (its main session).
  if (sessionKey === undefined && text(ctx.agentId)) caller.requesterAgentIdOverride = text(ctx.agentId);
  return caller;
}

/** How long the job service waits before trying again to start after a failure. */
export const START_RETRY_MS = [1_000, 5_000, 15_000, 60_000];

/** The service for a gateway config: a changed config makes a new one, the old one stops. */
function serviceFor(api, settings, makeGateway) {
  const s = state();
  // The same config objects as the last call: the same service (no need to compare).
  if (s.service && s.lastConfig === api.config && s.lastPluginConfig === api.pluginConfig) return s.service;
  s.lastConfig = api.config;
  s.lastPluginConfig = api.pluginConfig;
  const config = effectiveConfig(api.config, settings);
  // The whole config: the gateway bridge reads more of it than the instances are given.
  const key = JSON.stringify([config.raw, api.pluginConfig ?? {}]);
  if (s.service && s.key === key) return s.service;
  s.key = key;
  s.service = makeService(api, settings, makeGateway, config);
  s.service.catch(() => {
    if (s.key === key) Object.assign(s, { key: null, service: null, lastConfig: undefined });
  });
  return s.service;
}

async function makeService(api, settings, makeGateway, config) {
  const s = state();
  s.runtime ??= new Runtime(COMPONENT_DIR);
  // The state directory the gateway gave the job service, else the one it resolves.
  const stateDir = s.stateDir ?? api.runtime?.state?.resolveStateDir?.();
  if (!stateDir) throw new Error('the gateway did not say where its state directory is');
  const log = (level, message) => (api.logger?.[level] ?? api.logger?.info ?? console.log)(`[session-tools] ${message}`);
  const gateway = await makeGateway(config, settings, api.config, log);
  const previous = s.current;
  const service = new Service({
    runtime: s.runtime,
    gateway,
    config,
    stateDir,
    limits: settings.limits,
    log,
    jobStore: new DirJobStore(join(stateDir, 'session-tools', 'plugin-jobs')),
    maxIdle: settings.maxIdleInstances,
    maxInstances: settings.maxInstances,
  });
  s.current = service;
  // The previous service is stopped once the scheduler has moved off it (its calls in flight end first).
  const moved = s.scheduler ? schedule(service).catch((e) => log('error', `the job scheduler did not start: ${e.message}`)) : Promise.resolve();
  moved.finally(() => previous?.stop().catch(() => {}));
  return service;
}

async function openClawBridge(config, settings, gatewayConfig, log) {
  const { callGateway, close, histories, protocol } = await connectToGateway({ explicit: settings.gatewayCallModule, gatewayConfig, log });
  return new OpenClawGateway({ callGateway, close, histories, protocol, rules: config.rules, gatewayConfig, requestTimeoutMs: settings.requestTimeoutMs });
}

/** Registers the tools and the job service. `options.makeGateway` replaces the bridge (tests). */
export function register(api, options = {}) {
  const settings = pluginSettings(api.pluginConfig ?? {});
  const makeGateway = options.makeGateway ?? openClawBridge;
  const described = toolDescriptions(options.componentDir);
  const service = () => serviceFor(api, settings, makeGateway);

  const tools = (ctx) => {
    const caller = callerOf(ctx);
    const denied = deniedHere(ctx, ctx?.runtimeConfig ?? ctx?.config ?? api.config, settings.toolNames);
    return described.filter((d) => !denied.has(d.name)).map((d) => ({
      name: settings.toolNames[d.name],
      label: d.label,
      description: d.description,
      parameters: JSON.parse(d.parameters),
      // OpenClaw 2026.9's Tool Search offers a model 12 tools at first and the rest through
      // `tool_search`; a direct-only tool is offered as it is (docs `tools/tool-search.md`).
      // Older gateways ignore the field.
      catalogMode: 'direct-only',
      execute: async (_toolCallId, params, signal) => {
        let result;
        try {
          // 2026.9 passes the run's AbortSignal: an aborted run starts no call, and a call
          // in flight is let go (what it started is finished by its limits and its jobs).
          if (signal?.aborted) throw new Error('the run was aborted');
          const call = (async () => (await service()).call(caller, d.name, JSON.stringify(params ?? {})))();
          result = signal ? await abortable(call, signal) : await call;
        } catch (e) {
          // The agent runtime shows a thrown error to the model as the tool's failure.
          throw new Error(e instanceof CallError ? e.message : `${d.name} failed: ${e.message}`);
        }
        const payload = JSON.parse(result);
        // A tool result as the gateway's core tools give theirs.
        return { content: [{ type: 'text', text: JSON.stringify(payload, null, 2) }], details: payload };
      },
    }));
  };
  api.registerTool(tools, { names: described.map((d) => settings.toolNames[d.name]) });

  api.registerService({
    id: 'session-tools-jobs',
    start: async (ctx) => {
      const s = state();
      s.scheduler = true;
      if (ctx?.stateDir) s.stateDir = ctx.stateDir;
      // Jobs left by a previous process resume now. A start never throws: 2026.9 refuses the
      // whole plugin when one does, so what fails is logged and tried again, with backoff.
      const attempt = async (n) => {
        if (!state().scheduler) return;
        try {
          await schedule(await service());
        } catch (e) {
          const wait = START_RETRY_MS[Math.min(n, START_RETRY_MS.length - 1)];
          api.logger?.warn?.(`[session-tools] the job service cannot start yet (${e.message}); trying again in ${wait / 1000} s`);
          s.retry = setTimeout(() => attempt(n + 1), wait);
          s.retry.unref?.();
        }
      };
      await attempt(0);
    },
    stop: async () => {
      const s = state();
      s.scheduler = false;
      clearTimeout(s.retry);
      const { current, service: making } = s;
      Object.assign(s, { service: null, current: null, key: null, lastConfig: undefined, scheduled: null });
      // A service still being made when the gateway stops is stopped too once it is made.
      const made = await making?.catch(() => null);
      const services = [...new Set([current, made])].filter(Boolean);
      await Promise.all(
        services.map(async (service) => {
          if (!(await service.stop({ graceMs: STOP_GRACE_MS }))) {
            api.logger?.warn?.(
              `[session-tools] stopping with calls or job steps still in flight after ${STOP_GRACE_MS} ms; what they started is kept and made again by the next process`,
            );
          }
        }),
      );
    },
  });
}

/** `promise`, or a rejection as soon as `signal` aborts. */
function abortable(promise, signal) {
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(new Error('the run was aborted'));
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
