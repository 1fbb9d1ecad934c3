/**
 * bench/apiserver/persistence: what SQLite persistence (`dataDir`) costs. CREATE and UPDATE
 * throughput over HTTP on loopback (16 concurrent clients, plain http, client and server in this
 * process) with a data directory, each beside the in-memory server measured in the same run;
 * and the start-up time of a server whose data directory holds 100,000 objects, beside the
 * start-up of an empty in-memory server.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { Agent, request } from "undici";
import { startApiServer, type StartApiServerOptions } from "../../src/apiserver/index.js";
import { SqliteStorage } from "../../src/apiserver/storage/sqlite.js";
import type { Benchmark, Figure } from "../harness.js";

const CONCURRENCY = 16;
const DURATION_MS = 1500;
const STORED_OBJECTS = 100_000;

const agent = new Agent({ connections: CONCURRENCY * 2, pipelining: 1, keepAliveTimeout: 10_000 });

async function call(url: string, method: "POST" | "PUT", body: string): Promise<{ status: number; rv: string }> {
  const res = await request(url, { method, dispatcher: agent, body, headers: { "content-type": "application/json" } });
  const obj = (await res.body.json()) as { metadata?: { resourceVersion?: string } };
  return { status: res.statusCode, rv: obj.metadata?.resourceVersion ?? "" };
}

async function throughput(next: (worker: number, i: number) => Promise<void>): Promise<number> {
  let count = 0;
  const deadline = performance.now() + DURATION_MS;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async (_, w) => {
      for (let i = 0; performance.now() < deadline; i++) {
        await next(w, i);
        count++;
      }
    }),
  );
  return (count / (performance.now() - start)) * 1000;
}

const configMap = (name: string, v: string, resourceVersion?: string) =>
  JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name, resourceVersion }, data: { k: v.repeat(64) } });

/** CREATE and UPDATE requests per second against one server configuration. */
async function writeThroughput(opts: StartApiServerOptions): Promise<{ create: number; update: number }> {
  const api = await startApiServer({ port: 0, insecureHttp: true, ...opts, server: { maxInFlight: 10_000, ...opts.server } });
  const base = `${api.url}/api/v1/namespaces/default/configmaps`;
  try {
    const rv = new Map<number, string>();
    const create = await throughput(async (w, i) => {
      const r = await call(base, "POST", configMap(`c-${w}-${i}`, "v"));
      if (r.status !== 201) throw new Error(`create: ${r.status}`);
      if (i === 0) rv.set(w, r.rv);
    });
    const update = await throughput(async (w, i) => {
      const r = await call(`${base}/c-${w}-0`, "PUT", configMap(`c-${w}-0`, String(i % 10), rv.get(w)));
      if (r.status !== 200) throw new Error(`update: ${r.status}`);
      rv.set(w, r.rv);
    });
    return { create, update };
  } finally {
    await api.stop();
  }
}

/** Fills a data directory with `n` config maps through the storage API (group-committed batches). */
async function populate(dir: string, n: number): Promise<void> {
  const s = SqliteStorage.open(dir);
  const data = { k: "v".repeat(64) };
  for (let i = 0; i < n; i += 1000) {
    const batch: Array<Promise<unknown>> = [];
    for (let j = i; j < Math.min(n, i + 1000); j++) {
      const name = `stored-${String(j).padStart(6, "0")}`;
      batch.push(s.create(`/registry/core/configmaps/default/${name}`, { apiVersion: "v1", kind: "ConfigMap", metadata: { name, namespace: "default", uid: `u-${j}` }, data }));
    }
    await Promise.all(batch);
  }
  await s.close();
}

async function startupMs(opts: StartApiServerOptions, expectObjects: number): Promise<number> {
  const t0 = performance.now();
  const api = await startApiServer({ port: 0, insecureHttp: true, ...opts });
  const ms = performance.now() - t0;
  const stored = (await api.server.storage.list("/registry/core/configmaps/")).items.length;
  await api.stop();
  if (stored < expectObjects) throw new Error(`start-up loaded ${stored} config maps, expected ${expectObjects}`);
  return ms;
}

const bench: Benchmark = {
  name: "apiserver/persistence",
  async run(): Promise<Figure[]> {
    const dirs: string[] = [];
    const tmp = () => {
      const d = mkdtempSync(join(tmpdir(), "kubeloop-bench-"));
      dirs.push(d);
      return d;
    };
    try {
      // Two rounds, configurations interleaved, best of two each: the first round also warms the JIT.
      const configs: Record<string, () => StartApiServerOptions> = {
        memory: () => ({}),
        full: () => ({ dataDir: tmp() }),
        processOnly: () => ({ dataDir: tmp(), server: { persistence: { durability: "process" } } }),
        perWrite: () => ({ dataDir: tmp(), server: { persistence: { groupCommit: false } } }),
      };
      const best: Record<string, { create: number; update: number }> = {};
      for (let round = 0; round < 2; round++) {
        for (const [name, opts] of Object.entries(configs)) {
          const r = await writeThroughput(opts());
          const b = best[name];
          best[name] = b ? { create: Math.max(b.create, r.create), update: Math.max(b.update, r.update) } : r;
        }
      }
      const { memory, full, processOnly, perWrite } = best;
      const fig = (name: string, value: number, peer: number, goal?: string): Figure => ({
        name,
        value,
        unit: "req/s",
        peer: { name: "in-memory server", value: peer },
        higherIsBetter: true,
        goal,
      });

      const stored = tmp();
      await populate(stored, STORED_OBJECTS);
      const emptyStart = await startupMs({}, 0);
      const loadedStart = await startupMs({ dataDir: stored }, STORED_OBJECTS);
      return [
        fig("CREATE, SQLite synchronous=FULL, group commit (default)", full.create, memory.create, "≥ 0.5× in-memory"),
        fig("UPDATE, SQLite synchronous=FULL, group commit (default)", full.update, memory.update, "≥ 0.5× in-memory"),
        fig("CREATE, SQLite synchronous=NORMAL (durability: process)", processOnly.create, memory.create),
        fig("UPDATE, SQLite synchronous=NORMAL (durability: process)", processOnly.update, memory.update),
        fig("CREATE, SQLite FULL, one transaction per write", perWrite.create, memory.create),
        fig("UPDATE, SQLite FULL, one transaction per write", perWrite.update, memory.update),
        {
          name: `start-up with ${STORED_OBJECTS.toLocaleString("en-US")} stored objects`,
          value: loadedStart,
          unit: "ms",
          peer: { name: "empty in-memory server", value: emptyStart },
          higherIsBetter: false,
        },
      ];
    } finally {
      for (const d of dirs) rmSync(d, { recursive: true, force: true });
    }
  },
};

export default bench;
