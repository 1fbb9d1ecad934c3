/**
 * RateLimitedTimedQueue: upstream pkg/controller/nodelifecycle/scheduler/rate_limited_queue.go,
 * the per-zone queue through which the node lifecycle controller adds NoExecute taints.
 *
 * A unique queue of node names, ordered by when each may be processed (processAt, then the time
 * it was added). `try(fn)` walks the head while the zone's token bucket grants a token: an item
 * not yet due stops the walk (its token spent, as upstream's), `fn` returning `{ ok: false,
 * waitMs }` puts the item back at now + waitMs + 1 ms, `ok: true` takes it off the queue.
 *
 * Invariant (upstream's UniqueQueue): a name is in `members` from `add` until `remove`, also
 * after `try` processed it — so a node tainted once is not queued again until the controller
 * calls `remove` (the node became reachable, or the taint it carries no longer matches).
 * `queue` holds only the members still to process.
 *
 * The limiter is a TokenBucket of `qps` and burst 1 on the injected clock (upstream's
 * flowcontrol.NewTokenBucketRateLimiter(qps, EvictionRateLimiterBurst)); a qps ≤ 0 never grants
 * (upstream's NewFakeNeverRateLimiter).
 */
import type { Clock } from "../../apimachinery/clock.js";
import { TokenBucket } from "../../workqueue/tokenbucket.js";

/** scheduler.EvictionRateLimiterBurst. */
export const EVICTION_RATE_LIMITER_BURST = 1;

export interface TimedValue {
  value: string;
  uid: string;
  addedAt: number;
  processAt: number;
}

export type TryResult = { ok: true } | { ok: false; waitMs: number };

export class RateLimitedTimedQueue {
  private readonly members = new Set<string>();
  private queue: TimedValue[] = [];
  private bucket: TokenBucket | undefined;
  private limiterQPS: number;

  constructor(
    qps: number,
    private readonly clock: Clock,
  ) {
    this.limiterQPS = qps;
    this.bucket = qps > 0 ? new TokenBucket(qps, EVICTION_RATE_LIMITER_BURST, clock) : undefined;
  }

  /** The limiter's rate now (0: never grants). */
  get qps(): number {
    return this.limiterQPS;
  }

  /** Adds a name unless it is already a member; true when added. */
  add(value: string, uid: string): boolean {
    if (this.members.has(value)) return false;
    const now = this.clock.now();
    this.members.add(value);
    this.insert({ value, uid, addedAt: now, processAt: now });
    return true;
  }

  /** Forgets a name (queued or already processed); true when it was a member. */
  remove(value: string): boolean {
    const had = this.members.delete(value);
    this.queue = this.queue.filter((v) => v.value !== value);
    return had;
  }

  /** Whether the name is still waiting to be processed. */
  queued(value: string): boolean {
    return this.queue.some((v) => v.value === value);
  }

  /** The names waiting, in order. */
  waiting(): string[] {
    return this.queue.map((v) => v.value);
  }

  /** Drops everything (upstream's Clear). */
  clear(): void {
    this.members.clear();
    this.queue = [];
  }

  /** Processes the due head items while the limiter grants tokens. */
  async try(fn: (v: TimedValue) => Promise<TryResult>): Promise<void> {
    let head = this.queue[0];
    while (head) {
      if (!this.tryAccept()) break;
      const now = this.clock.now();
      if (now < head.processAt) break;
      const result = await fn(head);
      // fn may have removed the item (a node that became reachable meanwhile).
      const i = this.queue.indexOf(head);
      if (i >= 0) {
        this.queue.splice(i, 1);
        if (!result.ok) this.insert({ ...head, processAt: now + result.waitMs + 1 });
      }
      head = this.queue[0];
    }
  }

  /**
   * When `try` could next make progress, in ms from now: 0 when it can now, undefined when the
   * queue is empty or the limiter never grants.
   */
  nextAttemptInMs(): number | undefined {
    const head = this.queue[0];
    if (!head || !this.bucket) return undefined;
    const tokenIn = Math.max(0, ((1 - this.bucket.available()) * 1000) / this.limiterQPS);
    return Math.ceil(Math.max(tokenIn, head.processAt - this.clock.now()));
  }

  /**
   * Replaces the limiter with one of `qps` (upstream's SwapLimiter): nothing when the rate is the
   * same; a new bucket starts drained when the old one had no token to give, so a swap does not
   * hand out an extra eviction.
   */
  swapLimiter(qps: number): void {
    const next = qps > 0 ? qps : 0;
    if (next === this.limiterQPS) return;
    if (next === 0) {
      this.bucket = undefined;
    } else {
      const bucket = new TokenBucket(next, EVICTION_RATE_LIMITER_BURST, this.clock);
      if (!this.tryAccept()) bucket.reserve();
      this.bucket = bucket;
    }
    this.limiterQPS = next;
  }

  private tryAccept(): boolean {
    if (!this.bucket || this.bucket.available() < 1) return false;
    this.bucket.reserve();
    return true;
  }

  private insert(v: TimedValue): void {
    let i = this.queue.length;
    while (i > 0 && (this.queue[i - 1].processAt > v.processAt || (this.queue[i - 1].processAt === v.processAt && this.queue[i - 1].addedAt > v.addedAt))) i--;
    this.queue.splice(i, 0, v);
  }
}
