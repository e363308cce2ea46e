/**
 * A memo for pure computations keyed by a string, bounded by starting afresh when full: the
 * answers of a few shapes or inputs (compiled SQL, negotiated media types, eligible payment
 * methods) are kept, and a key space that turns out unbounded costs a recompute, not memory.
 */
export class BoundedMemo<V> {
  private readonly map = new Map<string, V>();

  constructor(private readonly max: number) {}

  /** The answer kept for `key`, else `compute()`'s, kept (an `undefined` answer too). */
  get(key: string, compute: () => V): V {
    const known = this.map.get(key);
    if (known !== undefined || this.map.has(key)) return known as V;
    const value = compute();
    if (this.map.size >= this.max) this.map.clear();
    this.map.set(key, value);
    return value;
  }
}
