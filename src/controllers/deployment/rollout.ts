/**
 * Rollout arithmetic (deployment/util): how far a rolling update may surge above and dip below
 * the desired replica count, how a scaling event is shared among ReplicaSets, and when a rollout
 * is complete, progressing or timed out. Pure functions on apps/v1 objects.
 */
import type { Deployment, DeploymentStatus, ReplicaSet } from "../../apimachinery/api/apps/v1.js";
import { atoi, getScaledValueFromIntOrPercent, IntOrStringError, valueOrDefault } from "../../apimachinery/intstr.js";
import type { IntOrString } from "../../apimachinery/types.js";
import { getMaxReplicasAnnotation } from "./annotations.js";
import { getDeploymentCondition } from "./conditions.js";
import {
  DEPLOYMENT_PROGRESSING,
  DESIRED_REPLICAS_ANNOTATION,
  INT32_MAX,
  NEW_RS_AVAILABLE_REASON,
  RECREATE_STRATEGY,
  ROLLING_UPDATE_STRATEGY,
  TIMED_OUT_REASON,
} from "./constants.js";
import { getReplicaCountForReplicaSets, replicasOf } from "./replicasets.js";

/** Whether the strategy is RollingUpdate (IsRollingUpdate). */
export function isRollingUpdate(deployment: Deployment): boolean {
  return deployment.spec?.strategy?.type === ROLLING_UPDATE_STRATEGY;
}

function scaled(v: IntOrString | undefined | null, total: number, roundUp: boolean): number {
  const n = getScaledValueFromIntOrPercent(valueOrDefault(v, 0), total, roundUp);
  if (!Number.isFinite(n) || n > INT32_MAX || n < -INT32_MAX - 1) {
    throw new IntOrStringError(`invalid value for IntOrString: ${JSON.stringify(v)} of ${total} is ${n}, which overflows int32`);
  }
  return n;
}

/**
 * maxSurge and maxUnavailable resolved against `desired` in one step (ResolveFenceposts): surge
 * rounds up, unavailable rounds down, absent means 0, and when both come to 0 unavailable
 * becomes 1 (surge might be blocked by quota). Returns `[surge, unavailable]`; throws
 * IntOrStringError for a string that is not a percentage or a value beyond int32.
 */
export function resolveFenceposts(
  maxSurgeValue: IntOrString | undefined | null,
  maxUnavailableValue: IntOrString | undefined | null,
  desired: number,
): [number, number] {
  const surge = scaled(maxSurgeValue, desired, true);
  let unavailable = scaled(maxUnavailableValue, desired, false);
  if (surge === 0 && unavailable === 0) unavailable = 1;
  return [surge, unavailable];
}

/** The most pods a rolling update may have unavailable, at most spec.replicas; 0 otherwise or on bad input. */
export function maxUnavailable(deployment: Deployment): number {
  const replicas = replicasOf(deployment);
  if (!isRollingUpdate(deployment) || replicas === 0) return 0;
  let unavailable: number;
  try {
    const ru = deployment.spec?.strategy?.rollingUpdate;
    unavailable = resolveFenceposts(ru?.maxSurge, ru?.maxUnavailable, replicas)[1];
  } catch {
    return 0; // upstream: "Error caught by validation"
  }
  return Math.min(unavailable, replicas);
}

/** The least pods a rolling update keeps available (MinAvailable); 0 for other strategies. */
export function minAvailable(deployment: Deployment): number {
  if (!isRollingUpdate(deployment)) return 0;
  return replicasOf(deployment) - maxUnavailable(deployment);
}

/** The most pods a rolling update may run above spec.replicas; 0 otherwise or on bad input. */
export function maxSurge(deployment: Deployment): number {
  if (!isRollingUpdate(deployment)) return 0;
  try {
    const ru = deployment.spec?.strategy?.rollingUpdate;
    return resolveFenceposts(ru?.maxSurge, ru?.maxUnavailable, replicasOf(deployment))[0];
  } catch {
    return 0;
  }
}

/** Go's math.Round (halves away from zero), to an integer. */
function goRound(x: number): number {
  return x < 0 ? -Math.round(-x) : Math.round(x);
}

/**
 * The share of a scaling event this ReplicaSet would get on its own (getReplicaSetFraction): its
 * size scaled by (spec.replicas + maxSurge) / its max-replicas annotation (or the Deployment's
 * status.replicas without one, or with one of 0, as upstream since 1.36), minus its size. Scaling
 * to zero gives minus its whole size.
 */
export function getReplicaSetFraction(rs: ReplicaSet, d: Deployment): number {
  const size = replicasOf(rs);
  if (replicasOf(d) === 0) return -size;
  const deploymentReplicas = replicasOf(d) + maxSurge(d);
  const [fromAnnotation, ok] = getMaxReplicasAnnotation(rs);
  const annotated = ok && fromAnnotation !== 0 ? fromAnnotation : (d.status?.replicas ?? 0);
  // Upstream assumes this is never zero (no proportional scaling up from zero); do not divide by it.
  if (annotated <= 0) return 0;
  return goRound((size * deploymentReplicas) / annotated) - size;
}

/**
 * How many replicas to add to (or, negative, remove from) this ReplicaSet in a proportional
 * scaling event (GetReplicaSetProportion): its fraction, bounded by what is left to distribute.
 */
export function getReplicaSetProportion(
  rs: ReplicaSet | undefined,
  d: Deployment,
  deploymentReplicasToAdd: number,
  deploymentReplicasAdded: number,
): number {
  if (!rs || replicasOf(rs) === 0 || deploymentReplicasToAdd === 0 || deploymentReplicasToAdd === deploymentReplicasAdded) return 0;
  const fraction = getReplicaSetFraction(rs, d);
  const allowed = deploymentReplicasToAdd - deploymentReplicasAdded;
  return deploymentReplicasToAdd > 0 ? Math.min(fraction, allowed) : Math.max(fraction, allowed);
}

/**
 * The size the new ReplicaSet should have now (NewRSNewReplicas): for RollingUpdate, as far up as
 * maxSurge allows without passing spec.replicas; for Recreate, spec.replicas. Throws for another
 * strategy type or an unresolvable maxSurge.
 */
export function newRSNewReplicas(deployment: Deployment, allRSs: readonly (ReplicaSet | undefined)[], newRS: ReplicaSet): number {
  const type = deployment.spec?.strategy?.type;
  const replicas = replicasOf(deployment);
  switch (type) {
    case ROLLING_UPDATE_STRATEGY: {
      const surge = getScaledValueFromIntOrPercent(deployment.spec?.strategy?.rollingUpdate?.maxSurge, replicas, true);
      const currentPodCount = getReplicaCountForReplicaSets(allRSs);
      const maxTotalPods = replicas + surge;
      if (currentPodCount >= maxTotalPods) return replicasOf(newRS);
      const scaleUpCount = Math.min(maxTotalPods - currentPodCount, replicas - replicasOf(newRS));
      return replicasOf(newRS) + scaleUpCount;
    }
    case RECREATE_STRATEGY:
      return replicas;
    default:
      throw new Error(`deployment type ${type ?? ""} isn't supported`);
  }
}

/**
 * Whether the new ReplicaSet holds the whole Deployment (IsSaturated): spec.replicas, the
 * desired-replicas annotation and available replicas all equal the Deployment's spec.replicas.
 */
export function isSaturated(deployment: Deployment, rs: ReplicaSet | undefined): boolean {
  if (!rs) return false;
  const v = rs.metadata?.annotations?.[DESIRED_REPLICAS_ANNOTATION];
  if (v === undefined) return false;
  const desired = atoi(v);
  if (typeof desired !== "number") return false;
  const replicas = replicasOf(deployment);
  return replicasOf(rs) === replicas && desired === replicas && (rs.status?.availableReplicas ?? 0) === replicas;
}

/**
 * Whether the rollout is done (DeploymentComplete): every desired replica updated and available,
 * no old replica left, and the status observed the current generation.
 */
export function deploymentComplete(deployment: Deployment, newStatus: DeploymentStatus): boolean {
  const replicas = replicasOf(deployment);
  return (
    (newStatus.updatedReplicas ?? 0) === replicas &&
    (newStatus.replicas ?? 0) === replicas &&
    (newStatus.availableReplicas ?? 0) === replicas &&
    (newStatus.observedGeneration ?? 0) >= (deployment.metadata?.generation ?? 0)
  );
}

/**
 * Whether `newStatus` shows progress over the Deployment's current status (DeploymentProgressing):
 * more updated, ready or available replicas, or fewer old ones.
 */
export function deploymentProgressing(deployment: Deployment, newStatus: DeploymentStatus): boolean {
  const old = deployment.status ?? {};
  const oldOld = (old.replicas ?? 0) - (old.updatedReplicas ?? 0);
  const newOld = (newStatus.replicas ?? 0) - (newStatus.updatedReplicas ?? 0);
  return (
    (newStatus.updatedReplicas ?? 0) > (old.updatedReplicas ?? 0) ||
    newOld < oldOld ||
    (newStatus.readyReplicas ?? 0) > (old.readyReplicas ?? 0) ||
    (newStatus.availableReplicas ?? 0) > (old.availableReplicas ?? 0)
  );
}

/** Whether the Deployment has a progress deadline (set and not math.MaxInt32). */
export function hasProgressDeadline(d: Deployment): boolean {
  const pds = d.spec?.progressDeadlineSeconds;
  return pds !== undefined && pds !== null && pds !== INT32_MAX;
}

/** Whether old ReplicaSets are cleaned up (revisionHistoryLimit set and not math.MaxInt32). */
export function hasRevisionHistoryLimit(d: Deployment): boolean {
  const l = d.spec?.revisionHistoryLimit;
  return l !== undefined && l !== null && l !== INT32_MAX;
}

/**
 * The instant (ms) the Progressing condition in `status` stops being fresh: its lastUpdateTime
 * plus progressDeadlineSeconds. Undefined without a deadline or condition.
 */
export function progressDeadline(deployment: Deployment, status: DeploymentStatus | undefined): number | undefined {
  if (!hasProgressDeadline(deployment)) return undefined;
  const cond = getDeploymentCondition(status, DEPLOYMENT_PROGRESSING);
  if (!cond) return undefined;
  const from = cond.lastUpdateTime ? Date.parse(cond.lastUpdateTime) : 0;
  return (Number.isNaN(from) ? 0 : from) + (deployment.spec!.progressDeadlineSeconds as number) * 1000;
}

/**
 * Whether the rollout has made no progress for progressDeadlineSeconds at `now` (ms)
 * (DeploymentTimedOut): only strictly after lastUpdateTime + progressDeadlineSeconds, as
 * upstream's `from.Add(delta).Before(now)` (requeueStuckDeployment looks one second after the
 * deadline). A completed rollout never times out; a TimedOut condition stays timed out.
 */
export function deploymentTimedOut(deployment: Deployment, newStatus: DeploymentStatus, now: number): boolean {
  if (!hasProgressDeadline(deployment)) return false;
  const cond = getDeploymentCondition(newStatus, DEPLOYMENT_PROGRESSING);
  if (!cond) return false;
  if (cond.reason === NEW_RS_AVAILABLE_REASON) return false;
  if (cond.reason === TIMED_OUT_REASON) return true;
  return (progressDeadline(deployment, newStatus) as number) < now;
}
