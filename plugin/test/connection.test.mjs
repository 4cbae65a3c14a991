// The bridge's persistent connection (lib/gateway-connection.mjs) over a stand-in of the
// gateway's `GatewayClient` (the real one is exercised end to end by tests/plugin_gateway.rs):
// requests wait for the handshake, share one client, fail as transient when the gateway
// cannot be reached or closes, and only a request in flight keeps the process alive.

import { test } from 'node:test';
import assert from 'node:assert/strict';

import { connectionDetails, GatewayConnection, loopbackDetails } from '../lib/gateway-connection.mjs';
import { keyRulesOf } from '../lib/guard.mjs';

/** A stand-in GatewayClient: `helloAfterMs` (null: never), answers by method. */
function fakeModules({ helloAfterMs = 0, answers = {}, clients = [] } = {}) {
  class FakeClient {
    constructor(opts) {
      this.opts = opts;
      this.pending = 0;
      this.refs = [];
      this.ws = { _socket: { ref: () => this.refs.push('ref'), unref: () => this.refs.push('unref') } };
      this.tickTimer = { unref: () => {} };
      clients.push(this);
    }
    start() {
      if (helloAfterMs !== null) setTimeout(() => this.opts.onHelloOk({}), helloAfterMs);
    }
    async request(method, params) {
      const answer = answers[method];
      if (answer instanceof Error) throw answer;
      if (typeof answer === 'function') return answer(params);
      return answer ?? { method, params };
    }
    stop() {
      this.stopped = true;
    }
  }
  return {
    GatewayClient: FakeClient,
    buildGatewayConnectionDetails: ({ config }) => ({ url: `ws://127.0.0.1:${config.gateway?.port ?? 18789}` }),
    loadOrCreateDeviceIdentity: () => ({ deviceId: 'd' }),
    loadGatewayTlsRuntime: undefined,
    PROTOCOL_VERSION: 3,
    names: { GATEWAY_CLIENT: 'gateway-client', CLI: 'cli' },
    modes: { BACKEND: 'backend', CLI: 'cli' },
  };
}

test('requests wait for the handshake and share one client', async () => {
  const clients = [];
  const conn = new GatewayConnection(fakeModules({ helloAfterMs: 30, clients }), { url: 'ws://x', token: 't' });
  const [a, b] = await Promise.all([conn.request('sessions.list', { limit: 1 }), conn.request('chat.history', { sessionKey: 'main' })]);
  assert.deepEqual(a, { method: 'sessions.list', params: { limit: 1 } });
  assert.deepEqual(b, { method: 'chat.history', params: { sessionKey: 'main' } });
  await conn.request('sessions.list', {});
  assert.equal(clients.length, 1, 'one connection for every request');
  assert.equal(conn.connects, 1);
  assert.equal(clients[0].opts.token, 't');
  assert.equal(clients[0].opts.role, 'operator');
  assert.equal(clients[0].opts.maxProtocol, 3);
  // Held while a request was in flight, released after.
  assert.equal(clients[0].refs.at(-1), 'unref');
  assert.ok(clients[0].refs.includes('ref'));
  conn.stop();
  assert.equal(clients[0].stopped, true);
  await assert.rejects(conn.request('sessions.list', {}), (e) => e.transient === true && /stopped/.test(e.message));
});

test('a gateway that never answers the handshake fails the request as transient, in time', async () => {
  const conn = new GatewayConnection(fakeModules({ helloAfterMs: null }), { url: 'ws://x' });
  const started = performance.now();
  await assert.rejects(conn.request('sessions.list', {}, { timeoutMs: 100 }), (e) => e.transient === true && /not connected within 100ms/.test(e.message));
  assert.ok(performance.now() - started < 1000);
  conn.stop();
});

test("the gateway's errors pass through; a close makes the next request wait for a new handshake", async () => {
  const clients = [];
  const answers = { 'sessions.resolve': new Error('No session found: nope') };
  const conn = new GatewayConnection(fakeModules({ answers, clients }), { url: 'ws://x' });
  await assert.rejects(conn.request('sessions.resolve', { key: 'nope' }), /No session found: nope/);
  clients[0].opts.onClose(1006, '');
  assert.equal(conn.ready, false);
  assert.match(conn.lastError, /gateway closed \(1006\)/);
  // The client reconnects by itself: its next hello makes the connection ready again.
  const pending = conn.request('sessions.list', {}, { timeoutMs: 1000 });
  setTimeout(() => clients[0].opts.onHelloOk({}), 20);
  assert.deepEqual(await pending, { method: 'sessions.list', params: {} });
  assert.equal(conn.connects, 2);
  conn.stop();
});

test("connection details are callGateway's: env token first, then the config's; remote mode", async () => {
  const modules = fakeModules();
  const names = ['OPENCLAW', 'CLAWDBOT', 'MOLTBOT'].flatMap((p) => [`${p}_GATEWAY_TOKEN`, `${p}_GATEWAY_PASSWORD`]);
  const saved = Object.fromEntries(names.map((n) => [n, process.env[n]]));
  try {
    for (const n of names) delete process.env[n];
    assert.deepEqual(await connectionDetails(modules, { gateway: { port: 1234, auth: { token: ' cfg ' } } }), {
      url: 'ws://127.0.0.1:1234',
      token: 'cfg',
      password: undefined,
      tlsFingerprint: undefined,
    });
    process.env.CLAWDBOT_GATEWAY_TOKEN = 'env';
    assert.equal((await connectionDetails(modules, { gateway: { auth: { token: 'cfg' } } })).token, 'env');
    const remote = await connectionDetails(modules, { gateway: { mode: 'remote', remote: { url: 'wss://r', token: 'rt', tlsFingerprint: 'ab' } } });
    assert.equal(remote.token, 'rt');
    assert.equal(remote.tlsFingerprint, 'ab');
    await assert.rejects(connectionDetails(modules, { gateway: { mode: 'remote', remote: {} } }), /gateway\.remote\.url missing/);
  } finally {
    for (const [n, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[n];
      else process.env[n] = v;
    }
  }
});

test("on 2026.5 and later the gateway is found by the deployment rule the Rust host follows: port, TLS, auth mode", () => {
  const saved = Object.fromEntries(Object.keys(process.env).filter((k) => /_GATEWAY_/.test(k)).map((k) => [k, process.env[k]]));
  for (const k of Object.keys(saved)) delete process.env[k];
  try {
    assert.deepEqual(loopbackDetails({ gateway: { port: 19001, auth: { token: 't' } } }), { url: 'ws://127.0.0.1:19001', token: 't', password: undefined });
    const tls = { gateway: { tls: { enabled: true }, auth: { mode: 'password', password: 'pw', token: 't' } } };
    assert.deepEqual(loopbackDetails(tls), { url: 'wss://127.0.0.1:18789', token: undefined, password: 'pw' });
    process.env.OPENCLAW_GATEWAY_PORT = '19002';
    assert.equal(loopbackDetails({ gateway: { port: 1 } }).url, 'ws://127.0.0.1:19002', 'the environment first');
    process.env.OPENCLAW_GATEWAY_PORT = 'x';
    assert.throws(() => loopbackDetails({}), /the gateway port in the environment is not a port number: "x"/);
  } finally {
    delete process.env.OPENCLAW_GATEWAY_PORT;
    Object.assign(process.env, saved);
  }
});

test("a list's histories read in-process where they can be, the rest asked over the RPC, in order", async () => {
  const { OpenClawGateway } = await import('../lib/openclaw-gateway.mjs');
  const asked = [];
  const callGateway = async ({ method, params }) => {
    asked.push([method, params.sessionKey]);
    return { sessionKey: params.sessionKey, messages: [{ role: 'user', content: 'over rpc' }] };
  };
  const histories = {
    read: async (list) => list.map((p) => (p.sessionKey === 'agent:main:b' ? { error: 'not here' } : { ok: { sessionKey: p.sessionKey, messages: [] } })),
  };
  const rules = keyRulesOf('{}');
  const bridge = new OpenClawGateway({ callGateway, histories, rules });
  const out = await bridge.histories([{ sessionKey: 'agent:main:a' }, { sessionKey: 'agent:main:b' }, { sessionKey: 'agent:main:c' }]);
  assert.deepEqual(asked, [['chat.history', 'agent:main:b']]);
  assert.deepEqual(
    out.map((a) => a.ok.messages.length),
    [0, 1, 0],
  );
  // A reader that throws: everything is asked.
  const throwing = new OpenClawGateway({ callGateway, histories: { read: async () => { throw new Error('x'); } }, rules });
  asked.length = 0;
  await throwing.histories([{ sessionKey: 'agent:main:a' }, { sessionKey: 'agent:main:b' }]);
  assert.equal(asked.length, 2);
});
