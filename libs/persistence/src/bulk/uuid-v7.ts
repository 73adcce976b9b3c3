import { randomBytes, randomFillSync } from 'node:crypto';

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
  return format(b.toString('hex'));
}

const format = (hex: string) => `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;

/**
 * A UUID v7 of exactly this millisecond (random sequence and tail). Unlike uuidV7, which never goes below
 * the last id it made, this places an id at any time, past ones included (records of a chosen time).
 */
export function uuidV7At(ms: number): string {
  const b = randomBytes(16);
  b.writeUIntBE(ms, 0, 6);
  b[6] = 0x70 | (b[6] & 0x0f);
  b[8] = (b[8] & 0x3f) | 0x80;
  return format(b.toString('hex'));
}

/**
 * The smallest UUID v7 of a millisecond: every id below it was made before that millisecond, so
 * `id < bound` selects rows keyed by UUID v7 by time, on the primary key.
 */
export function uuidV7LowerBound(ms: number): string {
  return format(Math.max(0, Math.floor(ms)).toString(16).padStart(12, '0').padEnd(32, '0'));
}

/**
 * uuidV7 in SQL, of the time `at` (an SQL timestamptz expression), for rows written by INSERT … SELECT:
 * the 48 leading bits are the Unix milliseconds of `at`, the rest comes from gen_random_uuid() with its
 * version nibble turned from 4 into 7 (bits 52 and 53). Ids of one statement share their millisecond and
 * are not ordered among themselves; across statements they are time ordered.
 */
export const uuidV7Sql = (at: string): string =>
  `encode(set_bit(set_bit(overlay(uuid_send(gen_random_uuid()) placing substring(int8send(floor(extract(epoch FROM ${at}) * 1000)::bigint) FROM 3) ` +
  `FROM 1 FOR 6), 52, 1), 53, 1), 'hex')::uuid`;
