/**
 * A map bounded by an estimate of the memory its values hold: values report what they add as
 * they are filled (`charge`), and the oldest entries go first when the budget is exceeded.
 * First in, first out rather than least recently used: a hit costs one lookup, nothing more.
 */
export interface Weighed {
  /** Estimated bytes held by this value; maintained by the cache. */
  bytes: number;
}

export class BoundedCache<V extends Weighed> {
  private readonly map = new Map<string, V>();
  private total = 0;

  constructor(private readonly budgetBytes: number) {}

  get size(): number {
    return this.map.size;
  }

  /** Estimated bytes held by all values. */
  get bytes(): number {
    return this.total;
  }

  get(key: string): V | undefined {
    return this.map.get(key);
  }

  set(key: string, value: V): void {
    this.delete(key);
    this.map.set(key, value);
    this.total += value.bytes;
    this.evict();
  }

  /** Adds `bytes` to a value; counted against the budget only while the value is still held here. */
  charge(key: string, value: V, bytes: number): void {
    value.bytes += bytes;
    if (this.map.get(key) !== value) return;
    this.total += bytes;
    this.evict();
  }

  delete(key: string): void {
    const value = this.map.get(key);
    if (value === undefined) return;
    this.map.delete(key);
    this.total -= value.bytes;
  }

  clear(): void {
    this.map.clear();
    this.total = 0;
  }

  private evict(): void {
    while (this.total > this.budgetBytes && this.map.size > 1) this.delete(this.map.keys().next().value!);
  }
}
