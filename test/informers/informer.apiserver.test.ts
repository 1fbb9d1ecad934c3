/**
 * SharedIndexInformer over the real KubeClient against the embedded API server, under fire: a
 * writer creates, updates and deletes ConfigMaps while the informer's connections are cut
 * mid-stream (a TCP proxy between client and server that the test can cut and hold), the
 * server's history is compacted so that resuming fails with 410 Gone, and a paginated LIST
 * loses its continue token to compaction. After every disruption the writer pauses and the
 * cache must converge to exactly the server's list: the same keys with the same
 * resourceVersions. The same again with watch-list (sendInitialEvents) in place of LIST.
 *
 * Real clock and loopback network (HTTPS with the kubeconfig's client certificate, as the
 * server serves by default): waits are condition polls with a deadline, never fixed sleeps.
 */
import { createServer, connect, type Server, type Socket } from "node:net";
import type { AddressInfo } from "node:net";
import type { ConfigMap } from "../../src/apimachinery/api/core/v1.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isAlreadyExists, isConflict, isNotFound } from "../../src/apimachinery/errors.js";
import type { RunningApiServer } from "../../src/apiserver/index.js";
import type { ListRequest, ListResult } from "../../src/apiserver/storage/interface.js";
import { defaultWriteContext } from "../../src/apiserver/rest/context.js";
import { KubeClient } from "../../src/client/kubeclient.js";
import { builtin } from "../../src/client/typed.js";
import { SharedIndexInformer } from "../../src/informers/sharedinformer.js";

const apiserver = await import("../../src/apiserver/index.js").catch((err: unknown) => {
  console.warn(`test/informers/informer.apiserver.test.ts skipped: src/apiserver/index.ts does not load (${(err as Error).message})`);
  return undefined;
});

/**
 * A TCP relay in front of the API server. `cut()` destroys every relayed connection (both
 * ends, as a broken network would); while `hold()` is on, new connections are accepted but
 * not relayed until `release()`, so the test decides what the server does before the client
 * gets through again. TLS passes through untouched.
 */
class CutProxy {
  private readonly server: Server;
  private readonly live = new Set<Socket>();
  private held: Socket[] = [];
  private holding = false;
  cuts = 0;
  accepted = 0;

  constructor(private readonly target: { host: string; port: number }) {
    this.server = createServer((client) => {
      this.accepted++;
      client.on("error", () => undefined);
      if (this.holding) {
        client.pause();
        this.held.push(client);
        client.once("close", () => (this.held = this.held.filter((s) => s !== client)));
        return;
      }
      this.relay(client);
    });
  }

  private relay(client: Socket): void {
    if (client.destroyed) return;
    const upstream = connect(this.target.port, this.target.host);
    upstream.on("error", () => client.destroy());
    client.on("error", () => upstream.destroy());
    client.on("close", () => upstream.destroy());
    upstream.on("close", () => client.destroy());
    this.live.add(client);
    this.live.add(upstream);
    client.once("close", () => this.live.delete(client));
    upstream.once("close", () => this.live.delete(upstream));
    client.pipe(upstream);
    upstream.pipe(client);
    client.resume();
  }

  async listen(): Promise<number> {
    await new Promise<void>((r) => this.server.listen(0, "127.0.0.1", r));
    return (this.server.address() as AddressInfo).port;
  }

  /** Destroys every relayed connection; returns how many sockets were cut. */
  cut(): number {
    const n = this.live.size;
    for (const s of [...this.live]) s.destroy();
    if (n > 0) this.cuts++;
    return n;
  }

  hold(): void {
    this.holding = true;
  }

  release(): void {
    this.holding = false;
    for (const s of this.held.splice(0)) this.relay(s);
  }

  async close(): Promise<void> {
    this.release();
    this.cut();
    await new Promise<void>((r) => this.server.close(() => r()));
  }
}

async function eventually<T>(what: string, fn: () => Promise<T | undefined> | T | undefined, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await fn();
      if (v !== undefined && v !== false) return v;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}${last !== undefined ? `: ${String(last)}` : ""}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** A random create / update / delete load on `count` ConfigMap names in one namespace. */
class Writer {
  private running = false;
  private loops: Promise<void>[] = [];
  writes = 0;
  private seed: number;

  constructor(
    private readonly client: KubeClient,
    private readonly namespace: string,
    private readonly count: number,
    seed: number,
  ) {
    this.seed = seed;
  }

  private random(): number {
    // xorshift32: reproducible per test.
    let x = this.seed;
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    this.seed = x >>> 0;
    return this.seed / 0x1_0000_0000;
  }

  start(workers = 3): void {
    this.running = true;
    this.loops = Array.from({ length: workers }, () => this.loop());
  }

  /** Stops and waits for the writes in flight. */
  async stop(): Promise<void> {
    this.running = false;
    await Promise.all(this.loops);
  }

  /** Waits until `n` more writes have landed. */
  async more(n: number): Promise<void> {
    const target = this.writes + n;
    await eventually(`${n} more writes`, () => this.writes >= target);
  }

  private async loop(): Promise<void> {
    const cms = this.client.core.v1.configMaps(this.namespace);
    while (this.running) {
      const name = `cm-${Math.floor(this.random() * this.count)}`;
      const dice = this.random();
      try {
        if (dice < 0.15) {
          await cms.delete(name);
        } else {
          const cur = await cms.get(name).catch((err: unknown) => (isNotFound(err) ? undefined : Promise.reject(err)));
          if (!cur) await cms.create({ metadata: { name }, data: { v: String(this.writes) } });
          else await cms.update({ ...cur, data: { v: String(this.writes) } });
        }
        this.writes++;
      } catch (err) {
        // Races between the workers on one name are expected; anything else is a test failure.
        if (!isNotFound(err) && !isConflict(err) && !isAlreadyExists(err)) throw err;
      }
    }
  }
}

/** key → resourceVersion of every ConfigMap, as the server lists it now. */
async function serverState(client: KubeClient): Promise<Map<string, string>> {
  const list = await client.resource<ConfigMap>(builtin.configMaps, "").list();
  return new Map(list.items.map((o) => [`${o.metadata!.namespace}/${o.metadata!.name}`, o.metadata!.resourceVersion!]));
}

function cacheState(informer: SharedIndexInformer<ConfigMap>): Map<string, string> {
  return new Map(informer.indexer.list().map((o) => [`${o.metadata!.namespace}/${o.metadata!.name}`, o.metadata!.resourceVersion!]));
}

function sorted(m: Map<string, string>): Array<[string, string]> {
  return [...m].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
}

/** Waits until the cache equals the server's list; on timeout, fails with the difference. */
async function converged(direct: KubeClient, informer: SharedIndexInformer<ConfigMap>, what: string): Promise<void> {
  let want = new Map<string, string>();
  let got = new Map<string, string>();
  try {
    await eventually(
      `the cache to converge (${what})`,
      async () => {
        want = await serverState(direct);
        got = cacheState(informer);
        return want.size === got.size && [...want].every(([k, rv]) => got.get(k) === rv);
      },
      30_000,
    );
  } catch {
    expect(sorted(got), `cache after ${what}; reflector ${JSON.stringify(informer.health())}`).toEqual(sorted(want));
  }
}

let api: RunningApiServer;
let direct: KubeClient;
let proxy: CutProxy;
let viaProxy: KubeClient;

beforeAll(async () => {
  if (!apiserver) return;
  api = await apiserver.startApiServer({ port: 0 });
  const url = new URL(api.url);
  proxy = new CutProxy({ host: url.hostname, port: Number(url.port) });
  const port = await proxy.listen();
  direct = KubeClient.fromKubeconfig({ kubeconfigPath: api.kubeconfigPath, rest: { qps: -1 } });
  viaProxy = KubeClient.fromKubeconfig({ kubeconfigPath: api.kubeconfigPath, server: `${url.protocol}//${url.hostname}:${port}`, rest: { qps: -1 } });
  // Enough objects for a LIST to take several pages (the reflector asks for 500 at a time).
  const namespaces = api.server.registry.byGroupResource("", "namespaces")!;
  const configMaps = api.server.registry.byGroupResource("", "configmaps")!;
  for (const ns of ["bulk", "churn-list", "churn-watchlist"]) {
    await namespaces.create(undefined, { metadata: { name: ns } }, defaultWriteContext());
  }
  for (let i = 0; i < 1200; i++) {
    await configMaps.create("bulk", { metadata: { name: `bulk-${i}` }, data: { i: String(i) } }, defaultWriteContext());
  }
});

afterAll(async () => {
  await viaProxy?.close();
  await direct?.close();
  await proxy?.close();
  await api?.stop();
});

/**
 * Instruments the server's storage: the next paginated LIST page is followed by a write and a
 * compaction to the head, so that the continue token it returned has expired (410) when the
 * client asks for the next page.
 */
function expireNextContinueToken(): { fired: () => boolean; restore: () => void } {
  const storage = api.server.storage;
  const original = storage.list.bind(storage);
  let fired = false;
  storage.list = async (prefix: string, req?: ListRequest): Promise<ListResult> => {
    const result = await original(prefix, req);
    if (!fired && req?.limit && result.nextKey !== undefined) {
      fired = true;
      await api.server.registry
        .byGroupResource("", "configmaps")!
        .create("bulk", { metadata: { name: "written-between-pages" }, data: {} }, defaultWriteContext());
      storage.compact(storage.currentRevision());
    }
    return result;
  };
  return {
    fired: () => fired,
    restore: () => {
      storage.list = original;
    },
  };
}

/**
 * Runs the writer through rounds of disruption, checking convergence after each:
 *  - "cut": every connection of the informer is cut mid-stream;
 *  - "cut-compact": cut, hold new connections while the writer goes on, compact the history to
 *    the head, then let the client through — its resume from the old resourceVersion is 410;
 *  - "compact-live": compact to the head under a live watch (a watcher with unread events
 *    compacted away is closed by the server).
 */
async function disruptAndConverge(informer: SharedIndexInformer<ConfigMap>, writer: Writer, label: string): Promise<void> {
  const storage = api.server.storage;
  const kinds = ["cut", "cut-compact", "compact-live", "cut-compact", "cut", "cut-compact"] as const;
  for (const [i, kind] of kinds.entries()) {
    writer.start();
    await writer.more(15);
    if (kind === "cut") {
      proxy.cut();
      await writer.more(10);
    } else if (kind === "cut-compact") {
      proxy.hold();
      proxy.cut();
      await writer.more(20);
      storage.compact(storage.currentRevision());
      await writer.more(5);
      proxy.release();
      await writer.more(10);
    } else {
      storage.compact(storage.currentRevision());
      await writer.more(20);
    }
    await writer.stop();
    await converged(direct, informer, `${label} round ${i} (${kind})`);
  }
}

describe.skipIf(!apiserver)("SharedIndexInformer against the embedded API server", () => {
  it("list+watch: converges exactly through cut connections, 410 on resume and an expired continue token", { timeout: 180_000 }, async () => {
    const errors: string[] = [];
    const informer = new SharedIndexInformer<ConfigMap>(viaProxy.resource<ConfigMap>(builtin.configMaps, ""), {
      onError: (msg) => errors.push(msg),
    });
    const adds: string[] = [];
    informer.addEventHandler({ onAdd: (o) => adds.push(o.metadata!.name!) });
    const expire = expireNextContinueToken();
    const ac = new AbortController();
    const running = informer.run(ac.signal);
    try {
      expect(await informer.waitForSync()).toBe(true);
      // The first LIST lost its continue token after one page and was redone as one consistent list.
      expect(expire.fired()).toBe(true);
      expect(errors.some((m) => m.includes("list expired"))).toBe(true);
      await converged(direct, informer, "initial sync");
      expect(cacheState(informer).has("bulk/written-between-pages")).toBe(true);
      expire.restore();
      // Cached objects are frozen, and share nothing writable with the handlers.
      const sample = informer.indexer.getByKey("bulk/bulk-7")!;
      expect(Object.isFrozen(sample) && Object.isFrozen(sample.data)).toBe(true);

      const writer = new Writer(direct, "churn-list", 40, 0x2545f491);
      await disruptAndConverge(informer, writer, "list+watch");
      const h = informer.health();
      // Every cut-compact round forced a relist through 410 Gone.
      expect(errors.filter((m) => m.includes("expired")).length).toBeGreaterThanOrEqual(3);
      expect(h.lists).toBeGreaterThanOrEqual(4);
      expect(h.watches).toBeGreaterThanOrEqual(6);
      expect(proxy.cuts).toBeGreaterThanOrEqual(5);
      expect(h.synced).toBe(true);
    } finally {
      expire.restore();
      ac.abort();
      await running;
    }
    expect(informer.isStopped()).toBe(true);
  });

  it("watch-list: initial state and every relist by sendInitialEvents, converging exactly under the same disruptions", { timeout: 180_000 }, async () => {
    const errors: string[] = [];
    const informer = new SharedIndexInformer<ConfigMap>(viaProxy.resource<ConfigMap>(builtin.configMaps, ""), {
      useWatchList: true,
      onError: (msg) => errors.push(msg),
    });
    let initialAdds = 0;
    const reg = informer.addEventHandler({
      onAdd: (_o, initial) => {
        if (initial) initialAdds++;
      },
    });
    const ac = new AbortController();
    const running = informer.run(ac.signal);
    try {
      expect(await informer.waitForSync()).toBe(true);
      await converged(direct, informer, "watch-list initial sync");
      await eventually("the handler to sync", () => reg.hasSynced());
      expect(initialAdds).toBe(cacheState(informer).size);

      const writer = new Writer(direct, "churn-watchlist", 40, 0x9e3779b9);
      await disruptAndConverge(informer, writer, "watch-list");
      const h = informer.health();
      expect(errors.filter((m) => m.includes("expired")).length).toBeGreaterThanOrEqual(3);
      // Never a plain LIST: the server serves watch-list, and relists after 410 use it too.
      expect(errors.filter((m) => m.includes("watch-list refused"))).toEqual([]);
      expect(h.lists).toBe(0);
      expect(h.watches).toBeGreaterThanOrEqual(6);
      // After the initial-events-end bookmark the same stream carries changes: phase Watching.
      await eventually("the reflector to report Watching", () => informer.health().phase === "Watching");
    } finally {
      ac.abort();
      await running;
    }
  });
});
