/** A small LRU map (groupcache/lru's role in the event correlator): bounded, evicting the least recently used key. */
export class LRU<V> {
  private map = new Map<string, V>();

  constructor(readonly maxEntries: number) {
    if (maxEntries <= 0) throw new Error("LRU size must be positive");
  }

  get(key: string): V | undefined {
    const v = this.map.get(key);
    if (v !== undefined) {
      // Map preserves insertion order: re-inserting marks the key most recently used.
      this.map.delete(key);
      this.map.set(key, v);
    }
    return v;
  }

  set(key: string, value: V): void {
    if (this.map.has(key)) this.map.delete(key);
    this.map.set(key, value);
    if (this.map.size > this.maxEntries) {
      const oldest = this.map.keys().next().value as string;
      this.map.delete(oldest);
    }
  }

  get size(): number {
    return this.map.size;
  }
}
