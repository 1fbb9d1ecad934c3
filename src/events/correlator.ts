/**
 * EventCorrelator: what client-go's tools/record does before an event reaches the API —
 * identical events become one Event whose count grows (a PATCH), similar events (differing only
 * in message) are combined after `maxEvents` within `maxIntervalSeconds`, and a per source+object
 * token bucket drops the long tail of spam. Defaults are upstream's.
 */
import type { Event } from "../apimachinery/api/core/v1.js";
import type { Clock } from "../apimachinery/clock.js";
import { realClock } from "../apimachinery/clock.js";
import type { WritableObjectMeta } from "../apimachinery/types.js";
import { LRU } from "./lru.js";
import { formatTime } from "../apimachinery/time.js";

export const MAX_LRU_CACHE_ENTRIES = 4096;
export const DEFAULT_AGGREGATE_MAX_EVENTS = 10;
export const DEFAULT_AGGREGATE_INTERVAL_SECONDS = 600;
export const DEFAULT_SPAM_BURST = 25;
export const DEFAULT_SPAM_QPS = 1 / 300;

export interface CorrelatorOptions {
  lruCacheSize?: number;
  burstSize?: number;
  qps?: number;
  maxEvents?: number;
  maxIntervalSeconds?: number;
  clock?: Clock;
  /** Groups events for aggregation: [aggregateKey, localKey]. */
  keyFunc?: (e: Event) => [string, string];
  messageFunc?: (e: Event) => string;
  spamKeyFunc?: (e: Event) => string;
}

/** The patch that bumps an existing event (what upstream's two-way patch of these fields yields). */
export interface EventCountPatch {
  count: number;
  lastTimestamp: string;
  message?: string;
}

export interface CorrelateResult {
  skip: boolean;
  event?: Event;
  /** Present when the event already exists on the server: send this patch instead of creating. */
  patch?: EventCountPatch;
}

const j = (parts: Array<string | undefined>) => parts.map((p) => p ?? "").join("");

/** Full identity of an event: source, involved object, type, reason and message. */
export function eventKey(e: Event): string {
  const o = e.involvedObject;
  return j([e.source?.component, e.source?.host, o.kind, o.namespace, o.name, o.fieldPath, o.uid, o.apiVersion, e.type, e.reason, e.message]);
}

/** The spam filter's key: source and involved object only. */
export function spamKey(e: Event): string {
  const o = e.involvedObject;
  return j([e.source?.component, e.source?.host, o.kind, o.namespace, o.name, o.uid, o.apiVersion]);
}

/** Upstream's EventAggregatorByReasonFunc: everything but the message, which is the local key. */
export function aggregateByReason(e: Event): [string, string] {
  const o = e.involvedObject;
  return [
    j([e.source?.component, e.source?.host, o.kind, o.namespace, o.name, o.uid, o.apiVersion, e.type, e.reason, e.reportingComponent, e.reportingInstance]),
    e.message ?? "",
  ];
}

export function aggregatedEventMessage(e: Event): string {
  return `(combined from similar events): ${e.message ?? ""}`;
}

/** A token bucket (flowcontrol's TryAccept) driven by a Clock. */
class TokenBucket {
  private tokens: number;
  private last: number;

  constructor(
    private readonly qps: number,
    private readonly burst: number,
    private readonly clock: Clock,
  ) {
    this.tokens = burst;
    this.last = clock.now();
  }

  tryAccept(): boolean {
    const now = this.clock.now();
    this.tokens = Math.min(this.burst, this.tokens + ((now - this.last) / 1000) * this.qps);
    this.last = now;
    if (this.tokens >= 1) {
      this.tokens -= 1;
      return true;
    }
    return false;
  }
}

interface AggregateRecord {
  localKeys: Set<string>;
  lastTimestamp: number;
}

interface EventLog {
  count: number;
  firstTimestamp?: string;
  name?: string;
  resourceVersion?: string;
}

export class EventCorrelator {
  private readonly clock: Clock;
  private readonly spam: LRU<TokenBucket>;
  private readonly aggregates: LRU<AggregateRecord>;
  private readonly namer = new EventNamer();
  private readonly observed: LRU<EventLog>;
  private readonly o: Required<Omit<CorrelatorOptions, "clock">>;

  constructor(opts: CorrelatorOptions = {}) {
    this.clock = opts.clock ?? realClock;
    this.o = {
      lruCacheSize: opts.lruCacheSize || MAX_LRU_CACHE_ENTRIES,
      burstSize: opts.burstSize || DEFAULT_SPAM_BURST,
      qps: opts.qps || DEFAULT_SPAM_QPS,
      maxEvents: opts.maxEvents || DEFAULT_AGGREGATE_MAX_EVENTS,
      maxIntervalSeconds: opts.maxIntervalSeconds || DEFAULT_AGGREGATE_INTERVAL_SECONDS,
      keyFunc: opts.keyFunc ?? aggregateByReason,
      messageFunc: opts.messageFunc ?? aggregatedEventMessage,
      spamKeyFunc: opts.spamKeyFunc ?? spamKey,
    };
    this.spam = new LRU(this.o.lruCacheSize);
    this.aggregates = new LRU(this.o.lruCacheSize);
    this.observed = new LRU(this.o.lruCacheSize);
  }

  /** Aggregates, counts and spam-filters one event (which it does not mutate). */
  correlate(input: Event): CorrelateResult {
    const [aggregated, key] = this.aggregate(input);
    const [event, patch] = this.observe(aggregated, key);
    if (this.filter(event)) return { skip: true };
    return { skip: false, event, patch };
  }

  /** Records the server's answer (name, resourceVersion, count) for later patches. */
  updateState(e: Event): void {
    this.observed.set(eventKey(e), {
      count: e.count ?? 1,
      firstTimestamp: e.firstTimestamp,
      name: e.metadata?.name,
      resourceVersion: e.metadata?.resourceVersion,
    });
  }

  private filter(e: Event): boolean {
    const key = this.o.spamKeyFunc(e);
    let bucket = this.spam.get(key);
    if (!bucket) bucket = new TokenBucket(this.o.qps, this.o.burstSize, this.clock);
    const drop = !bucket.tryAccept();
    this.spam.set(key, bucket);
    return drop;
  }

  private aggregate(e: Event): [Event, string] {
    const now = this.clock.now();
    const full = eventKey(e);
    const [aggKey, localKey] = this.o.keyFunc(e);
    let rec = this.aggregates.get(aggKey);
    if (!rec || now - rec.lastTimestamp > this.o.maxIntervalSeconds * 1000) rec = { localKeys: new Set(), lastTimestamp: 0 };
    rec.localKeys.add(localKey);
    rec.lastTimestamp = now;
    this.aggregates.set(aggKey, rec);
    if (rec.localKeys.size < this.o.maxEvents) return [e, full];
    // Keep the set at its maximum size: drop one (any) local key.
    const first = rec.localKeys.values().next().value as string;
    rec.localKeys.delete(first);
    const t = formatTime(now);
    const combined: Event = {
      metadata: { name: `${e.involvedObject.name ?? ""}.${this.namer.suffix(now)}`, namespace: e.metadata?.namespace },
      count: 1,
      firstTimestamp: t,
      lastTimestamp: t,
      involvedObject: e.involvedObject,
      message: this.o.messageFunc(e),
      type: e.type,
      reason: e.reason,
      source: e.source,
    };
    return [combined, aggKey];
  }

  private observe(input: Event, key: string): [Event, EventCountPatch | undefined] {
    const meta: WritableObjectMeta = { ...input.metadata };
    const e: Event = { ...input, metadata: meta };
    const last = this.observed.get(key);
    let patch: EventCountPatch | undefined;
    if (last && last.count > 0) {
      meta.name = last.name;
      meta.resourceVersion = last.resourceVersion;
      e.firstTimestamp = last.firstTimestamp;
      e.count = last.count + 1;
      patch = { count: e.count, lastTimestamp: e.lastTimestamp ?? formatTime(this.clock.now()) };
      if (e.message) patch.message = e.message;
    }
    this.observed.set(key, {
      count: e.count ?? 1,
      firstTimestamp: e.firstTimestamp,
      name: e.metadata?.name,
      resourceVersion: e.metadata?.resourceVersion,
    });
    return [e, patch];
  }
}

/** The hex of a millisecond time in nanoseconds, as upstream names events "<object>.<hex ns>". */
export function nanoHex(ms: number): string {
  return (BigInt(Math.floor(ms)) * 1_000_000n).toString(16);
}

/**
 * Names events "<object>.<hex ns>" as nanoHex does, strictly increasing per namer: upstream's
 * UnixNano differs between two events, a millisecond clock does not, and two events of one
 * object in the same millisecond (a container started and its first probe failing) would
 * otherwise share a name — the second create refused, later counts patched onto the wrong event.
 */
export class EventNamer {
  private last = -1n;

  suffix(ms: number): string {
    let n = BigInt(Math.floor(ms)) * 1_000_000n;
    if (n <= this.last) n = this.last + 1n;
    this.last = n;
    return n.toString(16);
  }
}
