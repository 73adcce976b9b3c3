import { randomFillSync } from 'node:crypto';

const POOL_SIZE = 16 * 1024;
const pool = Buffer.alloc(POOL_SIZE);
let poolOffset = POOL_SIZE;
let lastMs = -1;
let sequence = 0;

function random(bytes: number): Buffer {
  if (poolOffset + bytes > POOL_SIZE) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  const out = pool.subarray(poolOffset, poolOffset + bytes);
  poolOffset += bytes;
  return out;
}

/**
 * A time-ordered UUID (RFC 9562 version 7): 48 bits of Unix milliseconds, a 12-bit sequence that
 * keeps ids made in the same millisecond ascending, 62 random bits. Rows keyed by it are appended
 * to the right edge of their B-tree indexes instead of landing on random pages, which is what
 * keeps bulk inserts of a million objects from thrashing the primary-key index (ADR 0003).
 */
export function uuidV7(now = Date.now()): string {
  if (now > lastMs) {
    lastMs = now;
    sequence = random(2).readUInt16BE(0) & 0x3ff; // start low in the 12 bits, so there is room to count up
  } else if (++sequence > 0xfff) {
    // More than ~3000 ids in one millisecond (or the clock went back): borrow the next millisecond.
    lastMs++;
    sequence = 0;
  }
  const b = Buffer.allocUnsafe(16);
  b.writeUIntBE(lastMs, 0, 6);
  b[6] = 0x70 | (sequence >> 8);
  b[7] = sequence & 0xff;
  random(8).copy(b, 8);
  b[8] = (b[8] & 0x3f) | 0x80;
  const hex = b.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
