// Written by digest() for the caller to read, so hashing a million keys allocates nothing.
let high = 0;
let low = 0;

/** Hashes `text` to 64 bits in `high` and `low` (cyrb53's mixing, with both 32-bit lanes kept whole). */
function digest(text: string): void {
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 2654435761);
    h2 = Math.imul(h2 ^ c, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  high = h1 >>> 0;
  low = h2 >>> 0;
  // 0/0 marks an empty slot.
  if (high === 0 && low === 0) low = 1;
}

/**
 * A set of strings kept as 64-bit digests in one typed array (at most 32 bytes a key, whatever its
 * length), for indexing every key of a large file. `has` is exact when it answers false; a true answer
 * is wrong with a probability of about size / 2^64, so a caller that must be certain checks again
 * against the data.
 */
export class DigestSet {
  private slots = new Uint32Array(2 * 1024);
  private count = 0;

  get size(): number {
    return this.count;
  }

  add(key: string): void {
    digest(key);
    if (this.find(high, low) >= 0) return;
    if (2 * (this.count + 1) > this.slots.length / 2) this.grow();
    this.place(high, low);
    this.count++;
  }

  has(key: string): boolean {
    digest(key);
    return this.find(high, low) >= 0;
  }

  /** Slot index holding the digest, or -1. */
  private find(h: number, l: number): number {
    const mask = this.slots.length / 2 - 1;
    for (let i = h & mask; ; i = (i + 1) & mask) {
      const sh = this.slots[2 * i];
      const sl = this.slots[2 * i + 1];
      if (sh === h && sl === l) return i;
      if (sh === 0 && sl === 0) return -1;
    }
  }

  private place(h: number, l: number): void {
    const mask = this.slots.length / 2 - 1;
    let i = h & mask;
    while (this.slots[2 * i] !== 0 || this.slots[2 * i + 1] !== 0) i = (i + 1) & mask;
    this.slots[2 * i] = h;
    this.slots[2 * i + 1] = l;
  }

  private grow(): void {
    const old = this.slots;
    this.slots = new Uint32Array(old.length * 2);
    for (let i = 0; i < old.length; i += 2) if (old[i] !== 0 || old[i + 1] !== 0) this.place(old[i], old[i + 1]);
  }
}
