/**
 * The replica calculator (upstream replica_calculator.go and metrics/utilization.go): from the
 * pods a target's selector matches and their metrics, the replica count that brings the metric to
 * its target.
 *
 * Pods are grouped first (groupPods): being deleted or Failed → ignored; Pending → unready;
 * no metric → missing; for CPU, not Ready, or still inside the CPU initialization period (2 min
 * after start) with a sample whose window began before the pod turned Ready, or unready and
 * never ready since delayOfInitialReadinessStatus (10 s) after start → unready; else ready.
 * The ratio of usage to target is then taken over the ready pods; within tolerance (default
 * 0.1 either way) the count stays. With missing pods (counted as 100 % — or the target when it is
 * above 100 % — on a scale-down and 0 % on a scale-up) or unready pods on a scale-up (0 %), the
 * ratio is computed again and a change of direction, or a result inside tolerance, keeps the
 * current count.
 *
 * Values are milli-units; utilization is an integer percentage of the pods' requests (the sum of
 * their containers' and sidecars' requests, or the pod-level requests when set).
 */
import type { Pod } from "../../apimachinery/api/core/v1.js";
import { quantityMilliValue } from "../../apimachinery/quantity.js";
import { parseTime } from "../../apimachinery/time.js";
import type { CrossVersionObjectReference } from "../../apimachinery/api/autoscaling/v2.js";
import type { LabelSelector } from "../../apimachinery/api/meta/v1.js";
import { labelSelectorAsSelector } from "../../apimachinery/labels.js";
import type { MetricsClient, PodMetricsInfo } from "./metrics.js";

const MAX_INT32 = 2147483647;
/** time.Time{} (0001-01-01T00:00:00Z) in Unix ms. */
const GO_ZERO_TIME_MS = -62135596800000;

/** Upstream's --horizontal-pod-autoscaler-tolerance default. */
export const DEFAULT_TOLERANCE = 0.1;
/** --horizontal-pod-autoscaler-cpu-initialization-period default. */
export const DEFAULT_CPU_INITIALIZATION_PERIOD_MS = 5 * 60_000;
/** --horizontal-pod-autoscaler-initial-readiness-delay default. */
export const DEFAULT_DELAY_OF_INITIAL_READINESS_STATUS_MS = 30_000;

/** The tolerances of one direction each (HPAConfigurableTolerance: behavior.scaleUp/scaleDown.tolerance). */
export interface Tolerances {
  scaleDown: number;
  scaleUp: number;
}

/** Whether the ratio is close enough to 1 that the count should not change. */
export function isWithinTolerance(t: Tolerances, usageRatio: number): boolean {
  return 1.0 - t.scaleDown <= usageRatio && usageRatio <= 1.0 + t.scaleUp;
}

export class ReplicaCalculationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ReplicaCalculationError";
  }
}

const errorText = (err: unknown) => (err instanceof Error ? err.message : String(err));

export interface PodGroups {
  readyPodCount: number;
  unreadyPods: Set<string>;
  missingPods: Set<string>;
  ignoredPods: Set<string>;
}

/** groupPods: sorts the pods into ready, unready, missing (no metric) and ignored. */
export function groupPods(pods: readonly Pod[], metrics: PodMetricsInfo, resource: string, cpuInitializationPeriodMs: number, delayOfInitialReadinessStatusMs: number, nowMs: number): PodGroups {
  const g: PodGroups = { readyPodCount: 0, unreadyPods: new Set(), missingPods: new Set(), ignoredPods: new Set() };
  for (const pod of pods) {
    const name = pod.metadata?.name ?? "";
    // Being deleted or terminal (Failed, Succeeded): ignored.
    if (pod.metadata?.deletionTimestamp || pod.status?.phase === "Failed" || pod.status?.phase === "Succeeded") {
      g.ignoredPods.add(name);
      continue;
    }
    if (pod.status?.phase === "Pending") {
      g.unreadyPods.add(name);
      continue;
    }
    const metric = metrics.get(name);
    if (!metric) {
      g.missingPods.add(name);
      continue;
    }
    if (resource === "cpu") {
      let unready: boolean;
      const condition = (pod.status?.conditions ?? []).find((c) => c.type === "Ready");
      const startMs = pod.status?.startTime ? parseTime(pod.status.startTime) : undefined;
      if (!condition || startMs === undefined) {
        unready = true;
      } else {
        // An unset lastTransitionTime is Go's zero time (year 1), as upstream compares it.
        const transitionMs = parseTime(condition.lastTransitionTime) ?? GO_ZERO_TIME_MS;
        if (startMs + cpuInitializationPeriodMs > nowMs) {
          // Inside the initialization period: unready, or a sample that began before readiness.
          unready = condition.status === "False" || metric.timestampMs < transitionMs + metric.windowMs;
        } else {
          // After it: unready only when it has never been ready.
          unready = condition.status === "False" && startMs + delayOfInitialReadinessStatusMs > transitionMs;
        }
      }
      if (unready) {
        g.unreadyPods.add(name);
        continue;
      }
    }
    g.readyPodCount++;
  }
  return g;
}

function removeMetricsForPods(metrics: PodMetricsInfo, pods: Set<string>): void {
  for (const p of pods) metrics.delete(p);
}

/**
 * calculateRequests: each pod's request of `resource`, in milli-units — the pod-level request when
 * the pod sets one and no container is named (PodLevelResources, on by default), else the named
 * container's, else the sum over its containers and sidecars (restartPolicy Always init containers).
 */
export function calculatePodRequests(pods: readonly Pod[], container: string, resource: string): Map<string, number> {
  const requests = new Map<string, number>();
  for (const pod of pods) {
    const name = pod.metadata?.name ?? "";
    const podLevel = (pod.spec as { resources?: { requests?: Record<string, string> } } | undefined)?.resources?.requests;
    if (container === "" && podLevel && (podLevel.cpu !== undefined || podLevel.memory !== undefined)) {
      // resourcehelpers.PodRequests: the pod-level value, else what the containers request of it.
      let req = podLevel[resource] === undefined ? undefined : (quantityMilliValue(podLevel[resource]) ?? 0);
      if (req === undefined) {
        const own = (pod.spec?.containers ?? []).map((c) => c.resources?.requests?.[resource]).filter((q): q is string => q !== undefined);
        if (own.length > 0) req = own.reduce((a, q) => a + (quantityMilliValue(q) ?? 0), 0);
      }
      if (req === undefined) throw new ReplicaCalculationError(`missing pod-level request for ${resource} in Pod ${name}`);
      requests.set(name, req);
      continue;
    }
    const containers = [...(pod.spec?.containers ?? []), ...(pod.spec?.initContainers ?? []).filter((c) => (c as { restartPolicy?: string }).restartPolicy === "Always")];
    let sum = 0;
    let found = false;
    for (const c of containers) {
      if (container !== "" && container !== c.name) continue;
      const req = c.resources?.requests?.[resource];
      if (req === undefined) throw new ReplicaCalculationError(`missing request for ${resource} in container ${c.name} of Pod ${name}`);
      sum += quantityMilliValue(req) ?? 0;
      // Container names are unique in a pod.
      if (container !== "") {
        found = true;
        break;
      }
    }
    if (container !== "" && !found) throw new ReplicaCalculationError(`container ${container} not found in Pod ${name}`);
    requests.set(name, sum);
  }
  return requests;
}

/** GetResourceUtilizationRatio: usage / target over the pods with both a metric and a request. */
export function resourceUtilizationRatio(metrics: PodMetricsInfo, requests: Map<string, number>, targetUtilization: number): { ratio: number; utilization: number; rawAverage: number } {
  let metricsTotal = 0;
  let requestsTotal = 0;
  let entries = 0;
  for (const [pod, m] of metrics) {
    const req = requests.get(pod);
    if (req === undefined) continue;
    metricsTotal += m.value;
    requestsTotal += req;
    entries++;
  }
  if (requestsTotal === 0) throw new ReplicaCalculationError("no metrics returned matched known pods");
  const utilization = Math.trunc((metricsTotal * 100) / requestsTotal);
  return { ratio: utilization / targetUtilization, utilization, rawAverage: Math.trunc(metricsTotal / entries) };
}

/** GetMetricUsageRatio: the average usage over the target. */
export function metricUsageRatio(metrics: PodMetricsInfo, targetUsage: number): { ratio: number; usage: number } {
  let total = 0;
  for (const m of metrics.values()) total += m.value;
  const usage = Math.trunc(total / metrics.size);
  return { ratio: usage / targetUsage, usage };
}

export type PodLister = (namespace: string, selector: string) => readonly Pod[];

export interface ReplicaCalculatorOptions {
  cpuInitializationPeriodMs?: number;
  delayOfInitialReadinessStatusMs?: number;
}

export class ReplicaCalculator {
  private readonly cpuInitializationPeriodMs: number;
  private readonly delayOfInitialReadinessStatusMs: number;

  constructor(
    private readonly metricsClient: MetricsClient,
    private readonly pods: PodLister,
    private readonly now: () => number,
    opts: ReplicaCalculatorOptions = {},
  ) {
    this.cpuInitializationPeriodMs = opts.cpuInitializationPeriodMs ?? DEFAULT_CPU_INITIALIZATION_PERIOD_MS;
    this.delayOfInitialReadinessStatusMs = opts.delayOfInitialReadinessStatusMs ?? DEFAULT_DELAY_OF_INITIAL_READINESS_STATUS_MS;
  }

  private listPods(namespace: string, selector: string): readonly Pod[] {
    const pods = this.pods(namespace, selector);
    if (pods.length === 0) throw new ReplicaCalculationError("no pods returned by selector while calculating replica count");
    return pods;
  }

  /** GetResourceReplicas: for an averageUtilization target (percent of request). */
  async getResourceReplicas(
    currentReplicas: number,
    targetUtilization: number,
    resource: string,
    tolerances: Tolerances,
    namespace: string,
    selector: string,
    container: string,
    signal?: AbortSignal,
  ): Promise<{ replicas: number; utilization: number; rawUtilization: number; timestampMs: number }> {
    let got: Awaited<ReturnType<MetricsClient["getResourceMetric"]>>;
    try {
      got = await this.metricsClient.getResourceMetric(resource, namespace, selector, container, signal);
    } catch (err) {
      throw new ReplicaCalculationError(`unable to get metrics for resource ${resource}: ${errorText(err)}`);
    }
    const metrics = new Map(got.metrics);
    const pods = this.listPods(namespace, selector);
    const g = groupPods(pods, metrics, resource, this.cpuInitializationPeriodMs, this.delayOfInitialReadinessStatusMs, this.now());
    removeMetricsForPods(metrics, g.ignoredPods);
    removeMetricsForPods(metrics, g.unreadyPods);
    if (metrics.size === 0) throw new ReplicaCalculationError("did not receive metrics for targeted pods (pods might be unready)");
    const requests = calculatePodRequests(pods, container, resource);
    const { ratio, utilization, rawAverage } = resourceUtilizationRatio(metrics, requests, targetUtilization);
    const result = (replicas: number) => ({ replicas, utilization, rawUtilization: rawAverage, timestampMs: got.timestampMs });

    const scaleUpWithUnready = g.unreadyPods.size > 0 && ratio > 1.0;
    if (!scaleUpWithUnready && g.missingPods.size === 0) {
      if (isWithinTolerance(tolerances, ratio)) return result(currentReplicas);
      return result(Math.ceil(ratio * g.readyPodCount));
    }
    if (g.missingPods.size > 0) {
      if (ratio < 1.0) {
        // Scale-down: missing pods use all of their request, or the target when it is above 100 %.
        const fallback = Math.max(100, targetUtilization);
        for (const p of g.missingPods) metrics.set(p, { timestampMs: 0, windowMs: 0, value: Math.trunc(((requests.get(p) ?? 0) * fallback) / 100) });
      } else if (ratio > 1.0) {
        for (const p of g.missingPods) metrics.set(p, { timestampMs: 0, windowMs: 0, value: 0 });
      }
    }
    if (scaleUpWithUnready) for (const p of g.unreadyPods) metrics.set(p, { timestampMs: 0, windowMs: 0, value: 0 });
    const next = resourceUtilizationRatio(metrics, requests, targetUtilization).ratio;
    if (isWithinTolerance(tolerances, next) || (ratio < 1.0 && next > 1.0) || (ratio > 1.0 && next < 1.0)) return result(currentReplicas);
    const replicas = Math.ceil(next * metrics.size);
    if ((next < 1.0 && replicas > currentReplicas) || (next > 1.0 && replicas < currentReplicas)) return result(currentReplicas);
    return result(replicas);
  }

  /** GetRawResourceReplicas: for an averageValue target of a resource (milli-units). */
  async getRawResourceReplicas(
    currentReplicas: number,
    targetUsage: number,
    resource: string,
    tolerances: Tolerances,
    namespace: string,
    selector: string,
    container: string,
    signal?: AbortSignal,
  ): Promise<{ replicas: number; usage: number; timestampMs: number }> {
    let got: Awaited<ReturnType<MetricsClient["getResourceMetric"]>>;
    try {
      got = await this.metricsClient.getResourceMetric(resource, namespace, selector, container, signal);
    } catch (err) {
      throw new ReplicaCalculationError(`unable to get metrics for resource ${resource}: ${errorText(err)}`);
    }
    const { replicas, usage } = this.calcPlainMetricReplicas(new Map(got.metrics), currentReplicas, targetUsage, tolerances, namespace, selector, resource);
    return { replicas, usage, timestampMs: got.timestampMs };
  }

  /** GetMetricReplicas: for a Pods metric's averageValue target. */
  async getMetricReplicas(
    currentReplicas: number,
    targetUsage: number,
    metricName: string,
    tolerances: Tolerances,
    namespace: string,
    selector: string,
    metricSelector: string,
    signal?: AbortSignal,
  ): Promise<{ replicas: number; usage: number; timestampMs: number }> {
    let got: Awaited<ReturnType<MetricsClient["getRawMetric"]>>;
    try {
      got = await this.metricsClient.getRawMetric(metricName, namespace, selector, metricSelector, signal);
    } catch (err) {
      throw new ReplicaCalculationError(`unable to get metric ${metricName}: ${errorText(err)}`);
    }
    const { replicas, usage } = this.calcPlainMetricReplicas(new Map(got.metrics), currentReplicas, targetUsage, tolerances, namespace, selector, "");
    return { replicas, usage, timestampMs: got.timestampMs };
  }

  /** calcPlainMetricReplicas: for averages that are not percentages of a request. */
  calcPlainMetricReplicas(metrics: PodMetricsInfo, currentReplicas: number, targetUsage: number, tolerances: Tolerances, namespace: string, selector: string, resource: string): { replicas: number; usage: number } {
    const pods = this.listPods(namespace, selector);
    const g = groupPods(pods, metrics, resource, this.cpuInitializationPeriodMs, this.delayOfInitialReadinessStatusMs, this.now());
    removeMetricsForPods(metrics, g.ignoredPods);
    removeMetricsForPods(metrics, g.unreadyPods);
    if (metrics.size === 0) throw new ReplicaCalculationError("did not receive metrics for targeted pods (pods might be unready)");
    const { ratio, usage } = metricUsageRatio(metrics, targetUsage);
    const scaleUpWithUnready = g.unreadyPods.size > 0 && ratio > 1.0;
    if (!scaleUpWithUnready && g.missingPods.size === 0) {
      if (isWithinTolerance(tolerances, ratio)) return { replicas: currentReplicas, usage };
      return { replicas: Math.ceil(ratio * g.readyPodCount), usage };
    }
    if (g.missingPods.size > 0 && ratio !== 1.0) {
      // Scale-down: missing pods use exactly the target; scale-up: nothing. At the target, nothing is filled in.
      const value = ratio < 1.0 ? targetUsage : 0;
      for (const p of g.missingPods) metrics.set(p, { timestampMs: 0, windowMs: 0, value });
    }
    if (scaleUpWithUnready) for (const p of g.unreadyPods) metrics.set(p, { timestampMs: 0, windowMs: 0, value: 0 });
    const next = metricUsageRatio(metrics, targetUsage).ratio;
    if (isWithinTolerance(tolerances, next) || (ratio < 1.0 && next > 1.0) || (ratio > 1.0 && next < 1.0)) return { replicas: currentReplicas, usage };
    const replicas = Math.ceil(next * metrics.size);
    if ((next < 1.0 && replicas > currentReplicas) || (next > 1.0 && replicas < currentReplicas)) return { replicas: currentReplicas, usage };
    return { replicas, usage };
  }

  /** getReadyPodsCount: Running and Ready pods the selector matches. */
  private readyPodsCount(namespace: string, selector: string): number {
    return this.listPods(namespace, selector).filter((p) => p.status?.phase === "Running" && (p.status.conditions ?? []).some((c) => c.type === "Ready" && c.status === "True")).length;
  }

  /** getUsageRatioReplicaCount: scales the ready pods by the ratio (at most MaxInt32); from zero replicas, to ceil(ratio). */
  usageRatioReplicaCount(currentReplicas: number, usageRatio: number, tolerances: Tolerances, namespace: string, selector: string): number {
    if (currentReplicas === 0) return Math.ceil(usageRatio);
    if (isWithinTolerance(tolerances, usageRatio)) return currentReplicas;
    let ready: number;
    try {
      ready = this.readyPodsCount(namespace, selector);
    } catch (err) {
      throw new ReplicaCalculationError(`unable to calculate ready pods: ${errorText(err)}`);
    }
    const replicas = usageRatio * ready;
    return replicas > MAX_INT32 ? MAX_INT32 : Math.ceil(replicas);
  }

  /** An Object metric's value, its failure worded as upstream's replica calculator words it. */
  private async objectMetric(
    metricName: string,
    namespace: string,
    objectRef: CrossVersionObjectReference,
    metricSelector: string,
    signal?: AbortSignal,
  ): ReturnType<MetricsClient["getObjectMetric"]> {
    try {
      return await this.metricsClient.getObjectMetric(metricName, namespace, objectRef, metricSelector, signal);
    } catch (err) {
      throw new ReplicaCalculationError(`unable to get metric ${metricName} on ${objectRef.kind} ${namespace}/${objectRef.name}: ${errorText(err)}`);
    }
  }

  /** GetObjectMetricReplicas: an Object metric's value target. */
  async getObjectMetricReplicas(
    currentReplicas: number,
    targetValue: number,
    metricName: string,
    tolerances: Tolerances,
    namespace: string,
    objectRef: CrossVersionObjectReference,
    selector: string,
    metricSelector: string,
    signal?: AbortSignal,
  ): Promise<{ replicas: number; usage: number; timestampMs: number }> {
    const got = await this.objectMetric(metricName, namespace, objectRef, metricSelector, signal);
    const replicas = this.usageRatioReplicaCount(currentReplicas, got.value / targetValue, tolerances, namespace, selector);
    // Upstream reports no timestamp for a value target (it is only logged).
    return { replicas, usage: got.value, timestampMs: 0 };
  }

  /** GetObjectPerPodMetricReplicas: an Object metric's averageValue target. */
  async getObjectPerPodMetricReplicas(
    statusReplicas: number,
    targetAverage: number,
    metricName: string,
    tolerances: Tolerances,
    namespace: string,
    objectRef: CrossVersionObjectReference,
    metricSelector: string,
    signal?: AbortSignal,
  ): Promise<{ replicas: number; usage: number; timestampMs: number }> {
    const got = await this.objectMetric(metricName, namespace, objectRef, metricSelector, signal);
    return { ...perPodReplicas(statusReplicas, got.value, targetAverage, tolerances), timestampMs: got.timestampMs };
  }

  private async externalMetric(metricName: string, namespace: string, metricSelector: LabelSelector | undefined, signal?: AbortSignal): ReturnType<MetricsClient["getExternalMetric"]> {
    let parsed: string;
    try {
      parsed = labelSelectorAsSelector(metricSelector ?? null).toString();
    } catch (err) {
      throw new ReplicaCalculationError(errorText(err));
    }
    try {
      return await this.metricsClient.getExternalMetric(metricName, namespace, parsed, signal);
    } catch (err) {
      throw new ReplicaCalculationError(`unable to get external metric ${namespace}/${metricName}/${goLabelSelectorText(metricSelector)}: ${errorText(err)}`);
    }
  }

  /** GetExternalMetricReplicas: an External metric's value target (the values' sum against it). */
  async getExternalMetricReplicas(
    currentReplicas: number,
    targetUsage: number,
    metricName: string,
    tolerances: Tolerances,
    namespace: string,
    metricSelector: LabelSelector | undefined,
    podSelector: string,
    signal?: AbortSignal,
  ): Promise<{ replicas: number; usage: number; timestampMs: number }> {
    const got = await this.externalMetric(metricName, namespace, metricSelector, signal);
    const usage = got.values.reduce((a, b) => a + b, 0);
    const replicas = this.usageRatioReplicaCount(currentReplicas, usage / targetUsage, tolerances, namespace, podSelector);
    return { replicas, usage, timestampMs: 0 };
  }

  /** GetExternalPerPodMetricReplicas: an External metric's averageValue target. */
  async getExternalPerPodMetricReplicas(
    statusReplicas: number,
    targetUsagePerPod: number,
    metricName: string,
    tolerances: Tolerances,
    namespace: string,
    metricSelector: LabelSelector | undefined,
    signal?: AbortSignal,
  ): Promise<{ replicas: number; usage: number; timestampMs: number }> {
    const got = await this.externalMetric(metricName, namespace, metricSelector, signal);
    const usage = got.values.reduce((a, b) => a + b, 0);
    return { ...perPodReplicas(statusReplicas, usage, targetUsagePerPod, tolerances), timestampMs: got.timestampMs };
  }
}


/** The per-pod targets: the replica count stays unless usage/(target × replicas) leaves tolerance; usage is reported per pod (0 with no replicas). */
function perPodReplicas(statusReplicas: number, usage: number, targetPerPod: number, tolerances: Tolerances): { replicas: number; usage: number } {
  let replicas = statusReplicas;
  if (!isWithinTolerance(tolerances, usage / (targetPerPod * statusReplicas))) {
    const n = Math.ceil(usage / targetPerPod);
    replicas = n > MAX_INT32 ? MAX_INT32 : n;
  }
  return { replicas, usage: statusReplicas === 0 ? 0 : Math.ceil(usage / statusReplicas) };
}

/**
 * A *metav1.LabelSelector as Go's %+v prints it (its generated String()): "nil", or
 * &LabelSelector{MatchLabels:map[string]string{k: v,},MatchExpressions:[]LabelSelectorRequirement{...},}.
 * Upstream puts it in the External metric's error and name.
 */
export function goLabelSelectorText(sel: LabelSelector | undefined | null): string {
  if (!sel) return "nil";
  const labels = Object.keys(sel.matchLabels ?? {})
    .sort()
    .map((k) => `${k}: ${sel.matchLabels![k]},`)
    .join("");
  const exprs = (sel.matchExpressions ?? []).map((r) => `LabelSelectorRequirement{Key:${r.key},Operator:${r.operator},Values:[${(r.values ?? []).join(" ")}],},`).join("");
  return `&LabelSelector{MatchLabels:map[string]string{${labels}},MatchExpressions:[]LabelSelectorRequirement{${exprs}},}`;
}
