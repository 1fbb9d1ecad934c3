/**
 * bench/apiserver/http: GET, LIST (500 objects), CREATE, UPDATE and watch fan-out (100 watchers ×
 * 1,000 creates) against kubeloop's API server on loopback, each beside the ceiling — a bare
 * node:http server in its own process answering the same bytes (for fan-out: writing each
 * frame, serialized once, to every open watch) — with the load generator (undici, 16
 * concurrent requests) in a third process. Plain http on both sides, so that the comparison
 * measures the server rather than TLS; then GET over HTTPS with client certificates (kubeloop
 * authenticates and authorizes every request) beside a bare HTTPS server with the same
 * certificate and TLS settings; and GET with the server's own metrics off, which is what the
 * metrics cost on the hot path.
 *
 * Each figure: rotated rounds (round 0 warms up), 1.5 s of load per side per round; the ratio
 * of requests per second (wall clock, which the load generator may cap on this machine) and
 * of requests per CPU-second of the server process (the goals are about the latter).
 */
import { figure, progress, rotate, roundsFromEnv, type Benchmark, type Figure, type Goal, type Sample } from "../harness.js";
import type { LoadResult, RequestSpec, FanoutSpec, TLSFiles } from "../loadgen.js";
import { measured, Proc, ProcGroup, stopAll } from "../proc.js";
import type { ApiServerInfo } from "../servers.js";

const CONCURRENCY = 16;
const DURATION_MS = Number(process.env.BENCH_HTTP_MS ?? 1500);
const LIST_ITEMS = 500;
const WATCHERS = 100;
const EVENTS = 1000;

/** BENCH_OPS=get,list (ids: get, list, create, update, fanout, metrics, https): only these figures. */
const OPS = process.env.BENCH_OPS ? new Set(process.env.BENCH_OPS.split(",")) : undefined;
const want = (op: string) => OPS === undefined || OPS.has(op);

const here = import.meta.url;
const loadgenModule = new URL("../loadgen.js", here).href;
const bareModule = new URL("../bare.js", here).href;
const serversModule = new URL("../servers.js", here).href;
const log = (m: string) => progress("apiserver/http", m);

const json = { "content-type": "application/json" };

/** One side of a throughput figure: the load generator runs `spec` while `server`'s CPU is read. */
async function load(loadgen: Proc, server: Proc, spec: RequestSpec, tls?: TLSFiles): Promise<Sample> {
  const m = await measured([server, loadgen], () => loadgen.call<LoadResult>("throughput", spec, CONCURRENCY, DURATION_MS, tls));
  const r = m.result;
  return { value: (r.count / r.ms) * 1000, work: r.count, wallMs: r.ms, cpu: m.cpu };
}

async function fan(loadgen: Proc, server: Proc, spec: FanoutSpec): Promise<Sample> {
  const m = await measured([server, loadgen], () => loadgen.call<LoadResult>("fanout", spec));
  const r = m.result;
  return { value: (r.count / r.ms) * 1000, work: r.count, wallMs: r.ms, cpu: m.cpu };
}

interface Pair {
  name: string;
  unit: string;
  peerName: string;
  ours: (round: number) => Promise<Sample>;
  peer: (round: number) => Promise<Sample>;
  labels: { ours: string; peer: string };
  goal?: Goal;
}

async function pairFigure(p: Pair, rounds: number): Promise<Figure> {
  const s = await rotate({ ours: p.ours, peer: p.peer }, { rounds, onRound: (r) => log(`${p.name}: round ${r}${r === 0 ? " (warm-up)" : ""}`) });
  return figure({ name: p.name, unit: p.unit, higherIsBetter: true, ours: s.ours, peer: s.peer, peerName: p.peerName, cpuOf: p.labels, goal: p.goal });
}

const bench: Benchmark = {
  name: "apiserver/http",
  async run(): Promise<Figure[]> {
    const rounds = roundsFromEnv();
    const procs = new ProcGroup();
    const start = (module: string, role: string, params: unknown, label: string) => procs.start(module, role, params, label);
    try {
      const [api, bare, loadgen] = await Promise.all([
        start(serversModule, "apiserver", { options: { insecureHttp: true, server: { maxInFlight: 10_000 } } }, "kubeloop"),
        start(bareModule, "bare", {}, "bare"),
        start(loadgenModule, "http", {}, "loadgen"),
      ]);
      const { url } = await api.call<ApiServerInfo>("info");
      const bareUrl = await bare.call<string>("url");
      const base = `${url}/api/v1/namespaces/default/configmaps`;
      await api.call("configMaps", "default", "cm-", LIST_ITEMS, { bench: "list" }, 64);
      await api.call("namespaces", Array.from({ length: rounds + 1 }, (_, r) => `fanout-${r}`));
      const fetchText = async (u: string, tls?: TLSFiles) => (await loadgen.call<{ status: number; text: string }>("fetchText", u, tls)).text;
      const getBytes = await fetchText(`${base}/cm-0`);
      const listBytes = await fetchText(`${base}?labelSelector=bench%3Dlist`);
      const createBody = (name: string) => JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name }, data: { a: "b" } });
      await loadgen.call("many", { method: "POST", url: `${url}/api/v1/namespaces/kube-public/configmaps`, body: createBody("probe"), headers: json, expect: 201 }, 1, 1);
      const created = await fetchText(`${url}/api/v1/namespaces/kube-public/configmaps/probe`);
      await bare.call("route", "/get", { status: 200, body: getBytes });
      await bare.call("route", "/list", { status: 200, body: listBytes });
      await bare.call("route", "/create", { status: 201, body: created });
      for (let w = 0; w < CONCURRENCY; w++) await api.call("configMaps", "default", `u-${w}-`, 1, {}, 8);
      const updated = await fetchText(`${base}/u-0-0`);
      await bare.call("route", "/update", { status: 200, body: updated });
      await bare.call("fanoutFrame", `{"type":"ADDED","object":${created}}\n`, created);
      log("fixtures ready");

      const labels = { ours: "kubeloop", peer: "bare" };
      const ceiling = "bare node:http, same bytes";
      const figures: Figure[] = [];
      const get: RequestSpec = { method: "GET", url: `${base}/cm-0` };
      if (want("get"))
        figures.push(
          await pairFigure(
            {
              name: "GET one object",
              unit: "req/s",
              peerName: ceiling,
              ours: () => load(loadgen, api, get),
              peer: () => load(loadgen, bare, { method: "GET", url: `${bareUrl}/get` }),
              labels,
              goal: { text: "≥ 0.85 of the ceiling per server CPU-second", min: 0.85, on: "cpuRatio" },
            },
            rounds,
          ),
        );
      if (want("list"))
        figures.push(
          await pairFigure(
            {
              name: `LIST ${LIST_ITEMS} objects (label selector)`,
              unit: "req/s",
              peerName: ceiling,
              ours: () => load(loadgen, api, { method: "GET", url: `${base}?labelSelector=bench%3Dlist` }),
              peer: () => load(loadgen, bare, { method: "GET", url: `${bareUrl}/list` }),
              labels,
              goal: { text: "≥ 0.8 of the ceiling per server CPU-second", min: 0.8, on: "cpuRatio" },
            },
            rounds,
          ),
        );
      if (want("create"))
        figures.push(
          await pairFigure(
            {
              name: "CREATE",
              unit: "req/s",
              peerName: ceiling,
              ours: (r) => load(loadgen, api, { method: "POST", url: `${url}/api/v1/namespaces/kube-public/configmaps`, body: createBody("c-{r}-{w}-{i}"), headers: json, expect: 201, tag: String(r) }),
              peer: (r) => load(loadgen, bare, { method: "POST", url: `${bareUrl}/create`, body: createBody("c-{r}-{w}-{i}"), headers: json, expect: 201, tag: String(r) }),
              labels,
              goal: { text: "≥ 0.5 of the ceiling per server CPU-second", min: 0.5, on: "cpuRatio" },
            },
            rounds,
          ),
        );
      // Each worker updates its own object; unconditional PUTs (configmaps allow them), a new value each time.
      const updateBody = JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "u-{w}-0" }, data: { n: "{i}" } });
      if (want("update"))
        figures.push(
          await pairFigure(
            {
              name: "UPDATE (PUT)",
              unit: "req/s",
              peerName: ceiling,
              ours: () => load(loadgen, api, { method: "PUT", url: `${base}/u-{w}-0`, body: updateBody, headers: json, expect: 200 }),
              peer: () => load(loadgen, bare, { method: "PUT", url: `${bareUrl}/update`, body: updateBody, headers: json, expect: 200 }),
              labels,
            },
            rounds,
          ),
        );
      if (want("fanout"))
        figures.push(
          await pairFigure(
            {
              name: `watch fan-out (${WATCHERS} watchers × ${EVENTS} creates)`,
              unit: "events/s",
              peerName: "bare node:http, frames serialized once",
              ours: (r) =>
                fan(loadgen, api, {
                  watchUrl: `${url}/api/v1/namespaces/fanout-${r}/configmaps?watch=true`,
                  write: { method: "POST", url: `${url}/api/v1/namespaces/fanout-${r}/configmaps`, body: createBody("f-{i}"), headers: json, expect: 201 },
                  watchers: WATCHERS,
                  events: EVENTS,
                  concurrency: CONCURRENCY,
                }),
              peer: () =>
                fan(loadgen, bare, {
                  watchUrl: `${bareUrl}/watch?watch=1`,
                  write: { method: "POST", url: `${bareUrl}/fanout`, body: createBody("f-{i}"), headers: json, expect: 201 },
                  watchers: WATCHERS,
                  events: EVENTS,
                  concurrency: CONCURRENCY,
                }),
              labels,
              goal: { text: "≥ 0.85 of the ceiling per server CPU-second", min: 0.85, on: "cpuRatio" },
            },
            rounds,
          ),
        );
      await stopAll(api, bare);

      if (want("metrics")) {
        // The cost of the server's own metrics: the same GET with metrics off, same process layout.
        const [withMetrics, without] = await Promise.all([
          start(serversModule, "apiserver", { options: { insecureHttp: true, server: { maxInFlight: 10_000 } } }, "kubeloop"),
          start(serversModule, "apiserver", { options: { insecureHttp: true, server: { maxInFlight: 10_000, metrics: false } } }, "kubeloop-no-metrics"),
        ]);
        const urlOf = async (p: Proc) => (await p.call<ApiServerInfo>("info")).url;
        for (const p of [withMetrics, without]) await p.call("configMaps", "default", "cm-", 1, {}, 64);
        const [u1, u2] = [await urlOf(withMetrics), await urlOf(without)];
        figures.push(
          await pairFigure(
            {
              name: "GET one object, server metrics on",
              unit: "req/s",
              peerName: "the same server with metrics off",
              ours: () => load(loadgen, withMetrics, { method: "GET", url: `${u1}/api/v1/namespaces/default/configmaps/cm-0` }),
              peer: () => load(loadgen, without, { method: "GET", url: `${u2}/api/v1/namespaces/default/configmaps/cm-0` }),
              labels: { ours: "kubeloop", peer: "kubeloop-no-metrics" },
              goal: { text: "≥ 0.97 (metrics cost ≤ 3%)", min: 0.97, on: "cpuRatio" },
            },
            rounds,
          ),
        );
        await stopAll(withMetrics, without);
      }
      if (want("https")) {
        // HTTPS with client certificates: identity from the certificate, RBAC for every request.
        const secure = await start(serversModule, "apiserver", { options: { server: { maxInFlight: 10_000 } } }, "kubeloop-https");
        const sinfo = await secure.call<ApiServerInfo>("info");
        await secure.call("configMaps", "default", "cm-", 1, {}, 64);
        const bareTLS = await start(bareModule, "bare", { tls: sinfo.serving }, "bare-https");
        const bareTLSUrl = await bareTLS.call<string>("url");
        const tlsGet = await fetchText(`${sinfo.url}/api/v1/namespaces/default/configmaps/cm-0`, sinfo.client);
        await bareTLS.call("route", "/get", { status: 200, body: tlsGet });
        figures.push(
          await pairFigure(
            {
              name: "GET one object over HTTPS with a client certificate",
              unit: "req/s",
              peerName: "bare node:https, same certificate and bytes",
              ours: () => load(loadgen, secure, { method: "GET", url: `${sinfo.url}/api/v1/namespaces/default/configmaps/cm-0` }, sinfo.client),
              peer: () => load(loadgen, bareTLS, { method: "GET", url: `${bareTLSUrl}/get` }, sinfo.client),
              labels: { ours: "kubeloop-https", peer: "bare-https" },
              goal: { text: "≥ 0.85 of the ceiling per server CPU-second", min: 0.85, on: "cpuRatio" },
            },
            rounds,
          ),
        );
      }
      return figures;
    } finally {
      await procs.stop();
    }
  },
};

export default bench;
