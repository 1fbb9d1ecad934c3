/**
 * The Disruption controller (upstream pkg/controller/disruption): keeps every
 * PodDisruptionBudget's status — expectedPods, desiredHealthy, currentHealthy, disruptionsAllowed,
 * observedGeneration, disruptedPods and the DisruptionAllowed condition — from the pods its
 * selector matches and, for a percentage or maxUnavailable, the scale of their controllers. The
 * eviction subresource (apiserver/core/eviction.ts) reads disruptionsAllowed and records evicted
 * pods under disruptedPods; this controller drops those entries once the pod is gone, being deleted,
 * or the entry is older than DELETION_TIMEOUT_MS, and requeues the budget for when one expires.
 *
 * A sync that fails (a controller of a pod not found, an invalid percentage) writes the fail-safe
 * status — no disruptions allowed, condition False with reason SyncFailed and the error — and is
 * retried. Writes only when the status differs.
 *
 * Composed with the builder — requests: one per PDB ("ns/name"):
 *   for(podDisruptionBudgets); watches(pods) → every PDB in the pod's namespace selecting it (before
 *   and after an update).
 */
import type { Pod } from "../../apimachinery/api/core/v1.js";
import type { PodDisruptionBudget, PodDisruptionBudgetStatus } from "../../apimachinery/api/policy/v1.js";
import type { Condition } from "../../apimachinery/api/meta/v1.js";
import { setStatusCondition } from "../../apimachinery/conditions.js";
import { deepCopy } from "../../apimachinery/deepcopy.js";
import { semanticEqual } from "../../apimachinery/equality.js";
import { isNotFound } from "../../apimachinery/errors.js";
import { getScaledValueFromIntOrPercent } from "../../apimachinery/intstr.js";
import { labelSelectorAsSelector } from "../../apimachinery/labels.js";
import { ObjectName } from "../../apimachinery/objectname.js";
import { formatTime, parseTime } from "../../apimachinery/time.js";
import type { ResourceClientFactory } from "../../client/interfaces.js";
import { builtin } from "../../client/typed.js";
import type { Lister } from "../../informers/lister.js";
import type { Controller } from "../../runtime/controller.js";
import type { RequestQueue } from "../../runtime/handler.js";
import type { Manager } from "../../runtime/manager.js";
import type { ReconcileResult } from "../../runtime/reconcile.js";
import type { Clock } from "../../apimachinery/clock.js";
import { isPodReady } from "../endpoints/subsets.js";
import { ScaleFinder } from "./scale.js";

export const DISRUPTION_CONTROLLER_NAME = "disruption-controller";
/** Upstream runs the disruption controller with one worker. */
export const DEFAULT_DISRUPTION_WORKERS = 1;
/** Upstream DeletionTimeout: a disruptedPods entry older than this is dropped (2 minutes). */
export const DELETION_TIMEOUT_MS = 2 * 60 * 1000;

export const DISRUPTION_ALLOWED_CONDITION = "DisruptionAllowed";
export const SUFFICIENT_PODS_REASON = "SufficientPods";
export const INSUFFICIENT_PODS_REASON = "InsufficientPods";
export const SYNC_FAILED_REASON = "SyncFailed";

export interface DisruptionControllerOptions {
  workers?: number;
}

export class DisruptionController {
  readonly controller: Controller;
  private readonly pdbs: Lister<PodDisruptionBudget>;
  private readonly pods: Lister<Pod>;
  private readonly scales: ScaleFinder;
  private readonly clock: Clock;
  private readonly recorder: ReturnType<Manager["eventRecorder"]>;

  constructor(mgr: Manager, opts: DisruptionControllerOptions = {}) {
    this.clock = mgr.clock;
    this.recorder = mgr.eventRecorder("controllermanager");
    this.pdbs = mgr.informers.forResource(builtin.podDisruptionBudgets).lister();
    this.pods = mgr.informers.forResource(builtin.pods).lister();
    this.scales = new ScaleFinder(mgr);
    this.controller = mgr
      .controller(DISRUPTION_CONTROLLER_NAME)
      .for(builtin.podDisruptionBudgets)
      .watches(builtin.pods, {
        create: (e, q) => this.enqueuePdbsOf(e.object, q),
        update: (e, q) => {
          this.enqueuePdbsOf(e.objectNew, q);
          this.enqueuePdbsOf(e.objectOld, q);
        },
        delete: (e, q) => this.enqueuePdbsOf(e.object, q),
      })
      .withOptions({ maxConcurrentReconciles: opts.workers ?? DEFAULT_DISRUPTION_WORKERS })
      .reconcile((req, ctx) => this.sync(req, ctx.client));
  }

  private enqueuePdbsOf(pod: Pod, q: RequestQueue): void {
    const ns = pod.metadata?.namespace ?? "";
    for (const pdb of this.pdbs.namespace(ns).list()) {
      let matches = false;
      try {
        matches = labelSelectorAsSelector(pdb.spec?.selector).matches(pod.metadata?.labels ?? {});
      } catch {
        // An invalid selector selects nothing.
      }
      if (matches) q.add(new ObjectName(ns, pdb.metadata?.name ?? ""));
    }
  }

  /** One PDB's status (upstream sync + trySync + failSafe). */
  async sync(key: ObjectName, client: ResourceClientFactory): Promise<ReconcileResult | void> {
    let pdb: PodDisruptionBudget;
    try {
      pdb = this.pdbs.namespace(key.namespace).get(key.name);
    } catch (err) {
      if (isNotFound(err)) return;
      throw err;
    }
    let recheck: number | undefined;
    try {
      recheck = await this.trySync(pdb, client);
    } catch (err) {
      await this.failSafe(pdb, client, err instanceof Error ? err.message : String(err));
      throw err;
    }
    if (recheck !== undefined) return { requeueAfterMs: Math.max(0, recheck - this.clock.now()) };
  }

  private async trySync(pdb: PodDisruptionBudget, client: ResourceClientFactory): Promise<number | undefined> {
    const pods = this.pods.namespace(pdb.metadata?.namespace ?? "").list(labelSelectorAsSelector(pdb.spec?.selector));
    if (pods.length === 0) this.recorder.event(pdb, "Normal", "NoPods", "No matching pods found");
    const { expectedCount, desiredHealthy, unmanagedPods } = this.expectedPodCount(pdb, pods);
    if (unmanagedPods.length > 0) {
      this.recorder.event(pdb, "Normal", "UnmanagedPods", `Pods selected by this PodDisruptionBudget (selector: ${JSON.stringify(pdb.spec?.selector ?? {})}) were found to be unmanaged. As a result, the status of the PDB cannot be calculated correctly, which may result in undefined behavior. To account for these pods please set ".spec.minAvailable" field of the PDB to an integer value.`);
    }
    const now = this.clock.now();
    const { disrupted, recheck } = buildDisruptedPodMap(pods, pdb, now);
    const currentHealthy = countHealthyPods(pods, disrupted, now);
    await this.updateStatus(pdb, client, { currentHealthy, desiredHealthy, expectedCount, disrupted });
    return recheck;
  }

  /** getExpectedPodCount: expected pods and the healthy floor from minAvailable or maxUnavailable. */
  expectedPodCount(pdb: PodDisruptionBudget, pods: readonly Pod[]): { expectedCount: number; desiredHealthy: number; unmanagedPods: string[] } {
    const spec = pdb.spec ?? {};
    if (spec.maxUnavailable !== undefined && spec.maxUnavailable !== null) {
      const { scale, unmanagedPods } = this.scales.expectedScale(pdb, pods);
      const maxUnavailable = getScaledValueFromIntOrPercent(spec.maxUnavailable, scale, true);
      return { expectedCount: scale, desiredHealthy: Math.max(0, scale - maxUnavailable), unmanagedPods };
    }
    if (spec.minAvailable !== undefined && spec.minAvailable !== null) {
      if (typeof spec.minAvailable === "number") return { expectedCount: pods.length, desiredHealthy: spec.minAvailable, unmanagedPods: [] };
      const { scale, unmanagedPods } = this.scales.expectedScale(pdb, pods);
      return { expectedCount: scale, desiredHealthy: getScaledValueFromIntOrPercent(spec.minAvailable, scale, true), unmanagedPods };
    }
    return { expectedCount: pods.length, desiredHealthy: 0, unmanagedPods: [] };
  }

  private async updateStatus(
    pdb: PodDisruptionBudget,
    client: ResourceClientFactory,
    s: { currentHealthy: number; desiredHealthy: number; expectedCount: number; disrupted: Record<string, string> },
  ): Promise<void> {
    let disruptionsAllowed = s.currentHealthy - s.desiredHealthy;
    if (s.expectedCount <= 0 || disruptionsAllowed <= 0) disruptionsAllowed = 0;
    const old = pdb.status;
    const generation = pdb.metadata?.generation ?? 0;
    const conditionOK = (old?.conditions ?? []).some(
      (c) => c.type === DISRUPTION_ALLOWED_CONDITION && c.status === (disruptionsAllowed > 0 ? "True" : "False") && c.reason === (disruptionsAllowed > 0 ? SUFFICIENT_PODS_REASON : INSUFFICIENT_PODS_REASON),
    );
    if (
      old &&
      old.currentHealthy === s.currentHealthy &&
      old.desiredHealthy === s.desiredHealthy &&
      old.expectedPods === s.expectedCount &&
      old.disruptionsAllowed === disruptionsAllowed &&
      semanticEqual(old.disruptedPods ?? {}, s.disrupted) &&
      old.observedGeneration === generation &&
      conditionOK
    ) {
      return;
    }
    const next = deepCopy(pdb);
    const status: PodDisruptionBudgetStatus = {
      ...(next.status ?? { currentHealthy: 0, desiredHealthy: 0, disruptionsAllowed: 0, expectedPods: 0 }),
      currentHealthy: s.currentHealthy,
      desiredHealthy: s.desiredHealthy,
      expectedPods: s.expectedCount,
      disruptionsAllowed,
      observedGeneration: generation,
    };
    if (Object.keys(s.disrupted).length > 0) status.disruptedPods = s.disrupted;
    else delete status.disruptedPods;
    const conditions: Condition[] = [...(status.conditions ?? [])];
    setStatusCondition(
      conditions,
      disruptionsAllowed > 0
        ? { type: DISRUPTION_ALLOWED_CONDITION, status: "True", reason: SUFFICIENT_PODS_REASON, message: "", observedGeneration: generation, lastTransitionTime: "" }
        : { type: DISRUPTION_ALLOWED_CONDITION, status: "False", reason: INSUFFICIENT_PODS_REASON, message: "", observedGeneration: generation, lastTransitionTime: "" },
      this.clock.now(),
    );
    status.conditions = conditions;
    next.status = status;
    await client.resource(builtin.podDisruptionBudgets, pdb.metadata?.namespace).updateStatus(next);
  }

  /** failSafe: no disruptions allowed, condition SyncFailed with the error. */
  private async failSafe(pdb: PodDisruptionBudget, client: ResourceClientFactory, message: string): Promise<void> {
    const next = deepCopy(pdb);
    const generation = pdb.metadata?.generation ?? 0;
    const status: PodDisruptionBudgetStatus = { ...(next.status ?? { currentHealthy: 0, desiredHealthy: 0, disruptionsAllowed: 0, expectedPods: 0 }), disruptionsAllowed: 0, observedGeneration: generation };
    const conditions: Condition[] = [...(status.conditions ?? [])];
    setStatusCondition(conditions, { type: DISRUPTION_ALLOWED_CONDITION, status: "False", reason: SYNC_FAILED_REASON, message, observedGeneration: generation, lastTransitionTime: "" }, this.clock.now());
    status.conditions = conditions;
    next.status = status;
    if (semanticEqual(next.status, pdb.status)) return;
    await client.resource(builtin.podDisruptionBudgets, pdb.metadata?.namespace).updateStatus(next);
  }
}

/**
 * buildDisruptedPodMap: the disruptedPods entries still pending — the pod exists, is not being
 * deleted, and the entry is younger than DELETION_TIMEOUT_MS — and when the oldest of them expires.
 */
export function buildDisruptedPodMap(pods: readonly Pod[], pdb: PodDisruptionBudget, now: number): { disrupted: Record<string, string>; recheck?: number } {
  const entries = pdb.status?.disruptedPods ?? {};
  const disrupted: Record<string, string> = {};
  let recheck: number | undefined;
  for (const pod of pods) {
    const name = pod.metadata?.name ?? "";
    if (pod.metadata?.deletionTimestamp) continue;
    const at = parseTime(entries[name]);
    if (at === undefined) continue;
    const expires = at + DELETION_TIMEOUT_MS;
    if (expires < now) continue; // the eviction did not happen: the entry lapses
    disrupted[name] = formatTime(at);
    if (recheck === undefined || expires < recheck) recheck = expires;
  }
  return recheck === undefined ? { disrupted } : { disrupted, recheck };
}

/** countHealthyPods: ready pods that are neither being deleted nor pending a disruption. */
export function countHealthyPods(pods: readonly Pod[], disrupted: Readonly<Record<string, string>>, now: number): number {
  let n = 0;
  for (const pod of pods) {
    if (pod.metadata?.deletionTimestamp) continue;
    const at = parseTime(disrupted[pod.metadata?.name ?? ""]);
    if (at !== undefined && at + DELETION_TIMEOUT_MS > now) continue;
    if (isPodReady(pod)) n++;
  }
  return n;
}

