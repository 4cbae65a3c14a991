// The WASI a guest is given (N16), as the Rust host's (host/src/wasi/): the interfaces
// `wasm32-wasip2` std links, none granting anything (the host process's environment, with its
// gateway tokens, stays out); stdout and stderr go into a bounded buffer the host drains into
// its log. Files, sockets, clocks and random bytes are not provided at all (std's hash-map seed
// is a fixed one; the build refuses a component importing more: `wit/component-imports.json`).

/** A bounded capture of one output stream: bytes past `capacity` are dropped and counted. */
export class BoundedOutput {
  constructor(capacity) {
    this.capacity = capacity;
    this.take();
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

/**
 * The WASI part of an instance's imports, writing stdout/stderr into `stdout`/`stderr`: the
 * functions std's runtime calls (jco binds only those a component imports), each inert.
 */
export function wasiImports({ stdout, stderr }) {
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
  return {
    'wasi:cli/environment': {
      getEnvironment: () => [],
      getArguments: () => [],
      initialCwd: () => undefined,
    },
    'wasi:cli/exit': {
      // The guest called `exit`: a trap for the call.
      exit: (status) => {
        throw new Error(`the guest called exit(${status?.tag === 'ok' ? 'ok' : 'err'})`);
      },
    },
    'wasi:cli/stdin': { getStdin: () => new InputStream() },
    'wasi:cli/stdout': { getStdout: () => new OutputStream(stdout) },
    'wasi:cli/stderr': { getStderr: () => new OutputStream(stderr) },
    'wasi:cli/terminal-input': { TerminalInput: class TerminalInput {} },
    'wasi:cli/terminal-output': { TerminalOutput: class TerminalOutput {} },
    'wasi:cli/terminal-stdin': { getTerminalStdin: () => undefined },
    'wasi:cli/terminal-stdout': { getTerminalStdout: () => undefined },
    'wasi:cli/terminal-stderr': { getTerminalStderr: () => undefined },
    'wasi:io/error': { Error: class IoError {} },
    'wasi:io/poll': { Pollable },
    'wasi:io/streams': { InputStream, OutputStream },
    'wasi:random/insecure-seed': { insecureSeed: () => [0n, 0n] },
  };
}
