/**
 * Results of recent unpaged LISTs of one ResourceStore, reused while nothing under the
 * resource's storage prefix has been written: the same items (the same frozen objects, in a
 * frozen array) and so the same cached response bytes (serialize.ts keeps the JSON of a frozen
 * items array), instead of walking every key, matching every object and copying every object's
 * bytes again for each request.
 *
 * What may be reused: a LIST at the current revision (no `continue`, no Exact resourceVersion)
 * without a `limit` returns the live objects under the prefix that match the selectors. Those
 * change only when a key under the resource's prefix is written, and every committed write is
 * seen synchronously through Storage.subscribe (storage without it: nothing is cached). The
 * response's own metadata (resourceVersion, the current revision) is not cached; the store
 * builds it afresh for each request. Paged LISTs are not cached (a page continues a revision,
 * and memory storage's remaining counts follow the pages it served).
 *
 * Invariants:
 * - `generation(prefix)` counts the writes under a resource prefix seen since the tracker
 *   started; an entry is used only if it was built at the prefix's current generation (read
 *   before the storage list was asked, so a write racing the read makes the entry stale, never
 *   wrong), and a write drops the prefix's entries at once (no stale objects kept alive).
 * - At most `maxEntries` entries per store, holding at most `maxItems` items together; the
 *   oldest go first. Lists larger than `maxItems` are not cached.
 */
import type { KubeObject } from "../../apimachinery/types.js";
import type { Storage, StorageEvent } from "../storage/interface.js";

/** What a cached LIST holds (the response metadata but resourceVersion). */
export interface CachedList {
  readonly items: readonly KubeObject[];
}

const maxEntries = 32;
const maxItems = 20_000;

/** Write counts per resource prefix (`/registry/<group>/<resource>/`) of one storage. */
class WriteTracker {
  private readonly generations = new Map<string, number>();
  /** The caches to clear on a write under each prefix (weakly: a store that is gone is forgotten). */
  private readonly caches = new Map<string, Set<WeakRef<ListCache>>>();

  constructor(storage: Storage) {
    storage.subscribe!((ev: StorageEvent) => this.written(ev.key));
  }

  generation(prefix: string): number {
    return this.generations.get(prefix) ?? 0;
  }

  /** Clears `cache` on every write under `prefix`. */
  register(prefix: string, cache: ListCache): void {
    let s = this.caches.get(prefix);
    if (!s) this.caches.set(prefix, (s = new Set()));
    s.add(new WeakRef(cache));
  }

  private written(key: string): void {
    const prefix = resourcePrefixOf(key);
    this.generations.set(prefix, (this.generations.get(prefix) ?? 0) + 1);
    const caches = this.caches.get(prefix);
    if (!caches) return;
    for (const ref of caches) {
      const c = ref.deref();
      if (c) c.clear();
      else caches.delete(ref);
    }
  }
}

/** `/registry/<group>/<resource>/` of a key (the whole key when it has no such shape). */
export function resourcePrefixOf(key: string): string {
  const a = key.indexOf("/", 10);
  const b = a === -1 ? -1 : key.indexOf("/", a + 1);
  return b === -1 ? key : key.slice(0, b + 1);
}

const trackers = new WeakMap<Storage, WriteTracker>();

function trackerOf(storage: Storage): WriteTracker | undefined {
  if (typeof storage.subscribe !== "function") return undefined;
  let t = trackers.get(storage);
  if (!t) trackers.set(storage, (t = new WriteTracker(storage)));
  return t;
}

interface Entry {
  readonly generation: number;
  readonly list: CachedList;
}

export class ListCache {
  private readonly entries = new Map<string, Entry>();
  private items = 0;
  private readonly tracker: WriteTracker | undefined;

  /** `prefix`: the store's resource prefix (every collection prefix it lists starts with it). */
  constructor(
    storage: Storage,
    private readonly prefix: string,
  ) {
    this.tracker = trackerOf(storage);
    this.tracker?.register(prefix, this);
  }

  /** The generation to build an entry at: read it before asking storage for the list. */
  generation(): number | undefined {
    return this.tracker?.generation(this.prefix);
  }

  get(key: string): CachedList | undefined {
    const e = this.entries.get(key);
    if (e === undefined) return undefined;
    if (e.generation !== this.tracker!.generation(this.prefix)) {
      this.drop(key, e);
      return undefined;
    }
    return e.list;
  }

  /** Keeps `items` (frozen here) for `key` if it was read at the current `generation`; returns them frozen. */
  set(key: string, generation: number | undefined, items: KubeObject[]): readonly KubeObject[] {
    const frozen = Object.freeze(items);
    if (generation === undefined || generation !== this.tracker?.generation(this.prefix) || items.length > maxItems) return frozen;
    const old = this.entries.get(key);
    if (old) this.drop(key, old);
    while (this.entries.size >= maxEntries || (this.entries.size > 0 && this.items + items.length > maxItems)) {
      const [k, e] = this.entries.entries().next().value as [string, Entry];
      this.drop(k, e);
    }
    this.entries.set(key, { generation, list: { items: frozen } });
    this.items += items.length;
    return frozen;
  }

  private drop(key: string, e: Entry): void {
    this.entries.delete(key);
    this.items -= e.list.items.length;
  }

  /** Drops every entry (a write under the prefix). */
  clear(): void {
    if (this.entries.size === 0) return;
    this.entries.clear();
    this.items = 0;
  }
}
