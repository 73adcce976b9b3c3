import { DigestSet } from './digest-set';

describe('DigestSet', () => {
  it('finds every key added, through many resizes, and counts each once', () => {
    const set = new DigestSet();
    for (let i = 0; i < 50_000; i++) set.add(`person\u0000EMP${String(i).padStart(6, '0')}`);
    set.add('person\u0000EMP000001');
    expect(set.size).toBe(50_000);
    let found = 0;
    for (let i = 0; i < 50_000; i++) if (set.has(`person\u0000EMP${String(i).padStart(6, '0')}`)) found++;
    expect(found).toBe(50_000);
  });

  it('does not find keys never added, including near misses', () => {
    const set = new DigestSet();
    for (let i = 0; i < 50_000; i++) set.add(`E${i}`);
    const misses = ['', 'e1', 'E1 ', ' E1', 'E50000', 'E-1', 'group\u0000E1', ...Array.from({ length: 50_000 }, (_, i) => `F${i}`)];
    expect(misses.filter((key) => set.has(key))).toEqual([]);
  });

  it('holds the empty string and keys that differ only beyond the first characters', () => {
    const set = new DigestSet();
    set.add('');
    set.add(`${'x'.repeat(1000)}a`);
    expect(set.has('')).toBe(true);
    expect(set.has(`${'x'.repeat(1000)}a`)).toBe(true);
    expect(set.has(`${'x'.repeat(1000)}b`)).toBe(false);
  });
});
