// One persistent connection to the gateway the plugin runs in, made with the gateway's own
// client (`GatewayClient`) and the connection details its `callGateway` would use. Why:
// `callGateway` opens a new WebSocket and handshake for every call, 100–250 ms each, so a
// tool call that makes a dozen gateway calls spent seconds connecting.
//
// The client reconnects by itself; a request made while it is down waits for the next
// handshake within its own time limit, and fails as transient (the job runner retries it).

import { asked } from './components.mjs';
import { importBeside, importSdk, requireExports } from './gateway-modules.mjs';
import { guardComponent } from './guard.mjs';

/**
 * The gateway client of OpenClaw 2026.5 and later (no `dist/gateway/call.js`): the plugin
 * SDK's `GatewayClient`, connecting as the local backend client with the shared secret and no
 * device identity, which a gateway grants its scopes on loopback.
 */
export async function loadSdkGatewayModules(entry = process.argv[1]) {
  const tried = [];
  const sdk = await importSdk('gateway-runtime', (m) => typeof m?.GatewayClient === 'function', tried, entry);
  if (!sdk) throw new Error(`no gateway client of the plugin SDK (tried ${tried.join('; ')})`);
  return {
    GatewayClient: sdk.GatewayClient,
    loadOrCreateDeviceIdentity: () => null,
    names: { GATEWAY_CLIENT: 'gateway-client' },
    modes: { BACKEND: 'backend' },
  };
}

/**
 * The URL and shared secret of the gateway this plugin runs in (2026.5 and later), as
 * OpenClaw's command line finds them: the `deployment` rule, which the Rust host follows too.
 */
export function loopbackDetails(config) {
  const env = Object.entries(process.env).filter(([, value]) => typeof value === 'string');
  return asked(() => guardComponent().deployment.localGateway(JSON.stringify(config ?? {}), env), 'the gateway this plugin runs in');
}

/** Loads the gateway's client modules next to `callModulePath`; throws when they are not there. */
export async function loadGatewayClientModules(callModulePath) {
  const [call, client, identity, protocol, clientInfo] = await importBeside(callModulePath, [
    'call.js',
    'client.js',
    '../infra/device-identity.js',
    'protocol/index.js',
    'protocol/client-info.js',
  ]);
  // Only needed when the gateway serves TLS itself.
  const [tls] = await importBeside(callModulePath, ['../infra/tls/gateway.js']).catch(() => [null]);
  const found = requireExports({
    GatewayClient: client.GatewayClient,
    buildGatewayConnectionDetails: call.buildGatewayConnectionDetails,
    loadOrCreateDeviceIdentity: identity.loadOrCreateDeviceIdentity,
    PROTOCOL_VERSION: protocol.PROTOCOL_VERSION,
    names: clientInfo.GATEWAY_CLIENT_NAMES,
  });
  return { ...found, loadGatewayTlsRuntime: tls?.loadGatewayTlsRuntime, modes: clientInfo.GATEWAY_CLIENT_MODES ?? {} };
}

const trimmed = (v) => (typeof v === 'string' && v.trim().length > 0 ? v.trim() : undefined);

/** The first of the gateway's env variables for `name` (all three prefixes) that is set. */
function env(name) {
  for (const prefix of ['OPENCLAW', 'CLAWDBOT', 'MOLTBOT']) {
    const value = trimmed(process.env[`${prefix}_${name}`]);
    if (value) return value;
  }
  return undefined;
}

/** What the January packages' `callGateway` connects with, for their `config`. */
export async function connectionDetails(modules, config) {
  const gateway = config?.gateway ?? {};
  const remote = gateway.mode === 'remote' ? gateway.remote ?? {} : undefined;
  if (remote && !trimmed(remote.url)) throw new Error('gateway remote mode misconfigured: gateway.remote.url missing');
  const { url } = modules.buildGatewayConnectionDetails({ config });
  let tlsFingerprint;
  if (remote) {
    tlsFingerprint = trimmed(remote.tlsFingerprint);
  } else if (gateway.tls?.enabled === true && url.startsWith('wss://') && modules.loadGatewayTlsRuntime) {
    const runtime = await modules.loadGatewayTlsRuntime(gateway.tls);
    if (runtime?.enabled) tlsFingerprint = runtime.fingerprintSha256;
  }
  const token = remote ? trimmed(remote.token) : env('GATEWAY_TOKEN') ?? trimmed(gateway.auth?.token);
  const password = env('GATEWAY_PASSWORD') ?? (remote ? trimmed(remote.password) : trimmed(gateway.auth?.password));
  return { url, token, password, tlsFingerprint };
}

export class GatewayConnection {
  /** `modules`: [`loadGatewayClientModules`]; `details`: [`connectionDetails`]. */
  constructor(modules, details, { displayName = 'session-tools plugin', version = 'dev', onHello } = {}) {
    this.onHello = onHello;
    this.modules = modules;
    this.details = details;
    this.displayName = displayName;
    this.version = version;
    this.client = null;
    this.stopped = false;
    this.connects = 0;
    this.inFlight = 0;
    this.lastError = null;
    /** The protocol the last handshake negotiated (`hello-ok.protocol`). */
    this.protocol = modules?.PROTOCOL_VERSION;
    this.#unready();
  }

  #unready() {
    this.ready = false;
    ({ promise: this.readyPromise, resolve: this.markReady } = Promise.withResolvers());
  }

  #start() {
    if (this.client || this.stopped) return;
    const m = this.modules;
    this.client = new m.GatewayClient({
      url: this.details.url,
      token: this.details.token,
      password: this.details.password,
      tlsFingerprint: this.details.tlsFingerprint,
      clientName: m.names.GATEWAY_CLIENT ?? m.names.CLI,
      clientDisplayName: this.displayName,
      clientVersion: this.version,
      mode: m.modes.BACKEND ?? m.modes.CLI,
      role: 'operator',
      scopes: ['operator.admin', 'operator.approvals', 'operator.pairing'],
      deviceIdentity: m.loadOrCreateDeviceIdentity(),
      // The package's own protocol (the SDK's client knows it: left to it).
      ...(m.PROTOCOL_VERSION === undefined ? {} : { minProtocol: m.PROTOCOL_VERSION, maxProtocol: m.PROTOCOL_VERSION }),
      onHelloOk: (hello) => {
        if (typeof hello?.protocol === 'number') this.protocol = hello.protocol;
        if (this.connects === 0) this.onHello?.(hello);
        this.#holdProcess();
        this.connects += 1;
        this.lastError = null;
        this.ready = true;
        this.markReady();
      },
      onConnectError: (e) => {
        this.lastError = e?.message ?? String(e);
      },
      onClose: (code, reason) => {
        this.lastError = `gateway closed (${code}): ${reason || 'no close reason'}`;
        if (this.ready) this.#unready();
      },
    });
    this.client.start();
  }

  /**
   * An idle connection does not keep the process alive (OpenClaw's command-line processes
   * load the plugin too, and must exit when done); one with a request in flight does. The
   * socket and tick timer are the client's own (`ws`'s `_socket`, `tickTimer`), when present.
   */
  #holdProcess() {
    const hold = this.inFlight > 0;
    const socket = this.client?.ws?._socket;
    if (socket) hold ? socket.ref?.() : socket.unref?.();
    this.client?.tickTimer?.unref?.();
  }

  /** One request; `expectFinal` waits past `accepted`. Blocks for at most `timeoutMs`. */
  async request(method, params, { expectFinal = false, timeoutMs = 30_000 } = {}) {
    if (this.stopped) throw transient('the gateway connection was stopped', 'unavailable');
    this.#start();
    this.inFlight += 1;
    this.#holdProcess();
    let timer;
    const timeout = new Promise((_, reject) => {
      timer = setTimeout(
        () => reject(this.ready ? transient(`gateway timeout after ${timeoutMs}ms`, 'timeout') : transient(`gateway not connected within ${timeoutMs}ms${this.lastError ? ` (${this.lastError})` : ''}`, 'unavailable')),
        timeoutMs,
      );
    });
    try {
      // Made once the connection is ready (at once when it is).
      const answer = this.readyPromise.then(() => this.client.request(method, params, { expectFinal }));
      return await Promise.race([answer, timeout]);
    } finally {
      clearTimeout(timer);
      this.inFlight -= 1;
      this.#holdProcess();
    }
  }

  stop() {
    this.stopped = true;
    this.client?.stop();
    this.client = null;
  }
}

function transient(message, kind) {
  const error = new Error(message);
  error.transient = true;
  error.kind = kind;
  return error;
}
