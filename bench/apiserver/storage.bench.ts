/**
 * bench/apiserver/storage: the MVCC store under the API server, each side in its own process
 * (role "paging").
 *
 * - Paging: 100,000 keys read in pages of 500 (what every informer's initial LIST does,
 *   remainingItemCount included) beside the same keys read by one unpaged list, both at one
 *   revision. Paging is linear when the ratio stays near 1 (each page costs its own keys, not
 *   a rescan of every key left).
 */
import type { KubeObject } from "../../src/apimachinery/types.js";
import { MemoryStorage } from "../../src/apiserver/storage/memory.js";
import { cpuSeconds, figure, progress, rotate, roundsFromEnv, type Benchmark, type Figure, type Sample } from "../harness.js";
import { Proc, stopAll } from "../proc.js";

const KEYS = Number(process.env.BENCH_PAGING_KEYS ?? 100_000);
const PAGE = 500;

export const roles = {
  paging: async (p: { mode: "paged" | "unpaged" }) => {
    const s = new MemoryStorage({ historySize: 1000 });
    for (let i = 0; i < KEYS; i++) {
      const name = `cm-${String(i).padStart(6, "0")}`;
      await s.create(`/registry/core/configmaps/ns-${i % 10}/${name}`, { apiVersion: "v1", kind: "ConfigMap", metadata: { name, namespace: `ns-${i % 10}` }, data: { k: "v" } } as KubeObject);
    }
    return {
      run: async (): Promise<Sample> => {
        const cpu0 = cpuSeconds();
        const t0 = performance.now();
        let n = 0;
        if (p.mode === "unpaged") {
          n = (await s.list("/registry/core/configmaps/")).items.length;
        } else {
          const rev = s.currentRevision();
          let start: string | undefined;
          for (;;) {
            const r = await s.list("/registry/core/configmaps/", { revision: rev, startKey: start, limit: PAGE });
            n += r.items.length;
            if (!r.nextKey) break;
            if (r.remainingItemCount === undefined) throw new Error("no remainingItemCount on a page");
            start = r.nextKey;
          }
        }
        const ms = performance.now() - t0;
        if (n !== KEYS) throw new Error(`listed ${n} of ${KEYS} keys`);
        return { value: ms, wallMs: ms, work: n, cpu: { [p.mode]: cpuSeconds() - cpu0 } };
      },
    };
  },
};

const bench: Benchmark = {
  name: "apiserver/storage",
  async run(): Promise<Figure[]> {
    const rounds = roundsFromEnv();
    const paged = await Proc.start(import.meta.url, "paging", { mode: "paged" }, { label: "paged" });
    const unpaged = await Proc.start(import.meta.url, "paging", { mode: "unpaged" }, { label: "unpaged" });
    try {
      const s = await rotate(
        { paged: () => paged.call<Sample>("run"), unpaged: () => unpaged.call<Sample>("run") },
        { rounds, onRound: (r) => progress("apiserver/storage", `paging round ${r}`) },
      );
      return [
        figure({
          name: `list ${KEYS.toLocaleString("en-US")} keys in pages of ${PAGE} (with remainingItemCount)`,
          unit: "ms",
          higherIsBetter: false,
          ours: s.paged,
          peer: s.unpaged,
          peerName: "one unpaged list of the same keys",
          cpuOf: { ours: "paged", peer: "unpaged" },
          goal: { text: "linear: ≥ 0.5 (paged at most 2× unpaged)", min: 0.5 },
        }),
      ];
    } finally {
      await stopAll(paged, unpaged);
    }
  },
};

export default bench;
