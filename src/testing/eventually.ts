/**
 * `eventually` and `settle`: the one way tests wait for asynchronous machinery (informers,
 * queues, workers) — with a FakeClock for unit tests (no sleeps: macrotask turns, and the clock
 * moved in steps so rate-limited retries and delays come due), or real time for end-to-end tests
 * against a server (a bounded poll).
 *
 *   await eventually(() => client.tracker.list(builtin.pods, "default").length === 3, { clock });
 *   const svc = await eventually(() => getServiceOrUndefined(), { what: "the Service", timeoutMs: 20_000 });
 *   await settle({ clock });   // run the loops a while, to show nothing (more) happens
 */
import { flushMicrotasks, type FakeClock } from "../apimachinery/clock.js";

export interface EventuallyOptions {
  /** Drive this fake clock; without one, poll in real time. */
  clock?: FakeClock;
  /** What is awaited, for the timeout message. */
  what?: string;
  /** Fake clock: milliseconds per step (default 50) and steps at most (default 400). */
  stepMs?: number;
  maxSteps?: number;
  /** Real time: give up after this long (default 10 000 ms), polling every `intervalMs` (default 25). */
  timeoutMs?: number;
  intervalMs?: number;
}

export class EventuallyTimeoutError extends Error {
  constructor(what: string, last: unknown) {
    super(`timed out waiting for ${what}${last !== undefined ? `: ${last instanceof Error ? last.message : String(last)}` : ""}`);
    this.name = "EventuallyTimeoutError";
  }
}

/**
 * Resolves with the first value `probe` returns that is neither undefined nor false (a probe that
 * throws counts as not yet, and its last error is in the timeout message).
 */
export async function eventually<T>(probe: () => T | undefined | false | Promise<T | undefined | false>, opts: EventuallyOptions = {}): Promise<T> {
  const what = opts.what ?? "condition";
  let last: unknown;
  const attempt = async (): Promise<{ done: true; value: T } | { done: false }> => {
    try {
      const v = await probe();
      if (v !== undefined && v !== false) return { done: true, value: v };
    } catch (err) {
      last = err;
    }
    return { done: false };
  };
  if (opts.clock) {
    const steps = opts.maxSteps ?? 400;
    const stepMs = opts.stepMs ?? 50;
    for (let i = 0; i < steps; i++) {
      const r = await attempt();
      if (r.done) return r.value;
      await flushMicrotasks();
      if (i % 10 === 9) await opts.clock.advance(stepMs);
    }
    throw new EventuallyTimeoutError(what, last);
  }
  const deadline = Date.now() + (opts.timeoutMs ?? 10_000);
  for (;;) {
    const r = await attempt();
    if (r.done) return r.value;
    if (Date.now() > deadline) throw new EventuallyTimeoutError(what, last);
    await new Promise((resolve) => setTimeout(resolve, opts.intervalMs ?? 25));
  }
}

export interface SettleOptions {
  clock?: FakeClock;
  /** Macrotask turns (default 60); with a clock, it moves `stepMs` (default 50) every tenth turn. */
  rounds?: number;
  stepMs?: number;
}

/** Lets the loops run for a while (and a fake clock move), so that a test can show nothing more happens. */
export async function settle(opts: SettleOptions = {}): Promise<void> {
  const rounds = opts.rounds ?? 60;
  for (let i = 0; i < rounds; i++) {
    await flushMicrotasks();
    if (opts.clock && i % 10 === 9) await opts.clock.advance(opts.stepMs ?? 50);
  }
}
