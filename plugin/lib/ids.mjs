// The ids a guest draws during one tool call or one job step (`SeededIds` of
// `host/src/jobs/intent.rs`, byte for byte): derived from a seed, so the same call or step
// made again after a stop gets the same ids and so sends the same idempotency keys, which
// the gateway de-duplicates: exactly once in effect across a stop.
//
// The seed is a SHA-256 over the seed's parts, each as its UTF-8 length (u64, little
// endian) then its bytes; the n-th id (from 0) is the first 16 bytes of a SHA-256 of the
// seed then n (u64, little endian), with the UUID v4 version and variant bits set, written
// as a lower-case hyphenated UUID. `host/src/jobs/seeded-ids.json` is the test vector both
// hosts check. A call is seeded by `['call', <intent id>]`, a job step by
// `['step', <job key>, <its step count>]`.

import { createHash } from 'node:crypto';

function u64le(n) {
  const bytes = Buffer.alloc(8);
  bytes.writeBigUInt64LE(BigInt(n));
  return bytes;
}

/** The seed of a call or a step from its parts (strings). */
export function seedOf(parts) {
  const digest = createHash('sha256');
  for (const part of parts) {
    const bytes = Buffer.from(part, 'utf8');
    digest.update(u64le(bytes.length));
    digest.update(bytes);
  }
  return digest.digest();
}

/** The n-th id of a seed. */
export function seededUuid(seed, n) {
  const bytes = createHash('sha256').update(seed).update(u64le(n)).digest().subarray(0, 16);
  bytes[6] = (bytes[6] & 0x0f) | 0x40;
  bytes[8] = (bytes[8] & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** The ids of one call or step: `next()` answers them in order. */
export class SeededIds {
  constructor(parts) {
    this.seed = seedOf(parts);
    this.count = 0;
  }

  next() {
    return seededUuid(this.seed, this.count++);
  }
}

/** The seed parts of a tool call (made first, or again from its intent). */
export const callSeed = (intentId) => ['call', intentId];

/** The seed parts of a job step: its key and how many steps led to it. */
export const stepSeed = (record) => ['step', record.key, String(record.steps ?? 0)];
