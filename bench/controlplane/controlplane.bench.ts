/**
 * bench/controlplane: the whole embedded control plane (API server over HTTPS, Deployment,
 * ReplicaSet, garbage collector, simulated kubelet and Endpoints controllers in one process),
 * with the kubelet's delays at 0 so what is measured is the control loops and the API.
 *
 * (a) one 1,000-replica Deployment: create → every pod ready, then a new image (through the
 *     client, as `kubectl set image` would) → rollout complete at 25%/25%; with the Deployment
 *     controller's sync rounds (controller_runtime_reconcile_total{controller="deployment"}) and
 *     pods created per second. Peers: the same client creating (and deleting) the same number of
 *     pods directly — the ceiling of pod creation; for sync rounds, the ReplicaSet scale writes
 *     the rollout made (each needs at least one sync).
 * (b) 300 Deployments × 3 replicas created at once → all Available. Peer: the same client
 *     creating 900 pods directly.
 * (c) API writes per minute once everything has converged, kubelet heartbeats off (goal 0),
 *     counted server-side from the storage revision over a measured window (every write takes
 *     one revision). Peer: an idle control plane with the same nodes and heartbeats at upstream's
 *     10 s, measured over the same window.
 */
import type { Deployment, ReplicaSet } from "kubernetes-types/apps/v1.js";
import type { Namespace, Pod } from "kubernetes-types/core/v1.js";
import { setMaxListeners } from "node:events";
import { performance } from "node:perf_hooks";
import type { Registry } from "prom-client";
import type { TypedObject } from "../../src/apimachinery/types.js";
import type { ResourceClient } from "../../src/client/interfaces.js";
import { builtin } from "../../src/client/typed.js";
import { startControlPlane, type RunningControlPlane } from "../../src/controlplane/index.js";
import type { Benchmark, Figure } from "../harness.js";

const NODES = 30; // 30 × 110 pods: room for the 1,000-pod rollout's surge and the 900 pods of (b)
const BIG = 1000;
const MANY = 300;
const MANY_REPLICAS = 3;
const PEER_CONCURRENCY = 64;
const QUIET_WINDOW_MS = 10_000;
const STEP_TIMEOUT_MS = 60_000;

const kubelet = { heartbeatIntervalMs: 0, speedFactor: 0, delays: { schedule: 0, containerCreating: 0, running: 0 } };

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const isReady = (p: Pod) => !p.metadata?.deletionTimestamp && (p.status?.conditions?.some((c) => c.type === "Ready" && c.status === "True") ?? false);

/**
 * Mirrors one resource of a namespace from a watch; `until(pred)` resolves with the time
 * (performance.now()) of the first state satisfying `pred`.
 */
class Mirror<T extends TypedObject> {
  readonly objs = new Map<string, T>();
  private readonly waiters = new Set<() => void>();
  private readonly ac = new AbortController();
  private done: Promise<void> = Promise.resolve();
  /** Distinct observed values of `track(obj)`, per object name, in order. */
  readonly history = new Map<string, unknown[]>();

  constructor(
    private readonly client: ResourceClient<T>,
    private readonly track?: (obj: T) => unknown,
  ) {
    setMaxListeners(0, this.ac.signal);
  }

  async start(): Promise<void> {
    const list = await this.client.list();
    for (const o of list.items) this.apply("ADDED", o);
    const stream = await this.client.watch({ resourceVersion: list.metadata?.resourceVersion, signal: this.ac.signal });
    this.done = (async () => {
      try {
        for await (const ev of stream) {
          if (ev.type === "ERROR") throw new Error(`watch error: ${ev.object.message ?? ""}`);
          if (ev.type === "BOOKMARK") continue;
          this.apply(ev.type, ev.object);
          for (const w of [...this.waiters]) w();
        }
      } catch (err) {
        if (!this.ac.signal.aborted) throw err;
      }
    })();
  }

  private apply(type: "ADDED" | "MODIFIED" | "DELETED", o: T): void {
    const name = o.metadata?.name ?? "";
    if (type === "DELETED") this.objs.delete(name);
    else this.objs.set(name, o);
    if (this.track && type !== "DELETED") {
      const h = this.history.get(name) ?? [];
      const v = this.track(o);
      if (h.length === 0 || h[h.length - 1] !== v) h.push(v);
      this.history.set(name, h);
    }
  }

  until(what: string, pred: (objs: readonly T[]) => boolean, timeoutMs = STEP_TIMEOUT_MS): Promise<number> {
    return new Promise((resolve, reject) => {
      const check = () => {
        if (!pred([...this.objs.values()])) return;
        clearTimeout(timer);
        this.waiters.delete(check);
        resolve(performance.now());
      };
      const timer = setTimeout(() => {
        this.waiters.delete(check);
        reject(new Error(`timed out waiting for ${what}`));
      }, timeoutMs);
      this.waiters.add(check);
      check();
    });
  }

  async stop(): Promise<void> {
    this.ac.abort();
    await this.done;
  }
}

/** Sum of controller_runtime_reconcile_total for one controller, all results. */
async function reconciles(registry: Registry, controller: string): Promise<number> {
  const metric = registry.getSingleMetric("controller_runtime_reconcile_total");
  if (!metric) return 0;
  const { values } = await metric.get();
  return values.filter((v) => v.labels.controller === controller).reduce((n, v) => n + v.value, 0);
}

/** Runs `fn(i)` for i in [0, n) with `concurrency` in flight. */
async function pool(n: number, concurrency: number, fn: (i: number) => Promise<unknown>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, n) }, async () => {
      while (next < n) await fn(next++);
    }),
  );
}

async function createNamespace(cp: RunningControlPlane, name: string): Promise<void> {
  await cp.client.resource<Namespace>(builtin.namespaces).create({ apiVersion: "v1", kind: "Namespace", metadata: { name } });
}

/** The ceiling: `n` pods created (then deleted) directly with the control plane's client. Pods nobody schedules. */
async function rawPods(cp: RunningControlPlane, ns: string, n: number): Promise<{ createMs: number; deleteMs: number }> {
  await createNamespace(cp, ns);
  const pods = cp.client.resource<Pod>(builtin.pods, ns);
  const t0 = performance.now();
  await pool(n, PEER_CONCURRENCY, (i) =>
    pods.create({
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name: `raw-${i}`, labels: { app: "raw" } },
      // A scheduler nobody runs: the simulated kubelet leaves these pods alone.
      spec: { schedulerName: "bench-nobody", containers: [{ name: "web", image: "nginx:1.27" }] },
    }),
  );
  const createMs = performance.now() - t0;
  const t1 = performance.now();
  await pool(n, PEER_CONCURRENCY, (i) => pods.delete(`raw-${i}`, { gracePeriodSeconds: 0 }));
  const deleteMs = performance.now() - t1;
  return { createMs, deleteMs };
}

function deploymentOf(ns: string, name: string, replicas: number, image: string): Deployment {
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name, namespace: ns },
    spec: {
      replicas,
      selector: { matchLabels: { app: name } },
      strategy: { type: "RollingUpdate", rollingUpdate: { maxSurge: "25%", maxUnavailable: "25%" } },
      template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: "web", image }] } },
    },
  };
}

/** kubectl rollout status's notion of done, plus the status having observed the generation. */
function rolledOut(d: Deployment | undefined, replicas: number): boolean {
  const s = d?.status;
  if (!d || !s) return false;
  return (
    (s.observedGeneration ?? 0) >= (d.metadata?.generation ?? 0) &&
    s.updatedReplicas === replicas &&
    s.replicas === replicas &&
    s.availableReplicas === replicas
  );
}

function available(d: Deployment): boolean {
  return d.status?.conditions?.some((c) => c.type === "Available" && c.status === "True") === true && rolledOut(d, d.spec?.replicas ?? 1);
}

/** Writes (storage revisions) during `ms`, with a breakdown by resource from a storage watch. */
async function writesDuring(cp: RunningControlPlane, ms: number): Promise<{ writes: number; byResource: Map<string, number> }> {
  const storage = cp.api.server.storage;
  const from = storage.currentRevision();
  const watch = storage.watch("/registry/", { fromRevision: from, maxLag: 1_000_000 });
  const byResource = new Map<string, number>();
  const counting = (async () => {
    for await (const ev of watch) {
      // Keys look like /registry/<group>/<resource>/... or /registry/<resource>/...
      const parts = ev.key.split("/").filter(Boolean);
      const resource = parts.length >= 4 ? `${parts[1]}/${parts[2]}` : (parts[1] ?? ev.key);
      byResource.set(resource, (byResource.get(resource) ?? 0) + 1);
    }
  })();
  await sleep(ms);
  const writes = storage.currentRevision() - from;
  watch.close();
  await counting;
  return { writes, byResource };
}

/** Waits (at most `maxMs`) for `quietMs` without a write. */
async function settle(cp: RunningControlPlane, quietMs: number, maxMs: number): Promise<void> {
  const storage = cp.api.server.storage;
  const deadline = performance.now() + maxMs;
  let rev = storage.currentRevision();
  let since = performance.now();
  while (performance.now() < deadline) {
    await sleep(100);
    const now = storage.currentRevision();
    if (now !== rev) {
      rev = now;
      since = performance.now();
    } else if (performance.now() - since >= quietMs) {
      return;
    }
  }
}

function breakdown(m: Map<string, number>): string {
  if (m.size === 0) return "";
  return ` (${[...m].sort((a, b) => b[1] - a[1]).map(([r, n]) => `${r} ${n}`).join(", ")})`;
}

const bench: Benchmark = {
  name: "controlplane",
  async run(): Promise<Figure[]> {
    const figures: Figure[] = [];
    const cp = await startControlPlane({ port: 0, kubelet: { ...kubelet, nodes: NODES } });
    let idle: RunningControlPlane | undefined;
    try {
      await cp.ready;

      // ---- peers: raw pod creation and deletion with the same client ----
      const rawBig = await rawPods(cp, "bench-raw-big", BIG);
      const rawMany = await rawPods(cp, "bench-raw-many", MANY * MANY_REPLICAS);

      // ---- (a) one 1,000-replica Deployment ----
      const ns = "bench-big";
      await createNamespace(cp, ns);
      const deployments = cp.client.resource<Deployment>(builtin.deployments, ns);
      const dMirror = new Mirror(deployments);
      const podMirror = new Mirror(cp.client.resource<Pod>(builtin.pods, ns));
      const rsMirror = new Mirror(cp.client.resource<ReplicaSet>(builtin.replicaSets, ns), (rs) => rs.spec?.replicas ?? 0);
      await Promise.all([dMirror.start(), podMirror.start(), rsMirror.start()]);

      const syncs0 = await reconciles(cp.registry, "deployment");
      const t0 = performance.now();
      await deployments.create(deploymentOf(ns, "big", BIG, "nginx:1.27"));
      const allCreated = podMirror.until("1,000 pods", (ps) => ps.length >= BIG);
      const tAllReady = await podMirror.until("1,000 ready pods", (ps) => ps.filter(isReady).length >= BIG);
      const tComplete = await dMirror.until("the Deployment to be complete", (ds) => rolledOut(ds[0], BIG));
      const tCreated = await allCreated;
      const syncs1 = await reconciles(cp.registry, "deployment");
      // Each ReplicaSet creation or change of size is one write some sync made.
      const sizeStates = () => [...rsMirror.history.values()].reduce((n, h) => n + h.length, 0);
      const sizeStates1 = sizeStates();
      const createToReady = tAllReady - t0;
      const createToComplete = tComplete - t0;

      // set image, as kubectl does it: a strategic merge patch of the container's image.
      const t1 = performance.now();
      await deployments.patch("big", "strategic", { spec: { template: { spec: { containers: [{ name: "web", image: "nginx:1.28" }] } } } });
      const tRolled = await dMirror.until("the rollout to complete", (ds) => rolledOut(ds[0], BIG) && ds[0]?.metadata?.generation === 2);
      const rolloutMs = tRolled - t1;
      const syncs2 = await reconciles(cp.registry, "deployment");
      const sizeStates2 = sizeStates();
      await Promise.all([dMirror.stop(), podMirror.stop(), rsMirror.stop()]);

      figures.push({
        name: "1,000-replica Deployment: create → 1,000 pods ready",
        value: createToReady,
        unit: "ms",
        peer: { name: "create 1,000 pods directly (same client, 64 in flight)", value: rawBig.createMs },
        higherIsBetter: false,
      });
      figures.push({
        name: "1,000-replica Deployment: pods created per second (create → last pod exists)",
        value: (BIG / (tCreated - t0)) * 1000,
        unit: "pods/s",
        peer: { name: "create 1,000 pods directly (same client, 64 in flight)", value: (BIG / rawBig.createMs) * 1000 },
        higherIsBetter: true,
      });
      figures.push({
        name: "1,000-replica Deployment: create → rollout complete (status)",
        value: createToComplete,
        unit: "ms",
        peer: { name: "create 1,000 pods directly (same client, 64 in flight)", value: rawBig.createMs },
        higherIsBetter: false,
      });
      figures.push({
        name: "1,000-replica Deployment: set image → rollout complete (25%/25%)",
        value: rolloutMs,
        unit: "ms",
        peer: { name: "create + delete 1,000 pods directly (same client)", value: rawBig.createMs + rawBig.deleteMs },
        higherIsBetter: false,
      });
      figures.push({
        name: "1,000-replica Deployment: pods replaced per second during the rollout",
        value: (BIG / rolloutMs) * 1000,
        unit: "pods/s",
        peer: { name: "create + delete directly (same client)", value: (BIG / (rawBig.createMs + rawBig.deleteMs)) * 1000 },
        higherIsBetter: true,
      });
      figures.push({
        name: "Deployment sync rounds: create → complete",
        value: syncs1 - syncs0,
        unit: "reconciles",
        peer: { name: "ReplicaSet creations + size changes (≥ 1 sync each)", value: sizeStates1 },
        higherIsBetter: false,
      });
      figures.push({
        name: "Deployment sync rounds: set image → complete",
        value: syncs2 - syncs1,
        unit: "reconciles",
        peer: { name: "ReplicaSet creations + size changes (≥ 1 sync each)", value: sizeStates2 - sizeStates1 },
        higherIsBetter: false,
      });

      // ---- (b) 300 Deployments × 3 replicas at once ----
      const nsMany = "bench-many";
      await createNamespace(cp, nsMany);
      const manyClient = cp.client.resource<Deployment>(builtin.deployments, nsMany);
      const manyMirror = new Mirror(manyClient);
      await manyMirror.start();
      const t2 = performance.now();
      await Promise.all(Array.from({ length: MANY }, (_, i) => manyClient.create(deploymentOf(nsMany, `d-${i}`, MANY_REPLICAS, "nginx:1.27"))));
      const tAvailable = await manyMirror.until("300 Available Deployments", (ds) => ds.length === MANY && ds.every(available));
      await manyMirror.stop();
      figures.push({
        name: "300 Deployments × 3 replicas created at once → all Available",
        value: tAvailable - t2,
        unit: "ms",
        peer: { name: "create 900 pods directly (same client, 64 in flight)", value: rawMany.createMs },
        higherIsBetter: false,
      });

      // ---- (c) writes after convergence ----
      // Two idle control planes side by side: this one (heartbeats off) and one with the same
      // nodes and heartbeats at upstream's 10 s.
      idle = await startControlPlane({ port: 0, kubelet: { ...kubelet, nodes: NODES, heartbeatIntervalMs: 10_000 } });
      await idle.ready;
      await Promise.all([settle(cp, 1000, 10_000), settle(idle, 1000, 10_000)]);
      const [quiet, beating] = await Promise.all([writesDuring(cp, QUIET_WINDOW_MS), writesDuring(idle, QUIET_WINDOW_MS)]);
      const perMinute = (n: number) => (n * 60_000) / QUIET_WINDOW_MS;
      figures.push({
        name: `API writes per minute after convergence (301 Deployments, 1,900 pods, heartbeats off)${breakdown(quiet.byResource)}`,
        value: perMinute(quiet.writes),
        unit: "writes/min",
        peer: { name: `idle control plane, ${NODES} nodes, heartbeats every 10 s${breakdown(beating.byResource)}`, value: perMinute(beating.writes) },
        higherIsBetter: false,
        goal: "0",
      });
    } finally {
      await idle?.stop();
      await cp.stop();
    }
    return figures;
  },
};

export default bench;
