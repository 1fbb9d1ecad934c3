import { Registry } from "prom-client";
import { describe, expect, it } from "vitest";
import { FakeClock, flushMicrotasks } from "../apimachinery/clock.js";
import { StatusError } from "../apimachinery/errors.js";
import { ObjectName } from "../apimachinery/objectname.js";
import { builtin } from "../client/typed.js";
import { FakeRecorder } from "../events/broadcaster.js";
import { SharedInformerFactory } from "../informers/factory.js";
import { DeletedFinalStateUnknown } from "../informers/store.js";
import { FakeClient } from "../testing/fakeclient.js";
import { workqueueMetricNames } from "../workqueue/metrics.js";
import { CacheSyncTimeoutError, Controller, ControllerAlreadyStartedError } from "./controller.js";
import type { ControllerOptions, ReconcileResult } from "./controller.js";
import { captureLogger } from "./logging.js";
import { controllerMetricNames, isReconcilePanic, isTerminalReconcileError } from "./metrics.js";
import { isTerminalError, TerminalError } from "./reconcile.js";

type Step = ReconcileResult | void | Error | (() => Promise<ReconcileResult | void>);

/** What the engine needs besides a reconcile function, over a fake client. */
function deps(clock = new FakeClock()) {
  const client = new FakeClient({ clock });
  return { client, recorder: new FakeRecorder(), informers: new SharedInformerFactory(client, { clock }) };
}

/** A controller whose reconcile answers from a script per key (the last step repeats). */
function harness(script: Record<string, Step[]> = {}, opts: Partial<ControllerOptions> = {}) {
  const clock = new FakeClock();
  const registry = new Registry();
  const { logger, records } = captureLogger("trace");
  const calls: string[] = [];
  const signals: AbortSignal[] = [];
  const controller = new Controller({
    name: "test",
    clock,
    registry,
    logger,
    ...deps(clock),
    reconcile: async (key, { signal }) => {
      const k = key.toString();
      calls.push(k);
      signals.push(signal);
      const steps = script[k] ?? [undefined];
      const n = calls.filter((c) => c === k).length - 1;
      const step = steps[Math.min(n, steps.length - 1)];
      if (step instanceof Error) throw step;
      if (typeof step === "function") return step();
      return step;
    },
    ...opts,
  });
  const stop = new AbortController();
  return { clock, registry, records, calls, signals, controller, stop };
}

async function metricValue(registry: Registry, name: string, labels: Record<string, string>): Promise<number | undefined> {
  const m = registry.getSingleMetric(name);
  if (!m) return undefined;
  const data = await m.get();
  const v = data.values.find((x) => Object.entries(labels).every(([k, val]) => x.labels[k] === val) && !((x as { metricName?: string }).metricName ?? "").endsWith("_bucket"));
  return v?.value;
}

async function histogramCount(registry: Registry, name: string, controller: string): Promise<number | undefined> {
  const data = await registry.getSingleMetric(name)!.get();
  return data.values.find((x) => x.labels.controller === controller && (x as { metricName?: string }).metricName === `${name}_count`)?.value;
}

function deferred<T = void>() {
  let resolve!: (v: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

describe("Controller workers", () => {
  it("reconciles an enqueued key and forgets it on success", async () => {
    const h = harness();
    const done = h.controller.run(h.stop.signal, 2);
    h.controller.enqueue("default/a");
    await flushMicrotasks();
    expect(h.calls).toEqual(["default/a"]);
    expect(h.controller.queue.numRequeues(new ObjectName("default", "a"))).toBe(0);
    expect(await metricValue(h.registry, controllerMetricNames.reconcileTotal, { controller: "test", result: "success" })).toBe(1);
    expect(await metricValue(h.registry, controllerMetricNames.reconcileTotal, { controller: "test", result: "error" })).toBe(0);
    expect(await metricValue(h.registry, controllerMetricNames.maxConcurrentReconciles, { controller: "test" })).toBe(2);
    expect(await histogramCount(h.registry, controllerMetricNames.reconcileTime, "test")).toBe(1);
    h.stop.abort();
    await done;
    expect(h.controller.phase).toBe("Stopped");
  });

  it("requeues a failing key with exponential backoff and forgets it once it succeeds", async () => {
    const boom = new Error("boom");
    const h = harness({ "default/a": [boom, boom, undefined] });
    const done = h.controller.run(h.stop.signal, 1);
    const key = new ObjectName("default", "a");
    h.controller.enqueue(key);
    await flushMicrotasks();
    expect(h.calls.length).toBe(1);
    expect(h.controller.queue.numRequeues(key)).toBe(1);
    // First retry after 5 ms.
    await h.clock.advance(4);
    expect(h.calls.length).toBe(1);
    await h.clock.advance(1);
    expect(h.calls.length).toBe(2);
    expect(h.controller.queue.numRequeues(key)).toBe(2);
    // Second retry after 10 ms.
    await h.clock.advance(9);
    expect(h.calls.length).toBe(2);
    await h.clock.advance(1);
    expect(h.calls.length).toBe(3);
    expect(h.controller.queue.numRequeues(key)).toBe(0);
    expect(await metricValue(h.registry, controllerMetricNames.reconcileErrors, { controller: "test" })).toBe(2);
    expect(await metricValue(h.registry, controllerMetricNames.reconcileTotal, { controller: "test", result: "error" })).toBe(2);
    expect(await metricValue(h.registry, controllerMetricNames.reconcileTotal, { controller: "test", result: "success" })).toBe(1);

    // Errors are logged with the controller, object and a reconcileID per attempt.
    const errs = h.records.filter((r) => r.msg === "Reconciler error");
    expect(errs).toHaveLength(2);
    for (const r of errs) {
      expect(r).toMatchObject({ level: 50, controller: "test", object: "default/a", err: { message: "boom" } });
      expect(typeof r.reconcileID).toBe("string");
    }
    expect(errs[0].reconcileID).not.toBe(errs[1].reconcileID);
    h.stop.abort();
    await done;
  });

  it("retries a Conflict like any error", async () => {
    const h = harness({ "ns/x": [StatusError.conflict(builtin.deployments, "x", "modified"), undefined] });
    const done = h.controller.run(h.stop.signal, 1);
    h.controller.enqueue("ns/x");
    await flushMicrotasks();
    await h.clock.advance(5);
    expect(h.calls).toEqual(["ns/x", "ns/x"]);
    h.stop.abort();
    await done;
  });

  it("drops a key after maxRetries consecutive failures", async () => {
    const h = harness({ "ns/x": [new Error("always")] }, { maxRetries: 2 });
    const done = h.controller.run(h.stop.signal, 1);
    h.controller.enqueue("ns/x");
    await h.clock.advance(10_000);
    // The first attempt plus maxRetries retries.
    expect(h.calls).toEqual(["ns/x", "ns/x", "ns/x"]);
    expect(h.controller.queue.numRequeues(new ObjectName("ns", "x"))).toBe(0);
    expect(h.controller.queue.waitingLen()).toBe(0);
    expect(h.records.filter((r) => typeof r.msg === "string" && r.msg.includes("dropping"))).toHaveLength(1);
    expect(await metricValue(h.registry, controllerMetricNames.reconcileErrors, { controller: "test" })).toBe(3);
    // A later event starts afresh.
    h.controller.enqueue("ns/x");
    await flushMicrotasks();
    expect(h.calls.length).toBe(4);
    h.stop.abort();
    await done;
  });

  it("requeues after requeueAfterMs, forgetting earlier failures", async () => {
    const h = harness({ "ns/x": [new Error("e"), { requeueAfterMs: 1000 }, undefined] });
    const done = h.controller.run(h.stop.signal, 1);
    h.controller.enqueue("ns/x");
    await flushMicrotasks();
    await h.clock.advance(5);
    expect(h.calls.length).toBe(2);
    expect(h.controller.queue.numRequeues(new ObjectName("ns", "x"))).toBe(0);
    await h.clock.advance(999);
    expect(h.calls.length).toBe(2);
    await h.clock.advance(1);
    expect(h.calls.length).toBe(3);
    expect(await metricValue(h.registry, controllerMetricNames.reconcileTotal, { controller: "test", result: "requeue_after" })).toBe(1);
    h.stop.abort();
    await done;
  });

  it("requeue: true goes through the rate limiter with growing backoff", async () => {
    const h = harness({ "ns/x": [{ requeue: true }, { requeue: true }, undefined] });
    const done = h.controller.run(h.stop.signal, 1);
    h.controller.enqueue("ns/x");
    await flushMicrotasks();
    await h.clock.advance(5);
    expect(h.calls.length).toBe(2);
    await h.clock.advance(9);
    expect(h.calls.length).toBe(2);
    await h.clock.advance(1);
    expect(h.calls.length).toBe(3);
    expect(await metricValue(h.registry, controllerMetricNames.reconcileTotal, { controller: "test", result: "requeue" })).toBe(2);
    expect(await metricValue(h.registry, controllerMetricNames.reconcileErrors, { controller: "test" })).toBe(0);
    h.stop.abort();
    await done;
  });

  it("never reconciles one key on two workers at once, and does not lose a re-add made meanwhile", async () => {
    const gate = deferred();
    let inFlight = 0;
    let maxInFlight = 0;
    const slow = async () => {
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      await gate.promise;
      inFlight--;
    };
    const h = harness({ "ns/x": [slow, undefined] });
    const done = h.controller.run(h.stop.signal, 3);
    h.controller.enqueue("ns/x");
    await flushMicrotasks();
    h.controller.enqueue("ns/x");
    h.controller.enqueue({ metadata: { namespace: "ns", name: "x" } });
    await flushMicrotasks();
    expect(h.calls).toEqual(["ns/x"]);
    expect(await metricValue(h.registry, controllerMetricNames.activeWorkers, { controller: "test" })).toBe(1);
    gate.resolve();
    await flushMicrotasks();
    await flushMicrotasks();
    expect(h.calls).toEqual(["ns/x", "ns/x"]);
    expect(maxInFlight).toBe(1);
    expect(await metricValue(h.registry, controllerMetricNames.activeWorkers, { controller: "test" })).toBe(0);
    h.stop.abort();
    await done;
  });

  it("runs different keys concurrently up to the worker count", async () => {
    const gate = deferred();
    let inFlight = 0;
    let maxInFlight = 0;
    const slow = async () => {
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      await gate.promise;
      inFlight--;
    };
    const h = harness({ "ns/a": [slow], "ns/b": [slow], "ns/c": [slow] });
    const done = h.controller.run(h.stop.signal, 2);
    for (const k of ["ns/a", "ns/b", "ns/c"]) h.controller.enqueue(k);
    await flushMicrotasks();
    expect(maxInFlight).toBe(2);
    expect(await metricValue(h.registry, controllerMetricNames.activeWorkers, { controller: "test" })).toBe(2);
    gate.resolve();
    await flushMicrotasks();
    await flushMicrotasks();
    expect([...h.calls].sort()).toEqual(["ns/a", "ns/b", "ns/c"]);
    h.stop.abort();
    await done;
  });

  it("survives reconcilers that throw non-Error values or reject synchronously", async () => {
    const h = harness({
      "ns/a": [
        () => {
          throw "a string";
        },
        undefined,
      ],
    });
    const done = h.controller.run(h.stop.signal, 1);
    h.controller.enqueue("ns/a");
    await flushMicrotasks();
    await h.clock.advance(5);
    expect(h.calls).toEqual(["ns/a", "ns/a"]);
    h.stop.abort();
    await done;
  });

  it("accepts objects, tombstones, key strings and ObjectNames, and logs bad keys", async () => {
    const h = harness();
    const done = h.controller.run(h.stop.signal, 1);
    h.controller.enqueue({ metadata: { namespace: "n", name: "obj" } });
    h.controller.enqueue(new DeletedFinalStateUnknown("n/tomb", undefined));
    h.controller.enqueue("n/str");
    h.controller.enqueue(new ObjectName("", "cluster-scoped"));
    h.controller.enqueue("a/b/c");
    await flushMicrotasks();
    expect(h.calls).toEqual(["n/obj", "n/tomb", "n/str", "cluster-scoped"]);
    expect(h.records.some((r) => r.msg === "Could not enqueue: invalid object key")).toBe(true);
    h.controller.enqueueAfter("n/later", 100);
    h.controller.enqueueRateLimited("n/limited");
    await h.clock.advance(5);
    expect(h.calls).toContain("n/limited");
    expect(h.calls).not.toContain("n/later");
    await h.clock.advance(95);
    expect(h.calls).toContain("n/later");
    h.stop.abort();
    await done;
  });

  it("records workqueue metrics under the controller's name", async () => {
    const h = harness();
    const done = h.controller.run(h.stop.signal, 1);
    h.controller.enqueue("ns/a");
    await flushMicrotasks();
    expect(await metricValue(h.registry, workqueueMetricNames.adds, { name: "test" })).toBe(1);
    h.stop.abort();
    await done;
  });
});

describe("Controller lifecycle", () => {
  it("waits for caches, polling those without waitForSync", async () => {
    let synced = false;
    const h = harness({}, { caches: [{ hasSynced: () => synced }] });
    const done = h.controller.run(h.stop.signal, 1);
    h.controller.enqueue("ns/a");
    await h.clock.advance(1000);
    expect(h.controller.phase).toBe("WaitingForCaches");
    expect(h.calls).toEqual([]);
    synced = true;
    await h.clock.advance(100);
    expect(h.controller.phase).toBe("Running");
    expect(h.calls).toEqual(["ns/a"]);
    h.stop.abort();
    await done;
  });

  it("uses waitForSync when the cache has it", async () => {
    const ready = deferred<boolean>();
    let synced = false;
    const cache = { hasSynced: () => synced, waitForSync: () => ready.promise };
    const h = harness({}, { caches: [cache] });
    const done = h.controller.run(h.stop.signal, 1);
    await flushMicrotasks();
    expect(h.controller.phase).toBe("WaitingForCaches");
    synced = true;
    ready.resolve(true);
    await flushMicrotasks();
    expect(h.controller.phase).toBe("Running");
    h.stop.abort();
    await done;
  });

  it("rejects with a clear error when caches do not sync in time", async () => {
    const h = harness({}, { caches: [{ hasSynced: () => true }, { hasSynced: () => false }], cacheSyncTimeoutMs: 5000 });
    const done = h.controller.run(h.stop.signal, 1);
    const outcome = done.then(
      () => undefined,
      (e: unknown) => e,
    );
    await h.clock.advance(4999);
    expect(h.controller.phase).toBe("WaitingForCaches");
    await h.clock.advance(1);
    const err = await outcome;
    expect(err).toBeInstanceOf(CacheSyncTimeoutError);
    expect((err as Error).message).toBe("controller test: timed out after 5000ms waiting for caches to sync (1 of 2 not synced)");
    expect(h.records.some((r) => r.msg === "Could not wait for caches to sync" && r.level === 50)).toBe(true);
    expect(h.controller.phase).toBe("Stopped");
    expect(h.controller.queue.shuttingDown()).toBe(true);
  });

  it("resolves without starting workers when aborted while waiting for caches", async () => {
    const h = harness({}, { caches: [{ hasSynced: () => false }] });
    const done = h.controller.run(h.stop.signal, 1);
    await h.clock.advance(300);
    h.stop.abort();
    await done;
    expect(h.controller.phase).toBe("Stopped");
  });

  it("on abort lets the reconcile in flight finish (with an aborted signal), drops the rest, and resolves", async () => {
    const gate = deferred();
    const h = harness({ "ns/a": [() => gate.promise] });
    const done = h.controller.run(h.stop.signal, 1);
    h.controller.enqueue("ns/a");
    h.controller.enqueue("ns/b");
    await flushMicrotasks();
    expect(h.calls).toEqual(["ns/a"]);
    h.stop.abort();
    expect(h.signals[0].aborted).toBe(true);
    let resolved = false;
    void done.then(() => (resolved = true));
    await flushMicrotasks();
    expect(resolved).toBe(false);
    gate.resolve();
    await done;
    expect(h.calls).toEqual(["ns/a"]);
    expect(h.controller.phase).toBe("Stopped");
    // Adds after shutdown are ignored.
    h.controller.enqueue("ns/c");
    expect(h.controller.queue.len()).toBe(0);
  });

  it("does not count a reconcile that rejects with AbortError because of shutdown", async () => {
    const h = harness({
      "ns/a": [
        () => {
          const sig = h.signals[0];
          return new Promise((_, reject) => sig.addEventListener("abort", () => reject(new DOMException("aborted", "AbortError"))));
        },
      ],
    });
    const done = h.controller.run(h.stop.signal, 1);
    h.controller.enqueue("ns/a");
    await flushMicrotasks();
    h.stop.abort();
    await done;
    expect(await metricValue(h.registry, controllerMetricNames.reconcileErrors, { controller: "test" })).toBe(0);
    expect(h.records.some((r) => r.msg === "Reconcile interrupted by shutdown")).toBe(true);
  });

  it("may be run once", async () => {
    const h = harness();
    const done = h.controller.run(h.stop.signal, 1);
    await expect(h.controller.run(h.stop.signal, 1)).rejects.toBeInstanceOf(ControllerAlreadyStartedError);
    h.stop.abort();
    await done;
    await expect(harness().controller.run(new AbortController().signal, 0)).rejects.toThrow(/workers/);
  });

  it("shares one registry between controllers", async () => {
    const registry = new Registry();
    const { logger } = captureLogger();
    const a = new Controller({ name: "a", registry, logger, ...deps(), reconcile: async () => {} });
    const b = new Controller({ name: "b", registry, logger, ...deps(), reconcile: async () => {} });
    expect(a.name).toBe("a");
    expect(b.name).toBe("b");
    const text = await registry.metrics();
    expect(text).toContain('controller_runtime_reconcile_total{controller="a",result="success"} 0');
    expect(text).toContain('controller_runtime_reconcile_total{controller="b",result="requeue_after"} 0');
    expect(text).toContain('controller_runtime_reconcile_errors_total{controller="b"} 0');
  });
});

describe("Controller: terminal errors, panics, and the reconcile context", () => {
  it("does not requeue a TerminalError, and counts it (controller_runtime_terminal_reconcile_errors_total)", async () => {
    const h = harness({ "ns/a": [new TerminalError(new Error("spec is invalid"))] });
    const done = h.controller.run(h.stop.signal, 1);
    h.controller.enqueue("ns/a");
    await h.clock.advance(10_000);
    expect(h.calls).toEqual(["ns/a"]);
    expect(await metricValue(h.registry, controllerMetricNames.terminalReconcileErrors, { controller: "test" })).toBe(1);
    expect(await metricValue(h.registry, controllerMetricNames.reconcileErrors, { controller: "test" })).toBe(1);
    expect(await metricValue(h.registry, controllerMetricNames.reconcileTotal, { controller: "test", result: "error" })).toBe(1);
    expect(h.records.find((r) => r.msg === "Reconciler error")?.err).toMatchObject({ type: "TerminalError", message: expect.stringMatching(/^terminal error: spec is invalid/) });
    h.stop.abort();
    await done;
  });

  it("finds a TerminalError wrapped as a cause (errors.Is)", () => {
    expect(isTerminalError(new Error("outer", { cause: new TerminalError("x") }))).toBe(true);
    expect(isTerminalError(new Error("plain"))).toBe(false);
    expect(new TerminalError("bad").message).toBe("terminal error: bad");
  });

  it.each([
    ["a TypeError", () => (undefined as unknown as { x: number }).x],
    ["a thrown string", () => Promise.reject("boom")],
    ["a RangeError", () => new Array(-1)],
  ])("counts %s as a panic, logs it, and retries it like an error", async (_name, fail) => {
    const h = harness({ "ns/a": [async () => void (await fail()), undefined] });
    const done = h.controller.run(h.stop.signal, 1);
    h.controller.enqueue("ns/a");
    await h.clock.advance(10);
    expect(h.calls).toEqual(["ns/a", "ns/a"]);
    expect(await metricValue(h.registry, controllerMetricNames.reconcilePanics, { controller: "test" })).toBe(1);
    expect(await metricValue(h.registry, controllerMetricNames.reconcileErrors, { controller: "test" })).toBe(1);
    expect(h.records.some((r) => typeof r.msg === "string" && r.msg.startsWith("Observed a panic in reconciler"))).toBe(true);
    expect(h.records.find((r) => r.msg === "Reconciler error")?.err).toMatchObject({ message: expect.stringMatching(/^panic: .* \[recovered\]/) });
    h.stop.abort();
    await done;
  });

  it("an ordinary Error is not a panic", async () => {
    const h = harness({ "ns/a": [new StatusError({ code: 409, reason: "Conflict", message: "conflict" }), undefined] });
    const done = h.controller.run(h.stop.signal, 1);
    h.controller.enqueue("ns/a");
    await h.clock.advance(10);
    expect(await metricValue(h.registry, controllerMetricNames.reconcilePanics, { controller: "test" })).toBe(0);
    h.stop.abort();
    await done;
  });

  it("with recoverPanic false a panic stops the workers and run() rejects with it", async () => {
    const h = harness({ "ns/a": [() => Promise.reject(new TypeError("nil"))] }, { recoverPanic: false });
    const done = h.controller.run(h.stop.signal, 2);
    h.controller.enqueue("ns/a");
    await expect(done).rejects.toThrow(TypeError);
    expect(await metricValue(h.registry, controllerMetricNames.reconcilePanics, { controller: "test" })).toBe(1);
  });

  it("gives every reconcile a client bound to its signal: shutdown cancels the write in flight", async () => {
    const clock = new FakeClock();
    const d = deps(clock);
    const seen: Array<AbortSignal | undefined> = [];
    // A create that never answers until its signal aborts.
    d.client.prependReactor("create", "configmaps", (a) => {
      seen.push(a.options?.signal);
      return { handled: false };
    });
    const gate = deferred();
    const controller = new Controller({
      name: "writer",
      clock,
      registry: new Registry(),
      logger: captureLogger().logger,
      ...d,
      reconcile: async (req, ctx) => {
        await ctx.client.resource(builtin.configMaps, req.namespace).create({ metadata: { name: req.name } });
        expect(ctx.reconcileID).toMatch(/^[0-9a-f-]{36}$/);
        expect(ctx.cache).toBe(controller.cache);
        await gate.promise;
      },
    });
    const stop = new AbortController();
    const done = controller.run(stop.signal, 1);
    controller.enqueue("ns/a");
    await flushMicrotasks();
    expect(seen).toHaveLength(1);
    expect(seen[0]?.aborted).toBe(false);
    stop.abort();
    expect(seen[0]?.aborted).toBe(true);
    gate.resolve();
    await done;
  });

  it("reconcileOnce runs one request with the worker's handling and reports what it returned or threw", async () => {
    const h = harness({ "ns/a": [{ requeueAfterMs: 500 }], "ns/b": [new Error("nope")] });
    expect(await h.controller.reconcileOnce(new ObjectName("ns", "a"))).toEqual({ requeueAfterMs: 500 });
    await expect(h.controller.reconcileOnce(new ObjectName("ns", "b"))).rejects.toThrow("nope");
    expect(await metricValue(h.registry, controllerMetricNames.reconcileTotal, { controller: "test", result: "requeue_after" })).toBe(1);
    expect(await metricValue(h.registry, controllerMetricNames.reconcileTotal, { controller: "test", result: "error" })).toBe(1);
  });

  it("works with a request type of its own, compared through keyOf", async () => {
    const clock = new FakeClock();
    const seen: string[] = [];
    const controller = new Controller<{ id: number }>({
      name: "items",
      clock,
      registry: new Registry(),
      logger: captureLogger().logger,
      ...deps(clock),
      keyOf: (r) => r.id,
      describe: (r) => `item ${r.id}`,
      reconcile: async (r) => void seen.push(`item ${r.id}`),
    });
    const stop = new AbortController();
    const done = controller.run(stop.signal, 1);
    controller.queue.add({ id: 1 });
    controller.queue.add({ id: 1 });
    controller.queue.add({ id: 2 });
    await h(clock);
    expect(seen).toEqual(["item 1", "item 2"]);
    stop.abort();
    await done;
    async function h(c: FakeClock) {
      await c.advance(10);
    }
  });
});

describe("panics and terminal errors (controller-runtime's counters)", () => {
  class NamedTerminalError extends Error {
    override name = "TerminalError";
  }
  it.each<[string, unknown, boolean]>([
    ["a TypeError (reading a property of undefined)", new TypeError("Cannot read properties of undefined"), true],
    ["a RangeError", new RangeError("Invalid array length"), true],
    ["a thrown string", "boom", true],
    ["a StatusError", new StatusError({ status: "Failure", reason: "Conflict", code: 409, message: "conflict" }), false],
    ["a plain Error", new Error("no"), false],
  ])("%s is%s a panic", (_what, err, panic) => {
    expect(isReconcilePanic(err)).toBe(panic);
  });

  it("recognises a TerminalError, also as a cause", () => {
    expect(isTerminalReconcileError(new NamedTerminalError("bad spec"))).toBe(true);
    expect(isTerminalReconcileError(new Error("wrapped", { cause: new NamedTerminalError("bad spec") }))).toBe(true);
    expect(isTerminalReconcileError(new Error("no"))).toBe(false);
  });

  it("counts them from 0, and never retries a terminal error", async () => {
    const h = harness({ "ns/p": [new TypeError("x is undefined"), undefined], "ns/t": [new NamedTerminalError("invalid spec")] });
    expect(await metricValue(h.registry, controllerMetricNames.reconcilePanics, { controller: "test" })).toBe(0);
    expect(await metricValue(h.registry, controllerMetricNames.terminalReconcileErrors, { controller: "test" })).toBe(0);
    const run = h.controller.run(h.stop.signal, 1);
    await flushMicrotasks();
    h.controller.enqueue("ns/p");
    h.controller.enqueue("ns/t");
    for (let i = 0; i < 20; i++) await h.clock.advance(100);
    expect(await metricValue(h.registry, controllerMetricNames.reconcilePanics, { controller: "test" })).toBe(1);
    expect(await metricValue(h.registry, controllerMetricNames.terminalReconcileErrors, { controller: "test" })).toBe(1);
    expect(h.calls.filter((c) => c === "ns/p")).toHaveLength(2);
    expect(h.calls.filter((c) => c === "ns/t")).toHaveLength(1);
    expect(h.controller.queue.numRequeues(ObjectName.parse("ns/t"))).toBe(0);
    h.stop.abort();
    await run;
  });
});
