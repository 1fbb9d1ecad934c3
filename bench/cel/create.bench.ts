/**
 * bench/cel create: CREATE throughput of a custom resource with a realistic CEL-heavy schema —
 * Gateway API's Gateway (v1.6.1, standard channel: 16 rules on the stored version) — against
 * the same schema with every x-kubernetes-validations rule removed, in the same run. The API
 * server runs in its own process (bench/cel/server.js); the load generator here; the two CRDs
 * are measured in alternating rounds; the server's CPU seconds are reported per side.
 *
 * What the harness lacks: it has no process isolation or CPU accounting of its own, so this
 * benchmark forks the server and asks it for its CPU time over IPC.
 */
import { fork, type ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { Agent, request } from "undici";
import { parse } from "yaml";
import type { Benchmark, Figure } from "../harness.js";

const CONCURRENCY = 16;
const DURATION_MS = 3000;
const WARMUP_MS = 1500;
const ROUNDS = 3;

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, "..", "..", "..");
const progress = (m: string) => process.stderr.write(`[cel/create] ${m}\n`);
const agent = new Agent({ connections: CONCURRENCY * 2, pipelining: 1, keepAliveTimeout: 10_000 });

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

function stripRules(s: unknown): unknown {
  if (Array.isArray(s)) return s.map(stripRules);
  if (s && typeof s === "object") {
    const out: Obj = {};
    for (const [k, v] of Object.entries(s)) if (k !== "x-kubernetes-validations") out[k] = stripRules(v);
    return out;
  }
  return s;
}

async function call(url: string, method: string, body?: unknown): Promise<{ status: number; text: string }> {
  const res = await request(url, { method: method as "POST", dispatcher: agent, body: body === undefined ? undefined : JSON.stringify(body), headers: { "content-type": "application/json" } });
  return { status: res.statusCode, text: await res.body.text() };
}

async function throughput(next: (w: number, i: number) => Promise<void>): Promise<number> {
  const counters = new Array<number>(CONCURRENCY).fill(0);
  const run = async (ms: number) => {
    let count = 0;
    const deadline = performance.now() + ms;
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async (_, w) => {
        while (performance.now() < deadline) {
          await next(w, counters[w]++);
          count++;
        }
      }),
    );
    return count;
  };
  await run(WARMUP_MS);
  const start = performance.now();
  const n = await run(DURATION_MS);
  return (n / (performance.now() - start)) * 1000;
}

function ask<T>(child: ChildProcess, msg: string, key: string): Promise<T> {
  return new Promise((resolve) => {
    const on = (m: unknown) => {
      if (m && typeof m === "object" && key in m) {
        child.off("message", on);
        resolve((m as Record<string, T>)[key]);
      }
    };
    child.on("message", on);
    if (msg) child.send(msg);
  });
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const bench: Benchmark = {
  name: "cel/create",
  async run(): Promise<Figure[]> {
    const server = fork(join(here, "server.js"), [], { stdio: ["ignore", "ignore", "inherit", "ipc"] });
    const url = await ask<string>(server, "", "url");
    try {
      const crd = parse(readFileSync(join(root, "test/cel/crds/gateway-api/gateways.yaml"), "utf8")) as Obj;
      const plain = structuredClone(crd);
      plain.metadata.name = "gateways.plain.example.com";
      plain.spec.group = "plain.example.com";
      plain.spec.versions = plain.spec.versions.map((v: Obj) => ({ ...v, schema: stripRules(v.schema) }));
      for (const c of [crd, plain]) {
        const r = await call(`${url}/apis/apiextensions.k8s.io/v1/customresourcedefinitions`, "POST", c);
        if (r.status !== 201) throw new Error(`CRD ${c.metadata.name}: ${r.status} ${r.text}`);
      }
      // Wait until both are served.
      for (const g of ["gateway.networking.k8s.io", "plain.example.com"]) {
        for (let i = 0; i < 200; i++) {
          const r = await call(`${url}/apis/${g}/v1/namespaces/default/gateways`, "GET");
          if (r.status === 200) break;
          await new Promise((res) => setTimeout(res, 50));
        }
      }
      const gateway = (group: string, name: string): Obj => ({
        apiVersion: `${group}/v1`,
        kind: "Gateway",
        metadata: { name },
        spec: {
          gatewayClassName: "example",
          addresses: [{ type: "IPAddress", value: "10.0.0.1" }],
          listeners: Array.from({ length: 6 }, (_, i) => ({
            name: `l${i}`,
            hostname: `h${i}.example.com`,
            protocol: i % 2 ? "HTTPS" : "HTTP",
            port: 80 + i,
            ...(i % 2 ? { tls: { mode: "Terminate", certificateRefs: [{ name: "cert" }] } } : {}),
            allowedRoutes: { namespaces: { from: "Same" } },
          })),
        },
      });
      const sides = [
        { name: "with CEL rules", group: "gateway.networking.k8s.io", results: [] as number[], cpu: [] as number[] },
        { name: "no rules", group: "plain.example.com", results: [] as number[], cpu: [] as number[] },
      ];
      let seq = 0;
      for (let r = 0; r < ROUNDS; r++) {
        const order = r % 2 === 0 ? sides : [...sides].reverse();
        for (const s of order) {
          const round = seq++;
          const cpu0 = await ask<number>(server, "cpu", "cpuSeconds");
          const rate = await throughput(async (w, i) => {
            const res = await call(`${url}/apis/${s.group}/v1/namespaces/default/gateways`, "POST", gateway(s.group, `gw-${round}-${w}-${i}`));
            if (res.status !== 201) throw new Error(`create failed: ${res.status} ${res.text.slice(0, 300)}`);
          });
          const cpu1 = await ask<number>(server, "cpu", "cpuSeconds");
          s.results.push(rate);
          s.cpu.push(cpu1 - cpu0);
          progress(`${s.name}: ${rate.toFixed(0)} req/s`);
        }
      }
      const [withRules, noRules] = sides;
      const range = (xs: number[]) => `${Math.round(Math.min(...xs))}–${Math.round(Math.max(...xs))}`;
      return [
        {
          name: `CREATE Gateway (16 CEL rules; median of ${ROUNDS}, min–max ${range(withRules.results)}, server cpu ${median(withRules.cpu).toFixed(1)}s per round)`,
          value: median(withRules.results),
          unit: "req/s",
          peer: { name: `same schema without rules (min–max ${range(noRules.results)}, server cpu ${median(noRules.cpu).toFixed(1)}s per round)`, value: median(noRules.results) },
          higherIsBetter: true,
          goal: "≥ 80% of the rule-free schema",
        },
      ];
    } finally {
      server.send("stop");
      await new Promise((r) => server.once("exit", r));
    }
  },
};

export default bench;
