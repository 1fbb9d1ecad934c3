/**
 * Store and Indexer: the informer cache, as client-go's cache.Store / cache.Indexer over a
 * thread-safe store with indices.
 *
 * Read-only by construction: every object stored is deep-frozen on the way in, so lists and gets
 * hand out the cached objects themselves without copying, and any attempt to mutate one throws a
 * TypeError (in strict mode, which ES modules are). Copy first — `deepCopy(obj)` — then change
 * the copy. This is the "frozen objects" choice of issue 4 (rather than copy-on-read).
 *
 * Freezing also lets the cache share what no reader can tell apart: every empty plain object
 * (`{}`) inside a stored object is replaced by one shared frozen empty object. managedFields'
 * fieldsV1 trees are mostly `{}` leaves (about 60 per typical pod, 56 bytes of heap each), so
 * this halves the heap of a cached pod; only object identity of empty objects changes.
 *
 * Invariants: `items` maps key → object; `indices[name][value]` is exactly the set of keys whose
 * object's index function for `name` yields `value`; both change together in one place
 * (`updateIndices`).
 */
import { metaNamespaceKey } from "../apimachinery/objectname.js";
import type { TypedObject } from "../apimachinery/types.js";
import { getControllerOf } from "../apimachinery/ownerrefs.js";

export type StoreKeyFunc = (obj: TypedObject) => string;

/** An index function returns the values under which an object is indexed. */
export type IndexFunc<T extends TypedObject = TypedObject> = (obj: T) => string[];

export type Indexers<T extends TypedObject = TypedObject> = Record<string, IndexFunc<T>>;

export const NAMESPACE_INDEX = "namespace";
export const CONTROLLER_UID_INDEX = "controllerUID";

/** Indexes by metadata.namespace (cache.MetaNamespaceIndexFunc). */
export function metaNamespaceIndexFunc(obj: TypedObject): string[] {
  return [obj.metadata?.namespace ?? ""];
}

/** Indexes by the UID of the controller owner reference, if any. */
export function controllerUIDIndexFunc(obj: TypedObject): string[] {
  const ref = getControllerOf(obj);
  return ref?.uid ? [ref.uid] : [];
}

/** A tombstone: an object deleted while the watch was down; its final state may be stale. */
export class DeletedFinalStateUnknown<T extends TypedObject = TypedObject> {
  constructor(
    readonly key: string,
    readonly obj: T | undefined,
  ) {}
}

/** The key of an object or tombstone (DeletionHandlingMetaNamespaceKeyFunc). */
export function deletionHandlingKey(obj: TypedObject | DeletedFinalStateUnknown): string {
  if (obj instanceof DeletedFinalStateUnknown) return obj.key;
  return metaNamespaceKey(obj);
}

export interface Store<T extends TypedObject = TypedObject> {
  add(obj: T): void;
  update(obj: T): void;
  delete(obj: T): void;
  list(): readonly T[];
  listKeys(): string[];
  get(obj: T): T | undefined;
  getByKey(key: string): T | undefined;
  /** Replaces the whole content (a relist). */
  replace(list: T[], resourceVersion: string): void;
}

export interface Indexer<T extends TypedObject = TypedObject> extends Store<T> {
  /** Objects sharing an indexed value with `obj` under `indexName`. */
  index(indexName: string, obj: T): readonly T[];
  byIndex(indexName: string, indexedValue: string): readonly T[];
  indexKeys(indexName: string, indexedValue: string): string[];
  listIndexFuncValues(indexName: string): string[];
  getIndexers(): Indexers<T>;
  /** Adds index functions; allowed only before any object is stored (as upstream once required). */
  addIndexers(newIndexers: Indexers<T>): void;
}

export class IndexerError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "IndexerError";
  }
}

export class CacheIndexer<T extends TypedObject = TypedObject> implements Indexer<T> {
  private items = new Map<string, T>();
  private indices = new Map<string, Map<string, Set<string>>>();
  private indexers: Indexers<T>;
  /** Each index function beside its index, for the update path (kept in step with `indices`). */
  private indexList: Array<{ fn: IndexFunc<T>; idx: Map<string, Set<string>> }> = [];

  constructor(
    private readonly keyFunc: StoreKeyFunc = metaNamespaceKey,
    indexers: Indexers<T> = {},
  ) {
    this.indexers = { ...indexers };
    for (const name of Object.keys(this.indexers)) this.indices.set(name, new Map());
    this.relist();
  }

  private relist(): void {
    this.indexList = Object.keys(this.indexers).map((name) => ({ fn: this.indexers[name], idx: this.indices.get(name)! }));
  }

  add(obj: T): void {
    this.put(this.keyFunc(obj), obj);
  }

  update(obj: T): void {
    this.put(this.keyFunc(obj), obj);
  }

  delete(obj: T): void {
    this.deleteKey(this.keyFunc(obj));
  }

  deleteKey(key: string): void {
    const old = this.items.get(key);
    if (old === undefined) return;
    this.updateIndices(old, undefined, key);
    this.items.delete(key);
  }

  list(): readonly T[] {
    return [...this.items.values()];
  }

  listKeys(): string[] {
    return [...this.items.keys()];
  }

  get(obj: T): T | undefined {
    return this.items.get(this.keyFunc(obj));
  }

  getByKey(key: string): T | undefined {
    return this.items.get(key);
  }

  replace(list: T[], _resourceVersion: string): void {
    this.items.clear();
    for (const name of this.indices.keys()) this.indices.set(name, new Map());
    this.relist();
    for (const obj of list) this.put(this.keyFunc(obj), obj);
  }

  index(indexName: string, obj: T): readonly T[] {
    const fn = this.indexFunc(indexName);
    const keys = new Set<string>();
    const idx = this.indices.get(indexName)!;
    for (const v of fn(obj)) for (const k of idx.get(v) ?? []) keys.add(k);
    return [...keys].map((k) => this.items.get(k)!);
  }

  byIndex(indexName: string, indexedValue: string): readonly T[] {
    this.indexFunc(indexName);
    const set = this.indices.get(indexName)!.get(indexedValue);
    if (!set) return [];
    return [...set].map((k) => this.items.get(k)!);
  }

  indexKeys(indexName: string, indexedValue: string): string[] {
    this.indexFunc(indexName);
    return [...(this.indices.get(indexName)!.get(indexedValue) ?? [])];
  }

  listIndexFuncValues(indexName: string): string[] {
    return [...(this.indices.get(indexName)?.keys() ?? [])];
  }

  getIndexers(): Indexers<T> {
    return { ...this.indexers };
  }

  addIndexers(newIndexers: Indexers<T>): void {
    for (const name of Object.keys(newIndexers)) {
      if (name in this.indexers) throw new IndexerError(`indexer conflict: ${name}`);
    }
    for (const [name, fn] of Object.entries(newIndexers)) {
      this.indexers[name] = fn;
      const idx = new Map<string, Set<string>>();
      this.indices.set(name, idx);
      for (const [key, obj] of this.items) for (const v of fn(obj)) addTo(idx, v, key);
    }
    this.relist();
  }

  private indexFunc(indexName: string): IndexFunc<T> {
    const fn = this.indexers[indexName];
    if (!fn) throw new IndexerError(`Index with name ${indexName} does not exist`);
    return fn;
  }

  private put(key: string, obj: T): void {
    freezeForCache(obj);
    const old = this.items.get(key);
    this.items.set(key, obj);
    this.updateIndices(old, obj, key);
  }

  private updateIndices(old: T | undefined, next: T | undefined, key: string): void {
    for (const { fn, idx } of this.indexList) {
      const oldValues = old ? fn(old) : [];
      const newValues = next ? fn(next) : [];
      if (oldValues.length === 1 && newValues.length === 1 && oldValues[0] === newValues[0]) continue;
      for (const v of oldValues) {
        const set = idx.get(v);
        if (!set) continue;
        set.delete(key);
        if (set.size === 0) idx.delete(v);
      }
      for (const v of newValues) addTo(idx, v, key);
    }
  }
}

/** The empty object shared by every cached object (see the file comment). */
const SHARED_EMPTY: Readonly<Record<string, never>> = Object.freeze({});

/** The walk's stack, reused across calls (freezing never re-enters itself). */
const pending: object[] = [];

/**
 * Deep-freezes `obj` in place, replacing each empty plain object inside it by SHARED_EMPTY. An
 * object already frozen is taken as deep-frozen (as `deepFreeze` does) and left alone.
 *
 * One iterative walk (no call per node): each object's children are looked at once, from the
 * parent — an empty plain object is swapped for SHARED_EMPTY there (so it is never frozen or
 * pushed), a frozen one is skipped, any other is pushed and frozen when its turn comes. A parent
 * is frozen before its children (they are still on the stack): nothing else runs meanwhile.
 */
export function freezeForCache<V>(obj: V): V {
  if (typeof obj !== "object" || obj === null || Object.isFrozen(obj)) return obj;
  const stack = pending;
  const base = stack.length;
  stack.push(obj);
  try {
    walk(stack, base);
  } finally {
    stack.length = base;
  }
  return obj;
}

function walk(stack: object[], base: number): void {
  while (stack.length > base) {
    const o = stack.pop()!;
    if (Array.isArray(o)) {
      for (let i = 0; i < o.length; i++) {
        const v: unknown = o[i];
        if (typeof v !== "object" || v === null || Object.isFrozen(v)) continue;
        if (!Array.isArray(v) && isEmptyPlain(v)) o[i] = SHARED_EMPTY;
        else stack.push(v);
      }
    } else {
      const rec = o as Record<string, unknown>;
      for (const k in rec) {
        const v = rec[k];
        if (typeof v !== "object" || v === null || Object.isFrozen(v)) continue;
        // A "__proto__" data key cannot be reassigned with `=` (that would set the prototype):
        // its value is frozen where it is.
        if (k !== "__proto__" && !Array.isArray(v) && isEmptyPlain(v)) rec[k] = SHARED_EMPTY;
        else stack.push(v);
      }
    }
    Object.freeze(o);
  }
}

function isEmptyPlain(v: object): boolean {
  for (const _ in v) return false;
  return Object.getPrototypeOf(v) === Object.prototype;
}

function addTo(idx: Map<string, Set<string>>, value: string, key: string): void {
  let set = idx.get(value);
  if (!set) {
    set = new Set();
    idx.set(value, set);
  }
  set.add(key);
}
