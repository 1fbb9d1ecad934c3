import type { Event } from "../apimachinery/api/core/v1.js";
import { Registry } from "prom-client";
import { describe, expect, it } from "vitest";
import { FakeClock, flushMicrotasks } from "../apimachinery/clock.js";
import { StatusError } from "../apimachinery/errors.js";
import { builtin } from "../client/typed.js";
import { FakeClient } from "../testing/fakeclient.js";
import { CacheSyncTimeoutError } from "./controller.js";
import { captureLogger } from "./logging.js";
import {
  GracefulShutdownTimeoutError,
  InvalidBindAddressError,
  LeaderElectionLostError,
  Manager,
  RunnableError,
  leasesResource,
  parseBindAddress,
  runUntilSignal,
} from "./manager.js";
import type { ManagerOptions } from "./manager.js";

function newManager(fake: FakeClient, clock: FakeClock, opts: Partial<ManagerOptions> = {}) {
  const registry = new Registry();
  const { logger, records } = captureLogger("info");
  const manager = new Manager({ client: fake, clock, registry, logger, ...opts });
  const calls: string[] = [];
  const controller = manager
    .controller("widgets")
    .watchesRawSource({ start: () => {} })
    .withOptions({ maxConcurrentReconciles: 2 })
    .reconcile(async (key) => {
      calls.push(key.toString());
    });
  const stop = new AbortController();
  return { manager, controller, registry, records, calls, stop };
}

/** Runs start() and turns its outcome into a value, so a rejection is never unhandled. */
function started(m: Manager, signal: AbortSignal) {
  let settled = false;
  const outcome = m.start(signal).then(
    () => {
      settled = true;
      return undefined;
    },
    (e: unknown) => {
      settled = true;
      return e;
    },
  );
  return { outcome, settled: () => settled };
}

async function advance(clock: FakeClock, ms: number, stepMs = 250): Promise<void> {
  for (let t = 0; t < ms; t += stepMs) await clock.advance(Math.min(stepMs, ms - t));
}

describe("parseBindAddress", () => {
  it.each([
    ["0", undefined],
    ["", undefined],
    [undefined, undefined],
    [":8080", { host: undefined, port: 8080 }],
    ["127.0.0.1:0", { host: "127.0.0.1", port: 0 }],
    ["[::1]:9090", { host: "::1", port: 9090 }],
    ["localhost:81", { host: "localhost", port: 81 }],
  ])("%s", (input, want) => {
    expect(parseBindAddress(input)).toEqual(want);
  });
  it.each(["8080", "host", ":99999", "::1:80", "a:b"])("rejects %s", (input) => {
    expect(() => parseBindAddress(input)).toThrow(InvalidBindAddressError);
  });
});

describe("Manager without leader election", () => {
  it("runs controllers, serves /metrics, /healthz and /readyz on loopback, and stops on abort", async () => {
    const clock = new FakeClock();
    const fake = new FakeClient({ clock });
    // The first list of pods fails, so the informer is not synced until the reflector retries.
    fake.failNth("list", "pods", 1, StatusError.internalError(new Error("etcd down")));
    const h = newManager(fake, clock, { metricsBindAddress: "127.0.0.1:0", healthProbeBindAddress: "127.0.0.1:0" });
    const pods = h.manager.informers.forResource(builtin.pods);
    const run = started(h.manager, h.stop.signal);
    for (let i = 0; i < 20 && h.manager.phase !== "Running"; i++) await flushMicrotasks();
    expect(h.manager.phase).toBe("Running");
    expect(h.manager.metricsAddress).toMatch(/^127\.0\.0\.1:\d+$/);
    expect(h.manager.healthAddress).toMatch(/^127\.0\.0\.1:\d+$/);
    expect(h.manager.metricsAddress).not.toBe(h.manager.healthAddress);
    const health = `http://${h.manager.healthAddress}`;
    const metrics = `http://${h.manager.metricsAddress}`;

    let res = await fetch(`${health}/healthz`);
    expect(res.status).toBe(200);
    expect(await res.text()).toBe("ok");
    res = await fetch(`${health}/readyz`);
    expect(res.status).toBe(500);
    expect(await res.text()).toBe("[-]informers failed: caches not synced\nreadyz check failed\n");
    expect((await fetch(`${health}/readyz/informers`)).status).toBe(500);
    expect((await fetch(`${health}/readyz/nope`)).status).toBe(404);
    expect((await fetch(`${metrics}/healthz`)).status).toBe(404);

    // The reflector retries after its backoff; the cache syncs and readiness follows.
    await advance(clock, 2000);
    expect(pods.hasSynced()).toBe(true);
    await flushMicrotasks();
    res = await fetch(`${health}/readyz?verbose`);
    expect(res.status).toBe(200);
    expect(await res.text()).toBe("[+]informers ok\nreadyz check passed\n");

    // The controller runs (no leader election) and its metrics are served.
    h.controller.enqueue("ns/w1");
    await flushMicrotasks();
    expect(h.calls).toEqual(["ns/w1"]);
    res = await fetch(`${metrics}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/plain");
    const text = await res.text();
    expect(text).toContain('controller_runtime_reconcile_total{controller="widgets",result="success"} 1');
    expect(text).toContain('controller_runtime_max_concurrent_reconciles{controller="widgets"} 2');
    expect(text).toContain('workqueue_adds_total{name="widgets",controller="widgets"} 1');
    expect((await fetch(`${metrics}/metrics`, { method: "POST" })).status).toBe(405);

    h.stop.abort();
    expect(await run.outcome).toBeUndefined();
    expect(h.manager.phase).toBe("Stopped");
    expect(h.controller.phase).toBe("Stopped");
    await expect(fetch(`${health}/healthz`)).rejects.toThrow();
  });

  it("serves everything from one server when both addresses are the same fixed port", async () => {
    const clock = new FakeClock();
    const fake = new FakeClient({ clock });
    const probe = new Manager({ client: fake, clock, registry: new Registry(), logger: captureLogger().logger, metricsBindAddress: "127.0.0.1:0" });
    const stopProbe = new AbortController();
    const p = started(probe, stopProbe.signal);
    for (let i = 0; i < 20 && !probe.metricsAddress; i++) await flushMicrotasks();
    const port = Number(probe.metricsAddress!.split(":")[1]);
    stopProbe.abort();
    await p.outcome;

    const h = newManager(fake, clock, { metricsBindAddress: `127.0.0.1:${port}`, healthProbeBindAddress: `127.0.0.1:${port}` });
    const run = started(h.manager, h.stop.signal);
    for (let i = 0; i < 20 && h.manager.phase !== "Running"; i++) await flushMicrotasks();
    expect(h.manager.healthAddress).toBe(h.manager.metricsAddress);
    expect((await fetch(`http://${h.manager.healthAddress}/healthz`)).status).toBe(200);
    expect((await fetch(`http://${h.manager.metricsAddress}/metrics`)).status).toBe(200);
    h.stop.abort();
    expect(await run.outcome).toBeUndefined();
  });

  it("fails start() when a port is taken", async () => {
    const clock = new FakeClock();
    const fake = new FakeClient({ clock });
    const a = new Manager({ client: fake, clock, registry: new Registry(), logger: captureLogger().logger, metricsBindAddress: "127.0.0.1:0" });
    const stopA = new AbortController();
    const runA = started(a, stopA.signal);
    for (let i = 0; i < 20 && !a.metricsAddress; i++) await flushMicrotasks();
    const b = new Manager({ client: fake, clock, registry: new Registry(), logger: captureLogger().logger, metricsBindAddress: a.metricsAddress });
    const err = await started(b, new AbortController().signal).outcome;
    expect((err as NodeJS.ErrnoException).code).toBe("EADDRINUSE");
    stopA.abort();
    await runA.outcome;
  });

  it("records events to the API", async () => {
    const clock = new FakeClock();
    const fake = new FakeClient({ clock });
    const h = newManager(fake, clock);
    const run = started(h.manager, h.stop.signal);
    await flushMicrotasks();
    const recorder = h.manager.eventRecorder("widget-controller");
    recorder.event({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "w1", namespace: "ns", uid: "u1" } }, "Normal", "Synced", "synced ok");
    for (let i = 0; i < 10 && fake.writeActions().length === 0; i++) await flushMicrotasks();
    const created = fake.writeActions().find((a) => a.resource === "events" && a.verb === "create");
    expect(created).toBeDefined();
    const ev = created!.object as unknown as Event;
    expect(ev).toMatchObject({ reason: "Synced", message: "synced ok", type: "Normal", source: { component: "widget-controller" } });
    expect(ev.involvedObject).toMatchObject({ kind: "ConfigMap", name: "w1", namespace: "ns" });
    h.stop.abort();
    await run.outcome;
  });

  it("stops with the error of a failing runnable (a controller whose caches never sync)", async () => {
    const clock = new FakeClock();
    const fake = new FakeClient({ clock });
    const { logger } = captureLogger();
    const manager = new Manager({ client: fake, clock, registry: new Registry(), logger });
    manager
      .controller("stuck")
      .watchesRawSource({ start: () => {}, hasSynced: () => false })
      .withOptions({ cacheSyncTimeoutMs: 1000 })
      .reconcile(async () => {});
    const run = started(manager, new AbortController().signal);
    await advance(clock, 1000);
    const err = await run.outcome;
    expect(err).toBeInstanceOf(RunnableError);
    expect((err as RunnableError).runnable).toBe("stuck");
    expect((err as Error).cause).toBeInstanceOf(CacheSyncTimeoutError);
    expect(manager.phase).toBe("Stopped");
  });

  it("gives up on runnables that ignore the stop signal after the graceful timeout", async () => {
    const clock = new FakeClock();
    const fake = new FakeClient({ clock });
    const { logger } = captureLogger();
    const manager = new Manager({ client: fake, clock, registry: new Registry(), logger, gracefulShutdownTimeoutMs: 5000 });
    manager.add({ name: "stubborn", run: () => new Promise<void>(() => {}) }, { needLeaderElection: false });
    let politeStopped = false;
    manager.add({
      name: "polite",
      run: (signal) =>
        new Promise<void>((resolve) =>
          signal.addEventListener("abort", () => {
            politeStopped = true;
            resolve();
          }),
        ),
    });
    const stop = new AbortController();
    const run = started(manager, stop.signal);
    await flushMicrotasks();
    stop.abort();
    await advance(clock, 4999, 1000);
    expect(run.settled()).toBe(false);
    expect(politeStopped).toBe(true);
    await advance(clock, 1);
    const err = await run.outcome;
    expect(err).toBeInstanceOf(GracefulShutdownTimeoutError);
    expect((err as GracefulShutdownTimeoutError).pending).toEqual(["stubborn"]);
  });

  it("starts runnables added after start, and refuses them once stopping", async () => {
    const clock = new FakeClock();
    const fake = new FakeClient({ clock });
    const { logger } = captureLogger();
    const manager = new Manager({ client: fake, clock, registry: new Registry(), logger });
    const stop = new AbortController();
    const run = started(manager, stop.signal);
    await flushMicrotasks();
    let ran = false;
    manager.add({
      name: "late",
      run: async () => {
        ran = true;
      },
    });
    await flushMicrotasks();
    expect(ran).toBe(true);
    stop.abort();
    await run.outcome;
    expect(() => manager.add({ name: "too-late", run: async () => {} })).toThrow(/stopping/);
    await expect(manager.start(new AbortController().signal)).rejects.toThrow(/already started/);
  });

  it("runUntilSignal stops gracefully on SIGTERM and removes its handlers", async () => {
    const clock = new FakeClock();
    const fake = new FakeClient({ clock });
    const h = newManager(fake, clock);
    const before = process.listenerCount("SIGTERM");
    let second = 0;
    const done = runUntilSignal(h.manager, { logger: captureLogger().logger, onSecondSignal: () => second++ });
    await flushMicrotasks();
    expect(process.listenerCount("SIGTERM")).toBe(before + 1);
    process.emit("SIGTERM");
    process.emit("SIGINT");
    await done;
    expect(second).toBe(1);
    expect(h.manager.phase).toBe("Stopped");
    expect(process.listenerCount("SIGTERM")).toBe(before);
  });
});

describe("Manager with leader election", () => {
  const le = { namespace: "kube-system", name: "widgets-controller" };

  it("runs controllers only in the leader; the other takes over when it stops", async () => {
    const clock = new FakeClock();
    const fake = new FakeClient({ clock });
    const a = newManager(fake, clock, { leaderElection: { ...le, id: "a" } });
    const b = newManager(fake, clock, { leaderElection: { ...le, id: "b" } });
    const runA = started(a.manager, a.stop.signal);
    await advance(clock, 500);
    const runB = started(b.manager, b.stop.signal);
    await advance(clock, 5000);

    expect(a.manager.isLeader()).toBe(true);
    expect(b.manager.isLeader()).toBe(false);
    expect(a.controller.phase).toBe("Running");
    expect(b.controller.phase).toBe("Created");
    const lease = await fake.resource(leasesResource, "kube-system").get("widgets-controller");
    expect(lease.spec?.holderIdentity).toBe("a");

    // Both managers' controllers get the event; only the leader's reconciles.
    a.controller.enqueue("ns/x");
    b.controller.enqueue("ns/x");
    await flushMicrotasks();
    expect(a.calls).toEqual(["ns/x"]);
    expect(b.calls).toEqual([]);

    // The leader stops (without releasing): the other acquires after the lease expires.
    a.stop.abort();
    expect(await runA.outcome).toBeUndefined();
    expect(a.controller.phase).toBe("Stopped");
    await advance(clock, 10_000);
    expect(b.manager.isLeader()).toBe(false);
    await advance(clock, 10_000);
    expect(b.manager.isLeader()).toBe(true);
    expect(b.controller.phase).toBe("Running");
    await flushMicrotasks();
    expect(b.calls).toEqual(["ns/x"]);
    const lease2 = await fake.resource(leasesResource, "kube-system").get("widgets-controller");
    expect(lease2.spec?.holderIdentity).toBe("b");
    expect(lease2.spec?.leaseTransitions).toBe(1);

    b.stop.abort();
    expect(await runB.outcome).toBeUndefined();
  });

  it("hands over at once when the leader releases on cancel", async () => {
    const clock = new FakeClock();
    const fake = new FakeClient({ clock });
    const a = newManager(fake, clock, { leaderElection: { ...le, id: "a", releaseOnCancel: true } });
    const b = newManager(fake, clock, { leaderElection: { ...le, id: "b" } });
    const runA = started(a.manager, a.stop.signal);
    await advance(clock, 500);
    const runB = started(b.manager, b.stop.signal);
    await advance(clock, 3000);
    expect(a.manager.isLeader()).toBe(true);
    a.stop.abort();
    await runA.outcome;
    const released = await fake.resource(leasesResource, "kube-system").get("widgets-controller");
    expect(released.spec?.holderIdentity).toBe("");
    await advance(clock, 6000);
    expect(b.manager.isLeader()).toBe(true);
    b.stop.abort();
    await runB.outcome;
  });

  it("stops controllers and rejects start() when leadership is lost", async () => {
    const clock = new FakeClock();
    const fake = new FakeClient({ clock });
    const a = newManager(fake, clock, { leaderElection: { ...le, id: "a" }, healthProbeBindAddress: "127.0.0.1:0" });
    const runA = started(a.manager, a.stop.signal);
    await advance(clock, 500);
    expect(a.controller.phase).toBe("Running");
    expect((await fetch(`http://${a.manager.healthAddress}/healthz?verbose`)).status).toBe(200);

    // Renewals start failing: after the renew deadline the leader gives up.
    fake.prependReactor("update", "leases", () => ({ handled: true, error: StatusError.internalError(new Error("apiserver unavailable")) }));
    fake.prependReactor("get", "leases", () => ({ handled: true, error: StatusError.internalError(new Error("apiserver unavailable")) }));
    await advance(clock, 12_000);
    const err = await runA.outcome;
    expect(err).toBeInstanceOf(LeaderElectionLostError);
    expect((err as Error).message).toBe("leader election lost (lease kube-system/widgets-controller)");
    expect(a.manager.isLeader()).toBe(false);
    await flushMicrotasks();
    expect(a.controller.phase).toBe("Stopped");
    expect(a.records.some((r) => r.msg === "Leader election lost")).toBe(true);
  });

  it("uses hostname_random as the default identity", () => {
    const clock = new FakeClock();
    const m = new Manager({ client: new FakeClient({ clock }), clock, registry: new Registry(), logger: captureLogger().logger, leaderElection: le });
    expect(m.identity).toMatch(/^.+_[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
  });
});
