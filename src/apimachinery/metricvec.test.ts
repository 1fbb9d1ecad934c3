import { describe, expect, it } from "vitest";
import { Registry } from "prom-client";
import { CounterVec, GaugeVec, HistogramVec } from "./metricvec.js";

describe("metric vectors", () => {
  it("expose children through a prom-client registry in Prometheus text", async () => {
    const r = new Registry();
    const c = new CounterVec({ name: "x_total", help: "xs", labelNames: ["a", "b"], registers: [r] });
    const g = new GaugeVec({ name: "g", help: "gs", labelNames: ["k"], registers: [r] });
    const h = new HistogramVec({ name: "h_seconds", help: "hs", labelNames: ["k"], buckets: [1, 0.1, 10], registers: [r] });
    const child = c.child("1", "2");
    child.inc();
    child.inc(2);
    expect(c.child("1", "2")).toBe(child);
    g.child("q").set(5);
    g.child("q").dec();
    for (const v of [0.05, 0.1, 0.5, 3, 100]) h.child("q").observe(v);
    const text = await r.metrics();
    expect(text).toContain('# TYPE x_total counter\nx_total{a="1",b="2"} 3');
    expect(text).toContain('g{k="q"} 4');
    expect(text).toContain('h_seconds_bucket{k="q",le="0.1"} 2');
    expect(text).toContain('h_seconds_bucket{k="q",le="1"} 3');
    expect(text).toContain('h_seconds_bucket{k="q",le="10"} 4');
    expect(text).toContain('h_seconds_bucket{k="q",le="+Inf"} 5');
    expect(text).toContain('h_seconds_sum{k="q"} 103.65');
    expect(text).toContain('h_seconds_count{k="q"} 5');
    r.resetMetrics();
    expect(await r.metrics()).not.toContain("x_total{");
  });

  it("runs collect before every read and rejects a wrong number of label values", async () => {
    const r = new Registry();
    let n = 0;
    const g: GaugeVec<"k"> = new GaugeVec({ name: "g", help: "gs", labelNames: ["k"], registers: [r], collect: (): void => g.child("c").set(++n) });
    expect(await r.metrics()).toContain('g{k="c"} 1');
    expect((await r.getMetricsAsJSON())[0].values).toEqual([{ value: 2, labels: { k: "c" } }]);
    expect(() => g.child("a", "b")).toThrow(/2 label values for 1 labels/);
  });
});
