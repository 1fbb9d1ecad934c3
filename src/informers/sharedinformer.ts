/**
 * SharedIndexInformer: one reflector (one LIST+WATCH) per resource, an indexed cache, and any
 * number of handlers, as client-go's sharedIndexInformer.
 *
 * Flow: Reflector → DeltaFIFO → (pop) → indexer update → notifications to every listener.
 * A handler added after start first receives the current cache content as adds
 * (isInInitialList = true); its registration reports `hasSynced()` once those are delivered and
 * the informer itself has synced. Resync re-delivers every cached object as an update to the
 * handlers whose resync period is due.
 */
import { onAbortOf } from "../apimachinery/abort.js";
import type { Clock, Timer } from "../apimachinery/clock.js";
import { realClock } from "../apimachinery/clock.js";
import type { TypedObject } from "../apimachinery/types.js";
import type { ResourceClient } from "../client/interfaces.js";
import { DeltaFIFO, FIFOClosedError, type Delta } from "./deltafifo.js";
import type { ResourceEventHandler } from "./handlers.js";
import { Lister } from "./lister.js";
import { ProcessorListener } from "./listener.js";
import { Reflector, type ReflectorHealth } from "./reflector.js";
import {
  CacheIndexer,
  CONTROLLER_UID_INDEX,
  controllerUIDIndexFunc,
  DeletedFinalStateUnknown,
  freezeForCache,
  metaNamespaceIndexFunc,
  NAMESPACE_INDEX,
  type Indexer,
  type Indexers,
} from "./store.js";

export interface SharedInformerOptions<T extends TypedObject> {
  /** Default resync period for handlers (0 = never). */
  resyncPeriodMs?: number;
  /** Extra index functions; the namespace and controller-UID indices are always present. */
  indexers?: Indexers<T>;
  labelSelector?: string;
  fieldSelector?: string;
  clock?: Clock;
  /** Applied to each object before caching; see `dropManagedFields`. */
  transform?: (obj: T) => T;
  useWatchList?: boolean;
  onError?: (message: string, err: unknown) => void;
}

export interface HandlerRegistration {
  /** True once the handler has received the initial state and the informer has synced. */
  hasSynced(): boolean;
  /** Stops delivering to this handler. */
  remove(): Promise<void>;
}

/** A transform that drops metadata.managedFields before objects are cached (saves memory). */
export function dropManagedFields<T extends TypedObject>(obj: T): T {
  if (!obj.metadata?.managedFields) return obj;
  const { managedFields: _m, ...meta } = obj.metadata;
  return { ...obj, metadata: meta };
}

const MIN_RESYNC_MS = 1000;

export class SharedIndexInformer<T extends TypedObject = TypedObject> {
  readonly indexer: CacheIndexer<T>;
  private readonly fifo: DeltaFIFO<T>;
  private readonly reflector: Reflector<T>;
  private readonly listeners = new Set<ProcessorListener<T>>();
  private readonly clock: Clock;
  private readonly defaultResync: number;
  private started = false;
  private stopped = false;
  private resyncTimer: Timer | undefined;
  private syncingListeners = new Set<ProcessorListener<T>>();

  constructor(
    readonly client: ResourceClient<T>,
    private readonly opts: SharedInformerOptions<T> = {},
  ) {
    this.clock = opts.clock ?? realClock;
    this.defaultResync = opts.resyncPeriodMs ?? 0;
    this.indexer = new CacheIndexer<T>(undefined, {
      [NAMESPACE_INDEX]: metaNamespaceIndexFunc,
      [CONTROLLER_UID_INDEX]: controllerUIDIndexFunc,
      ...opts.indexers,
    });
    this.fifo = new DeltaFIFO<T>({ knownObjects: this.indexer, emitDeltaTypeReplaced: true });
    this.reflector = new Reflector<T>({
      client,
      store: {
        add: (o) => this.fifo.add(o),
        update: (o) => this.fifo.update(o),
        delete: (o) => this.fifo.delete(o),
        // An empty relist syncs without any delta to pop: check right away.
        replace: (list, rv) => {
          this.fifo.replace(list, rv);
          this.checkSynced();
        },
      },
      labelSelector: opts.labelSelector,
      fieldSelector: opts.fieldSelector,
      clock: this.clock,
      // Objects are frozen (and their empty objects shared) as soon as they are decoded, page by
      // page, rather than when they reach the indexer: the garbage dies young, which keeps the
      // collector's work on a large initial list down. The indexer then finds them frozen.
      transform: (o) => freezeForCache(opts.transform ? opts.transform(o) : o),
      useWatchList: opts.useWatchList,
      onError: opts.onError,
    });
  }

  /** Adds index functions (before start, as upstream requires). */
  addIndexers(indexers: Indexers<T>): void {
    if (this.started) throw new Error("informer has already started");
    this.indexer.addIndexers(indexers);
  }

  getIndexer(): Indexer<T> {
    return this.indexer;
  }

  /** A read-only view of the cache; objects are frozen — copy before changing. */
  lister(): Lister<T> {
    return new Lister<T>(this.indexer, this.client.resource);
  }

  hasSynced(): boolean {
    return this.fifo.hasSynced();
  }

  isStopped(): boolean {
    return this.stopped;
  }

  /** Watch health: phase, resourceVersion, counters, last error. */
  health(): ReflectorHealth {
    return this.reflector.health();
  }

  get lastSyncResourceVersion(): string {
    return this.reflector.lastSyncResourceVersion;
  }

  addEventHandler(handler: ResourceEventHandler<T>, resyncPeriodMs = this.defaultResync): HandlerRegistration {
    if (this.stopped) throw new Error("informer has already stopped");
    const period = resyncPeriodMs > 0 ? Math.max(resyncPeriodMs, MIN_RESYNC_MS) : 0;
    const l = new ProcessorListener<T>(handler, period, (err) => this.opts.onError?.("event handler failed", err));
    if (period > 0) l.nextResync = this.clock.now() + period;
    this.listeners.add(l);
    if (this.started) {
      // A late handler first sees the current state.
      for (const obj of this.indexer.list()) l.add({ kind: "add", obj, initial: true });
      this.whenSynced(() => l.add({ kind: "synced" }));
      l.start();
      this.scheduleResync();
    }
    return {
      hasSynced: () => l.hasSynced && this.hasSynced(),
      remove: async () => {
        this.listeners.delete(l);
        this.syncingListeners.delete(l);
        await l.stop();
      },
    };
  }

  /** Runs the informer until `signal` aborts; resolves when everything has stopped. */
  async run(signal: AbortSignal): Promise<void> {
    if (this.started) throw new Error("informer already started");
    this.started = true;
    for (const l of this.listeners) l.start();
    this.whenSynced(() => {
      for (const l of this.listeners) l.add({ kind: "synced" });
    });
    const reflectorDone = this.reflector.run(signal);
    const onAbort = () => this.fifo.close();
    signal.addEventListener("abort", onAbort, { once: true });
    this.scheduleResync();
    const process = (deltas: Delta<T>[], initial: boolean) => this.handleDeltas(deltas, initial);
    const failed = (err: unknown) => this.opts.onError?.("processing deltas failed", err);
    try {
      for (;;) {
        try {
          // Everything queued so far, in order, in one go (one await per batch of the reflector's).
          await this.fifo.popAll(process, failed);
        } catch (err) {
          if (err instanceof FIFOClosedError) break;
          failed(err);
        }
      }
    } finally {
      signal.removeEventListener("abort", onAbort);
      this.stopped = true;
      this.resyncTimer?.cancel();
      await reflectorDone;
      await Promise.all([...this.listeners].map((l) => l.stop()));
    }
  }

  /** Resolves true once synced, or false if `signal` aborts first. */
  waitForSync(signal?: AbortSignal): Promise<boolean> {
    if (this.hasSynced()) return Promise.resolve(true);
    if (signal?.aborted) return Promise.resolve(false);
    return new Promise((resolve) => {
      const stopWaiting = signal ? onAbortOf(signal, () => resolve(false)) : undefined;
      this.whenSynced(() => {
        stopWaiting?.();
        resolve(true);
      });
    });
  }

  private syncCallbacks: Array<() => void> = [];
  private syncPoll = false;

  /** Calls `fn` once the FIFO has handed out the whole initial list. */
  private whenSynced(fn: () => void): void {
    if (this.hasSynced()) {
      fn();
      return;
    }
    this.syncCallbacks.push(fn);
  }

  private checkSynced(): void {
    if (this.syncPoll || !this.hasSynced()) return;
    this.syncPoll = true;
    for (const fn of this.syncCallbacks.splice(0)) fn();
    this.syncPoll = false;
  }

  private handleDeltas(deltas: Delta<T>[], isInInitialList: boolean): void {
    for (const d of deltas) {
      const obj = d.object;
      if (d.type === "Deleted") {
        if (obj instanceof DeletedFinalStateUnknown) this.indexer.deleteKey(obj.key);
        else this.indexer.delete(obj);
        this.distribute({ kind: "delete", obj }, false);
        continue;
      }
      const o = obj as T;
      const old = this.indexer.get(o);
      if (old !== undefined) {
        let isSync = d.type === "Sync";
        // A Replaced delta for an unchanged object is a resync, not a change.
        if (d.type === "Replaced" && old.metadata?.resourceVersion === o.metadata?.resourceVersion) isSync = true;
        // The indexer stores the object itself (frozen), so `o` is what a get would return.
        this.indexer.update(o);
        this.distribute({ kind: "update", oldObj: old, newObj: o }, isSync);
      } else {
        this.indexer.add(o);
        this.distribute({ kind: "add", obj: o, initial: isInInitialList }, false);
      }
    }
    this.checkSynced();
  }

  private distribute(n: Parameters<ProcessorListener<T>["add"]>[0], sync: boolean): void {
    if (sync) {
      for (const l of this.syncingListeners) l.add(n);
      return;
    }
    for (const l of this.listeners) l.add(n);
  }

  private scheduleResync(): void {
    const periods = [...this.listeners].map((l) => l.resyncPeriodMs).filter((p) => p > 0);
    if (periods.length === 0 || this.stopped) return;
    const check = Math.min(...periods);
    this.resyncTimer?.cancel();
    this.resyncTimer = this.clock.setTimer(check, () => {
      const now = this.clock.now();
      this.syncingListeners = new Set();
      for (const l of this.listeners) {
        if (l.resyncPeriodMs > 0 && now >= l.nextResync) {
          this.syncingListeners.add(l);
          l.nextResync = now + l.resyncPeriodMs;
        }
      }
      if (this.syncingListeners.size > 0 && !this.fifo.isClosed) this.fifo.resync();
      this.scheduleResync();
    });
  }
}
