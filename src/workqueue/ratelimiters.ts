/**
 * Rate limiters for the rate-limiting queue (client-go default_rate_limiters.go). Durations are
 * milliseconds. Per-item limiters identify items through a key function (see key.ts).
 */
import { realClock } from "../apimachinery/clock.js";
import type { Clock } from "../apimachinery/clock.js";
import { defaultKeyOf } from "./key.js";
import type { KeyFunc } from "./key.js";
import { TokenBucket } from "./tokenbucket.js";

export interface RateLimiter<T> {
  /** How long (ms) the item should wait before it is added again; records one more failure. */
  when(item: T): number;
  /** Stops tracking the item (it succeeded, or was given up on). */
  forget(item: T): void;
  /** How many times the item has been requeued since it was last forgotten. */
  numRequeues(item: T): number;
}

export interface ItemRateLimiterOptions<T> {
  /** Item identity; defaults to `defaultKeyOf`. */
  keyOf?: KeyFunc<T>;
}

/**
 * baseMs · 2^failures per item, capped at maxMs. Large exponents cannot overflow: anything that is
 * not below maxMs (including Infinity) returns maxMs. Giving up after too many failures is the
 * caller's business.
 *
 * Invariant: `failures` holds, per item key, the number of `when` calls since the last `forget`.
 */
export class ItemExponentialFailureRateLimiter<T = unknown> implements RateLimiter<T> {
  private readonly failures = new Map<unknown, number>();
  private readonly keyOf: KeyFunc<T>;

  constructor(
    readonly baseMs: number,
    readonly maxMs: number,
    options: ItemRateLimiterOptions<T> = {},
  ) {
    this.keyOf = options.keyOf ?? (defaultKeyOf as KeyFunc<T>);
  }

  when(item: T): number {
    const key = this.keyOf(item);
    const exp = this.failures.get(key) ?? 0;
    this.failures.set(key, exp + 1);
    if (this.baseMs <= 0) return Math.min(0, this.maxMs);
    const backoff = this.baseMs * 2 ** exp;
    return backoff < this.maxMs ? backoff : this.maxMs;
  }

  numRequeues(item: T): number {
    return this.failures.get(this.keyOf(item)) ?? 0;
  }

  forget(item: T): void {
    this.failures.delete(this.keyOf(item));
  }
}

/** client-go's DefaultItemBasedRateLimiter: exponential from 1 ms to 1000 s. */
export function defaultItemBasedRateLimiter<T = unknown>(): RateLimiter<T> {
  return new ItemExponentialFailureRateLimiter<T>(1, 1000 * 1000);
}

/**
 * fastMs for the first maxFastAttempts failures of an item, slowMs after that.
 *
 * Invariant: `failures` holds, per item key, the number of `when` calls since the last `forget`.
 */
export class ItemFastSlowRateLimiter<T = unknown> implements RateLimiter<T> {
  private readonly failures = new Map<unknown, number>();
  private readonly keyOf: KeyFunc<T>;

  constructor(
    readonly fastMs: number,
    readonly slowMs: number,
    readonly maxFastAttempts: number,
    options: ItemRateLimiterOptions<T> = {},
  ) {
    this.keyOf = options.keyOf ?? (defaultKeyOf as KeyFunc<T>);
  }

  when(item: T): number {
    const key = this.keyOf(item);
    const n = (this.failures.get(key) ?? 0) + 1;
    this.failures.set(key, n);
    return n <= this.maxFastAttempts ? this.fastMs : this.slowMs;
  }

  numRequeues(item: T): number {
    return this.failures.get(this.keyOf(item)) ?? 0;
  }

  forget(item: T): void {
    this.failures.delete(this.keyOf(item));
  }
}

/**
 * An overall (not per-item) token bucket: `qps` tokens per second, at most `burst` at once. Each
 * `when` reserves a token and returns the wait until it is available, as BucketRateLimiter does
 * with x/time/rate's `Reserve().Delay()`. Time comes from `clock`.
 */
export class BucketRateLimiter<T = unknown> implements RateLimiter<T> {
  readonly bucket: TokenBucket;

  constructor(qps: number, burst: number, clock: Clock = realClock) {
    this.bucket = new TokenBucket(qps, burst, clock);
  }

  when(_item: T): number {
    return this.bucket.reserve();
  }

  numRequeues(_item: T): number {
    return 0;
  }

  forget(_item: T): void {}
}

/**
 * Asks every limiter and returns the longest wait (and the highest requeue count). With a token
 * bucket among them the burst can appear exceeded when particular items were separately delayed
 * longer (upstream's caveat).
 */
export class MaxOfRateLimiter<T = unknown> implements RateLimiter<T> {
  readonly limiters: ReadonlyArray<RateLimiter<T>>;

  constructor(...limiters: Array<RateLimiter<T>>) {
    this.limiters = limiters;
  }

  when(item: T): number {
    let ret = 0;
    for (const l of this.limiters) {
      const d = l.when(item);
      if (d > ret) ret = d;
    }
    return ret;
  }

  numRequeues(item: T): number {
    let ret = 0;
    for (const l of this.limiters) {
      const n = l.numRequeues(item);
      if (n > ret) ret = n;
    }
    return ret;
  }

  forget(item: T): void {
    for (const l of this.limiters) l.forget(item);
  }
}

/** Caps another limiter's delay at maxDelayMs (client-go's WithMaxWaitRateLimiter). */
export class WithMaxWaitRateLimiter<T = unknown> implements RateLimiter<T> {
  constructor(
    readonly limiter: RateLimiter<T>,
    readonly maxDelayMs: number,
  ) {}

  when(item: T): number {
    const d = this.limiter.when(item);
    return d > this.maxDelayMs ? this.maxDelayMs : d;
  }

  numRequeues(item: T): number {
    return this.limiter.numRequeues(item);
  }

  forget(item: T): void {
    this.limiter.forget(item);
  }
}

/**
 * client-go's DefaultControllerRateLimiter: per item, exponential from 5 ms to 1000 s; overall, a
 * 10 qps token bucket of 100 (which only paces retries, all items together); the longer wins.
 */
export function defaultControllerRateLimiter<T = unknown>(clock: Clock = realClock, keyOf?: KeyFunc<T>): RateLimiter<T> {
  return new MaxOfRateLimiter<T>(
    new ItemExponentialFailureRateLimiter<T>(5, 1000 * 1000, keyOf ? { keyOf } : {}),
    new BucketRateLimiter<T>(10, 100, clock),
  );
}
