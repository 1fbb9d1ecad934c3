/**
 * bench/workqueue: 100,000 adds over 10,000 distinct keys (heavy duplication), consumed by 1 or 8
 * async workers doing get → (one await) → done. Each queue runs in its own process (role
 * "queue"): kubeloop's Queue, kubeloop's RateLimitingQueue (what controllers use) with its
 * Prometheus metrics on (client-go's workqueue metrics, a named queue in a prom-client
 * registry), and a naive array + Set queue with the same contract (dirty set, processing set,
 * FIFO by Array#shift). Rotated rounds; each sample is one run in the queue's process, with that
 * process's CPU-seconds.
 */
import { setImmediate as yieldMacrotask } from "node:timers/promises";
import { Registry } from "prom-client";
import { Queue } from "../../src/workqueue/queue.js";
import { RateLimitingQueue } from "../../src/workqueue/ratelimiting.js";
import { defaultControllerRateLimiter } from "../../src/workqueue/ratelimiters.js";
import { PrometheusMetricsProvider } from "../../src/workqueue/metrics.js";
import { cpuSeconds, figure, progress, rotate, roundsFromEnv, type Benchmark, type Figure, type Sample } from "../harness.js";
import { Proc, stopAll } from "../proc.js";

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
/** Runs per sample (their total time is the sample). */
const RUNS = 5;

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
async function runOnce(q: BenchQueue, workers: number, adds: string[]): Promise<number> {
  const start = performance.now();
  const ws = Array.from({ length: workers }, async () => {
    for (;;) {
      const r = await q.get();
      if (r.shutdown) return;
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
  return performance.now() - start;
}

type Kind = "naive" | "queue" | "ratelimiting+metrics";

function makeQueue(kind: Kind, n: number): BenchQueue {
  switch (kind) {
    case "naive":
      return new NaiveQueue();
    case "queue":
      return new Queue<string>() as BenchQueue;
    case "ratelimiting+metrics":
      // A named queue with client-go's metrics in a registry, as every controller's queue is.
      return new RateLimitingQueue<string>(defaultControllerRateLimiter<string>(), {
        name: `bench-${n}`,
        metricsProvider: new PrometheusMetricsProvider(registry),
      }) as BenchQueue;
  }
}

const registry = new Registry();

export const roles = {
  queue: (p: { kind: Kind }) => {
    const adds = addSequence();
    let n = 0;
    return {
      /** RUNS runs with fresh queues; adds per second over their total time, and CPU-seconds. */
      run: async (workers: number): Promise<Sample> => {
        const cpu0 = cpuSeconds();
        let ms = 0;
        for (let i = 0; i < RUNS; i++) ms += await runOnce(makeQueue(p.kind, n++), workers, adds);
        return { value: ((ADDS * RUNS) / ms) * 1000, work: ADDS * RUNS, wallMs: ms, cpu: { [p.kind]: cpuSeconds() - cpu0 } };
      },
    };
  },
};

const bench: Benchmark = {
  name: "workqueue",
  async run(): Promise<Figure[]> {
    const rounds = roundsFromEnv();
    const here = import.meta.url;
    const procs = {
      naive: await Proc.start(here, "queue", { kind: "naive" }, { label: "naive" }),
      queue: await Proc.start(here, "queue", { kind: "queue" }, { label: "queue" }),
      metrics: await Proc.start(here, "queue", { kind: "ratelimiting+metrics" }, { label: "ratelimiting+metrics" }),
    };
    try {
      const figures: Figure[] = [];
      for (const workers of [1, 8]) {
        const s = await rotate(
          {
            naive: () => procs.naive.call<Sample>("run", workers),
            queue: () => procs.queue.call<Sample>("run", workers),
            metrics: () => procs.metrics.call<Sample>("run", workers),
          },
          { rounds, onRound: (r) => progress("workqueue", `${workers} worker(s): round ${r}${r === 0 ? " (warm-up)" : ""} done`) },
        );
        const label = `${ADDS / 1000}k adds of ${KEYS / 1000}k keys, ${workers} worker${workers > 1 ? "s" : ""}`;
        figures.push(
          figure({
            name: `Queue add/get/done, ${label}`,
            unit: "adds/s",
            higherIsBetter: true,
            ours: s.queue,
            peer: s.naive,
            peerName: "naive array+Set queue",
            cpuOf: { ours: "queue", peer: "naive" },
          }),
          figure({
            name: `RateLimitingQueue with Prometheus metrics, ${label}`,
            unit: "adds/s",
            higherIsBetter: true,
            ours: s.metrics,
            peer: s.naive,
            peerName: "naive array+Set queue",
            cpuOf: { ours: "ratelimiting+metrics", peer: "naive" },
            goal: { text: "≥ 0.8 of the naive queue", min: 0.8 },
          }),
        );
      }
      return figures;
    } finally {
      await stopAll(...Object.values(procs));
    }
  },
};

export default bench;
