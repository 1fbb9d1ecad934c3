/**
 * Client-side rate limiting: client-go's flowcontrol token bucket (golang.org/x/time/rate
 * semantics), driven by an injected Clock.
 *
 * The bucket holds up to `burst` tokens and refills at `qps` tokens per second; it starts full.
 * `wait()` reserves a token immediately — the balance may go negative, which queues later
 * callers behind earlier ones in arrival order — and then sleeps until the reservation matures.
 * A wait cancelled by its signal returns its token.
 */
import { realClock, type Clock } from "../apimachinery/clock.js";

/** client-go's rest.DefaultQPS and rest.DefaultBurst. */
export const DEFAULT_QPS = 5;
export const DEFAULT_BURST = 10;

export interface RequestRateLimiter {
  /** Resolves when the caller may proceed; rejects with the signal's reason if aborted first. */
  wait(signal?: AbortSignal): Promise<void>;
  /** Takes a token if one is available now, without waiting. */
  tryAccept(): boolean;
}

export class TokenBucketRateLimiter implements RequestRateLimiter {
  readonly qps: number;
  readonly burst: number;
  private readonly clock: Clock;
  /** Token balance as of `last`; negative while reservations are outstanding. Never above `burst`. */
  private tokens: number;
  /** Clock time (ms) at which `tokens` was computed. */
  private last: number;

  constructor(qps: number, burst: number, clock: Clock = realClock) {
    if (!(qps > 0)) throw new RangeError(`qps must be positive, got ${qps}`);
    if (!(burst >= 1)) throw new RangeError(`burst must be at least 1, got ${burst}`);
    this.qps = qps;
    this.burst = burst;
    this.clock = clock;
    this.tokens = burst;
    this.last = clock.now();
  }

  private advance(now: number): number {
    const elapsed = Math.max(0, now - this.last);
    return Math.min(this.burst, this.tokens + (elapsed * this.qps) / 1000);
  }

  tryAccept(): boolean {
    const now = this.clock.now();
    const t = this.advance(now);
    if (t < 1) return false;
    this.tokens = t - 1;
    this.last = Math.max(this.last, now);
    return true;
  }

  /** Milliseconds a caller arriving now would wait (for tests and metrics). */
  delay(): number {
    const t = this.advance(this.clock.now());
    return t >= 1 ? 0 : ((1 - t) * 1000) / this.qps;
  }

  async wait(signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) throw signal.reason;
    const now = this.clock.now();
    this.tokens = this.advance(now) - 1;
    this.last = Math.max(this.last, now);
    if (this.tokens >= 0) return;
    const waitMs = (-this.tokens * 1000) / this.qps;
    try {
      await this.clock.sleep(waitMs, signal);
    } catch (e) {
      // Give the reservation back so the callers behind us are not delayed by it.
      this.tokens = Math.min(this.burst, this.advance(this.clock.now()) + 1);
      this.last = Math.max(this.last, this.clock.now());
      throw e;
    }
  }
}

/** A limiter that never waits (QPS < 0 in a RestConfig disables client-side limiting, as in client-go). */
export const unlimitedRateLimiter: RequestRateLimiter = {
  wait: (signal?: AbortSignal) => (signal?.aborted ? Promise.reject(signal.reason) : Promise.resolve()),
  tryAccept: () => true,
};

/**
 * The limiter a RestConfig asks for: its own `rateLimiter`, else a token bucket with qps/burst
 * (0 means the defaults 5/10; a negative qps disables limiting).
 */
export function rateLimiterFor(cfg: { qps?: number; burst?: number; rateLimiter?: RequestRateLimiter }, clock: Clock): RequestRateLimiter {
  if (cfg.rateLimiter) return cfg.rateLimiter;
  const qps = cfg.qps === undefined || cfg.qps === 0 ? DEFAULT_QPS : cfg.qps;
  const burst = cfg.burst === undefined || cfg.burst === 0 ? DEFAULT_BURST : cfg.burst;
  if (qps < 0) return unlimitedRateLimiter;
  return new TokenBucketRateLimiter(qps, burst, clock);
}
