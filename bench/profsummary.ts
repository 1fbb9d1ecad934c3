/**
 * `node dist-bench/bench/profsummary.js <file.cpuprofile> [top] [filter]`: the hottest functions of
 * a V8 CPU profile (written by BENCH_PROF, see proc.ts) by self time, with their share of the
 * profile's samples, and (with `--total`) by total time including callees. Optional filter: only
 * frames whose url contains it (e.g. `src/`).
 */
import { readFileSync } from "node:fs";

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
  children?: number[];
}
interface Profile {
  nodes: Node[];
  samples: number[];
  timeDeltas: number[];
}

function main(): void {
  const args = process.argv.slice(2);
  const total = args.includes("--total");
  const [file, topArg, filter] = args.filter((a) => a !== "--total");
  const top = Number(topArg ?? 30);
  const p = JSON.parse(readFileSync(file, "utf8")) as Profile;
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const self = new Map<number, number>();
  for (let i = 0; i < p.samples.length; i++) self.set(p.samples[i], (self.get(p.samples[i]) ?? 0) + (p.timeDeltas[i] ?? 0));
  const parent = new Map<number, number>();
  for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const name = (n: Node) => {
    const url = n.callFrame.url.replace(/^file:\/\//, "").replace(/.*\/(dist-bench|node_modules)\//, "$1/");
    return `${n.callFrame.functionName || "(anonymous)"} ${url}:${n.callFrame.lineNumber + 1}`;
  };
  const agg = new Map<string, number>();
  let all = 0;
  for (const [id, t] of self) {
    all += t;
    if (total) {
      // Charge every distinct frame on the stack once.
      const seen = new Set<string>();
      for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
        const key = name(byId.get(cur)!);
        if (seen.has(key)) continue;
        seen.add(key);
        agg.set(key, (agg.get(key) ?? 0) + t);
      }
    } else {
      const key = name(byId.get(id)!);
      agg.set(key, (agg.get(key) ?? 0) + t);
    }
  }
  const rows = [...agg].filter(([k]) => !filter || k.includes(filter)).sort((a, b) => b[1] - a[1]).slice(0, top);
  console.log(`${file}: ${(all / 1000).toFixed(0)} ms sampled (${total ? "total" : "self"} time)`);
  for (const [k, t] of rows) console.log(`${((100 * t) / all).toFixed(1).padStart(5)}%  ${(t / 1000).toFixed(0).padStart(6)} ms  ${k}`);
}

main();
