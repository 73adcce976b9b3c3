import { ExpressionCache } from './expression-cache';

describe('ExpressionCache', () => {
  it('compiles once and returns the same compiled expression for the same text', () => {
    const cache = new ExpressionCache(10);
    const first = cache.compile('Lower(cs["a"])');
    const second = cache.compile('Lower(cs["a"])');
    expect(second).toBe(first);
    expect(first.ok && first.expression.evaluate({ cs: { a: 'X' } })).toBe('x');
    expect(cache.stats).toEqual({ hits: 1, misses: 1, size: 1, capacity: 10 });
  });

  it('caches compile errors too, so a broken mapping is parsed once', () => {
    const cache = new ExpressionCache(10);
    const first = cache.compile('Lower(');
    expect(first.ok).toBe(false);
    expect(cache.compile('Lower(')).toBe(first);
  });

  it('stays within its capacity, evicting the least recently used text', () => {
    const cache = new ExpressionCache(3);
    const a = cache.compile('"a"');
    cache.compile('"b"');
    cache.compile('"c"');
    expect(cache.compile('"a"')).toBe(a); // a is now the most recent
    cache.compile('"d"'); // evicts b
    expect(cache.size).toBe(3);
    expect(cache.compile('"a"')).toBe(a);
    const misses = cache.stats.misses;
    cache.compile('"b"');
    expect(cache.stats.misses).toBe(misses + 1);
    for (let i = 0; i < 100; i++) cache.compile(String(i));
    expect(cache.size).toBe(3);
  });

  it('clears entries and counters', () => {
    const cache = new ExpressionCache(2);
    cache.compile('1');
    cache.clear();
    expect(cache.stats).toEqual({ hits: 0, misses: 0, size: 0, capacity: 2 });
  });

  it.each([0, -1, 1.5, NaN])('refuses a capacity of %p', (capacity) => {
    expect(() => new ExpressionCache(capacity)).toThrow(RangeError);
  });
});
