/**
 * bench/informer: kubeloop's SharedIndexInformer beside @kubernetes/client-node's `makeInformer`,
 * same server, same data, same run.
 *
 * The embedded API server runs in a worker thread of this process (this very file, started with
 * `workerData.role === SERVER_ROLE`), so that the informers' CPU time and heap are not mixed with
 * the server's: the main thread's heap holds only the informer under test. The server holds
 * 20,000 pods of about 3.8 KB of JSON each (realistic pods: labels, annotations, ten env vars,
 * resources, a probe, admission defaults, managedFields), created in-process through the
 * registry.
 *
 * Both informers talk to the server over the same transport: HTTPS with the client certificate
 * of the kubeconfig the server writes (set INFORMER_BENCH_HTTP=1 for plain http). Each uses its
 * library's ordinary configuration: kubeloop pages its LIST (500 per page, as client-go does);
 * client-node lists everything at once with `listPodForAllNamespaces()` (the call its docs
 * show), which also turns every item into its generated model classes.
 *
 * Round 0 warms both libraries up and is not counted; then ROUNDS rounds, alternating which
 * library goes first, and the medians are reported.
 *
 * Figures:
 *  (a) initial sync: from start until the cache holds every pod and the handler has seen every
 *      add (kubeloop: hasSynced() and N adds delivered; client-node: N 'add' callbacks, which it
 *      makes synchronously while filling its cache). The thread's busy time (event-loop
 *      utilisation) is printed beside it. One extra kubeloop run with useWatchList.
 *  (b) heap per cached object: heapUsed after a full GC with the informer synced, minus heapUsed
 *      before it was created, divided by N; the peer is the average JSON size of a pod as served
 *      (goal ≤ 1.5× that); client-node's figure beside it; one extra kubeloop run with the
 *      dropManagedFields transform (kube-controller-manager's configuration).
 *  (c) update events applied: the server updates every pod once (one annotation), as fast as it
 *      can, through its storage; wall clock = N / (time from the command to the last update the
 *      handler sees), beside client-node and beside a raw watch stream read without decoding
 *      (what the server delivers: the ceiling); and per busy second of the client thread, which
 *      is the client's own cost whatever the server's speed.
 *
 * The machine's load moves the wall-clock figures; notes beyond the figures go to stderr.
 */
import { getHeapStatistics, setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { fileURLToPath } from "node:url";
import { performance } from "node:perf_hooks";
import { isMainThread, parentPort, Worker, workerData } from "node:worker_threads";
import type { Pod } from "kubernetes-types/core/v1.js";
import * as k8s from "@kubernetes/client-node";
import type { Benchmark, Figure } from "../harness.js";
import type { KubeObject } from "../../src/apimachinery/types.js";
import { KubeClient } from "../../src/client/kubeclient.js";
import { builtin } from "../../src/client/typed.js";
import { dropManagedFields, SharedIndexInformer, type SharedInformerOptions } from "../../src/informers/sharedinformer.js";

const SERVER_ROLE = "kubeloop-informer-bench-server";
const PODS = Number(process.env.INFORMER_BENCH_PODS ?? 20_000);
const NAMESPACES = 20;
const ROUNDS = 4;
const PLAIN_HTTP = process.env.INFORMER_BENCH_HTTP === "1";

const podsResource = builtin.pods;

// ---- the server side (worker thread) -------------------------------------------------------

interface ServerReady {
  kind: "ready";
  url: string;
  kubeconfigPath: string;
  pods: number;
  avgJsonBytes: number;
  createMs: number;
}
interface BurstDone {
  kind: "burst-done";
  writeMs: number;
  updates: number;
}
type FromServer = ServerReady | BurstDone | { kind: "stopped" };
type ToServer = { kind: "burst"; round: number } | { kind: "stop" };

function benchPod(i: number): KubeObject {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: {
      name: `web-${i.toString(36).padStart(4, "0")}-5d8f7c9b6-x${(i * 7919).toString(36).slice(-5)}`,
      namespace: `team-${i % NAMESPACES}`,
      labels: { app: `app-${i % 100}`, tier: "backend", "pod-template-hash": "5d8f7c9b6" },
      annotations: { "kubeloop.dev/owner": `team-${i % NAMESPACES}@example.com`, "kubeloop.dev/notes": "n".repeat(120) },
    },
    spec: {
      containers: [
        {
          name: "main",
          image: "registry.example.com/team/service:1.2.3",
          env: Array.from({ length: 10 }, (_, j) => ({ name: `SETTING_${j}`, value: `value-${j}-${i}` })),
          resources: { requests: { cpu: "100m", memory: "128Mi" }, limits: { cpu: "500m", memory: "512Mi" } },
          ports: [{ containerPort: 8080, name: "http", protocol: "TCP" }],
          readinessProbe: { httpGet: { path: "/healthz", port: 8080 }, periodSeconds: 10 },
        },
      ],
    },
  } as KubeObject;
}

async function serveInWorker(): Promise<void> {
  const port = parentPort!;
  const { startApiServer } = await import("../../src/apiserver/index.js");
  const { defaultWriteContext } = await import("../../src/apiserver/rest/context.js");
  // History and watch lag large enough that the burst never expires a watcher.
  const api = await startApiServer({
    port: 0,
    insecureHttp: PLAIN_HTTP,
    server: { storage: { historySize: 4 * PODS + 1000, maxWatchLag: 4 * PODS + 1000 }, maxInFlight: 10_000 },
  });
  const ctx = () => defaultWriteContext({ fieldManager: "bench" });
  const namespaces = api.server.registry.byGroupResource("", "namespaces")!;
  const pods = api.server.registry.byGroupResource("", "pods")!;
  for (let n = 0; n < NAMESPACES; n++) await namespaces.create(undefined, { metadata: { name: `team-${n}` } }, ctx());
  const t0 = performance.now();
  for (let i = 0; i < PODS; i++) {
    const p = benchPod(i);
    await pods.create(p.metadata!.namespace, p, ctx());
  }
  const createMs = performance.now() - t0;
  const listed = await api.server.storage.list(pods.prefix(undefined));
  let bytes = 0;
  for (const item of listed.items) bytes += Buffer.byteLength(JSON.stringify(item.object));
  port.postMessage({ kind: "ready", url: api.url, kubeconfigPath: api.kubeconfigPath, pods: listed.items.length, avgJsonBytes: bytes / listed.items.length, createMs } satisfies FromServer);

  port.on("message", (msg: ToServer) => {
    void (async () => {
      if (msg.kind === "stop") {
        await api.stop();
        port.postMessage({ kind: "stopped" } satisfies FromServer);
        port.close();
        return;
      }
      // One update per pod, straight into storage (no admission, no managedFields): the server
      // side of the burst is as cheap as it can be, so that the clients are what is measured.
      const storage = api.server.storage;
      const items = (await storage.list(pods.prefix(undefined))).items;
      const start = performance.now();
      let n = 0;
      for (const item of items) {
        const o = item.object;
        const next = { ...o, metadata: { ...o.metadata, annotations: { ...o.metadata?.annotations, "kubeloop.dev/burst": String(msg.round) } } };
        await storage.update(item.key, next as KubeObject);
        // Let the watch handlers stream while the writer runs.
        if (++n % 500 === 0) await new Promise((r) => setImmediate(r));
      }
      port.postMessage({ kind: "burst-done", writeMs: performance.now() - start, updates: n } satisfies FromServer);
    })();
  });
}

if (!isMainThread && (workerData as { role?: string } | null)?.role === SERVER_ROLE) {
  void serveInWorker();
}

// ---- the client side (main thread) ---------------------------------------------------------

class ServerHandle {
  private waiters: Array<(m: FromServer) => void> = [];
  private constructor(readonly worker: Worker) {
    worker.on("message", (m: FromServer) => {
      const w = this.waiters.shift();
      w?.(m);
    });
  }

  static async start(): Promise<{ server: ServerHandle; ready: ServerReady }> {
    const worker = new Worker(fileURLToPath(import.meta.url), { workerData: { role: SERVER_ROLE } });
    const server = new ServerHandle(worker);
    const failed = new Promise<never>((_, reject) => worker.once("error", reject));
    const ready = (await Promise.race([server.next(), failed])) as ServerReady;
    return { server, ready };
  }

  next(): Promise<FromServer> {
    return new Promise((r) => this.waiters.push(r));
  }

  send(m: ToServer): void {
    this.worker.postMessage(m);
  }

  async stop(): Promise<void> {
    const stopped = this.next();
    this.send({ kind: "stop" });
    await stopped;
    await this.worker.terminate();
  }
}

function obtainGc(): () => void {
  const g = (globalThis as { gc?: () => void }).gc;
  if (g) return g;
  setFlagsFromString("--expose-gc");
  return runInNewContext("gc") as () => void;
}

let gc: (() => void) | undefined;

function heapAfterGc(): number {
  gc ??= obtainGc();
  for (let i = 0; i < 3; i++) gc();
  return getHeapStatistics().used_heap_size;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 === 1 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/** Resolves when `cond()` holds; checks on every handler call (through `poke`) and every 5 ms. */
function until(cond: () => boolean): { promise: Promise<void>; poke: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  let done = false;
  const poke = () => {
    if (!done && cond()) {
      done = true;
      clearInterval(timer);
      resolve();
    }
  };
  const timer = setInterval(poke, 5);
  timer.unref();
  return { promise, poke };
}

/** Asks the server for a burst of updates; events/s = n / (time until `seen` resolves). */
async function timeBurst(server: ServerHandle, round: number, n: number, seen: Promise<void>): Promise<BurstResult> {
  const t = performance.now();
  const elu = performance.eventLoopUtilization();
  const done = server.next();
  server.send({ kind: "burst", round });
  await seen;
  const ms = performance.now() - t;
  const busyMs = performance.eventLoopUtilization(elu).active;
  const d = (await done) as BurstDone;
  return { perSecond: (n / ms) * 1000, perBusySecond: (n / busyMs) * 1000, writeMs: d.writeMs };
}

interface BurstResult {
  /** Events per second of wall-clock time. */
  perSecond: number;
  /** Events per second of this thread's busy time (event-loop utilisation): the client's own cost. */
  perBusySecond: number;
  writeMs: number;
}

/**
 * The ceiling for (c): the same burst read as a raw watch stream over kubeloop's transport
 * (same TLS, same connection settings), counting newline-terminated frames without decoding
 * them — what the server, TLS and the socket deliver before any client work.
 */
async function rawWatchBurst(ready: ServerReady, server: ServerHandle, round: number): Promise<BurstResult> {
  const client = KubeClient.fromKubeconfig({ kubeconfigPath: ready.kubeconfigPath, rest: { qps: -1 } });
  try {
    const head = await client.resource<Pod>(podsResource, "").list({ limit: 1 });
    const stream = await client.transport.stream({
      method: "GET",
      path: "/api/v1/pods",
      query: { watch: "true", resourceVersion: head.metadata?.resourceVersion },
    });
    let frames = 0;
    const seen = until(() => frames >= ready.pods);
    const reading = (async () => {
      for await (const chunk of stream.body) {
        for (let i = chunk.indexOf(0x0a); i >= 0; i = chunk.indexOf(0x0a, i + 1)) frames++;
        if (frames >= ready.pods) break;
      }
      seen.poke();
    })();
    const result = await timeBurst(server, round, ready.pods, seen.promise);
    stream.cancel();
    await reading.catch(() => undefined);
    return result;
  } finally {
    await client.close();
  }
}

interface Run {
  syncMs: number;
  heapPerObject: number;
  /** Runs the update burst; resolves to events/s. */
  burst?: (server: ServerHandle, round: number) => Promise<BurstResult>;
  /** Busy time of this thread during the sync (ms). */
  syncBusyMs: number;
  stop(): Promise<void>;
}

async function runKubeloop(ready: ServerReady, measureBurst: boolean, options: SharedInformerOptions<Pod> = {}): Promise<Run> {
  const client = KubeClient.fromKubeconfig({ kubeconfigPath: ready.kubeconfigPath, rest: { qps: -1 } });
  const heap0 = heapAfterGc();
  const start = performance.now();
  const elu = performance.eventLoopUtilization();
  const informer = new SharedIndexInformer<Pod>(client.resource<Pod>(podsResource, ""), options);
  let adds = 0;
  let updates = 0;
  let target = ready.pods;
  const synced = until(() => adds >= target && informer.hasSynced());
  let updated: ReturnType<typeof until> | undefined;
  informer.addEventHandler({
    onAdd: () => {
      adds++;
      synced.poke();
    },
    onUpdate: (oldObj, newObj) => {
      if (oldObj.metadata?.resourceVersion !== newObj.metadata?.resourceVersion) updates++;
      updated?.poke();
    },
  });
  const ac = new AbortController();
  const running = informer.run(ac.signal);
  await synced.promise;
  const syncMs = performance.now() - start;
  const syncBusyMs = performance.eventLoopUtilization(elu).active;
  const heapPerObject = (heapAfterGc() - heap0) / ready.pods;
  const run: Run = {
    syncMs,
    syncBusyMs,
    heapPerObject,
    stop: async () => {
      ac.abort();
      await running;
      await client.close();
    },
  };
  if (measureBurst) {
    run.burst = (server, round) => {
      updates = 0;
      target = ready.pods;
      updated = until(() => updates >= target);
      return timeBurst(server, round, ready.pods, updated.promise);
    };
  }
  return run;
}

async function runClientNode(ready: ServerReady, measureBurst: boolean): Promise<Run> {
  const kc = new k8s.KubeConfig();
  kc.loadFromFile(ready.kubeconfigPath);
  const core = kc.makeApiClient(k8s.CoreV1Api);
  const heap0 = heapAfterGc();
  const start = performance.now();
  const elu = performance.eventLoopUtilization();
  const informer = k8s.makeInformer<k8s.V1Pod>(kc, "/api/v1/pods", () => core.listPodForAllNamespaces());
  let adds = 0;
  let updates = 0;
  let target = ready.pods;
  const synced = until(() => adds >= target);
  let updated: ReturnType<typeof until> | undefined;
  informer.on("add", () => {
    adds++;
    synced.poke();
  });
  informer.on("update", () => {
    updates++;
    updated?.poke();
  });
  let stopping = false;
  informer.on("error", (err: unknown) => {
    if (!stopping) console.error(`client-node informer error: ${String(err)}`);
  });
  await informer.start();
  await synced.promise;
  const syncMs = performance.now() - start;
  const syncBusyMs = performance.eventLoopUtilization(elu).active;
  const heapPerObject = (heapAfterGc() - heap0) / ready.pods;
  const run: Run = {
    syncMs,
    syncBusyMs,
    heapPerObject,
    stop: async () => {
      stopping = true;
      await informer.stop();
    },
  };
  if (measureBurst) {
    run.burst = (server, round) => {
      updates = 0;
      target = ready.pods;
      updated = until(() => updates >= target);
      return timeBurst(server, round, ready.pods, updated.promise);
    };
  }
  return run;
}

const bench: Benchmark = {
  name: "informer",
  async run(): Promise<Figure[]> {
    const { server, ready } = await ServerHandle.start();
    const transport = PLAIN_HTTP ? "http" : "HTTPS (client certificate)";
    console.error(
      `informer bench: ${ready.pods} pods, ${ready.avgJsonBytes.toFixed(0)} B of JSON each (created in ${ready.createMs.toFixed(0)} ms); transport ${transport}; server in a worker thread`,
    );
    const sync = { kubeloop: [] as number[], clientNode: [] as number[] };
    const busy = { kubeloop: [] as number[], clientNode: [] as number[] };
    const heap = { kubeloop: [] as number[], clientNode: [] as number[] };
    const rate = { kubeloop: [] as BurstResult[], clientNode: [] as BurstResult[], raw: [] as BurstResult[] };
    let burstRound = 0;
    let heapStripped = 0;
    let watchListSyncMs = 0;
    const burstNote = (b: BurstResult) =>
      `burst ${b.perSecond.toFixed(0)} events/s, ${b.perBusySecond.toFixed(0)} per busy second (server wrote ${ready.pods} updates in ${b.writeMs.toFixed(0)} ms)`;
    try {
      // Round 0 warms up both libraries' code paths and is not counted.
      for (let round = 0; round <= ROUNDS; round++) {
        for (const which of round % 2 === 0 ? (["kubeloop", "clientNode"] as const) : (["clientNode", "kubeloop"] as const)) {
          const run = which === "kubeloop" ? await runKubeloop(ready, round > 0) : await runClientNode(ready, round > 0);
          let note = "";
          if (round > 0) {
            sync[which].push(run.syncMs);
            busy[which].push(run.syncBusyMs);
            heap[which].push(run.heapPerObject);
            const b = await run.burst!(server, ++burstRound);
            rate[which].push(b);
            note = `, ${burstNote(b)}`;
          }
          await run.stop();
          console.error(
            `  round ${round}${round === 0 ? " (warm-up)" : ""} ${which}: sync ${run.syncMs.toFixed(0)} ms (busy ${run.syncBusyMs.toFixed(0)} ms), heap ${run.heapPerObject.toFixed(0)} B/object${note}`,
          );
        }
        if (round > 0) {
          // The raw stream ceiling for the burst, in the same round (the machine's load drifts).
          const b = await rawWatchBurst(ready, server, ++burstRound);
          rate.raw.push(b);
          console.error(`  round ${round} raw watch stream: ${burstNote(b)}`);
        }
      }
      // kube-controller-manager's configuration: managedFields dropped before caching.
      const stripped = await runKubeloop(ready, false, { transform: dropManagedFields });
      await stripped.stop();
      heapStripped = stripped.heapPerObject;
      console.error(`  kubeloop with dropManagedFields: sync ${stripped.syncMs.toFixed(0)} ms, heap ${heapStripped.toFixed(0)} B/object`);
      // Watch-list (sendInitialEvents): the initial state streamed on the watch itself.
      const watchList = await runKubeloop(ready, false, { useWatchList: true });
      await watchList.stop();
      watchListSyncMs = watchList.syncMs;
      console.error(`  kubeloop with useWatchList: sync ${watchList.syncMs.toFixed(0)} ms (busy ${watchList.syncBusyMs.toFixed(0)} ms), heap ${watchList.heapPerObject.toFixed(0)} B/object`);
    } finally {
      await server.stop();
    }
    console.error(`  median sync busy time: kubeloop ${median(busy.kubeloop).toFixed(0)} ms, client-node ${median(busy.clientNode).toFixed(0)} ms`);
    const heapK = median(heap.kubeloop);
    const heapC = median(heap.clientNode);
    console.error(`  heap per cached object: kubeloop ${heapK.toFixed(0)} B, client-node ${heapC.toFixed(0)} B, JSON ${ready.avgJsonBytes.toFixed(0)} B`);
    return [
      {
        name: `initial sync, ${ready.pods} pods (${transport})`,
        value: median(sync.kubeloop),
        unit: "ms",
        peer: { name: "client-node makeInformer", value: median(sync.clientNode) },
        higherIsBetter: false,
        goal: "≥ 2× client-node",
      },
      {
        name: "heap per cached pod",
        value: heapK,
        unit: "B",
        peer: { name: "the pod's JSON size", value: ready.avgJsonBytes },
        higherIsBetter: false,
        goal: "≤ 1.5× JSON (ratio ≥ 0.67)",
      },
      {
        name: "heap per cached pod, dropManagedFields transform",
        value: heapStripped,
        unit: "B",
        peer: { name: "the pod's JSON size (with managedFields)", value: ready.avgJsonBytes },
        higherIsBetter: false,
      },
      {
        name: "heap per cached pod vs client-node",
        value: heapK,
        unit: "B",
        peer: { name: "client-node makeInformer", value: heapC },
        higherIsBetter: false,
      },
      {
        name: "initial sync, watch-list (one run)",
        value: watchListSyncMs,
        unit: "ms",
        peer: { name: "client-node makeInformer", value: median(sync.clientNode) },
        higherIsBetter: false,
      },
      {
        name: `update events applied, wall clock (burst of ${ready.pods})`,
        value: median(rate.kubeloop.map((b) => b.perSecond)),
        unit: "events/s",
        peer: { name: "client-node makeInformer", value: median(rate.clientNode.map((b) => b.perSecond)) },
        higherIsBetter: true,
      },
      {
        name: "update events applied, wall clock, vs the raw stream",
        value: median(rate.kubeloop.map((b) => b.perSecond)),
        unit: "events/s",
        peer: { name: "raw watch stream, no decoding (ceiling)", value: median(rate.raw.map((b) => b.perSecond)) },
        higherIsBetter: true,
      },
      {
        name: "update events applied per busy second of the client thread",
        value: median(rate.kubeloop.map((b) => b.perBusySecond)),
        unit: "events/s",
        peer: { name: "client-node makeInformer", value: median(rate.clientNode.map((b) => b.perBusySecond)) },
        higherIsBetter: true,
      },
    ];
  },
};

export default bench;
