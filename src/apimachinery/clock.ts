/**
 * Clock: the one source of time for every time-dependent component (rate limiters, delaying
 * queues, leases, progress deadlines, the simulated kubelet). Production code takes a `Clock`;
 * tests pass a `FakeClock` and move time explicitly, so nothing sleeps.
 */

/** A scheduled callback; `cancel()` returns false when it already fired or was cancelled. */
import { onAbortOf } from "./abort.js";

export interface Timer {
  cancel(): boolean;
}

export interface Clock {
  /** Milliseconds since the Unix epoch. */
  now(): number;
  /** Runs `fn` once after `ms` milliseconds (≤ 0 means as soon as possible). */
  setTimer(ms: number, fn: () => void): Timer;
  /** Resolves after `ms`; rejects with the signal's reason (an AbortError) when aborted first. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

/** The error a cancelled wait rejects with when the signal gives no reason of its own. */
export class AbortError extends Error {
  constructor(message = "The operation was aborted") {
    super(message);
    this.name = "AbortError";
  }
}

export function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new AbortError();
}

/** Shared implementation of sleep on top of setTimer. */
function sleepOn(clock: Clock, ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return Promise.reject(abortReason(signal));
  return new Promise<void>((resolve, reject) => {
    // Many loops sleep on one manager's signal: one listener on it, fanned out (abort.ts).
    let stopWaiting: (() => void) | undefined;
    let fired = false;
    const timer = clock.setTimer(ms, () => {
      fired = true;
      stopWaiting?.();
      resolve();
    });
    if (signal && !fired) {
      stopWaiting = onAbortOf(signal, () => {
        timer.cancel();
        reject(abortReason(signal));
      });
    }
  });
}

/** Wall-clock time and Node timers. */
export class RealClock implements Clock {
  now(): number {
    return Date.now();
  }

  setTimer(ms: number, fn: () => void): Timer {
    let done = false;
    const h = setTimeout(() => {
      done = true;
      fn();
    }, Math.max(0, ms));
    // Timers never keep the process alive on their own: long-running components hold it open.
    h.unref?.();
    return {
      cancel: () => {
        if (done) return false;
        done = true;
        clearTimeout(h);
        return true;
      },
    };
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return sleepOn(this, ms, signal);
  }
}

export const realClock: Clock = new RealClock();

/**
 * The real clock, read at most once per event-loop turn: `now()` returns the time of its first
 * call in the current turn (the cache is dropped by a `setImmediate`, i.e. once the turn's
 * callbacks and microtasks have run). Timers are RealClock's.
 *
 * For metrics on hot paths (the work queue's: three readings per item) where a clock reading costs
 * more than the work it measures — `Date.now()` is a system call on some hosts (260–450 ns on the
 * benchmark machine, against ~1 µs for a whole add/get/done). The trade-off, stated where it is
 * used: a duration that starts and ends in the same turn reads as 0, and a reading taken late in a
 * long turn is early by up to that turn's length. `Date.now()` itself has 1 ms resolution, and a
 * turn longer than that is a blocked event loop, which delays the measured work as much.
 * Never use it for deadlines or anything a test steps: pass a `Clock` (a `FakeClock` in tests).
 */
class TurnClock implements Clock {
  private cached = 0;
  private valid = false;
  private readonly invalidate = (): void => {
    this.valid = false;
  };

  now(): number {
    if (this.valid) return this.cached;
    this.cached = Date.now();
    this.valid = true;
    setImmediate(this.invalidate);
    return this.cached;
  }

  setTimer(ms: number, fn: () => void): Timer {
    return realClock.setTimer(ms, fn);
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return sleepOn(this, ms, signal);
  }
}

export const turnClock: Clock = new TurnClock();

/**
 * Keeps the Node.js process alive until the returned function is called. RealClock's timers do
 * not (a background loop must not keep a finished program running), so a component whose caller
 * awaits it — a running Manager, a CRD install waiting for Established — holds the process open
 * itself for as long as that lasts, as Go's blocking calls do.
 */
export function holdProcessOpen(): () => void {
  const h = setInterval(() => undefined, 2 ** 31 - 1);
  return () => clearInterval(h);
}

interface FakeTimer {
  deadline: number;
  seq: number;
  fn: () => void;
  active: boolean;
}

/**
 * A clock that moves only when told to.
 *
 * Invariants: `timers` holds exactly the active, unfired timers; each fires once, in deadline order
 * (ties in creation order), with `now()` equal to its deadline while it runs. Timers scheduled by a
 * firing callback fire in the same `step` when their deadline falls within it.
 */
export class FakeClock implements Clock {
  private time: number;
  private seq = 0;
  private timers: FakeTimer[] = [];

  constructor(start: number | Date = Date.UTC(2026, 0, 1)) {
    this.time = typeof start === "number" ? start : start.getTime();
  }

  now(): number {
    return this.time;
  }

  setTimer(ms: number, fn: () => void): Timer {
    const t: FakeTimer = { deadline: this.time + Math.max(0, ms), seq: this.seq++, fn, active: true };
    this.timers.push(t);
    return {
      cancel: () => {
        if (!t.active) return false;
        t.active = false;
        this.timers = this.timers.filter((x) => x !== t);
        return true;
      },
    };
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return sleepOn(this, ms, signal);
  }

  /** Advances time by `ms`, firing due timers synchronously in deadline order. */
  step(ms: number): void {
    this.advanceTo(this.time + ms);
  }

  /** Sets the time; moving backwards fires nothing. */
  setTime(t: number | Date): void {
    const target = typeof t === "number" ? t : t.getTime();
    if (target < this.time) {
      this.time = target;
      return;
    }
    this.advanceTo(target);
  }

  /**
   * Advances by `ms` like `step`, but lets promise continuations run after each timer fires, so
   * that async code woken by one timer can schedule the next before time moves on.
   */
  async advance(ms: number): Promise<void> {
    const target = this.time + ms;
    await flushMicrotasks();
    for (;;) {
      const next = this.nextDue(target);
      if (!next) break;
      this.fire(next);
      await flushMicrotasks();
    }
    this.time = target;
    await flushMicrotasks();
  }

  /** How many timers are waiting (client-go's HasWaiters, as a count). */
  waiters(): number {
    return this.timers.length;
  }

  hasWaiters(): boolean {
    return this.timers.length > 0;
  }

  /** The earliest pending deadline, if any. */
  nextDeadline(): number | undefined {
    let best: FakeTimer | undefined;
    for (const t of this.timers) if (!best || t.deadline < best.deadline) best = t;
    return best?.deadline;
  }

  private nextDue(target: number): FakeTimer | undefined {
    let best: FakeTimer | undefined;
    for (const t of this.timers) {
      if (t.deadline > target) continue;
      if (!best || t.deadline < best.deadline || (t.deadline === best.deadline && t.seq < best.seq)) best = t;
    }
    return best;
  }

  private fire(t: FakeTimer): void {
    this.timers = this.timers.filter((x) => x !== t);
    t.active = false;
    if (t.deadline > this.time) this.time = t.deadline;
    t.fn();
  }

  private advanceTo(target: number): void {
    for (;;) {
      const next = this.nextDue(target);
      if (!next) break;
      this.fire(next);
    }
    this.time = target;
  }
}

/** Lets queued promise continuations run (a macrotask turn). */
export function flushMicrotasks(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
