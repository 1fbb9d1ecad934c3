/**
 * bench/apiserver/persistence: what SQLite persistence (`dataDir`) costs. CREATE and UPDATE
 * throughput over loopback HTTP (16 concurrent clients, plain http) with a data directory —
 * synchronous=FULL with group commit (the default), synchronous=NORMAL (durability "process"),
 * and one transaction per write — each beside the in-memory server; every server in its own
 * process, the load generator in another, rotated rounds. And the start-up time of a server
 * whose data directory holds 100,000 objects beside the start-up of an empty in-memory server,
 * each measured in a fresh process.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { KubeObject } from "../../src/apimachinery/types.js";
import { startApiServer, type StartApiServerOptions } from "../../src/apiserver/index.js";
import { SqliteStorage } from "../../src/apiserver/storage/sqlite.js";
import { cpuSeconds, figure, progress, rotate, roundsFromEnv, type Benchmark, type Figure, type Sample } from "../harness.js";
import type { LoadResult, RequestSpec } from "../loadgen.js";
import { measured, Proc, stopAll } from "../proc.js";
import type { ApiServerInfo } from "../servers.js";

const CONCURRENCY = 16;
const DURATION_MS = Number(process.env.BENCH_HTTP_MS ?? 1500);
const STORED_OBJECTS = Number(process.env.BENCH_STORED_OBJECTS ?? 100_000);
const log = (m: string) => progress("apiserver/persistence", m);

/** Fills a data directory with `n` config maps through the storage API (group-committed batches). */
async function populate(dir: string, n: number): Promise<void> {
  const s = SqliteStorage.open(dir);
  const data = { k: "v".repeat(64) };
  for (let i = 0; i < n; i += 1000) {
    const batch: Array<Promise<unknown>> = [];
    for (let j = i; j < Math.min(n, i + 1000); j++) {
      const name = `stored-${String(j).padStart(6, "0")}`;
      batch.push(s.create(`/registry/core/configmaps/default/${name}`, { apiVersion: "v1", kind: "ConfigMap", metadata: { name, namespace: "default", uid: `u-${j}` }, data } as KubeObject));
    }
    await Promise.all(batch);
  }
  await s.close();
}

export const roles = {
  /** A fresh process that starts a server, reports how long that took, and stops. */
  startup: async (p: { options: StartApiServerOptions; expect: number }) => ({
    run: async (): Promise<Sample> => {
      const cpu0 = cpuSeconds();
      const t0 = performance.now();
      const api = await startApiServer({ port: 0, insecureHttp: true, ...p.options });
      const ms = performance.now() - t0;
      const cpu = cpuSeconds() - cpu0;
      const stored = (await api.server.storage.list("/registry/core/configmaps/")).items.length;
      await api.stop();
      if (stored < p.expect) throw new Error(`start-up loaded ${stored} config maps, expected ${p.expect}`);
      return { value: ms, wallMs: ms, cpu: { server: cpu } };
    },
  }),
  populate: () => ({ populate: (dir: string, n: number) => populate(dir, n) }),
};

const configMap = (name: string, v: string) => JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name }, data: { k: v.repeat(64) } });

const bench: Benchmark = {
  name: "apiserver/persistence",
  async run(): Promise<Figure[]> {
    const rounds = roundsFromEnv();
    const dirs: string[] = [];
    const tmp = () => {
      const d = mkdtempSync(join(tmpdir(), "kubeloop-bench-"));
      dirs.push(d);
      return d;
    };
    const servers = new URL("../servers.js", import.meta.url).href;
    const procs: Proc[] = [];
    try {
      const configs: Record<string, StartApiServerOptions> = {
        memory: {},
        full: { dataDir: tmp() },
        process: { dataDir: tmp(), server: { persistence: { durability: "process" } } },
        perWrite: { dataDir: tmp(), server: { persistence: { groupCommit: false } } },
      };
      const loadgen = await Proc.start(new URL("../loadgen.js", import.meta.url).href, "http", {}, { label: "loadgen" });
      procs.push(loadgen);
      const srv: Record<string, { proc: Proc; url: string }> = {};
      for (const [name, o] of Object.entries(configs)) {
        const proc = await Proc.start(servers, "apiserver", { options: { insecureHttp: true, ...o, server: { maxInFlight: 10_000, ...o.server } } }, { label: name });
        procs.push(proc);
        const { url } = await proc.call<ApiServerInfo>("info");
        for (let w = 0; w < CONCURRENCY; w++) await proc.call("configMaps", "default", `u-${w}-`, 1, {}, 64);
        srv[name] = { proc, url };
      }
      const sample = async (name: string, spec: (url: string) => RequestSpec): Promise<Sample> => {
        const { proc, url } = srv[name];
        const m = await measured([proc], () => loadgen.call<LoadResult>("throughput", spec(url), CONCURRENCY, DURATION_MS));
        return { value: (m.result.count / m.result.ms) * 1000, work: m.result.count, wallMs: m.result.ms, cpu: m.cpu };
      };
      const create = (r: number) => (url: string): RequestSpec => ({ method: "POST", url: `${url}/api/v1/namespaces/default/configmaps`, body: configMap("c-{r}-{w}-{i}", "v"), headers: { "content-type": "application/json" }, expect: 201, tag: String(r) });
      const update = (url: string): RequestSpec => ({ method: "PUT", url: `${url}/api/v1/namespaces/default/configmaps/u-{w}-0`, body: JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "u-{w}-0" }, data: { k: "{i}" } }), headers: { "content-type": "application/json" }, expect: 200 });
      const names = Object.keys(configs);
      const creates = await rotate(Object.fromEntries(names.map((n) => [n, (r: number) => sample(n, create(r))])), { rounds, onRound: (r) => log(`CREATE round ${r}`) });
      const updates = await rotate(Object.fromEntries(names.map((n) => [n, () => sample(n, update)])), { rounds, onRound: (r) => log(`UPDATE round ${r}`) });
      await stopAll(...procs);
      const label: Record<string, string> = {
        full: "SQLite synchronous=FULL, group commit (default)",
        process: "SQLite synchronous=NORMAL (durability: process)",
        perWrite: "SQLite FULL, one transaction per write",
      };
      const figures: Figure[] = [];
      for (const [verb, set] of [["CREATE", creates], ["UPDATE", updates]] as const) {
        for (const n of ["full", "process", "perWrite"]) {
          figures.push(
            figure({
              name: `${verb}, ${label[n]}`,
              unit: "req/s",
              higherIsBetter: true,
              ours: set[n],
              peer: set.memory,
              peerName: "in-memory server",
              cpuOf: { ours: n, peer: "memory" },
              goal: n === "full" ? { text: "≥ 0.5× in-memory", min: 0.5 } : undefined,
            }),
          );
        }
      }

      const stored = tmp();
      const filler = await Proc.start(import.meta.url, "populate", {}, { label: "populate" });
      await filler.call("populate", stored, STORED_OBJECTS);
      await filler.stop();
      log(`${STORED_OBJECTS} objects stored`);
      // A fresh process per start-up (nothing warm), rotated.
      const once = async (options: StartApiServerOptions, expect: number, label: string): Promise<Sample> => {
        const p = await Proc.start(import.meta.url, "startup", { options, expect }, { label });
        try {
          return await p.call<Sample>("run");
        } finally {
          await p.stop();
        }
      };
      const starts = await rotate(
        { loaded: () => once({ dataDir: stored }, STORED_OBJECTS, "startup-loaded"), empty: () => once({}, 0, "startup-empty") },
        { rounds, onRound: (r) => log(`start-up round ${r}`) },
      );
      figures.push(
        figure({
          name: `start-up with ${STORED_OBJECTS.toLocaleString("en-US")} stored objects`,
          unit: "ms",
          higherIsBetter: false,
          ours: starts.loaded,
          peer: starts.empty,
          peerName: "empty in-memory server",
          cpuOf: { ours: "server", peer: "server" },
        }),
      );
      return figures;
    } finally {
      await stopAll(...procs);
      for (const d of dirs) rmSync(d, { recursive: true, force: true });
    }
  },
};

export default bench;
