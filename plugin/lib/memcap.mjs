// Caps the linear memory of a core WebAssembly module: every memory the module defines gets
// a maximum of at most `maxBytes` (rounded down to whole 64 KiB pages), written into its
// memory section. `memory.grow` past the maximum then fails inside the guest (its allocator
// sees no memory and aborts): the engine itself refuses, whatever the guest does.

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

/**
 * The module with its defined memories capped at `maxBytes`; answers
 * `{bytes, memories: [{min, max}]}` (pages). Throws on a memory whose minimum is already
 * above the cap, a 64-bit or shared memory, or a malformed module.
 */
export function capMemory(module, maxBytes) {
  const bytes = module instanceof Uint8Array ? module : new Uint8Array(module);
  const capPages = Math.floor(maxBytes / PAGE);
  if (capPages < 1) throw new Error(`a memory cap of ${maxBytes} bytes is less than one page`);
  if (bytes[0] !== 0 || bytes[1] !== 0x61 || bytes[2] !== 0x73 || bytes[3] !== 0x6d || bytes[4] !== 1) {
    throw new Error('not a core WebAssembly module (version 1)');
  }
  const parts = [bytes.subarray(0, 8)];
  const memories = [];
  let at = 8;
  while (at < bytes.length) {
    const id = bytes[at];
    const [size, body] = readU32(bytes, at + 1);
    const end = body + size;
    if (end > bytes.length) throw new Error('truncated section');
    if (id !== 5) {
      parts.push(bytes.subarray(at, end));
      at = end;
      continue;
    }
    let [count, p] = readU32(bytes, body);
    const out = writeU32(count);
    for (let i = 0; i < count; i++) {
      const flags = bytes[p++];
      if (flags !== 0 && flags !== 1) throw new Error(`memory ${i} has limits flags ${flags} (shared or 64-bit memories are not supported)`);
      let min;
      [min, p] = readU32(bytes, p);
      let max = Infinity;
      if (flags === 1) [max, p] = readU32(bytes, p);
      if (min > capPages) throw new Error(`memory ${i} needs ${min} pages at start, more than the cap of ${capPages}`);
      const capped = Math.min(max, capPages);
      memories.push({ min, max: capped });
      out.push(1, ...writeU32(min), ...writeU32(capped));
    }
    if (p !== end) throw new Error('malformed memory section');
    parts.push(Uint8Array.from([5, ...writeU32(out.length), ...out]));
    at = end;
  }
  const total = parts.reduce((n, part) => n + part.length, 0);
  const result = new Uint8Array(total);
  let offset = 0;
  for (const part of parts) {
    result.set(part, offset);
    offset += part.length;
  }
  return { bytes: result, memories };
}
