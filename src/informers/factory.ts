/**
 * SharedInformerFactory: one informer per (resource, namespace, selectors), shared by every
 * controller that asks, started together and waited on together (client-go's
 * SharedInformerFactory, in generic form over any ResourceClientFactory).
 */
import type { Clock } from "../apimachinery/clock.js";
import { realClock } from "../apimachinery/clock.js";
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
  onError?: (message: string, err: unknown) => void;
}

export class SharedInformerFactory {
  private readonly informers = new Map<string, SharedIndexInformer<TypedObject>>();
  private readonly running = new Map<string, Promise<void>>();
  private signal: AbortSignal | undefined;

  constructor(
    private readonly client: ResourceClientFactory,
    private readonly opts: InformerFactoryOptions = {},
  ) {}

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
        onError: this.opts.onError,
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
    this.running.set(
      key,
      inf.run(signal).catch((err: unknown) => this.opts.onError?.(`informer ${key} failed`, err)),
    );
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
