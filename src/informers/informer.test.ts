import { describe, expect, it } from "vitest";
import { FakeClock, flushMicrotasks } from "../apimachinery/clock.js";
import { StatusError } from "../apimachinery/errors.js";
import { parseSelector } from "../apimachinery/labels.js";
import type { KubeObject } from "../apimachinery/types.js";
import type { ResourceDescriptor } from "../client/interfaces.js";
import { FakeClient } from "../testing/fakeclient.js";
import { captureLogger } from "../runtime/logging.js";
import { SharedInformerFactory, stderrInformerLogger } from "./factory.js";
import { FilteringResourceEventHandler, type ResourceEventHandler } from "./handlers.js";
import { dropManagedFields, SharedIndexInformer } from "./sharedinformer.js";
import { DeletedFinalStateUnknown } from "./store.js";

const pods: ResourceDescriptor = { group: "", version: "v1", resource: "pods", kind: "Pod", namespaced: true };

function pod(name: string, labels: Record<string, string> = {}, ns = "default"): KubeObject {
  return { metadata: { name, namespace: ns, labels } };
}

/** Lets async loops (reflector, FIFO, listeners) run until nothing is left to do. */
async function settle(rounds = 20): Promise<void> {
  for (let i = 0; i < rounds; i++) await flushMicrotasks();
}

function recorder() {
  const log: string[] = [];
  const h: ResourceEventHandler<KubeObject> = {
    onAdd: (o, initial) => log.push(`add ${o.metadata?.name}${initial ? " (initial)" : ""}`),
    onUpdate: (a, b) => log.push(`update ${b.metadata?.name} ${a.metadata?.resourceVersion}->${b.metadata?.resourceVersion}`),
    onDelete: (o) => log.push(o instanceof DeletedFinalStateUnknown ? `delete ${o.key} (tombstone)` : `delete ${o.metadata?.name}`),
  };
  return { log, h };
}

function setup(opts: { historyLimit?: number } = {}) {
  const clock = new FakeClock(0);
  const fake = new FakeClient({ clock, historyLimit: opts.historyLimit });
  const client = fake.resource(pods, "default");
  const ac = new AbortController();
  return { clock, fake, client, ac };
}

describe("SharedIndexInformer", () => {
  it("lists, syncs, then streams adds, updates and deletes to handlers", async () => {
    const { fake, client, ac, clock } = setup();
    await client.create(pod("a"));
    await client.create(pod("b"));
    const inf = new SharedIndexInformer(fake.resource(pods, ""), { clock });
    const { log, h } = recorder();
    const reg = inf.addEventHandler(h);
    const done = inf.run(ac.signal);
    expect(await inf.waitForSync()).toBe(true);
    await settle();
    expect(reg.hasSynced()).toBe(true);
    expect(log).toEqual(["add a (initial)", "add b (initial)"]);
    const a = await client.get("a");
    await client.update({ ...a, metadata: { ...a.metadata, labels: { x: "1" } } });
    await client.delete("b");
    await client.create(pod("c"));
    await settle();
    expect(log.slice(2)).toEqual(["update a 1->3", "delete b", "add c"]);
    expect(inf.lister().namespace("default").list().map((o) => o.metadata?.name).sort()).toEqual(["a", "c"]);
    expect(inf.lister().namespace("default").list(parseSelector("x=1")).map((o) => o.metadata?.name)).toEqual(["a"]);
    expect(() => inf.lister().namespace("default").get("b")).toThrow(/pods "b" not found/);
    expect(inf.health()).toMatchObject({ phase: "Watching", synced: true, lists: 1, watches: 1, errors: 0 });
    ac.abort();
    await done;
  });

  it("list items get apiVersion and kind filled in, and cached objects are frozen", async () => {
    const { fake, client, ac, clock } = setup();
    await client.create(pod("a"));
    const inf = new SharedIndexInformer(fake.resource(pods, ""), { clock, transform: dropManagedFields });
    const done = inf.run(ac.signal);
    await inf.waitForSync();
    const cached = inf.lister().namespace("default").get("a");
    expect(cached.kind).toBe("Pod");
    expect(cached.apiVersion).toBe("v1");
    expect(() => {
      (cached.metadata as { name?: string }).name = "x";
    }).toThrow(TypeError);
    ac.abort();
    await done;
  });

  it("re-watches from the last resourceVersion when the server closes the watch (no relist)", async () => {
    const { fake, client, ac, clock } = setup();
    const inf = new SharedIndexInformer(fake.resource(pods, ""), { clock });
    const { log, h } = recorder();
    inf.addEventHandler(h);
    const done = inf.run(ac.signal);
    await inf.waitForSync();
    await clock.advance(2000);
    fake.tracker.closeWatches();
    await client.create(pod("during-gap"));
    await settle();
    expect(log).toEqual(["add during-gap"]);
    expect(inf.health().lists).toBe(1);
    expect(inf.health().watches).toBe(2);
    ac.abort();
    await done;
  });

  it("relists on 410 Expired and delivers tombstones for objects deleted meanwhile", async () => {
    const { fake, client, ac, clock } = setup({ historyLimit: 2 });
    await client.create(pod("keep"));
    await client.create(pod("doomed"));
    const inf = new SharedIndexInformer(fake.resource(pods, ""), { clock });
    const { log, h } = recorder();
    inf.addEventHandler(h);
    const done = inf.run(ac.signal);
    await inf.waitForSync();
    await settle();
    log.length = 0;
    // The watch goes down; while it is down, changes overflow the history.
    await clock.advance(2000);
    fake.prependReactor("watch", "pods", () => ({ handled: true, error: StatusError.serviceUnavailable("down") }));
    fake.tracker.closeWatches();
    await settle();
    await client.delete("doomed");
    for (let i = 0; i < 3; i++) await client.create(pod(`n${i}`));
    const reactors = (fake as unknown as { reactors: unknown[] }).reactors;
    reactors.length = 0; // server back
    await clock.advance(60_000);
    await settle();
    expect(log).toContain("delete default/doomed (tombstone)");
    expect(log).toEqual(expect.arrayContaining(["add n0", "add n1", "add n2"]));
    expect(inf.health().lists).toBe(2);
    expect(inf.lister().list().map((o) => o.metadata?.name).sort()).toEqual(["keep", "n0", "n1", "n2"]);
    ac.abort();
    await done;
  });

  it("relists after an ERROR 410 event on the watch stream", async () => {
    const { fake, client, ac, clock } = setup();
    const inf = new SharedIndexInformer(fake.resource(pods, ""), { clock });
    const done = inf.run(ac.signal);
    await inf.waitForSync();
    await settle();
    fake.tracker.failWatches(pods, StatusError.expired("too old resource version: 1 (5)").status);
    await client.create(pod("x"));
    await settle();
    expect(inf.health().lists).toBe(2);
    expect(inf.lister().list().map((o) => o.metadata?.name)).toEqual(["x"]);
    ac.abort();
    await done;
  });

  it("backs off and keeps retrying when the list fails, reporting every error", async () => {
    const { fake, client, ac, clock } = setup();
    await client.create(pod("a"));
    let failures = 3;
    fake.prependReactor("list", "pods", () => (failures-- > 0 ? { handled: true, error: new Error("connection refused") } : { handled: false }));
    const errors: string[] = [];
    const inf = new SharedIndexInformer(fake.resource(pods, ""), { clock, onError: (m) => errors.push(m) });
    const done = inf.run(ac.signal);
    await settle();
    expect(inf.hasSynced()).toBe(false);
    expect(inf.health().phase).toBe("Backoff");
    await clock.advance(120_000);
    await settle();
    expect(inf.hasSynced()).toBe(true);
    expect(errors.length).toBe(3);
    expect(inf.health().errors).toBe(3);
    ac.abort();
    await done;
  });

  it("a handler added late first receives the current state", async () => {
    const { fake, client, ac, clock } = setup();
    await client.create(pod("a"));
    const inf = new SharedIndexInformer(fake.resource(pods, ""), { clock });
    const done = inf.run(ac.signal);
    await inf.waitForSync();
    const { log, h } = recorder();
    const reg = inf.addEventHandler(h);
    await settle();
    expect(log).toEqual(["add a (initial)"]);
    expect(reg.hasSynced()).toBe(true);
    await reg.remove();
    await client.create(pod("b"));
    await settle();
    expect(log).toEqual(["add a (initial)"]);
    ac.abort();
    await done;
  });

  it("a throwing handler does not stop other handlers or later events", async () => {
    const { fake, client, ac, clock } = setup();
    const errors: unknown[] = [];
    const inf = new SharedIndexInformer(fake.resource(pods, ""), { clock, onError: (_m, e) => errors.push(e) });
    inf.addEventHandler({
      onAdd: () => {
        throw new Error("boom");
      },
    });
    const { log, h } = recorder();
    inf.addEventHandler(h);
    const done = inf.run(ac.signal);
    await inf.waitForSync();
    await client.create(pod("a"));
    await client.create(pod("b"));
    await settle();
    expect(log).toEqual(["add a", "add b"]);
    expect(errors).toHaveLength(2);
    ac.abort();
    await done;
  });

  it("resync re-delivers cached objects as updates to due handlers only", async () => {
    const { fake, client, ac, clock } = setup();
    await client.create(pod("a"));
    const inf = new SharedIndexInformer(fake.resource(pods, ""), { clock });
    const fast = recorder();
    const never = recorder();
    inf.addEventHandler(fast.h, 30_000);
    inf.addEventHandler(never.h, 0);
    const done = inf.run(ac.signal);
    await inf.waitForSync();
    await settle();
    await clock.advance(30_000);
    await settle();
    expect(fast.log).toEqual(["add a (initial)", "update a 1->1"]);
    expect(never.log).toEqual(["add a (initial)"]);
    ac.abort();
    await done;
  });

  it("filtering handler turns label changes into adds and deletes", async () => {
    const { fake, client, ac, clock } = setup();
    const inf = new SharedIndexInformer(fake.resource(pods, ""), { clock });
    const { log, h } = recorder();
    inf.addEventHandler(new FilteringResourceEventHandler((o) => !(o instanceof DeletedFinalStateUnknown) && o.metadata?.labels?.app === "web", h));
    const done = inf.run(ac.signal);
    await inf.waitForSync();
    const p = await client.create(pod("p", { app: "db" }));
    const p2 = await client.update({ ...p, metadata: { ...p.metadata, labels: { app: "web" } } });
    await client.update({ ...p2, metadata: { ...p2.metadata, labels: { app: "db" } } });
    await settle();
    expect(log).toEqual(["add p", "delete p"]);
    ac.abort();
    await done;
  });

  it("watch-list: initial events end with a bookmark, then the same stream continues", async () => {
    const { fake, client, ac, clock } = setup();
    await client.create(pod("a"));
    const inf = new SharedIndexInformer(fake.resource(pods, ""), { clock, useWatchList: true });
    const { log, h } = recorder();
    inf.addEventHandler(h);
    const done = inf.run(ac.signal);
    expect(await inf.waitForSync()).toBe(true);
    await client.create(pod("b"));
    await settle();
    expect(log).toEqual(["add a (initial)", "add b"]);
    expect(inf.health().lists).toBe(0);
    ac.abort();
    await done;
  });

  it("watch-list refused by the server falls back to list+watch", async () => {
    const { fake, client, ac, clock } = setup();
    await client.create(pod("a"));
    fake.prependReactor("watch", "pods", (a) =>
      (a.options as { sendInitialEvents?: boolean } | undefined)?.sendInitialEvents
        ? { handled: true, error: StatusError.badRequest("sendInitialEvents is not supported") }
        : { handled: false },
    );
    const inf = new SharedIndexInformer(fake.resource(pods, ""), { clock, useWatchList: true });
    const done = inf.run(ac.signal);
    expect(await inf.waitForSync()).toBe(true);
    expect(inf.health().lists).toBe(1);
    ac.abort();
    await done;
  });
});

describe("SharedInformerFactory", () => {
  it("shares one informer per resource and waits for all caches", async () => {
    const clock = new FakeClock(0);
    const fake = new FakeClient({ clock });
    await fake.resource(pods, "default").create(pod("a"));
    const factory = new SharedInformerFactory(fake, { clock });
    const i1 = factory.forResource(pods);
    const i2 = factory.forResource(pods);
    expect(i1).toBe(i2);
    const ac = new AbortController();
    factory.start(ac.signal);
    const synced = await factory.waitForCacheSync(ac.signal);
    expect([...synced.values()]).toEqual([true]);
    expect(fake.actions().filter((a) => a.verb === "list")).toHaveLength(1);
    ac.abort();
    await factory.shutdown();
  });
});

describe("SharedInformerFactory errors are never silent", () => {
  it("logs a forbidden list through its logger, keeps calling onError, and says periodically why the cache has not synced", async () => {
    const clock = new FakeClock(0);
    const fake = new FakeClient({ clock });
    fake.prependReactor("list", "pods", () => ({
      handled: true,
      error: new StatusError({ status: "Failure", reason: "Forbidden", code: 403, message: 'pods is forbidden: User "system:serviceaccount:x:y" cannot list resource "pods"' }),
    }));
    const { logger, records } = captureLogger("info");
    const seen: string[] = [];
    const factory = new SharedInformerFactory(fake, { clock, logger, onError: (m) => seen.push(m), unsyncedReportIntervalMs: 10_000 });
    const inf = factory.forResource(pods);
    const ac = new AbortController();
    factory.start(ac.signal);
    await clock.advance(1);
    const warn = records.find((r) => r.level === 40 && String(r.err).includes("forbidden"));
    expect(warn?.msg).toMatch(/^pods: list failed|pods/);
    expect(seen.length).toBeGreaterThan(0);
    expect(inf.hasSynced()).toBe(false);
    expect(records.some((r) => String(r.msg).includes("has not synced yet"))).toBe(false);
    await clock.advance(10_000);
    const report = records.find((r) => String(r.msg).includes("has not synced yet"));
    expect(report).toMatchObject({ level: 40, phase: expect.any(String) });
    expect(String(report?.lastError)).toContain("forbidden");
    const before = records.filter((r) => String(r.msg).includes("has not synced yet")).length;
    await clock.advance(10_000);
    expect(records.filter((r) => String(r.msg).includes("has not synced yet")).length).toBe(before + 1);
    ac.abort();
    await factory.shutdown();
  });

  it("stops reporting once synced, and logs a routine relist at info, not warn", async () => {
    const clock = new FakeClock(0);
    const fake = new FakeClient({ clock });
    const { logger, records } = captureLogger("info");
    const factory = new SharedInformerFactory(fake, { clock, logger });
    factory.forResource(pods);
    const ac = new AbortController();
    factory.start(ac.signal);
    await factory.waitForCacheSync(ac.signal);
    await clock.advance(60_000);
    expect(records.filter((r) => r.level >= 40)).toEqual([]);
    ac.abort();
    await factory.shutdown();
  });

  it("writes klog-style lines to stderr when given no logger", async () => {
    const lines: string[] = [];
    const write = process.stderr.write;
    process.stderr.write = ((chunk: string) => (lines.push(String(chunk)), true)) as typeof process.stderr.write;
    try {
      stderrInformerLogger.warn({ err: "boom" }, "pods: list failed");
    } finally {
      process.stderr.write = write;
    }
    expect(lines[0]).toMatch(/^W\d{4} \d{2}:\d{2}:\d{2}\.\d{6} +\d+ informers\] pods: list failed err="boom"\n$/);
  });
});

describe("convergence under churn", () => {
  it("the cache always converges to the server's list, through closed watches and compactions", async () => {
    const { fake, ac, clock } = setup({ historyLimit: 5 });
    const client = fake.resource(pods, "default");
    const inf = new SharedIndexInformer(fake.resource(pods, ""), { clock });
    const done = inf.run(ac.signal);
    await inf.waitForSync();
    let seed = 42;
    const rand = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    for (let round = 0; round < 30; round++) {
      for (let i = 0; i < 10; i++) {
        const name = `p${Math.floor(rand() * 15)}`;
        const r = rand();
        try {
          if (r < 0.4) await client.create(pod(name, { gen: String(round) }));
          else if (r < 0.7) {
            const cur = await client.get(name);
            await client.update({ ...cur, metadata: { ...cur.metadata, labels: { gen: String(round) } } });
          } else await client.delete(name);
        } catch {
          // AlreadyExists / NotFound are expected in a random walk
        }
      }
      const chaos = rand();
      if (chaos < 0.2) fake.tracker.closeWatches();
      else if (chaos < 0.35) fake.tracker.compact();
      else if (chaos < 0.45) fake.tracker.failWatches(pods, StatusError.expired("too old").status);
      await clock.advance(40_000);
      await settle(10);
    }
    fake.tracker.closeWatches();
    await clock.advance(60_000);
    await settle(40);
    const server = (await client.list()).items.map((o) => `${o.metadata?.name}@${o.metadata?.resourceVersion}`).sort();
    const cache = inf.lister().list().map((o) => `${o.metadata?.name}@${o.metadata?.resourceVersion}`).sort();
    expect(cache).toEqual(server);
    ac.abort();
    await done;
  });
});
