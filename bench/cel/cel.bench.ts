/**
 * bench/cel: the measurements behind the choice of CEL implementation (docs/cel.md). For each
 * candidate — @marcbachmann/cel-js, @bufbuild/cel, cel-js — beside kubeloop's own:
 *
 * - conformance: cel-spec cases passed (the committed non-protobuf subset),
 * - compile: rules parsed and checked per second,
 * - eval: rule evaluations per second against a Gateway-like `self`.
 *
 * Every measurement runs in its own process (bench/cel/worker.js); rounds rotate the order of
 * the implementations; each figure is the median of the rounds with min–max and CPU seconds
 * in the peer's name.
 */
import { execFileSync } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Benchmark, Figure } from "../harness.js";

const ROUNDS = 3;
const here = dirname(fileURLToPath(import.meta.url));
const progress = (m: string) => process.stderr.write(`[cel] ${m}\n`);

interface Sample {
  value?: number;
  cpuSeconds?: number;
  error?: string;
}

function measure(name: string, what: string): Sample {
  const out = execFileSync(process.execPath, [join(here, "worker.js"), name, what], { encoding: "utf8", maxBuffer: 1 << 24 });
  return JSON.parse(out.trim().split("\n").pop()!) as Sample;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const bench: Benchmark = {
  name: "cel",
  async run(): Promise<Figure[]> {
    const names = ["kubeloop", "@marcbachmann/cel-js", "@bufbuild/cel", "cel-js"];
    const figures: Figure[] = [];
    for (const what of ["conformance", "compile", "eval"]) {
      const samples = new Map<string, Sample[]>(names.map((n) => [n, []]));
      const rounds = what === "conformance" ? 1 : ROUNDS;
      for (let r = 0; r < rounds; r++) {
        const order = names.map((_, i) => names[(i + r) % names.length]);
        for (const n of order) samples.get(n)!.push(measure(n, what));
      }
      progress(`${what} done`);
      const summary = (n: string) => {
        const s = samples.get(n)!;
        const err = s.find((x) => x.error)?.error;
        const vals = s.filter((x) => x.value !== undefined).map((x) => x.value!);
        const cpu = s.map((x) => x.cpuSeconds ?? 0);
        return { err, value: vals.length ? median(vals) : 0, min: Math.min(...vals), max: Math.max(...vals), cpu: median(cpu) };
      };
      const ours = summary("kubeloop");
      for (const peer of names.slice(1)) {
        const p = summary(peer);
        const range = (x: { min: number; max: number }) => (rounds > 1 && Number.isFinite(x.min) ? `, min–max ${Math.round(x.min)}–${Math.round(x.max)}` : "");
        figures.push({
          name: what === "conformance" ? "cel-spec conformance (cases passed)" : what === "compile" ? "compile rules" : "evaluate rules",
          value: ours.value,
          unit: what === "conformance" ? "cases" : "rules/s",
          peer: {
            name: `${peer}${p.err ? ` (failed: ${p.err.slice(0, 120)})` : ""} [kubeloop cpu ${ours.cpu.toFixed(2)}s${range(ours)}; peer cpu ${p.cpu.toFixed(2)}s${range(p)}]`,
            value: p.value,
          },
          higherIsBetter: true,
        });
      }
    }
    return figures;
  },
};

export default bench;
