/**
 * DelayingQueue: a work queue that can add an item after a delay (client-go delaying_queue.go),
 * so failed items can be requeued without a hot loop.
 *
 * Time comes only from the injected `Clock`: the queue keeps one clock timer, for the earliest
 * deadline, and moves it whenever the earliest deadline changes. Upstream also wakes every 10 s as
 * insurance; a single exact timer does not need that, except that a timer is never set further
 * than `maxTimerMs` ahead (Node's setTimeout limit), and simply re-armed when it fires early.
 */
import type { Timer } from "../apimachinery/clock.js";
import { MinHeap } from "./heap.js";
import type { HeapEntry } from "./heap.js";
import { newRetryMetrics, noopMetricsProvider } from "./metrics.js";
import type { CounterMetric } from "./metrics.js";
import { Queue } from "./queue.js";
import type { QueueOptions } from "./queue.js";

/** The longest single timer the queue sets (2^31 − 1 ms, the most `setTimeout` accepts). */
export const maxTimerMs = 2 ** 31 - 1;

export type DelayingQueueOptions<T> = QueueOptions<T>;

/** An item waiting for its time; `readyAt` in clock milliseconds. */
interface WaitFor<T> extends HeapEntry {
  key: unknown;
  item: T;
}

export class DelayingQueue<T> extends Queue<T> {
  // State. Invariants:
  // - `waiting` holds the items whose delay has not expired, ordered by readyAt; `waitingByKey`
  //   maps each of their keys to its entry, and holds nothing else (one entry per key: when an
  //   item is added again with a delay, the earlier deadline wins).
  // - `timer` is set exactly when `waiting` is non-empty and the queue is not shutting down; it
  //   fires at `timerAt` = min(earliest readyAt, time it was set + maxTimerMs).
  private readonly waiting = new MinHeap<WaitFor<T>>();
  private readonly waitingByKey = new Map<unknown, WaitFor<T>>();
  private seq = 0;
  private timer: Timer | undefined;
  private timerAt = Number.NaN;
  private readonly retries: CounterMetric;

  constructor(options: DelayingQueueOptions<T> = {}) {
    super(options);
    this.retries = newRetryMetrics(options.metricsProvider ?? noopMetricsProvider, this.name);
  }

  /**
   * Adds `item` once `delayMs` milliseconds have passed (at once when ≤ 0). If the item is already
   * waiting, the earlier of the two deadlines is kept. Ignored once the queue is shutting down.
   * A non-finite delay (a rate limiter that will never allow the item) means never.
   */
  addAfter(item: T, delayMs: number): void {
    if (this.shuttingDown()) return;
    this.retries.inc();
    if (!(delayMs > 0)) {
      // NaN is treated as "no delay" rather than "never".
      this.add(item);
      return;
    }
    const readyAt = this.clock.now() + delayMs;
    const key = this.keyOf(item);
    const existing = this.waitingByKey.get(key);
    if (existing) {
      if (readyAt < existing.readyAt) {
        existing.readyAt = readyAt;
        this.waiting.fix(existing.index);
        this.schedule();
      }
      return;
    }
    const entry: WaitFor<T> = { readyAt, seq: this.seq++, index: -1, key, item };
    this.waiting.push(entry);
    this.waitingByKey.set(key, entry);
    if (this.waiting.peek() === entry) this.schedule();
  }

  /** How many items wait for their delay to expire. */
  waitingLen(): number {
    return this.waiting.length;
  }

  protected override onShuttingDown(): void {
    super.onShuttingDown();
    this.timer?.cancel();
    this.timer = undefined;
    this.timerAt = Number.NaN;
    this.waiting.clear();
    this.waitingByKey.clear();
  }

  /** Moves every item whose time has come to the queue, in deadline order. */
  private addReady(): void {
    const now = this.clock.now();
    for (;;) {
      const top = this.waiting.peek();
      if (!top || top.readyAt > now) break;
      this.waiting.pop();
      this.waitingByKey.delete(top.key);
      this.add(top.item);
    }
  }

  /** (Re)arms the single timer for the earliest deadline; cancels it when nothing waits. */
  private schedule(): void {
    const top = this.waiting.peek();
    if (!top || this.shuttingDown()) {
      this.timer?.cancel();
      this.timer = undefined;
      this.timerAt = Number.NaN;
      return;
    }
    if (!Number.isFinite(top.readyAt)) {
      // Only never-ready items wait: no timer is needed for them.
      this.timer?.cancel();
      this.timer = undefined;
      this.timerAt = Number.NaN;
      return;
    }
    const now = this.clock.now();
    const delay = Math.min(Math.max(0, top.readyAt - now), maxTimerMs);
    const at = now + delay;
    if (this.timer && this.timerAt === at) return;
    this.timer?.cancel();
    this.timerAt = at;
    this.timer = this.clock.setTimer(delay, () => this.onTimer());
  }

  private onTimer(): void {
    this.timer = undefined;
    this.timerAt = Number.NaN;
    if (this.shuttingDown()) return;
    this.addReady();
    this.schedule();
  }
}
