/**
 * bench/testenv: startup time of startTestEnv() (kubeloop/testing) with one CRD installed and
 * Established, no built-in controllers (envtest's shape), a started manager, in a fresh process
 * each round (10 rounds; median and min–max, CPU-seconds beside). Peer: envtest's published
 * startup of 2–5 s (etcd + kube-apiserver binaries) — its lower bound, 2 000 ms; envtest cannot
 * run on this machine (no Go toolchain or control-plane binaries), so the peer is the published
 * figure, not one measured in the same run.
 */
import { execFileSync } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Benchmark, Figure } from "../harness.js";

const ROUNDS = 10;
const ENVTEST_PUBLISHED_MS = 2000;

interface Sample {
  totalMs: number;
  startMs: number;
  cpuS: number;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

export function sampleStartups(rounds = ROUNDS): Sample[] {
  const child = join(dirname(fileURLToPath(import.meta.url)), "child.js");
  const out: Sample[] = [];
  for (let i = 0; i < rounds; i++) {
    const text = execFileSync(process.execPath, [child], { encoding: "utf8", timeout: 120_000 });
    out.push(JSON.parse(text.trim().split("\n").pop() ?? "{}") as Sample);
  }
  return out;
}

const bench: Benchmark = {
  name: "testenv",
  async run(): Promise<Figure[]> {
    const s = sampleStartups();
    const range = (k: keyof Sample) => `${Math.min(...s.map((x) => x[k])).toFixed(0)}–${Math.max(...s.map((x) => x[k])).toFixed(0)}`;
    const figures: Figure[] = [
      {
        name: `startTestEnv to ready, fresh process incl. imports (median of ${ROUNDS}, range ${range("totalMs")} ms, CPU ${median(s.map((x) => x.cpuS)).toFixed(2)} s)`,
        value: median(s.map((x) => x.totalMs)),
        unit: "ms",
        peer: { name: "envtest (published 2–5 s, lower bound)", value: ENVTEST_PUBLISHED_MS },
        higherIsBetter: false,
      },
      {
        name: `startTestEnv() call alone (median of ${ROUNDS}, range ${range("startMs")} ms)`,
        value: median(s.map((x) => x.startMs)),
        unit: "ms",
        peer: { name: "envtest (published 2–5 s, lower bound)", value: ENVTEST_PUBLISHED_MS },
        higherIsBetter: false,
      },
    ];
    return figures;
  },
};
export default bench;
