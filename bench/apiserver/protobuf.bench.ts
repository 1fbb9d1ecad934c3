/**
 * bench/apiserver/protobuf: LIST of 500 pods answered as protobuf
 * (`Accept: application/vnd.kubernetes.protobuf,application/json`, what client-go's typed
 * clients send) beside the same LIST answered as JSON, same server, same run.
 *
 * The API server runs in its own process (this file, forked with PROTOBUF_BENCH_ROLE=server);
 * the load generator (undici, 16 concurrent requests, bodies read but not decoded) in this one.
 * Round 0 warms both paths up and is not counted; then ROUNDS rounds alternate which format goes
 * first. Reported: the median request rate with min–max, and the server's CPU-seconds per 1,000
 * requests (process.cpuUsage of the server process around each measurement) beside wall-clock.
 *
 * Each format's bytes are built once per stored object and cached (server/serialize.ts), so after
 * the first request the figure is mostly assembling a list from cached item bytes: what a busy
 * informer-heavy cluster sees. A second pair of figures measures the path after writes: every pod
 * is patched (over HTTP, with JSON answers) before each LIST, so the protobuf LIST encodes 500
 * fresh objects while the JSON LIST finds the bytes its write responses already cached — the
 * asymmetry real JSON-writing clients produce.
 */
import { fork, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import { performance } from "node:perf_hooks";
import { Agent, request } from "undici";
import type { Benchmark, Figure } from "../harness.js";

const ROLE = process.env.PROTOBUF_BENCH_ROLE;
const PODS = 500;
const CONCURRENCY = 16;
const DURATION_MS = 1500;
const ROUNDS = 4;
const PB_FIRST = "application/vnd.kubernetes.protobuf,application/json";

const progress = (m: string) => process.stderr.write(`[apiserver/protobuf] ${m}\n`);

type ToServer = { kind: "cpu"; id: number } | { kind: "touch"; id: number } | { kind: "stop" };
type FromServer = { kind: "ready"; url: string } | { kind: "cpu"; id: number; micros: number } | { kind: "touched"; id: number };

function benchPod(i: number): object {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: {
      name: `pod-${i}`,
      labels: { app: "bench", tier: i % 2 ? "web" : "worker", "pod-template-hash": "5d8f7c9b4" },
      annotations: { "kubectl.kubernetes.io/restartedAt": "2026-01-01T00:00:00Z" },
    },
    spec: {
      containers: [
        {
          name: "app",
          image: "registry.example.com/team/app:1.2.3",
          ports: [{ containerPort: 8080, name: "http" }],
          env: Array.from({ length: 10 }, (_, k) => ({ name: `VAR_${k}`, value: `value-${k}-${i}` })),
          resources: { requests: { cpu: "100m", memory: "128Mi" }, limits: { cpu: "500m", memory: "256Mi" } },
          readinessProbe: { httpGet: { path: "/healthz", port: 8080 }, periodSeconds: 5 },
        },
      ],
    },
  };
}

// ---- the server process ------------------------------------------------------------------------

async function serve(): Promise<void> {
  const { startApiServer } = await import("../../src/apiserver/index.js");
  const api = await startApiServer({ port: 0, insecureHttp: true, server: { maxInFlight: 10_000 } });
  const base = `${api.url}/api/v1/namespaces/default/pods`;
  for (let i = 0; i < PODS; i++) {
    const r = await fetch(base, { method: "POST", body: JSON.stringify(benchPod(i)), headers: { "content-type": "application/json" } });
    if (r.status !== 201) throw new Error(`create pod-${i}: ${r.status} ${await r.text()}`);
  }
  let touches = 0;
  process.on("message", (m: ToServer) => {
    if (m.kind === "stop") {
      void api.stop().then(() => process.exit(0));
    } else if (m.kind === "cpu") {
      const u = process.cpuUsage();
      process.send!({ kind: "cpu", id: m.id, micros: u.user + u.system } satisfies FromServer);
    } else {
      // A label change on every pod: the next LIST encodes every object afresh.
      void (async () => {
        touches++;
        await Promise.all(
          Array.from({ length: PODS }, (_, i) =>
            fetch(`${base}/pod-${i}`, {
              method: "PATCH",
              body: JSON.stringify({ metadata: { labels: { touch: String(touches) } } }),
              headers: { "content-type": "application/merge-patch+json" },
            }).then((r) => r.arrayBuffer()),
          ),
        );
        process.send!({ kind: "touched", id: m.id } satisfies FromServer);
      })();
    }
  });
  process.send!({ kind: "ready", url: api.url } satisfies FromServer);
}

if (ROLE === "server") {
  serve().catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  });
}

// ---- the load generator ------------------------------------------------------------------------

class ServerProcess {
  private nextId = 0;
  private readonly waiting = new Map<number, (m: FromServer) => void>();
  readonly ready: Promise<string>;
  private readonly child: ChildProcess;

  constructor() {
    this.child = fork(fileURLToPath(import.meta.url), [], { env: { ...process.env, PROTOBUF_BENCH_ROLE: "server" }, stdio: ["ignore", "ignore", "inherit", "ipc"] });
    this.ready = new Promise((resolve, reject) => {
      this.child.once("exit", (code) => reject(new Error(`bench server exited with ${code}`)));
      this.child.on("message", (m: FromServer) => {
        if (m.kind === "ready") resolve(m.url);
        else this.waiting.get(m.id)?.(m);
      });
    });
  }

  private ask(kind: "cpu" | "touch"): Promise<FromServer> {
    const id = this.nextId++;
    return new Promise((resolve) => {
      this.waiting.set(id, (m) => {
        this.waiting.delete(id);
        resolve(m);
      });
      this.child.send({ kind, id } satisfies ToServer);
    });
  }

  async cpuMicros(): Promise<number> {
    const m = await this.ask("cpu");
    return m.kind === "cpu" ? m.micros : 0;
  }

  async touch(): Promise<void> {
    await this.ask("touch");
  }

  stop(): Promise<void> {
    return new Promise((resolve) => {
      this.child.once("exit", () => resolve());
      this.child.send({ kind: "stop" } satisfies ToServer);
    });
  }
}

const agent = new Agent({ connections: CONCURRENCY * 2, pipelining: 1, keepAliveTimeout: 10_000 });

async function list(url: string, accept: string): Promise<number> {
  const res = await request(url, { method: "GET", dispatcher: agent, headers: { accept } });
  const body = await res.body.arrayBuffer();
  if (res.statusCode !== 200) throw new Error(`LIST: ${res.statusCode}`);
  return body.byteLength;
}

interface Sample {
  perSecond: number;
  /** Server CPU-seconds per 1,000 requests. */
  cpuPer1000: number;
}

/** Warm (cached bytes) LIST throughput with CONCURRENCY workers for DURATION_MS. */
async function warmSample(server: ServerProcess, url: string, accept: string): Promise<Sample> {
  const cpu0 = await server.cpuMicros();
  let count = 0;
  const start = performance.now();
  const deadline = start + DURATION_MS;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (performance.now() < deadline) {
        await list(url, accept);
        count++;
      }
    }),
  );
  const elapsed = performance.now() - start;
  const cpu = (await server.cpuMicros()) - cpu0;
  return { perSecond: (count / elapsed) * 1000, cpuPer1000: cpu / 1e6 / (count / 1000) };
}

/** Cold LISTs: every object changed before each one, so all 500 are encoded afresh. */
async function coldSample(server: ServerProcess, url: string, accept: string, n = 8): Promise<Sample> {
  let ms = 0;
  let cpu = 0;
  for (let i = 0; i < n; i++) {
    await server.touch();
    const c0 = await server.cpuMicros();
    const t0 = performance.now();
    await list(url, accept);
    ms += performance.now() - t0;
    cpu += (await server.cpuMicros()) - c0;
  }
  return { perSecond: (n / ms) * 1000, cpuPer1000: cpu / 1e6 / (n / 1000) };
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

const range = (xs: number[]) => `${Math.min(...xs).toFixed(1)}–${Math.max(...xs).toFixed(1)}`;

const bench: Benchmark = {
  name: "apiserver/protobuf",
  async run(): Promise<Figure[]> {
    const server = new ServerProcess();
    const base = await server.ready;
    const url = `${base}/api/v1/namespaces/default/pods`;
    try {
      const jsonBytes = await list(url, "application/json");
      const pbBytes = await list(url, PB_FIRST);
      progress(`${PODS} pods: JSON LIST ${jsonBytes} bytes, protobuf LIST ${pbBytes} bytes`);
      const formats = { json: "application/json", protobuf: PB_FIRST } as const;
      const warm: Record<keyof typeof formats, Sample[]> = { json: [], protobuf: [] };
      const cold: Record<keyof typeof formats, Sample[]> = { json: [], protobuf: [] };
      for (let round = 0; round <= ROUNDS; round++) {
        const order: (keyof typeof formats)[] = round % 2 ? ["protobuf", "json"] : ["json", "protobuf"];
        for (const f of order) {
          const w = await warmSample(server, url, formats[f]);
          const c = await coldSample(server, url, formats[f]);
          if (round > 0) {
            warm[f].push(w);
            cold[f].push(c);
          }
        }
        progress(`round ${round}${round === 0 ? " (warm-up)" : ""} done`);
      }
      const rate = (xs: Sample[]) => xs.map((s) => s.perSecond);
      const cpu = (xs: Sample[]) => xs.map((s) => s.cpuPer1000);
      for (const [label, set] of [["cached", warm], ["fresh", cold]] as const) {
        progress(
          `${label}: protobuf ${median(rate(set.protobuf)).toFixed(1)}/s (${range(rate(set.protobuf))}), server ${median(cpu(set.protobuf)).toFixed(2)} CPU-s/1000; ` +
            `JSON ${median(rate(set.json)).toFixed(1)}/s (${range(rate(set.json))}), server ${median(cpu(set.json)).toFixed(2)} CPU-s/1000`,
        );
      }
      return [
        {
          name: `LIST ${PODS} pods as protobuf, cached bytes (median of ${ROUNDS}, ${range(rate(warm.protobuf))})`,
          value: median(rate(warm.protobuf)),
          unit: "req/s",
          peer: { name: `the same LIST as JSON (${range(rate(warm.json))})`, value: median(rate(warm.json)) },
          higherIsBetter: true,
        },
        {
          name: `LIST ${PODS} pods as protobuf, cached bytes: server CPU`,
          value: median(cpu(warm.protobuf)),
          unit: "CPU-s/1000 req",
          peer: { name: "the same LIST as JSON", value: median(cpu(warm.json)) },
          higherIsBetter: false,
        },
        {
          name: `LIST ${PODS} pods just patched (JSON writes) as protobuf (median of ${ROUNDS}, ${range(rate(cold.protobuf))})`,
          value: median(rate(cold.protobuf)),
          unit: "req/s",
          peer: { name: `the same LIST as JSON (${range(rate(cold.json))})`, value: median(rate(cold.json)) },
          higherIsBetter: true,
        },
        {
          name: `LIST ${PODS} pods just patched (JSON writes) as protobuf: server CPU`,
          value: median(cpu(cold.protobuf)),
          unit: "CPU-s/1000 req",
          peer: { name: "the same LIST as JSON", value: median(cpu(cold.json)) },
          higherIsBetter: false,
        },
      ];
    } finally {
      await server.stop();
    }
  },
};

export default bench;
