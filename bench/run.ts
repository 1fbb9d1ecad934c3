/**
 * `npm run bench [filter]`: runs every bench/<area>/*.bench.ts (compiled to dist-bench), prints a
 * JSON line per figure and a table. Ratio > 1 means kubeloop beats its peer.
 */
import { readdirSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { Benchmark, Figure } from "./harness.js";
import { ratio } from "./harness.js";

const here = dirname(fileURLToPath(import.meta.url));

function findBenchFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir)) {
    const p = join(dir, entry);
    if (statSync(p).isDirectory()) out.push(...findBenchFiles(p));
    else if (entry.endsWith(".bench.js")) out.push(p);
  }
  return out.sort();
}

function fmt(n: number): string {
  if (!Number.isFinite(n)) return String(n);
  if (Math.abs(n) >= 1000) return Math.round(n).toLocaleString("en-US");
  return n.toPrecision(3);
}

async function main(): Promise<void> {
  const filter = process.argv[2] ?? "";
  const rows: Array<{ bench: string; f: Figure }> = [];
  for (const file of findBenchFiles(here)) {
    const mod = (await import(pathToFileURL(file).href)) as { default: Benchmark };
    const b = mod.default;
    if (filter && !b.name.includes(filter) && !file.includes(filter)) continue;
    for (const f of await b.run()) {
      rows.push({ bench: b.name, f });
      console.log(JSON.stringify({ bench: b.name, ...f, ratio: Number(ratio(f).toFixed(3)) }));
    }
  }
  console.log("");
  const header = ["benchmark", "figure", "kubeloop", "peer", "peer value", "ratio", "goal"];
  const table = rows.map(({ bench, f }) => [
    bench,
    f.name,
    `${fmt(f.value)} ${f.unit}`,
    f.peer.name,
    `${fmt(f.peer.value)} ${f.unit}`,
    `${ratio(f).toFixed(2)}×`,
    f.goal ?? "",
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...table.map((r) => r[i].length)));
  const line = (r: string[]) => r.map((c, i) => c.padEnd(widths[i])).join("  ");
  console.log(line(header));
  console.log(widths.map((w) => "-".repeat(w)).join("  "));
  for (const r of table) console.log(line(r));
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
