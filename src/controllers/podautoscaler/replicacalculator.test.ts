/**
 * The replica calculator, as upstream's replica_calculator_test.go tables: each case's pods (CPU
 * request, readiness, phase, start time), their metrics (milli-units) and the target give the
 * replicas, the utilization and the raw average. As upstream's tests: tolerance 0.1, CPU
 * initialization period 2 min, initial readiness delay 10 s, pods started 3 min ago ("cool")
 * and Ready since then, samples of a 1 min window taken now.
 */
import { describe, expect, it } from "vitest";
import type { Pod } from "../../apimachinery/api/core/v1.js";
import { formatTime } from "../../apimachinery/time.js";
import { parseSelector } from "../../apimachinery/labels.js";
import type { MetricsClient, PodMetricsInfo } from "./metrics.js";
import { ReplicaCalculator, calculatePodRequests, groupPods, isWithinTolerance } from "./replicacalculator.js";

const now = Date.UTC(2026, 0, 1, 12, 0, 0);
const cool = now - 3 * 60_000;
const hot = now - 30_000;
const tol = { scaleDown: 0.1, scaleUp: 0.1 };

interface Case {
  name: string;
  currentReplicas: number;
  requests: Array<string | undefined>;
  levels: Array<number | undefined>;
  ready?: Array<"True" | "False">;
  phase?: string[];
  start?: number[];
  deleting?: boolean[];
  target: number;
  tolerances?: { scaleDown: number; scaleUp: number };
  want?: { replicas: number; utilization: number; raw: number };
  error?: string;
}

function pods(c: Case): Pod[] {
  return c.requests.map((req, i) => {
    const start = c.start?.[i] ?? cool;
    return {
      metadata: { name: `test-pod-${i}`, namespace: "default", labels: { name: "test-pod" }, ...(c.deleting?.[i] ? { deletionTimestamp: formatTime(now) } : {}) },
      spec: { containers: [{ name: "c", image: "x", ...(req ? { resources: { requests: { cpu: req } } } : {}) }] },
      status: {
        phase: c.phase?.[i] ?? "Running",
        startTime: formatTime(start),
        conditions: [{ type: "Ready", status: c.ready?.[i] ?? "True", lastTransitionTime: formatTime(start) }],
      },
    } as Pod;
  });
}

function metricsClient(c: Case, calls: string[] = []): MetricsClient {
  const info: PodMetricsInfo = new Map();
  c.levels.forEach((v, i) => {
    if (v !== undefined) info.set(`test-pod-${i}`, { timestampMs: now, windowMs: 60_000, value: v });
  });
  const fail = () => Promise.reject(new Error("not served"));
  return {
    getResourceMetric: (resource, ns, selector) => {
      calls.push(`${resource} ${ns} ${selector}`);
      return info.size === 0 ? Promise.reject(new Error("no metrics returned from resource metrics API")) : Promise.resolve({ metrics: info, timestampMs: now });
    },
    getRawMetric: () => Promise.resolve({ metrics: info, timestampMs: now }),
    getObjectMetric: fail,
    getExternalMetric: fail,
  };
}

const calculator = (c: Case, calls?: string[]) =>
  new ReplicaCalculator(metricsClient(c, calls), (_ns, sel) => pods(c).filter((p) => parseSelector(sel).matches(p.metadata?.labels)), () => now, {
    cpuInitializationPeriodMs: 2 * 60_000,
    delayOfInitialReadinessStatusMs: 10_000,
  });

const r1 = (n: number) => Array<string>(n).fill("1");

// Utilization targets (GetResourceReplicas).
const utilizationCases: Case[] = [
  { name: "scale up", currentReplicas: 3, requests: r1(3), levels: [300, 500, 700], target: 30, want: { replicas: 5, utilization: 50, raw: 500 } },
  { name: "scale up, an unready pod makes it less", currentReplicas: 3, requests: r1(3), levels: [300, 500, 700], ready: ["False", "True", "True"], target: 30, want: { replicas: 4, utilization: 60, raw: 600 } },
  { name: "scale up, a hot-CPU pod (sample from before readiness) makes it less", currentReplicas: 3, requests: r1(3), levels: [300, 500, 700], start: [hot, cool, cool], target: 30, want: { replicas: 4, utilization: 60, raw: 600 } },
  { name: "scale up, unready pods change the direction: no scale", currentReplicas: 3, requests: r1(3), levels: [400, 500, 700], ready: ["True", "False", "False"], target: 30, want: { replicas: 3, utilization: 40, raw: 400 } },
  { name: "scale up ignores Failed pods", currentReplicas: 2, requests: r1(4), levels: [500, 700, 100, 100], ready: ["True", "True", "False", "False"], phase: ["Running", "Running", "Failed", "Failed"], target: 30, want: { replicas: 4, utilization: 60, raw: 600 } },
  { name: "scale up ignores pods being deleted", currentReplicas: 2, requests: r1(4), levels: [500, 700, 100, 100], deleting: [false, false, true, true], target: 30, want: { replicas: 4, utilization: 60, raw: 600 } },
  { name: "Pending pods count as unready", currentReplicas: 3, requests: r1(3), levels: [300, 500, 700], phase: ["Pending", "Running", "Running"], target: 30, want: { replicas: 4, utilization: 60, raw: 600 } },
  { name: "scale down", currentReplicas: 5, requests: r1(5), levels: [100, 300, 500, 250, 250], target: 50, want: { replicas: 3, utilization: 28, raw: 280 } },
  { name: "scale down leaves unready pods out", currentReplicas: 5, requests: r1(5), levels: [100, 300, 500, 250, 250], ready: ["True", "True", "True", "False", "False"], target: 50, want: { replicas: 2, utilization: 30, raw: 300 } },
  { name: "within tolerance", currentReplicas: 3, requests: ["900m", "1", "1100m"], levels: [1010, 1030, 1020], target: 100, want: { replicas: 3, utilization: 102, raw: 1020 } },
  { name: "outside a zero scale-up tolerance (configurable tolerance)", currentReplicas: 3, requests: ["900m", "1", "1100m"], levels: [1010, 1030, 1020], target: 100, tolerances: { scaleDown: 0.1, scaleUp: 0 }, want: { replicas: 4, utilization: 102, raw: 1020 } },
  { name: "missing metrics count as 100 % on a scale-down", currentReplicas: 4, requests: r1(4), levels: [400, 95], target: 100, want: { replicas: 3, utilization: 24, raw: 247 } },
  { name: "missing metrics, no change (ratio 1)", currentReplicas: 2, requests: r1(2), levels: [1000], target: 100, want: { replicas: 2, utilization: 100, raw: 1000 } },
  { name: "missing metrics, no change (above target, 0 % brings it within tolerance)", currentReplicas: 2, requests: r1(2), levels: [1900], target: 100, want: { replicas: 2, utilization: 190, raw: 1900 } },
  { name: "missing metrics, no change (below target)", currentReplicas: 2, requests: r1(2), levels: [600], target: 100, want: { replicas: 2, utilization: 60, raw: 600 } },
  { name: "missing and unready pods: the direction changes, no scale", currentReplicas: 3, requests: r1(3), levels: [100, 450], ready: ["False", "True", "True"], target: 50, want: { replicas: 3, utilization: 45, raw: 450 } },
  { name: "missing and unready pods on a scale-up", currentReplicas: 3, requests: r1(3), levels: [100, 2000], ready: ["False", "True", "True"], target: 50, want: { replicas: 4, utilization: 200, raw: 2000 } },
  { name: "missing and unready pods on a scale-down", currentReplicas: 4, requests: r1(4), levels: [100, 100, 100], ready: ["False", "True", "True", "True"], target: 50, want: { replicas: 3, utilization: 10, raw: 100 } },
  { name: "missing pods above a target over 100 % count as the target", currentReplicas: 2, requests: r1(2), levels: [1000], target: 200, want: { replicas: 2, utilization: 100, raw: 1000 } },
  { name: "unready pods a long time after start that were never ready", currentReplicas: 2, requests: r1(2), levels: [500, 2000], ready: ["True", "False"], target: 50, want: { replicas: 2, utilization: 50, raw: 500 } },
  { name: "an empty CPU request", currentReplicas: 1, requests: [undefined], levels: [200], target: 100, error: "missing request for cpu in container c of Pod test-pod-0" },
  { name: "no metrics", currentReplicas: 4, requests: r1(4), levels: [], target: 100, error: "unable to get metrics for resource cpu: no metrics returned from resource metrics API" },
  { name: "only unready pods have metrics", currentReplicas: 2, requests: r1(2), levels: [500, 500], ready: ["False", "False"], target: 50, error: "did not receive metrics for targeted pods (pods might be unready)" },
];

describe("GetResourceReplicas (averageUtilization)", () => {
  it.each(utilizationCases.map((c) => [c.name, c] as const))("%s", async (_n, c) => {
    const calls: string[] = [];
    const p = calculator(c, calls).getResourceReplicas(c.currentReplicas, c.target, "cpu", c.tolerances ?? tol, "default", "name=test-pod", "");
    if (c.error) {
      await expect(p).rejects.toThrow(c.error);
      return;
    }
    const got = await p;
    expect({ replicas: got.replicas, utilization: got.utilization, raw: got.rawUtilization }).toEqual(c.want);
    expect(got.timestampMs).toBe(now);
    expect(calls).toEqual(["cpu default name=test-pod"]);
  });

  it("no pods match the selector", async () => {
    const c: Case = { name: "", currentReplicas: 1, requests: [], levels: [100], target: 50 };
    await expect(calculator(c).getResourceReplicas(1, 50, "cpu", tol, "default", "name=test-pod", "")).rejects.toThrow("no pods returned by selector while calculating replica count");
  });
});

// Plain averages (GetRawResourceReplicas / GetMetricReplicas: averageValue targets).
const plainCases: Case[] = [
  { name: "scale up", currentReplicas: 3, requests: r1(3), levels: [20000, 10000, 30000], target: 15000, want: { replicas: 4, utilization: 20000, raw: 0 } },
  { name: "scale up with an unready pod", currentReplicas: 3, requests: r1(3), levels: [50000, 10000, 30000], ready: ["True", "True", "False"], phase: ["Running", "Running", "Pending"], target: 15000, want: { replicas: 4, utilization: 30000, raw: 0 } },
  { name: "scale down", currentReplicas: 5, requests: r1(5), levels: [12000, 12000, 12000, 12000, 12000], target: 20000, want: { replicas: 3, utilization: 12000, raw: 0 } },
  { name: "within tolerance", currentReplicas: 3, requests: r1(3), levels: [20000, 21000, 21000], target: 20000, want: { replicas: 3, utilization: 20666, raw: 0 } },
  { name: "missing metrics count as the target on a scale-down", currentReplicas: 4, requests: r1(4), levels: [4000, 4000], target: 10000, want: { replicas: 3, utilization: 4000, raw: 0 } },
];

describe("calcPlainMetricReplicas (averageValue)", () => {
  it.each(plainCases.map((c) => [c.name, c] as const))("%s", async (_n, c) => {
    const got = await calculator(c).getRawResourceReplicas(c.currentReplicas, c.target, "memory", tol, "default", "name=test-pod", "");
    expect({ replicas: got.replicas, utilization: got.usage, raw: 0 }).toEqual(c.want);
  });
});

describe("pieces", () => {
  it("groupPods: ignored, unready, missing and ready", () => {
    const c: Case = { name: "", currentReplicas: 5, requests: r1(5), levels: [1, 1, 1, undefined, 1], phase: ["Failed", "Pending", "Running", "Running", "Running"], ready: ["True", "True", "True", "True", "False"], start: [cool, cool, cool, cool, hot], target: 1 };
    const info: PodMetricsInfo = new Map([0, 1, 2, 4].map((i) => [`test-pod-${i}`, { timestampMs: now, windowMs: 60_000, value: 1 }]));
    const g = groupPods(pods(c), info, "cpu", 2 * 60_000, 10_000, now);
    expect({ ready: g.readyPodCount, unready: [...g.unreadyPods], missing: [...g.missingPods], ignored: [...g.ignoredPods] }).toEqual({ ready: 1, unready: ["test-pod-1", "test-pod-4"], missing: ["test-pod-3"], ignored: ["test-pod-0"] });
    // Readiness matters for CPU only.
    expect(groupPods(pods(c), info, "memory", 2 * 60_000, 10_000, now).readyPodCount).toBe(2);
  });

  it("calculatePodRequests: regular containers and sidecars, one container, pod-level requests", () => {
    const pod = {
      metadata: { name: "p" },
      spec: {
        containers: [
          { name: "a", image: "x", resources: { requests: { cpu: "100m" } } },
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
    const podLevel = { ...pod, spec: { ...pod.spec, resources: { requests: { cpu: "2" } } } } as Pod;
    expect(calculatePodRequests([podLevel], "", "cpu")).toEqual(new Map([["p", 2000]]));
    expect(() => calculatePodRequests([pod], "", "memory")).toThrow("missing request for memory in container a of Pod p");
  });

  it.each<[number, { scaleDown: number; scaleUp: number }, boolean]>([
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
