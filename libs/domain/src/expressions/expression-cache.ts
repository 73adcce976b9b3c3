import { CompileResult, compileExpression } from './expression-compiler';

/**
 * A bounded least-recently-used cache of compiled expressions (and of compile errors, so a broken
 * mapping is not re-parsed for every object). Compiled expressions are immutable and safe to share.
 */
export class ExpressionCache {
  private readonly entries = new Map<string, CompileResult>();
  private hitCount = 0;
  private missCount = 0;

  constructor(readonly capacity = 1000) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError('ExpressionCache capacity must be a positive whole number');
  }

  /** Compiles `text`, or returns the cached result of an earlier compile of the same text. */
  compile(text: string): CompileResult {
    const cached = this.entries.get(text);
    if (cached) {
      this.hitCount++;
      // Re-insert so the Map's insertion order doubles as recency order.
      this.entries.delete(text);
      this.entries.set(text, cached);
      return cached;
    }
    this.missCount++;
    const result = compileExpression(text);
    if (this.entries.size >= this.capacity) this.entries.delete(this.entries.keys().next().value as string);
    this.entries.set(text, result);
    return result;
  }

  get size(): number {
    return this.entries.size;
  }

  /** Hits and misses since creation or the last clear(). */
  get stats(): { hits: number; misses: number; size: number; capacity: number } {
    return { hits: this.hitCount, misses: this.missCount, size: this.entries.size, capacity: this.capacity };
  }

  clear(): void {
    this.entries.clear();
    this.hitCount = 0;
    this.missCount = 0;
  }
}
