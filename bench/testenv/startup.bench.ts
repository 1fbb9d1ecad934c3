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
import { figure, type Benchmark, type Figure } from "../harness.js";

const ROUNDS = 10;
const ENVTEST_PUBLISHED_MS = 2000;

interface Sample {
  totalMs: number;
  startMs: number;
  cpuS: number;
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
    // The peer is a published figure (constant per round), not a same-run measurement: see above.
    const envtest = s.map(() => ({ value: ENVTEST_PUBLISHED_MS }));
    const figures: Figure[] = [
      figure({
        name: "startTestEnv to ready, fresh process incl. imports",
        unit: "ms",
        higherIsBetter: false,
        ours: s.map((x) => ({ value: x.totalMs, cpu: { process: x.cpuS } })),
        peer: envtest,
        peerName: "envtest (published 2–5 s, lower bound; not measured here)",
      }),
      figure({
        name: "startTestEnv() call alone",
        unit: "ms",
        higherIsBetter: false,
        ours: s.map((x) => ({ value: x.startMs })),
        peer: envtest,
        peerName: "envtest (published 2–5 s, lower bound; not measured here)",
      }),
    ];
    return figures;
  },
};
export default bench;
