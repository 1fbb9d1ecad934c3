/**
 * DeltaFIFO: a queue of per-object change lists, as client-go's cache.DeltaFIFO. The reflector
 * writes Added/Updated/Deleted/Replaced/Sync deltas; the informer pops one object's deltas at a
 * time and applies them to its indexer and handlers, in order.
 *
 * Invariants: `queue` holds each key with pending deltas exactly once, in first-arrival order;
 * `items` maps exactly those keys to a non-empty delta list; two consecutive Deleted deltas of one
 * object collapse into one (the tombstone-free one wins). `initialPopulationCount` counts the
 * items of the first Replace not yet popped; `hasSynced()` is true once that reaches zero.
 */
import type { TypedObject } from "../apimachinery/types.js";
import { DeletedFinalStateUnknown, deletionHandlingKey, type StoreKeyFunc } from "./store.js";

export type DeltaType = "Added" | "Updated" | "Deleted" | "Replaced" | "Sync";

export interface Delta<T extends TypedObject = TypedObject> {
  type: DeltaType;
  object: T | DeletedFinalStateUnknown<T>;
}

/** What the FIFO consults to find deletions on Replace and objects to Resync (the informer's indexer). */
export interface KnownObjects<T extends TypedObject = TypedObject> {
  listKeys(): string[];
  getByKey(key: string): T | undefined;
}

export class FIFOClosedError extends Error {
  constructor() {
    super("DeltaFIFO: manipulating with closed queue");
    this.name = "FIFOClosedError";
  }
}

export class DeltaFIFO<T extends TypedObject = TypedObject> {
  private items = new Map<string, Delta<T>[]>();
  private queue: string[] = [];
  private head = 0;
  private populated = false;
  private initialPopulationCount = 0;
  private closed = false;
  private waiters: Array<() => void> = [];
  private readonly keyOf: (o: T | DeletedFinalStateUnknown<T>) => string;

  constructor(
    private readonly opts: { keyFunc?: StoreKeyFunc; knownObjects?: KnownObjects<T>; emitDeltaTypeReplaced?: boolean } = {},
  ) {
    const kf = opts.keyFunc;
    this.keyOf = (o) => (o instanceof DeletedFinalStateUnknown ? o.key : kf ? kf(o) : deletionHandlingKey(o));
  }

  add(obj: T): void {
    this.populated = true;
    this.queueAction("Added", obj);
  }

  update(obj: T): void {
    this.populated = true;
    this.queueAction("Updated", obj);
  }

  /** Queues a deletion, unless the object is neither pending nor known (nothing to delete). */
  delete(obj: T | DeletedFinalStateUnknown<T>): void {
    const id = this.keyOf(obj);
    this.populated = true;
    const known = this.opts.knownObjects;
    if (!known) {
      if (!this.items.has(id)) return;
    } else if (known.getByKey(id) === undefined && !this.items.has(id)) {
      return;
    }
    this.queueAction("Deleted", obj);
  }

  /**
   * Replaces the content after a relist: every listed object gets a Replaced (or Sync) delta, and
   * every known object missing from the list gets a Deleted delta carrying a tombstone.
   */
  replace(list: T[], _resourceVersion: string): void {
    const type: DeltaType = this.opts.emitDeltaTypeReplaced ? "Replaced" : "Sync";
    const keys = new Set<string>();
    for (const item of list) {
      const k = this.keyOf(item);
      keys.add(k);
      this.queueAction(type, item);
    }
    let queuedDeletions = 0;
    const known = this.opts.knownObjects;
    if (!known) {
      for (const [k, deltas] of this.items) {
        if (keys.has(k)) continue;
        const last = deltas[deltas.length - 1];
        if (last.type === "Deleted") continue;
        const obj = last.object instanceof DeletedFinalStateUnknown ? last.object.obj : last.object;
        queuedDeletions++;
        this.queueAction("Deleted", new DeletedFinalStateUnknown(k, obj));
      }
    } else {
      for (const k of known.listKeys()) {
        if (keys.has(k)) continue;
        const pending = this.items.get(k);
        if (pending && pending[pending.length - 1].type === "Deleted") continue;
        queuedDeletions++;
        this.queueAction("Deleted", new DeletedFinalStateUnknown(k, known.getByKey(k)));
      }
    }
    if (!this.populated) {
      this.populated = true;
      this.initialPopulationCount = keys.size + queuedDeletions;
    }
  }

  /** Queues a Sync delta for every known object without pending deltas. */
  resync(): void {
    const known = this.opts.knownObjects;
    if (!known) return;
    for (const k of known.listKeys()) {
      if (this.items.has(k)) continue;
      const obj = known.getByKey(k);
      if (obj !== undefined) this.queueAction("Sync", obj);
    }
  }

  /** True once the first Replace (or any add) happened and its items have all been popped. */
  hasSynced(): boolean {
    return this.populated && this.initialPopulationCount === 0;
  }

  /** Keys with pending deltas. */
  listKeys(): string[] {
    return this.queue.slice(this.head);
  }

  get length(): number {
    return this.queue.length - this.head;
  }

  /** The pending deltas of a key (a copy), if any. */
  getDeltas(key: string): Delta<T>[] | undefined {
    const d = this.items.get(key);
    return d ? d.slice() : undefined;
  }

  close(): void {
    this.closed = true;
    for (const w of this.waiters.splice(0)) w();
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /**
   * Waits for the next key, removes its deltas and hands them to `process` (awaited) along with
   * whether they belong to the initial list. Rejects with FIFOClosedError once closed and empty.
   */
  async pop(process: (deltas: Delta<T>[], isInInitialList: boolean) => void | Promise<void>): Promise<void> {
    while (this.length === 0) {
      if (this.closed) throw new FIFOClosedError();
      await new Promise<void>((r) => this.waiters.push(r));
    }
    const id = this.queue[this.head++];
    if (this.head > 1024 && this.head * 2 > this.queue.length) {
      this.queue = this.queue.slice(this.head);
      this.head = 0;
    }
    const deltas = this.items.get(id)!;
    this.items.delete(id);
    const initial = this.initialPopulationCount > 0;
    if (initial) this.initialPopulationCount--;
    await process(deltas, initial);
  }

  /**
   * Waits for pending keys, then hands every key pending at that point — and any queued while they
   * are processed — to `process`, synchronously and in FIFO order (the same order as repeated
   * `pop` calls, one await per batch instead of one per key). A `process` that throws is
   * reported to `onError` and the next key is still processed. Resolves with the number of keys
   * processed; rejects with FIFOClosedError once closed and empty.
   */
  async popAll(process: (deltas: Delta<T>[], isInInitialList: boolean) => void, onError?: (err: unknown) => void): Promise<number> {
    while (this.length === 0) {
      if (this.closed) throw new FIFOClosedError();
      await new Promise<void>((r) => this.waiters.push(r));
    }
    let n = 0;
    while (this.head < this.queue.length) {
      const id = this.queue[this.head++];
      const deltas = this.items.get(id)!;
      this.items.delete(id);
      const initial = this.initialPopulationCount > 0;
      if (initial) this.initialPopulationCount--;
      n++;
      try {
        process(deltas, initial);
      } catch (err) {
        if (!onError) throw err;
        onError(err);
      }
    }
    this.queue = [];
    this.head = 0;
    return n;
  }

  private queueAction(type: DeltaType, obj: T | DeletedFinalStateUnknown<T>): void {
    if (this.closed) throw new FIFOClosedError();
    const id = this.keyOf(obj);
    const existing = this.items.get(id);
    if (existing === undefined) {
      this.items.set(id, [{ type, object: obj }]);
      this.queue.push(id);
      if (this.waiters.length > 0) this.waiters.shift()!();
      return;
    }
    existing.push({ type, object: obj });
    dedupDeltas(existing);
  }
}

/** Collapses two trailing Deleted deltas into one, in place, keeping the one that is not a tombstone. */
function dedupDeltas<T extends TypedObject>(deltas: Delta<T>[]): void {
  const n = deltas.length;
  if (n < 2) return;
  const a = deltas[n - 1];
  const b = deltas[n - 2];
  if (a.type !== "Deleted" || b.type !== "Deleted") return;
  deltas[n - 2] = b.object instanceof DeletedFinalStateUnknown ? a : b;
  deltas.length = n - 1;
}
