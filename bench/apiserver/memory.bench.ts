/**
 * bench/apiserver/memory: what a churn leaves behind. The API server (its own process, in
 * memory) takes 5,000 pod creates and 5,000 deletes over HTTP from the load generator (another
 * process); its retained memory — V8 heap after full collections plus Buffers (the cached JSON
 * of objects and frames) — is read before the churn, right after it, and once the watch
 * history window has passed. The window is bounded by time as well as by count (storage/memory.ts);
 * the benchmark runs the server with a 10 s window (BENCH_HISTORY_WINDOW_MS) instead of the
 * default 75 s so that a round takes seconds.
 *
 * Figure: memory after the window beside memory before the churn, per round (the same process
 * goes through every round); goal within 25 % (ratio ≥ 0.8).
 */
import { figure, progress, roundsFromEnv, type Benchmark, type Figure, type Sample } from "../harness.js";
import type { LoadResult } from "../loadgen.js";
import { Proc, stopAll, type HeapUsage } from "../proc.js";
import { benchPod, type ApiServerInfo } from "../servers.js";

const CHURN = Number(process.env.BENCH_CHURN ?? 5000);
const WINDOW_MS = Number(process.env.BENCH_HISTORY_WINDOW_MS ?? 10_000);
const MiB = 1024 * 1024;

const retained = (h: HeapUsage) => h.heapUsed + h.arrayBuffers;

const bench: Benchmark = {
  name: "apiserver/memory",
  async run(): Promise<Figure[]> {
    const rounds = roundsFromEnv();
    const api = await Proc.start(new URL("../servers.js", import.meta.url).href, "apiserver", { options: { insecureHttp: true, server: { maxInFlight: 10_000, storage: { historyWindowMs: WINDOW_MS } } } }, { label: "kubeloop" });
    const loadgen = await Proc.start(new URL("../loadgen.js", import.meta.url).href, "http", {}, { label: "loadgen" });
    try {
      const { url } = await api.call<ApiServerInfo>("info");
      await api.call("namespaces", ["churn"]);
      const pod = benchPod(0, 1);
      const body = JSON.stringify({ ...pod, metadata: { ...pod.metadata, name: "churn-{r}-{i}", namespace: "churn" } });
      const before: Sample[] = [];
      const after: Sample[] = [];
      const peaks: number[] = [];
      // Round 0 warms the paths up (and fills whatever caches a first churn fills).
      for (let r = 0; r <= rounds; r++) {
        const h0 = await api.heap();
        await loadgen.call<LoadResult>("many", { method: "POST", url: `${url}/api/v1/namespaces/churn/pods`, body, headers: { "content-type": "application/json" }, expect: 201, tag: String(r) }, CHURN, 16);
        await loadgen.call<LoadResult>("many", { method: "DELETE", url: `${url}/api/v1/namespaces/churn/pods/churn-{r}-{i}?gracePeriodSeconds=0`, tag: String(r) }, CHURN, 16);
        const peak = await api.heap();
        await new Promise((res) => setTimeout(res, WINDOW_MS + 2000));
        const h1 = await api.heap();
        progress("apiserver/memory", `round ${r}${r === 0 ? " (warm-up)" : ""}: before ${(retained(h0) / MiB).toFixed(1)} MiB, after the churn ${(retained(peak) / MiB).toFixed(1)} MiB, after the window ${(retained(h1) / MiB).toFixed(1)} MiB (rss ${(h1.rss / MiB).toFixed(0)} MiB)`);
        if (r === 0) continue;
        before.push({ value: retained(h0) / MiB });
        after.push({ value: retained(h1) / MiB });
        peaks.push(retained(peak) / MiB);
      }
      return [
        figure({
          name: `server memory after ${CHURN.toLocaleString("en-US")} pod creates + deletes, once the ${WINDOW_MS / 1000} s history window has passed (heap + Buffers)`,
          unit: "MiB",
          higherIsBetter: false,
          ours: after,
          peer: before,
          peerName: "the same server before the churn",
          goal: { text: "within 25 % (≥ 0.8)", min: 0.8 },
          note: `right after the churn: ${peaks.map((p) => p.toFixed(0)).join(", ")} MiB`,
        }),
      ];
    } finally {
      await stopAll(api, loadgen);
    }
  },
};

export default bench;
