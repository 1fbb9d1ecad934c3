/**
 * The benchmark harness. A benchmark module (bench/<area>/<name>.bench.ts) default-exports a
 * `Benchmark`; `npm run bench` finds them all, runs them one after the other, prints one JSON
 * line per figure and then a readable table. Every figure stands beside a peer measured in the
 * same run, so the ratio means something on any machine.
 */
import { performance } from "node:perf_hooks";

export interface Figure {
  /** What was measured, e.g. "selector match (5 requirements)". */
  name: string;
  value: number;
  unit: string;
  /** The peer measured in the same run: a naive baseline, a Node primitive, or client-node. */
  peer: { name: string; value: number };
  /** true when a larger value is better (throughput), false for durations and sizes. */
  higherIsBetter: boolean;
  /** Optional goal, e.g. "≥ 2× client-node". */
  goal?: string;
}

export interface Benchmark {
  name: string;
  run(): Promise<Figure[]>;
}

/** Ops per second of `fn` run in a loop for about `ms` milliseconds, after a warm-up. */
export function opsPerSecond(fn: () => void, ms = 400): number {
  const warm = performance.now() + Math.min(100, ms / 4);
  while (performance.now() < warm) fn();
  let n = 0;
  let batch = 1;
  const start = performance.now();
  let elapsed = 0;
  while (elapsed < ms) {
    for (let i = 0; i < batch; i++) fn();
    n += batch;
    elapsed = performance.now() - start;
    if (batch < 1 << 16) batch *= 2;
  }
  return (n / elapsed) * 1000;
}

/** Ops per second of an async function, awaited sequentially. */
export async function asyncOpsPerSecond(fn: () => Promise<void>, ms = 400): Promise<number> {
  const warm = performance.now() + Math.min(100, ms / 4);
  while (performance.now() < warm) await fn();
  let n = 0;
  const start = performance.now();
  let elapsed = 0;
  while (elapsed < ms) {
    await fn();
    n++;
    elapsed = performance.now() - start;
  }
  return (n / elapsed) * 1000;
}

/** Milliseconds one async run takes. */
export async function timeMs(fn: () => Promise<void> | void): Promise<number> {
  const start = performance.now();
  await fn();
  return performance.now() - start;
}

export function ratio(f: Figure): number {
  if (f.peer.value === 0) return Number.NaN;
  return f.higherIsBetter ? f.value / f.peer.value : f.peer.value / f.value;
}
