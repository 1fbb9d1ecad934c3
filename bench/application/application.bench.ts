/**
 * bench/application: N (default 1000; APP_BENCH_N) Applications created at once against the
 * embedded control plane (API server over HTTPS, Deployment, ReplicaSet, Endpoints controllers,
 * the simulated kubelet on 10 nodes) with the Application controller (2 workers) in-process.
 *
 * Figures:
 * - time until every Deployment and Service exists with only the API server and the Application
 *   controller running (the controller's own cost), then with the full control plane, and until
 *   every status is current
 *   (observedGeneration = generation, availableReplicas = replicas, Available=True);
 * - writes per Application, counted by the server: every committed write seen on a storage watch
 *   and attributed to the controller (Deployment/Service creates and spec updates, Application
 *   status writes, its Events) — and, for comparison, the write requests the controller sent
 *   (a no-op write commits nothing, so requests ≥ committed writes);
 * - writes per minute in steady state afterwards (APP_BENCH_STEADY_MS, default 30 s; goal 0).
 *
 * Peer (chosen: raw create throughput): the same client creating the same 2·N children
 * (N Deployments and N Services) directly with 2 concurrent writers — the controller's worker
 * count — on a control plane with no controllers running. It is the floor for "children exist".
 */
import { performance } from "node:perf_hooks";
import type { Deployment } from "kubernetes-types/apps/v1.js";
import type { Service } from "kubernetes-types/core/v1.js";
import { Registry } from "prom-client";
import type { KubeObject, TypedObject } from "../../src/apimachinery/types.js";
import type { KubeList } from "../../src/apimachinery/types.js";
import type { ResourceClient, ResourceClientFactory, ResourceDescriptor } from "../../src/client/interfaces.js";
import { builtin } from "../../src/client/typed.js";
import { startControlPlane } from "../../src/controlplane/index.js";
import {
  setupApplicationController,
  applications,
  installApplicationCRD,
  newDeployment,
  newService,
  type Application,
} from "../../src/controllers/application/index.js";
import { ClientEventSink, EventBroadcaster } from "../../src/events/index.js";
import { silentLogger } from "../../src/runtime/logging.js";
import { Manager } from "../../src/runtime/manager.js";
import type { Benchmark, Figure } from "../harness.js";

const N = Number(process.env.APP_BENCH_N ?? 1000);
const STEADY_MS = Number(process.env.APP_BENCH_STEADY_MS ?? 30_000);
const CREATE_CONCURRENCY = 50;
/** The fewest writes an Application can cost: create its Deployment, create its Service, write its status once. */
const MIN_WRITES = 3;

/** Counts the write requests sent through it (create, update, updateStatus, patch, delete). */
class CountingFactory implements ResourceClientFactory {
  writes = 0;
  constructor(private readonly inner: ResourceClientFactory) {}
  resource<T extends TypedObject>(r: ResourceDescriptor<T>, namespace?: string): ResourceClient<T> {
    const c = this.inner.resource<T>(r, namespace);
    const count = <A extends unknown[], R>(fn: (...a: A) => Promise<R>) => (...a: A) => {
      this.writes++;
      return fn(...a);
    };
    return {
      resource: c.resource,
      namespace: c.namespace,
      get: (n, o) => c.get(n, o),
      list: (o): Promise<KubeList<T>> => c.list(o),
      watch: (o) => c.watch(o),
      create: count((o: T, w) => c.create(o, w)),
      update: count((o: T, w) => c.update(o, w)),
      updateStatus: count((o: T, w) => c.updateStatus(o, w)),
      patch: count((n: string, t, p, o) => c.patch(n, t, p, o)),
      delete: count((n: string, o) => c.delete(n, o)),
      deleteCollection: count((l, d) => c.deleteCollection(l, d)),
      getScale: (n, o) => c.getScale(n, o),
      updateScale: count((n: string, s, o) => c.updateScale(n, s, o)),
    };
  }
}

function app(i: number): Application {
  return {
    apiVersion: "kubeloop.dev/v1alpha1",
    kind: "Application",
    metadata: { name: `app-${i}`, namespace: "default" },
    spec: { image: "nginx:1.27", replicas: 1, ports: [{ containerPort: 80 }], service: { port: 80 } },
  };
}

async function inParallel(n: number, concurrency: number, fn: (i: number) => Promise<unknown>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      for (let i = next++; i < n; i = next++) await fn(i);
    }),
  );
}

function isCurrent(a: KubeObject): boolean {
  const st = (a as Application).status;
  return (
    st?.observedGeneration === a.metadata?.generation &&
    st?.availableReplicas === (a as Application).spec?.replicas &&
    st?.conditions?.some((c) => c.type === "Available" && c.status === "True") === true
  );
}

/** Peer: raw creates of the same 2·N children with 2 writers, no controllers running. */
async function rawCreateMs(): Promise<number> {
  const cp = await startControlPlane({ port: 0, logger: silentLogger(), controllers: [] });
  try {
    const deployments = cp.client.resource<Deployment>(builtin.deployments, "default");
    const services = cp.client.resource<Service>(builtin.services, "default");
    const t0 = performance.now();
    await inParallel(N, 2, async (i) => {
      const a = app(i);
      a.metadata = { ...a.metadata, uid: `00000000-0000-4000-8000-${String(i).padStart(12, "0")}` };
      await deployments.create(newDeployment(a));
      await services.create(newService(a)!);
    });
    return performance.now() - t0;
  } finally {
    await cp.stop();
  }
}

interface PipelineResult {
  childrenMs: number;
  currentMs: number;
  committedPerApp: number;
  requestsPerApp: number;
  breakdown: Record<string, number>;
  steadyPerMinute: number;
}

/**
 * `full`: the whole control plane runs (pods are created and become available); otherwise only
 * the API server and the Application controller, and only the children's existence is awaited.
 */
async function pipeline(full: boolean): Promise<PipelineResult> {
  const logger = silentLogger();
  const cp = await startControlPlane({
    port: 0,
    logger,
    kubelet: { nodes: 10, delays: { schedule: 5, containerCreating: 10, running: 20 } },
    ...(full ? {} : { controllers: [] }),
  });
  const ac = new AbortController();
  try {
    await installApplicationCRD(cp.client);
    await cp.ready;
    const storage = cp.api.server.storage;
    const counting = new CountingFactory(cp.client);
    const broadcaster = new EventBroadcaster({ registry: new Registry() });
    broadcaster.startRecordingToSink(new ClientEventSink(counting));
    const manager = new Manager({
      client: counting,
      logger,
      registry: new Registry(),
      recorderProvider: (component) => broadcaster.newRecorder({ component }),
    });
    setupApplicationController(manager, { workers: 2 });
    const running = manager.start(ac.signal);

    // Server-side accounting: every committed write, attributed by key and content.
    const breakdown: Record<string, number> = {};
    const bump = (k: string) => (breakdown[k] = (breakdown[k] ?? 0) + 1);
    let deploymentsCreated = 0;
    let servicesCreated = 0;
    const current = new Set<string>();
    let childrenAt = 0;
    let currentAt = 0;
    let onProgress: () => void = () => {};
    const watch = storage.watch("/registry/", { fromRevision: storage.currentRevision(), maxLag: 1_000_000, signal: ac.signal });
    const t0 = performance.now();
    const consumed = (async () => {
      for await (const e of watch) {
        const k = e.key;
        if (k.startsWith("/registry/apps/deployments/")) {
          if (e.type === "ADDED") {
            bump("deployment create");
            deploymentsCreated++;
          } else if (e.type === "MODIFIED" && e.object.metadata?.generation !== e.prevObject?.metadata?.generation) bump("deployment update");
        } else if (k.startsWith("/registry/core/services/")) {
          if (e.type === "ADDED") {
            bump("service create");
            servicesCreated++;
          } else if (e.type === "MODIFIED") bump("service update");
        } else if (k.startsWith("/registry/kubeloop.dev/applications/")) {
          if (e.type === "MODIFIED") {
            bump("application status");
            const name = e.object.metadata?.name ?? "";
            if (isCurrent(e.object)) current.add(name);
            else current.delete(name);
          }
        } else if (k.startsWith("/registry/core/events/")) {
          const src = (e.object as { source?: { component?: string } }).source?.component;
          if (src === "application-controller" && e.type !== "DELETED") bump(`event ${e.type === "ADDED" ? "create" : "patch"}`);
        }
        if (!childrenAt && deploymentsCreated >= N && servicesCreated >= N) childrenAt = performance.now() - t0;
        if (!currentAt && current.size >= N) currentAt = performance.now() - t0;
        onProgress();
      }
    })();

    const apps = cp.client.resource(applications, "default");
    await inParallel(N, CREATE_CONCURRENCY, (i) => apps.create(app(i)));
    await new Promise<void>((resolve, reject) => {
      const deadline = setTimeout(() => reject(new Error(`not converged after 600 s: ${current.size}/${N} current`)), 600_000);
      onProgress = () => {
        if (full ? currentAt : childrenAt) {
          clearTimeout(deadline);
          resolve();
        }
      };
      onProgress();
    });
    if (!full) {
      ac.abort();
      watch.close();
      await consumed;
      await running;
      await broadcaster.shutdown();
      return { childrenMs: childrenAt, currentMs: 0, committedPerApp: 0, requestsPerApp: 0, breakdown: {}, steadyPerMinute: 0 };
    }
    // Let late writes (a last status, aggregated events) land before counting.
    await new Promise((r) => setTimeout(r, 2000));
    const committed = Object.values(breakdown).reduce((a, b) => a + b, 0);
    const requests = counting.writes;

    const before = { ...breakdown };
    const requestsBefore = counting.writes;
    await new Promise((r) => setTimeout(r, STEADY_MS));
    const steadyCommitted = Object.values(breakdown).reduce((a, b) => a + b, 0) - Object.values(before).reduce((a, b) => a + b, 0);
    const steadyRequests = counting.writes - requestsBefore;
    const steadyPerMinute = (Math.max(steadyCommitted, steadyRequests) * 60_000) / STEADY_MS;

    ac.abort();
    watch.close();
    await consumed;
    await running;
    await broadcaster.shutdown();
    return {
      childrenMs: childrenAt,
      currentMs: currentAt,
      committedPerApp: committed / N,
      requestsPerApp: requests / N,
      breakdown: Object.fromEntries(Object.entries(breakdown).map(([k, v]) => [k, Number((v / N).toFixed(3))])),
      steadyPerMinute,
    };
  } finally {
    ac.abort();
    await cp.stop();
  }
}

const bench: Benchmark = {
  name: "application",
  async run(): Promise<Figure[]> {
    const raw = await rawCreateMs();
    const bare = await pipeline(false);
    const p = await pipeline(true);
    console.error(`application bench: N=${N}; committed writes per Application by kind: ${JSON.stringify(p.breakdown)}`);
    const peer = { name: `raw create of ${2 * N} children, 2 writers`, value: raw };
    return [
      {
        name: `${N} Applications, API server + Application controller only: every Deployment and Service exists (ms)`,
        value: bare.childrenMs,
        unit: "ms",
        peer,
        higherIsBetter: false,
      },
      { name: `${N} Applications, full control plane: every Deployment and Service exists (ms)`, value: p.childrenMs, unit: "ms", peer, higherIsBetter: false },
      { name: `${N} Applications, full control plane: every status current, pods available (ms)`, value: p.currentMs, unit: "ms", peer, higherIsBetter: false },
      {
        name: "committed writes per Application (server storage)",
        value: p.committedPerApp,
        unit: "writes",
        peer: { name: `minimum (${MIN_WRITES}: 2 creates + 1 status)`, value: MIN_WRITES },
        higherIsBetter: false,
      },
      {
        name: "write requests per Application (sent)",
        value: p.requestsPerApp,
        unit: "requests",
        peer: { name: `minimum (${MIN_WRITES})`, value: MIN_WRITES },
        higherIsBetter: false,
      },
      {
        name: "steady-state writes per minute",
        value: p.steadyPerMinute,
        unit: "writes/min",
        peer: { name: "goal", value: 0 },
        higherIsBetter: false,
        goal: "0",
      },
    ];
  },
};

export default bench;
