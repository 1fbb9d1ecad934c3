/**
 * Queue: client-go's work queue (util/workqueue queue.go) for async workers.
 *
 * Guarantees:
 * - Fair: items are handed out in the order they were added (FIFO), to waiting workers in the
 *   order they called `get()`.
 * - Stingy: an item added many times before it is handed out is handed out once.
 * - Exclusive: an item is never handed to two workers at once. Adding an item that is being
 *   processed marks it dirty; it is requeued when the worker calls `done(item)`, so the re-add is
 *   never lost and never processed concurrently.
 * - Shut down: after `shutDown()` or `shutDownWithDrain()` adds are ignored; items still queued are
 *   handed out until none are left, then `get()` resolves `{ shutdown: true }`.
 *
 * Items are compared through a key function (see key.ts): by default strings and numbers by value,
 * `ObjectName` and other objects with their own `toString()` by `String(item)`, and plain objects
 * by reference.
 */
import { abortReason, realClock, turnClock } from "../apimachinery/clock.js";
import type { Clock, Timer } from "../apimachinery/clock.js";
import { Fifo, StampedFifo } from "./fifo.js";
import { defaultKeyOf } from "./key.js";
import type { KeyFunc } from "./key.js";
import { defaultUnfinishedWorkUpdatePeriodMs, newQueueMetrics, noopMetricsProvider } from "./metrics.js";
import type { QueueMetrics, WorkqueueMetricsProvider } from "./metrics.js";

/** What `get()` resolves to: an item to process, or the signal to stop. */
export type GetResult<T> = { item: T; shutdown: false } | { item: undefined; shutdown: true };

export interface QueueOptions<T> {
  /** The queue's name: the `name` label of its metrics. Unnamed queues record no metrics. */
  name?: string;
  /**
   * The time source for metrics and delays; defaults to the real clock. When omitted, the metrics
   * read it through `turnClock` (at most once per event-loop turn; see clock.ts for the
   * trade-off): a given clock is read as it is, on every add, hand-out and done.
   */
  clock?: Clock;
  /** Where metrics go; defaults to the no-op provider. */
  metricsProvider?: WorkqueueMetricsProvider;
  /** Item identity; defaults to `defaultKeyOf` (see key.ts). */
  keyOf?: KeyFunc<T>;
}

/** A worker blocked in `get()`. `active` is false once it was served or its signal aborted. */
interface Getter<T> {
  resolve(r: GetResult<T>): void;
  reject(err: unknown): void;
  active: boolean;
  signal?: AbortSignal;
  onAbort?: () => void;
}

/**
 * The queue's lifecycle. `running` → `draining` (shutDownWithDrain) or `shutDown` (shutDown);
 * `draining` → `shutDown` when `shutDown()` forces it; `shutDown` → `draining` when
 * `shutDownWithDrain()` is called afterwards (it then waits again, as upstream). Every state but
 * `running` ignores adds.
 */
type Phase = "running" | "draining" | "shutDown";

const SHUTDOWN_RESULT: GetResult<never> = Object.freeze({ item: undefined, shutdown: true }) as GetResult<never>;

export class Queue<T> {
  readonly name: string;
  protected readonly clock: Clock;
  /** The metrics' time source: `clock` when given, else `turnClock`. */
  private readonly metricsClock: Clock;
  protected readonly keyOf: KeyFunc<T>;
  protected readonly metrics: QueueMetrics;
  /** `metrics.enabled`, read once: the hot path skips the no-op calls. */
  private readonly metricsOn: boolean;

  // State. Invariants (client-go's, plus the async hand-off):
  // - `queue` is the order in which items will be handed out. Every element of `queue` has its key
  //   in `dirty` and not in `processing`, and no key appears in `queue` twice. Its stamp is the
  //   clock time at which the item became dirty (0 when metrics are off).
  // - `dirty` maps the key of every item that needs processing to the item to hand out. A key may
  //   be in `dirty` and `processing` at once: it was re-added while being processed and is not in
  //   `queue`; `done` moves it to `queue`.
  // - `processing` maps the keys of the items handed out whose `done` has not been called to the
  //   clock time at which they were handed out (0 when metrics are off).
  // - `reAddedAt` (metrics on only) maps each key that is in both `dirty` and `processing` to the
  //   time it became dirty again; `done` moves that time to the item's stamp in `queue`.
  // - `getters` holds workers waiting in `get()`; it has an active entry only while `queue` is empty
  //   and the phase is `running` (an item is handed straight to the oldest getter when added).
  // These times are the metrics' bookkeeping (upstream keeps them in two maps of its own); the
  // metrics clock is read once per add, hand-out and done, and only when metrics are on.
  private readonly queue = new StampedFifo<T>();
  private readonly dirty = new Map<unknown, T>();
  private readonly processing = new Map<unknown, number>();
  private readonly reAddedAt = new Map<unknown, number>();
  private getters = new Fifo<Getter<T>>();
  /** How many entries of `getters` are inactive (aborted); they are dropped when they pile up. */
  private abortedGetters = 0;
  private phase: Phase = "running";
  /** Resolvers of `shutDownWithDrain()` calls; non-empty only in phase `draining`. */
  private drainWaiters: Array<() => void> = [];
  /** Stops the periodic unfinished-work update (no-op when metrics are off). */
  private stopUnfinishedWorkUpdates: () => void = () => {};

  constructor(options: QueueOptions<T> = {}) {
    this.name = options.name ?? "";
    this.clock = options.clock ?? realClock;
    this.metricsClock = options.clock ?? turnClock;
    this.keyOf = options.keyOf ?? (defaultKeyOf as KeyFunc<T>);
    const provider = options.metricsProvider ?? noopMetricsProvider;
    this.metrics = newQueueMetrics(provider, this.name);
    this.metricsOn = this.metrics.enabled;
    if (this.metricsOn) this.startUnfinishedWorkUpdates(provider);
  }

  /** Marks `item` as needing processing. Ignored once the queue is shutting down. */
  add(item: T): void {
    if (this.phase !== "running") return;
    const key = this.keyOf(item);
    // Already waiting (or re-added while processing): nothing to do, upstream's Touch is a no-op.
    if (this.dirty.has(key)) return;
    this.dirty.set(key, item);
    if (!this.metricsOn) {
      if (this.processing.has(key)) return; // requeued by done()
      this.enqueue(item, 0, 0);
      return;
    }
    this.metrics.add();
    const now = this.metricsClock.now();
    if (this.processing.has(key)) {
      this.reAddedAt.set(key, now); // requeued by done()
      return;
    }
    this.enqueue(item, now, now);
  }

  /** Items waiting to be handed out (not those being processed). Informational only. */
  len(): number {
    return this.queue.length;
  }

  /**
   * Resolves with the next item once one is available; the caller must call `done(item)` when it
   * has finished with it. Resolves `{ shutdown: true }` when the queue is shutting down and empty:
   * the worker should then stop. Rejects with the signal's reason when `signal` aborts first.
   */
  get(signal?: AbortSignal): Promise<GetResult<T>> {
    if (this.queue.length > 0) return Promise.resolve({ item: this.take(this.metricsOn ? this.metricsClock.now() : 0), shutdown: false });
    if (this.phase !== "running") return Promise.resolve(SHUTDOWN_RESULT);
    if (signal?.aborted) return Promise.reject(abortReason(signal));
    return new Promise<GetResult<T>>((resolve, reject) => {
      const g: Getter<T> = { resolve, reject, active: true };
      if (signal) {
        g.signal = signal;
        g.onAbort = () => {
          if (!g.active) return;
          g.active = false; // skipped (and dropped) by the next hand-off
          this.abortedGetters++;
          if (this.abortedGetters > 32 && this.abortedGetters * 2 > this.getters.length) this.compactGetters();
          reject(abortReason(signal));
        };
        signal.addEventListener("abort", g.onAbort, { once: true });
      }
      this.getters.push(g);
    });
  }

  /**
   * Marks `item` as processed. If it was added again while being processed it goes back on the
   * queue. Calling `done` for an item that is not being processed does nothing.
   */
  done(item: T): void {
    const key = this.keyOf(item);
    if (!this.metricsOn) {
      if (!this.processing.delete(key)) return;
      if (this.dirty.has(key)) this.enqueue(this.dirty.get(key) as T, 0, 0);
    } else {
      const started = this.processing.get(key);
      if (started === undefined) return;
      this.processing.delete(key);
      const now = this.metricsClock.now();
      this.metrics.done(now - started);
      if (this.dirty.has(key)) {
        const addedAt = this.reAddedAt.get(key) ?? now;
        this.reAddedAt.delete(key);
        this.enqueue(this.dirty.get(key) as T, addedAt, now);
      }
    }
    // Upstream's drain waits for the processing set alone, requeued items included.
    if (this.processing.size === 0) this.resolveDrainWaiters();
  }

  /**
   * Ignores every later add and tells waiting workers to stop. Items still queued are handed out
   * until none are left; it does not wait for items being processed. Ends a pending
   * `shutDownWithDrain()` wait.
   */
  shutDown(): void {
    this.phase = "shutDown";
    this.onShuttingDown();
    this.releaseGetters();
    this.resolveDrainWaiters();
  }

  /**
   * Like `shutDown()`, but resolves only once every item being processed has been marked done
   * (upstream waits for the processing set to empty; an item re-added during processing and
   * requeued by `done` is still handed out to workers that keep calling `get()`, but is not waited
   * for). Workers must keep calling `done`, or this never resolves; `shutDown()` ends the wait.
   */
  shutDownWithDrain(): Promise<void> {
    this.phase = "draining";
    this.onShuttingDown();
    this.releaseGetters();
    if (this.processing.size === 0) {
      this.resolveDrainWaiters();
      return Promise.resolve();
    }
    return new Promise<void>((resolve) => this.drainWaiters.push(resolve));
  }

  /** true once `shutDown()` or `shutDownWithDrain()` was called. */
  shuttingDown(): boolean {
    return this.phase !== "running";
  }

  /** Hook for subclasses: runs on every shut-down call, after the phase changed. */
  protected onShuttingDown(): void {
    this.stopUnfinishedWorkUpdates();
    this.stopUnfinishedWorkUpdates = () => {};
  }

  /**
   * Puts an item (already in `dirty`, not in `processing`) on the queue, or straight to a getter;
   * `addedAt` is when it became dirty, `now` the current time (both 0 when metrics are off).
   */
  private enqueue(item: T, addedAt: number, now: number): void {
    this.queue.push(item, addedAt);
    while (this.getters.length > 0) {
      const g = this.getters.shift()!;
      if (!g.active) {
        this.abortedGetters--;
        continue;
      }
      g.active = false;
      if (g.signal && g.onAbort) g.signal.removeEventListener("abort", g.onAbort);
      g.resolve({ item: this.take(now), shutdown: false });
      return;
    }
  }

  /** Hands out the head of the queue at `now` (0 when metrics are off): it moves from dirty to processing. */
  private take(now: number): T {
    const item = this.queue.shift() as T;
    const key = this.keyOf(item);
    if (this.metricsOn) this.metrics.get(now - this.queue.shiftedStamp);
    this.processing.set(key, now);
    this.dirty.delete(key);
    return item;
  }

  private compactGetters(): void {
    const live = new Fifo<Getter<T>>();
    for (const g of this.getters.toArray()) if (g.active) live.push(g);
    this.getters = live;
    this.abortedGetters = 0;
  }

  /** Tells every waiting worker to stop (the queue is empty whenever workers wait). */
  private releaseGetters(): void {
    this.abortedGetters = 0;
    while (this.getters.length > 0) {
      const g = this.getters.shift()!;
      if (!g.active) continue;
      g.active = false;
      if (g.signal && g.onAbort) g.signal.removeEventListener("abort", g.onAbort);
      g.resolve(SHUTDOWN_RESULT);
    }
  }

  private resolveDrainWaiters(): void {
    if (this.drainWaiters.length === 0) return;
    const waiters = this.drainWaiters;
    this.drainWaiters = [];
    for (const w of waiters) w();
  }

  private startUnfinishedWorkUpdates(provider: WorkqueueMetricsProvider): void {
    const update = () => this.metrics.updateUnfinishedWork(this.metricsClock.now(), this.processing.values());
    if (provider.onCollect) {
      this.stopUnfinishedWorkUpdates = provider.onCollect(update);
      return;
    }
    let timer: Timer | undefined;
    const tick = () => {
      update();
      timer = this.clock.setTimer(defaultUnfinishedWorkUpdatePeriodMs, tick);
    };
    timer = this.clock.setTimer(defaultUnfinishedWorkUpdatePeriodMs, tick);
    this.stopUnfinishedWorkUpdates = () => {
      timer?.cancel();
      timer = undefined;
    };
  }
}
