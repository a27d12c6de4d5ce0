// A Map held to a byte budget: each value is stored with its size, and the oldest entries (in
// insertion order) leave first when a new one would not fit. Shared by the in-memory caches that
// must not grow with traffic (completed job answers in the API, reused poses in an engine).

export class ByteBudgetMap<K, V> {
  private readonly entries = new Map<K, { value: V; bytes: number }>();
  private held = 0;
  private readonly maxBytes: number;

  constructor(maxBytes: number) {
    this.maxBytes = maxBytes;
  }

  get(key: K): V | undefined {
    return this.entries.get(key)?.value;
  }

  has(key: K): boolean {
    return this.entries.has(key);
  }

  delete(key: K): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.held -= entry.bytes;
    this.entries.delete(key);
  }

  /** Stores `value` as the newest entry, evicting the oldest until it fits; one larger than the whole budget is not kept. */
  set(key: K, value: V, bytes: number): boolean {
    this.delete(key);
    if (bytes > this.maxBytes) return false;
    for (const oldest of this.entries.keys()) {
      if (this.held + bytes <= this.maxBytes) break;
      this.delete(oldest);
    }
    this.entries.set(key, { value, bytes });
    this.held += bytes;
    return true;
  }

  /** Every key with its value, oldest first (deleting the current key while iterating is safe). */
  *[Symbol.iterator](): IterableIterator<[K, V]> {
    for (const [key, entry] of this.entries) yield [key, entry.value];
  }
}
