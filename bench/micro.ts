/**
 * Micro-benchmarks on the per-process harness: each kernel (a function called in a loop) runs in
 * a process of its own (role "kernel" of the bench module, built with `kernelRole`), so that the
 * JIT state and heap of one implementation never affect another's; the kernels of a figure
 * alternate in rotated rounds (round 0 warms up), and each sample is the kernel's ops per
 * second over about 400 ms with the CPU-seconds its process used.
 */
import { cpuSeconds, figure, opsPerSecond, progress, rotate, type Figure, type Goal, type Sample } from "./harness.js";
import { Proc, stopAll } from "./proc.js";

/** Builds the `kernel` role of a bench module from its kernels (name → setup returning the loop body). */
export function kernelRole(kernels: Record<string, () => () => void>) {
  return (p: { name: string }) => {
    const setup = kernels[p.name];
    if (!setup) throw new Error(`no kernel ${p.name}`);
    const body = setup();
    return {
      run: (ms: number): Sample => {
        const cpu0 = cpuSeconds();
        const t0 = performance.now();
        const ops = opsPerSecond(body, ms);
        return { value: ops, wallMs: performance.now() - t0, cpu: { [p.name]: cpuSeconds() - cpu0 } };
      },
    };
  };
}

export interface MicroFigure {
  name: string;
  unit: string;
  ours: string;
  peer: string;
  peerName: string;
  goal?: Goal;
}

/** Runs every kernel the figures name in its own process, rotated, and builds the figures. */
export async function microFigures(moduleUrl: string, bench: string, rounds: number, figs: readonly MicroFigure[], ms = 400): Promise<Figure[]> {
  const names = [...new Set(figs.flatMap((f) => [f.ours, f.peer]))];
  const procs = new Map<string, Proc>();
  try {
    for (const n of names) procs.set(n, await Proc.start(moduleUrl, "kernel", { name: n }, { label: n }));
    const sides = Object.fromEntries(names.map((n) => [n, () => procs.get(n)!.call<Sample>("run", ms)]));
    const s = await rotate(sides, { rounds, onRound: (r) => progress(bench, `round ${r}${r === 0 ? " (warm-up)" : ""} done`) });
    return figs.map((f) =>
      figure({ name: f.name, unit: f.unit, higherIsBetter: true, ours: s[f.ours], peer: s[f.peer], peerName: f.peerName, cpuOf: { ours: f.ours, peer: f.peer }, goal: f.goal }),
    );
  } finally {
    await stopAll(...procs.values());
  }
}
