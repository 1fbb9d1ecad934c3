/**
 * StorageCache: the stored objects under a few key prefixes, held in memory and kept in step
 * with storage by one watch — the API server's own informer-fed listers (kube-apiserver's
 * admission plugins read webhook configurations, namespaces and services through shared
 * informers; this is their in-process counterpart).
 *
 * Invariants: objects are the frozen storage objects (never mutated, never copied); after
 * `synced()` resolves, every write completed before the call is reflected (read-your-writes:
 * a webhook configuration created just before a request applies to it); `version(prefix)`
 * changes whenever an object under that registered prefix is added, changed or removed, so
 * derived state (compiled webhooks) is rebuilt only on change.
 *
 * How it follows storage: a storage with `subscribe` (both backends) tells the cache about every
 * committed write synchronously, inside the write, before the write's promise resolves — so once
 * started the cache is always current (`current()` is true, `synced()` never waits) and a request
 * sees a write that completed an instant before it. A storage without `subscribe` is followed by
 * one watch over the whole keyspace (so that the cache knows how far it has read even when no
 * watched object changes); then `current()` is false while the watch lags, and a watch that
 * falls behind or is compacted relists.
 *
 * Phases: created → started (listed; subscribed or watching) → stopped.
 */
import type { KubeObject } from "../../apimachinery/types.js";
import type { Storage, StorageEvent, StorageWatch } from "./interface.js";

interface Slot {
  readonly prefix: string;
  objects: Map<string, KubeObject>;
  version: number;
}

export class StorageCache {
  private readonly slots: Slot[];
  private applied = 0;
  private watch: StorageWatch | undefined;
  private loop: Promise<void> | undefined;
  private waiters: { rev: number; resolve: () => void }[] = [];
  private started: Promise<void> | undefined;
  private stopped = false;
  /** Set once listed and subscribed: every committed write is applied as it commits. */
  private live = false;
  private unsubscribe: (() => void) | undefined;

  constructor(
    private readonly storage: Storage,
    prefixes: readonly string[],
  ) {
    this.slots = prefixes.map((prefix) => ({ prefix, objects: new Map(), version: 0 }));
  }

  /** Lists every prefix and starts watching (idempotent). */
  start(): Promise<void> {
    this.started ??= this.storage.subscribe
      ? this.subscribeAndList()
      : (async () => {
          await this.relist();
          this.loop = this.consume();
        })();
    return this.started;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.live = false;
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    this.watch?.close();
    await this.loop;
    this.release(true);
  }

  /**
   * Subscribes first, then lists at the revision read right after subscribing: a write committed
   * while the lists are read is held back and applied after them (those at or below the listed
   * revision are in the lists already), so no write falls between the two.
   */
  private async subscribeAndList(): Promise<void> {
    let held: StorageEvent[] | undefined = [];
    this.unsubscribe = this.storage.subscribe!((ev) => {
      if (held) held.push(ev);
      else this.apply(ev);
    });
    const rev = this.storage.currentRevision();
    await this.listAt(rev);
    const later = held;
    held = undefined;
    for (const ev of later) if (ev.rev > rev) this.apply(ev);
    this.live = !this.stopped;
    this.release();
  }

  /** Replaces every slot's objects with the lists at `rev`; the cache has then applied `rev`. */
  private async listAt(rev: number): Promise<void> {
    for (const slot of this.slots) {
      const m = new Map<string, KubeObject>();
      for (const item of (await this.storage.list(slot.prefix, { revision: rev })).items) m.set(item.key, item.object);
      slot.objects = m;
      slot.version++;
    }
    this.applied = rev;
  }

  private apply(ev: StorageEvent): void {
    if (this.stopped) return;
    const slot = this.slotFor(ev.key);
    if (slot) {
      if (ev.type === "DELETED") slot.objects.delete(ev.key);
      else slot.objects.set(ev.key, ev.object);
      slot.version++;
    }
    this.applied = ev.rev;
    this.release();
  }

  private async relist(): Promise<void> {
    const rev = this.storage.currentRevision();
    await this.listAt(rev);
    this.watch = this.storage.watch("/registry/", { fromRevision: rev, maxLag: 1_000_000 });
    this.release();
  }

  private async consume(): Promise<void> {
    while (!this.stopped) {
      const w = this.watch!;
      for await (const ev of w) this.apply(ev);
      if (this.stopped || w.endReason === "store-stopped") break;
      // Fell behind or compacted: read everything again.
      await this.relist();
    }
  }

  private release(all = false): void {
    if (this.waiters.length === 0) return;
    const keep: typeof this.waiters = [];
    for (const w of this.waiters) {
      if (all || w.rev <= this.applied) w.resolve();
      else keep.push(w);
    }
    this.waiters = keep;
  }

  /** Whether the cache reflects every completed write (then `synced()` need not be awaited). */
  current(): boolean {
    return this.stopped || this.live || (this.loop !== undefined && this.applied >= this.storage.currentRevision());
  }

  /** Resolves once started and reflecting every write completed before this call. */
  async synced(): Promise<void> {
    await this.start();
    const target = this.storage.currentRevision();
    if (this.applied >= target || this.stopped) return;
    await new Promise<void>((resolve) => this.waiters.push({ rev: target, resolve }));
  }

  private slotFor(key: string): Slot | undefined {
    return this.slots.find((s) => key.startsWith(s.prefix));
  }

  get(key: string): KubeObject | undefined {
    return this.slotFor(key)?.objects.get(key);
  }

  /** Whether any object is under `prefix` (which lies inside a registered prefix). */
  has(prefix: string): boolean {
    const slot = this.slotFor(prefix);
    if (!slot) return false;
    if (slot.prefix === prefix) return slot.objects.size > 0;
    for (const k of slot.objects.keys()) if (k.startsWith(prefix)) return true;
    return false;
  }

  /** The objects under `prefix` (which lies inside a registered prefix), in key order. */
  list(prefix: string): KubeObject[] {
    const slot = this.slotFor(prefix);
    if (!slot) return [];
    const keys = [...slot.objects.keys()].filter((k) => k.startsWith(prefix)).sort();
    return keys.map((k) => slot.objects.get(k)!);
  }

  /** Changes whenever anything under the registered `prefix` changes. */
  version(prefix: string): number {
    return this.slotFor(prefix)?.version ?? 0;
  }
}
