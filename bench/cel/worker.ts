/**
 * One CEL implementation measured alone in this process (spawned by cel.bench.ts): the
 * conformance score, compile throughput of the rule set, and evaluation throughput of each rule
 * against a custom resource's `self`, with the process's CPU seconds. Prints one JSON line.
 *
 *   node dist-bench/bench/cel/worker.js <candidate> <conformance|compile|eval>
 */
import { performance } from "node:perf_hooks";
import { loadConformance, runConformance } from "../../test/cel/conformance.js";
import { opsPerSecond } from "../harness.js";

/** Ops per second after a warm-up long enough for the JIT (the harness default is 100 ms). */
function measured(fn: () => void): number {
  const end = performance.now() + 1500;
  while (performance.now() < end) fn();
  return opsPerSecond(fn, 2000);
}
import { candidates } from "./candidates.js";

/** Rules in the style of real CRDs (Gateway API, Karpenter), on a Gateway-like object. */
export const rules = [
  "self.replicas <= self.maxReplicas",
  "self.listeners.all(l1, self.listeners.exists_one(l2, l1.name == l2.name))",
  "self.listeners.all(l, l.protocol in ['HTTP', 'TCP', 'UDP'] ? !has(l.tls) : true)",
  "self.name.startsWith('gw-') && self.name.size() < 64",
  "self.hostname.matches('^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$')",
  "self.listeners.filter(l, l.port > 1024).size() >= 1",
  "self.labels.all(k, k != 'kubernetes.io/hostname')",
  "has(self.tls) ? self.tls.mode == 'Terminate' : true",
];

export const self = {
  name: "gw-example",
  replicas: 3,
  maxReplicas: 5,
  hostname: "api.example.com",
  labels: { app: "web", tier: "frontend", "example.com/owner": "team-a" },
  tls: { mode: "Terminate" },
  listeners: Array.from({ length: 8 }, (_, i) => ({ name: `l${i}`, protocol: i % 2 ? "HTTPS" : "HTTP", port: 80 + i * 1000, hostname: `h${i}.example.com` })),
};

function main(): void {
  const [name, what] = process.argv.slice(2);
  const c = candidates.find((x) => x.name === name);
  if (!c) throw new Error(`unknown candidate ${name}`);
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  let value: number;
  let detail: unknown;
  if (what === "conformance") {
    const cases = loadConformance().filter((x) => !x.needsProto && x.expect.kind !== "other");
    const r = runConformance(c.conformance, cases);
    value = r.passed;
    detail = { total: r.total };
  } else if (what === "compile") {
    value = measured(() => void c.rules.compile(rules)) * rules.length;
  } else {
    let compiled: unknown[];
    try {
      compiled = c.rules.compile(rules);
    } catch (e) {
      console.log(JSON.stringify({ name, what, error: (e as Error).message }));
      return;
    }
    const input = c.rules.prepare(self);
    const results = compiled.map((p) => {
      try {
        return c.rules.eval(p, input);
      } catch (e) {
        return `error: ${(e as Error).message}`;
      }
    });
    const failing = results.filter((r) => r !== true);
    if (failing.length) {
      console.log(JSON.stringify({ name, what, error: `rules did not all evaluate to true: ${JSON.stringify(failing.map(String))}` }));
      return;
    }
    value =
      measured(() => {
        for (const p of compiled) c.rules.eval(p, input);
      }) * rules.length;
  }
  const cpu = process.cpuUsage(cpu0);
  console.log(JSON.stringify({ name, what, value, wallSeconds: (performance.now() - t0) / 1000, cpuSeconds: (cpu.user + cpu.system) / 1e6, detail }));
}

if (process.argv[1]?.endsWith("worker.js")) main();
