/**
 * Work-queue throughput: 100,000 adds over 10,000 distinct keys (heavy duplication), consumed by 1
 * or 8 async workers doing get → (one await) → done, beside a naive array + Set queue with the same
 * contract (dirty set, processing set, FIFO by Array#shift) measured in the same run.
 */
import { setImmediate as yieldMacrotask } from "node:timers/promises";
import { performance } from "node:perf_hooks";
import { Queue } from "../../src/workqueue/queue.js";
import type { Benchmark, Figure } from "../harness.js";

type Got = { item: string; shutdown: false } | { item: undefined; shutdown: true };

interface BenchQueue {
  add(item: string): void;
  get(): Promise<Got>;
  done(item: string): void;
  shutDown(): void;
}

/** The queue one writes without thinking about it: same guarantees, plain arrays and Sets. */
class NaiveQueue implements BenchQueue {
  private items: string[] = [];
  private dirty = new Set<string>();
  private processing = new Set<string>();
  private waiters: Array<(g: Got) => void> = [];
  private closed = false;

  add(item: string): void {
    if (this.closed || this.dirty.has(item)) return;
    this.dirty.add(item);
    if (this.processing.has(item)) return;
    this.items.push(item);
    this.wake();
  }

  get(): Promise<Got> {
    if (this.items.length > 0) return Promise.resolve(this.take());
    if (this.closed) return Promise.resolve({ item: undefined, shutdown: true });
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  done(item: string): void {
    this.processing.delete(item);
    if (this.dirty.has(item)) {
      this.items.push(item);
      this.wake();
    }
  }

  shutDown(): void {
    this.closed = true;
    for (const w of this.waiters.splice(0)) w({ item: undefined, shutdown: true });
  }

  private take(): Got {
    const item = this.items.shift()!;
    this.dirty.delete(item);
    this.processing.add(item);
    return { item, shutdown: false };
  }

  private wake(): void {
    if (this.waiters.length > 0 && this.items.length > 0) this.waiters.shift()!(this.take());
  }
}

const ADDS = 100_000;
const KEYS = 10_000;
const CHUNK = 1_000;

/** The add sequence: a fixed pseudo-random draw of 10,000 "ns/name" keys, 100,000 times. */
function addSequence(): string[] {
  const keys = Array.from({ length: KEYS }, (_, i) => `default/object-${i}`);
  let s = 12345;
  const out: string[] = [];
  for (let i = 0; i < ADDS; i++) {
    s = (Math.imul(s, 1103515245) + 12345) >>> 0;
    out.push(keys[s % KEYS]);
  }
  return out;
}

/** One run: a producer adds in chunks (yielding between them), workers drain; returns ms. */
async function runOnce(q: BenchQueue, workers: number, adds: string[]): Promise<{ ms: number; processed: number }> {
  let processed = 0;
  const start = performance.now();
  const ws = Array.from({ length: workers }, async () => {
    for (;;) {
      const r = await q.get();
      if (r.shutdown) return;
      processed++;
      await null; // the handler is async
      q.done(r.item);
    }
  });
  for (let i = 0; i < adds.length; i += CHUNK) {
    const end = Math.min(adds.length, i + CHUNK);
    for (let j = i; j < end; j++) q.add(adds[j]);
    await yieldMacrotask();
  }
  q.shutDown();
  await Promise.all(ws);
  return { ms: performance.now() - start, processed };
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[s.length >> 1];
}

async function measure(workers: number, adds: string[]): Promise<{ ours: number; naive: number }> {
  const ours: number[] = [];
  const naive: number[] = [];
  // Warm-up, then alternate so both see the same machine conditions.
  await runOnce(new Queue<string>(), workers, adds);
  await runOnce(new NaiveQueue(), workers, adds);
  for (let round = 0; round < 9; round++) {
    const a = await runOnce(new Queue<string>() as BenchQueue, workers, adds);
    const b = await runOnce(new NaiveQueue(), workers, adds);
    ours.push((ADDS / a.ms) * 1000);
    naive.push((ADDS / b.ms) * 1000);
  }
  return { ours: median(ours), naive: median(naive) };
}

const bench: Benchmark = {
  name: "workqueue/queue",
  async run() {
    const adds = addSequence();
    const figures: Figure[] = [];
    for (const workers of [1, 8]) {
      const { ours, naive } = await measure(workers, adds);
      figures.push({
        name: `add/get/done, ${ADDS / 1000}k adds of ${KEYS / 1000}k keys, ${workers} worker${workers > 1 ? "s" : ""}`,
        value: ours,
        unit: "adds/s",
        peer: { name: "naive array+Set queue", value: naive },
        higherIsBetter: true,
      });
    }
    return figures;
  },
};
export default bench;
