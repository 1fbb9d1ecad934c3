/**
 * Work-queue metrics (client-go util/workqueue metrics.go, and the Prometheus provider of
 * component-base/metrics/prometheus/workqueue).
 *
 * A queue asks its `WorkqueueMetricsProvider` for one metric of each kind, labelled by the queue's
 * name. Unnamed queues, and queues given the no-op provider (the default), record nothing.
 */
import { register as globalRegistry } from "prom-client";
import type { Registry } from "prom-client";
import { CounterVec, GaugeVec, HistogramVec } from "../apimachinery/metricvec.js";

/** A value that goes up and down by one (workqueue_depth). */
export interface GaugeMetric {
  inc(): void;
  dec(): void;
}

/** A value set outright (the unfinished-work gauges). */
export interface SettableGaugeMetric {
  set(value: number): void;
}

/** A value that only goes up. */
export interface CounterMetric {
  inc(): void;
}

/** Individual observations, in seconds. */
export interface HistogramMetric {
  observe(value: number): void;
}

/** Makes the metrics of one queue; `name` is the queue's name (the `name` label). */
export interface WorkqueueMetricsProvider {
  newDepthMetric(name: string): GaugeMetric;
  newAddsMetric(name: string): CounterMetric;
  newLatencyMetric(name: string): HistogramMetric;
  newWorkDurationMetric(name: string): HistogramMetric;
  newUnfinishedWorkSecondsMetric(name: string): SettableGaugeMetric;
  newLongestRunningProcessorSecondsMetric(name: string): SettableGaugeMetric;
  newRetriesMetric(name: string): CounterMetric;
  /**
   * Optional. When present, the queue hands it the function that recomputes its unfinished-work
   * gauges, and the provider calls it right before the metrics are read; the returned function
   * unsubscribes. When absent, the queue recomputes them on its clock every 500 ms, as upstream's
   * updateUnfinishedWorkLoop does.
   */
  onCollect?(update: () => void): () => void;
}

const noopMetric: GaugeMetric & SettableGaugeMetric & CounterMetric & HistogramMetric = {
  inc() {},
  dec() {},
  set() {},
  observe() {},
};

/** Records nothing; queues built with it (or without a name) skip metrics entirely. */
export const noopMetricsProvider: WorkqueueMetricsProvider = Object.freeze({
  newDepthMetric: () => noopMetric,
  newAddsMetric: () => noopMetric,
  newLatencyMetric: () => noopMetric,
  newWorkDurationMetric: () => noopMetric,
  newUnfinishedWorkSecondsMetric: () => noopMetric,
  newLongestRunningProcessorSecondsMetric: () => noopMetric,
  newRetriesMetric: () => noopMetric,
});

/** How often the unfinished-work gauges are recomputed when the provider has no `onCollect`. */
export const defaultUnfinishedWorkUpdatePeriodMs = 500;

/**
 * The metrics of one queue, fed by the queue itself. The queue keeps the times (when each waiting
 * item was added, when each item in processing was handed out) in its own per-item state, so a
 * metrics update is plain arithmetic: no map of its own, no clock read of its own (upstream keeps
 * two maps keyed by item; here they would double the queue's per-item bookkeeping).
 */
export interface QueueMetrics {
  /** false for the no-op implementation: the queue then skips the periodic update entirely. */
  readonly enabled: boolean;
  /** An item became dirty (workqueue_adds_total, workqueue_depth). */
  add(): void;
  /** An item was handed out `queuedMs` after it was added (workqueue_depth, workqueue_queue_duration_seconds). */
  get(queuedMs: number): void;
  /** An item was marked done `workMs` after it was handed out (workqueue_work_duration_seconds). */
  done(workMs: number): void;
  /**
   * Sets the two unfinished-work gauges from the times (clock milliseconds) at which the items
   * being processed were handed out, as seen at `now`.
   */
  updateUnfinishedWork(now: number, processingSince: Iterable<number>): void;
}

const noQueueMetrics: QueueMetrics = {
  enabled: false,
  add() {},
  get() {},
  done() {},
  updateUnfinishedWork() {},
};

/** The metrics of one named queue: the provider's seven metrics, updated in place. */
class DefaultQueueMetrics implements QueueMetrics {
  readonly enabled = true;

  constructor(
    private readonly depth: GaugeMetric,
    private readonly adds: CounterMetric,
    private readonly latency: HistogramMetric,
    private readonly workDuration: HistogramMetric,
    private readonly unfinishedWorkSeconds: SettableGaugeMetric,
    private readonly longestRunningProcessor: SettableGaugeMetric,
  ) {}

  add(): void {
    this.adds.inc();
    this.depth.inc();
  }

  get(queuedMs: number): void {
    this.depth.dec();
    this.latency.observe(queuedMs / 1000);
  }

  done(workMs: number): void {
    this.workDuration.observe(workMs / 1000);
  }

  updateUnfinishedWork(now: number, processingSince: Iterable<number>): void {
    let total = 0;
    let oldest = 0;
    for (const started of processingSince) {
      const age = (now - started) / 1000;
      total += age;
      if (age > oldest) oldest = age;
    }
    this.unfinishedWorkSeconds.set(total);
    this.longestRunningProcessor.set(oldest);
  }
}

/** The metrics of a queue: none when unnamed or when the provider is the no-op one (upstream). */
export function newQueueMetrics(provider: WorkqueueMetricsProvider, name: string): QueueMetrics {
  if (name === "" || provider === noopMetricsProvider) return noQueueMetrics;
  return new DefaultQueueMetrics(
    provider.newDepthMetric(name),
    provider.newAddsMetric(name),
    provider.newLatencyMetric(name),
    provider.newWorkDurationMetric(name),
    provider.newUnfinishedWorkSecondsMetric(name),
    provider.newLongestRunningProcessorSecondsMetric(name),
  );
}

/** Counts AddAfter calls (workqueue_retries_total); nothing for unnamed queues. */
export function newRetryMetrics(provider: WorkqueueMetricsProvider, name: string): CounterMetric {
  if (name === "" || provider === noopMetricsProvider) return noopMetric;
  return provider.newRetriesMetric(name);
}

// --- Prometheus (prom-client) --------------------------------------------------------------------

/** Metric names, as component-base registers them (subsystem "workqueue"). */
export const workqueueMetricNames = Object.freeze({
  depth: "workqueue_depth",
  adds: "workqueue_adds_total",
  queueLatency: "workqueue_queue_duration_seconds",
  workDuration: "workqueue_work_duration_seconds",
  unfinishedWork: "workqueue_unfinished_work_seconds",
  longestRunningProcessor: "workqueue_longest_running_processor_seconds",
  retries: "workqueue_retries_total",
});

/** ExponentialBuckets(10e-7, 10, 10): 1e-6 s … 1e3 s, upstream's buckets for both histograms. */
export const workqueueDurationBuckets: readonly number[] = Object.freeze(
  Array.from({ length: 10 }, (_, i) => Number((1e-6 * 10 ** i).toPrecision(1))),
);

/** client-go's `name`, and controller-runtime's `controller` (the same value: the queue is named after its controller). */
type QueueLabel = "name" | "controller";

/** The collectors of one registry, shared by every provider and queue that registers into it. */
interface Collectors {
  depth: GaugeVec<QueueLabel>;
  adds: CounterVec<QueueLabel>;
  latency: HistogramVec<QueueLabel>;
  workDuration: HistogramVec<QueueLabel>;
  unfinished: GaugeVec<QueueLabel>;
  longest: GaugeVec<QueueLabel>;
  retries: CounterVec<QueueLabel>;
  /** Queues' unfinished-work updaters, run before the two unfinished-work gauges are read. */
  updaters: Set<() => void>;
}

const collectorsByRegistry = new WeakMap<Registry, Collectors>();

function collectorsFor(registry: Registry): Collectors {
  const existing = collectorsByRegistry.get(registry);
  if (existing) return existing;
  const updaters = new Set<() => void>();
  const runUpdaters = () => {
    for (const u of updaters) u();
  };
  const registers = [registry];
  const labelNames = ["name", "controller"] as const;
  const c: Collectors = {
    depth: new GaugeVec({ name: workqueueMetricNames.depth, help: "Current depth of workqueue", labelNames, registers }),
    adds: new CounterVec({
      name: workqueueMetricNames.adds,
      help: "Total number of adds handled by workqueue",
      labelNames,
      registers,
    }),
    latency: new HistogramVec({
      name: workqueueMetricNames.queueLatency,
      help: "How long in seconds an item stays in workqueue before being requested.",
      labelNames,
      buckets: workqueueDurationBuckets,
      registers,
    }),
    workDuration: new HistogramVec({
      name: workqueueMetricNames.workDuration,
      help: "How long in seconds processing an item from workqueue takes.",
      labelNames,
      buckets: workqueueDurationBuckets,
      registers,
    }),
    unfinished: new GaugeVec({
      name: workqueueMetricNames.unfinishedWork,
      help:
        "How many seconds of work has done that is in progress and hasn't been observed by work_duration. " +
        "Large values indicate stuck threads. One can deduce the number of stuck threads by observing the rate " +
        "at which this increases.",
      labelNames,
      registers,
      collect: runUpdaters,
    }),
    longest: new GaugeVec({
      name: workqueueMetricNames.longestRunningProcessor,
      help: "How many seconds has the longest running processor for workqueue been running.",
      labelNames,
      registers,
      collect: runUpdaters,
    }),
    retries: new CounterVec({
      name: workqueueMetricNames.retries,
      help: "Total number of retries handled by workqueue",
      labelNames,
      registers,
    }),
    updaters,
  };
  collectorsByRegistry.set(registry, c);
  return c;
}

/**
 * Work-queue metrics in a prom-client `Registry` (the global one by default), under client-go's
 * names with the labels `name` and `controller` (controller-runtime's, both the queue's name). The seven collectors are registered once per registry and shared,
 * so any number of providers and queues (with different names) can use the same registry. The
 * unfinished-work gauges are recomputed from each queue's clock whenever the registry is read.
 * Each queue resolves its children once (metricvec.ts): an add, get or done updates plain numbers,
 * as client-go's metrics do, instead of hashing the label set as prom-client's own metrics would.
 */
export class PrometheusMetricsProvider implements WorkqueueMetricsProvider {
  private readonly c: Collectors;

  constructor(readonly registry: Registry = globalRegistry) {
    this.c = collectorsFor(registry);
  }

  newDepthMetric(name: string): GaugeMetric {
    return this.c.depth.child(name, name);
  }
  newAddsMetric(name: string): CounterMetric {
    return this.c.adds.child(name, name);
  }
  newLatencyMetric(name: string): HistogramMetric {
    return this.c.latency.child(name, name);
  }
  newWorkDurationMetric(name: string): HistogramMetric {
    return this.c.workDuration.child(name, name);
  }
  newUnfinishedWorkSecondsMetric(name: string): SettableGaugeMetric {
    return this.c.unfinished.child(name, name);
  }
  newLongestRunningProcessorSecondsMetric(name: string): SettableGaugeMetric {
    return this.c.longest.child(name, name);
  }
  newRetriesMetric(name: string): CounterMetric {
    return this.c.retries.child(name, name);
  }
  onCollect(update: () => void): () => void {
    const updaters = this.c.updaters;
    // A fresh wrapper per subscription, so two subscriptions of one function stay independent.
    const entry = () => update();
    updaters.add(entry);
    return () => {
      updaters.delete(entry);
    };
  }
}
