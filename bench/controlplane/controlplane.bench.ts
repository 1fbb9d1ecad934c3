/**
 * bench/controlplane: the whole embedded control plane, as `kubeloop up` runs it
 * (`startControlPlane`: API server over HTTPS, Application, Deployment, ReplicaSet, garbage
 * collector, Endpoints controllers and the simulated kubelet, one process — role "controlplane"),
 * driven by a client in a process of its own (role "driver": KubeClient over the kubeconfig the
 * control plane wrote, one informer to see progress). A fresh control plane and driver per
 * round (state must not carry over), so no round is warmer than another and none is discarded as
 * a warm-up; rounds rotated with the peer.
 *
 * (a) APPS (default 1,000; BENCH_APPS) Applications, 1–3 replicas each (1 + i mod 3), created at
 *     once (50 in flight) → every Application Available with its status current
 *     (observedGeneration = generation, availableReplicas = replicas). Peer: the same client
 *     creating the same children directly (APPS Deployments and APPS Services, 2 writers: the
 *     Application controller's worker count) against an API server with no controllers. Beside
 *     it, the writes the server counted (apiserver_request_total, successful write verbs, by
 *     resource, per Application; kubeloop_apiserver_noop_writes_total: writes that changed
 *     nothing) over the run — cluster-wide, every component.
 * (b) one REPLICAS-replica (default 1,000; BENCH_REPLICAS) Deployment: create → every replica
 *     ready, then a new image → the 25 %/25 % rollout complete. Peer: the same client creating
 *     and then deleting REPLICAS pods directly (64 in flight) against the same kind of server.
 *
 * (c) one JOB_PODS-pod (default 1,000; BENCH_JOB_PODS) Job, completions = parallelism = JOB_PODS,
 *     each pod `sh -c true` with restartPolicy Never: create → the Job's Complete condition. Peer:
 *     the same pods created directly (64 in flight) against a control plane running only the
 *     simulated kubelet (podlifecycle), until every pod is Succeeded.
 * (d) one STS_REPLICAS-replica (default 100; BENCH_STS_REPLICAS) StatefulSet, OrderedReady (the
 *     default): create → readyReplicas = replicas, status current. Peer: the same pods (web-0 …
 *     web-N-1) created directly in the same order — each once the one before is Ready, as
 *     OrderedReady does — against a control plane running only the simulated kubelet.
 *
 * The simulated kubelet keeps upstream-like defaults scaled by `kubeloop up`'s speed factor, on 30
 * nodes (room for every pod); heartbeats off so the write counts are the flow's own.
 *
 * Each flow runs once per API server isolation of BENCH_CP_ISOLATION (default "process,inline":
 * the API server in a child process of the control plane, as `kubeloop up` runs it on more than
 * one CPU, then in the controllers' own event loop), all sides rotated in the same rounds; the
 * first is the headline figure, and each other is also compared with it. A control plane's CPU
 * includes its API server child's (/proc/<pid>/stat).
 */
import type { Deployment, StatefulSet } from "../../src/apimachinery/api/apps/v1.js";
import type { Job } from "../../src/apimachinery/api/batch/v1.js";
import { readFileSync } from "node:fs";
import type { Pod, Service } from "../../src/apimachinery/api/core/v1.js";
import type { TypedObject } from "../../src/apimachinery/types.js";
import { TransportError } from "../../src/client/errors.js";
import type { ResourceDescriptor } from "../../src/client/interfaces.js";
import { KubeClient } from "../../src/client/kubeclient.js";
import { builtin } from "../../src/client/typed.js";
import { startControlPlane, type ApiServerIsolation, type ControlPlaneOptions } from "../../src/controlplane/index.js";
import { applications, newDeployment, newService, type Application } from "../../src/controllers/application/index.js";
import { SharedIndexInformer } from "../../src/informers/sharedinformer.js";
import { cpuSeconds, figure, median, progress, rotate, roundsFromEnv, type Benchmark, type Figure, type Sample } from "../harness.js";
import { measured, Proc } from "../proc.js";
import { writesBetween } from "../servers.js";

const APPS = Number(process.env.BENCH_APPS ?? 1000);
const REPLICAS = Number(process.env.BENCH_REPLICAS ?? 1000);
const JOB_PODS = Number(process.env.BENCH_JOB_PODS ?? 1000);
const STS_REPLICAS = Number(process.env.BENCH_STS_REPLICAS ?? 100);
const NODES = 30;
const APP_CONCURRENCY = 50;
const POD_CONCURRENCY = 64;
const TIMEOUT_MS = 600_000;

const kubelet = { nodes: NODES, heartbeatIntervalMs: 0 };
const ISOLATIONS = (process.env.BENCH_CP_ISOLATION ?? "process,inline").split(",").map((s) => s.trim()) as ApiServerIsolation[];

/** CPU-seconds (user + system) of another process, from /proc (Linux). */
function processCpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  // Fields after "(comm)": state is field 3, utime 14, stime 15.
  const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(f[11]) + Number(f[12])) / 100;
}

/** BENCH_CP: the figures to measure, comma-separated (apps, deployment, job, statefulset); all by default. */
const SELECTED = (process.env.BENCH_CP ?? "").split(",").map((x) => x.trim()).filter(Boolean);
const only = (figure: "apps" | "deployment" | "job" | "statefulset") => SELECTED.length === 0 || SELECTED.includes(figure);

function app(i: number): Application & TypedObject {
  return {
    apiVersion: "kubeloop.dev/v1alpha1",
    kind: "Application",
    metadata: { name: `app-${i}`, namespace: "default" },
    spec: { image: "nginx:1.27", replicas: 1 + (i % 3), ports: [{ containerPort: 80 }], service: { port: 80 } },
  } as Application & TypedObject;
}

function isCurrent(a: Application): boolean {
  const st = a.status;
  return (
    st?.observedGeneration === a.metadata?.generation &&
    st?.availableReplicas === a.spec?.replicas &&
    st?.conditions?.some((c) => c.type === "Available" && c.status === "True") === true
  );
}

async function inParallel(n: number, concurrency: number, fn: (i: number) => Promise<unknown>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(n, concurrency) }, async () => {
      for (let i = next++; i < n; i = next++) await unlessNeverConnected(() => fn(i));
    }),
  );
}

/**
 * Runs `op`, again (up to 5 tries) when the connection for it could not even be made in the
 * client's 10 s connect timeout — on this shared machine a starved server process does not accept
 * in time now and then. The request was never sent, so a retry cannot apply it twice.
 */
async function unlessNeverConnected<T>(op: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await op();
    } catch (err) {
      if (attempt >= 5 || !(err instanceof TransportError) || err.code !== "UND_ERR_CONNECT_TIMEOUT") throw err;
    }
  }
}

/** Watches `resource` in `namespace` until `done(objects)` holds (checked on every event). */
async function watchUntil<T extends TypedObject>(client: KubeClient, resource: ResourceDescriptor<T>, namespace: string, what: string, done: (objs: readonly T[]) => boolean) {
  const informer = new SharedIndexInformer<T>(client.resource(resource, namespace));
  const ac = new AbortController();
  let resolve!: () => void;
  const reached = new Promise<void>((r) => (resolve = r));
  const check = () => {
    if (informer.hasSynced() && done(informer.getIndexer().list())) resolve();
  };
  informer.addEventHandler({ onAdd: check, onUpdate: check, onDelete: check });
  const running = informer.run(ac.signal);
  const timer = setInterval(check, 50);
  return {
    synced: () => informer.waitForSync(ac.signal),
    reached: async () => {
      let timeout: ReturnType<typeof setTimeout> | undefined;
      try {
        await Promise.race([reached, new Promise((_, reject) => (timeout = setTimeout(() => reject(new Error(`${what}: not reached after ${TIMEOUT_MS} ms`)), TIMEOUT_MS)))]);
      } finally {
        clearTimeout(timeout);
      }
    },
    stop: async () => {
      clearInterval(timer);
      ac.abort();
      await running;
    },
  };
}

/** The Job's pod template, also the directly created pods' spec: exits 0 at once, never restarted. */
const jobPodSpec = () => ({ restartPolicy: "Never", containers: [{ name: "work", image: "busybox:1.36", command: ["sh", "-c", "true"] }] });
/** The StatefulSet's pod template spec, also the directly created pods'. */
const stsPodSpec = () => ({ containers: [{ name: "web", image: "nginx:1.27" }] });
const podReady = (p: Pod) => p.status?.conditions?.some((c) => c.type === "Ready" && c.status === "True") === true;

async function scrape(client: KubeClient): Promise<string> {
  return (await client.transport.request({ method: "GET", path: "/metrics" })).body.toString();
}

export const roles = {
  controlplane: async (p: { options: ControlPlaneOptions }) => {
    const cp = await startControlPlane({ port: 0, ...p.options });
    await cp.ready;
    const pid = cp.api.isolation === "process" ? cp.api.pid : undefined;
    return {
      kubeconfigPath: () => cp.api.kubeconfigPath,
      // This process (its threads included) and its API server's process.
      __cpu: () => cpuSeconds() + (pid !== undefined ? processCpuSeconds(pid) : 0),
      stop: () => cp.stop(),
    };
  },

  driver: (p: { kubeconfigPath: string }) => {
    const client = KubeClient.fromKubeconfig({ kubeconfigPath: p.kubeconfigPath, kubeconfigEnv: "", rest: { qps: -1 } });
    return {
      /** (a): creates the Applications and waits until each is Available and current. */
      applications: async (n: number) => {
        const before = await scrape(client);
        const w = await watchUntil(client, applications, "default", "applications", (objs) => {
          let current = 0;
          for (const a of objs) if (isCurrent(a)) current++;
          return current >= n;
        });
        await w.synced();
        const t0 = performance.now();
        const apps = client.resource(applications, "default");
        await inParallel(n, APP_CONCURRENCY, (i) => apps.create(app(i)));
        await w.reached();
        const ms = performance.now() - t0;
        await w.stop();
        // Let the last status writes and events land before counting.
        await new Promise((r) => setTimeout(r, 1000));
        return { ms, ...writesBetween(before, await scrape(client)) };
      },
      /** (a)'s peer: the Applications' children created directly, 2 writers. */
      children: async (n: number) => {
        const deployments = client.resource<Deployment & TypedObject>(builtin.deployments, "default");
        const services = client.resource<Service & TypedObject>(builtin.services, "default");
        const t0 = performance.now();
        await inParallel(n, 2, async (i) => {
          const a = app(i);
          a.metadata = { ...a.metadata, uid: `00000000-0000-4000-8000-${String(i).padStart(12, "0")}` };
          await deployments.create(newDeployment(a) as Deployment & TypedObject);
          await services.create(newService(a)! as Service & TypedObject);
        });
        return { ms: performance.now() - t0 };
      },
      /** (b): one Deployment of `replicas` → all ready, then a new image → rollout complete. */
      deployment: async (replicas: number) => {
        const before = await scrape(client);
        const name = "big";
        const complete = (image: string) => (objs: readonly (Deployment & TypedObject)[]) => {
          const d = objs.find((o) => o.metadata?.name === name);
          const st = d?.status;
          return (
            d !== undefined &&
            d.spec?.template?.spec?.containers?.[0]?.image === image &&
            st?.observedGeneration === d.metadata?.generation &&
            st?.updatedReplicas === replicas &&
            st?.readyReplicas === replicas &&
            st?.availableReplicas === replicas &&
            (st?.replicas ?? 0) === replicas
          );
        };
        const labels = { app: name };
        const dep: Deployment & TypedObject = {
          apiVersion: "apps/v1",
          kind: "Deployment",
          metadata: { name, namespace: "default" },
          spec: {
            replicas,
            selector: { matchLabels: labels },
            strategy: { type: "RollingUpdate", rollingUpdate: { maxSurge: "25%", maxUnavailable: "25%" } },
            template: { metadata: { labels }, spec: { containers: [{ name: "web", image: "nginx:1.27" }] } },
          },
        } as Deployment & TypedObject;
        const deployments = client.resource<Deployment & TypedObject>(builtin.deployments, "default");
        let w = await watchUntil(client, builtin.deployments, "default", "deployment ready", complete("nginx:1.27"));
        await w.synced();
        const t0 = performance.now();
        await deployments.create(dep);
        await w.reached();
        const readyMs = performance.now() - t0;
        await w.stop();
        w = await watchUntil(client, builtin.deployments, "default", "rollout complete", complete("nginx:1.28"));
        await w.synced();
        const t1 = performance.now();
        await deployments.patch(name, "strategic", JSON.stringify({ spec: { template: { spec: { containers: [{ name: "web", image: "nginx:1.28" }] } } } }));
        await w.reached();
        const rolloutMs = performance.now() - t1;
        await w.stop();
        return { readyMs, rolloutMs, ...writesBetween(before, await scrape(client)) };
      },
      /** (b)'s peer: `n` pods created, then deleted, directly. */
      pods: async (n: number) => {
        const pods = client.resource<Pod & TypedObject>(builtin.pods, "default");
        const t0 = performance.now();
        await inParallel(n, POD_CONCURRENCY, (i) =>
          pods.create({ apiVersion: "v1", kind: "Pod", metadata: { name: `direct-${i}`, labels: { app: "direct" } }, spec: { containers: [{ name: "web", image: "nginx:1.27" }] } } as Pod & TypedObject),
        );
        const createMs = performance.now() - t0;
        const t1 = performance.now();
        await inParallel(n, POD_CONCURRENCY, (i) => pods.delete(`direct-${i}`, { gracePeriodSeconds: 0 }));
        return { createMs, deleteMs: performance.now() - t1 };
      },
      /** (c): one Job of `n` completions, all in parallel → Complete. */
      job: async (n: number) => {
        const before = await scrape(client);
        const name = "big";
        const w = await watchUntil(client, builtin.jobs, "default", "job complete", (objs) =>
          objs.some((j) => j.metadata?.name === name && (j.status?.conditions ?? []).some((c) => c.type === "Complete" && c.status === "True")),
        );
        await w.synced();
        const t0 = performance.now();
        await client.resource<Job & TypedObject>(builtin.jobs, "default").create({
          apiVersion: "batch/v1",
          kind: "Job",
          metadata: { name, namespace: "default" },
          spec: { completions: n, parallelism: n, backoffLimit: 0, template: { spec: jobPodSpec() } },
        } as Job & TypedObject);
        await w.reached();
        const ms = performance.now() - t0;
        await w.stop();
        await new Promise((r) => setTimeout(r, 1000));
        return { ms, ...writesBetween(before, await scrape(client)) };
      },
      /** (c)'s peer: the Job's `n` pods created directly (64 in flight) → all Succeeded. */
      jobPods: async (n: number) => {
        const w = await watchUntil(client, builtin.pods, "default", "pods succeeded", (objs) => objs.filter((p) => p.status?.phase === "Succeeded").length >= n);
        await w.synced();
        const pods = client.resource<Pod & TypedObject>(builtin.pods, "default");
        const t0 = performance.now();
        await inParallel(n, POD_CONCURRENCY, (i) => pods.create({ apiVersion: "v1", kind: "Pod", metadata: { name: `direct-${i}`, labels: { app: "direct" } }, spec: jobPodSpec() } as Pod & TypedObject));
        await w.reached();
        const ms = performance.now() - t0;
        await w.stop();
        return { ms };
      },
      /** (d): one OrderedReady StatefulSet of `n` replicas → all ready, status current. */
      statefulSet: async (n: number) => {
        const before = await scrape(client);
        const name = "web";
        const w = await watchUntil(client, builtin.statefulSets, "default", "statefulset ready", (objs) => {
          const s = objs.find((o) => o.metadata?.name === name);
          return s !== undefined && s.status?.observedGeneration === s.metadata?.generation && s.status?.readyReplicas === n && s.status?.replicas === n;
        });
        await w.synced();
        const labels = { app: name };
        const t0 = performance.now();
        await client.resource<StatefulSet & TypedObject>(builtin.statefulSets, "default").create({
          apiVersion: "apps/v1",
          kind: "StatefulSet",
          metadata: { name, namespace: "default" },
          spec: { replicas: n, serviceName: name, selector: { matchLabels: labels }, template: { metadata: { labels }, spec: stsPodSpec() } },
        } as StatefulSet & TypedObject);
        await w.reached();
        const ms = performance.now() - t0;
        await w.stop();
        await new Promise((r) => setTimeout(r, 1000));
        return { ms, ...writesBetween(before, await scrape(client)) };
      },
      /** (d)'s peer: pods web-0 … web-(n-1) created directly, each once the one before is Ready. */
      statefulPods: async (n: number) => {
        const informer = new SharedIndexInformer<Pod & TypedObject>(client.resource<Pod & TypedObject>(builtin.pods, "default"));
        const ac = new AbortController();
        const running = informer.run(ac.signal);
        let wake: (() => void) | undefined;
        informer.addEventHandler({ onAdd: () => wake?.(), onUpdate: () => wake?.() });
        const pods = client.resource<Pod & TypedObject>(builtin.pods, "default");
        try {
          await informer.waitForSync(ac.signal);
          const t0 = performance.now();
          for (let i = 0; i < n; i++) {
            const name = `web-${i}`;
            await pods.create({ apiVersion: "v1", kind: "Pod", metadata: { name, labels: { app: "web" } }, spec: { ...stsPodSpec(), hostname: name, subdomain: "web" } } as Pod & TypedObject);
            const deadline = performance.now() + TIMEOUT_MS;
            for (;;) {
              const p = informer.getIndexer().list().find((x) => x.metadata?.name === name);
              if (p && podReady(p)) break;
              if (performance.now() > deadline) throw new Error(`${name}: not Ready after ${TIMEOUT_MS} ms`);
              await new Promise<void>((r) => {
                wake = r;
                setTimeout(r, 50);
              });
            }
          }
          return { ms: performance.now() - t0 };
        } finally {
          ac.abort();
          await running;
        }
      },
      cpu: () => cpuSeconds(),
      stop: () => client.close(),
    };
  },
};

const here = import.meta.url;
const log = (m: string) => progress("controlplane", m);

/** Starts a fresh control plane and a driver, runs `fn`, and stops both. */
async function withCluster<T>(label: string, options: ControlPlaneOptions, fn: (driver: Proc, cp: Proc) => Promise<T>): Promise<T> {
  const cp = await Proc.start(here, "controlplane", { options }, { label });
  let driver: Proc | undefined;
  try {
    driver = await Proc.start(here, "driver", { kubeconfigPath: await cp.call<string>("kubeconfigPath") }, { label: "driver" });
    return await fn(driver, cp);
  } finally {
    await driver?.stop();
    await cp.stop();
  }
}

type Writes = ReturnType<typeof writesBetween>;

const perApp = (w: Writes, n: number) =>
  Object.entries(w.writes)
    .sort((a, b) => b[1] - a[1])
    .map(([k, v]) => `${k} ${(v / n).toFixed(2)}`)
    .join(", ");

/** A side's label: the control plane as `kubeloop up` runs it, with its API server isolation. */
const upLabel = (iso: ApiServerIsolation) => `kubeloop-up-${iso}`;
const isolationName: Record<ApiServerIsolation, string> = {
  process: "API server in its own process",
  thread: "API server in its own thread",
  inline: "API server in the controllers' process",
};

/** Samples keyed by isolation, then "peer". */
type Sides = Record<string, Sample[]>;

const bench: Benchmark = {
  name: "controlplane",
  async run(): Promise<Figure[]> {
    const rounds = roundsFromEnv();
    const figures: Figure[] = [];
    const [primary, ...others] = ISOLATIONS;

    if (only("apps")) {
      // (a) Applications.
      const lastWrites: Partial<Record<ApiServerIsolation, Writes>> = {};
      const appWrites: Partial<Record<ApiServerIsolation, number[]>> = {};
      const appNoop: Partial<Record<ApiServerIsolation, number[]>> = {};
      const appSides: Record<string, (round: number) => Promise<Sample>> = {};
      for (const iso of ISOLATIONS) {
        appSides[iso] = (round) =>
          withCluster(upLabel(iso), { kubelet, apiServerIsolation: iso }, async (driver, cp) => {
            const m = await measured([cp, driver], () => driver.call<{ ms: number } & Writes>("applications", APPS));
            if (round > 0) {
              lastWrites[iso] = m.result;
              (appWrites[iso] ??= []).push(m.result.total / APPS);
              (appNoop[iso] ??= []).push(m.result.noopTotal);
            }
            return { value: m.result.ms, cpu: { "kubeloop-up": m.cpu[upLabel(iso)], driver: m.cpu.driver }, work: APPS, wallMs: m.wallMs } satisfies Sample;
          });
      }
      appSides.peer = () =>
        withCluster("kubeloop-apiserver", { controllers: [] }, async (driver, cp) => {
          const m = await measured([cp, driver], () => driver.call<{ ms: number }>("children", APPS));
          return { value: m.result.ms, cpu: { "kubeloop-up": m.cpu["kubeloop-apiserver"], driver: m.cpu.driver }, work: APPS, wallMs: m.wallMs } satisfies Sample;
        });
      const a: Sides = await rotate(appSides, { rounds, warmup: false, onRound: (r) => log(`${APPS} Applications: round ${r} done`) });
      for (const iso of ISOLATIONS) {
        const w = lastWrites[iso];
        figures.push(
          figure({
            name: `${APPS} Applications (1–3 replicas) → all Available, full control plane, ${isolationName[iso]}`,
            unit: "ms",
            higherIsBetter: false,
            ours: a[iso],
            peer: a.peer,
            peerName: `direct create of the ${2 * APPS} children, 2 writers, no controllers`,
            cpuOf: { ours: "kubeloop-up", peer: "kubeloop-up" },
            note: w
              ? `API writes per Application (server's apiserver_request_total, last round): ${perApp(w, APPS)}; total ${(w.total / APPS).toFixed(2)} (median over rounds ${median(appWrites[iso] ?? []).toFixed(2)}); no-op writes counted by the server: ${median(appNoop[iso] ?? [])} (median); goal ≤ 8 s on 2 cores`
              : undefined,
          }),
        );
      }
      for (const iso of others) {
        figures.push(
          figure({
            name: `${APPS} Applications → all Available: ${isolationName[primary]} vs ${isolationName[iso]}`,
            unit: "ms",
            higherIsBetter: false,
            ours: a[primary],
            peer: a[iso],
            peerName: `the same control plane, ${isolationName[iso]}`,
            cpuOf: { ours: "kubeloop-up", peer: "kubeloop-up" },
          }),
        );
      }
    }

    if (only("deployment")) {
      // (b) one big Deployment.
      const bigWrites: Partial<Record<ApiServerIsolation, Writes>> = {};
      const rollout: Sides = {};
      const direct: Sample[] = [];
      const depSides: Record<string, (round: number) => Promise<Sample>> = {};
      for (const iso of ISOLATIONS) {
        depSides[iso] = (round) =>
          withCluster(upLabel(iso), { kubelet, apiServerIsolation: iso }, async (driver, cp) => {
            const m = await measured([cp, driver], () => driver.call<{ readyMs: number; rolloutMs: number } & Writes>("deployment", REPLICAS));
            bigWrites[iso] = m.result;
            if (round > 0) (rollout[iso] ??= []).push({ value: m.result.rolloutMs });
            return { value: m.result.readyMs, cpu: { "kubeloop-up": m.cpu[upLabel(iso)], driver: m.cpu.driver }, wallMs: m.wallMs };
          });
      }
      depSides.peer = (round) =>
        withCluster("kubeloop-apiserver", { controllers: [] }, async (driver, cp) => {
          const m = await measured([cp, driver], () => driver.call<{ createMs: number; deleteMs: number }>("pods", REPLICAS));
          if (round > 0) direct.push({ value: m.result.createMs + m.result.deleteMs });
          return { value: m.result.createMs, cpu: { "kubeloop-up": m.cpu["kubeloop-apiserver"], driver: m.cpu.driver }, wallMs: m.wallMs };
        });
      const b: Sides = await rotate(depSides, { rounds, warmup: false, onRound: (r) => log(`${REPLICAS}-replica Deployment: round ${r} done`) });
      for (const iso of ISOLATIONS) {
        const w = bigWrites[iso];
        figures.push(
          figure({
            name: `${REPLICAS}-replica Deployment: create → all ready, ${isolationName[iso]}`,
            unit: "ms",
            higherIsBetter: false,
            ours: b[iso],
            peer: b.peer,
            peerName: `direct create of ${REPLICAS} pods, ${POD_CONCURRENCY} in flight`,
            cpuOf: { ours: "kubeloop-up", peer: "kubeloop-up" },
            goal: { text: "≤ 3× the direct creates (ratio ≥ 0.33)", min: 1 / 3 },
            note: w ? `API writes, create + rollout (last round): ${perApp(w, 1)}` : undefined,
          }),
          figure({
            name: `${REPLICAS}-replica Deployment: new image → 25 %/25 % rollout complete, ${isolationName[iso]}`,
            unit: "ms",
            higherIsBetter: false,
            ours: rollout[iso] ?? [],
            peer: direct,
            peerName: `direct create + delete of ${REPLICAS} pods`,
            goal: { text: "≤ 3× the direct creates and deletes (ratio ≥ 0.33)", min: 1 / 3 },
          }),
        );
      }
      for (const iso of others) {
        figures.push(
          figure({
            name: `${REPLICAS}-replica Deployment create → all ready: ${isolationName[primary]} vs ${isolationName[iso]}`,
            unit: "ms",
            higherIsBetter: false,
            ours: b[primary],
            peer: b[iso],
            peerName: `the same control plane, ${isolationName[iso]}`,
            cpuOf: { ours: "kubeloop-up", peer: "kubeloop-up" },
          }),
          figure({
            name: `${REPLICAS}-replica Deployment rollout: ${isolationName[primary]} vs ${isolationName[iso]}`,
            unit: "ms",
            higherIsBetter: false,
            ours: rollout[primary] ?? [],
            peer: rollout[iso] ?? [],
            peerName: `the same control plane, ${isolationName[iso]}`,
          }),
        );
      }
    }

    // (c) one big Job, (d) one StatefulSet: each beside the same pods created directly and driven
    // to the same state by the simulated kubelet alone.
    const kubeletOnly: ControlPlaneOptions = { kubelet, controllers: ["podlifecycle"] };
    if (only("job")) {
      let jobWrites: Writes | undefined;
      const c = await rotate(
        {
          ours: () =>
            withCluster("kubeloop-up", { kubelet }, async (driver, cp) => {
              const m = await measured([cp, driver], () => driver.call<{ ms: number } & Writes>("job", JOB_PODS));
              jobWrites = m.result;
              return { value: m.result.ms, cpu: m.cpu, work: JOB_PODS, wallMs: m.wallMs } satisfies Sample;
            }),
          peer: () =>
            withCluster("kubeloop-kubelet", kubeletOnly, async (driver, cp) => {
              const m = await measured([cp, driver], () => driver.call<{ ms: number }>("jobPods", JOB_PODS));
              return { value: m.result.ms, cpu: { "kubeloop-up": m.cpu["kubeloop-kubelet"], driver: m.cpu.driver }, work: JOB_PODS, wallMs: m.wallMs } satisfies Sample;
            }),
        },
        { rounds, warmup: false, onRound: (r) => log(`${JOB_PODS}-pod Job: round ${r} done`) },
      );
      figures.push(
        figure({
          name: `${JOB_PODS}-pod Job (parallelism ${JOB_PODS}, sh -c true) → Complete`,
          unit: "ms",
          higherIsBetter: false,
          ours: c.ours,
          peer: c.peer,
          peerName: `direct create of ${JOB_PODS} pods (${POD_CONCURRENCY} in flight) → all Succeeded, simulated kubelet only`,
          cpuOf: { ours: "kubeloop-up", peer: "kubeloop-up" },
          note: jobWrites ? `API writes per pod, Job create → Complete (last round): ${perApp(jobWrites, JOB_PODS)}; total ${(jobWrites.total / JOB_PODS).toFixed(2)}` : undefined,
        }),
      );
    }
    if (only("statefulset")) {
      let stsWrites: Writes | undefined;
      const d = await rotate(
        {
          ours: () =>
            withCluster("kubeloop-up", { kubelet }, async (driver, cp) => {
              const m = await measured([cp, driver], () => driver.call<{ ms: number } & Writes>("statefulSet", STS_REPLICAS));
              stsWrites = m.result;
              return { value: m.result.ms, cpu: m.cpu, work: STS_REPLICAS, wallMs: m.wallMs } satisfies Sample;
            }),
          peer: () =>
            withCluster("kubeloop-kubelet", kubeletOnly, async (driver, cp) => {
              const m = await measured([cp, driver], () => driver.call<{ ms: number }>("statefulPods", STS_REPLICAS));
              return { value: m.result.ms, cpu: { "kubeloop-up": m.cpu["kubeloop-kubelet"], driver: m.cpu.driver }, work: STS_REPLICAS, wallMs: m.wallMs } satisfies Sample;
            }),
        },
        { rounds, warmup: false, onRound: (r) => log(`${STS_REPLICAS}-replica StatefulSet: round ${r} done`) },
      );
      figures.push(
        figure({
          name: `${STS_REPLICAS}-replica StatefulSet (OrderedReady) → all ready`,
          unit: "ms",
          higherIsBetter: false,
          ours: d.ours,
          peer: d.peer,
          peerName: `direct create of ${STS_REPLICAS} pods in order, each once the one before is Ready, simulated kubelet only`,
          cpuOf: { ours: "kubeloop-up", peer: "kubeloop-up" },
          note: stsWrites ? `API writes per replica, create → ready (last round): ${perApp(stsWrites, STS_REPLICAS)}; total ${(stsWrites.total / STS_REPLICAS).toFixed(2)}` : undefined,
        }),
      );
    }
    return figures;
  },
};

export default bench;
