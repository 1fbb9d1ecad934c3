/**
 * RateLimitingQueue: a delaying queue whose re-adds are paced by a RateLimiter (client-go
 * rate_limiting_queue.go). Remember to call `forget(item)` when an item succeeds, or the limiter
 * keeps counting its failures forever.
 */
import { DelayingQueue } from "./delaying.js";
import type { DelayingQueueOptions } from "./delaying.js";
import type { RateLimiter } from "./ratelimiters.js";

export type RateLimitingQueueOptions<T> = DelayingQueueOptions<T>;

export class RateLimitingQueue<T> extends DelayingQueue<T> {
  constructor(
    readonly rateLimiter: RateLimiter<T>,
    options: RateLimitingQueueOptions<T> = {},
  ) {
    super(options);
  }

  /** Adds the item once the rate limiter says it may be: `addAfter(item, limiter.when(item))`. */
  addRateLimited(item: T): void {
    this.addAfter(item, this.rateLimiter.when(item));
  }

  /**
   * Stops the rate limiter tracking the item (after success, or after giving up). It only clears
   * the limiter: the worker still has to call `done(item)`.
   */
  forget(item: T): void {
    this.rateLimiter.forget(item);
  }

  /** How many times the item was requeued through `addRateLimited`. */
  numRequeues(item: T): number {
    return this.rateLimiter.numRequeues(item);
  }
}
