/**
 * The HorizontalPodAutoscaler controller (upstream pkg/controller/podautoscaler/horizontal.go),
 * autoscaling/v2: every sync period (15 s, upstream's --horizontal-pod-autoscaler-sync-period)
 * each HPA reads its target's scale subresource (any kind with /scale: Deployment, ReplicaSet,
 * StatefulSet, ReplicationController, a custom resource), computes a replica count per metric
 * (replicacalculator.ts) and takes the largest, normalizes it (behavior.ts: stabilization, rate
 * policies, min/max) and, when it differs, updates the scale — recording SuccessfulRescale
 * "New size: N; reason: R" — then writes status (currentReplicas, desiredReplicas,
 * currentMetrics, lastScaleTime, the AbleToScale / ScalingActive / ScalingLimited conditions)
 * when it changed.
 *
 * Metrics: Resource and ContainerResource from metrics.k8s.io (Utilization and AverageValue);
 * Pods, Object and External go through the MetricsClient's custom and external calls, which
 * kubeloop's ResourceMetricsClient answers with "no custom metrics API registered", so such
 * metrics report ScalingActive False (FailedGetPodsMetric, FailedGetObjectMetric,
 * FailedGetExternalMetric) as on a cluster without a metrics adapter.
 *
 * Before computing, the target's selector must be set, parse, and select pods no other HPA
 * selects (AmbiguousSelector; selectors.ts). A target at zero replicas is not scaled
 * (ScalingDisabled; HPAScaleToZero is alpha and off in 1.36, so ScaledToZero is removed). Each sync
 * and each metric computation is counted in upstream's monitor metrics (monitor.ts).
 *
 * Composed with the builder — requests: one per HPA ("ns/name"), queued a sync period after every
 * add or update (upstream's fixed-interval rate limiter) and requeued a sync period after every
 * reconcile; a failed sync is reported (events, conditions) and retried at the next period, as
 * upstream's. The controller's memory (recommendations, scale events) is per process, as upstream's.
 */
import type { CrossVersionObjectReference, HPAScalingRules, HorizontalPodAutoscaler, MetricSpec, MetricStatus, MetricTarget } from "../../apimachinery/api/autoscaling/v2.js";
import type { Scale } from "../../apimachinery/api/autoscaling/v1.js";
import type { Pod } from "../../apimachinery/api/core/v1.js";
import type { LabelSelector } from "../../apimachinery/api/meta/v1.js";
import type { Clock } from "../../apimachinery/clock.js";
import { deepCopy } from "../../apimachinery/deepcopy.js";
import { semanticEqual } from "../../apimachinery/equality.js";
import { isConflict, isNotFound } from "../../apimachinery/errors.js";
import { labelSelectorAsSelector, parseSelector, type Selector } from "../../apimachinery/labels.js";
import { ObjectName } from "../../apimachinery/objectname.js";
import { formatQuantity, quantityMilliValue, quantityValue } from "../../apimachinery/quantity.js";
import { defineResource } from "../../apimachinery/resource.js";
import { formatTime } from "../../apimachinery/time.js";
import type { ResourceClientFactory } from "../../client/interfaces.js";
import type { RESTMapping } from "../../client/restmapper.js";
import { builtin } from "../../client/typed.js";
import type { EventRecorder } from "../../events/broadcaster.js";
import type { Lister } from "../../informers/lister.js";
import type { Logger } from "../../runtime/logging.js";
import type { Controller } from "../../runtime/controller.js";
import type { Manager } from "../../runtime/manager.js";
import type { ReconcileResult } from "../../runtime/reconcile.js";
import { DEFAULT_DOWNSCALE_STABILIZATION_WINDOW_MS, Recommendations, convertDesiredReplicasWithRules, type NormalizationArg } from "./behavior.js";
import { ABLE_TO_SCALE, SCALED_TO_ZERO, SCALING_ACTIVE, SCALING_LIMITED, removeCondition, setCondition } from "./conditions.js";
import { ResourceMetricsClient, type MetricsClient } from "./metrics.js";
import { hpaMonitor, type ActionLabel, type ErrorLabel, type HPAMonitor } from "./monitor.js";
import { HPASelectors } from "./selectors.js";
import { DEFAULT_TOLERANCE, ReplicaCalculator, goLabelSelectorText, type ReplicaCalculatorOptions, type Tolerances } from "./replicacalculator.js";

export const HPA_CONTROLLER_NAME = "horizontal-pod-autoscaler";
/** --concurrent-horizontal-pod-autoscaler-syncs default. */
export const DEFAULT_HPA_WORKERS = 5;
/** --horizontal-pod-autoscaler-sync-period default. */
export const DEFAULT_HPA_SYNC_PERIOD_MS = 15_000;

/** autoscaling/v2 horizontalpodautoscalers. */
export const horizontalPodAutoscalers = defineResource<HorizontalPodAutoscaler>({ group: "autoscaling", version: "v2", resource: "horizontalpodautoscalers", kind: "HorizontalPodAutoscaler", namespaced: true });

/** What the controller needs to find the resource of a scaleTargetRef kind (a REST mapper). */
export interface ScaleTargetMapper {
  restMappings(gk: { group: string; kind: string }, versions?: readonly string[], signal?: AbortSignal): Promise<RESTMapping[]>;
}

export interface HorizontalControllerOptions extends ReplicaCalculatorOptions {
  mapper: ScaleTargetMapper;
  workers?: number;
  /** --horizontal-pod-autoscaler-sync-period (default 15 s). */
  syncPeriodMs?: number;
  /** --horizontal-pod-autoscaler-downscale-stabilization (default 5 min). */
  downscaleStabilisationWindowMs?: number;
  /** --horizontal-pod-autoscaler-tolerance (default 0.1). */
  tolerance?: number;
  /** Default: metrics.k8s.io through the manager's client (no custom or external metrics). */
  metricsClient?: MetricsClient;
}

const errorText = (err: unknown) => (err instanceof Error ? err.message : String(err));

/**
 * An error of a sync: already reported (events, conditions); logged, then retried at the next
 * period. `spec` marks errors caused by the HPA's spec (upstream's errSpec), counted as error="spec".
 */
export class HPASyncError extends Error {
  constructor(
    message: string,
    readonly spec = false,
  ) {
    super(message);
    this.name = "HPASyncError";
  }
}

const isSpecError = (err: unknown) => (err instanceof HPASyncError || err instanceof MetricError) && err.spec;

/** retry.DefaultRetry: the attempts of a conflicting scale update. */
const SCALE_UPDATE_ATTEMPTS = 5;

/** GenerateHPAScaleUpRules: the API's defaults for missing scale-up fields. */
export function scaleUpRules(r: HPAScalingRules | undefined): HPAScalingRules {
  return {
    ...r,
    stabilizationWindowSeconds: r?.stabilizationWindowSeconds ?? 0,
    selectPolicy: r?.selectPolicy ?? "Max",
    policies: r?.policies && r.policies.length > 0 ? r.policies : [
      { type: "Pods", value: 4, periodSeconds: 15 },
      { type: "Percent", value: 100, periodSeconds: 15 },
    ],
  };
}

/** GenerateHPAScaleDownRules plus the controller's stabilization window when the HPA sets none. */
export function scaleDownRules(r: HPAScalingRules | undefined, downscaleWindowMs: number): HPAScalingRules {
  return {
    ...r,
    stabilizationWindowSeconds: r?.stabilizationWindowSeconds ?? Math.round(downscaleWindowMs / 1000),
    selectPolicy: r?.selectPolicy ?? "Max",
    policies: r?.policies && r.policies.length > 0 ? r.policies : [{ type: "Percent", value: 100, periodSeconds: 15 }],
  };
}

/** resource.NewMilliQuantity(v, format).String(). */
const milliQuantity = (v: number, format: "DecimalSI" | "BinarySI" = "DecimalSI") => formatQuantity({ unscaled: BigInt(Math.trunc(v)), scale: -3, format });
/** buildQuantity: memory in BinarySI (Ki/Mi/Gi, as metrics-server reports it), anything else DecimalSI. */
const resourceQuantity = (resource: string, v: number) => milliQuantity(v, resource === "memory" ? "BinarySI" : "DecimalSI");

function parseGroupVersion(apiVersion: string | undefined): { group: string; version: string } {
  const gv = apiVersion ?? "";
  if (gv === "") return { group: "", version: "" };
  const parts = gv.split("/");
  if (parts.length === 1) return { group: "", version: parts[0] };
  if (parts.length === 2) return { group: parts[0], version: parts[1] };
  throw new Error(`unexpected GroupVersion string: ${gv}`);
}

interface MetricProposal {
  replicas: number;
  metric: string;
  timestampMs: number;
  status: MetricStatus;
}

class MetricError extends Error {
  constructor(
    message: string,
    readonly reason: string,
    readonly conditionMessage: string,
    readonly spec = false,
  ) {
    super(message);
    this.name = "MetricError";
  }
}

export class HorizontalController {
  readonly controller: Controller;
  private readonly hpas: Lister<HorizontalPodAutoscaler>;
  private readonly clock: Clock;
  private readonly recorder: EventRecorder;
  private readonly log: Logger;
  private readonly syncPeriodMs: number;
  private readonly downscaleWindowMs: number;
  private readonly tolerance: number;
  private readonly mapper: ScaleTargetMapper;
  private readonly calc: ReplicaCalculator;
  /** Recommendations and scale events per HPA (the stabilization and policy memory). */
  readonly memory: Recommendations;
  /** The HPAs' selectors, for the AmbiguousSelector check. */
  readonly selectors = new HPASelectors();
  private readonly monitor: HPAMonitor;
  private readonly podLister: Lister<Pod>;

  constructor(mgr: Manager, opts: HorizontalControllerOptions) {
    this.clock = mgr.clock;
    this.log = mgr.logger;
    this.recorder = mgr.eventRecorder(HPA_CONTROLLER_NAME);
    this.syncPeriodMs = opts.syncPeriodMs ?? DEFAULT_HPA_SYNC_PERIOD_MS;
    this.downscaleWindowMs = opts.downscaleStabilisationWindowMs ?? DEFAULT_DOWNSCALE_STABILIZATION_WINDOW_MS;
    this.tolerance = opts.tolerance ?? DEFAULT_TOLERANCE;
    this.mapper = opts.mapper;
    this.memory = new Recommendations(this.downscaleWindowMs);
    this.monitor = hpaMonitor(mgr.registry);
    this.hpas = mgr.informers.forResource(horizontalPodAutoscalers).lister();
    const pods: Lister<Pod> = mgr.informers.forResource(builtin.pods).lister();
    this.podLister = pods;
    this.calc = new ReplicaCalculator(opts.metricsClient ?? new ResourceMetricsClient(mgr.client), (ns, selector) => pods.namespace(ns).list(parseSelector(selector)), () => this.clock.now(), opts);
    // enqueueHPA: registered for the selector check, synced a period later (upstream's rate limiter).
    const later = (hpa: HorizontalPodAutoscaler, q: { addAfter(r: ObjectName, ms: number): void }) => {
      this.selectors.register(hpa.metadata?.namespace ?? "", hpa.metadata?.name ?? "");
      q.addAfter(new ObjectName(hpa.metadata?.namespace ?? "", hpa.metadata?.name ?? ""), this.syncPeriodMs);
    };
    this.controller = mgr
      .controller(HPA_CONTROLLER_NAME)
      .watches(horizontalPodAutoscalers, {
        create: (e, q) => later(e.object, q),
        update: (e, q) => later(e.objectNew, q),
        delete: (e) => this.selectors.delete(e.object.metadata?.namespace ?? "", e.object.metadata?.name ?? ""),
      })
      // The pod informer feeds the replica calculator's lister.
      .watches(builtin.pods, {})
      .withOptions({ maxConcurrentReconciles: opts.workers ?? DEFAULT_HPA_WORKERS })
      .reconcile((req, ctx) => this.reconcileKey(req, ctx.client, ctx.signal));
  }

  /** reconcileKey: a deleted HPA's memory is dropped; any other is synced and requeued a period later. */
  async reconcileKey(key: ObjectName, client: ResourceClientFactory, signal?: AbortSignal): Promise<ReconcileResult | void> {
    const id = `${key.namespace}/${key.name}`;
    let hpa: HorizontalPodAutoscaler;
    try {
      hpa = this.hpas.namespace(key.namespace).get(key.name);
    } catch (err) {
      if (isNotFound(err)) {
        this.memory.forget(id);
        this.selectors.delete(key.namespace, key.name);
        return;
      }
      throw err;
    }
    try {
      await this.reconcileAutoscaler(hpa, id, client, signal);
    } catch (err) {
      if (signal?.aborted) throw err;
      this.log.warn({ hpa: id, err: errorText(err) }, "HorizontalPodAutoscaler sync failed");
    }
    return { requeueAfterMs: this.syncPeriodMs };
  }

  private tolerances(hpa: HorizontalPodAutoscaler): Tolerances {
    const t = (q: string | undefined) => {
      if (q === undefined) return this.tolerance;
      try {
        return quantityValue(q);
      } catch {
        return this.tolerance;
      }
    };
    return { scaleDown: t(hpa.spec.behavior?.scaleDown?.tolerance), scaleUp: t(hpa.spec.behavior?.scaleUp?.tolerance) };
  }

  private async updateStatusIfNeeded(original: HorizontalPodAutoscaler["status"], hpa: HorizontalPodAutoscaler, client: ResourceClientFactory, signal?: AbortSignal): Promise<void> {
    if (semanticEqual(original ?? null, hpa.status ?? null)) return;
    try {
      await client.resource(horizontalPodAutoscalers, hpa.metadata?.namespace).updateStatus(hpa, { signal });
    } catch (err) {
      this.recorder.event(hpa, "Warning", "FailedUpdateStatus", errorText(err));
      throw new HPASyncError(`failed to update status for ${hpa.metadata?.name ?? ""}: ${errorText(err)}`);
    }
  }

  private setStatus(hpa: HorizontalPodAutoscaler, currentReplicas: number, desiredReplicas: number, metrics: MetricStatus[] | undefined, rescale: boolean): void {
    hpa.status = {
      currentReplicas,
      desiredReplicas,
      ...(hpa.status?.lastScaleTime ? { lastScaleTime: hpa.status.lastScaleTime } : {}),
      ...(metrics && metrics.length > 0 ? { currentMetrics: metrics } : {}),
      ...(hpa.status?.conditions ? { conditions: hpa.status.conditions } : {}),
    };
    if (rescale) hpa.status.lastScaleTime = formatTime(this.clock.now());
  }

  private async scaleFor(namespace: string, name: string, mappings: RESTMapping[], client: ResourceClientFactory, signal?: AbortSignal) {
    let first: unknown;
    for (const m of mappings) {
      const desc = defineResource({ group: m.resource.group, version: m.resource.version, resource: m.resource.resource, kind: m.groupVersionKind.kind, namespaced: m.namespaced });
      try {
        const scale = await client.resource(desc, namespace).getScale(name, { signal });
        return { scale, desc };
      } catch (err) {
        first ??= err;
      }
    }
    throw first ?? new Error("unrecognized resource");
  }

  /** reconcileAutoscaler: one sync of one HPA, counted in reconciliations_total by its action and error. */
  async reconcileAutoscaler(shared: HorizontalPodAutoscaler, key: string, client: ResourceClientFactory, signal?: AbortSignal): Promise<void> {
    const start = this.clock.now();
    const outcome: { action: ActionLabel } = { action: "none" };
    let error: ErrorLabel = "none";
    try {
      await this.sync(shared, key, client, outcome, signal);
    } catch (err) {
      error = isSpecError(err) ? "spec" : "internal";
      throw err;
    } finally {
      const labels = { action: outcome.action, error };
      this.monitor.reconciliationsTotal.inc(labels);
      this.monitor.reconciliationDuration.observe(labels, (this.clock.now() - start) / 1000);
    }
  }

  private async sync(shared: HorizontalPodAutoscaler, key: string, client: ResourceClientFactory, outcome: { action: ActionLabel }, signal?: AbortSignal): Promise<void> {
    const hpa = deepCopy(shared);
    const original = deepCopy(shared.status);
    const ns = hpa.metadata?.namespace ?? "";
    const ref = hpa.spec.scaleTargetRef;
    const reference = `${ref.kind}/${ns}/${ref.name}`;
    const now = () => this.clock.now();
    const failGetScale = async (err: unknown, what: string, spec = false): Promise<never> => {
      this.recorder.event(hpa, "Warning", "FailedGetScale", errorText(err));
      setCondition(hpa, ABLE_TO_SCALE, "False", "FailedGetScale", `the HPA controller was unable to get the target's current scale: ${errorText(err)}`, now());
      await this.updateStatusIfNeeded(original, hpa, client, signal).catch((e: unknown) => this.log.warn({ hpa: key, err: errorText(e) }, "status update failed"));
      throw new HPASyncError(`${what}: ${errorText(err)}`, spec);
    };

    let gv: { group: string; version: string };
    try {
      gv = parseGroupVersion(ref.apiVersion);
    } catch (err) {
      return failGetScale(err, "invalid API version in scale target reference", true);
    }
    let mappings: RESTMapping[];
    try {
      mappings = await this.mapper.restMappings({ group: gv.group, kind: ref.kind }, [], signal);
    } catch (err) {
      return failGetScale(err, "unable to determine resource for scale target reference");
    }
    let got: { scale: Scale; desc: ReturnType<typeof defineResource> };
    try {
      got = await this.scaleFor(ns, ref.name, mappings, client, signal);
    } catch (err) {
      return failGetScale(err, `failed to query scale subresource for ${reference}`);
    }
    const scale = got.scale;
    setCondition(hpa, ABLE_TO_SCALE, "True", "SucceededGetScale", "the HPA controller was able to get the target's current scale", now());
    const currentReplicas = scale.spec?.replicas ?? 0;
    this.memory.recordInitial(key, currentReplicas, now());

    let metricStatuses: MetricStatus[] | undefined;
    let desiredReplicas = 0;
    let rescaleReason = "";
    const minReplicas = hpa.spec.minReplicas ?? 1;
    let rescale = true;
    let partialError: unknown;

    if (currentReplicas === 0) {
      // Autoscaling is off for a target scaled to zero (HPAScaleToZero, which would scale it from
      // zero on Object/External metrics, is alpha and off in 1.36; with it off ScaledToZero is dropped).
      desiredReplicas = 0;
      rescale = false;
      setCondition(hpa, SCALING_ACTIVE, "False", "ScalingDisabled", "scaling is disabled since the replica count of the target is zero", now());
      removeCondition(hpa, SCALED_TO_ZERO);
    } else if (currentReplicas > hpa.spec.maxReplicas) {
      rescaleReason = "Current number of replicas above Spec.MaxReplicas";
      desiredReplicas = hpa.spec.maxReplicas;
    } else if (currentReplicas < minReplicas) {
      rescaleReason = "Current number of replicas below Spec.MinReplicas";
      desiredReplicas = minReplicas;
    } else {
      const computed = await this.computeReplicasForMetrics(hpa, scale, hpa.spec.metrics ?? [], signal);
      metricStatuses = computed.statuses;
      if (computed.error && computed.replicas === -1) {
        this.setStatus(hpa, currentReplicas, hpa.status?.desiredReplicas ?? 0, metricStatuses, false);
        await this.updateStatusIfNeeded(original, hpa, client, signal).catch((e: unknown) => this.log.warn({ hpa: key, err: errorText(e) }, "status update failed"));
        this.recorder.event(hpa, "Warning", "FailedComputeMetricsReplicas", errorText(computed.error));
        throw new HPASyncError(`failed to compute desired number of replicas based on listed metrics for ${reference}: ${errorText(computed.error)}`, isSpecError(computed.error));
      }
      partialError = computed.error;
      let rescaleMetric = "";
      if (computed.replicas > desiredReplicas) {
        desiredReplicas = computed.replicas;
        rescaleMetric = computed.metric;
      }
      if (desiredReplicas > currentReplicas) rescaleReason = `${rescaleMetric} above target`;
      if (desiredReplicas < currentReplicas) rescaleReason = "All metrics below target";
      desiredReplicas = hpa.spec.behavior ? this.normalizeWithBehaviors(hpa, key, currentReplicas, desiredReplicas, minReplicas) : this.normalize(hpa, key, currentReplicas, desiredReplicas, minReplicas);
      rescale = desiredReplicas !== currentReplicas;
    }

    if (rescale) {
      try {
        await this.updateScale(got.desc, ns, ref.name, scale, desiredReplicas, reference, client, signal);
      } catch (err) {
        this.recorder.eventf(hpa, "Warning", "FailedRescale", "New size: %d; reason: %s; error: %s", desiredReplicas, rescaleReason, errorText(err));
        setCondition(hpa, ABLE_TO_SCALE, "False", "FailedUpdateScale", `the HPA controller was unable to update the target scale: ${errorText(err)}`, now());
        this.setStatus(hpa, currentReplicas, hpa.status?.desiredReplicas ?? 0, metricStatuses, false);
        await this.updateStatusIfNeeded(original, hpa, client, signal).catch((e: unknown) => this.log.warn({ hpa: key, err: errorText(e) }, "status update failed"));
        throw new HPASyncError(`failed to rescale ${reference}: ${errorText(err)}`);
      }
      setCondition(hpa, ABLE_TO_SCALE, "True", "SucceededRescale", `the HPA controller was able to update the target scale to ${desiredReplicas}`, now());
      this.recorder.eventf(hpa, "Normal", "SuccessfulRescale", "New size: %d; reason: %s", desiredReplicas, rescaleReason);
      this.memory.storeScaleEvent(hpa.spec.behavior, key, currentReplicas, desiredReplicas, now());
      this.log.info({ hpa: key, currentReplicas, desiredReplicas, reason: rescaleReason }, "Successfully rescaled");
      removeCondition(hpa, SCALED_TO_ZERO);
      outcome.action = desiredReplicas > currentReplicas ? "scale_up" : "scale_down";
    } else {
      desiredReplicas = currentReplicas;
    }
    this.setStatus(hpa, currentReplicas, desiredReplicas, metricStatuses, rescale);
    await this.updateStatusIfNeeded(original, hpa, client, signal);
    if (partialError) throw new HPASyncError(errorText(partialError), isSpecError(partialError));
  }

  /** The scale update, retried on conflicts against a freshly read scale (retry.RetryOnConflict with DefaultRetry). */
  private async updateScale(desc: ReturnType<typeof defineResource>, ns: string, name: string, scale: Scale, replicas: number, reference: string, client: ResourceClientFactory, signal?: AbortSignal): Promise<void> {
    let current = scale;
    for (let attempt = 1; ; attempt++) {
      try {
        await client.resource(desc, ns).updateScale(name, { ...deepCopy(current), spec: { ...current.spec, replicas } }, { signal });
        return;
      } catch (err) {
        if (!isConflict(err) || attempt >= SCALE_UPDATE_ATTEMPTS) throw err;
        try {
          current = await client.resource(desc, ns).getScale(name, { signal });
        } catch (getErr) {
          this.log.warn({ err: errorText(getErr) }, `error getting latest scale for ${reference} during conflict retry`);
        }
      }
    }
  }

  /** normalizeDesiredReplicas: for HPAs without behavior. */
  private normalize(hpa: HorizontalPodAutoscaler, key: string, currentReplicas: number, prenormalized: number, minReplicas: number): number {
    const nowMs = this.clock.now();
    const stabilized = this.memory.stabilize(key, prenormalized, nowMs);
    if (stabilized !== prenormalized) setCondition(hpa, ABLE_TO_SCALE, "True", "ScaleDownStabilized", "recent recommendations were higher than current one, applying the highest recent recommendation", nowMs);
    else setCondition(hpa, ABLE_TO_SCALE, "True", "ReadyForNewScale", "recommended size matches current size", nowMs);
    const limited = convertDesiredReplicasWithRules(currentReplicas, stabilized, minReplicas, hpa.spec.maxReplicas);
    setCondition(hpa, SCALING_LIMITED, limited.replicas === stabilized ? "False" : "True", limited.reason, limited.message, nowMs);
    return limited.replicas;
  }

  /** normalizeDesiredReplicasWithBehaviors. */
  private normalizeWithBehaviors(hpa: HorizontalPodAutoscaler, key: string, currentReplicas: number, prenormalized: number, minReplicas: number): number {
    const nowMs = this.clock.now();
    const arg: NormalizationArg = {
      key,
      scaleUp: scaleUpRules(hpa.spec.behavior?.scaleUp),
      scaleDown: scaleDownRules(hpa.spec.behavior?.scaleDown, this.downscaleWindowMs),
      minReplicas,
      maxReplicas: hpa.spec.maxReplicas,
      currentReplicas,
      desiredReplicas: prenormalized,
    };
    const stabilized = this.memory.stabilizeWithBehaviors(arg, nowMs);
    if (stabilized.replicas !== prenormalized) setCondition(hpa, ABLE_TO_SCALE, "True", stabilized.reason, stabilized.message, nowMs);
    else setCondition(hpa, ABLE_TO_SCALE, "True", "ReadyForNewScale", "recommended size matches current size", nowMs);
    const limited = this.memory.convertWithBehaviorRate({ ...arg, desiredReplicas: stabilized.replicas }, nowMs);
    setCondition(hpa, SCALING_LIMITED, limited.replicas === stabilized.replicas ? "False" : "True", limited.reason, limited.message, nowMs);
    return limited.replicas;
  }

  /**
   * computeReplicasForMetrics: the largest proposal of the valid metrics. All invalid — or some
   * invalid while the valid ones would scale down — is an error (replicas -1) with the first
   * invalid metric's condition.
   */
  async computeReplicasForMetrics(hpa: HorizontalPodAutoscaler, scale: Scale, specs: readonly MetricSpec[], signal?: AbortSignal): Promise<{ replicas: number; metric: string; statuses: MetricStatus[]; timestampMs: number; error?: Error }> {
    let selector: string;
    try {
      selector = this.validateAndParseSelector(hpa, scale.status?.selector ?? "");
    } catch (err) {
      return { replicas: -1, metric: "", statuses: [], timestampMs: 0, error: err instanceof Error ? err : new Error(String(err)) };
    }
    const nowMs = this.clock.now();
    const specReplicas = scale.spec?.replicas ?? 0;
    const statusReplicas = scale.status?.replicas ?? 0;
    // Upstream allocates one (empty until computed) status per metric.
    const statuses: MetricStatus[] = specs.map(() => ({ type: "" }));
    let replicas = 0;
    let metric = "";
    let timestampMs = 0;
    let invalid = 0;
    let firstError: MetricError | undefined;
    for (const [i, spec] of specs.entries()) {
      try {
        const p = await this.computeReplicasForMetric(hpa, spec, specReplicas, statusReplicas, selector, signal);
        statuses[i] = p.status;
        if (replicas === 0 || p.replicas > replicas) {
          replicas = p.replicas;
          metric = p.metric;
          timestampMs = p.timestampMs;
        }
      } catch (err) {
        const me = err instanceof MetricError ? err : new MetricError(errorText(err), "FailedGetMetric", `the HPA was unable to compute the replica count: ${errorText(err)}`);
        if (invalid === 0) firstError = me;
        invalid++;
      }
    }
    const error = firstError ? new MetricError(`invalid metrics (${invalid} invalid out of ${specs.length}), first error is: ${firstError.message}`, firstError.reason, firstError.conditionMessage, firstError.spec) : undefined;
    if (invalid >= specs.length || (invalid > 0 && replicas < specReplicas)) {
      if (firstError) setCondition(hpa, SCALING_ACTIVE, "False", firstError.reason, firstError.conditionMessage, nowMs);
      return { replicas: -1, metric: "", statuses, timestampMs: 0, error: error ?? new Error("no metrics to compute the replica count from") };
    }
    setCondition(hpa, SCALING_ACTIVE, "True", "ValidMetricFound", `the HPA was able to successfully calculate a replica count from ${metric}`, nowMs);
    return { replicas, metric, statuses, timestampMs, ...(error ? { error } : {}) };
  }

  /**
   * validateAndParseSelector: the target's scale must have a selector, it must parse, and the pods
   * it selects must be selected by no other HPA (AmbiguousSelector). Sets ScalingActive False and
   * records a Warning event otherwise.
   */
  private validateAndParseSelector(hpa: HorizontalPodAutoscaler, selectorText: string): string {
    const nowMs = this.clock.now();
    if (selectorText === "") {
      const msg = "selector is required";
      this.recorder.event(hpa, "Warning", "SelectorRequired", msg);
      setCondition(hpa, SCALING_ACTIVE, "False", "InvalidSelector", "the HPA target's scale is missing a selector", nowMs);
      throw new Error(msg);
    }
    let parsed: Selector;
    try {
      parsed = parseSelector(selectorText);
    } catch (err) {
      const msg = `couldn't convert selector into a corresponding internal selector object: ${errorText(err)}`;
      this.recorder.event(hpa, "Warning", "InvalidSelector", msg);
      setCondition(hpa, SCALING_ACTIVE, "False", "InvalidSelector", msg, nowMs);
      throw new Error(msg);
    }
    const ns = hpa.metadata?.namespace ?? "";
    this.selectors.update(ns, hpa.metadata?.name ?? "", parsed);
    const pods = this.podLister.namespace(ns).list(parsed);
    const selecting = this.selectors.selecting(ns, pods);
    if (selecting.length > 1) {
      // selectors.Key prints as namespace/name; a Go slice as [a b].
      const msg = `pods by selector ${selectorText} are controlled by multiple HPAs: [${selecting.join(" ")}]`;
      this.recorder.event(hpa, "Warning", "AmbiguousSelector", msg);
      setCondition(hpa, SCALING_ACTIVE, "False", "AmbiguousSelector", msg, nowMs);
      throw new Error(msg);
    }
    return parsed.toString();
  }

  /** getUnableComputeReplicaCountCondition: a Warning event with the reason, and the ScalingActive False condition it proposes. */
  private unable(hpa: HorizontalPodAutoscaler, reason: string, err: unknown, wrapped: string, spec = false): MetricError {
    this.recorder.event(hpa, "Warning", reason, errorText(err));
    return new MetricError(wrapped, reason, `the HPA was unable to compute the replica count: ${errorText(err)}`, spec);
  }

  private metricSelector(hpa: HorizontalPodAutoscaler, sel: LabelSelector | undefined, reason: string, wrap: string): string {
    try {
      return labelSelectorAsSelector(sel ?? null).toString();
    } catch (err) {
      throw this.unable(hpa, reason, err, `${wrap}: ${errorText(err)}`);
    }
  }

  /** computeReplicasForMetric, counted in metric_computation_total by its action (against status.currentReplicas), error and type. */
  private async computeReplicasForMetric(hpa: HorizontalPodAutoscaler, spec: MetricSpec, specReplicas: number, statusReplicas: number, selector: string, signal?: AbortSignal): Promise<MetricProposal> {
    const start = this.clock.now();
    let action: ActionLabel = "none";
    let error: ErrorLabel = "none";
    try {
      const p = await this.metricProposal(hpa, spec, specReplicas, statusReplicas, selector, signal);
      const current = hpa.status?.currentReplicas ?? 0;
      if (p.replicas > current) action = "scale_up";
      else if (p.replicas < current) action = "scale_down";
      return p;
    } catch (err) {
      error = isSpecError(err) ? "spec" : "internal";
      throw err;
    } finally {
      const labels = { action, error, metric_type: spec.type };
      this.monitor.metricComputationTotal.inc(labels);
      this.monitor.metricComputationDuration.observe(labels, (this.clock.now() - start) / 1000);
    }
  }

  private async metricProposal(hpa: HorizontalPodAutoscaler, spec: MetricSpec, specReplicas: number, statusReplicas: number, selector: string, signal?: AbortSignal): Promise<MetricProposal> {
    const ns = hpa.metadata?.namespace ?? "";
    const tol = this.tolerances(hpa);
    switch (spec.type) {
      case "Resource": {
        const r = spec.resource;
        const name = r?.name ?? "";
        try {
          const p = await this.resourceProposal(specReplicas, r?.target, name, ns, "", selector, tol, signal);
          return { ...p, status: { type: "Resource", resource: { name, current: p.current } } };
        } catch (err) {
          throw this.unable(hpa, "FailedGetResourceMetric", err, `failed to get ${name} resource metric value: ${errorText(err)}`);
        }
      }
      case "ContainerResource": {
        const r = spec.containerResource;
        const name = r?.name ?? "";
        const container = r?.container ?? "";
        try {
          const p = await this.resourceProposal(specReplicas, r?.target, name, ns, container, selector, tol, signal);
          return { ...p, status: { type: "ContainerResource", containerResource: { name, container, current: p.current } } };
        } catch (err) {
          // Upstream names the container here, not the resource.
          throw this.unable(hpa, "FailedGetContainerResourceMetric", err, `failed to get ${container} container metric value: ${errorText(err)}`);
        }
      }
      case "Pods": {
        const m = spec.pods!;
        const wrap = "failed to get pods metric value";
        const metricSelector = this.metricSelector(hpa, m.metric.selector, "FailedGetPodsMetric", wrap);
        try {
          const target = quantityMilliValue(m.target.averageValue ?? "") ?? 0;
          const p = await this.calc.getMetricReplicas(specReplicas, target, m.metric.name, tol, ns, selector, metricSelector, signal);
          return {
            replicas: p.replicas,
            metric: `pods metric ${m.metric.name}`,
            timestampMs: p.timestampMs,
            status: { type: "Pods", pods: { metric: metricIdentifier(m.metric.name, m.metric.selector), current: { averageValue: milliQuantity(p.usage) } } },
          };
        } catch (err) {
          throw this.unable(hpa, "FailedGetPodsMetric", err, `${wrap}: ${errorText(err)}`);
        }
      }
      case "Object": {
        const m = spec.object!;
        const wrap = "failed to get object metric value";
        const metricSelector = this.metricSelector(hpa, m.metric.selector, "FailedGetObjectMetric", wrap);
        return this.objectProposal(hpa, specReplicas, statusReplicas, m.target, m.metric.name, m.describedObject, m.metric.selector, tol, ns, selector, metricSelector, signal);
      }
      case "External":
        return this.externalProposal(hpa, spec, specReplicas, statusReplicas, selector, tol, signal);
      default: {
        // The API server's validation filters unknown types out; this is a spec error.
        const err = new Error(`unknown metric source type ${JSON.stringify(spec.type)}`);
        throw this.unable(hpa, "InvalidMetricSourceType", err, err.message, true);
      }
    }
  }

  /** computeStatusForResourceMetricGeneric: AverageValue, else AverageUtilization. */
  private async resourceProposal(specReplicas: number, target: MetricTarget | undefined, name: string, ns: string, container: string, selector: string, tol: Tolerances, signal?: AbortSignal) {
    if (target?.averageValue !== undefined) {
      let p;
      try {
        p = await this.calc.getRawResourceReplicas(specReplicas, quantityMilliValue(target.averageValue) ?? 0, name, tol, ns, selector, container, signal);
      } catch (err) {
        throw new Error(`failed to get ${name} usage: ${errorText(err)}`);
      }
      return { replicas: p.replicas, metric: `${name} resource`, timestampMs: p.timestampMs, current: { averageValue: resourceQuantity(name, p.usage) } };
    }
    if (target?.averageUtilization === undefined) throw new Error("invalid resource metric source: neither an average utilization target nor an average value (usage) target was set");
    let p;
    try {
      p = await this.calc.getResourceReplicas(specReplicas, target.averageUtilization, name, tol, ns, selector, container, signal);
    } catch (err) {
      throw new Error(`failed to get ${name} utilization: ${errorText(err)}`);
    }
    return {
      replicas: p.replicas,
      metric: container ? `${name} container resource utilization (percentage of request)` : `${name} resource utilization (percentage of request)`,
      timestampMs: p.timestampMs,
      current: { averageUtilization: p.utilization, averageValue: resourceQuantity(name, p.rawUtilization) },
    };
  }

  /** computeStatusForObjectMetric: Value or AverageValue (the condition names the calculator's error; the sync error wraps it). */
  private async objectProposal(
    hpa: HorizontalPodAutoscaler,
    specReplicas: number,
    statusReplicas: number,
    target: MetricTarget,
    metricName: string,
    described: CrossVersionObjectReference,
    rawSelector: LabelSelector | undefined,
    tol: Tolerances,
    ns: string,
    selector: string,
    metricSelector: string,
    signal?: AbortSignal,
  ): Promise<MetricProposal> {
    const wrap = "failed to get object metric value";
    const metricId = metricIdentifier(metricName, rawSelector);
    if (target.type === "Value" && target.value !== undefined) {
      let p;
      try {
        p = await this.calc.getObjectMetricReplicas(specReplicas, quantityMilliValue(target.value) ?? 0, metricName, tol, ns, described, selector, metricSelector, signal);
      } catch (err) {
        throw this.unable(hpa, "FailedGetObjectMetric", err, `${wrap}: ${errorText(err)}`);
      }
      return { replicas: p.replicas, metric: `${described.kind} metric ${metricName}`, timestampMs: p.timestampMs, status: { type: "Object", object: { describedObject: described, metric: metricId, current: { value: milliQuantity(p.usage) } } } };
    }
    if (target.type === "AverageValue" && target.averageValue !== undefined) {
      let p;
      try {
        p = await this.calc.getObjectPerPodMetricReplicas(statusReplicas, quantityMilliValue(target.averageValue) ?? 0, metricName, tol, ns, described, metricSelector, signal);
      } catch (err) {
        throw this.unable(hpa, "FailedGetObjectMetric", err, `${wrap}: failed to get ${metricName} object metric: ${errorText(err)}`);
      }
      // Upstream describes this proposal as an external metric.
      return {
        replicas: p.replicas,
        metric: `external metric ${metricName}(${goLabelSelectorText(rawSelector)})`,
        timestampMs: p.timestampMs,
        status: { type: "Object", object: { describedObject: described, metric: metricId, current: { averageValue: milliQuantity(p.usage) } } },
      };
    }
    const err = new Error("invalid object metric source: neither a value target nor an average value target was set");
    throw this.unable(hpa, "FailedGetObjectMetric", err, `${wrap}: ${err.message}`);
  }

  /** computeStatusForExternalMetric: AverageValue (per pod, over status.replicas) or Value. */
  private async externalProposal(hpa: HorizontalPodAutoscaler, spec: MetricSpec, specReplicas: number, statusReplicas: number, selector: string, tol: Tolerances, signal?: AbortSignal): Promise<MetricProposal> {
    const m = spec.external!;
    const ns = hpa.metadata?.namespace ?? "";
    const wrap = `failed to get ${m.metric.name} external metric value`;
    const metricId = metricIdentifier(m.metric.name, m.metric.selector);
    const proposalName = `external metric ${m.metric.name}(${goLabelSelectorText(m.metric.selector)})`;
    if (m.target.averageValue !== undefined) {
      let p;
      try {
        p = await this.calc.getExternalPerPodMetricReplicas(statusReplicas, quantityMilliValue(m.target.averageValue) ?? 0, m.metric.name, tol, ns, m.metric.selector, signal);
      } catch (err) {
        throw this.unable(hpa, "FailedGetExternalMetric", err, `${wrap}: failed to get ${m.metric.name} external metric: ${errorText(err)}`);
      }
      return { replicas: p.replicas, metric: proposalName, timestampMs: p.timestampMs, status: { type: "External", external: { metric: metricId, current: { averageValue: milliQuantity(p.usage) } } } };
    }
    if (m.target.value !== undefined) {
      let p;
      try {
        p = await this.calc.getExternalMetricReplicas(specReplicas, quantityMilliValue(m.target.value) ?? 0, m.metric.name, tol, ns, m.metric.selector, selector, signal);
      } catch (err) {
        throw this.unable(hpa, "FailedGetExternalMetric", err, `${wrap}: failed to get external metric ${m.metric.name}: ${errorText(err)}`);
      }
      return { replicas: p.replicas, metric: proposalName, timestampMs: p.timestampMs, status: { type: "External", external: { metric: metricId, current: { value: milliQuantity(p.usage) } } } };
    }
    const err = new Error("invalid external metric source: neither a value target nor an average value target was set");
    throw this.unable(hpa, "FailedGetExternalMetric", err, `${wrap}: ${err.message}`);
  }
}

const metricIdentifier = (name: string, selector: LabelSelector | undefined) => ({ name, ...(selector ? { selector } : {}) });
