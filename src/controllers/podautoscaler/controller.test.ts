/**
 * The HPA controller's sync (controller.ts), in the manner of upstream horizontal_test.go: a
 * Deployment target read through the fake client's scale subresource, pods in the cache, metrics
 * from a fake MetricsClient; each case checks the scale written, the SuccessfulRescale /
 * warning events, the status (currentReplicas, desiredReplicas, currentMetrics, lastScaleTime)
 * and the conditions with upstream's reasons.
 */
import { describe, expect, it } from "vitest";
import type { Deployment } from "../../apimachinery/api/apps/v1.js";
import type { HorizontalPodAutoscaler, HorizontalPodAutoscalerSpec } from "../../apimachinery/api/autoscaling/v2.js";
import type { Pod } from "../../apimachinery/api/core/v1.js";
import { formatTime } from "../../apimachinery/time.js";
import { StatusError } from "../../apimachinery/errors.js";
import { parseSelector } from "../../apimachinery/labels.js";
import { builtin } from "../../client/typed.js";
import { ControllerFixture } from "../../testing/fixture.js";
import { HorizontalController, horizontalPodAutoscalers, type ScaleTargetMapper } from "./controller.js";
import type { MetricsClient, PodMetricsInfo } from "./metrics.js";

const mapper: ScaleTargetMapper = {
  restMappings: (gk) => {
    if (gk.group === "apps" && gk.kind === "Deployment") {
      return Promise.resolve([{ resource: { group: "apps", version: "v1", resource: "deployments" }, groupVersionKind: { group: "apps", version: "v1", kind: "Deployment" }, namespaced: true }]);
    }
    return Promise.reject(new Error(`no matches for kind "${gk.kind}" in group "${gk.group}"`));
  },
};

/** One pod as upstream's testCase shapes it (reportedPodReadiness, reportedPodStartTime, reportedPodPhase, reportedPodDeletionTimestamp). */
interface PodShape {
  ready?: boolean;
  /** Started now (hotCPUCreationTime) rather than 3 minutes ago (coolCPUCreationTime). */
  hot?: boolean;
  phase?: string;
  deleting?: boolean;
  /** The container's CPU request (reportedCPURequests); 1 CPU when unset. */
  cpu?: string;
}

interface Setup {
  replicas: number;
  /** Metric values (milli-units) of the first pods, by index. */
  levels: number[];
  /** The pods, when they are more than the levels or not all running, ready and cool. */
  pods?: PodShape[];
  /** Serve the levels from the custom (pods and object) and external metrics APIs too. */
  custom?: boolean;
  /** The target's status.replicas, when it differs from spec.replicas. */
  statusReplicas?: number;
  /** Every metrics API fails with "something went wrong". */
  failMetrics?: boolean;
  /** The target without a selector (its scale reports none). */
  noSelector?: boolean;
  spec?: Partial<HorizontalPodAutoscalerSpec>;
  status?: HorizontalPodAutoscaler["status"];
  missingDeployment?: boolean;
}

function setup(s: Setup) {
  const f = new ControllerFixture();
  const now = f.clock.now();
  const metrics: { info: PodMetricsInfo } = { info: new Map() };
  const wrong = () => Promise.reject(new Error("something went wrong"));
  const failing: MetricsClient = { getResourceMetric: wrong, getRawMetric: wrong, getObjectMetric: wrong, getExternalMetric: wrong };
  const client: MetricsClient = s.failMetrics ? failing : {
    getResourceMetric: () => (metrics.info.size === 0 ? Promise.reject(new Error("no metrics returned from resource metrics API")) : Promise.resolve({ metrics: metrics.info, timestampMs: f.clock.now() })),
    getRawMetric: () => (s.custom ? Promise.resolve({ metrics: metrics.info, timestampMs: f.clock.now() }) : Promise.reject(new Error("unable to fetch metrics from custom metrics API: no custom metrics API (custom.metrics.k8s.io) registered"))),
    getObjectMetric: () => (s.custom ? Promise.resolve({ value: s.levels[0], timestampMs: f.clock.now() }) : Promise.reject(new Error("unable to fetch metrics from custom metrics API: no custom metrics API (custom.metrics.k8s.io) registered"))),
    getExternalMetric: () => (s.custom ? Promise.resolve({ values: s.levels, timestampMs: f.clock.now() }) : Promise.reject(new Error("unable to fetch metrics from external metrics API: no external metrics API (external.metrics.k8s.io) registered"))),
  };
  const hpaCtl = new HorizontalController(f.manager, { mapper, metricsClient: client, cpuInitializationPeriodMs: 2 * 60_000, delayOfInitialReadinessStatusMs: 10_000 });
  const shapes: PodShape[] = s.pods ?? s.levels.map(() => ({}));
  const pods: Pod[] = shapes.map((shape, i) => {
    const start = formatTime(shape.hot ? now : now - 3 * 60_000);
    return {
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name: `web-${i}`, namespace: "default", labels: { app: "web" }, ...(shape.deleting ? { deletionTimestamp: formatTime(now) } : {}) },
      spec: { containers: [{ name: "app", image: "nginx", resources: { requests: { cpu: shape.cpu ?? "1" } } }] },
      status: { phase: shape.phase ?? "Running", startTime: start, conditions: [{ type: "Ready", status: shape.ready === false ? "False" : "True", lastTransitionTime: start }] },
    };
  });
  f.seedCache(builtin.pods, ...pods);
  const setLevels = (levels: number[]) => {
    metrics.info = new Map(levels.map((v, i) => [`web-${i}`, { timestampMs: f.clock.now(), windowMs: 30_000, value: v }]));
  };
  setLevels(s.levels);
  if (!s.missingDeployment) {
    f.seedAPI(builtin.deployments, {
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: { name: "web", namespace: "default" },
      spec: { replicas: s.replicas, ...(s.noSelector ? {} : { selector: { matchLabels: { app: "web" } } }), template: { metadata: { labels: { app: "web" } }, spec: { containers: [{ name: "app", image: "nginx" }] } } },
      status: { replicas: s.statusReplicas ?? s.replicas },
    } as Deployment);
  }
  const hpa: HorizontalPodAutoscaler = {
    apiVersion: "autoscaling/v2",
    kind: "HorizontalPodAutoscaler",
    metadata: { name: "web", namespace: "default" },
    spec: {
      scaleTargetRef: { apiVersion: "apps/v1", kind: "Deployment", name: "web" },
      minReplicas: 1,
      maxReplicas: 10,
      metrics: [{ type: "Resource", resource: { name: "cpu", target: { type: "Utilization", averageUtilization: 30 } } }],
      ...s.spec,
    },
    ...(s.status ? { status: s.status } : {}),
  };
  const [stored] = f.seedAPI(horizontalPodAutoscalers, hpa);
  const sync = async () => {
    const cur = f.client.tracker.get(horizontalPodAutoscalers, "default", "web") as unknown as HorizontalPodAutoscaler;
    await hpaCtl.reconcileAutoscaler(cur, "default/web", f.client);
  };
  const read = () => ({
    replicas: s.missingDeployment ? undefined : (f.client.tracker.get(builtin.deployments, "default", "web") as Deployment).spec?.replicas,
    status: (f.client.tracker.get(horizontalPodAutoscalers, "default", "web") as unknown as HorizontalPodAutoscaler).status,
  });
  const conditions = () => Object.fromEntries((read().status?.conditions ?? []).map((c) => [c.type, `${c.status} ${c.reason}`]));
  return { f, hpaCtl, stored, sync, read, conditions, setLevels };
}

describe("HorizontalController sync", () => {
  it("scales up on CPU utilization above target: scale, event, status, conditions", async () => {
    const t = setup({ replicas: 3, levels: [300, 500, 700] });
    await t.sync();
    expect(t.read().replicas).toBe(5);
    expect(t.f.recorder.events).toEqual(["Normal SuccessfulRescale New size: 5; reason: cpu resource utilization (percentage of request) above target"]);
    expect(t.read().status).toMatchObject({
      currentReplicas: 3,
      desiredReplicas: 5,
      lastScaleTime: formatTime(t.f.clock.now()),
      currentMetrics: [{ type: "Resource", resource: { name: "cpu", current: { averageUtilization: 50, averageValue: "500m" } } }],
    });
    expect(t.conditions()).toEqual({ AbleToScale: "True SucceededRescale", ScalingActive: "True ValidMetricFound", ScalingLimited: "False DesiredWithinRange" });
    const active = t.read().status?.conditions?.find((c) => c.type === "ScalingActive");
    expect(active?.message).toBe("the HPA was able to successfully calculate a replica count from cpu resource utilization (percentage of request)");
  });

  it("is limited by maxReplicas (ScalingLimited TooManyReplicas)", async () => {
    const t = setup({ replicas: 3, levels: [300, 500, 700], spec: { maxReplicas: 4 } });
    await t.sync();
    expect(t.read().replicas).toBe(4);
    expect(t.conditions().ScalingLimited).toBe("True TooManyReplicas");
  });

  it("is limited by the scale-up limit without behavior: max(2 × current, 4)", async () => {
    const t = setup({ replicas: 1, levels: [3000], spec: { maxReplicas: 20 } });
    await t.sync();
    expect(t.read().replicas).toBe(4);
    expect(t.conditions().ScalingLimited).toBe("True ScaleUpLimit");
  });

  it("within tolerance: no scale, ReadyForNewScale, no status write when nothing changed", async () => {
    const t = setup({ replicas: 3, levels: [300, 300, 310] });
    await t.sync();
    expect(t.read().replicas).toBe(3);
    expect(t.f.recorder.events).toEqual([]);
    expect(t.conditions()).toEqual({ AbleToScale: "True ReadyForNewScale", ScalingActive: "True ValidMetricFound", ScalingLimited: "False DesiredWithinRange" });
    expect(t.read().status).toMatchObject({ currentReplicas: 3, desiredReplicas: 3 });
    expect(t.read().status?.lastScaleTime).toBeUndefined();
    t.f.client.clearActions();
    await t.sync();
    expect(t.f.client.actions().filter((a) => a.verb === "update")).toEqual([]);
  });

  it("a scale-down is stabilized for 5 minutes, then applied (All metrics below target)", async () => {
    const t = setup({ replicas: 5, levels: [100, 100, 100, 100, 100] });
    await t.sync();
    expect(t.read().replicas).toBe(5);
    expect(t.conditions().AbleToScale).toBe("True ScaleDownStabilized");
    t.f.clock.step(5 * 60_000 + 1000);
    await t.sync();
    // 10 % of request against 30 %: ceil(0.333 × 5) = 2.
    expect(t.read().replicas).toBe(2);
    expect(t.f.recorder.events).toEqual(["Normal SuccessfulRescale New size: 2; reason: All metrics below target"]);
  });

  it("behavior: a scale-up policy of 1 pod per minute limits the rate (ScaleUpLimit)", async () => {
    const t = setup({ replicas: 2, levels: [900, 900], spec: { behavior: { scaleUp: { stabilizationWindowSeconds: 0, selectPolicy: "Max", policies: [{ type: "Pods", value: 1, periodSeconds: 60 }] } } } });
    await t.sync();
    expect(t.read().replicas).toBe(3);
    expect(t.conditions().ScalingLimited).toBe("True ScaleUpLimit");
    // Within the period the budget is spent: no further scale-up.
    t.setLevels([900, 900, 900]);
    t.f.clock.step(15_000);
    await t.sync();
    expect(t.read().replicas).toBe(3);
    t.f.clock.step(60_000);
    await t.sync();
    expect(t.read().replicas).toBe(4);
  });

  it.each<[string, Setup, number, string, Record<string, string>]>([
    ["a target scaled to zero disables scaling", { replicas: 0, levels: [] }, 0, "", { AbleToScale: "True SucceededGetScale", ScalingActive: "False ScalingDisabled" }],
    ["above maxReplicas", { replicas: 12, levels: [300] }, 10, "Normal SuccessfulRescale New size: 10; reason: Current number of replicas above Spec.MaxReplicas", { AbleToScale: "True SucceededRescale" }],
    ["below minReplicas", { replicas: 1, levels: [300], spec: { minReplicas: 2 } }, 2, "Normal SuccessfulRescale New size: 2; reason: Current number of replicas below Spec.MinReplicas", { AbleToScale: "True SucceededRescale" }],
  ])("%s", async (_n, s, replicas, event, conditions) => {
    const t = setup(s);
    await t.sync();
    expect(t.read().replicas).toBe(replicas);
    expect(t.f.recorder.events).toEqual(event ? [event] : []);
    expect(t.conditions()).toEqual(conditions);
  });

  it.each<[string, Setup, string[], Record<string, string>, string]>([
    [
      "no metrics: FailedGetResourceMetric",
      { replicas: 2, levels: [] },
      [
        "Warning FailedGetResourceMetric failed to get cpu utilization: unable to get metrics for resource cpu: no metrics returned from resource metrics API",
        "Warning FailedComputeMetricsReplicas invalid metrics (1 invalid out of 1), first error is: failed to get cpu resource metric value: failed to get cpu utilization: unable to get metrics for resource cpu: no metrics returned from resource metrics API",
      ],
      { AbleToScale: "True SucceededGetScale", ScalingActive: "False FailedGetResourceMetric" },
      "the HPA was unable to compute the replica count: failed to get cpu utilization: unable to get metrics for resource cpu: no metrics returned from resource metrics API",
    ],
    [
      "a Pods metric without a custom metrics API: FailedGetPodsMetric",
      { replicas: 2, levels: [300, 300], spec: { metrics: [{ type: "Pods", pods: { metric: { name: "qps" }, target: { type: "AverageValue", averageValue: "10" } } }] } },
      [
        "Warning FailedGetPodsMetric unable to get metric qps: unable to fetch metrics from custom metrics API: no custom metrics API (custom.metrics.k8s.io) registered",
        "Warning FailedComputeMetricsReplicas invalid metrics (1 invalid out of 1), first error is: failed to get pods metric value: unable to get metric qps: unable to fetch metrics from custom metrics API: no custom metrics API (custom.metrics.k8s.io) registered",
      ],
      { AbleToScale: "True SucceededGetScale", ScalingActive: "False FailedGetPodsMetric" },
      "the HPA was unable to compute the replica count: unable to get metric qps: unable to fetch metrics from custom metrics API: no custom metrics API (custom.metrics.k8s.io) registered",
    ],
    [
      "an External metric: FailedGetExternalMetric",
      { replicas: 2, levels: [300, 300], spec: { metrics: [{ type: "External", external: { metric: { name: "queue" }, target: { type: "Value", value: "10" } } }] } },
      [
        // Upstream prints the metric's *LabelSelector with %+v: "nil" when unset.
        "Warning FailedGetExternalMetric unable to get external metric default/queue/nil: unable to fetch metrics from external metrics API: no external metrics API (external.metrics.k8s.io) registered",
        "Warning FailedComputeMetricsReplicas invalid metrics (1 invalid out of 1), first error is: failed to get queue external metric value: failed to get external metric queue: unable to get external metric default/queue/nil: unable to fetch metrics from external metrics API: no external metrics API (external.metrics.k8s.io) registered",
      ],
      { AbleToScale: "True SucceededGetScale", ScalingActive: "False FailedGetExternalMetric" },
      "the HPA was unable to compute the replica count: unable to get external metric default/queue/nil: unable to fetch metrics from external metrics API: no external metrics API (external.metrics.k8s.io) registered",
    ],
  ])("%s", async (_n, s, events, conditions, message) => {
    const t = setup(s);
    await expect(t.sync()).rejects.toThrow(/failed to compute desired number of replicas based on listed metrics for Deployment\/default\/web/);
    expect(t.read().replicas).toBe(s.replicas);
    expect(t.f.recorder.events).toEqual(events);
    expect(t.conditions()).toEqual(conditions);
    expect(t.read().status?.conditions?.find((c) => c.type === "ScalingActive")?.message).toBe(message);
    expect(t.read().status).toMatchObject({ currentReplicas: s.replicas });
  });

  it("one valid metric of two still scales up (the invalid one is reported)", async () => {
    const t = setup({
      replicas: 3,
      levels: [300, 500, 700],
      spec: { metrics: [{ type: "Resource", resource: { name: "cpu", target: { type: "Utilization", averageUtilization: 30 } } }, { type: "Pods", pods: { metric: { name: "qps" }, target: { type: "AverageValue", averageValue: "10" } } }] },
    });
    await expect(t.sync()).rejects.toThrow(/invalid metrics \(1 invalid out of 2\)/);
    expect(t.read().replicas).toBe(5);
    expect(t.conditions().ScalingActive).toBe("True ValidMetricFound");
  });

  it("a missing target: FailedGetScale", async () => {
    const t = setup({ replicas: 3, levels: [300], missingDeployment: true });
    await expect(t.sync()).rejects.toThrow(/^failed to query scale subresource for Deployment\/default\/web: /);
    expect(t.f.recorder.events[0]).toMatch(/^Warning FailedGetScale /);
    expect(t.conditions()).toEqual({ AbleToScale: "False FailedGetScale" });
  });

  it("an unknown kind: unable to determine resource for scale target reference", async () => {
    const t = setup({ replicas: 3, levels: [300], spec: { scaleTargetRef: { apiVersion: "example.com/v1", kind: "Widget", name: "web" } } });
    await expect(t.sync()).rejects.toThrow('unable to determine resource for scale target reference: no matches for kind "Widget" in group "example.com"');
    expect(t.conditions()).toEqual({ AbleToScale: "False FailedGetScale" });
  });

  it("reconcileKey requeues a sync period later and forgets a deleted HPA", async () => {
    const t = setup({ replicas: 3, levels: [300, 500, 700] });
    t.f.seedCache(horizontalPodAutoscalers, t.stored);
    const { ObjectName } = await import("../../apimachinery/objectname.js");
    expect(await t.hpaCtl.reconcileKey(new ObjectName("default", "web"), t.f.client)).toEqual({ requeueAfterMs: 15_000 });
    expect(t.hpaCtl.memory.recommendations.has("default/web")).toBe(true);
    expect(await t.hpaCtl.reconcileKey(new ObjectName("default", "gone"), t.f.client)).toBeUndefined();
  });

  // horizontal_test.go's AmbiguousSelector case: a second HPA's selector also selects the pods.
  it("pods selected by two HPAs: AmbiguousSelector, no scale", async () => {
    const t = setup({ replicas: 3, levels: [300, 500, 700] });
    t.hpaCtl.selectors.register("default", "web");
    t.hpaCtl.selectors.register("default", "web-2");
    t.hpaCtl.selectors.update("default", "web-2", parseSelector("app=web"));
    await expect(t.sync()).rejects.toThrow("failed to compute desired number of replicas based on listed metrics for Deployment/default/web: pods by selector app=web are controlled by multiple HPAs: [default/web default/web-2]");
    expect(t.read().replicas).toBe(3);
    expect(t.f.recorder.events[0]).toBe("Warning AmbiguousSelector pods by selector app=web are controlled by multiple HPAs: [default/web default/web-2]");
    expect(t.conditions()).toEqual({ AbleToScale: "True SucceededGetScale", ScalingActive: "False AmbiguousSelector" });
    // Once the other HPA is gone, the HPA scales.
    t.hpaCtl.selectors.delete("default", "web-2");
    t.f.recorder.events.length = 0;
    await t.sync();
    expect(t.read().replicas).toBe(5);
  });

  it("counts reconciliations and metric computations as upstream's monitor does", async () => {
    const t = setup({ replicas: 3, levels: [300, 500, 700] });
    await t.sync();
    const text = await t.f.registry.metrics();
    expect(text).toContain('horizontal_pod_autoscaler_controller_reconciliations_total{action="scale_up",error="none"} 1');
    expect(text).toContain('horizontal_pod_autoscaler_controller_metric_computation_total{action="scale_up",error="none",metric_type="Resource"} 1');
    expect(text).toMatch(/horizontal_pod_autoscaler_controller_reconciliation_duration_seconds_count\{action="scale_up",error="none"\} 1/);
    expect(text).toMatch(/horizontal_pod_autoscaler_controller_metric_computation_duration_seconds_bucket\{le="0.001",action="scale_up",error="none",metric_type="Resource"\} 1/);
  });

  // TestInvalidMetricSourceType: the unknown type is a spec error of its computation.
  it("an unknown metric source type: InvalidMetricSourceType, error=spec", async () => {
    const t = setup({ replicas: 3, levels: [300, 500, 700], spec: { minReplicas: 2, maxReplicas: 6, metrics: [{ type: "CheddarCheese" }] } });
    await expect(t.sync()).rejects.toThrow('unknown metric source type "CheddarCheese"');
    expect(t.read().replicas).toBe(3);
    expect(t.conditions()).toEqual({ AbleToScale: "True SucceededGetScale", ScalingActive: "False InvalidMetricSourceType" });
    const text = await t.f.registry.metrics();
    expect(text).toContain('horizontal_pod_autoscaler_controller_metric_computation_total{action="none",error="spec",metric_type="CheddarCheese"} 1');
    expect(text).toContain('horizontal_pod_autoscaler_controller_reconciliations_total{action="none",error="spec"} 1');
  });

  it("no metrics: the reconciliation counts as an internal error", async () => {
    const t = setup({ replicas: 2, levels: [] });
    await expect(t.sync()).rejects.toThrow();
    expect(await t.f.registry.metrics()).toContain('horizontal_pod_autoscaler_controller_reconciliations_total{action="none",error="internal"} 1');
  });

  it("a ContainerResource metric of a container the pods lack: FailedGetContainerResourceMetric naming the container", async () => {
    const t = setup({ replicas: 3, levels: [300, 500, 700], spec: { metrics: [{ type: "ContainerResource", containerResource: { name: "cpu", container: "sidecar", target: { type: "Utilization", averageUtilization: 30 } } }] } });
    await expect(t.sync()).rejects.toThrow("first error is: failed to get sidecar container metric value: failed to get cpu utilization: container sidecar not found in Pod web-0");
    expect(t.f.recorder.events[0]).toBe("Warning FailedGetContainerResourceMetric failed to get cpu utilization: container sidecar not found in Pod web-0");
    expect(t.conditions().ScalingActive).toBe("False FailedGetContainerResourceMetric");
  });

  it("a memory averageValue is reported in BinarySI (buildQuantity)", async () => {
    const mi200 = 200 * 1024 * 1024 * 1000;
    const t = setup({ replicas: 3, levels: [mi200, mi200, mi200], spec: { metrics: [{ type: "Resource", resource: { name: "memory", target: { type: "AverageValue", averageValue: "100Mi" } } }] } });
    await t.sync();
    expect(t.read().replicas).toBe(6);
    expect(t.read().status?.currentMetrics).toEqual([{ type: "Resource", resource: { name: "memory", current: { averageValue: "200Mi" } } }]);
    expect(t.f.recorder.events).toEqual(["Normal SuccessfulRescale New size: 6; reason: memory resource above target"]);
  });

  it("a conflicting scale update is retried against a fresh scale", async () => {
    const t = setup({ replicas: 3, levels: [300, 500, 700] });
    t.f.client.failNth("update", "deployments", 1, StatusError.conflict({ group: "apps", resource: "deployments" }, "web", "the object has been modified"));
    await t.sync();
    expect(t.read().replicas).toBe(5);
    const scaleCalls = t.f.client.actions().filter((a) => a.resource === "deployments" && a.subresource === "scale").map((a) => a.verb);
    expect(scaleCalls).toEqual(["get", "update", "get", "update"]);
  });

  it("a target at zero: ScalingDisabled, and ScaledToZero (HPAScaleToZero, off in 1.36) removed", async () => {
    const t = setup({ replicas: 0, levels: [], spec: { minReplicas: 0 }, status: { desiredReplicas: 0, conditions: [{ type: "ScaledToZero", status: "True", reason: "ScaledToZero", message: "the HPA controller scaled the workload to zero" }] } });
    await t.sync();
    expect(t.read().replicas).toBe(0);
    expect(t.conditions()).toEqual({ AbleToScale: "True SucceededGetScale", ScalingActive: "False ScalingDisabled" });
  });

  // TestConditionFailedUpdateScale: 150 % of request against a 100 % target, maxReplicas 5, the scale update fails.
  it("a failing scale update: FailedRescale, AbleToScale False FailedUpdateScale, desired replicas kept", async () => {
    const t = setup({ replicas: 3, levels: [1500, 1500, 1500], spec: { maxReplicas: 5, metrics: [{ type: "Resource", resource: { name: "cpu", target: { type: "Utilization", averageUtilization: 100 } } }] }, status: { currentReplicas: 3, desiredReplicas: 3 } });
    t.f.client.prependReactor("update", "deployments", (a) => (a.subresource === "scale" ? { handled: true, error: new Error("something went wrong") } : { handled: false }));
    await expect(t.sync()).rejects.toThrow("failed to rescale Deployment/default/web: something went wrong");
    expect(t.f.recorder.events).toEqual(["Warning FailedRescale New size: 5; reason: cpu resource utilization (percentage of request) above target; error: something went wrong"]);
    expect(t.conditions()).toEqual({ AbleToScale: "False FailedUpdateScale", ScalingActive: "True ValidMetricFound", ScalingLimited: "False DesiredWithinRange" });
    expect(t.read().status).toMatchObject({ currentReplicas: 3, desiredReplicas: 3 });
    const text = await t.f.registry.metrics();
    expect(text).toContain('horizontal_pod_autoscaler_controller_reconciliations_total{action="none",error="internal"} 1');
    expect(text).toContain('horizontal_pod_autoscaler_controller_metric_computation_total{action="scale_up",error="none",metric_type="Resource"} 1');
  });

  // HPAConfigurableTolerance (beta, on by default since 1.35): behavior.scaleUp.tolerance replaces the 10 %.
  it.each<[string, string | undefined, number]>([
    ["the default 10 % keeps 3 replicas at 102 %", undefined, 3],
    ["a 1 % scale-up tolerance scales to 4 at 102 %", "0.01", 4],
  ])("%s", async (_n, tolerance, want) => {
    const t = setup({
      replicas: 3,
      levels: [1020, 1020, 1020],
      spec: {
        metrics: [{ type: "Resource", resource: { name: "cpu", target: { type: "Utilization", averageUtilization: 100 } } }],
        behavior: { scaleUp: { stabilizationWindowSeconds: 0, ...(tolerance ? { tolerance } : {}) } },
      },
    });
    await t.sync();
    expect(t.read().replicas).toBe(want);
  });
});

/**
 * Upstream horizontal_test.go's controller tables (omerap12/kubernetes@060da168): TestScaleContainerResource, TestScaleUpCPU,
 * TestScaleDownCPU, TestScaleUpUnreadyOrHotCpuNoScale, TestScaleUpCM, TestScaleUpCMObject (the
 * HPAScaleToZero-off cases), TestScaleUpCMExternal, TestScaleDownStabilizeInitialSize, TestScaleDownCM
 * (the gate-off cases), TestScaleUpFromZeroWithoutCondition, TestScaleUpFromZeroWhenMinReplicasIncreased,
 * TestScaledToZeroConditionHandledOnNormalRescale (gate off), TestManualScaleToZeroDisablesHPA,
 * TestTolerance, TestConfigurableTolerance (gate on), TestReplicaLimits, TestMetricsEdgeCases,
 * TestEventCreated, TestEventNotCreated, TestCPUScalingEdgeCases, TestUpscaleCap,
 * TestConditionInvalidSelectorMissing, TestConditionFailedGetMetrics, TestInvalidMetricSourceType,
 * TestScaleTimingBehavior, TestComputedToleranceAlgImplementation, TestScaleUpOneMetricInvalid,
 * TestScaleUpFromZeroOneMetricInvalid (gate off), TestScaleUpOneMetricEmpty, TestNoScaleDownOneMetricEmpty
 * and TestScaleRCImmediately, with upstream's inputs, expected replicas
 * and conditions. Upstream lists statusReplicas pods unless it gives their CPU requests; every pod
 * requests 1 CPU, as upstream's do; the target is our Deployment (upstream's
 * ReplicationController / ReplicaSet variants scale the same way). Custom-metric cases use the fake
 * metrics client.
 */
describe("upstream horizontal_test.go controller tables", () => {
  const cpu = (averageUtilization: number): Partial<HorizontalPodAutoscalerSpec> => ({ metrics: [{ type: "Resource", resource: { name: "cpu", target: { type: "Utilization", averageUtilization } } }] });
  const qps = { metrics: [{ type: "Pods", pods: { metric: { name: "qps" }, target: { type: "AverageValue", averageValue: "15" } } }] };
  const object = (target: { type: string; value?: string; averageValue?: string }) => ({
    metrics: [{ type: "Object", object: { describedObject: { apiVersion: "apps/v1", kind: "Deployment", name: "some-deployment" }, metric: { name: "qps" }, target } }],
  });
  const external = (target: { type: string; value?: string; averageValue?: string }) => ({ metrics: [{ type: "External", external: { metric: { name: "qps", selector: {} }, target } }] });
  const shapes = (n: number, f: (i: number) => PodShape) => Array.from({ length: n }, (_, i) => f(i));
  const requests09_10_11: PodShape[] = [{ cpu: "900m" }, { cpu: "1" }, { cpu: "1100m" }];
  /** statusOkWithOverrides. */
  const ok = (overrides: Record<string, string> = {}) => ({ AbleToScale: "True SucceededRescale", ScalingActive: "True ValidMetricFound", ScalingLimited: "False DesiredWithinRange", ...overrides });
  const range = (min: number, max: number) => ({ minReplicas: min, maxReplicas: max });

  interface Case {
    name: string;
    s: Setup;
    /** recommendations: []timestampedRecommendation{} — no initial recommendation holds a scale-down. */
    emptyLog?: boolean;
    replicas: number;
    conditions?: Record<string, string>;
    utilization?: number;
    /** The sync fails (the metrics could not be computed). */
    error?: boolean;
    /** Earlier recommendations: [replicas, minutes ago]. */
    recommendations?: Array<[number, number]>;
    events?: string[];
  }

  /**
   * TestComputedToleranceAlgImplementation's two cases, derived as upstream derives them: requests
   * averaging 300m (jittered by ±100, ±10, ±2, ±1), 150m used each, the target 1 / (2 × (1 − 0.1))
   * plus 1 % (scales to ceil(ratio × 10)) or plus 0.4 % (within tolerance).
   */
  function computedTolerance(): Case[] {
    const startPods = 10;
    const used = startPods * 150;
    const requested = 2 * used;
    const requestedToUsed = Math.trunc(requested / used);
    const perPod = requested / startPods;
    const jitter = [100, -100, 10, -10, 2, -2, 1, -1, 0, 0];
    const pods = jitter.map((j) => ({ cpu: `${perPod + j}m` }));
    const levels = jitter.map(() => used / 10);
    const target1 = Math.abs(1 / (requestedToUsed * (1 - 0.1))) + 0.01;
    const finalPods = Math.ceil((used / (requested * target1)) * startPods);
    const target2 = Math.abs(1 / (requestedToUsed * (1 - 0.1))) + 0.004;
    return [
      { name: "TestComputedToleranceAlgImplementation: just past the tolerance", s: { replicas: startPods, levels, pods, spec: { ...range(0, 1000), ...cpu(Math.trunc(target1 * 100)) } }, emptyLog: true, replicas: finalPods },
      { name: "TestComputedToleranceAlgImplementation: just within the tolerance", s: { replicas: startPods, levels, pods, spec: { ...range(0, 1000), ...cpu(Math.trunc(target2 * 100)) } }, emptyLog: true, replicas: startPods, conditions: ok({ AbleToScale: "True ReadyForNewScale" }) },
    ];
  }

  it.each<Case>([
    // TestScaleContainerResource (our pods' one container is "app", upstream's container1 / container2).
    { name: "TestScaleContainerResource: scale up container resource", s: { replicas: 3, levels: [300, 500, 700], spec: { ...range(2, 6), metrics: [{ type: "ContainerResource", containerResource: { name: "cpu", container: "app", target: { type: "Utilization", averageUtilization: 30 } } }] } }, replicas: 5 },
    { name: "TestScaleContainerResource: scale down container resource", s: { replicas: 5, levels: [100, 300, 500, 250, 250], spec: { ...range(2, 6), metrics: [{ type: "ContainerResource", containerResource: { name: "cpu", container: "app", target: { type: "Utilization", averageUtilization: 50 } } }] } }, emptyLog: true, replicas: 3 },
    // TestScaleUpCPU
    { name: "TestScaleUpCPU: scale up", s: { replicas: 3, levels: [300, 500, 700], spec: { ...range(2, 6), ...cpu(30) } }, replicas: 5, conditions: ok() },
    { name: "TestScaleUpCPU: scale up with unready pods results in less scale", s: { replicas: 3, levels: [300, 500, 700], pods: [{ ready: false }, {}, {}], spec: { ...range(2, 6), ...cpu(30) } }, replicas: 4 },
    { name: "TestScaleUpCPU: scale up with hot cpu pods results in less scale", s: { replicas: 3, levels: [300, 500, 700], pods: [{ hot: true }, {}, {}], spec: { ...range(2, 6), ...cpu(30) } }, replicas: 4 },
    { name: "TestScaleUpCPU: scale up ignores failed pods", s: { replicas: 2, levels: [500, 700], pods: [{}, {}, { ready: false, phase: "Failed" }, { ready: false, phase: "Failed" }], spec: { ...range(2, 6), ...cpu(30) } }, replicas: 4 },
    { name: "TestScaleUpCPU: scale up ignores deletion pods", s: { replicas: 2, levels: [500, 700], pods: [{}, {}, { ready: false, deleting: true }, { ready: false, deleting: true }], spec: { ...range(2, 6), ...cpu(30) } }, replicas: 4 },
    { name: "TestScaleUpCPU: no scale up when all unready pods bring utilization within target", s: { replicas: 3, levels: [400, 500, 700], pods: [{}, { ready: false }, { ready: false }], spec: { ...range(2, 6), ...cpu(30) } }, replicas: 3 },
    // TestScaleDownCPU
    { name: "TestScaleDownCPU: scale down", s: { replicas: 5, levels: [100, 300, 500, 250, 250], spec: { ...range(2, 6), ...cpu(50) } }, emptyLog: true, replicas: 3 },
    { name: "TestScaleDownCPU: scale down includes unready pods", s: { replicas: 5, levels: [100, 300, 500, 250, 250], pods: [{}, {}, {}, { ready: false }, { ready: false }], spec: { ...range(2, 6), ...cpu(50) } }, emptyLog: true, replicas: 2 },
    { name: "TestScaleDownCPU: scale down ignores hot cpu pods", s: { replicas: 5, levels: [100, 300, 500, 250, 250], pods: [{}, {}, {}, { hot: true }, { hot: true }], spec: { ...range(2, 6), ...cpu(50) } }, emptyLog: true, replicas: 2 },
    { name: "TestScaleDownCPU: scale down ignores failed pods", s: { replicas: 5, levels: [100, 300, 500, 250, 250], pods: shapes(7, (i) => (i < 5 ? {} : { ready: false, phase: "Failed" })), spec: { ...range(2, 6), ...cpu(50) } }, emptyLog: true, replicas: 3 },
    { name: "TestScaleDownCPU: scale down ignores deletion pods", s: { replicas: 5, levels: [100, 300, 500, 250, 250], pods: shapes(7, (i) => (i < 5 ? {} : { ready: false, deleting: true })), spec: { ...range(2, 6), ...cpu(50) } }, emptyLog: true, replicas: 3 },
    // TestScaleUpUnreadyOrHotCpuNoScale: the utilization is the ready pods' 40 %.
    { name: "TestScaleUpUnreadyOrHotCpuNoScale: unready pods excluded from scaling", s: { replicas: 3, levels: [400, 500, 700], pods: [{}, { ready: false }, { ready: false }], spec: { ...range(2, 6), ...cpu(30) } }, replicas: 3, conditions: ok({ AbleToScale: "True ReadyForNewScale" }), utilization: 40 },
    { name: "TestScaleUpUnreadyOrHotCpuNoScale: hot CPU pods excluded from scaling", s: { replicas: 3, levels: [400, 500, 700], pods: [{}, { ready: false, hot: true }, { ready: false, hot: true }], spec: { ...range(2, 6), ...cpu(30) } }, replicas: 3, conditions: ok({ AbleToScale: "True ReadyForNewScale" }), utilization: 40 },
    // TestScaleUpCM: a Pods metric qps, averageValue 15 — readiness does not matter.
    { name: "TestScaleUpCM: scale up custom metric", s: { replicas: 3, levels: [20000, 10000, 30000], custom: true, spec: { ...range(2, 6), ...qps } }, replicas: 4 },
    { name: "TestScaleUpCM: unready and hot cpu pods do not reduce scale for custom metric", s: { replicas: 3, levels: [50000, 10000, 30000], pods: [{}, {}, { ready: false, hot: true }], custom: true, spec: { ...range(2, 6), ...qps } }, replicas: 6 },
    { name: "TestScaleUpCM: unready and hot cpu pods scale to max with scaling limited condition", s: { replicas: 3, levels: [50000, 15000, 30000], pods: [{ ready: false, hot: true }, {}, { ready: false, hot: true }], custom: true, spec: { ...range(2, 6), ...qps } }, replicas: 6, conditions: ok({ ScalingLimited: "True TooManyReplicas" }) },
    // TestScaleUpCMObject
    { name: "TestScaleUpCMObject: scale up object metric with value target", s: { replicas: 3, levels: [20000], pods: shapes(3, () => ({})), custom: true, spec: { ...range(2, 6), ...object({ type: "Value", value: "15" }) } }, replicas: 4 },
    { name: "TestScaleUpCMObject: scale up per-pod object metric with average value target", s: { replicas: 3, levels: [40000], pods: shapes(3, () => ({})), custom: true, spec: { ...range(2, 6), ...object({ type: "AverageValue", averageValue: "10" }) } }, replicas: 4 },
    {
      name: "TestScaleUpCMObject: scale up from zero with feature gate disabled",
      s: { replicas: 0, levels: [20000], pods: [], custom: true, spec: { ...range(0, 6), ...object({ type: "Value", value: "15" }) }, status: { currentReplicas: 0, desiredReplicas: 0, conditions: [{ type: "ScaledToZero", status: "True", reason: "ScaledToZero" }] } },
      replicas: 0,
      conditions: { AbleToScale: "True SucceededGetScale", ScalingActive: "False ScalingDisabled" },
    },
    {
      name: "TestScaleUpCMObject: scale up from zero ignores tolerance with feature gate disabled",
      s: { replicas: 0, levels: [1000], pods: [], custom: true, spec: { ...range(0, 6), ...object({ type: "Value", value: "1" }) }, status: { currentReplicas: 0, desiredReplicas: 0, conditions: [{ type: "ScaledToZero", status: "True", reason: "ScaledToZero" }] } },
      replicas: 0,
      conditions: { AbleToScale: "True SucceededGetScale", ScalingActive: "False ScalingDisabled" },
    },
    // TestScaleUpCMExternal: 3 pods (upstream lists statusReplicas of them).
    { name: "TestScaleUpCMExternal: scale up external metric with value target", s: { replicas: 3, levels: [8600], pods: shapes(3, () => ({})), custom: true, spec: { ...range(2, 6), ...external({ type: "Value", value: "6666m" }) } }, replicas: 4 },
    { name: "TestScaleUpCMExternal: scale up external metric with per-pod average value target", s: { replicas: 3, levels: [8600], pods: shapes(3, () => ({})), custom: true, spec: { ...range(2, 6), ...external({ type: "AverageValue", averageValue: "2222m" }) } }, replicas: 4 },
    // TestScaleDownStabilizeInitialSize: no recommendations yet — the current size is the first, and holds.
    { name: "TestScaleDownStabilizeInitialSize", s: { replicas: 5, levels: [100, 300, 500, 250, 250], spec: { ...range(2, 6), ...cpu(50) } }, replicas: 5, conditions: ok({ AbleToScale: "True ScaleDownStabilized" }) },
    // TestScaleDownCM
    { name: "TestScaleDownCM: scale down pods metric", s: { replicas: 5, levels: [12000, 12000, 12000, 12000, 12000], custom: true, spec: { ...range(2, 6), metrics: [{ type: "Pods", pods: { metric: { name: "qps" }, target: { type: "AverageValue", averageValue: "20" } } }] } }, emptyLog: true, replicas: 3 },
    { name: "TestScaleDownCM: scale down object metric with value target", s: { replicas: 5, levels: [12000], pods: shapes(5, () => ({})), custom: true, spec: { ...range(2, 6), ...object({ type: "Value", value: "20" }) } }, emptyLog: true, replicas: 3 },
    { name: "TestScaleDownCM: scale down to zero object metric with feature gate disabled", s: { replicas: 5, levels: [0], pods: shapes(5, () => ({})), custom: true, spec: { ...range(0, 6), ...object({ type: "Value", value: "20" }) } }, emptyLog: true, replicas: 0, conditions: ok() },
    { name: "TestScaleDownCM: scale down per-pod object metric with average value target", s: { replicas: 5, levels: [60000], pods: shapes(5, () => ({})), custom: true, spec: { ...range(2, 6), ...object({ type: "AverageValue", averageValue: "20" }) } }, emptyLog: true, replicas: 3 },
    { name: "TestScaleDownCM: scale down external metric with value target", s: { replicas: 5, levels: [8600], pods: shapes(5, () => ({})), custom: true, spec: { ...range(2, 6), ...external({ type: "Value", value: "14400m" }) } }, emptyLog: true, replicas: 3 },
    { name: "TestScaleDownCM: scale down to zero external metric with feature gate disabled", s: { replicas: 5, levels: [0], pods: shapes(5, () => ({})), custom: true, spec: { ...range(0, 6), ...external({ type: "Value", value: "14400m" }) } }, emptyLog: true, replicas: 0, conditions: ok() },
    { name: "TestScaleDownCM: scale down per-pod external metric with average value target", s: { replicas: 5, levels: [8600], pods: shapes(5, () => ({})), custom: true, spec: { ...range(2, 6), ...external({ type: "AverageValue", averageValue: "3000m" }) } }, emptyLog: true, replicas: 3 },
    // HPAScaleToZero is off in 1.36: upstream's gate-off runs.
    { name: "TestScaleUpFromZeroWithoutCondition (HPAScaleToZero=false)", s: { replicas: 0, levels: [20000], pods: [], custom: true, spec: { ...range(0, 6), ...object({ type: "Value", value: "15" }) } }, replicas: 0, conditions: { AbleToScale: "True SucceededGetScale", ScalingActive: "False ScalingDisabled" } },
    {
      name: "TestScaleUpFromZeroWhenMinReplicasIncreased (HPAScaleToZero=false)",
      s: { replicas: 0, levels: [10000], pods: [], custom: true, spec: { ...range(2, 6), ...object({ type: "Value", value: "15" }) }, status: { currentReplicas: 0, desiredReplicas: 0, conditions: [{ type: "ScaledToZero", status: "True", reason: "ScaledToZero" }] } },
      replicas: 0,
      conditions: { AbleToScale: "True SucceededGetScale", ScalingActive: "False ScalingDisabled" },
    },
    {
      name: "TestScaledToZeroConditionHandledOnNormalRescale (HPAScaleToZero=false): the stale ScaledToZero is removed",
      s: { replicas: 3, levels: [300, 500, 700], spec: { ...range(1, 6), ...cpu(30) }, status: { currentReplicas: 3, desiredReplicas: 3, conditions: [{ type: "ScaledToZero", status: "True", reason: "ScaledToZero" }] } },
      replicas: 5,
      conditions: ok(),
    },
    { name: "TestManualScaleToZeroDisablesHPA", s: { replicas: 0, levels: [], spec: { ...range(1, 6), ...cpu(50) } }, replicas: 0, conditions: { AbleToScale: "True SucceededGetScale", ScalingActive: "False ScalingDisabled" } },
    // TestTolerance: within the default 10 %, nothing changes.
    { name: "TestTolerance: CPU resource metric within tolerance", s: { replicas: 3, levels: [1010, 1030, 1020], pods: requests09_10_11, spec: { ...range(1, 5), ...cpu(100) } }, replicas: 3, conditions: ok({ AbleToScale: "True ReadyForNewScale" }) },
    { name: "TestTolerance: pods metric within tolerance", s: { replicas: 3, levels: [20000, 20001, 21000], pods: requests09_10_11, custom: true, spec: { ...range(1, 5), metrics: [{ type: "Pods", pods: { metric: { name: "qps" }, target: { type: "AverageValue", averageValue: "20" } } }] } }, replicas: 3, conditions: ok({ AbleToScale: "True ReadyForNewScale" }) },
    { name: "TestTolerance: object metric with value target within tolerance", s: { replicas: 3, levels: [20050], pods: requests09_10_11, custom: true, spec: { ...range(1, 5), ...object({ type: "Value", value: "20" }) } }, replicas: 3, conditions: ok({ AbleToScale: "True ReadyForNewScale" }) },
    { name: "TestTolerance: external metric with value target within tolerance", s: { replicas: 4, levels: [8600], pods: shapes(4, () => ({})), custom: true, spec: { ...range(2, 6), ...external({ type: "Value", value: "8666m" }) } }, replicas: 4, conditions: ok({ AbleToScale: "True ReadyForNewScale" }) },
    { name: "TestTolerance: per-pod object metric with average value target within tolerance", s: { replicas: 4, levels: [8600], pods: shapes(4, () => ({})), custom: true, spec: { ...range(2, 6), ...object({ type: "AverageValue", averageValue: "2200m" }) } }, replicas: 4, conditions: ok({ AbleToScale: "True ReadyForNewScale" }) },
    { name: "TestTolerance: per-pod external metric with average value target within tolerance", s: { replicas: 4, levels: [8600], pods: shapes(4, () => ({})), custom: true, spec: { ...range(2, 6), ...external({ type: "AverageValue", averageValue: "2200m" }) } }, replicas: 4, conditions: ok({ AbleToScale: "True ReadyForNewScale" }) },
    // TestConfigurableTolerance (HPAConfigurableTolerance on, as in 1.36).
    { name: "TestConfigurableTolerance: Scaling up because of a 1% configurable tolerance", s: { replicas: 3, levels: [1010, 1030, 1020], pods: requests09_10_11, spec: { ...range(1, 5), ...cpu(100), behavior: { scaleUp: { tolerance: "0.01" } } } }, replicas: 4, conditions: ok() },
    { name: "TestConfigurableTolerance: No scale-down because of a 90% configurable tolerance", s: { replicas: 3, levels: [300, 300, 300], spec: { ...range(1, 5), ...cpu(100), behavior: { scaleDown: { tolerance: "0.9" } } } }, replicas: 3, conditions: ok({ AbleToScale: "True ReadyForNewScale" }) },
    { name: "TestConfigurableTolerance: No scaling because of the large default tolerance", s: { replicas: 3, levels: [1010, 1030, 1020], pods: requests09_10_11, spec: { ...range(1, 5), ...cpu(100) } }, replicas: 3, conditions: ok({ AbleToScale: "True ReadyForNewScale" }) },
    // TestReplicaLimits
    { name: "TestReplicaLimits: scale down clamped to min replicas", s: { replicas: 3, levels: [10, 95, 10], pods: requests09_10_11, spec: { ...range(2, 5), ...cpu(90) } }, emptyLog: true, replicas: 2, conditions: ok({ ScalingLimited: "True TooFewReplicas" }) },
    { name: "TestReplicaLimits: scale down to zero when min replicas is zero", s: { replicas: 3, levels: [0, 0, 0], pods: requests09_10_11, spec: { ...range(0, 5), ...cpu(90) } }, emptyLog: true, replicas: 0, conditions: ok() },
    { name: "TestReplicaLimits: scale down clamped to min when desired is zero", s: { replicas: 3, levels: [0, 0, 0], pods: requests09_10_11, spec: { ...range(2, 5), ...cpu(90) } }, emptyLog: true, replicas: 2, conditions: ok({ ScalingLimited: "True TooFewReplicas" }) },
    { name: "TestReplicaLimits: no scaling when spec replicas is zero", s: { replicas: 0, levels: [], spec: { ...range(3, 5), ...cpu(90) } }, replicas: 0, conditions: { AbleToScale: "True SucceededGetScale", ScalingActive: "False ScalingDisabled" } },
    { name: "TestReplicaLimits: scale up to min when below min replicas", s: { replicas: 2, levels: [], spec: { ...range(3, 5), ...cpu(90) } }, replicas: 3, conditions: { AbleToScale: "True SucceededRescale" } },
    { name: "TestReplicaLimits: scale down to max when above max replicas", s: { replicas: 10, levels: [], spec: { ...range(3, 5), ...cpu(90) } }, replicas: 5, conditions: { AbleToScale: "True SucceededRescale" } },
    { name: "TestReplicaLimits: scale up clamped to max replicas", s: { replicas: 3, levels: [8000, 9500, 1000], pods: requests09_10_11, spec: { ...range(2, 5), ...cpu(90) } }, replicas: 5, conditions: ok({ ScalingLimited: "True TooManyReplicas" }) },
    // TestMetricsEdgeCases: metrics of pods the selector does not list are ignored.
    { name: "TestMetricsEdgeCases: superfluous metrics reported", s: { replicas: 4, levels: [4000, 9500, 3000, 7000, 3200, 2000], pods: shapes(4, () => ({})), spec: { ...range(2, 6), ...cpu(100) } }, replicas: 6, conditions: ok({ ScalingLimited: "True TooManyReplicas" }) },
    { name: "TestMetricsEdgeCases: missing metrics from some pods", s: { replicas: 4, levels: [400, 95], pods: shapes(4, () => ({})), spec: { ...range(2, 6), ...cpu(100) } }, emptyLog: true, replicas: 3 },
    { name: "TestMetricsEdgeCases: empty metrics from all pods", s: { replicas: 4, levels: [], pods: shapes(4, () => ({})), spec: { ...range(2, 6), ...cpu(100) } }, error: true, replicas: 4, conditions: { AbleToScale: "True SucceededGetScale", ScalingActive: "False FailedGetResourceMetric" } },
    { name: "TestMetricsEdgeCases: empty CPU requests (no pods listed)", s: { replicas: 1, levels: [200], pods: [], spec: { ...range(1, 5), ...cpu(100) } }, error: true, replicas: 1, conditions: { AbleToScale: "True SucceededGetScale", ScalingActive: "False FailedGetResourceMetric" } },
    // TestEventCreated / TestEventNotCreated
    { name: "TestEventCreated", s: { replicas: 1, levels: [200], pods: [{ cpu: "200m" }], spec: { ...range(1, 5), ...cpu(50) } }, replicas: 2, events: ["Normal SuccessfulRescale New size: 2; reason: cpu resource utilization (percentage of request) above target"] },
    { name: "TestEventNotCreated", s: { replicas: 2, levels: [200, 200], pods: [{ cpu: "400m" }, { cpu: "400m" }], spec: { ...range(1, 5), ...cpu(50) } }, replicas: 2, events: [], conditions: ok({ AbleToScale: "True ReadyForNewScale" }) },
    // TestCPUScalingEdgeCases
    { name: "TestCPUScalingEdgeCases: missing reports from some pods", s: { replicas: 4, levels: [200], pods: [{ cpu: "200m" }], spec: { ...range(1, 5), ...cpu(50) } }, emptyLog: true, replicas: 2 },
    { name: "TestCPUScalingEdgeCases: more replicas than spec no scale", s: { replicas: 4, statusReplicas: 5, levels: [500, 500, 500, 500, 500], spec: { ...range(1, 8), ...cpu(50) } }, replicas: 4, conditions: ok({ AbleToScale: "True ReadyForNewScale" }) },
    // TestUpscaleCap: Percent 700 per 60 s allows ceil(3 × 8) = 24.
    { name: "TestUpscaleCap: capped by scale up rules", s: { replicas: 3, levels: [100, 200, 300], pods: shapes(3, () => ({ cpu: "100m" })), spec: { ...range(1, 100), ...cpu(10), behavior: { scaleUp: { stabilizationWindowSeconds: 0, selectPolicy: "Max", policies: [{ type: "Percent", value: 700, periodSeconds: 60 }] } } } }, replicas: 24, conditions: ok({ ScalingLimited: "True ScaleUpLimit" }) },
    { name: "TestUpscaleCap: capped by max replicas when scale up limit exceeds max", s: { replicas: 3, levels: [100, 200, 300], pods: shapes(3, () => ({ cpu: "100m" })), spec: { ...range(1, 20), ...cpu(10), behavior: { scaleUp: { stabilizationWindowSeconds: 0, selectPolicy: "Max", policies: [{ type: "Percent", value: 700, periodSeconds: 60 }] } } } }, replicas: 20, conditions: ok({ ScalingLimited: "True TooManyReplicas" }) },
    // TestConditionInvalidSelectorMissing: the scale reports no selector.
    { name: "TestConditionInvalidSelectorMissing", s: { replicas: 3, levels: [100, 200, 300], pods: shapes(3, () => ({ cpu: "100m" })), noSelector: true, spec: { ...range(1, 100), ...cpu(10) } }, error: true, replicas: 3, conditions: { AbleToScale: "True SucceededGetScale", ScalingActive: "False InvalidSelector" } },
    // TestConditionFailedGetMetrics: each metrics API failing.
    ...([
      ["FailedGetResourceMetric", cpu(10)],
      ["FailedGetPodsMetric", qps],
      ["FailedGetObjectMetric", object({ type: "Value", value: "15" })],
      ["FailedGetExternalMetric", external({ type: "Value", value: "300m" })],
    ] as const).map(([reason, spec]): Case => ({
      name: `TestConditionFailedGetMetrics: ${reason}`,
      s: { replicas: 3, levels: [100, 200, 300], pods: shapes(3, () => ({ cpu: "100m" })), failMetrics: true, spec: { ...range(1, 100), ...spec } },
      error: true,
      replicas: 3,
      conditions: { AbleToScale: "True SucceededGetScale", ScalingActive: `False ${reason}` },
    })),
    // TestInvalidMetricSourceType
    { name: "TestInvalidMetricSourceType: only invalid metric source type", s: { replicas: 3, levels: [20000], pods: shapes(3, () => ({})), spec: { ...range(2, 6), metrics: [{ type: "CheddarCheese" }] } }, error: true, replicas: 3, conditions: { AbleToScale: "True SucceededGetScale", ScalingActive: "False InvalidMetricSourceType" } },
    {
      name: "TestInvalidMetricSourceType: no scale down when one metric has invalid source type",
      s: { replicas: 5, levels: [100, 300, 500, 250, 250], spec: { ...range(2, 6), metrics: [...(cpu(50).metrics ?? []), { type: "CheddarCheese" }] } },
      emptyLog: true,
      error: true,
      replicas: 5,
      conditions: { AbleToScale: "True SucceededGetScale", ScalingActive: "False InvalidMetricSourceType" },
    },
    // TestScaleTimingBehavior: a recent lastScaleTime does not hold a scale-up; the 5 min window holds a scale-down.
    { name: "TestScaleTimingBehavior: no backoff upscale custom metric only", s: { replicas: 3, levels: [20000, 10000, 30000], custom: true, spec: { ...range(1, 5), ...qps }, status: { currentReplicas: 3, desiredReplicas: 3, lastScaleTime: formatTime(Date.UTC(2026, 0, 1)) } }, replicas: 4, conditions: ok() },
    {
      name: "TestScaleTimingBehavior: no backoff upscale custom metric and CPU",
      s: { replicas: 3, levels: [20000, 10000, 30000], custom: true, spec: { ...range(1, 5), metrics: [...(cpu(10).metrics ?? []), ...qps.metrics] }, status: { currentReplicas: 3, desiredReplicas: 3, lastScaleTime: formatTime(Date.UTC(2026, 0, 1)) } },
      replicas: 5,
      conditions: ok({ ScalingLimited: "True TooManyReplicas" }),
    },
    { name: "TestScaleTimingBehavior: stabilize downscale", s: { replicas: 4, levels: [50, 50, 50], pods: shapes(3, () => ({ cpu: "100m" })), spec: { ...range(1, 5), ...cpu(100) } }, recommendations: [[10, 10], [4, 1]], replicas: 4, conditions: ok({ AbleToScale: "True ScaleDownStabilized" }) },
    // TestComputedToleranceAlgImplementation: 10 pods using 150m of ~300m each; a target just past the 10 % tolerance scales down, one just inside does not.
    ...computedTolerance(),
    // One metric failing or invalid: a scale-up still happens (the sync reports the error), a scale-down does not.
    { name: "TestScaleUpOneMetricInvalid", s: { replicas: 3, levels: [300, 400, 500], spec: { ...range(2, 6), metrics: [...(cpu(30).metrics ?? []), { type: "CheddarCheese" }] } }, error: true, replicas: 4 },
    { name: "TestScaleUpFromZeroOneMetricInvalid (HPAScaleToZero=false)", s: { replicas: 0, levels: [300, 400, 500], spec: { ...range(0, 6), metrics: [...(cpu(30).metrics ?? []), { type: "CheddarCheese" }] } }, emptyLog: true, replicas: 0, conditions: { AbleToScale: "True SucceededGetScale", ScalingActive: "False ScalingDisabled" } },
    { name: "TestScaleUpOneMetricEmpty: the external metrics API fails", s: { replicas: 3, levels: [300, 400, 500], spec: { ...range(2, 6), metrics: [...(cpu(30).metrics ?? []), ...external({ type: "Value", value: "100m" }).metrics] } }, error: true, replicas: 4 },
    {
      name: "TestNoScaleDownOneMetricEmpty: the external metrics API fails",
      s: { replicas: 5, levels: [100, 300, 500, 250, 250], spec: { ...range(2, 6), metrics: [...(cpu(50).metrics ?? []), ...external({ type: "Value", value: "1" }).metrics] } },
      emptyLog: true,
      error: true,
      replicas: 5,
      conditions: { AbleToScale: "True SucceededGetScale", ScalingActive: "False FailedGetExternalMetric" },
    },
    // TestScaleRCImmediately: out of [min, max] scales at once, whatever the last scale time.
    { name: "TestScaleRCImmediately: scale up to min when below min replicas", s: { replicas: 1, levels: [0, 0, 0, 0], spec: range(2, 6), status: { currentReplicas: 1, desiredReplicas: 1, lastScaleTime: formatTime(Date.UTC(2026, 0, 1)) } }, replicas: 2, conditions: { AbleToScale: "True SucceededRescale" } },
    { name: "TestScaleRCImmediately: scale down to max when above max replicas", s: { replicas: 6, levels: [8000, 9500, 1000], spec: { ...range(2, 5), ...cpu(50) }, status: { currentReplicas: 6, desiredReplicas: 6, lastScaleTime: formatTime(Date.UTC(2026, 0, 1)) } }, replicas: 5, conditions: { AbleToScale: "True SucceededRescale" } },
  ])("$name", async (c) => {
    const t = setup(c.s);
    if (c.emptyLog) t.hpaCtl.memory.recommendations.set("default/web", []);
    if (c.recommendations) t.hpaCtl.memory.recommendations.set("default/web", c.recommendations.map(([recommendation, min]) => ({ recommendation, timestampMs: t.f.clock.now() - min * 60_000 })));
    if (c.error) await expect(t.sync()).rejects.toThrow();
    else await t.sync();
    expect(t.read().replicas).toBe(c.replicas);
    if (!c.error) expect(t.read().status?.desiredReplicas).toBe(c.replicas);
    if (c.events) expect(t.f.recorder.events).toEqual(c.events);
    if (c.conditions) expect(t.conditions()).toEqual(c.conditions);
    if (c.utilization !== undefined) expect(t.read().status?.currentMetrics?.[0]?.resource?.current.averageUtilization).toBe(c.utilization);
    expect(t.f.recorder.events.filter((e) => e.startsWith("Normal SuccessfulRescale"))).toHaveLength(c.replicas === c.s.replicas ? 0 : 1);
  });
});

describe("upstream horizontal_test.go single-case tests", () => {
  // TestHPARescaleWithSuccessfulConflictRetry: 70 % against 50 % on 3 pods; the first scale update conflicts.
  it("TestHPARescaleWithSuccessfulConflictRetry", async () => {
    const t = setup({ replicas: 3, levels: [600, 700, 800], spec: { minReplicas: 2, maxReplicas: 6, metrics: [{ type: "Resource", resource: { name: "cpu", target: { type: "Utilization", averageUtilization: 50 } } }] } });
    t.f.client.failNth("update", "deployments", 1, StatusError.conflict({ group: "apps", resource: "deployments" }, "web", "simulated conflict"));
    await t.sync();
    expect(t.read().replicas).toBe(5);
    expect(t.read().status?.desiredReplicas).toBe(5);
    expect(t.conditions()).toEqual({ AbleToScale: "True SucceededRescale", ScalingActive: "True ValidMetricFound", ScalingLimited: "False DesiredWithinRange" });
  });

  // TestAvoidUnnecessaryUpdates: the status already says what this sync computes (the ready pod's 40 %
  // against 80 % recommends 1, held at minReplicas 2), so the HPA is not written.
  it("TestAvoidUnnecessaryUpdates", async () => {
    const hourAgo = formatTime(Date.UTC(2026, 0, 1));
    const t = setup({
      replicas: 2,
      levels: [400, 500, 700],
      pods: [{}, { hot: true }, { hot: true }],
      spec: { minReplicas: 2, maxReplicas: 6, metrics: [{ type: "Resource", resource: { name: "cpu", target: { type: "Utilization", averageUtilization: 80 } } }] },
      status: {
        currentReplicas: 2,
        desiredReplicas: 2,
        lastScaleTime: hourAgo,
        currentMetrics: [{ type: "Resource", resource: { name: "cpu", current: { averageValue: "400m", averageUtilization: 40 } } }],
        conditions: [
          { type: "AbleToScale", status: "True", lastTransitionTime: hourAgo, reason: "ReadyForNewScale", message: "recommended size matches current size" },
          { type: "ScalingActive", status: "True", lastTransitionTime: hourAgo, reason: "ValidMetricFound", message: "the HPA was able to successfully calculate a replica count from cpu resource utilization (percentage of request)" },
          { type: "ScalingLimited", status: "True", lastTransitionTime: hourAgo, reason: "TooFewReplicas", message: "the desired replica count is less than the minimum replica count" },
        ],
      },
    });
    // recommendations: []timestampedRecommendation{} — nothing holds the raw recommendation of 1.
    t.hpaCtl.memory.recommendations.set("default/web", []);
    t.f.client.clearActions();
    await t.sync();
    expect(t.read().replicas).toBe(2);
    expect(t.f.client.actions().filter((a) => a.verb === "update")).toEqual([]);
  });
});
