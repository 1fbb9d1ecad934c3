/**
 * The absent-owner cache (upstream uid_cache.go's ReferenceCache): owner identities the API server
 * confirmed do not exist, so that many dependents of one deleted owner cost one GET, not one each.
 * A bounded LRU (upstream: 500 entries).
 *
 * Invariant: `entries` holds at most `maxSize` keys, least recently used first (a Map keeps
 * insertion order; a hit re-inserts the key at the end).
 */
import type { ObjectReference } from "./graph.js";

export const ABSENT_OWNER_CACHE_SIZE = 500;

function key(r: ObjectReference): string {
  return JSON.stringify([r.uid, r.apiVersion, r.kind, r.name, r.namespace]);
}

export class ReferenceCache {
  private readonly entries = new Map<string, true>();

  constructor(readonly maxSize = ABSENT_OWNER_CACHE_SIZE) {}

  add(r: ObjectReference): void {
    const k = key(r);
    this.entries.delete(k);
    this.entries.set(k, true);
    while (this.entries.size > this.maxSize) {
      const oldest = this.entries.keys().next().value as string;
      this.entries.delete(oldest);
    }
  }

  has(r: ObjectReference): boolean {
    const k = key(r);
    if (!this.entries.has(k)) return false;
    this.entries.delete(k);
    this.entries.set(k, true);
    return true;
  }

  get size(): number {
    return this.entries.size;
  }
}
