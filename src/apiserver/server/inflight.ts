/**
 * Concurrency limits on requests being served, as kube-apiserver's max-in-flight filter
 * (--max-requests-inflight 400, --max-mutating-requests-inflight 200): two pools, read-only
 * (get, list; GET and HEAD) and mutating (everything else). A request that finds its pool full
 * is refused at once with 429 and Retry-After (the caller answers it); nothing queues.
 *
 * Which requests take a seat is the caller's choice (server.ts): not long-running ones (watches),
 * not health probes, not system:masters (upstream exempts the privileged group, so that an
 * administrator can always get in).
 *
 * Invariant: `inFlight(kind)` is the number of seats acquired and not yet released; a seat is
 * released exactly once (further calls of its release function do nothing).
 */

export type InFlightKind = "readOnly" | "mutating";

export interface InFlightLimits {
  /** Read-only requests served at once (default 400). */
  readOnly: number;
  /** Mutating requests served at once (default 200). */
  mutating: number;
}

export const defaultInFlightLimits: InFlightLimits = { readOnly: 400, mutating: 200 };

/** Releases a seat (idempotent). */
export type ReleaseSeat = () => void;

/** The pool of a request by its method: GET and HEAD read, every other method mutates. */
export function inFlightKindOf(method: string | undefined): InFlightKind {
  return method === undefined || method === "GET" || method === "HEAD" ? "readOnly" : "mutating";
}

export class InFlightLimiter {
  readonly limits: InFlightLimits;
  private readonly current: Record<InFlightKind, number> = { readOnly: 0, mutating: 0 };

  constructor(limits: Partial<InFlightLimits> = {}) {
    this.limits = {
      readOnly: limits.readOnly ?? defaultInFlightLimits.readOnly,
      mutating: limits.mutating ?? defaultInFlightLimits.mutating,
    };
  }

  /** Takes a seat of `kind`, or returns undefined when all its seats are taken. */
  tryAcquire(kind: InFlightKind): ReleaseSeat | undefined {
    if (this.current[kind] >= this.limits[kind]) return undefined;
    this.current[kind]++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.current[kind]--;
    };
  }

  /** Seats of `kind` taken now. */
  inFlight(kind: InFlightKind): number {
    return this.current[kind];
  }
}
