import { Registry } from "prom-client";
import { describe, expect, it } from "vitest";
import { FakeClock } from "../apimachinery/clock.js";
import { DelayingQueue } from "./delaying.js";
import {
  PrometheusMetricsProvider,
  defaultUnfinishedWorkUpdatePeriodMs,
  noopMetricsProvider,
  workqueueDurationBuckets,
} from "./metrics.js";
import type { WorkqueueMetricsProvider } from "./metrics.js";
import { Queue } from "./queue.js";

/** upstream's testMetric: counts inc/dec, remembers the last set and observation. */
class TestMetric {
  inc_ = 0;
  dec_ = 0;
  set_: number | undefined;
  sets = 0;
  observed: number[] = [];
  inc(): void {
    this.inc_++;
  }
  dec(): void {
    this.dec_++;
  }
  set(v: number): void {
    this.set_ = v;
    this.sets++;
  }
  observe(v: number): void {
    this.observed.push(v);
  }
  gaugeValue(): number {
    return this.set_ ?? this.inc_ - this.dec_;
  }
}

/** upstream's testMetricsProvider (no onCollect: the queue updates on its clock). */
function testProvider() {
  const m = {
    depth: new TestMetric(),
    adds: new TestMetric(),
    latency: new TestMetric(),
    duration: new TestMetric(),
    unfinished: new TestMetric(),
    longest: new TestMetric(),
    retries: new TestMetric(),
  };
  const provider: WorkqueueMetricsProvider = {
    newDepthMetric: () => m.depth,
    newAddsMetric: () => m.adds,
    newLatencyMetric: () => m.latency,
    newWorkDurationMetric: () => m.duration,
    newUnfinishedWorkSecondsMetric: () => m.unfinished,
    newLongestRunningProcessorSecondsMetric: () => m.longest,
    newRetriesMetric: () => m.retries,
  };
  return { provider, m };
}

describe("queue metrics (upstream metrics_test.go)", () => {
  it("TestMetrics: adds, depth, latency, work duration and unfinished work follow the clock", async () => {
    const clock = new FakeClock(0);
    const { provider, m } = testProvider();
    const q = new Queue<string>({ name: "test", clock, metricsProvider: provider });
    expect(clock.waiters()).toBe(1); // the unfinished-work ticker

    q.add("foo");
    expect(m.adds.gaugeValue()).toBe(1);
    expect(m.depth.gaugeValue()).toBe(1);

    clock.step(50);
    const r1 = await q.get();
    expect(r1.item).toBe("foo");
    expect(m.latency.observed).toEqual([0.05]);

    // Re-adds while processing are de-duplicated.
    for (let i = 0; i < 5; i++) q.add("foo");
    expect(m.adds.gaugeValue()).toBe(2);
    expect(m.depth.gaugeValue()).toBe(1);

    clock.step(25);
    q.done("foo");
    expect(m.duration.observed).toEqual([0.025]);
    expect(m.depth.gaugeValue()).toBe(1);

    const r2 = await q.get();
    expect(r2.item).toBe("foo");
    expect(m.latency.observed).toEqual([0.05, 0.025]);

    // The ticker fires at 500 ms; "foo" has been processed since 75 ms.
    clock.step(defaultUnfinishedWorkUpdatePeriodMs - 75);
    expect(m.unfinished.gaugeValue()).toBeCloseTo(0.425, 12);
    expect(m.longest.gaugeValue()).toBeCloseTo(0.425, 12);

    q.done("foo");
    expect(m.duration.observed[1]).toBeCloseTo(0.425, 12);
    expect(m.duration.observed).toHaveLength(2);
    q.shutDown();
  });

  it("an item re-added while processing and handed straight to a waiting worker: latency from its re-add", async () => {
    const clock = new FakeClock(0);
    const { provider, m } = testProvider();
    const q = new Queue<string>({ name: "test", clock, metricsProvider: provider });
    q.add("foo");
    await q.get();
    clock.step(10);
    q.add("foo"); // dirty while processing
    const waiting = q.get(); // a second worker waits: done() hands "foo" straight to it
    clock.step(30);
    q.done("foo");
    expect((await waiting).item).toBe("foo");
    expect(m.latency.observed).toEqual([0, 0.03]);
    expect(m.duration.observed).toEqual([0.04]);
    expect(m.adds.gaugeValue()).toBe(2);
    expect(m.depth.gaugeValue()).toBe(0);
    clock.step(5);
    q.done("foo");
    expect(m.duration.observed).toEqual([0.04, 0.005]);
    q.shutDown();
  });

  it("TestMetricShutdown: no unfinished-work updates after shutdown", () => {
    const clock = new FakeClock(0);
    const { provider, m } = testProvider();
    const q = new Queue<string>({ name: "test", clock, metricsProvider: provider });
    clock.step(defaultUnfinishedWorkUpdatePeriodMs);
    expect(m.unfinished.sets).toBe(1);
    q.shutDown();
    expect(clock.waiters()).toBe(0);
    clock.step(3_600_000);
    expect(m.unfinished.sets).toBe(1);
  });

  it("unnamed queues and the no-op provider record nothing and start no timer", () => {
    const clock = new FakeClock(0);
    const { provider, m } = testProvider();
    const unnamed = new Queue<string>({ clock, metricsProvider: provider });
    unnamed.add("a");
    const noop = new Queue<string>({ name: "x", clock, metricsProvider: noopMetricsProvider });
    noop.add("a");
    expect(m.adds.gaugeValue()).toBe(0);
    expect(clock.waiters()).toBe(0);
  });

  it("retries count every addAfter of a named delaying queue", () => {
    const clock = new FakeClock(0);
    const { provider, m } = testProvider();
    const q = new DelayingQueue<string>({ name: "d", clock, metricsProvider: provider });
    q.addAfter("a", 10);
    q.addAfter("a", 5);
    q.addAfter("b", 0);
    expect(m.retries.gaugeValue()).toBe(3);
    q.shutDown();
  });
});

type JsonValue = { value: number; labels: Record<string, string | number>; metricName?: string };

/** Reads one sample from the registry: metric (or sample) name, queue name, optional extra labels. */
async function sample(
  registry: Registry,
  metricName: string,
  queue: string,
  extra: Record<string, string | number> = {},
): Promise<number | undefined> {
  for (const metric of await registry.getMetricsAsJSON()) {
    for (const v of metric.values as JsonValue[]) {
      const name = v.metricName ?? metric.name;
      if (name !== metricName || v.labels.name !== queue) continue;
      if (Object.entries(extra).every(([k, want]) => v.labels[k] === want)) return v.value;
    }
  }
  return undefined;
}

describe("PrometheusMetricsProvider", () => {
  it("registers client-go's metrics into a given registry, shared by queues of different names", async () => {
    const registry = new Registry();
    const clock = new FakeClock(0);
    const qa = new DelayingQueue<string>({ name: "a", clock, metricsProvider: new PrometheusMetricsProvider(registry) });
    // A second provider on the same registry reuses the collectors (no duplicate registration).
    const qb = new Queue<string>({ name: "b", clock, metricsProvider: new PrometheusMetricsProvider(registry) });
    expect(clock.waiters()).toBe(0); // unfinished work is computed when the registry is read

    expect((await registry.getMetricsAsJSON()).map((m) => m.name).sort()).toEqual([
      "workqueue_adds_total",
      "workqueue_depth",
      "workqueue_longest_running_processor_seconds",
      "workqueue_queue_duration_seconds",
      "workqueue_retries_total",
      "workqueue_unfinished_work_seconds",
      "workqueue_work_duration_seconds",
    ]);

    qa.add("x");
    qa.add("y");
    qa.add("x");
    qb.add("z");
    clock.step(2000);
    expect(await sample(registry, "workqueue_adds_total", "a")).toBe(2);
    expect(await sample(registry, "workqueue_depth", "a")).toBe(2);
    expect(await sample(registry, "workqueue_adds_total", "b")).toBe(1);

    const x = await qa.get();
    expect(x.item).toBe("x");
    expect(await sample(registry, "workqueue_depth", "a")).toBe(1);
    expect(await sample(registry, "workqueue_queue_duration_seconds_count", "a")).toBe(1);
    expect(await sample(registry, "workqueue_queue_duration_seconds_sum", "a")).toBe(2);
    expect(await sample(registry, "workqueue_queue_duration_seconds_bucket", "a", { le: 1 })).toBe(0);
    expect(await sample(registry, "workqueue_queue_duration_seconds_bucket", "a", { le: 10 })).toBe(1);

    clock.step(3000);
    // Computed on collect from the clock: "x" has run for 3 s.
    expect(await sample(registry, "workqueue_unfinished_work_seconds", "a")).toBe(3);
    expect(await sample(registry, "workqueue_longest_running_processor_seconds", "a")).toBe(3);
    const y = await qa.get();
    clock.step(1000);
    expect(await sample(registry, "workqueue_unfinished_work_seconds", "a")).toBe(5); // 4 + 1
    expect(await sample(registry, "workqueue_longest_running_processor_seconds", "a")).toBe(4);

    qa.done(x.item!);
    qa.done(y.item!);
    expect(await sample(registry, "workqueue_work_duration_seconds_count", "a")).toBe(2);
    expect(await sample(registry, "workqueue_work_duration_seconds_sum", "a")).toBe(5);
    expect(await sample(registry, "workqueue_unfinished_work_seconds", "a")).toBe(0);

    qa.addAfter("later", 100);
    expect(await sample(registry, "workqueue_retries_total", "a")).toBe(1);
    expect(await sample(registry, "workqueue_depth", "b")).toBe(1);

    qa.shutDown();
    qb.shutDown();
  });

  it("without a clock, records through turnClock: the same metrics, timed once per event-loop turn", async () => {
    const registry = new Registry();
    const q = new Queue<string>({ name: "turn", metricsProvider: new PrometheusMetricsProvider(registry) });
    q.add("a");
    q.add("b");
    const a = await q.get();
    q.done(a.item!);
    // Added, handed out and done within one turn: each duration reads as 0 (clock.ts, turnClock).
    expect(await sample(registry, "workqueue_adds_total", "turn")).toBe(2);
    expect(await sample(registry, "workqueue_depth", "turn")).toBe(1);
    expect(await sample(registry, "workqueue_queue_duration_seconds_count", "turn")).toBe(1);
    expect(await sample(registry, "workqueue_queue_duration_seconds_sum", "turn")).toBe(0);
    expect(await sample(registry, "workqueue_work_duration_seconds_count", "turn")).toBe(1);
    expect(await sample(registry, "workqueue_work_duration_seconds_sum", "turn")).toBe(0);
    const b = await q.get();
    expect(b.item).toBe("b");
    expect(await sample(registry, "workqueue_unfinished_work_seconds", "turn")).toBeGreaterThanOrEqual(0);
    q.done(b.item!);
    expect(await sample(registry, "workqueue_unfinished_work_seconds", "turn")).toBe(0);
    q.shutDown();
  });

  it("uses upstream's buckets, 1e-6 s to 1000 s by decades", () => {
    expect(workqueueDurationBuckets).toEqual([1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 1e-1, 1, 10, 100, 1000]);
  });

  it("keeps separate collectors per registry", async () => {
    const r1 = new Registry();
    const r2 = new Registry();
    const q1 = new Queue<string>({ name: "same", metricsProvider: new PrometheusMetricsProvider(r1) });
    const q2 = new Queue<string>({ name: "same", metricsProvider: new PrometheusMetricsProvider(r2) });
    q1.add("a");
    q1.add("b");
    q2.add("a");
    expect(await sample(r1, "workqueue_adds_total", "same")).toBe(2);
    expect(await sample(r2, "workqueue_adds_total", "same")).toBe(1);
    q1.shutDown();
    q2.shutDown();
  });
});
