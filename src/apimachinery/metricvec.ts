/**
 * Metric vectors for hot paths: counters, gauges and histograms with labels whose children are
 * resolved once (`child(...)`, the form of Prometheus' WithLabelValues) and then updated with
 * plain arithmetic — no label hashing, validation or allocation per update, unlike prom-client's
 * `inc(labels)` / `labels(...).inc()`, which hash the label set on every call.
 *
 * A vector registers itself in prom-client registries like prom-client's own metrics (it has
 * their `name`, `help`, `type`, `get()` and `reset()`), so exposition, content types and the
 * default process metrics all stay prom-client's. Label values and the order of children
 * follow the order children were first asked for.
 *
 * Invariants: a child is created once per distinct label-value tuple and kept until `reset()`
 * (or `remove`); a histogram child's `counts[i]` counts observations in (bounds[i-1],
 * bounds[i]], the last slot those above every bound (exposed cumulatively, as Prometheus wants).
 */
import type { Metric, Registry } from "prom-client";

export interface CounterChild {
  inc(n?: number): void;
  readonly value: number;
}

export interface GaugeChild {
  inc(n?: number): void;
  dec(n?: number): void;
  set(v: number): void;
  readonly value: number;
}

export interface HistogramChild {
  observe(v: number): void;
  readonly count: number;
  readonly sum: number;
}

interface VecOptions<L extends string> {
  name: string;
  help: string;
  labelNames?: readonly L[];
  /** Registries to register in (none by default). */
  registers?: readonly Registry[];
  /** Runs before every read of the values (e.g. to recompute gauges). */
  collect?: () => void;
}

type ExportedValue = { value: number; labels: Record<string, string | number>; metricName?: string };

const sep = "\u0000";

abstract class Vec<L extends string, C> {
  readonly name: string;
  readonly help: string;
  readonly labelNames: readonly L[];
  readonly aggregator = "sum";
  abstract readonly type: "counter" | "gauge" | "histogram";
  protected children = new Map<string, { values: readonly string[]; child: C }>();
  private readonly collectFn: (() => void) | undefined;

  constructor(o: VecOptions<L>) {
    this.name = o.name;
    this.help = o.help;
    this.labelNames = o.labelNames ?? [];
    this.collectFn = o.collect;
    for (const r of o.registers ?? []) r.registerMetric(this as unknown as Metric);
  }

  protected abstract make(): C;

  /** The child for these label values (one per label name, in order), created on first use. */
  child(...values: string[]): C {
    const key = values.length === 1 ? values[0] : values.join(sep);
    const got = this.children.get(key);
    if (got) return got.child;
    if (values.length !== this.labelNames.length) {
      throw new Error(`${this.name}: ${values.length} label values for ${this.labelNames.length} labels`);
    }
    const child = this.make();
    this.children.set(key, { values: [...values], child });
    return child;
  }

  remove(...values: string[]): void {
    this.children.delete(values.join(sep));
  }

  reset(): void {
    this.children.clear();
  }

  protected labelsOf(values: readonly string[]): Record<string, string | number> {
    const out: Record<string, string | number> = {};
    this.labelNames.forEach((n, i) => (out[n] = values[i]));
    return out;
  }

  protected abstract exported(): ExportedValue[];

  /** prom-client's Metric.get(). */
  async get(): Promise<{ name: string; help: string; type: string; aggregator: string; values: ExportedValue[] }> {
    this.collectFn?.();
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values: this.exported() };
  }
}

class Counter implements CounterChild {
  value = 0;
  inc(n = 1): void {
    this.value += n;
  }
}

class GaugeCell implements GaugeChild {
  value = 0;
  inc(n = 1): void {
    this.value += n;
  }
  dec(n = 1): void {
    this.value -= n;
  }
  set(v: number): void {
    this.value = v;
  }
}

export class CounterVec<L extends string = string> extends Vec<L, CounterChild> {
  readonly type = "counter";
  protected make(): CounterChild {
    return new Counter();
  }
  protected exported(): ExportedValue[] {
    return [...this.children.values()].map(({ values, child }) => ({ value: child.value, labels: this.labelsOf(values) }));
  }
}

export class GaugeVec<L extends string = string> extends Vec<L, GaugeChild> {
  readonly type = "gauge";
  protected make(): GaugeChild {
    return new GaugeCell();
  }
  protected exported(): ExportedValue[] {
    return [...this.children.values()].map(({ values, child }) => ({ value: child.value, labels: this.labelsOf(values) }));
  }
}

class HistogramCell implements HistogramChild {
  count = 0;
  sum = 0;
  readonly counts: Float64Array;
  constructor(private readonly bounds: Float64Array) {
    this.counts = new Float64Array(bounds.length + 1);
  }
  observe(v: number): void {
    const b = this.bounds;
    let i = 0;
    // Bounds are few (≤ ~25) and most observations land in the first ones: a linear scan.
    while (i < b.length && v > b[i]) i++;
    this.counts[i]++;
    this.count++;
    this.sum += v;
  }
}

export class HistogramVec<L extends string = string> extends Vec<L, HistogramChild> {
  readonly type = "histogram";
  private readonly bounds: Float64Array;

  constructor(o: VecOptions<L> & { buckets: readonly number[] }) {
    super(o);
    const sorted = [...o.buckets].sort((a, b) => a - b);
    this.bounds = Float64Array.from(sorted);
  }

  protected make(): HistogramChild {
    return new HistogramCell(this.bounds);
  }

  protected exported(): ExportedValue[] {
    const out: ExportedValue[] = [];
    for (const { values, child } of this.children.values()) {
      const cell = child as HistogramCell;
      const labels = this.labelsOf(values);
      let cumulative = 0;
      for (let i = 0; i < this.bounds.length; i++) {
        cumulative += cell.counts[i];
        out.push({ metricName: `${this.name}_bucket`, labels: { ...labels, le: this.bounds[i] }, value: cumulative });
      }
      out.push({ metricName: `${this.name}_bucket`, labels: { ...labels, le: "+Inf" }, value: cell.count });
      out.push({ metricName: `${this.name}_sum`, labels, value: cell.sum });
      out.push({ metricName: `${this.name}_count`, labels, value: cell.count });
    }
    return out;
  }
}
