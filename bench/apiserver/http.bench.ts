/**
 * bench/apiserver: GET, LIST (500 objects), CREATE, UPDATE and watch fan-out (100 watchers)
 * against the embedded API server on loopback, each beside a ceiling measured in the same run: a
 * bare node:http server answering with the same bytes (for fan-out: writing each frame, serialized
 * once, to every watcher). Client and servers share this process, as they would in `kubeloop up`.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { setMaxListeners } from "node:events";
import { performance } from "node:perf_hooks";
import { Agent, request } from "undici";
import { startApiServer } from "../../src/apiserver/index.js";
import type { Benchmark, Figure } from "../harness.js";

const CONCURRENCY = 16;
const DURATION_MS = 1500;
const WARMUP_MS = 1000;

const progress = (m: string) => process.stderr.write(`[apiserver/http] ${m}\n`);

const agent = new Agent({ connections: CONCURRENCY * 2, pipelining: 1, keepAliveTimeout: 10_000 });
/** Watches hold their connection for the whole stream: they get their own pool. */
const watchAgent = new Agent({ connections: 256, pipelining: 1 });

async function call(url: string, method: "GET" | "POST" | "PUT", body?: string): Promise<{ status: number; text: string }> {
  const res = await request(url, {
    method,
    dispatcher: agent,
    body,
    headers: body ? { "content-type": "application/json" } : undefined,
  });
  const text = await res.body.text();
  return { status: res.statusCode, text };
}

/**
 * Requests per second with CONCURRENCY workers for DURATION_MS; `next(w, i)` builds worker w's
 * i-th request (i keeps counting across the warm-up). Each figure is preceded by WARMUP_MS of
 * the same requests, unmeasured: the first side measured would otherwise also pay for the JIT
 * compiling its request path (on a loaded machine that took most of the first second, and the
 * GET figure, measured first, came out at a fraction of its steady rate).
 */
async function throughput(next: (worker: number, i: number) => Promise<void>): Promise<number> {
  const counters = new Array<number>(CONCURRENCY).fill(0);
  const run = async (ms: number): Promise<number> => {
    let count = 0;
    const deadline = performance.now() + ms;
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async (_, w) => {
        while (performance.now() < deadline) {
          await next(w, counters[w]++);
          count++;
        }
      }),
    );
    return count;
  };
  await run(WARMUP_MS);
  const start = performance.now();
  const count = await run(DURATION_MS);
  return (count / (performance.now() - start)) * 1000;
}

/** A bare node:http server whose handler is given; returns its base URL. */
async function bareServer(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<{ url: string; server: Server }> {
  const server = createServer(handler);
  server.keepAliveTimeout = 10_000;
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

function drainThen(req: IncomingMessage, fn: () => void): void {
  req.on("data", () => {});
  req.on("end", fn);
}

const bench: Benchmark = {
  name: "apiserver/http",
  async run(): Promise<Figure[]> {
    // Plain HTTP on both sides, so the comparison measures the server and not TLS.
    const api = await startApiServer({ port: 0, insecureHttp: true, server: { maxInFlight: 10_000 } });
    const base = `${api.url}/api/v1/namespaces/default/configmaps`;
    const figures: Figure[] = [];
    try {
      // Fixtures: 500 config maps for LIST, one for GET.
      for (let i = 0; i < 500; i++) {
        await call(base, "POST", JSON.stringify({ metadata: { name: `cm-${i}`, labels: { bench: "list" } }, data: { k: "v".repeat(64) } }));
      }
      const getBytes = (await call(`${base}/cm-0`, "GET")).text;
      const listBytes = (await call(`${base}?labelSelector=bench%3Dlist`, "GET")).text;

      progress("fixtures created");
      // GET
      const apiGet = await throughput(async () => {
        await call(`${base}/cm-0`, "GET");
      });
      const bareGet = await bareServer((_req, res) => {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(getBytes);
      });
      const ceilGet = await throughput(async () => {
        await call(`${bareGet.url}/x`, "GET");
      });
      bareGet.server.close();
      figures.push({ name: "GET one object", value: apiGet, unit: "req/s", peer: { name: "bare node:http, same bytes", value: ceilGet }, higherIsBetter: true, goal: "≥ 60% of the ceiling" });

      progress("GET done");
      // LIST 500
      const apiList = await throughput(async () => {
        await call(`${base}?labelSelector=bench%3Dlist`, "GET");
      });
      const bareList = await bareServer((_req, res) => {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(listBytes);
      });
      const ceilList = await throughput(async () => {
        await call(`${bareList.url}/x`, "GET");
      });
      bareList.server.close();
      figures.push({ name: "LIST 500 objects", value: apiList, unit: "req/s", peer: { name: "bare node:http, same bytes", value: ceilList }, higherIsBetter: true });

      progress("LIST done");
      // CREATE
      const createdBody = (await call(base, "POST", JSON.stringify({ metadata: { name: "probe" }, data: { a: "b" } }))).text;
      const apiCreate = await throughput(async (w, i) => {
        const r = await call(`${api.url}/api/v1/namespaces/kube-public/configmaps`, "POST", JSON.stringify({ metadata: { name: `c-${w}-${i}` }, data: { a: "b" } }));
        if (r.status !== 201) throw new Error(`create failed: ${r.status} ${r.text}`);
      });
      const bareCreate = await bareServer((req, res) =>
        drainThen(req, () => {
          res.writeHead(201, { "content-type": "application/json" });
          res.end(createdBody);
        }),
      );
      const ceilCreate = await throughput(async (w, i) => {
        await call(`${bareCreate.url}/x`, "POST", JSON.stringify({ metadata: { name: `c-${w}-${i}` }, data: { a: "b" } }));
      });
      bareCreate.server.close();
      figures.push({ name: "CREATE", value: apiCreate, unit: "req/s", peer: { name: "bare node:http, same bytes", value: ceilCreate }, higherIsBetter: true, goal: "≥ 5,000/s" });

      progress("CREATE done");
      // UPDATE: each worker owns one object and updates it with the resourceVersion it last saw.
      const rvs: string[] = [];
      for (let w = 0; w < CONCURRENCY; w++) {
        const r = await call(base, "POST", JSON.stringify({ metadata: { name: `u-${w}` }, data: { n: "0" } }));
        rvs[w] = JSON.parse(r.text).metadata.resourceVersion;
      }
      const apiUpdate = await throughput(async (w, i) => {
        const r = await call(`${base}/u-${w}`, "PUT", JSON.stringify({ metadata: { name: `u-${w}`, resourceVersion: rvs[w] }, data: { n: String(i) } }));
        if (r.status !== 200) throw new Error(`update failed: ${r.status} ${r.text}`);
        rvs[w] = JSON.parse(r.text).metadata.resourceVersion;
      });
      const updatedBody = (await call(`${base}/u-0`, "GET")).text;
      const bareUpdate = await bareServer((req, res) =>
        drainThen(req, () => {
          res.writeHead(200, { "content-type": "application/json" });
          res.end(updatedBody);
        }),
      );
      // The same client work as above, reading the resourceVersion back, so only the servers differ.
      let rvsSeen = 0;
      const ceilUpdate = await throughput(async (w, i) => {
        const r = await call(`${bareUpdate.url}/x`, "PUT", JSON.stringify({ metadata: { name: `u-${w}`, resourceVersion: rvs[w] }, data: { n: String(i) } }));
        if (r.status !== 200) throw new Error(`update failed: ${r.status} ${r.text}`);
        rvsSeen += (JSON.parse(r.text) as { metadata: { resourceVersion: string } }).metadata.resourceVersion.length;
      });
      if (rvsSeen === 0) throw new Error("the ceiling's answers carried no resourceVersion");
      bareUpdate.server.close();
      figures.push({ name: "UPDATE", value: apiUpdate, unit: "req/s", peer: { name: "bare node:http, same bytes", value: ceilUpdate }, higherIsBetter: true });

      progress("UPDATE done");
      // Watch fan-out: 100 watchers, 1000 events.
      figures.push(await fanOut(api.url));
    } finally {
      await api.stop();
    }
    return figures;
  },
};

/**
 * Reads a watch stream, counting event frames. `first` resolves at the first frame (the probe
 * every watcher must see before timing starts); `done` once `expected` frames have arrived.
 */
function countFrames(url: string, expected: number, signal: AbortSignal): { first: Promise<void>; done: Promise<void> } {
  let firstSeen!: () => void;
  const first = new Promise<void>((r) => (firstSeen = r));
  const done = (async () => {
    // Aborting at the end of the measurement is expected: it is how a watch is closed here.
    const res = await request(url, { method: "GET", dispatcher: watchAgent, signal });
    let seen = 0;
    // Frames are newline-delimited JSON; a newline cannot be split across chunks.
    for await (const chunk of res.body) {
      const b = chunk as Buffer;
      for (let i = b.indexOf(10); i !== -1; i = b.indexOf(10, i + 1)) seen++;
      if (seen > 0) firstSeen();
      if (seen >= expected) break;
    }
  })();
  return { first, done };
}

async function postMany(url: string, n: number, body: (i: number) => string): Promise<void> {
  const writes: Promise<unknown>[] = [];
  for (let i = 0; i < n; i++) {
    writes.push(call(url, "POST", body(i)));
    if (writes.length >= CONCURRENCY) await Promise.all(writes.splice(0));
  }
  await Promise.all(writes);
}

async function fanOut(apiUrl: string): Promise<Figure> {
  const WATCHERS = 100;
  const EVENTS = 1000;
  // An empty namespace: a watch without a resourceVersion then starts with no synthetic events.
  const ns = "kube-node-lease";
  const cms = `${apiUrl}/api/v1/namespaces/${ns}/configmaps`;
  const ac = new AbortController();
  setMaxListeners(WATCHERS * 2, ac.signal);
  const watchers = Array.from({ length: WATCHERS }, () => countFrames(`${cms}?watch=true`, EVENTS + 1, ac.signal));
  // A probe object: once every watcher has seen it, all watches are established.
  await call(cms, "POST", JSON.stringify({ metadata: { name: "probe" } }));
  await Promise.all(watchers.map((w) => w.first));
  const start = performance.now();
  await postMany(cms, EVENTS, (i) => JSON.stringify({ metadata: { name: `f-${i}` }, data: { i: String(i) } }));
  await Promise.all(watchers.map((w) => w.done));
  const apiRate = ((WATCHERS * EVENTS) / (performance.now() - start)) * 1000;
  ac.abort();

  // Ceiling: a bare server that receives the same POSTs and writes one pre-serialized frame per
  // event to every open watch response.
  const streams = new Set<ServerResponse>();
  const frame = Buffer.from(`${JSON.stringify({ type: "ADDED", object: { kind: "ConfigMap", apiVersion: "v1", metadata: { name: "f", resourceVersion: "1" }, data: { i: "1" } } })}\n`);
  const bare = await bareServer((req, res) => {
    if (req.method === "GET") {
      res.writeHead(200, { "content-type": "application/json" });
      res.flushHeaders();
      streams.add(res);
      req.on("close", () => streams.delete(res));
      return;
    }
    drainThen(req, () => {
      for (const st of streams) st.write(frame);
      res.writeHead(201, { "content-type": "application/json" });
      res.end("{}");
    });
  });
  const ac2 = new AbortController();
  setMaxListeners(WATCHERS * 2, ac2.signal);
  const w2 = Array.from({ length: WATCHERS }, () => countFrames(`${bare.url}/watch`, EVENTS + 1, ac2.signal));
  while (streams.size < WATCHERS) await new Promise((r) => setTimeout(r, 5));
  await call(`${bare.url}/x`, "POST", "{}");
  await Promise.all(w2.map((w) => w.first));
  const start2 = performance.now();
  await postMany(`${bare.url}/x`, EVENTS, () => "{}");
  await Promise.all(w2.map((w) => w.done));
  const ceilRate = ((WATCHERS * EVENTS) / (performance.now() - start2)) * 1000;
  ac2.abort();
  for (const st of streams) st.end();
  bare.server.close();
  return {
    name: `watch fan-out (${WATCHERS} watchers × ${EVENTS} creates)`,
    value: apiRate,
    unit: "events/s",
    peer: { name: "bare node:http, frames serialized once", value: ceilRate },
    higherIsBetter: true,
    goal: "≥ 50% of the ceiling",
  };
}

export default bench;
