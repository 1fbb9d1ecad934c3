/**
 * bench/informer: kubeloop's SharedIndexInformer beside @kubernetes/client-node's `makeInformer`
 * and beside a bare paged LIST + `JSON.parse` client, against the same kubeloop API server, the
 * server in a process of its own (role "apiserver" of servers.ts) and each client in another
 * (roles below), so that the client CPU-seconds and heap are the client's alone.
 *
 * The server holds PODS (default 20,000; BENCH_INFORMER_PODS) realistic pods of about 3.8 KB of
 * JSON (servers.ts `benchPod`), created in-process through the registry. The whole figure set
 * runs twice: over plain http and over HTTPS with the kubeconfig's client certificate (the
 * default transport of every kubeconfig kubeloop writes).
 *
 * Each client uses its library's ordinary configuration: kubeloop pages its LIST (500 per page,
 * as client-go does); client-node lists everything at once with `listPodForAllNamespaces()`
 * (the call its docs show), turning every item into its model classes; the bare client pages
 * 500 at a time with undici and keeps the parsed items in an array.
 *
 * Rounds are rotated (round 0 warms up, not counted); in every round each side syncs a fresh
 * informer in its (long-lived) process, then — kubeloop and client-node only — the server
 * updates every pod once (one annotation, straight into storage) and the client's CPU-seconds
 * until its handler has seen every update give the CPU per watch event.
 *
 * Figures (per transport): initial sync time vs client-node and vs the bare paged LIST client,
 * watch-list sync vs paged LIST, CPU per watch event vs client-node, heap per cached pod vs the
 * pod's JSON size and vs client-node.
 */
import { builtin } from "../../src/client/typed.js";
import type { Pod } from "../../src/apimachinery/api/core/v1.js";
import * as k8s from "@kubernetes/client-node";
import { Agent, request } from "undici";
import type { TypedObject } from "../../src/apimachinery/types.js";
import { KubeClient } from "../../src/client/kubeclient.js";
import { dropManagedFields, SharedIndexInformer, type SharedInformerOptions } from "../../src/informers/sharedinformer.js";
import { cpuSeconds, figure, progress, rotate, roundsFromEnv, type Benchmark, type Figure, type Sample } from "../harness.js";
import type { TLSFiles } from "../loadgen.js";
import { Proc, ProcGroup } from "../proc.js";
import type { ApiServerInfo } from "../servers.js";

const PODS = Number(process.env.BENCH_INFORMER_PODS ?? 20_000);
const NAMESPACES = 20;
const PAGE = 500;

const gc = () => {
  const g = (globalThis as { gc?: () => void }).gc;
  for (let i = 0; i < 3; i++) g?.();
};
const heapUsed = () => {
  gc();
  return process.memoryUsage().heapUsed;
};

/** Resolves once `cond()` holds; checked whenever `poke()` is called and every 5 ms. */
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
  poke();
  return { promise, poke };
}

export interface SyncResult {
  ms: number;
  /** CPU-seconds of the client process during the sync. */
  cpu: number;
  /** Heap growth after a full GC divided by the number of pods (bytes). */
  heapPerObject: number;
}

export interface BurstResult {
  ms: number;
  cpu: number;
  events: number;
}

/**
 * The informer side common to both libraries: `sync` starts a fresh informer and resolves once
 * every pod has been delivered; `armBurst` + `awaitBurst` measure one update of every pod.
 */
interface InformerRun {
  stop(): Promise<void>;
}

function informerRole(startInformer: (onAdd: () => void, onUpdate: () => void) => Promise<InformerRun>) {
  let run: InformerRun | undefined;
  let adds = 0;
  let updates = 0;
  let waiting: ReturnType<typeof until> | undefined;
  let burstStart: { t: number; cpu: number } | undefined;
  return {
    sync: async (n: number): Promise<SyncResult> => {
      adds = 0;
      updates = 0;
      const heap0 = heapUsed();
      const cpu0 = cpuSeconds();
      const t0 = performance.now();
      waiting = until(() => adds >= n);
      run = await startInformer(
        () => {
          adds++;
          waiting?.poke();
        },
        () => {
          updates++;
          waiting?.poke();
        },
      );
      await waiting.promise;
      const ms = performance.now() - t0;
      const cpu = cpuSeconds() - cpu0;
      return { ms, cpu, heapPerObject: (heapUsed() - heap0) / n };
    },
    armBurst: (n: number) => {
      updates = 0;
      waiting = until(() => updates >= n);
      burstStart = { t: performance.now(), cpu: cpuSeconds() };
    },
    awaitBurst: async (): Promise<BurstResult> => {
      await waiting!.promise;
      return { ms: performance.now() - burstStart!.t, cpu: cpuSeconds() - burstStart!.cpu, events: updates };
    },
    close: async () => {
      await run?.stop();
      run = undefined;
    },
  };
}

export const roles = {
  kubeloop: (p: { kubeconfigPath: string; options?: { useWatchList?: boolean; dropManagedFields?: boolean } }) =>
    informerRole(async (onAdd, onUpdate) => {
      const client = KubeClient.fromKubeconfig({ kubeconfigPath: p.kubeconfigPath, kubeconfigEnv: "", rest: { qps: -1 } });
      const opts: SharedInformerOptions<Pod & TypedObject> = { useWatchList: p.options?.useWatchList };
      if (p.options?.dropManagedFields) opts.transform = dropManagedFields;
      const informer = new SharedIndexInformer<Pod & TypedObject>(client.resource(builtin.pods, ""), opts);
      informer.addEventHandler({
        onAdd,
        onUpdate: (oldObj, newObj) => {
          if (oldObj.metadata?.resourceVersion !== newObj.metadata?.resourceVersion) onUpdate();
        },
      });
      const ac = new AbortController();
      const running = informer.run(ac.signal);
      return {
        stop: async () => {
          ac.abort();
          await running;
          await client.close();
        },
      };
    }),

  clientnode: (p: { kubeconfigPath: string }) =>
    informerRole(async (onAdd, onUpdate) => {
      const kc = new k8s.KubeConfig();
      kc.loadFromFile(p.kubeconfigPath);
      const core = kc.makeApiClient(k8s.CoreV1Api);
      const informer = k8s.makeInformer<k8s.V1Pod>(kc, "/api/v1/pods", () => core.listPodForAllNamespaces());
      informer.on("add", onAdd);
      informer.on("update", onUpdate);
      let stopping = false;
      informer.on("error", (err: unknown) => {
        if (!stopping) process.stderr.write(`client-node informer error: ${String(err)}\n`);
      });
      await informer.start();
      return {
        stop: async () => {
          stopping = true;
          await informer.stop();
        },
      };
    }),

  /** The bare client: paged LIST with undici (keep-alive, same TLS), `JSON.parse` of each page. */
  rawlist: (p: { url: string; tls?: TLSFiles }) => {
    const agent = new Agent({ connections: 1, connect: p.tls ? { ca: p.tls.ca, cert: p.tls.cert, key: p.tls.key } : undefined });
    let kept: unknown[] = [];
    return {
      sync: async (n: number): Promise<SyncResult> => {
        kept = [];
        const heap0 = heapUsed();
        const cpu0 = cpuSeconds();
        const t0 = performance.now();
        let cont = "";
        do {
          const res = await request(`${p.url}/api/v1/pods?limit=${PAGE}${cont ? `&continue=${encodeURIComponent(cont)}` : ""}`, { dispatcher: agent });
          const text = await res.body.text();
          if (res.statusCode !== 200) throw new Error(`LIST: ${res.statusCode} ${text.slice(0, 200)}`);
          const page = JSON.parse(text) as { items: unknown[]; metadata: { continue?: string } };
          for (const item of page.items) kept.push(item);
          cont = page.metadata.continue ?? "";
        } while (cont);
        const ms = performance.now() - t0;
        const cpu = cpuSeconds() - cpu0;
        if (kept.length !== n) throw new Error(`listed ${kept.length} of ${n} pods`);
        return { ms, cpu, heapPerObject: (heapUsed() - heap0) / n };
      },
      close: () => {
        kept = [];
      },
      stop: () => agent.close(),
    };
  },
};

const serversModule = new URL("../servers.js", import.meta.url).href;
const log = (m: string) => progress("informer", m);

async function transportFigures(https: boolean, rounds: number): Promise<Figure[]> {
  const transport = https ? "HTTPS, client certificate" : "http";
  const here = import.meta.url;
  // History and watch lag large enough that a burst never expires a watcher.
  const storage = { historySize: 4 * PODS + 1000, maxWatchLag: 4 * PODS + 1000 };
  const server = await Proc.start(serversModule, "apiserver", { options: { insecureHttp: !https, server: { storage, maxInFlight: 10_000 } } }, { label: `kubeloop-apiserver` });
  const procs = new ProcGroup();
  procs.add(server);
  try {
    const info = await server.call<ApiServerInfo>("info");
    await server.call("namespaces", Array.from({ length: NAMESPACES }, (_, k) => `team-${k}`));
    const t0 = performance.now();
    const made = await server.call<{ pods: number; avgJsonBytes: number }>("pods", PODS, NAMESPACES);
    log(`${transport}: ${made.pods} pods of ${made.avgJsonBytes.toFixed(0)} B JSON created in ${(performance.now() - t0).toFixed(0)} ms`);
    const start = (role: string, params: unknown, label: string) => procs.start(here, role, params, label);
    const kl = await start("kubeloop", { kubeconfigPath: info.kubeconfigPath }, "kubeloop-informer");
    const klWatchList = await start("kubeloop", { kubeconfigPath: info.kubeconfigPath, options: { useWatchList: true } }, "kubeloop-informer-watchlist");
    const cn = await start("clientnode", { kubeconfigPath: info.kubeconfigPath }, "client-node-informer");
    const raw = await start("rawlist", { url: info.url, tls: info.client }, "bare-list-client");

    const bursts: Record<"kubeloop" | "clientnode", Sample[]> = { kubeloop: [], clientnode: [] };
    const heaps: Record<"kubeloop" | "clientnode", number[]> = { kubeloop: [], clientnode: [] };
    let burstRound = 0;
    const syncSide = (p: Proc, burst?: "kubeloop" | "clientnode") => async (round: number): Promise<Sample> => {
      const s = await p.call<SyncResult>("sync", PODS);
      if (burst) {
        await p.call("armBurst", PODS);
        const seen = p.call<BurstResult>("awaitBurst");
        await server.call("burst", ++burstRound);
        const b = await seen;
        if (round > 0) {
          bursts[burst].push({ value: (b.cpu * 1e6) / b.events, cpu: { [p.label]: b.cpu }, work: b.events, wallMs: b.ms });
          heaps[burst].push(s.heapPerObject);
        }
      }
      await p.call("close");
      return { value: s.ms, cpu: { [p.label]: s.cpu }, work: PODS, wallMs: s.ms };
    };
    const s = await rotate(
      { kubeloop: syncSide(kl, "kubeloop"), watchlist: syncSide(klWatchList), clientnode: syncSide(cn, "clientnode"), raw: syncSide(raw) },
      { rounds, onRound: (r) => log(`${transport}: round ${r}${r === 0 ? " (warm-up)" : ""} done`) },
    );
    const name = (what: string) => `${what}, ${PODS / 1000}k pods (${transport})`;
    const figs: Figure[] = [
      figure({
        name: name("informer initial sync"),
        unit: "ms",
        higherIsBetter: false,
        ours: s.kubeloop,
        peer: s.clientnode,
        peerName: "client-node makeInformer",
        cpuOf: { ours: "kubeloop-informer", peer: "client-node-informer" },
        goal: https ? { text: "≥ 2× client-node", min: 2 } : undefined,
      }),
      figure({
        name: name("informer initial sync vs a bare client"),
        unit: "ms",
        higherIsBetter: false,
        ours: s.kubeloop,
        peer: s.raw,
        peerName: `bare paged LIST (${PAGE}) + JSON.parse`,
        cpuOf: { ours: "kubeloop-informer", peer: "bare-list-client" },
        goal: https ? { text: "≥ 0.9 of the bare client", min: 0.9 } : undefined,
      }),
      figure({
        name: name("informer initial sync, watch-list"),
        unit: "ms",
        higherIsBetter: false,
        ours: s.watchlist,
        peer: s.kubeloop,
        peerName: "kubeloop informer, paged LIST",
        cpuOf: { ours: "kubeloop-informer-watchlist", peer: "kubeloop-informer" },
        goal: { text: "no slower than paged LIST", min: 1 },
      }),
      figure({
        name: name("informer CPU per watch event (update of every pod)"),
        unit: "µs CPU/event",
        higherIsBetter: false,
        ours: bursts.kubeloop,
        peer: bursts.clientnode,
        peerName: "client-node makeInformer",
        goal: { text: "≤ client-node's CPU per event", min: 1 },
      }),
      figure({
        name: name("heap per cached pod"),
        unit: "B",
        higherIsBetter: false,
        ours: heaps.kubeloop.map((v) => ({ value: v })),
        peer: heaps.clientnode.map((v) => ({ value: v })),
        peerName: "client-node makeInformer",
        note: `pod JSON as stored: ${made.avgJsonBytes.toFixed(0)} B`,
      }),
    ];
    return figs;
  } finally {
    await procs.stop();
  }
}

const bench: Benchmark = {
  name: "informer",
  async run(): Promise<Figure[]> {
    const rounds = roundsFromEnv();
    // BENCH_INFORMER_TRANSPORTS=http,https (both by default): only these transports' figures.
    const only = (process.env.BENCH_INFORMER_TRANSPORTS ?? "http,https").split(",").map((t) => t.trim());
    const figs: Figure[] = [];
    if (only.includes("http")) figs.push(...(await transportFigures(false, rounds)));
    if (only.includes("https")) figs.push(...(await transportFigures(true, rounds)));
    return figs;
  },
};

export default bench;
