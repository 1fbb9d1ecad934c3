/**
 * The replica calculator, restated from upstream's replica_calculator_test.go (kubernetes master
 * after v1.36, as in omerap12/kubernetes@a769d588): the same fixtures and upstream's expected
 * values. As upstream's fakes: every pod has two containers ("container1", "container2"), each
 * requesting the pod's CPU request and, unless a case gives per-container levels, each reporting
 * the pod's level — so a pod's raw usage is twice its level; pods have a Ready condition without
 * a transition time and, unless a case sets one, a zero start time (Go's time.Time{}); samples are
 * stamped with the zero time over a one-minute window. Tolerance 0.1, CPU initialization period
 * 2 min, initial readiness delay 10 s.
 *
 * Not restated: the int64-overflow cases (math.MaxInt64 metric values: a JavaScript number cannot
 * hold them exactly), and the cases that need the custom/external metrics APIs served (kubeloop
 * serves neither; the Pods/Object/External cases below drive the calculator through a fake
 * MetricsClient, as upstream's fakes do).
 */
import { describe, expect, it } from "vitest";
import type { Pod } from "../../apimachinery/api/core/v1.js";
import { parseSelector } from "../../apimachinery/labels.js";
import { formatTime } from "../../apimachinery/time.js";
import { podMetricsInfo, type MetricsClient, type PodMetricsInfo, type PodMetricsObject } from "./metrics.js";
import { ReplicaCalculator, calculatePodRequests, goLabelSelectorText, groupPods, isWithinTolerance, type Tolerances } from "./replicacalculator.js";

const now = Date.UTC(2026, 0, 1, 12, 0, 0);
const timeNow = now;
const time3MinsAgo = now - 3 * 60_000;
/** Go's time.Time{}. */
const goZero = "0001-01-01T00:00:00Z";
const defaultTolerances: Tolerances = { scaleDown: 0.1, scaleUp: 0.1 };
const ns = "test-namespace";
const selector = "name=test-pod";

interface Scenario {
  currentReplicas: number;
  /** Per-pod CPU request (both containers); fewer entries than pods leave requests unset. */
  requests?: string[];
  /** levels[i][j]: container j+1 of pod i; fewer than two entries leave a nameless, empty container (upstream's make()). */
  levels?: number[][];
  podNames?: string[];
  container?: string;
  podReadiness?: Array<"True" | "False">;
  podStartTime?: number[];
  podPhase?: string[];
  podDeletionTimestamp?: boolean[];
  /** Custom / external metric levels (milli-units). */
  metric?: number[];
}

const pods = (...levels: number[]) => levels.map((l) => [l, l]);
const cpu = (n: number, v = "1.0") => Array<string>(n).fill(v);

function buildPods(f: Scenario): Pod[] {
  const count = Math.max(f.currentReplicas, f.podPhase?.length ?? 0);
  return Array.from({ length: count }, (_, i) => {
    const req = f.requests && i < f.requests.length ? { resources: { requests: { cpu: f.requests[i] } } } : {};
    return {
      metadata: { name: `test-pod-${i}`, namespace: ns, labels: { name: "test-pod" }, ...(f.podDeletionTimestamp?.[i] ? { deletionTimestamp: formatTime(now) } : {}) },
      spec: { containers: [{ name: "container1", image: "x", ...req }, { name: "container2", image: "x", ...req }] },
      status: {
        phase: f.podPhase?.[i] ?? "Running",
        startTime: f.podStartTime ? formatTime(f.podStartTime[i]) : goZero,
        conditions: [{ type: "Ready", status: f.podReadiness?.[i] ?? "True" }],
      },
    } as Pod;
  });
}

/** The metrics.k8s.io PodMetrics upstream's fake returns: two container entries per pod, unset ones nameless. */
function podMetrics(f: Scenario): PodMetricsObject[] {
  return (f.levels ?? []).map((lv, i) => ({
    metadata: { name: f.podNames?.[i] ?? `test-pod-${i}`, namespace: ns },
    timestamp: goZero,
    window: "1m0s",
    containers: [0, 1].map((j) => (j < lv.length ? { name: `container${j + 1}`, usage: { cpu: `${lv[j]}m` } } : { name: "" })),
  }));
}

function calculator(f: Scenario): ReplicaCalculator {
  const zero = Date.parse(goZero);
  const custom: PodMetricsInfo = new Map((f.metric ?? []).map((v, i) => [`test-pod-${i}`, { timestampMs: zero, windowMs: 60_000, value: v }]));
  const client: MetricsClient = {
    getResourceMetric: (resource, _ns, _sel, container) => {
      const items = podMetrics(f);
      if (items.length === 0) return Promise.reject(new Error("no metrics returned from resource metrics API"));
      return Promise.resolve({ metrics: podMetricsInfo(items, resource, container), timestampMs: zero });
    },
    getRawMetric: () => Promise.resolve({ metrics: new Map(custom), timestampMs: zero }),
    getObjectMetric: () => Promise.resolve({ value: f.metric![0], timestampMs: zero }),
    getExternalMetric: (_name, _ns, metricSelector) => {
      expect(metricSelector).toBe("label=value");
      return Promise.resolve({ values: f.metric!, timestampMs: zero });
    },
  };
  const all = buildPods(f);
  return new ReplicaCalculator(client, (_ns, sel) => all.filter((p) => parseSelector(sel).matches(p.metadata?.labels)), () => now, {
    cpuInitializationPeriodMs: 2 * 60_000,
    delayOfInitialReadinessStatusMs: 10_000,
  });
}

interface ResourceCase {
  name: string;
  f: Scenario;
  target: number;
  want?: [replicas: number, utilization: number, raw: number];
  error?: string;
  tolerances?: Tolerances;
}

const n = 2; // numContainersPerPod

// TestReplicaCalcResourceScale.
const resourceScale: ResourceCase[] = [
  { name: "scale up", f: { currentReplicas: 3, requests: cpu(3), levels: pods(300, 500, 700) }, target: 30, want: [5, 50, n * 500] },
  { name: "scale up: container metric", f: { currentReplicas: 3, container: "container2", requests: cpu(3), levels: [[1000, 300], [1000, 500], [1000, 700]] }, target: 30, want: [5, 50, 500] },
  { name: "scale up: unready pod scales less", f: { currentReplicas: 3, podReadiness: ["False", "True", "True"], requests: cpu(3), levels: pods(300, 500, 700) }, target: 30, want: [4, 60, n * 600] },
  { name: "scale up: hot-CPU container scales less", f: { currentReplicas: 3, podStartTime: [timeNow, time3MinsAgo, time3MinsAgo], container: "container2", requests: cpu(3), levels: [[0, 300], [0, 500], [0, 700]] }, target: 30, want: [4, 60, 600] },
  { name: "scale up: hot-CPU pod scales less", f: { currentReplicas: 3, podStartTime: [timeNow, time3MinsAgo, time3MinsAgo], requests: cpu(3), levels: pods(300, 500, 700) }, target: 30, want: [4, 60, n * 600] },
  { name: "no scale: unready pods ignored", f: { currentReplicas: 3, podReadiness: ["True", "False", "False"], requests: cpu(3), levels: pods(400, 500, 700) }, target: 30, want: [3, 40, n * 400] },
  { name: "no scale: hot-CPU pods ignored", f: { currentReplicas: 3, podReadiness: ["True", "False", "False"], podStartTime: [time3MinsAgo, timeNow, timeNow], requests: cpu(3), levels: pods(400, 500, 700) }, target: 30, want: [3, 40, n * 400] },
  { name: "scale up: failed pods ignored", f: { currentReplicas: 2, podReadiness: ["True", "True", "False", "False"], podPhase: ["Running", "Running", "Failed", "Failed"], requests: cpu(4), levels: pods(500, 700) }, target: 30, want: [4, 60, n * 600] },
  {
    name: "scale up: failed pods ignored with missing container metric",
    f: { currentReplicas: 2, podReadiness: ["True", "True", "False", "False"], podPhase: ["Running", "Running", "Failed", "Failed"], container: "container2", requests: cpu(4), levels: [[1000, 500], [9000, 700], [1000], [9000]] },
    target: 30,
    want: [4, 60, 600],
  },
  {
    name: "scale up: container metrics with failed pods ignored",
    f: { currentReplicas: 2, podReadiness: ["True", "True", "False", "False"], podPhase: ["Running", "Running", "Failed", "Failed"], container: "container2", requests: cpu(4), levels: [[1000, 500], [9000, 700]] },
    target: 30,
    want: [4, 60, 600],
  },
  { name: "scale up: succeeded pods ignored", f: { currentReplicas: 2, podReadiness: ["True", "True", "False", "False"], podPhase: ["Running", "Running", "Succeeded", "Succeeded"], requests: cpu(4), levels: pods(500, 700) }, target: 30, want: [4, 60, n * 600] },
  {
    name: "scale up: container metric with succeeded pods ignored",
    f: { currentReplicas: 2, podReadiness: ["True", "True", "False", "False"], podPhase: ["Running", "Running", "Succeeded", "Succeeded"], container: "container2", requests: cpu(4), levels: [[1000, 500], [9000, 700]] },
    target: 30,
    want: [4, 60, 600],
  },
  {
    name: "scale up: pods being deleted are ignored",
    f: { currentReplicas: 2, podReadiness: ["True", "True", "False", "False"], podPhase: cpu(4, "Running"), podDeletionTimestamp: [false, false, true, true], requests: cpu(4), levels: pods(500, 700) },
    target: 30,
    want: [4, 60, n * 600],
  },
  {
    name: "scale up: container metrics with pods being deleted ignored",
    f: { currentReplicas: 2, podReadiness: ["True", "True", "False", "False"], podPhase: cpu(4, "Running"), podDeletionTimestamp: [false, false, true, true], container: "container1", requests: cpu(4), levels: pods(500, 700) },
    target: 30,
    want: [4, 60, 600],
  },
  { name: "scale down", f: { currentReplicas: 5, requests: cpu(5), levels: pods(100, 300, 500, 250, 250) }, target: 50, want: [3, 28, n * 280] },
  { name: "scale down: container metric", f: { currentReplicas: 5, container: "container2", requests: cpu(5), levels: [[1000, 100], [1000, 300], [1000, 500], [1000, 250], [1000, 250]] }, target: 50, want: [3, 28, 280] },
  { name: "scale down: exclude unready pods", f: { currentReplicas: 5, podReadiness: ["True", "True", "True", "False", "False"], requests: cpu(5), levels: pods(100, 300, 500, 250, 250) }, target: 50, want: [2, 30, n * 300] },
  {
    name: "scale down: container metric excludes unready pods",
    f: { currentReplicas: 5, podReadiness: ["True", "True", "True", "False", "False"], container: "container2", requests: cpu(5), levels: [[1000, 100], [1000, 300], [1000, 500], [1000, 250], [1000, 250]] },
    target: 50,
    want: [2, 30, 300],
  },
  {
    name: "scale down: exclude unscheduled pods",
    f: { currentReplicas: 5, podReadiness: ["True", "False", "False", "False", "False"], podPhase: ["Running", "Pending", "Pending", "Pending", "Pending"], requests: cpu(5), levels: pods(100) },
    target: 50,
    want: [1, 10, n * 100],
  },
  {
    name: "scale down: container metric excludes unscheduled pods",
    f: {
      currentReplicas: 5,
      podReadiness: ["True", "False", "False", "False", "False"],
      podPhase: ["Running", "Pending", "Pending", "Pending", "Pending"],
      container: "container2",
      requests: cpu(5),
      levels: [[1000, 100], [1000, 300], [1000, 500], [1000, 250], [1000, 250]],
    },
    target: 50,
    want: [1, 10, 100],
  },
  { name: "scale down: ignore hot-CPU pods", f: { currentReplicas: 5, podStartTime: [time3MinsAgo, time3MinsAgo, time3MinsAgo, timeNow, timeNow], requests: cpu(5), levels: pods(100, 300, 500, 250, 250) }, target: 50, want: [2, 30, n * 300] },
  {
    name: "scale down: container metric ignores hot-CPU pods",
    f: { currentReplicas: 5, podStartTime: [time3MinsAgo, time3MinsAgo, time3MinsAgo, timeNow, timeNow], container: "container2", requests: cpu(5), levels: [[1000, 100], [1000, 300], [1000, 500], [1000, 1000], [1000, 1000]] },
    target: 50,
    want: [2, 30, 300],
  },
  {
    name: "scale down: failed pods ignored",
    f: { currentReplicas: 5, podReadiness: ["True", "True", "True", "True", "True", "False", "False"], podPhase: ["Running", "Running", "Running", "Running", "Running", "Failed", "Failed"], requests: cpu(7), levels: pods(100, 300, 500, 250, 250) },
    target: 50,
    want: [3, 28, n * 280],
  },
  {
    name: "scale down: container metric with failed pods ignored",
    f: {
      currentReplicas: 5,
      podReadiness: ["True", "True", "True", "True", "True", "False", "False"],
      podPhase: ["Running", "Running", "Running", "Running", "Running", "Failed", "Failed"],
      container: "container2",
      requests: cpu(7),
      levels: [[1000, 100], [1000, 300], [1000, 500], [1000, 250], [1000, 250]],
    },
    target: 50,
    want: [3, 28, 280],
  },
  {
    name: "scale down: succeeded pods ignored",
    f: { currentReplicas: 5, podReadiness: ["True", "True", "True", "True", "True", "False", "False"], podPhase: ["Running", "Running", "Running", "Running", "Running", "Succeeded", "Succeeded"], requests: cpu(7), levels: pods(100, 300, 500, 250, 250) },
    target: 50,
    want: [3, 28, n * 280],
  },
  {
    name: "scale down: container metric with succeeded pods ignored",
    f: {
      currentReplicas: 5,
      podReadiness: ["True", "True", "True", "True", "True", "False", "False"],
      podPhase: ["Running", "Running", "Running", "Running", "Running", "Succeeded", "Succeeded"],
      container: "container2",
      requests: cpu(7),
      levels: [[1000, 100], [1000, 300], [1000, 500], [1000, 250], [1000, 250]],
    },
    target: 50,
    want: [3, 28, 280],
  },
  {
    name: "scale down: pods being deleted are ignored",
    f: { currentReplicas: 5, podReadiness: ["True", "True", "True", "True", "True", "False", "False"], podPhase: cpu(7, "Running"), podDeletionTimestamp: [false, false, false, false, false, true, true], requests: cpu(7), levels: pods(100, 300, 500, 250, 250) },
    target: 50,
    want: [3, 28, n * 280],
  },
  {
    name: "scale down: still-running pods being deleted are ignored (kubernetes#83561)",
    f: {
      currentReplicas: 5,
      podReadiness: ["True", "True", "True", "True", "True", "False", "False"],
      podPhase: cpu(7, "Running"),
      podDeletionTimestamp: [false, false, false, false, false, true, true],
      container: "container2",
      requests: cpu(7),
      levels: [[1000, 100], [1000, 300], [1000, 500], [1000, 250], [1000, 250]],
    },
    target: 50,
    want: [3, 28, 280],
  },
];

// TestReplicaCalcResourceTolerance.
const mixed = ["0.9", "1.0", "1.1"];
const resourceTolerance: ResourceCase[] = [
  { name: "within default tolerance", f: { currentReplicas: 3, requests: mixed, levels: pods(1010, 1030, 1020) }, target: 100, want: [3, 102, n * 1020] },
  { name: "outside 0% tolerance", tolerances: { scaleDown: 0, scaleUp: 0 }, f: { currentReplicas: 3, requests: mixed, levels: pods(909, 1010, 1111) }, target: 100, want: [4, 101, n * 1010] },
  { name: "within 200% scale-up tolerance", tolerances: { scaleDown: 0.1, scaleUp: 2 }, f: { currentReplicas: 3, requests: mixed, levels: pods(1890, 1910, 1900) }, target: 100, want: [3, 190, n * 1900] },
  { name: "outside 8% scale-up tolerance (superfluous scale-down tolerance)", tolerances: { scaleDown: 2, scaleUp: 0.08 }, f: { currentReplicas: 3, requests: mixed, levels: pods(1100, 1080, 1090) }, target: 100, want: [4, 109, n * 1090] },
  { name: "within 36% scale-down tolerance", tolerances: { scaleDown: 0.36, scaleUp: 0.1 }, f: { currentReplicas: 3, requests: mixed, levels: pods(660, 640, 650) }, target: 100, want: [3, 65, n * 650] },
  { name: "outside 34% scale-down tolerance", tolerances: { scaleDown: 0.34, scaleUp: 0.1 }, f: { currentReplicas: 3, requests: mixed, levels: pods(660, 640, 650) }, target: 100, want: [2, 65, n * 650] },
];

// TestReplicaCalcResourceMissingMetrics.
const resourceMissing: ResourceCase[] = [
  { name: "superfluous metrics counted", f: { currentReplicas: 4, requests: cpu(4), levels: pods(4000, 9500, 3000, 7000, 3200, 2000) }, target: 100, want: [24, 587, n * 5875] },
  { name: "some pods missing metrics scales down", f: { currentReplicas: 4, requests: cpu(4), levels: pods(400, 95) }, target: 100, want: [3, 24, 495] },
  { name: "no change: metric equal to target", f: { currentReplicas: 2, requests: cpu(2), levels: pods(1000) }, target: 100, want: [2, 100, n * 1000] },
  { name: "no change: metric above target", f: { currentReplicas: 2, requests: cpu(2), levels: pods(1900) }, target: 100, want: [2, 190, n * 1900] },
  { name: "no change: metric below target", f: { currentReplicas: 2, requests: cpu(2), levels: pods(600) }, target: 100, want: [2, 60, n * 600] },
  { name: "no change: unready pod metric missing", f: { currentReplicas: 3, podReadiness: ["False", "True", "True"], requests: cpu(3), levels: pods(100, 450) }, target: 50, want: [3, 45, n * 450] },
  { name: "no change: hot-CPU pod metric missing", f: { currentReplicas: 3, podStartTime: [timeNow, time3MinsAgo, time3MinsAgo], requests: cpu(3), levels: pods(100, 450) }, target: 50, want: [3, 45, n * 450] },
  { name: "scale up: unready pod metric missing", f: { currentReplicas: 3, podReadiness: ["False", "True", "True"], requests: cpu(3), levels: pods(100, 2000) }, target: 50, want: [4, 200, n * 2000] },
  { name: "scale up: hot-CPU pod metric missing", f: { currentReplicas: 3, podReadiness: ["False", "True", "True"], podStartTime: [timeNow, time3MinsAgo, time3MinsAgo], requests: cpu(3), levels: pods(100, 2000) }, target: 50, want: [4, 200, n * 2000] },
  { name: "scale down: unready pod metric missing", f: { currentReplicas: 4, podReadiness: ["False", "True", "True", "True"], requests: cpu(4), levels: pods(100, 100, 100) }, target: 50, want: [3, 10, n * 100] },
  { name: "scale down: target over 100", f: { currentReplicas: 4, podReadiness: ["False", "True", "True", "True"], requests: ["1.0", "1.0", "2.0", "2.0"], levels: pods(200, 100, 100) }, target: 300, want: [2, 6, n * 100] },
  { name: "rolling update with maxSurge: extra pod missing metric", f: { currentReplicas: 2, podPhase: ["Running", "Running", "Running"], requests: cpu(3), levels: pods(100, 100) }, target: 50, want: [2, 10, n * 100] },
  { name: "disjoint pod and metric names", f: { currentReplicas: 1, requests: cpu(1), levels: pods(100), podNames: ["an-older-pod-name"] }, target: 100, error: "no metrics returned matched known pods" },
  { name: "no metrics returned from metrics API", f: { currentReplicas: 4, requests: cpu(3), levels: [] }, target: 100, error: "unable to get metrics for resource cpu: no metrics returned from resource metrics API" },
  { name: "missing CPU request on container", f: { currentReplicas: 1, requests: [], levels: pods(200) }, target: 100, error: "missing request for" },
];

describe.each([
  ["TestReplicaCalcResourceScale", resourceScale],
  ["TestReplicaCalcResourceTolerance", resourceTolerance],
  ["TestReplicaCalcResourceMissingMetrics", resourceMissing],
])("GetResourceReplicas: %s", (_t, cases) => {
  it.each(cases.map((c) => [c.name, c] as const))("%s", async (_n, c) => {
    const p = calculator(c.f).getResourceReplicas(c.f.currentReplicas, c.target, "cpu", c.tolerances ?? defaultTolerances, ns, selector, c.f.container ?? "");
    if (c.error) {
      await expect(p).rejects.toThrow(c.error);
      return;
    }
    const got = await p;
    expect([got.replicas, got.utilization, got.rawUtilization]).toEqual(c.want);
    expect(got.timestampMs).toBe(Date.parse(goZero));
  });
});

describe("GetResourceReplicas: TestReplicaCalcComputedToleranceAlgImplementation", () => {
  // Upstream's derivation: 10 pods using 150m each, requesting twice that in total (jittered per pod).
  const startPods = 10;
  const totalUsed = startPods * 150;
  const totalRequested = 2 * totalUsed;
  const requestedToUsed = Math.trunc(totalRequested / totalUsed);
  const perPod = totalRequested / startPods;
  const requests = [perPod + 100, perPod - 100, perPod + 10, perPod - 10, perPod + 2, perPod - 2, perPod + 1, perPod - 1, perPod, perPod].map((r) => `${r}m`);
  const f: Scenario = { currentReplicas: startPods, requests, levels: pods(...Array<number>(10).fill(totalUsed / 10)) };
  const expectedUtilization = Math.trunc((totalUsed * 100) / totalRequested);
  const expectedRaw = n * (totalUsed / 10);

  it("scales down just past the tolerance", async () => {
    const target = Math.abs(1 / (requestedToUsed * (1 - 0.1))) + 0.01;
    const finalPods = Math.ceil((totalUsed / (totalRequested * target)) * startPods);
    const got = await calculator(f).getResourceReplicas(startPods, Math.trunc(target * 100), "cpu", defaultTolerances, ns, selector, "");
    expect([got.replicas, got.utilization, got.rawUtilization]).toEqual([finalPods, expectedUtilization, expectedRaw]);
    expect(finalPods).toBe(9);
  });

  it("does not scale just inside it", async () => {
    const target = Math.abs(1 / (requestedToUsed * (1 - 0.1))) + 0.004;
    const got = await calculator(f).getResourceReplicas(startPods, Math.trunc(target * 100), "cpu", defaultTolerances, ns, selector, "");
    expect([got.replicas, got.utilization, got.rawUtilization]).toEqual([startPods, expectedUtilization, expectedRaw]);
  });
});

interface MetricCase {
  name: string;
  f: Scenario;
  target: number;
  want: [replicas: number, usage: number];
  tolerances?: Tolerances;
}

// TestReplicaCalcPodMetric (GetMetricReplicas: readiness matters for CPU only).
const podMetricCases: MetricCase[] = [
  { name: "scale up", f: { currentReplicas: 3, metric: [20000, 10000, 30000] }, target: 15000, want: [4, 20000] },
  { name: "scale up: unready hot-CPU pod scales less", f: { currentReplicas: 3, podReadiness: ["True", "True", "False"], podStartTime: [time3MinsAgo, time3MinsAgo, timeNow], metric: [50000, 10000, 30000] }, target: 15000, want: [6, 30000] },
  { name: "scale up: unready hot-CPU pods avoid scale-down", f: { currentReplicas: 3, podReadiness: ["False", "True", "False"], podStartTime: [timeNow, time3MinsAgo, timeNow], metric: [50000, 15000, 30000] }, target: 15000, want: [7, 31666] },
  { name: "scale down", f: { currentReplicas: 5, metric: [12000, 12000, 12000, 12000, 12000] }, target: 20000, want: [3, 12000] },
  { name: "within default tolerance", f: { currentReplicas: 3, metric: [20000, 21000, 21000] }, target: 20000, want: [3, 20666] },
  { name: "outside configurable 1% tolerance", tolerances: { scaleDown: 0.1, scaleUp: 0.01 }, f: { currentReplicas: 3, metric: [20000, 21000, 21000] }, target: 20000, want: [4, 20666] },
  { name: "no change: missing metrics", f: { currentReplicas: 5, metric: [20000, 19000, 21000] }, target: 20000, want: [5, 20000] },
  { name: "rolling update with maxSurge: extra pod missing metric", f: { currentReplicas: 2, podPhase: ["Running", "Running", "Running"], metric: [10000, 10000] }, target: 17000, want: [2, 10000] },
];

// TestReplicaCalcObjectMetric (GetObjectMetricReplicas: scales the Running and Ready pods).
const objectCases: MetricCase[] = [
  { name: "scale up", f: { currentReplicas: 3, metric: [20000] }, target: 15000, want: [4, 20000] },
  { name: "scale up: ignores unready pods", f: { currentReplicas: 3, podReadiness: ["False", "True", "False"], metric: [50000] }, target: 10000, want: [5, 50000] },
  { name: "scale down", f: { currentReplicas: 5, metric: [12000] }, target: 20000, want: [3, 12000] },
  { name: "within default tolerance", f: { currentReplicas: 3, metric: [20666] }, target: 20000, want: [3, 20666] },
  { name: "outside configurable 1% tolerance", tolerances: { scaleDown: 0.1, scaleUp: 0.01 }, f: { currentReplicas: 3, metric: [20666] }, target: 20000, want: [4, 20666] },
];

// TestReplicaCalcObjectPerPodMetric (GetObjectPerPodMetricReplicas over status.replicas).
const objectPerPodCases: MetricCase[] = [
  { name: "scale up", f: { currentReplicas: 3, metric: [20000] }, target: 5000, want: [4, 6667] },
  { name: "scale down", f: { currentReplicas: 5, metric: [6000] }, target: 2000, want: [3, 1200] },
  { name: "within default tolerance", f: { currentReplicas: 4, metric: [20166] }, target: 5000, want: [4, 5042] },
  { name: "outside configurable 1% tolerance", tolerances: { scaleDown: 0.1, scaleUp: 0.01 }, f: { currentReplicas: 4, metric: [20208] }, target: 5000, want: [5, 5052] },
  { name: "statusReplicas zero does not overflow usage", f: { currentReplicas: 0, metric: [20000] }, target: 5000, want: [4, 0] },
  { name: "statusReplicas zero and metric zero does not underflow", f: { currentReplicas: 0, metric: [0] }, target: 5000, want: [0, 0] },
];

// TestReplicaCalcExternalMetric (GetExternalMetricReplicas: the values' sum against the target).
const externalCases: MetricCase[] = [
  { name: "scale down: ignores unready pods (would otherwise scale up)", f: { currentReplicas: 3, podReadiness: ["False", "True", "False"], metric: [8600] }, target: 4400, want: [2, 8600] },
  { name: "scale down", f: { currentReplicas: 5, metric: [8600] }, target: 14334, want: [3, 8600] },
  { name: "within default tolerance", f: { currentReplicas: 3, metric: [8600] }, target: 8888, want: [3, 8600] },
  { name: "outside configurable 1% tolerance", tolerances: { scaleDown: 0.1, scaleUp: 0.01 }, f: { currentReplicas: 3, metric: [8900] }, target: 8800, want: [4, 8900] },
];

// TestReplicaCalcExternalPerPodMetric.
const externalPerPodCases: MetricCase[] = [
  { name: "statusReplicas zero does not overflow usage", f: { currentReplicas: 0, metric: [20000] }, target: 5000, want: [4, 0] },
  { name: "statusReplicas zero and metric zero does not underflow", f: { currentReplicas: 0, metric: [0] }, target: 5000, want: [0, 0] },
  { name: "scale up", f: { currentReplicas: 3, metric: [8600] }, target: 2150, want: [4, 2867] },
  { name: "scale down", f: { currentReplicas: 5, metric: [8600] }, target: 2867, want: [3, 1720] },
  { name: "within default tolerance", f: { currentReplicas: 3, metric: [8600] }, target: 2900, want: [3, 2867] },
  { name: "outside configurable 1% tolerance", tolerances: { scaleDown: 0.1, scaleUp: 0.01 }, f: { currentReplicas: 3, metric: [8600] }, target: 2800, want: [4, 2867] },
];

const deployment = { kind: "Deployment", apiVersion: "apps/v1", name: "some-deployment" };
const externalSelector = { matchLabels: { label: "value" } };

describe.each<[string, MetricCase[], (c: MetricCase, t: Tolerances) => Promise<{ replicas: number; usage: number }>]>([
  ["TestReplicaCalcPodMetric", podMetricCases, (c, t) => calculator(c.f).getMetricReplicas(c.f.currentReplicas, c.target, "qps", t, ns, selector, "")],
  ["TestReplicaCalcObjectMetric", objectCases, (c, t) => calculator(c.f).getObjectMetricReplicas(c.f.currentReplicas, c.target, "qps", t, ns, deployment, selector, "")],
  ["TestReplicaCalcObjectPerPodMetric", objectPerPodCases, (c, t) => calculator(c.f).getObjectPerPodMetricReplicas(c.f.currentReplicas, c.target, "qps", t, ns, deployment, "")],
  ["TestReplicaCalcExternalMetric", externalCases, (c, t) => calculator(c.f).getExternalMetricReplicas(c.f.currentReplicas, c.target, "qps", t, ns, externalSelector, selector)],
  ["TestReplicaCalcExternalPerPodMetric", externalPerPodCases, (c, t) => calculator(c.f).getExternalPerPodMetricReplicas(c.f.currentReplicas, c.target, "qps", t, ns, externalSelector)],
])("%s", (_t, cases, run) => {
  it.each(cases.map((c) => [c.name, c] as const))("%s", async (_n, c) => {
    const got = await run(c, c.tolerances ?? defaultTolerances);
    expect([got.replicas, got.usage]).toEqual(c.want);
  });
});

describe("errors worded as upstream's", () => {
  it("an Object metric the custom metrics API cannot give", async () => {
    const calc = new ReplicaCalculator(
      { getResourceMetric: () => Promise.reject(new Error("x")), getRawMetric: () => Promise.reject(new Error("x")), getObjectMetric: () => Promise.reject(new Error("boom")), getExternalMetric: () => Promise.reject(new Error("boom")) },
      () => [],
      () => now,
    );
    await expect(calc.getObjectMetricReplicas(3, 1000, "qps", defaultTolerances, ns, deployment, selector, "")).rejects.toThrow("unable to get metric qps on Deployment test-namespace/some-deployment: boom");
    await expect(calc.getExternalMetricReplicas(3, 1000, "qps", defaultTolerances, ns, externalSelector, selector)).rejects.toThrow(
      "unable to get external metric test-namespace/qps/&LabelSelector{MatchLabels:map[string]string{label: value,},MatchExpressions:[]LabelSelectorRequirement{},}: boom",
    );
  });

  it("no pods match the selector", async () => {
    await expect(calculator({ currentReplicas: 0, requests: [], levels: pods(100) }).getResourceReplicas(1, 50, "cpu", defaultTolerances, ns, selector, "")).rejects.toThrow("no pods returned by selector while calculating replica count");
  });

  it("only unready pods have metrics", async () => {
    await expect(calculator({ currentReplicas: 2, podReadiness: ["False", "False"], requests: cpu(2), levels: pods(500, 500) }).getResourceReplicas(2, 50, "cpu", defaultTolerances, ns, selector, "")).rejects.toThrow(
      "did not receive metrics for targeted pods (pods might be unready)",
    );
  });
});

describe("goLabelSelectorText (Go's %+v of a *metav1.LabelSelector)", () => {
  it.each<[string, Parameters<typeof goLabelSelectorText>[0], string]>([
    ["nil", undefined, "nil"],
    ["empty", {}, "&LabelSelector{MatchLabels:map[string]string{},MatchExpressions:[]LabelSelectorRequirement{},}"],
    [
      "labels (sorted) and expressions",
      { matchLabels: { b: "2", a: "1" }, matchExpressions: [{ key: "k", operator: "In", values: ["x", "y"] }] },
      "&LabelSelector{MatchLabels:map[string]string{a: 1,b: 2,},MatchExpressions:[]LabelSelectorRequirement{LabelSelectorRequirement{Key:k,Operator:In,Values:[x y],},},}",
    ],
  ])("%s", (_n, sel, want) => {
    expect(goLabelSelectorText(sel)).toBe(want);
  });
});

describe("pieces", () => {
  it("groupPods: ignored (deleted, Failed, Succeeded), unready, missing and ready", () => {
    const f: Scenario = {
      currentReplicas: 6,
      podPhase: ["Failed", "Pending", "Running", "Running", "Running", "Succeeded"],
      podReadiness: ["True", "True", "True", "True", "False", "True"],
      podStartTime: [time3MinsAgo, time3MinsAgo, time3MinsAgo, time3MinsAgo, timeNow, time3MinsAgo],
    };
    const info: PodMetricsInfo = new Map([0, 1, 2, 4, 5].map((i) => [`test-pod-${i}`, { timestampMs: now, windowMs: 60_000, value: 1 }]));
    const g = groupPods(buildPods(f), info, "cpu", 2 * 60_000, 10_000, now);
    expect({ ready: g.readyPodCount, unready: [...g.unreadyPods], missing: [...g.missingPods], ignored: [...g.ignoredPods] }).toEqual({ ready: 1, unready: ["test-pod-1", "test-pod-4"], missing: ["test-pod-3"], ignored: ["test-pod-0", "test-pod-5"] });
    // Readiness matters for CPU only.
    expect(groupPods(buildPods(f), info, "memory", 2 * 60_000, 10_000, now).readyPodCount).toBe(2);
  });

  it("calculateRequests: containers and sidecars, one container (which must exist), pod-level requests", () => {
    const pod = {
      metadata: { name: "p" },
      spec: {
        containers: [
          { name: "a", image: "x", resources: { requests: { cpu: "100m", memory: "1Gi" } } },
          { name: "b", image: "x", resources: { requests: { cpu: "250m" } } },
        ],
        initContainers: [
          { name: "side", image: "x", restartPolicy: "Always", resources: { requests: { cpu: "50m" } } },
          { name: "init", image: "x" },
        ],
      },
    } as Pod;
    expect(calculatePodRequests([pod], "", "cpu")).toEqual(new Map([["p", 400]]));
    expect(calculatePodRequests([pod], "b", "cpu")).toEqual(new Map([["p", 250]]));
    expect(() => calculatePodRequests([pod], "c", "cpu")).toThrow("container c not found in Pod p");
    expect(() => calculatePodRequests([pod], "", "memory")).toThrow("missing request for memory in container b of Pod p");
    const podLevel = { ...pod, spec: { ...pod.spec, resources: { requests: { cpu: "2" } } } } as Pod;
    expect(calculatePodRequests([podLevel], "", "cpu")).toEqual(new Map([["p", 2000]]));
    // A named container takes precedence over pod-level requests.
    expect(calculatePodRequests([podLevel], "a", "cpu")).toEqual(new Map([["p", 100]]));
  });

  it("getContainerMetrics: a pod without the container, or the container without the resource, has no sample", () => {
    const items: PodMetricsObject[] = [
      { metadata: { name: "p0" }, containers: [{ name: "c", usage: { cpu: "10m" } }] },
      { metadata: { name: "p1" }, containers: [{ name: "d", usage: { cpu: "10m" } }] },
      { metadata: { name: "p2" }, containers: [{ name: "c", usage: { memory: "1Mi" } }] },
    ];
    expect([...podMetricsInfo(items, "cpu", "c").keys()]).toEqual(["p0"]);
  });

  it.each<[number, Tolerances, boolean]>([
    [1.1, { scaleDown: 0.1, scaleUp: 0.1 }, true],
    [1.11, { scaleDown: 0.1, scaleUp: 0.1 }, false],
    [0.9, { scaleDown: 0.1, scaleUp: 0.1 }, true],
    [0.89, { scaleDown: 0.1, scaleUp: 0.1 }, false],
    [0.97, { scaleDown: 0.05, scaleUp: 0.01 }, true],
    [1.02, { scaleDown: 0.05, scaleUp: 0.01 }, false],
  ])("ratio %s within %j: %s", (ratio, t, want) => {
    expect(isWithinTolerance(t, ratio)).toBe(want);
  });
});
