/**
 * `node dist-bench/bench/apiserver/profile.js <get|list|create|update|fanout> [head|<commit>] [ms] [out.cpuprofile]`:
 * a CPU profile of the API server process (HEAD, or the server built from <commit> as
 * apiserver/vsbaseline builds it) over one operation of apiserver/vsbaseline, under the same load
 * (undici, 16 concurrent requests, in its own process), for `ms` milliseconds (default 3000)
 * after a warm-up of the same length. Prints the profile's hottest functions (profsummary).
 */
import { execFileSync } from "node:child_process";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { LoadResult, RequestSpec } from "../loadgen.js";
import { Proc, stopAll } from "../proc.js";
import type { ApiServerInfo, ApiServerParams } from "../servers.js";
import { buildBaseline } from "./baseline.js";

const [op = "create", side = "head", msArg = "3000", outArg] = process.argv.slice(2);
const ms = Number(msArg);
const here = import.meta.url;
const json = { "content-type": "application/json" };

async function main(): Promise<void> {
  const dist = side === "head" ? undefined : buildBaseline(side, (m) => process.stderr.write(`${m}\n`)).dist;
  const options = { insecureHttp: true, server: { maxInFlight: 10_000 } };
  const server = await Proc.start(new URL("../servers.js", here).href, "apiserver", { options, dist } satisfies ApiServerParams, { label: `kubeloop-${side}` });
  const loadgen = await Proc.start(new URL("../loadgen.js", here).href, "http", {}, { label: "loadgen" });
  try {
    const { url } = await server.call<ApiServerInfo>("info");
    const cms = `${url}/api/v1/namespaces/default/configmaps`;
    await server.call("configMaps", "default", "cm-", 500, { bench: "list" }, 64);
    for (let w = 0; w < 16; w++) await server.call("configMaps", "default", `u-${w}-`, 1, {}, 8);
    await server.call("namespaces", ["fanout-0", "fanout-1"]);
    const createBody = (name: string) => JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name }, data: { a: "b" } });
    const specs: Record<string, RequestSpec> = {
      get: { method: "GET", url: `${cms}/cm-0` },
      list: { method: "GET", url: `${cms}?labelSelector=bench%3Dlist` },
      create: { method: "POST", url: `${url}/api/v1/namespaces/kube-public/configmaps`, body: createBody("c-{r}-{w}-{i}"), headers: json, expect: 201 },
      update: { method: "PUT", url: `${cms}/u-{w}-0`, body: JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "u-{w}-0" }, data: { n: "{i}" } }), headers: json, expect: 200 },
    };
    const run = async (r: number) => {
      if (op === "fanout") {
        const write = { method: "POST" as const, url: `${url}/api/v1/namespaces/fanout-${r}/configmaps`, body: createBody("f-{i}"), headers: json, expect: 201 };
        return loadgen.call<LoadResult>("fanout", { watchUrl: `${url}/api/v1/namespaces/fanout-${r}/configmaps?watch=true`, write, watchers: 100, events: 1000, concurrency: 16 });
      }
      const spec = specs[op];
      if (!spec) throw new Error(`unknown operation ${op}`);
      return loadgen.call<LoadResult>("throughput", { ...spec, tag: String(r) }, 16, ms);
    };
    await run(0);
    const out = outArg ?? join(tmpdir(), `kubeloop-${side}-${op}-${process.pid}.cpuprofile`);
    const cpu0 = await server.cpu();
    await server.call("__profStart");
    const r = await run(1);
    await server.call("__profStop", out);
    const cpu = (await server.cpu()) - cpu0;
    process.stdout.write(`${op} on ${side}: ${r.count} in ${r.ms.toFixed(0)} ms, server ${cpu.toFixed(3)} CPU-s (${((cpu / r.count) * 1e6).toFixed(0)} µs per unit, profiled)\n${out}\n`);
    process.stdout.write(execFileSync(process.execPath, [new URL("../profsummary.js", here).pathname, out, "40"], { encoding: "utf8" }));
  } finally {
    await stopAll(server, loadgen);
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
