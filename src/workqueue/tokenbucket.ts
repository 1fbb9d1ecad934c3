/**
 * TokenBucket: the part of golang.org/x/time/rate's Limiter that BucketRateLimiter uses,
 * `Reserve().Delay()`: take one token now, possibly going into debt, and learn how long to wait
 * until that token would have been available.
 *
 * The bucket holds at most `burst` tokens and refills at `qps` tokens per second of the injected
 * clock; it starts full.
 *
 * Invariants: `tokens ≤ burst`; `tokens` is the bucket's content at clock time `last` (negative
 * when reservations ran ahead of the refill); `last` never moves backwards.
 */
import type { Clock } from "../apimachinery/clock.js";

export class TokenBucket {
  private tokens: number;
  private last: number;

  /**
   * @param qps tokens per second; `Infinity` allows everything, 0 never refills.
   * @param burst bucket size, the most reservations allowed at once.
   */
  constructor(
    readonly qps: number,
    readonly burst: number,
    private readonly clock: Clock,
  ) {
    if (Number.isNaN(qps) || qps < 0) throw new RangeError(`token bucket qps must be ≥ 0, got ${qps}`);
    if (!Number.isFinite(burst) || burst < 0) throw new RangeError(`token bucket burst must be ≥ 0, got ${burst}`);
    this.tokens = burst;
    this.last = clock.now();
  }

  /**
   * Reserves one token and returns the delay in milliseconds until it may be used (0 when one is
   * available now). Returns `Infinity`, reserving nothing, when the token can never be had: the
   * burst is 0, or the bucket never refills and is empty (x/time/rate's not-OK reservation, whose
   * Delay() is InfDuration).
   */
  reserve(): number {
    if (this.qps === Infinity) return 0;
    const now = this.clock.now();
    const tokens = this.advance(now) - 1;
    let waitMs = 0;
    if (tokens < 0) waitMs = this.qps === 0 ? Infinity : (-tokens * 1000) / this.qps;
    if (this.burst < 1 || !Number.isFinite(waitMs)) return Infinity;
    this.last = Math.max(this.last, now);
    this.tokens = tokens;
    return waitMs;
  }

  /** Tokens available now (negative while reservations are in debt). */
  available(): number {
    return this.advance(this.clock.now());
  }

  /** The bucket's content at `now`, refilled since `last` and capped at `burst`. */
  private advance(now: number): number {
    const elapsedMs = Math.max(0, now - this.last);
    const refilled = this.tokens + (elapsedMs * this.qps) / 1000;
    return refilled > this.burst ? this.burst : refilled;
  }
}
