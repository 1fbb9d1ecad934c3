/**
 * SharedInformerFactory: one informer per (resource, namespace, selectors), shared by every
 * controller that asks, started together and waited on together (client-go's
 * SharedInformerFactory, in generic form over any ResourceClientFactory).
 *
 * Failures are never silent: every list/watch error of every informer is logged through the
 * factory's logger (by default klog-style lines on stderr, as client-go's reflector logs through
 * klog) — a missing CRD or a 403 shows up at once, not as a hang. An informer that has not synced
 * says so, with its phase and last error, every `unsyncedReportIntervalMs` until it does.
 * `onError` is called as well, for callers who want more than a log line.
 */
import type { Clock } from "../apimachinery/clock.js";
import { realClock, type Timer } from "../apimachinery/clock.js";
import { isGone, isResourceExpired } from "../apimachinery/errors.js";
import type { ResourceDescriptor } from "../apimachinery/resource.js";
import type { TypedObject } from "../apimachinery/types.js";
import type { ResourceClientFactory } from "../client/interfaces.js";
import { SharedIndexInformer, type SharedInformerOptions } from "./sharedinformer.js";

export interface InformerFactoryOptions {
  /** "" (default) watches all namespaces. */
  namespace?: string;
  defaultResyncMs?: number;
  labelSelector?: string;
  fieldSelector?: string;
  clock?: Clock;
  transform?: (obj: TypedObject) => TypedObject;
  useWatchList?: boolean;
  /** Where informer errors are logged (default: stderrInformerLogger). A pino Logger fits. */
  logger?: InformerLogger;
  /** Called for every informer error, after it is logged. */
  onError?: (message: string, err: unknown) => void;
  /** How often an informer that has not synced reports why (default 10 000 ms; 0: never). */
  unsyncedReportIntervalMs?: number;
}

/** The logger an informer factory writes to (pino's Logger has this shape). */
export interface InformerLogger {
  info(obj: Record<string, unknown>, msg: string): void;
  warn(obj: Record<string, unknown>, msg: string): void;
  error(obj: Record<string, unknown>, msg: string): void;
}

export const DEFAULT_UNSYNCED_REPORT_INTERVAL_MS = 10_000;

function errText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** klog's header: severity letter, MMDD hh:mm:ss.uuuuuu, pid. */
function klogLine(severity: "I" | "W" | "E", obj: Record<string, unknown>, msg: string): string {
  const d = new Date();
  const p = (n: number, w = 2) => String(n).padStart(w, "0");
  const ts = `${p(d.getMonth() + 1)}${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}.${p(d.getMilliseconds(), 3)}000`;
  const kv = Object.entries(obj)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => ` ${k}=${JSON.stringify(v instanceof Error ? v.message : v)}`)
    .join("");
  return `${severity}${ts} ${String(process.pid).padStart(7)} informers] ${msg}${kv}\n`;
}

/** The default: one klog-style line per message on stderr (client-go's reflector logs through klog). */
export const stderrInformerLogger: InformerLogger = Object.freeze({
  info: (obj: Record<string, unknown>, msg: string) => void process.stderr.write(klogLine("I", obj, msg)),
  warn: (obj: Record<string, unknown>, msg: string) => void process.stderr.write(klogLine("W", obj, msg)),
  error: (obj: Record<string, unknown>, msg: string) => void process.stderr.write(klogLine("E", obj, msg)),
});

export class SharedInformerFactory {
  private readonly informers = new Map<string, SharedIndexInformer<TypedObject>>();
  private readonly running = new Map<string, Promise<void>>();
  private signal: AbortSignal | undefined;
  private readonly log: InformerLogger;
  /** Reports errors: log first (routine relists at info, failures at warn), then onError. */
  private readonly report: (message: string, err: unknown) => void;

  constructor(
    private readonly client: ResourceClientFactory,
    private readonly opts: InformerFactoryOptions = {},
  ) {
    this.log = opts.logger ?? stderrInformerLogger;
    this.report = (message, err) => {
      try {
        // An expired resourceVersion is routine (the reflector relists); anything else is a failure.
        if (isResourceExpired(err) || isGone(err)) this.log.info({ err: errText(err) }, message);
        else this.log.warn({ err: errText(err) }, message);
      } catch {
        // a broken logger must not break the informer
      }
      opts.onError?.(message, err);
    };
  }

  /**
   * The shared informer of a resource, created on first use; its object type is the
   * descriptor's. A metadata-only view (`metadataOnly(d)`) has an informer of its own, caching
   * PartialObjectMetadata. `extra` applies only when this call creates the informer.
   */
  forResource<T extends TypedObject>(r: ResourceDescriptor<T>, extra: Partial<SharedInformerOptions<T>> = {}): SharedIndexInformer<T> {
    const ns = r.namespaced ? (this.opts.namespace ?? "") : "";
    const key = this.keyOf(r);
    let inf = this.informers.get(key);
    if (!inf) {
      inf = new SharedIndexInformer<TypedObject>(this.client.resource<TypedObject>(r, ns), {
        resyncPeriodMs: this.opts.defaultResyncMs ?? 0,
        labelSelector: this.opts.labelSelector,
        fieldSelector: this.opts.fieldSelector,
        clock: this.opts.clock ?? realClock,
        transform: this.opts.transform,
        useWatchList: this.opts.useWatchList,
        onError: this.report,
        ...(extra as Partial<SharedInformerOptions<TypedObject>>),
      });
      this.informers.set(key, inf);
      if (this.signal) this.startOne(key, inf, this.signal);
    }
    return inf as unknown as SharedIndexInformer<T>;
  }

  /** Every informer created so far. */
  all(): SharedIndexInformer<TypedObject>[] {
    return [...this.informers.values()];
  }

  /** The informer of a resource if one was created (by forResource), else undefined. */
  existing<T extends TypedObject>(r: ResourceDescriptor<T>): SharedIndexInformer<T> | undefined {
    return this.informers.get(this.keyOf(r)) as unknown as SharedIndexInformer<T> | undefined;
  }

  private keyOf(r: ResourceDescriptor): string {
    const ns = r.namespaced ? (this.opts.namespace ?? "") : "";
    return `${r.group}/${r.version}/${r.resource}${r.metadataOnly ? "#metadata" : ""}|${ns}|${this.opts.labelSelector ?? ""}|${this.opts.fieldSelector ?? ""}`;
  }

  /** Starts every informer created so far (and any created later) until `signal` aborts. */
  start(signal: AbortSignal): void {
    this.signal = signal;
    for (const [key, inf] of this.informers) if (!this.running.has(key)) this.startOne(key, inf, signal);
  }

  private startOne(key: string, inf: SharedIndexInformer<TypedObject>, signal: AbortSignal): void {
    const stopReporting = this.reportUntilSynced(key, inf, signal);
    this.running.set(
      key,
      inf
        .run(signal)
        .catch((err: unknown) => {
          try {
            this.log.error({ err: errText(err), informer: key }, `informer ${key} failed`);
          } catch {
            // ignore a broken logger
          }
          this.opts.onError?.(`informer ${key} failed`, err);
        })
        .finally(stopReporting),
    );
  }

  /** Logs, every interval until `inf` syncs, that it has not and why. Returns a stop function. */
  private reportUntilSynced(key: string, inf: SharedIndexInformer<TypedObject>, signal: AbortSignal): () => void {
    const every = this.opts.unsyncedReportIntervalMs ?? DEFAULT_UNSYNCED_REPORT_INTERVAL_MS;
    if (every <= 0) return () => {};
    const clock = this.opts.clock ?? realClock;
    const started = clock.now();
    let timer: Timer | undefined;
    let stopped = false;
    // Stopped by run()'s end (after the signal aborted) or by the sync itself: no abort listener.
    const stop = () => {
      stopped = true;
      timer?.cancel();
    };
    const tick = () => {
      if (stopped || signal.aborted || inf.hasSynced()) return stop();
      const h = inf.health();
      try {
        this.log.warn(
          { informer: key, waitedMs: clock.now() - started, phase: h.phase, consecutiveErrors: h.consecutiveErrors, lastError: h.lastError },
          `informer ${key} has not synced yet${h.lastError ? `: ${h.lastError}` : ""}`,
        );
      } catch {
        // ignore a broken logger
      }
      timer = clock.setTimer(every, tick);
    };
    timer = clock.setTimer(every, tick);
    return stop;
  }

  /**
   * Waits until every started informer has synced, or `signal` aborts. Resolves to a map of
   * informer key → synced.
   */
  async waitForCacheSync(signal?: AbortSignal): Promise<Map<string, boolean>> {
    const keys = [...this.running.keys()];
    const results = await Promise.all(keys.map((k) => this.informers.get(k)!.waitForSync(signal)));
    return new Map(keys.map((k, i) => [k, results[i]]));
  }

  /** Resolves once every started informer has stopped (after the start signal aborted). */
  async shutdown(): Promise<void> {
    await Promise.all(this.running.values());
  }
}

/** Waits for the given sync checks (informers or registrations) to pass, or the signal to abort. */
export async function waitForCacheSync(
  signal: AbortSignal,
  checks: Array<{ hasSynced(): boolean }>,
  clock: Clock = realClock,
  pollMs = 10,
): Promise<boolean> {
  for (;;) {
    if (checks.every((c) => c.hasSynced())) return true;
    try {
      await clock.sleep(pollMs, signal);
    } catch {
      return false;
    }
  }
}
