/**
 * Rollout progress (upstream progress.go): the Progressing condition — NewReplicaSetAvailable when
 * complete, ReplicaSetUpdated while pods move, ProgressDeadlineExceeded once nothing moved for
 * progressDeadlineSeconds — ReplicaFailure surfaced from the ReplicaSets, and the requeue that
 * makes the deadline observable without a resync.
 */
import type { Deployment, DeploymentCondition, DeploymentStatus, ReplicaSet } from "../../apimachinery/api/apps/v1.js";
import { getDeploymentCondition, newDeploymentCondition, removeDeploymentCondition, replicaSetToDeploymentCondition, setDeploymentCondition } from "./conditions.js";
import {
  DEPLOYMENT_PROGRESSING,
  DEPLOYMENT_REPLICA_FAILURE,
  NEW_RS_AVAILABLE_REASON,
  REPLICA_SET_REPLICA_FAILURE,
  REPLICA_SET_UPDATED_REASON,
  TIMED_OUT_REASON,
} from "./constants.js";
import { keyOf, updateDeploymentStatus, type SyncContext } from "./context.js";
import { deploymentComplete, deploymentProgressing, deploymentTimedOut, hasProgressDeadline, progressDeadline } from "./rollout.js";
import { calculateStatus, compactStatus, statusEqual } from "./status.js";

/**
 * Computes the status with progress conditions and writes it when it changed
 * (syncRolloutStatus); when nothing changed, schedules the progress-deadline check.
 */
export async function syncRolloutStatus(
  ctx: SyncContext,
  allRSs: readonly (ReplicaSet | undefined)[],
  newRS: ReplicaSet | undefined,
  d: Deployment,
): Promise<void> {
  const now = ctx.clock.now();
  const newStatus = calculateStatus(allRSs, newRS, d, now);
  if (!hasProgressDeadline(d)) removeDeploymentCondition(newStatus, DEPLOYMENT_PROGRESSING);

  const currentCond = getDeploymentCondition(d.status, DEPLOYMENT_PROGRESSING);
  const isCompleteDeployment =
    (newStatus.replicas ?? 0) === (newStatus.updatedReplicas ?? 0) && currentCond?.reason === NEW_RS_AVAILABLE_REASON;
  if (hasProgressDeadline(d) && !isCompleteDeployment) {
    const name = d.metadata?.name ?? "";
    const rsName = newRS?.metadata?.name;
    if (deploymentComplete(d, newStatus)) {
      const msg = rsName !== undefined ? `ReplicaSet "${rsName}" has successfully progressed.` : `Deployment "${name}" has successfully progressed.`;
      setDeploymentCondition(newStatus, newDeploymentCondition(DEPLOYMENT_PROGRESSING, "True", NEW_RS_AVAILABLE_REASON, msg, now));
    } else if (deploymentProgressing(d, newStatus)) {
      const msg = rsName !== undefined ? `ReplicaSet "${rsName}" is progressing.` : `Deployment "${name}" is progressing.`;
      const condition = newDeploymentCondition(DEPLOYMENT_PROGRESSING, "True", REPLICA_SET_UPDATED_REASON, msg, now);
      // Progress refreshes lastUpdateTime even with the same reason: set it by hand, keeping
      // lastTransitionTime while the condition stays True.
      if (currentCond) {
        if (currentCond.status === "True") condition.lastTransitionTime = currentCond.lastTransitionTime;
        removeDeploymentCondition(newStatus, DEPLOYMENT_PROGRESSING);
      }
      setDeploymentCondition(newStatus, condition);
    } else if (deploymentTimedOut(d, newStatus, now)) {
      const msg = rsName !== undefined ? `ReplicaSet "${rsName}" has timed out progressing.` : `Deployment "${name}" has timed out progressing.`;
      setDeploymentCondition(newStatus, newDeploymentCondition(DEPLOYMENT_PROGRESSING, "False", TIMED_OUT_REASON, msg, now));
    }
  }

  const failures = getReplicaFailures(allRSs, newRS);
  if (failures.length > 0) setDeploymentCondition(newStatus, failures[0]);
  else removeDeploymentCondition(newStatus, DEPLOYMENT_REPLICA_FAILURE);

  if (statusEqual(d.status, newStatus)) {
    requeueStuckDeployment(ctx, d, newStatus);
    return;
  }
  d.status = compactStatus(newStatus);
  await updateDeploymentStatus(ctx, d);
}

/**
 * ReplicaFailure conditions of the ReplicaSets as Deployment conditions (getReplicaFailures):
 * the new ReplicaSet's if it has any, otherwise every ReplicaSet's.
 */
export function getReplicaFailures(allRSs: readonly (ReplicaSet | undefined)[], newRS: ReplicaSet | undefined): DeploymentCondition[] {
  const out: DeploymentCondition[] = [];
  for (const c of newRS?.status?.conditions ?? []) {
    if (c.type === REPLICA_SET_REPLICA_FAILURE) out.push(replicaSetToDeploymentCondition(c));
  }
  if (out.length > 0) return out;
  for (const rs of allRSs) {
    for (const c of rs?.status?.conditions ?? []) {
      if (c.type === REPLICA_SET_REPLICA_FAILURE) out.push(replicaSetToDeploymentCondition(c));
    }
  }
  return out;
}

/**
 * Schedules the progress check of a rollout that shows no progress (requeueStuckDeployment):
 * returns the milliseconds until its progress deadline and asks for a requeue one second after it
 * (the deadline is exceeded only strictly after; the second absorbs clock skew, as upstream's);
 * 0 when less than a second is left (a rate-limited requeue now); -1 when no check is needed (no
 * deadline, no Progressing condition, complete, or already timed out).
 */
export function requeueStuckDeployment(ctx: SyncContext, d: Deployment, newStatus: DeploymentStatus): number {
  const currentCond = getDeploymentCondition(d.status, DEPLOYMENT_PROGRESSING);
  if (!hasProgressDeadline(d) || !currentCond) return -1;
  if (deploymentComplete(d, newStatus) || currentCond.reason === TIMED_OUT_REASON) return -1;
  const after = (progressDeadline(d, d.status) as number) - ctx.clock.now();
  if (after < 1000) {
    ctx.logger.debug({ deployment: keyOf(d) }, "Queueing up deployment for a progress check now");
    ctx.result.requeue = true;
    return 0;
  }
  ctx.logger.debug({ deployment: keyOf(d), queueAfter: Math.trunc(after / 1000) }, "Queueing up deployment for a progress check");
  ctx.result.requeueAfterMs = after + 1000;
  return after;
}
