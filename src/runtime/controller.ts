/**
 * Controller: a work queue of object names and N async workers calling a reconcile function —
 * sample-controller's runWorker/processNextWorkItem, with controller-runtime's result handling
 * and metrics.
 *
 * Lifecycle (one `run()` per controller): Created → WaitingForCaches → Running → Stopping →
 * Stopped. `run()` waits for the caches (rejecting with CacheSyncTimeoutError after
 * `cacheSyncTimeoutMs`), starts the workers, and when the signal aborts shuts the queue down,
 * lets reconciles in flight finish (their signal is aborted), drops what is still queued, and
 * resolves.
 *
 * Per key (processNextWorkItem):
 * - the queue hands a key to one worker at a time (a key re-added while being reconciled waits
 *   until `done`), so no two workers ever reconcile the same key at once;
 * - success → `forget` (the rate limiter's failure count resets) and result "success"; with
 *   `requeueAfterMs` → forget, then `addAfter` (result "requeue_after"); with `requeue` →
 *   `addRateLimited`, not forgotten, so backoff grows (result "requeue"), as controller-runtime;
 * - a thrown error (any error, StatusError Conflict included) → logged with controller, object
 *   and reconcileID, counted (errors_total and result "error"), and requeued with
 *   `addRateLimited` — unless the key was already requeued `maxRetries` times, in which case it
 *   is forgotten and dropped with a log line. An error never escapes the worker. An AbortError
 *   thrown after the controller's signal aborted is shutdown, not failure: logged at debug only.
 */
import { randomUUID } from "node:crypto";
import type { Registry } from "prom-client";
import { abortReason, realClock } from "../apimachinery/clock.js";
import type { Clock } from "../apimachinery/clock.js";
import { ObjectName } from "../apimachinery/objectname.js";
import type { TypedObject } from "../apimachinery/types.js";
import { DeletedFinalStateUnknown } from "../informers/store.js";
import { PrometheusMetricsProvider } from "../workqueue/metrics.js";
import { defaultControllerRateLimiter } from "../workqueue/ratelimiters.js";
import type { RateLimiter } from "../workqueue/ratelimiters.js";
import { RateLimitingQueue } from "../workqueue/ratelimiting.js";
import { defaultLogger } from "./logging.js";
import type { Logger } from "./logging.js";
import { controllerCollectors, isReconcilePanic, isTerminalReconcileError, reconcileResultLabels } from "./metrics.js";
import type { ReconcileResultLabel } from "./metrics.js";

export interface ReconcileResult {
  /** Reconcile again after this many milliseconds (takes precedence over `requeue`). */
  requeueAfterMs?: number;
  /** Reconcile again after the rate limiter's backoff. */
  requeue?: boolean;
}

export type Reconciler = (key: ObjectName, signal: AbortSignal) => Promise<ReconcileResult | void>;

export interface ControllerOptions {
  /** Used in logs, metrics labels and as the queue's name. */
  name: string;
  reconcile: Reconciler;
  /** Informers (or anything with hasSynced()) that must sync before workers start. */
  caches?: Array<{ hasSynced(): boolean }>;
  /** Default: defaultControllerRateLimiter() on the controller's clock. */
  rateLimiter?: RateLimiter<ObjectName>;
  /** Drop a key after this many consecutive failures (Deployment controller: 15). Default: never. */
  maxRetries?: number;
  /** Default 120_000; run() rejects with CacheSyncTimeoutError after it. */
  cacheSyncTimeoutMs?: number;
  clock?: Clock;
  logger?: Logger;
  /** Where metrics go (default: prom-client's global registry). */
  registry?: Registry;
}

export const DEFAULT_CACHE_SYNC_TIMEOUT_MS = 120_000;
/** How often caches without waitForSync() are polled (client-go's WaitForCacheSync period). */
export const CACHE_SYNC_POLL_MS = 100;

export class CacheSyncTimeoutError extends Error {
  constructor(
    readonly controller: string,
    readonly timeoutMs: number,
    readonly unsynced: number,
    readonly total: number,
  ) {
    super(`controller ${controller}: timed out after ${timeoutMs}ms waiting for caches to sync (${unsynced} of ${total} not synced)`);
    this.name = "CacheSyncTimeoutError";
  }
}

export class ControllerAlreadyStartedError extends Error {
  constructor(controller: string) {
    super(`controller ${controller} was started more than once`);
    this.name = "ControllerAlreadyStartedError";
  }
}

export type ControllerPhase = "Created" | "WaitingForCaches" | "Running" | "Stopping" | "Stopped";

/** What `enqueue` accepts: an object, a tombstone, a key "ns/name", or an ObjectName. */
export type EnqueueTarget = TypedObject | DeletedFinalStateUnknown | string | ObjectName;

/** The ObjectName of an object, tombstone, key string or ObjectName. */
export function objectNameOf(target: EnqueueTarget): ObjectName {
  if (target instanceof ObjectName) return target;
  if (typeof target === "string") return ObjectName.parse(target);
  if (target instanceof DeletedFinalStateUnknown) return ObjectName.parse(target.key);
  return ObjectName.of(target);
}

function isAbortError(err: unknown): boolean {
  return err instanceof Error && err.name === "AbortError";
}

interface SyncWaitable {
  hasSynced(): boolean;
  waitForSync?(signal?: AbortSignal): Promise<boolean>;
}

export class Controller {
  readonly name: string;
  readonly queue: RateLimitingQueue<ObjectName>;
  readonly maxRetries: number | undefined;
  private readonly reconcileFn: Reconciler;
  private readonly caches: SyncWaitable[];
  private readonly cacheSyncTimeoutMs: number;
  private readonly clock: Clock;
  private readonly log: Logger;
  private readonly metrics: {
    total: Record<ReconcileResultLabel, { inc(): void }>;
    errors: { inc(): void };
    panics: { inc(): void };
    terminal: { inc(): void };
    time: { observe(v: number): void };
    active: { inc(): void; dec(): void; set(v: number): void };
    maxConcurrent: { set(v: number): void };
  };
  private phaseValue: ControllerPhase = "Created";

  constructor(opts: ControllerOptions) {
    if (!opts.name) throw new Error("Controller: a name is required");
    this.name = opts.name;
    this.reconcileFn = opts.reconcile;
    this.caches = (opts.caches ?? []) as SyncWaitable[];
    this.cacheSyncTimeoutMs = opts.cacheSyncTimeoutMs ?? DEFAULT_CACHE_SYNC_TIMEOUT_MS;
    this.maxRetries = opts.maxRetries;
    this.clock = opts.clock ?? realClock;
    this.log = (opts.logger ?? defaultLogger()).child({ controller: this.name });
    this.queue = new RateLimitingQueue<ObjectName>(opts.rateLimiter ?? defaultControllerRateLimiter<ObjectName>(this.clock), {
      name: this.name,
      clock: this.clock,
      metricsProvider: new PrometheusMetricsProvider(opts.registry),
    });
    const c = controllerCollectors(opts.registry);
    const controller = this.name;
    const total = {} as Record<ReconcileResultLabel, { inc(): void }>;
    for (const result of reconcileResultLabels) {
      total[result] = c.reconcileTotal.labels({ controller, result });
      // Every series exists from the start, at 0 (controller-runtime's initMetrics).
      c.reconcileTotal.inc({ controller, result }, 0);
    }
    c.reconcileErrors.inc({ controller }, 0);
    c.reconcilePanics.inc({ controller }, 0);
    c.terminalReconcileErrors.inc({ controller }, 0);
    c.activeWorkers.set({ controller }, 0);
    this.metrics = {
      total,
      errors: c.reconcileErrors.labels({ controller }),
      panics: c.reconcilePanics.labels({ controller }),
      terminal: c.terminalReconcileErrors.labels({ controller }),
      time: c.reconcileTime.labels({ controller }),
      active: c.activeWorkers.labels({ controller }),
      maxConcurrent: c.maxConcurrentReconciles.labels({ controller }),
    };
  }

  get phase(): ControllerPhase {
    return this.phaseValue;
  }

  /** Enqueue an object (its ns/name), a tombstone, a key string "ns/name", or an ObjectName. */
  enqueue(objOrKey: EnqueueTarget): void {
    const key = this.keyOrLog(objOrKey);
    if (key) this.queue.add(key);
  }

  enqueueAfter(objOrKey: EnqueueTarget, ms: number): void {
    const key = this.keyOrLog(objOrKey);
    if (key) this.queue.addAfter(key, ms);
  }

  enqueueRateLimited(objOrKey: EnqueueTarget): void {
    const key = this.keyOrLog(objOrKey);
    if (key) this.queue.addRateLimited(key);
  }

  /** Waits for caches, runs `workers` workers until signal aborts, then drains and resolves. */
  async run(signal: AbortSignal, workers: number): Promise<void> {
    if (this.phaseValue !== "Created") throw new ControllerAlreadyStartedError(this.name);
    if (!Number.isInteger(workers) || workers < 1) throw new Error(`controller ${this.name}: workers must be a positive integer, got ${workers}`);
    const onAbort = () => {
      if (this.phaseValue === "Running") this.phaseValue = "Stopping";
      this.queue.shutDown();
    };
    signal.addEventListener("abort", onAbort, { once: true });
    try {
      this.log.info("Starting Controller");
      this.phaseValue = "WaitingForCaches";
      if (!(await this.waitForCaches(signal))) return;
      if (signal.aborted) return;
      this.phaseValue = "Running";
      this.metrics.maxConcurrent.set(workers);
      this.log.info({ workerCount: workers }, "Starting workers");
      const running: Array<Promise<void>> = [];
      for (let i = 0; i < workers; i++) running.push(this.worker(signal));
      await Promise.all(running);
      this.log.info("All workers finished");
    } finally {
      signal.removeEventListener("abort", onAbort);
      this.queue.shutDown();
      this.phaseValue = "Stopped";
      this.log.info("Controller stopped");
    }
  }

  /**
   * true when every cache synced; false when the signal aborted first; throws
   * CacheSyncTimeoutError when the timeout passes first.
   */
  private async waitForCaches(signal: AbortSignal): Promise<boolean> {
    if (this.caches.every((c) => c.hasSynced())) {
      this.log.info("Caches are synced");
      return true;
    }
    this.log.info({ caches: this.caches.length, timeoutMs: this.cacheSyncTimeoutMs }, "Waiting for caches to sync");
    const wait = new AbortController();
    let timedOut = false;
    const timer = this.clock.setTimer(this.cacheSyncTimeoutMs, () => {
      timedOut = true;
      wait.abort();
    });
    const onAbort = () => wait.abort();
    signal.addEventListener("abort", onAbort, { once: true });
    try {
      await Promise.all(this.caches.map((c) => this.waitForOne(c, wait.signal)));
    } finally {
      timer.cancel();
      signal.removeEventListener("abort", onAbort);
    }
    if (this.caches.every((c) => c.hasSynced())) {
      this.log.info("Caches are synced");
      return true;
    }
    if (timedOut && !signal.aborted) {
      const unsynced = this.caches.filter((c) => !c.hasSynced()).length;
      const err = new CacheSyncTimeoutError(this.name, this.cacheSyncTimeoutMs, unsynced, this.caches.length);
      this.log.error({ err }, "Could not wait for caches to sync");
      throw err;
    }
    return false;
  }

  /** Resolves when `c` has synced or `signal` aborted. */
  private async waitForOne(c: SyncWaitable, signal: AbortSignal): Promise<void> {
    if (typeof c.waitForSync === "function") {
      await c.waitForSync(signal);
      return;
    }
    while (!c.hasSynced() && !signal.aborted) {
      try {
        await this.clock.sleep(CACHE_SYNC_POLL_MS, signal);
      } catch {
        return;
      }
    }
  }

  private async worker(signal: AbortSignal): Promise<void> {
    for (;;) {
      const next = await this.queue.get();
      if (next.shutdown) return;
      if (signal.aborted) {
        // Shutting down: what is still queued is dropped (the queue ignores adds from now on).
        this.queue.done(next.item);
        continue;
      }
      await this.processItem(next.item, signal);
    }
  }

  /** One key through the reconciler; never throws. */
  private async processItem(key: ObjectName, signal: AbortSignal): Promise<void> {
    const reconcileID = randomUUID();
    const log = this.log.child({ object: key.toString(), reconcileID });
    const start = this.clock.now();
    this.metrics.active.inc();
    try {
      let result: ReconcileResult | void;
      try {
        if (signal.aborted) throw abortReason(signal);
        result = await this.reconcileFn(key, signal);
      } catch (err) {
        if (signal.aborted && isAbortError(err)) {
          // Interrupted by shutdown: not a failure of the object, and nothing can be requeued.
          log.debug("Reconcile interrupted by shutdown");
          return;
        }
        this.handleError(key, err, log);
        return;
      }
      this.handleResult(key, result ?? {}, log);
    } catch (err) {
      // Only reachable if logging or metrics themselves failed; the worker must survive anyway.
      try {
        log.error({ err }, "Internal error while handling a reconcile result");
      } catch {
        /* nothing left to report to */
      }
    } finally {
      this.metrics.time.observe((this.clock.now() - start) / 1000);
      this.metrics.active.dec();
      this.queue.done(key);
    }
  }

  private handleResult(key: ObjectName, result: ReconcileResult, log: Logger): void {
    if (result.requeueAfterMs !== undefined && result.requeueAfterMs > 0) {
      this.queue.forget(key);
      this.queue.addAfter(key, result.requeueAfterMs);
      this.metrics.total.requeue_after.inc();
      log.debug({ requeueAfterMs: result.requeueAfterMs }, "Reconcile done, requeueing after delay");
      return;
    }
    if (result.requeue) {
      this.queue.addRateLimited(key);
      this.metrics.total.requeue.inc();
      log.debug("Reconcile done, requeueing with rate limit");
      return;
    }
    this.queue.forget(key);
    this.metrics.total.success.inc();
    log.debug("Reconcile successful");
  }

  private handleError(key: ObjectName, err: unknown, log: Logger): void {
    this.metrics.errors.inc();
    this.metrics.total.error.inc();
    if (isReconcilePanic(err)) this.metrics.panics.inc();
    if (isTerminalReconcileError(err)) {
      // controller-runtime: a terminal error is counted and logged, never retried.
      this.metrics.terminal.inc();
      this.queue.forget(key);
      log.error({ err }, "Reconciler error (terminal, not retried)");
      return;
    }
    const requeues = this.queue.numRequeues(key);
    if (this.maxRetries !== undefined && requeues >= this.maxRetries) {
      this.queue.forget(key);
      log.error({ err, retries: requeues }, "Reconciler error; dropping object out of the queue after too many retries");
      return;
    }
    this.queue.addRateLimited(key);
    log.error({ err, retries: requeues }, "Reconciler error");
  }

  private keyOrLog(target: EnqueueTarget): ObjectName | undefined {
    try {
      return objectNameOf(target);
    } catch (err) {
      this.log.error({ err }, "Could not enqueue: invalid object key");
      return undefined;
    }
  }
}
