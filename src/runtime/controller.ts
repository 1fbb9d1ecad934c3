/**
 * Controller: a work queue of requests and N async workers calling a reconcile function —
 * sample-controller's runWorker/processNextWorkItem with controller-runtime's result handling,
 * panic recovery and metrics. Build one with the builder (`mgr.controller(name)…reconcile(fn)`,
 * builder.ts); this class is the engine under it.
 *
 * Lifecycle (one `run()` per controller): Created → WaitingForCaches → Running → Stopping →
 * Stopped. `run()` waits for the caches (rejecting with CacheSyncTimeoutError after
 * `cacheSyncTimeoutMs`), starts the workers, and when the signal aborts shuts the queue down,
 * lets reconciles in flight finish (their signal is aborted, and so is every client call they
 * make through `ctx.client`), drops what is still queued, and resolves.
 *
 * Per request (reconcileHandler):
 * - the queue hands a request to one worker at a time (one re-added while being reconciled waits
 *   until `done`), so no two workers ever reconcile the same request at once;
 * - success → `forget` (the rate limiter's failure count resets), result "success"; with
 *   `requeueAfterMs` → forget, then `addAfter` (result "requeue_after"); with `requeue` →
 *   `addRateLimited`, not forgotten, so backoff grows (result "requeue");
 * - a thrown error → counted (reconcile_errors_total, result "error") and logged with
 *   controller, object and reconcileID; then
 *   - a TerminalError (anywhere in the cause chain) is counted in
 *     terminal_reconcile_errors_total and not requeued;
 *   - otherwise `addRateLimited` — unless the request was already requeued `maxRetries` times
 *     (kube-controller-manager's controllers), in which case it is forgotten and dropped;
 * - a panic — a thrown non-Error or a TypeError, ReferenceError, RangeError, … (isPanic) — is
 *   counted in reconcile_panics_total, logged with its stack, and then handled as an error
 *   ("panic: … [recovered]"); with `recoverPanic: false` it is rethrown and ends run();
 * - an AbortError thrown after the controller's signal aborted is shutdown, not failure: logged
 *   at debug only. An error never escapes a worker otherwise.
 */
import { randomUUID } from "node:crypto";
import type { Registry } from "prom-client";
import { abortReason, realClock } from "../apimachinery/clock.js";
import type { Clock } from "../apimachinery/clock.js";
import { ObjectName } from "../apimachinery/objectname.js";
import type { TypedObject } from "../apimachinery/types.js";
import type { ResourceClientFactory } from "../client/interfaces.js";
import type { EventRecorder } from "../events/broadcaster.js";
import { goSprintf } from "../events/format.js";
import type { SharedInformerFactory } from "../informers/factory.js";
import { DeletedFinalStateUnknown } from "../informers/store.js";
import type { KeyFunc } from "../workqueue/key.js";
import { PrometheusMetricsProvider } from "../workqueue/metrics.js";
import { defaultControllerRateLimiter } from "../workqueue/ratelimiters.js";
import type { RateLimiter } from "../workqueue/ratelimiters.js";
import { RateLimitingQueue } from "../workqueue/ratelimiting.js";
import { Cache } from "./cache.js";
import { defaultLogger } from "./logging.js";
import type { Logger } from "./logging.js";
import { controllerCollectors, reconcileResultLabels } from "./metrics.js";
import type { ReconcileResultLabel } from "./metrics.js";
import { isPanic, isTerminalError, type ReconcileContext, type ReconcileResult, type Reconciler, type Request } from "./reconcile.js";
import { SignalBoundClientFactory } from "./signalclient.js";

export type { ReconcileResult, Reconciler } from "./reconcile.js";

export interface ControllerOptions<R = Request> {
  /** Used in logs, metrics labels and as the queue's name. */
  name: string;
  reconcile: Reconciler<R>;
  /** What `ctx.client` wraps (with the controller's signal). */
  client: ResourceClientFactory;
  /** `ctx.recorder`; default: one that logs each event at debug level (nothing reaches the API). */
  recorder?: EventRecorder;
  /** What `ctx.cache` reads; without it every cache read throws NotWatchedError. */
  informers?: SharedInformerFactory;
  /** Informers (or anything with hasSynced()) that must sync before workers start. */
  caches?: Array<{ hasSynced(): boolean; waitForSync?(signal?: AbortSignal): Promise<boolean> }>;
  /** Default: defaultControllerRateLimiter() on the controller's clock. */
  rateLimiter?: RateLimiter<R>;
  /** Drop a request after this many consecutive failures (Deployment controller: 15). Default: never. */
  maxRetries?: number;
  /** Default 120_000; run() rejects with CacheSyncTimeoutError after it. */
  cacheSyncTimeoutMs?: number;
  /** Turn panics into errors (default true, as controller-runtime); false rethrows them. */
  recoverPanic?: boolean;
  /** Request identity in the queue (default: ObjectName and strings by value, objects by reference). */
  keyOf?: KeyFunc<R>;
  /** How a request appears in logs (`object` field); default String(request). */
  describe?: (request: R) => string;
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

/** A recorder that logs events (debug) instead of sending them: the engine's default. */
function loggingRecorder(log: Logger): EventRecorder {
  const record = (object: unknown, type: string, reason: string, message: string) => log.debug({ eventType: type, reason, involvedObject: object }, message);
  return {
    event: (o, type, reason, message) => record(o, type, reason, message),
    eventf: (o, type, reason, format, ...args) => record(o, type, reason, goSprintf(format, ...args)),
    annotatedEventf: (o, _annotations, type, reason, format, ...args) => record(o, type, reason, goSprintf(format, ...args)),
  };
}

function isAbortError(err: unknown): boolean {
  return err instanceof Error && err.name === "AbortError";
}

interface SyncWaitable {
  hasSynced(): boolean;
  waitForSync?(signal?: AbortSignal): Promise<boolean>;
}

export class Controller<R = Request> {
  readonly name: string;
  readonly queue: RateLimitingQueue<R>;
  readonly maxRetries: number | undefined;
  /** The cache reconciles read (`ctx.cache`). */
  readonly cache: Cache;
  private readonly reconcileFn: Reconciler<R>;
  private readonly caches: SyncWaitable[];
  private readonly cacheSyncTimeoutMs: number;
  private readonly recoverPanic: boolean;
  private readonly describe: (request: R) => string;
  private readonly client: ResourceClientFactory;
  private readonly recorder: EventRecorder;
  private readonly clock: Clock;
  private readonly log: Logger;
  private readonly metrics: {
    total: Record<ReconcileResultLabel, { inc(): void }>;
    errors: { inc(): void };
    terminal: { inc(): void };
    panics: { inc(): void };
    time: { observe(v: number): void };
    active: { inc(): void; dec(): void; set(v: number): void };
    maxConcurrent: { set(v: number): void };
  };
  /** The first panic rethrown by a worker when recoverPanic is false. */
  private unrecovered: { err: unknown } | undefined;
  private phaseValue: ControllerPhase = "Created";

  constructor(opts: ControllerOptions<R>) {
    if (!opts.name) throw new Error("Controller: a name is required");
    this.name = opts.name;
    this.reconcileFn = opts.reconcile;
    this.client = opts.client;
    this.cache = new Cache(opts.informers);
    this.caches = (opts.caches ?? []) as SyncWaitable[];
    this.cacheSyncTimeoutMs = opts.cacheSyncTimeoutMs ?? DEFAULT_CACHE_SYNC_TIMEOUT_MS;
    this.recoverPanic = opts.recoverPanic ?? true;
    this.describe = opts.describe ?? ((r) => String(r));
    this.maxRetries = opts.maxRetries;
    this.clock = opts.clock ?? realClock;
    this.log = (opts.logger ?? defaultLogger()).child({ controller: this.name });
    this.recorder = opts.recorder ?? loggingRecorder(this.log);
    this.queue = new RateLimitingQueue<R>(opts.rateLimiter ?? defaultControllerRateLimiter<R>(this.clock, opts.keyOf), {
      name: this.name,
      clock: this.clock,
      metricsProvider: new PrometheusMetricsProvider(opts.registry),
      ...(opts.keyOf ? { keyOf: opts.keyOf } : {}),
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
    c.terminalReconcileErrors.inc({ controller }, 0);
    c.reconcilePanics.inc({ controller }, 0);
    c.activeWorkers.set({ controller }, 0);
    this.metrics = {
      total,
      errors: c.reconcileErrors.labels({ controller }),
      terminal: c.terminalReconcileErrors.labels({ controller }),
      panics: c.reconcilePanics.labels({ controller }),
      time: c.reconcileTime.labels({ controller }),
      active: c.activeWorkers.labels({ controller }),
      maxConcurrent: c.maxConcurrentReconciles.labels({ controller }),
    };
  }

  get phase(): ControllerPhase {
    return this.phaseValue;
  }

  /**
   * Enqueues an object (its ns/name), a tombstone, a key string "ns/name", or an ObjectName —
   * for controllers whose requests are ObjectNames; other request types use `queue.add`.
   */
  enqueue(this: Controller<ObjectName>, objOrKey: EnqueueTarget): void {
    const key = this.keyOrLog(objOrKey);
    if (key) this.queue.add(key);
  }

  enqueueAfter(this: Controller<ObjectName>, objOrKey: EnqueueTarget, ms: number): void {
    const key = this.keyOrLog(objOrKey);
    if (key) this.queue.addAfter(key, ms);
  }

  enqueueRateLimited(this: Controller<ObjectName>, objOrKey: EnqueueTarget): void {
    const key = this.keyOrLog(objOrKey);
    if (key) this.queue.addRateLimited(key);
  }

  /**
   * Runs one reconcile of `request` as a worker would — context, result handling, metrics,
   * requeues — and resolves to what the reconcile function returned (or rejects with what it
   * threw, after the controller has handled it). For tests and tools; `run()` is the way to run
   * a controller.
   */
  async reconcileOnce(request: R, signal: AbortSignal = new AbortController().signal): Promise<ReconcileResult> {
    let outcome: { result?: ReconcileResult; err?: unknown; failed: boolean } = { failed: false };
    await this.processItem(request, signal, new SignalBoundClientFactory(this.client, signal), (o) => (outcome = o));
    if (outcome.failed) throw outcome.err;
    return outcome.result ?? {};
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
      // One signal-bound client for every reconcile of this run: ctx.client.
      const client = new SignalBoundClientFactory(this.client, signal);
      const running: Array<Promise<void>> = [];
      for (let i = 0; i < workers; i++) running.push(this.worker(signal, client));
      await Promise.all(running);
      this.log.info("All workers finished");
      if (this.unrecovered) throw this.unrecovered.err;
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

  private async worker(signal: AbortSignal, client: ResourceClientFactory): Promise<void> {
    for (;;) {
      const next = await this.queue.get();
      if (next.shutdown) return;
      if (signal.aborted || this.unrecovered) {
        // Shutting down: what is still queued is dropped (the queue ignores adds from now on).
        this.queue.done(next.item);
        continue;
      }
      await this.processItem(next.item, signal, client);
    }
  }

  /** One request through the reconciler; never throws (an unrecovered panic stops the workers). */
  private async processItem(
    request: R,
    signal: AbortSignal,
    client: ResourceClientFactory,
    report?: (o: { result?: ReconcileResult; err?: unknown; failed: boolean }) => void,
  ): Promise<void> {
    const reconcileID = randomUUID();
    const log = this.log.child({ object: this.describe(request), reconcileID });
    const start = this.clock.now();
    this.metrics.active.inc();
    try {
      let result: ReconcileResult | void;
      try {
        if (signal.aborted) throw abortReason(signal);
        const ctx: ReconcileContext = { signal, client, recorder: this.recorder, log, clock: this.clock, cache: this.cache, reconcileID };
        result = await this.reconcileFn(request, ctx);
      } catch (thrown) {
        if (signal.aborted && isAbortError(thrown)) {
          // Interrupted by shutdown: not a failure of the object, and nothing can be requeued.
          log.debug("Reconcile interrupted by shutdown");
          report?.({ failed: true, err: thrown });
          return;
        }
        let err = thrown;
        if (isPanic(thrown)) {
          this.metrics.panics.inc();
          const detail = thrown instanceof Error ? thrown.message : String(thrown);
          log.error({ err: thrown }, `Observed a panic in reconciler: ${detail}`);
          if (!this.recoverPanic) {
            this.unrecovered ??= { err: thrown };
            this.queue.shutDown();
            report?.({ failed: true, err: thrown });
            return;
          }
          err = new Error(`panic: ${detail} [recovered]`, { cause: thrown });
        }
        this.handleError(request, err, log);
        report?.({ failed: true, err: thrown });
        return;
      }
      this.handleResult(request, result ?? {}, log);
      report?.({ failed: false, result: result ?? {} });
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
      this.queue.done(request);
    }
  }

  private handleResult(request: R, result: ReconcileResult, log: Logger): void {
    if (result.requeueAfterMs !== undefined && result.requeueAfterMs > 0) {
      this.queue.forget(request);
      this.queue.addAfter(request, result.requeueAfterMs);
      this.metrics.total.requeue_after.inc();
      log.trace({ requeueAfterMs: result.requeueAfterMs }, "Reconcile done, requeueing after delay");
      return;
    }
    if (result.requeue) {
      this.queue.addRateLimited(request);
      this.metrics.total.requeue.inc();
      log.trace("Reconcile done, requeueing");
      return;
    }
    this.queue.forget(request);
    this.metrics.total.success.inc();
    log.trace("Reconcile successful");
  }

  private handleError(request: R, err: unknown, log: Logger): void {
    this.metrics.errors.inc();
    this.metrics.total.error.inc();
    if (isTerminalError(err)) {
      // Not retried: an event for the object brings it back (controller-runtime does not forget it either).
      this.metrics.terminal.inc();
      log.error({ err }, "Reconciler error");
      return;
    }
    const requeues = this.queue.numRequeues(request);
    if (this.maxRetries !== undefined && requeues >= this.maxRetries) {
      this.queue.forget(request);
      log.error({ err, retries: requeues }, "Reconciler error; dropping object out of the queue after too many retries");
      return;
    }
    this.queue.addRateLimited(request);
    log.error({ err, retries: requeues }, "Reconciler error");
  }

  private keyOrLog(this: Controller<ObjectName>, target: EnqueueTarget): ObjectName | undefined {
    try {
      return objectNameOf(target);
    } catch (err) {
      this.log.error({ err }, "Could not enqueue: invalid object key");
      return undefined;
    }
  }
}
