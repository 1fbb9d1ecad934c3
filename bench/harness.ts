/**
 * The benchmark harness. A benchmark module (bench/<area>/<name>.bench.ts) default-exports a
 * `Benchmark` and usually exports the `roles` its processes run (proc.ts); `npm run bench
 * [-- filter]` runs every benchmark whose name or file matches, prints one JSON line per figure
 * and then a readable table.
 *
 * The yardstick:
 * - Every figure is kubeloop beside a peer (a ceiling such as a bare node:http server, a peer
 *   library such as client-node, or a naive implementation) measured in the same run, each side
 *   in its own process and the load generator in another (proc.ts).
 * - The sides alternate in rotated rounds (`rotate`): round 0 warms every side up and is not
 *   counted; then at least five counted rounds, each side first in turn.
 * - Each round gives one ratio (kubeloop / peer, or peer / kubeloop for durations, so > 1 always
 *   means kubeloop is better); a figure reports the median ratio and its min–max, the median
 *   values with their min–max, and the CPU-seconds each side's process used beside wall-clock.
 * - When a sample carries a work count (requests, events, objects), the figure also reports the
 *   ratio of work per CPU-second of the chosen process of each side (for servers: per server
 *   CPU-second), which does not depend on whether the load generator kept up.
 */

/** One measurement of one side in one round. */
export interface Sample {
  /** The figure's value: a rate (higherIsBetter) or a duration/size. */
  value: number;
  /** CPU-seconds per process label during the measurement. */
  cpu?: Record<string, number>;
  /** Units of work done (requests, events, objects), for work-per-CPU-second ratios. */
  work?: number;
  wallMs?: number;
}

export interface Stat {
  median: number;
  min: number;
  max: number;
}

export interface Goal {
  /** What the issue asks, e.g. "≥ 0.85 of the ceiling per server CPU-second". */
  text: string;
  /** The lowest acceptable median ratio. */
  min: number;
  /** Which ratio the goal is about (default "ratio"). */
  on?: "ratio" | "cpuRatio";
}

export interface Figure {
  name: string;
  unit: string;
  higherIsBetter: boolean;
  value: Stat;
  peer: { name: string } & Stat;
  /** Per-round ratio, oriented so that > 1 means kubeloop is better. */
  ratio: Stat;
  rounds: number;
  /** CPU-seconds of each side's measured process per round (median), with the labels used. */
  cpu?: { ours: { label: string; seconds: Stat }; peer: { label: string; seconds: Stat } };
  /** Per-round ratio of work per CPU-second of the measured processes (> 1: kubeloop uses less). */
  cpuRatio?: Stat;
  goal?: Goal;
  /** Free text printed under the table (breakdowns, sizes). */
  note?: string;
}

export interface Benchmark {
  name: string;
  run(): Promise<Figure[]>;
}

/** Counted rounds (BENCH_ROUNDS, default 5, never fewer than 5 unless BENCH_QUICK=1). */
export function roundsFromEnv(defaultRounds = 5): number {
  const n = Number(process.env.BENCH_ROUNDS ?? defaultRounds);
  const quick = process.env.BENCH_QUICK === "1";
  return Math.max(quick ? 1 : 5, Number.isFinite(n) ? Math.floor(n) : defaultRounds);
}

export const progress = (bench: string, msg: string) => process.stderr.write(`[${bench}] ${msg}\n`);

export function median(xs: readonly number[]): number {
  if (xs.length === 0) return Number.NaN;
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 === 1 ? s[m] : (s[m - 1] + s[m]) / 2;
}

export function stat(xs: readonly number[]): Stat {
  return { median: median(xs), min: Math.min(...xs), max: Math.max(...xs) };
}

/**
 * Rotated rounds: round 0 runs every side once as a warm-up (not returned), then `rounds`
 * counted rounds; in round r the sides run in their order rotated by r, so each side goes first
 * equally often. Returns the samples of each side, in round order.
 */
export async function rotate<K extends string>(
  sides: Record<K, (round: number) => Promise<Sample>>,
  opts: { rounds: number; warmup?: boolean; onRound?: (round: number, samples: Partial<Record<K, Sample>>) => void },
): Promise<Record<K, Sample[]>> {
  const names = Object.keys(sides) as K[];
  const out = Object.fromEntries(names.map((n) => [n, [] as Sample[]])) as Record<K, Sample[]>;
  const first = opts.warmup === false ? 1 : 0;
  for (let round = first; round <= opts.rounds; round++) {
    const k = round % names.length;
    const order = [...names.slice(k), ...names.slice(0, k)];
    const got: Partial<Record<K, Sample>> = {};
    for (const n of order) {
      const s = await sides[n](round);
      got[n] = s;
      if (round > 0) out[n].push(s);
    }
    opts.onRound?.(round, got);
  }
  return out;
}

export interface FigureSpec {
  name: string;
  unit: string;
  higherIsBetter: boolean;
  ours: readonly Sample[];
  peer: readonly Sample[];
  peerName: string;
  /** The process whose CPU counts on each side (e.g. the server), for `cpu` and `cpuRatio`. */
  cpuOf?: { ours: string; peer: string };
  goal?: Goal;
  note?: string;
}

/** Builds a figure from paired samples (sample i of each side comes from round i). */
export function figure(spec: FigureSpec): Figure {
  const n = Math.min(spec.ours.length, spec.peer.length);
  if (n === 0) throw new Error(`${spec.name}: no samples`);
  const ratios: number[] = [];
  for (let i = 0; i < n; i++) {
    const a = spec.ours[i].value;
    const b = spec.peer[i].value;
    ratios.push(spec.higherIsBetter ? a / b : b / a);
  }
  const f: Figure = {
    name: spec.name,
    unit: spec.unit,
    higherIsBetter: spec.higherIsBetter,
    value: stat(spec.ours.slice(0, n).map((s) => s.value)),
    peer: { name: spec.peerName, ...stat(spec.peer.slice(0, n).map((s) => s.value)) },
    ratio: stat(ratios),
    rounds: n,
    goal: spec.goal,
    note: spec.note,
  };
  const c = spec.cpuOf;
  if (c) {
    const cpuA = spec.ours.slice(0, n).map((s) => s.cpu?.[c.ours] ?? Number.NaN);
    const cpuB = spec.peer.slice(0, n).map((s) => s.cpu?.[c.peer] ?? Number.NaN);
    f.cpu = { ours: { label: c.ours, seconds: stat(cpuA) }, peer: { label: c.peer, seconds: stat(cpuB) } };
    const effRatios: number[] = [];
    for (let i = 0; i < n; i++) {
      const wa = spec.ours[i].work;
      const wb = spec.peer[i].work;
      if (wa === undefined || wb === undefined) continue;
      effRatios.push(wa / cpuA[i] / (wb / cpuB[i]));
    }
    if (effRatios.length > 0) f.cpuRatio = stat(effRatios);
  }
  return f;
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

/** This process's CPU-seconds (user + system) so far. */
export function cpuSeconds(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
}

// ---- output ----------------------------------------------------------------------------------

export function fmt(n: number): string {
  if (!Number.isFinite(n)) return String(n);
  if (Math.abs(n) >= 1000) return Math.round(n).toLocaleString("en-US");
  if (Math.abs(n) >= 100) return n.toFixed(0);
  return n.toPrecision(3);
}

const range = (s: Stat, f: (n: number) => string = fmt) => `${f(s.median)} [${f(s.min)}–${f(s.max)}]`;
const times = (n: number) => `${n.toFixed(2)}×`;

export function goalMet(f: Figure): boolean | undefined {
  if (!f.goal) return undefined;
  const r = f.goal.on === "cpuRatio" ? f.cpuRatio : f.ratio;
  return r ? r.median >= f.goal.min : undefined;
}

/** The JSON line of a figure. */
export function figureJSON(bench: string, f: Figure): string {
  return JSON.stringify({ bench, ...f, goalMet: goalMet(f) });
}

/** The readable table of every figure. */
export function table(rows: ReadonlyArray<{ bench: string; f: Figure }>): string {
  const header = ["benchmark", "figure", "kubeloop", "peer", "peer value", "ratio", "CPU-s kubeloop / peer", "per CPU-s", "goal"];
  const body = rows.map(({ bench, f }) => {
    const met = goalMet(f);
    const cpu = f.cpu ? `${fmt(f.cpu.ours.seconds.median)} / ${fmt(f.cpu.peer.seconds.median)} (${f.cpu.ours.label} / ${f.cpu.peer.label})` : "";
    return [
      bench,
      f.name,
      `${range(f.value)} ${f.unit}`,
      f.peer.name,
      `${range(f.peer)} ${f.unit}`,
      `${range(f.ratio, times)}`,
      cpu,
      f.cpuRatio ? range(f.cpuRatio, times) : "",
      f.goal ? `${f.goal.text}${met === undefined ? "" : met ? " ✓" : " ✗"}` : "",
    ];
  });
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((r) => r[i].length)));
  const line = (r: string[]) => r.map((c, i) => c.padEnd(widths[i])).join("  ").trimEnd();
  const out = [line(header), widths.map((w) => "-".repeat(w)).join("  ")];
  for (const r of body) out.push(line(r));
  const notes = rows.filter(({ f }) => f.note);
  if (notes.length) {
    out.push("");
    for (const { bench, f } of notes) out.push(`${bench} / ${f.name}: ${f.note}`);
  }
  return out.join("\n");
}
