/**
 * Exponential backoff with jitter for the reflector (client-go uses 800 ms doubling to 30 s,
 * jitter 1.0, reset after 2 min without failures).
 */
import type { Clock } from "../apimachinery/clock.js";

export interface BackoffOptions {
  initialMs?: number;
  maxMs?: number;
  /** A failure more than this long after the previous one starts again from initialMs. */
  resetMs?: number;
  /** The delay is multiplied by 1 + random() × jitter. */
  jitter?: number;
  random?: () => number;
}

export class Backoff {
  private failures = 0;
  private lastFailure = 0;
  private readonly o: Required<BackoffOptions>;

  constructor(
    private readonly clock: Clock,
    opts: BackoffOptions = {},
  ) {
    this.o = {
      initialMs: opts.initialMs ?? 800,
      maxMs: opts.maxMs ?? 30_000,
      resetMs: opts.resetMs ?? 120_000,
      jitter: opts.jitter ?? 1.0,
      random: opts.random ?? Math.random,
    };
  }

  /** Records a failure and returns how long to wait before the next attempt. */
  next(): number {
    const now = this.clock.now();
    if (this.failures > 0 && now - this.lastFailure > this.o.resetMs) this.failures = 0;
    this.lastFailure = now;
    const exp = Math.min(this.failures, 30);
    this.failures++;
    const base = Math.min(this.o.maxMs, this.o.initialMs * 2 ** exp);
    return base * (1 + this.o.random() * this.o.jitter);
  }

  reset(): void {
    this.failures = 0;
  }

  get consecutiveFailures(): number {
    return this.failures;
  }
}
