/**
 * Reflector: keeps a store in step with the server by LIST then WATCH, as client-go's
 * cache.Reflector, written as an explicit state machine (in the manner of kube-rs's watcher).
 *
 *   Listing ──list ok──▶ Watching ──stream ended──▶ Watching (same resourceVersion)
 *      ▲                   │  └─410 Expired / ERROR─▶ Listing (consistent read: resourceVersion "")
 *      │                   └─request failed──▶ Backoff ─▶ Watching or Listing
 *   WatchListing ──initial-events-end bookmark──▶ Watching (on the same stream)
 *      └─server refused watch-list──▶ Listing (and list+watch from then on)
 *   any phase ──signal aborted──▶ Stopped
 *
 * It never stops silently: every failure is counted, reported to `onError`, visible in
 * `health()`, and retried with exponential backoff and jitter.
 */
import type { Clock } from "../apimachinery/clock.js";
import { realClock } from "../apimachinery/clock.js";
import { isGone, isResourceExpired, StatusError } from "../apimachinery/errors.js";
import type { KubeList, TypedObject } from "../apimachinery/types.js";
import type { ResourceClient, WatchEvent } from "../client/interfaces.js";
import { watchBatches } from "../client/watch.js";
import { Backoff, type BackoffOptions } from "./backoff.js";

/** What the reflector writes into (a DeltaFIFO, or a plain store). */
export interface ReflectorStore<T extends TypedObject> {
  add(obj: T): void;
  update(obj: T): void;
  delete(obj: T): void;
  replace(list: T[], resourceVersion: string): void;
}

export type ReflectorPhase =
  | { phase: "Listing"; resourceVersion: string; reason: string }
  | { phase: "WatchListing" }
  | { phase: "Watching"; resourceVersion: string }
  | { phase: "Backoff"; delayMs: number; then: "Listing" | "Watching"; reason: string }
  | { phase: "Stopped" };

export interface ReflectorHealth {
  phase: ReflectorPhase["phase"];
  /** The resourceVersion the store reflects. */
  lastSyncResourceVersion: string;
  /** Whether the initial list completed. */
  synced: boolean;
  lists: number;
  watches: number;
  events: number;
  errors: number;
  consecutiveErrors: number;
  lastError?: string;
  lastEventAt?: number;
}

export interface ReflectorOptions<T extends TypedObject> {
  name?: string;
  client: ResourceClient<T>;
  store: ReflectorStore<T>;
  labelSelector?: string;
  fieldSelector?: string;
  clock?: Clock;
  /** LIST page size (client-go's 500). */
  pageSize?: number;
  /** Try watch-list (sendInitialEvents) first; fall back to list+watch if the server refuses. */
  useWatchList?: boolean;
  backoff?: BackoffOptions;
  /** Watches are closed by the server after a random 5–10 minutes (client-go's minWatchTimeout = 5 min). */
  minWatchTimeoutSeconds?: number;
  /** Applied to every object before it reaches the store (e.g. drop managedFields). */
  transform?: (obj: T) => T;
  onError?: (message: string, err: unknown) => void;
  random?: () => number;
}

const INITIAL_EVENTS_END = "k8s.io/initial-events-end";

export class Reflector<T extends TypedObject> {
  private state: ReflectorPhase;
  private lastSyncRV = "";
  private synced = false;
  private watchListSupported: boolean;
  private readonly clock: Clock;
  private readonly backoff: Backoff;
  private readonly random: () => number;
  private readonly stats = { lists: 0, watches: 0, events: 0, errors: 0, lastError: undefined as string | undefined, lastEventAt: undefined as number | undefined };
  private readonly syncWaiters: Array<() => void> = [];

  constructor(private readonly o: ReflectorOptions<T>) {
    this.clock = o.clock ?? realClock;
    this.random = o.random ?? Math.random;
    this.backoff = new Backoff(this.clock, { random: this.random, ...o.backoff });
    this.watchListSupported = o.useWatchList ?? false;
    this.state = this.watchListSupported ? { phase: "WatchListing" } : { phase: "Listing", resourceVersion: "0", reason: "initial list" };
  }

  get name(): string {
    return this.o.name ?? `${this.o.client.resource.resource}`;
  }

  get lastSyncResourceVersion(): string {
    return this.lastSyncRV;
  }

  health(): ReflectorHealth {
    return {
      phase: this.state.phase,
      lastSyncResourceVersion: this.lastSyncRV,
      synced: this.synced,
      lists: this.stats.lists,
      watches: this.stats.watches,
      events: this.stats.events,
      errors: this.stats.errors,
      consecutiveErrors: this.backoff.consecutiveFailures,
      lastError: this.stats.lastError,
      lastEventAt: this.stats.lastEventAt,
    };
  }

  /** Resolves once the first full state has been written to the store. */
  waitForSync(): Promise<void> {
    if (this.synced) return Promise.resolve();
    return new Promise((r) => this.syncWaiters.push(r));
  }

  /** Runs until `signal` aborts. */
  async run(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      const s = this.state;
      try {
        switch (s.phase) {
          case "Listing":
            this.state = await this.list(s.resourceVersion, signal);
            break;
          case "WatchListing":
            this.state = await this.watchList(signal);
            break;
          case "Watching":
            this.state = await this.watch(s.resourceVersion, signal);
            break;
          case "Backoff":
            await this.clock.sleep(s.delayMs, signal);
            this.state = s.then === "Watching" ? { phase: "Watching", resourceVersion: this.lastSyncRV } : this.relistState(s.reason);
            break;
          case "Stopped":
            return;
        }
      } catch (err) {
        if (signal.aborted) break;
        this.state = this.failed(err, s.phase === "Watching" && !isGone(err) ? "Watching" : "Listing", `${s.phase} failed`);
      }
    }
    this.state = { phase: "Stopped" };
  }

  private relistState(reason: string): ReflectorPhase {
    if (this.watchListSupported) return { phase: "WatchListing" };
    return { phase: "Listing", resourceVersion: this.lastSyncRV === "" ? "0" : this.lastSyncRV, reason };
  }

  /**
   * After 410 Gone: a consistent relist (resourceVersion ""), by watch-list when the server
   * serves it (as client-go, which tries watch-list again on every relist).
   */
  private expiredState(reason: string): ReflectorPhase {
    if (this.watchListSupported) return { phase: "WatchListing" };
    return { phase: "Listing", resourceVersion: "", reason };
  }

  private failed(err: unknown, then: "Listing" | "Watching", what: string): ReflectorPhase {
    this.stats.errors++;
    this.stats.lastError = err instanceof Error ? err.message : String(err);
    this.o.onError?.(`${this.name}: ${what}`, err);
    return { phase: "Backoff", delayMs: this.backoff.next(), then, reason: what };
  }

  private complete(items: T[], resourceVersion: string): void {
    this.o.store.replace(items, resourceVersion);
    this.lastSyncRV = resourceVersion;
    if (!this.synced) {
      this.synced = true;
      for (const w of this.syncWaiters.splice(0)) w();
    }
  }

  /** Fills apiVersion/kind, which list items from a real server do not carry, and applies the transform. */
  private prepare(obj: T): T {
    const r = this.o.client.resource;
    let out = obj;
    if (!obj.apiVersion || !obj.kind) {
      out = { ...obj, apiVersion: obj.apiVersion || (r.group ? `${r.group}/${r.version}` : r.version), kind: obj.kind || r.kind };
    }
    return this.o.transform ? this.o.transform(out) : out;
  }

  private async list(resourceVersion: string, signal: AbortSignal): Promise<ReflectorPhase> {
    this.stats.lists++;
    const items: T[] = [];
    let page: KubeList<T>;
    let cont: string | undefined;
    let rv = resourceVersion;
    let limit: number | undefined = this.o.pageSize ?? 500;
    const fetchPage = (): Promise<KubeList<T>> => {
      const p = this.o.client.list({
        labelSelector: this.o.labelSelector,
        fieldSelector: this.o.fieldSelector,
        limit,
        ...(cont ? { continue: cont } : { resourceVersion: rv }),
        signal,
      });
      // Awaited below; this only keeps a failure from counting as unhandled meanwhile.
      p.catch(() => undefined);
      return p;
    };
    let next = fetchPage();
    for (;;) {
      try {
        page = await next;
      } catch (err) {
        if (isGone(err) && (cont !== undefined || rv !== "")) {
          // An expired continue token or a compacted resourceVersion: one consistent full list.
          this.o.onError?.(`${this.name}: list expired, relisting from the latest state`, err);
          items.length = 0;
          cont = undefined;
          rv = "";
          limit = undefined;
          next = fetchPage();
          continue;
        }
        throw err;
      }
      cont = page.metadata?.continue || undefined;
      // Ask for the next page first, then prepare this one's items while the server works on it.
      if (cont) next = fetchPage();
      for (const item of page.items) items.push(this.prepare(item));
      if (!cont) break;
    }
    const listRV = page.metadata?.resourceVersion ?? "";
    this.complete(items, listRV);
    this.backoff.reset();
    return { phase: "Watching", resourceVersion: listRV };
  }

  private watchTimeout(): number {
    const min = this.o.minWatchTimeoutSeconds ?? 300;
    return Math.floor(min * (1 + this.random()));
  }

  private async watchList(signal: AbortSignal): Promise<ReflectorPhase> {
    this.stats.watches++;
    let stream;
    try {
      stream = await this.o.client.watch({
        labelSelector: this.o.labelSelector,
        fieldSelector: this.o.fieldSelector,
        sendInitialEvents: true,
        resourceVersionMatch: "NotOlderThan",
        resourceVersion: "",
        allowWatchBookmarks: true,
        timeoutSeconds: this.watchTimeout(),
        signal,
      });
    } catch (err) {
      if (err instanceof StatusError && (err.code === 400 || err.code === 403 || err.code === 422 || err.code === 405)) {
        // The server does not serve watch-list: list+watch from now on.
        this.watchListSupported = false;
        this.o.onError?.(`${this.name}: watch-list refused, falling back to list+watch`, err);
        return { phase: "Listing", resourceVersion: "0", reason: "watch-list unsupported" };
      }
      throw err;
    }
    const initial = new Map<string, T>();
    const keyOf = (o: T) => `${o.metadata?.namespace ?? ""}/${o.metadata?.name ?? ""}`;
    let done = false;
    let rv = "";
    // The events of one read are applied together, synchronously (one await per read, not per event).
    for await (const batch of watchBatches(stream)) {
      if (done) this.stats.lastEventAt = this.clock.now();
      for (const ev of batch) {
        if (!done) {
          this.stats.events++;
          if (ev.type === "ERROR") return this.onErrorEvent(ev);
          const obj = this.prepare(ev.object as T);
          rv = obj.metadata?.resourceVersion ?? rv;
          if (ev.type === "BOOKMARK") {
            if (obj.metadata?.annotations?.[INITIAL_EVENTS_END] === "true") {
              this.complete([...initial.values()], rv);
              this.backoff.reset();
              done = true;
              // The same stream now carries changes: report it as watching (health, readiness).
              this.state = { phase: "Watching", resourceVersion: rv };
            }
            continue;
          }
          if (ev.type === "DELETED") initial.delete(keyOf(obj));
          else initial.set(keyOf(obj), obj);
          continue;
        }
        const next = this.handleEvent(ev);
        if (next) return next;
      }
    }
    if (!done) return this.failed(new Error("watch-list stream ended before the initial-events-end bookmark"), "Listing", "watch-list incomplete");
    return { phase: "Watching", resourceVersion: this.lastSyncRV };
  }

  private async watch(resourceVersion: string, signal: AbortSignal): Promise<ReflectorPhase> {
    this.stats.watches++;
    const started = this.clock.now();
    let stream;
    try {
      stream = await this.o.client.watch({
        labelSelector: this.o.labelSelector,
        fieldSelector: this.o.fieldSelector,
        resourceVersion,
        allowWatchBookmarks: true,
        timeoutSeconds: this.watchTimeout(),
        signal,
      });
    } catch (err) {
      if (isGone(err) || isResourceExpired(err)) {
        this.o.onError?.(`${this.name}: watch of resourceVersion ${resourceVersion} expired, relisting`, err);
        return this.expiredState("resourceVersion expired");
      }
      throw err;
    }
    let received = 0;
    for await (const batch of watchBatches(stream)) {
      // One clock reading per read: the events of a batch arrived together.
      this.stats.lastEventAt = this.clock.now();
      for (const ev of batch) {
        received++;
        const next = this.handleEvent(ev);
        if (next) return next;
      }
    }
    if (signal.aborted) return { phase: "Stopped" };
    // A watch the server closed at once, with nothing in it, is treated as a failure (no hot loop).
    if (received === 0 && this.clock.now() - started < 1000) {
      return this.failed(new Error("watch closed immediately with no events"), "Watching", "watch closed early");
    }
    return { phase: "Watching", resourceVersion: this.lastSyncRV };
  }

  /** Applies one watch event; returns the next phase when the event ends this watch. */
  private handleEvent(ev: WatchEvent<T>): ReflectorPhase | undefined {
    this.stats.events++;
    if (ev.type === "ERROR") return this.onErrorEvent(ev);
    const obj = this.prepare(ev.object as T);
    const rv = obj.metadata?.resourceVersion;
    switch (ev.type) {
      case "ADDED":
        this.o.store.add(obj);
        break;
      case "MODIFIED":
        this.o.store.update(obj);
        break;
      case "DELETED":
        this.o.store.delete(obj);
        break;
      case "BOOKMARK":
        break;
    }
    if (rv) this.lastSyncRV = rv;
    this.backoff.reset();
    return undefined;
  }

  private onErrorEvent(ev: Extract<WatchEvent<T>, { type: "ERROR" }>): ReflectorPhase {
    const err = StatusError.fromStatus(ev.object);
    if (isGone(err)) {
      this.o.onError?.(`${this.name}: watch expired (${err.message}), relisting`, err);
      return this.expiredState("watch expired");
    }
    return this.failed(err, "Listing", "watch error event");
  }
}
