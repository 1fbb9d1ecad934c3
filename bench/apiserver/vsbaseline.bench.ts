/**
 * bench/apiserver/vsbaseline: the API server of this checkout (HEAD) beside the same server
 * built from the commit before schema-driven decoding and admission went in (issue 14's
 * criterion: GET, LIST, CREATE and watch fan-out within 10 % of it), and both beside the bare
 * node:http ceiling — GET, LIST 500, CREATE, UPDATE and watch fan-out (100 watchers × 1,000
 * creates), three sides in rotated rounds in one run.
 *
 * The baseline is built at bench time from git (apiserver/baseline.ts): BENCH_BASELINE names the
 * commit, default bff5157 — main's first parent of "Merge branch 'admit'" (aca6d21), which
 * precedes the decode merge (8731b78) as well. Why a build of that commit rather than HEAD with
 * decoding switched off: the criterion is about the server as it was, and admission changed in
 * the same work (a decode-off switch would keep it, and would be a path production never runs).
 * What else changed between the two commits is in the comparison too (notably the server
 * metrics on every request and LIST written from cached chunks); the figures say "HEAD vs the
 * baseline", not "the decoder alone" (bench/apiserver/decode.bench.ts measures that).
 *
 * Every server and the ceiling run in processes of their own, the load generator (undici, 16
 * concurrent requests) in another; BENCH_HTTP_MS of load per side per round. The ratios per
 * server CPU-second are the ones the goals are about (they do not depend on whether the load
 * generator kept up). BENCH_OPS=create,update (ids: get, list, create, update, fanout) measures only
 * those figures, while iterating.
 */
import { figure, progress, rotate, roundsFromEnv, type Benchmark, type Figure, type Goal, type Sample } from "../harness.js";
import type { FanoutSpec, LoadResult, RequestSpec } from "../loadgen.js";
import { measured, Proc, ProcGroup } from "../proc.js";
import type { ApiServerInfo, ApiServerParams } from "../servers.js";
import { buildBaseline } from "./baseline.js";

const CONCURRENCY = 16;
const DURATION_MS = Number(process.env.BENCH_HTTP_MS ?? 1500);
const LIST_ITEMS = 500;
const WATCHERS = 100;
const EVENTS = 1000;
const BASELINE = process.env.BENCH_BASELINE ?? "bff5157";
/** BENCH_OPS=create,update (get, list, create, update, fanout): only these figures, while iterating. */
const OPS = process.env.BENCH_OPS ? new Set(process.env.BENCH_OPS.split(",")) : undefined;

const here = import.meta.url;
const loadgenModule = new URL("../loadgen.js", here).href;
const bareModule = new URL("../bare.js", here).href;
const serversModule = new URL("../servers.js", here).href;
const log = (m: string) => progress("apiserver/vsbaseline", m);
const json = { "content-type": "application/json" };

type Side = "head" | "base" | "bare";
const LABEL: Record<Side, string> = { head: "kubeloop-head", base: "kubeloop-baseline", bare: "bare" };

async function sample(loadgen: Proc, server: Proc, call: () => Promise<LoadResult>): Promise<Sample> {
  const m = await measured([server, loadgen], call);
  const r = m.result;
  return { value: (r.count / r.ms) * 1000, work: r.count, wallMs: r.ms, cpu: m.cpu };
}

interface Operation {
  id: "get" | "list" | "create" | "update" | "fanout";
  name: string;
  unit: string;
  /** The side's measurement in round r. */
  run: (side: Side, round: number) => Promise<Sample>;
  /** Goal of HEAD vs the ceiling (issue 17), per server CPU-second. */
  ceilingGoal?: Goal;
}

const withinTenPercent: Goal = { text: "≥ 0.9 of the baseline per server CPU-second (issue 14)", min: 0.9, on: "cpuRatio" };

const bench: Benchmark = {
  name: "apiserver/vsbaseline",
  async run(): Promise<Figure[]> {
    const rounds = roundsFromEnv();
    const baseline = buildBaseline(BASELINE, log);
    log(`baseline: ${baseline.subject.slice(0, 100)}`);
    const procs = new ProcGroup();
    const start = (module: string, role: string, params: unknown, label: string) => procs.start(module, role, params, label);
    try {
      const options = { insecureHttp: true, server: { maxInFlight: 10_000 } };
      const [head, base, bare, loadgen] = await Promise.all([
        start(serversModule, "apiserver", { options } satisfies ApiServerParams, LABEL.head),
        start(serversModule, "apiserver", { options, dist: baseline.dist } satisfies ApiServerParams, LABEL.base),
        start(bareModule, "bare", {}, LABEL.bare),
        start(loadgenModule, "http", {}, "loadgen"),
      ]);
      const server: Record<Side, Proc> = { head, base, bare };
      const url: Record<Side, string> = {
        head: (await head.call<ApiServerInfo>("info")).url,
        base: (await base.call<ApiServerInfo>("info")).url,
        bare: await bare.call<string>("url"),
      };
      const fetchText = async (u: string) => (await loadgen.call<{ status: number; text: string }>("fetchText", u)).text;
      const createBody = (name: string) => JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name }, data: { a: "b" } });
      const cms = (s: Side) => `${url[s]}/api/v1/namespaces/default/configmaps`;
      const sizes: string[] = [];
      for (const s of ["head", "base"] as const) {
        const p = server[s];
        await p.call("configMaps", "default", "cm-", LIST_ITEMS, { bench: "list" }, 64);
        await p.call("namespaces", Array.from({ length: rounds + 1 }, (_, r) => `fanout-${r}`));
        for (let w = 0; w < CONCURRENCY; w++) await p.call("configMaps", "default", `u-${w}-`, 1, {}, 8);
        await loadgen.call("many", { method: "POST", url: `${url[s]}/api/v1/namespaces/kube-public/configmaps`, body: createBody("probe"), headers: json, expect: 201 }, 1, 1);
      }
      // The ceiling answers HEAD's bytes; the baseline's sizes are noted beside them.
      const bytes = async (s: "head" | "base") => ({
        get: await fetchText(`${cms(s)}/cm-0`),
        list: await fetchText(`${cms(s)}?labelSelector=bench%3Dlist`),
        created: await fetchText(`${url[s]}/api/v1/namespaces/kube-public/configmaps/probe`),
        updated: await fetchText(`${cms(s)}/u-0-0`),
      });
      const [hb, bb] = [await bytes("head"), await bytes("base")];
      for (const k of ["get", "list", "created", "updated"] as const) sizes.push(`${k} ${hb[k].length} B (baseline ${bb[k].length} B)`);
      await bare.call("route", "/get", { status: 200, body: hb.get });
      await bare.call("route", "/list", { status: 200, body: hb.list });
      await bare.call("route", "/create", { status: 201, body: hb.created });
      await bare.call("route", "/update", { status: 200, body: hb.updated });
      await bare.call("fanoutFrame", `{"type":"ADDED","object":${hb.created}}\n`, hb.created);
      log(`fixtures ready; answers: ${sizes.join(", ")}`);

      const throughput = (spec: (s: Side) => RequestSpec) => (s: Side) => sample(loadgen, server[s], () => loadgen.call<LoadResult>("throughput", spec(s), CONCURRENCY, DURATION_MS));
      const get = throughput((s) => ({ method: "GET", url: s === "bare" ? `${url.bare}/get` : `${cms(s)}/cm-0` }));
      const list = throughput((s) => ({ method: "GET", url: s === "bare" ? `${url.bare}/list` : `${cms(s)}?labelSelector=bench%3Dlist` }));
      const updateBody = JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "u-{w}-0" }, data: { n: "{i}" } });
      const update = throughput((s) => ({ method: "PUT", url: s === "bare" ? `${url.bare}/update` : `${cms(s)}/u-{w}-0`, body: updateBody, headers: json, expect: 200 }));
      const operations: Operation[] = [
        { id: "get", name: "GET one object", unit: "req/s", run: (s) => get(s), ceilingGoal: { text: "≥ 0.85 of the ceiling per server CPU-second", min: 0.85, on: "cpuRatio" } },
        { id: "list", name: `LIST ${LIST_ITEMS} objects (label selector)`, unit: "req/s", run: (s) => list(s), ceilingGoal: { text: "≥ 0.8 of the ceiling per server CPU-second", min: 0.8, on: "cpuRatio" } },
        {
          id: "create",
          name: "CREATE",
          unit: "req/s",
          run: (s, r) =>
            sample(loadgen, server[s], () =>
              loadgen.call<LoadResult>(
                "throughput",
                { method: "POST", url: s === "bare" ? `${url.bare}/create` : `${url[s]}/api/v1/namespaces/kube-public/configmaps`, body: createBody("c-{r}-{w}-{i}"), headers: json, expect: 201, tag: String(r) },
                CONCURRENCY,
                DURATION_MS,
              ),
            ),
          ceilingGoal: { text: "≥ 0.5 of the ceiling per server CPU-second", min: 0.5, on: "cpuRatio" },
        },
        { id: "update", name: "UPDATE (PUT)", unit: "req/s", run: (s) => update(s) },
        {
          id: "fanout",
          name: `watch fan-out (${WATCHERS} watchers × ${EVENTS} creates)`,
          unit: "events/s",
          run: (s, r) => {
            const spec: FanoutSpec =
              s === "bare"
                ? { watchUrl: `${url.bare}/watch?watch=1`, write: { method: "POST", url: `${url.bare}/fanout`, body: createBody("f-{i}"), headers: json, expect: 201 }, watchers: WATCHERS, events: EVENTS, concurrency: CONCURRENCY }
                : {
                    watchUrl: `${url[s]}/api/v1/namespaces/fanout-${r}/configmaps?watch=true`,
                    write: { method: "POST", url: `${url[s]}/api/v1/namespaces/fanout-${r}/configmaps`, body: createBody("f-{i}"), headers: json, expect: 201 },
                    watchers: WATCHERS,
                    events: EVENTS,
                    concurrency: CONCURRENCY,
                  };
            return sample(loadgen, server[s], () => loadgen.call<LoadResult>("fanout", spec));
          },
          ceilingGoal: { text: "≥ 0.85 of the ceiling per server CPU-second", min: 0.85, on: "cpuRatio" },
        },
      ];

      const figures: Figure[] = [];
      const short = baseline.commit.slice(0, 7);
      for (const op of operations) {
        if (OPS && !OPS.has(op.id)) continue;
        const s = await rotate<Side>(
          { head: (r) => op.run("head", r), base: (r) => op.run("base", r), bare: (r) => op.run("bare", r) },
          { rounds, onRound: (r) => log(`${op.name}: round ${r}${r === 0 ? " (warm-up)" : ""}`) },
        );
        const pair = (ours: Side, peer: Side, peerName: string, name: string, goal?: Goal, note?: string) =>
          figure({ name, unit: op.unit, higherIsBetter: true, ours: s[ours], peer: s[peer], peerName, cpuOf: { ours: LABEL[ours], peer: LABEL[peer] }, goal, note });
        figures.push(pair("head", "base", `the baseline ${short} (before decoding/admission)`, `${op.name}: HEAD vs baseline`, withinTenPercent, figures.length === 0 ? `answer sizes: ${sizes.join(", ")}` : undefined));
        figures.push(pair("head", "bare", "bare node:http, same bytes", `${op.name}: HEAD vs bare`, op.ceilingGoal));
        figures.push(pair("base", "bare", "bare node:http, same bytes", `${op.name}: baseline ${short} vs bare`));
      }
      return figures;
    } finally {
      await procs.stop();
    }
  },
};

export default bench;
