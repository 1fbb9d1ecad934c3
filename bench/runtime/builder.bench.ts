/**
 * The builder's cost: reconciles/s of a controller built with `mgr.controller(..).for(..)` beside
 * the plain path it replaced (an informer handler calling `controller.enqueue` on a bare
 * `Controller`), with 1 and 8 workers, measured in the same run.
 *
 * Each measurement is its own child process (this file, run with `child <side> <workers>`): a
 * FakeClient holding 20,000 ConfigMaps, informers over it, and a reconcile that reads the object
 * from the cache and awaits once. The figure is 20,000 divided by the time from start to the last
 * reconcile (the informer's list and add events included, the same for both sides). Rounds
 * alternate which side goes first; median with min–max, and CPU-seconds per side beside them.
 */
import { fork } from "node:child_process";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { Registry } from "prom-client";
import type { ConfigMap } from "../../src/apimachinery/api/core/v1.js";
import { builtin } from "../../src/client/typed.js";
import { SharedInformerFactory } from "../../src/informers/factory.js";
import { Controller } from "../../src/runtime/controller.js";
import { silentLogger } from "../../src/runtime/logging.js";
import { Manager } from "../../src/runtime/manager.js";
import { FakeClient } from "../../src/testing/fakeclient.js";
import { figure, type Benchmark, type Figure } from "../harness.js";

const OBJECTS = 20_000;
const ROUNDS = 5;
type Side = "builder" | "plain";
interface Sample {
  perSecond: number;
  cpuSeconds: number;
}

const quiet = { info() {}, warn() {}, error() {} };

function seededClient(): FakeClient {
  const client = new FakeClient();
  const cms: ConfigMap[] = Array.from({ length: OBJECTS }, (_, i) => ({ metadata: { namespace: `ns-${i % 20}`, name: `cm-${i}` }, data: { i: String(i) } }));
  client.seed(builtin.configMaps, ...cms);
  return client;
}

/** One measurement in this process: resolves to reconciles/s. */
async function measureHere(side: Side, workers: number): Promise<number> {
  const client = seededClient();
  const informers = new SharedInformerFactory(client, { logger: quiet, unsyncedReportIntervalMs: 0 });
  const stop = new AbortController();
  let n = 0;
  let finish!: () => void;
  const done = new Promise<void>((resolve) => (finish = resolve));
  const count = () => {
    if (++n === OBJECTS) finish();
  };
  const start = performance.now();
  let running: Promise<void>;
  if (side === "builder") {
    const mgr = new Manager({ client, informers, registry: new Registry(), logger: silentLogger() });
    mgr
      .controller("bench")
      .for(builtin.configMaps)
      .withOptions({ maxConcurrentReconciles: workers })
      .reconcile(async (req, ctx) => {
        ctx.cache.get(builtin.configMaps, req);
        await null;
        count();
      });
    running = mgr.start(stop.signal);
  } else {
    const inf = informers.forResource(builtin.configMaps);
    const lister = inf.lister();
    const controller = new Controller({
      name: "bench",
      client,
      informers,
      caches: [inf],
      registry: new Registry(),
      logger: silentLogger(),
      reconcile: async (req) => {
        lister.namespace(req.namespace).get(req.name);
        await null;
        count();
      },
    });
    inf.addEventHandler({ onAdd: (o) => controller.enqueue(o), onUpdate: (_, o) => controller.enqueue(o), onDelete: (o) => controller.enqueue(o) });
    informers.start(stop.signal);
    running = controller.run(stop.signal, workers);
  }
  await done;
  const ms = performance.now() - start;
  stop.abort();
  await running;
  await informers.shutdown();
  return (OBJECTS / ms) * 1000;
}

/** One measurement in a child process of its own. */
function measureInChild(side: Side, workers: number): Promise<Sample> {
  return new Promise((resolve, reject) => {
    const child = fork(fileURLToPath(import.meta.url), ["child", side, String(workers)], { stdio: ["ignore", "ignore", "inherit", "ipc"] });
    let got: Sample | undefined;
    child.on("message", (m) => (got = m as Sample));
    child.on("error", reject);
    child.on("exit", (code) => (got && code === 0 ? resolve(got) : reject(new Error(`bench child (${side}, ${workers} workers) exited with ${code}`))));
  });
}


const bench: Benchmark = {
  name: "runtime/builder",
  async run() {
    const figures: Figure[] = [];
    for (const workers of [1, 8]) {
      const samples: Record<Side, Sample[]> = { builder: [], plain: [] };
      for (let round = 0; round < ROUNDS; round++) {
        const order: Side[] = round % 2 === 0 ? ["builder", "plain"] : ["plain", "builder"];
        for (const side of order) samples[side].push(await measureInChild(side, workers));
      }
      const asHarness = (s: Side) => samples[s].map((x) => ({ value: x.perSecond, cpu: { process: x.cpuSeconds }, work: OBJECTS }));
      figures.push(
        figure({
          name: `reconciles/s, ${OBJECTS / 1000}k objects, ${workers} worker${workers > 1 ? "s" : ""}`,
          unit: "reconciles/s",
          higherIsBetter: true,
          ours: asHarness("builder"),
          peer: asHarness("plain"),
          peerName: "plain Controller + informer handler",
          cpuOf: { ours: "process", peer: "process" },
          goal: { text: "≈ 1× (the builder costs nothing measurable)", min: 0.9 },
        }),
      );
    }
    return figures;
  },
};
export default bench;

if (process.argv[2] === "child" && process.send) {
  const side = process.argv[3] as Side;
  const workers = Number(process.argv[4]);
  const cpu0 = process.cpuUsage();
  const perSecond = await measureHere(side, workers);
  const c = process.cpuUsage(cpu0);
  process.send({ perSecond, cpuSeconds: (c.user + c.system) / 1e6 } satisfies Sample, () => process.exit(0));
}
