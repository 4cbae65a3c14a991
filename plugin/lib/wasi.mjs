// The WASI a guest is given (N16): exactly the interfaces `wasm32-wasip2` std links, and
// none of them grants anything. No environment variables (whatever the host process has:
// gateway tokens stay out), no arguments, no working directory, an empty stdin, no
// terminal, stdout and stderr captured into a bounded buffer the host drains into its log;
// `exit` stops the call. No files, sockets, clocks or randomness: those interfaces are not
// provided at all, so a component that imports them cannot be instantiated (and the build
// refuses it before that: `wit/component-imports.json` lists what each component may import).

/** A bounded capture of one output stream: bytes past `capacity` are dropped and counted. */
export class BoundedOutput {
  constructor(capacity) {
    this.capacity = capacity;
    this.chunks = [];
    this.size = 0;
    this.dropped = 0;
  }

  push(bytes) {
    const room = Math.max(0, this.capacity - this.size);
    const kept = Math.min(room, bytes.length);
    if (kept > 0) {
      this.chunks.push(Buffer.from(bytes.subarray(0, kept)));
      this.size += kept;
    }
    this.dropped += bytes.length - kept;
  }

  /** What was written since the last take (lossy UTF-8), and how many bytes were dropped. */
  take() {
    const text = this.size ? Buffer.concat(this.chunks).toString('utf8') : '';
    const dropped = this.dropped;
    this.chunks = [];
    this.size = 0;
    this.dropped = 0;
    return { text, dropped };
  }
}

/** The guest called `exit`: a trap for the call. */
export class GuestExit extends Error {
  constructor(ok) {
    super(`the guest called exit(${ok ? 'ok' : 'err'})`);
    this.name = 'GuestExit';
  }
}

/**
 * The WASI part of an instance's imports, writing stdout/stderr into `stdout`/`stderr`: the
 * functions std's runtime calls (jco binds only those a component imports), each inert.
 */
export function wasiImports({ stdout, stderr }) {
  class IoError {}
  class Pollable {
    block() {}
  }
  class InputStream {
    // An empty stdin: a read says the stream is closed.
    blockingRead() {
      throw { tag: 'closed' };
    }
  }
  class OutputStream {
    constructor(sink) {
      this.sink = sink;
    }
    checkWrite() {
      return 65536n;
    }
    write(contents) {
      this.sink.push(contents);
    }
    blockingFlush() {}
    subscribe() {
      return new Pollable();
    }
  }
  class TerminalInput {}
  class TerminalOutput {}
  return {
    'wasi:cli/environment': {
      getEnvironment: () => [],
      getArguments: () => [],
      initialCwd: () => undefined,
    },
    'wasi:cli/exit': {
      exit: (status) => {
        throw new GuestExit(status?.tag === 'ok');
      },
    },
    'wasi:cli/stdin': { getStdin: () => new InputStream() },
    'wasi:cli/stdout': { getStdout: () => new OutputStream(stdout) },
    'wasi:cli/stderr': { getStderr: () => new OutputStream(stderr) },
    'wasi:cli/terminal-input': { TerminalInput },
    'wasi:cli/terminal-output': { TerminalOutput },
    'wasi:cli/terminal-stdin': { getTerminalStdin: () => undefined },
    'wasi:cli/terminal-stdout': { getTerminalStdout: () => undefined },
    'wasi:cli/terminal-stderr': { getTerminalStderr: () => undefined },
    'wasi:io/error': { Error: IoError },
    'wasi:io/poll': { Pollable },
    'wasi:io/streams': { InputStream, OutputStream },
    'wasi:random/insecure-seed': { insecureSeed: () => [0n, 0n] },
  };
}
