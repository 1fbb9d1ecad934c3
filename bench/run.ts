/**
 * `npm run bench [-- filter ...]`: runs every bench/<area>/*.bench.ts (compiled to dist-bench)
 * whose name or path contains one of the filters, prints a JSON line per figure as it is
 * measured, then the table. Ratio > 1 means kubeloop beats its peer. See harness.ts for the
 * yardstick and proc.ts for the processes (and BENCH_PROF for CPU profiles).
 */
import { readdirSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { Benchmark, Figure } from "./harness.js";
import { figureJSON, table } from "./harness.js";

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

async function main(): Promise<void> {
  const filters = process.argv.slice(2).filter((a) => a !== "--");
  const rows: Array<{ bench: string; f: Figure }> = [];
  const failures: string[] = [];
  for (const file of findBenchFiles(here)) {
    const rel = file.slice(here.length + 1);
    const mod = (await import(pathToFileURL(file).href)) as { default: Benchmark };
    const b = mod.default;
    if (filters.length && !filters.some((f) => b.name.includes(f) || rel.includes(f))) continue;
    process.stderr.write(`[bench] ${b.name} (${rel})\n`);
    try {
      for (const f of await b.run()) {
        rows.push({ bench: b.name, f });
        console.log(figureJSON(b.name, f));
      }
    } catch (err) {
      failures.push(b.name);
      console.error(`[bench] ${b.name} failed:`, err);
    }
  }
  console.log("");
  console.log(table(rows));
  if (failures.length) {
    console.error(`\n[bench] failed: ${failures.join(", ")}`);
    process.exitCode = 1;
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
