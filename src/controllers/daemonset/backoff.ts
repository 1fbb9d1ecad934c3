/**
 * Per-key exponential back-off on a Clock (client-go util/flowcontrol.Backoff), as the DaemonSet
 * controller uses it to avoid a hot loop of deleting failed daemon pods that the kubelet keeps
 * rejecting: keyed by DaemonSet UID, observed generation and node.
 *
 * Invariant: an entry's delay starts at `initialMs`, doubles with each `next` up to `maxMs`, and
 * is forgotten once more than 2 × maxMs passed since its last update (then `next` starts over).
 */
import type { Clock } from "../../apimachinery/clock.js";

interface Entry {
  backoffMs: number;
  lastUpdate: number;
}

export class FailedPodsBackoff {
  private readonly entries = new Map<string, Entry>();

  constructor(
    readonly clock: Clock,
    readonly initialMs: number,
    readonly maxMs: number,
  ) {}

  /** The current delay of `key` (0 when unknown). */
  get(key: string): number {
    return this.entries.get(key)?.backoffMs ?? 0;
  }

  /** Moves `key` one step: the initial delay when new or expired, else twice the last, at most maxMs. */
  next(key: string, eventTime: number): void {
    const e = this.entries.get(key);
    if (!e || this.expired(eventTime, e.lastUpdate)) {
      this.entries.set(key, { backoffMs: this.initialMs, lastUpdate: this.clock.now() });
      return;
    }
    e.backoffMs = Math.min(e.backoffMs * 2, this.maxMs);
    e.lastUpdate = this.clock.now();
  }

  /** Whether less than the key's delay has passed since its last update (IsInBackOffSinceUpdate). */
  isInBackOffSinceUpdate(key: string, eventTime: number): boolean {
    const e = this.entries.get(key);
    if (!e || this.expired(eventTime, e.lastUpdate)) return false;
    return eventTime - e.lastUpdate < e.backoffMs;
  }

  /** Drops entries not updated for more than 2 × maxMs (GC). */
  gc(): void {
    const now = this.clock.now();
    for (const [k, e] of this.entries) if (this.expired(now, e.lastUpdate)) this.entries.delete(k);
  }

  private expired(eventTime: number, lastUpdate: number): boolean {
    return eventTime - lastUpdate > this.maxMs * 2;
  }
}
