// Caps what a core WebAssembly module may take, as the Rust host's engine does (wasmtime's
// pooling limits, `memoryBytes` and `tableElements` of the agent's limits): every memory the
// module defines gets a maximum of at most `memoryBytes` (rounded down to whole 64 KiB
// pages), written into its memory section, and every table it defines a maximum of at most
// `tableElements`, written into its table section. `memory.grow` or `table.grow` past the
// maximum then fails inside the guest (its allocator sees no memory and aborts): the engine
// itself refuses, whatever the guest does.

const PAGE = 65536;

function readU32(bytes, at) {
  let result = 0;
  let shift = 0;
  for (let i = 0; i < 5; i++) {
    const b = bytes[at + i];
    if (b === undefined) throw new Error('truncated LEB128');
    result += (b & 0x7f) * 2 ** shift;
    if ((b & 0x80) === 0) return [result, at + i + 1];
    shift += 7;
  }
  throw new Error('LEB128 too long');
}

function writeU32(value) {
  const out = [];
  do {
    let b = value % 128;
    value = Math.floor(value / 128);
    if (value > 0) b |= 0x80;
    out.push(b);
  } while (value > 0);
  return out;
}

/** A limits (flags, min, max?) at `p`, capped at `cap`: `[{min, max}, encoding, next]`; throws naming `what`. */
function capLimits(bytes, p, cap, what, unit) {
  const flags = bytes[p++];
  if (flags !== 0 && flags !== 1) throw new Error(`${what} has limits flags ${flags} (shared or 64-bit ones are not supported)`);
  let min;
  [min, p] = readU32(bytes, p);
  let max = Infinity;
  if (flags === 1) [max, p] = readU32(bytes, p);
  if (min > cap) throw new Error(`${what} needs ${min} ${unit} at start, more than the cap of ${cap}`);
  const capped = Math.min(max, cap);
  return [{ min, max: capped }, [1, ...writeU32(min), ...writeU32(capped)], p];
}

/**
 * The module with its defined memories capped at `memoryBytes` and its defined tables at
 * `tableElements` (no cap when absent); answers `{bytes, memories: [{min, max}] (pages),
 * tables: [{min, max}] (elements)}`. Throws on a memory or table whose minimum is already
 * above its cap, a 64-bit or shared memory, a table of another encoding than a plain
 * `funcref`/`externref` one, or a malformed module.
 */
export function capModule(module, { memoryBytes, tableElements = Infinity }) {
  const bytes = module instanceof Uint8Array ? module : new Uint8Array(module);
  const capPages = Math.floor(memoryBytes / PAGE);
  if (capPages < 1) throw new Error(`a memory cap of ${memoryBytes} bytes is less than one page`);
  if (!(tableElements >= 0)) throw new Error(`a table cap of ${tableElements} elements`);
  const capElements = Math.min(tableElements, 2 ** 32 - 1);
  if (bytes[0] !== 0 || bytes[1] !== 0x61 || bytes[2] !== 0x73 || bytes[3] !== 0x6d || bytes[4] !== 1) {
    throw new Error('not a core WebAssembly module (version 1)');
  }
  const parts = [bytes.subarray(0, 8)];
  const memories = [];
  const tables = [];
  let at = 8;
  while (at < bytes.length) {
    const id = bytes[at];
    const [size, body] = readU32(bytes, at + 1);
    const end = body + size;
    if (end > bytes.length) throw new Error('truncated section');
    if (id !== 4 && id !== 5) {
      parts.push(bytes.subarray(at, end));
      at = end;
      continue;
    }
    let [count, p] = readU32(bytes, body);
    const out = writeU32(count);
    for (let i = 0; i < count; i++) {
      let limits;
      let encoded;
      if (id === 5) {
        [limits, encoded, p] = capLimits(bytes, p, capPages, `memory ${i}`, 'pages');
        memories.push(limits);
      } else {
        const type = bytes[p++];
        if (type !== 0x70 && type !== 0x6f) throw new Error(`table ${i} has the type or encoding ${type} (only funcref and externref tables are supported)`);
        [limits, encoded, p] = capLimits(bytes, p, capElements, `table ${i}`, 'elements');
        tables.push(limits);
        out.push(type);
      }
      out.push(...encoded);
    }
    if (p !== end) throw new Error(`malformed ${id === 5 ? 'memory' : 'table'} section`);
    parts.push(Uint8Array.from([id, ...writeU32(out.length), ...out]));
    at = end;
  }
  const total = parts.reduce((n, part) => n + part.length, 0);
  const result = new Uint8Array(total);
  let offset = 0;
  for (const part of parts) {
    result.set(part, offset);
    offset += part.length;
  }
  return { bytes: result, memories, tables };
}
