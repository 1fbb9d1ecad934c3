/**
 * The RollingUpdate strategy (upstream rolling.go): scale the new ReplicaSet up within maxSurge,
 * then scale old ones down within maxUnavailable — unhealthy replicas first — and write status.
 * One step per sync; every ReplicaSet change brings a new sync through the informers.
 */
import type { Deployment, ReplicaSet } from "../../apimachinery/api/apps/v1.js";
import type { SyncContext } from "./context.js";
import { keyOf } from "./context.js";
import { filterActiveReplicaSets, getAvailableReplicaCountForReplicaSets, getReplicaCountForReplicaSets, replicasOf } from "./replicasets.js";
import { deploymentComplete, maxUnavailable, newRSNewReplicas } from "./rollout.js";
import { syncRolloutStatus } from "./progress.js";
import { cleanupDeployment, getAllReplicaSetsAndSyncRevision, oldestFirst, scaleReplicaSetAndRecordEvent } from "./sync.js";

/** One step of a rolling update (rolloutRolling). */
export async function rolloutRolling(ctx: SyncContext, d: Deployment, rsList: readonly ReplicaSet[]): Promise<void> {
  const [newRS, oldRSs] = await getAllReplicaSetsAndSyncRevision(ctx, d, rsList, true);
  const rs = newRS as ReplicaSet; // created when missing
  const allRSs = [...oldRSs, rs];

  if (await reconcileNewReplicaSet(ctx, allRSs, rs, d)) {
    await syncRolloutStatus(ctx, allRSs, rs, d);
    return;
  }
  if (await reconcileOldReplicaSets(ctx, allRSs, filterActiveReplicaSets(oldRSs), rs, d)) {
    await syncRolloutStatus(ctx, allRSs, rs, d);
    return;
  }
  if (deploymentComplete(d, d.status ?? {})) await cleanupDeployment(ctx, oldRSs, d);
  await syncRolloutStatus(ctx, allRSs, rs, d);
}

/**
 * Brings the new ReplicaSet toward spec.replicas (reconcileNewReplicaSet): down at once when it is
 * above, up as far as maxSurge allows when below. Whether it scaled.
 */
export async function reconcileNewReplicaSet(ctx: SyncContext, allRSs: readonly ReplicaSet[], newRS: ReplicaSet, deployment: Deployment): Promise<boolean> {
  const want = replicasOf(deployment);
  if (replicasOf(newRS) === want) return false;
  if (replicasOf(newRS) > want) {
    const [scaled] = await scaleReplicaSetAndRecordEvent(ctx, newRS, want, deployment);
    return scaled;
  }
  const newReplicasCount = newRSNewReplicas(deployment, allRSs, newRS);
  const [scaled] = await scaleReplicaSetAndRecordEvent(ctx, newRS, newReplicasCount, deployment);
  return scaled;
}

/**
 * Scales old ReplicaSets down as far as availability allows (reconcileOldReplicaSets):
 *
 *   maxScaledDown = allPods - (spec.replicas - maxUnavailable) - (new RS's unavailable pods)
 *
 * Unhealthy old replicas go first (they do not reduce availability), then healthy ones within
 * maxUnavailable. Counting the new ReplicaSet's unavailable pods keeps a crash-looping new
 * template from draining the old, working pods. Whether anything was scaled down.
 */
export async function reconcileOldReplicaSets(
  ctx: SyncContext,
  allRSs: readonly ReplicaSet[],
  oldRSs: readonly ReplicaSet[],
  newRS: ReplicaSet,
  deployment: Deployment,
): Promise<boolean> {
  const oldPodsCount = getReplicaCountForReplicaSets(oldRSs);
  if (oldPodsCount === 0) return false;
  const allPodsCount = getReplicaCountForReplicaSets(allRSs);
  const minAvailable = replicasOf(deployment) - maxUnavailable(deployment);
  const newRSUnavailablePodCount = replicasOf(newRS) - (newRS.status?.availableReplicas ?? 0);
  const maxScaledDown = allPodsCount - minAvailable - newRSUnavailablePodCount;
  if (maxScaledDown <= 0) return false;

  // Upstream swallows errors of both steps here (returns false, nil); kept as is.
  let cleaned: ReplicaSet[];
  let cleanupCount: number;
  try {
    [cleaned, cleanupCount] = await cleanupUnhealthyReplicas(ctx, oldRSs, deployment, maxScaledDown);
  } catch (err) {
    ctx.logger.debug({ deployment: keyOf(deployment), err: String(err) }, "Cleaning up unhealthy replicas failed");
    return false;
  }
  ctx.logger.debug({ deployment: keyOf(deployment), count: cleanupCount }, "Cleaned up unhealthy replicas from old RSes");

  let scaledDownCount: number;
  try {
    scaledDownCount = await scaleDownOldReplicaSetsForRollingUpdate(ctx, [...cleaned, newRS], cleaned, deployment);
  } catch (err) {
    ctx.logger.debug({ deployment: keyOf(deployment), err: String(err) }, "Scaling down old RSes failed");
    return false;
  }
  ctx.logger.debug({ deployment: keyOf(deployment), count: scaledDownCount }, "Scaled down old RSes");
  return cleanupCount + scaledDownCount > 0;
}

/**
 * Scales old ReplicaSets down by their unavailable replicas, oldest first, at most
 * `maxCleanupCount` in all (cleanupUnhealthyReplicas). `[oldRSs as updated, count]`.
 */
export async function cleanupUnhealthyReplicas(
  ctx: SyncContext,
  oldRSs: readonly ReplicaSet[],
  deployment: Deployment,
  maxCleanupCount: number,
): Promise<[ReplicaSet[], number]> {
  const sorted = oldestFirst(oldRSs);
  let totalScaledDown = 0;
  for (let i = 0; i < sorted.length; i++) {
    const target = sorted[i];
    if (totalScaledDown >= maxCleanupCount) break;
    const size = replicasOf(target);
    if (size === 0) continue;
    const available = target.status?.availableReplicas ?? 0;
    if (size === available) continue;
    const scaledDownCount = Math.min(maxCleanupCount - totalScaledDown, size - available);
    const newReplicasCount = size - scaledDownCount;
    if (newReplicasCount > size) {
      throw new Error(
        `when cleaning up unhealthy replicas, got invalid request to scale down ${keyOf(target)} ${size} -> ${newReplicasCount}`,
      );
    }
    const [, updated] = await scaleReplicaSetAndRecordEvent(ctx, target, newReplicasCount, deployment);
    totalScaledDown += scaledDownCount;
    sorted[i] = updated;
  }
  return [sorted, totalScaledDown];
}

/**
 * Scales old ReplicaSets down, oldest first, by as many available pods as exceed
 * spec.replicas - maxUnavailable (scaleDownOldReplicaSetsForRollingUpdate). How many it removed.
 */
export async function scaleDownOldReplicaSetsForRollingUpdate(
  ctx: SyncContext,
  allRSs: readonly ReplicaSet[],
  oldRSs: readonly ReplicaSet[],
  deployment: Deployment,
): Promise<number> {
  const minAvailable = replicasOf(deployment) - maxUnavailable(deployment);
  const availablePodCount = getAvailableReplicaCountForReplicaSets(allRSs);
  if (availablePodCount <= minAvailable) return 0;
  ctx.logger.debug({ deployment: keyOf(deployment), availableReplicas: availablePodCount }, "Found available pods in deployment, scaling down old RSes");

  let totalScaledDown = 0;
  const totalScaleDownCount = availablePodCount - minAvailable;
  for (const target of oldestFirst(oldRSs)) {
    if (totalScaledDown >= totalScaleDownCount) break;
    const size = replicasOf(target);
    if (size === 0) continue;
    const scaleDownCount = Math.min(size, totalScaleDownCount - totalScaledDown);
    const newReplicasCount = size - scaleDownCount;
    if (newReplicasCount > size) {
      throw new Error(`when scaling down old RS, got invalid request to scale down ${keyOf(target)} ${size} -> ${newReplicasCount}`);
    }
    await scaleReplicaSetAndRecordEvent(ctx, target, newReplicasCount, deployment);
    totalScaledDown += scaleDownCount;
  }
  return totalScaledDown;
}
