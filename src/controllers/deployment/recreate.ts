/**
 * The Recreate strategy (upstream recreate.go): scale every old ReplicaSet to zero, wait until no
 * old pod runs, then create the new ReplicaSet and scale it to spec.replicas.
 */
import type { Deployment, ReplicaSet } from "../../apimachinery/api/apps/v1.js";
import type { Pod } from "../../apimachinery/api/core/v1.js";
import type { SyncContext } from "./context.js";
import { filterActiveReplicaSets, getActualReplicaCountForReplicaSets, replicasOf } from "./replicasets.js";
import { deploymentComplete } from "./rollout.js";
import { syncRolloutStatus } from "./progress.js";
import { cleanupDeployment, getAllReplicaSetsAndSyncRevision, scaleReplicaSetAndRecordEvent } from "./sync.js";

/** Pods of a Deployment grouped by the UID of the ReplicaSet controlling them. */
export type PodMap = ReadonlyMap<string, readonly Pod[]>;

/** One step of a Recreate rollout (rolloutRecreate). */
export async function rolloutRecreate(ctx: SyncContext, d: Deployment, rsList: readonly ReplicaSet[], podMap: PodMap): Promise<void> {
  // Do not create the new ReplicaSet yet: nothing may scale up before the old pods are gone.
  let [newRS, oldRSs] = await getAllReplicaSetsAndSyncRevision(ctx, d, rsList, false);
  let allRSs: (ReplicaSet | undefined)[] = [...oldRSs, newRS];
  const activeOldRSs = filterActiveReplicaSets(oldRSs);

  if (await scaleDownOldReplicaSetsForRecreate(ctx, activeOldRSs, d)) {
    await syncRolloutStatus(ctx, allRSs, newRS, d);
    return;
  }
  if (oldPodsRunning(newRS, oldRSs, podMap)) {
    await syncRolloutStatus(ctx, allRSs, newRS, d);
    return;
  }
  if (!newRS) {
    [newRS, oldRSs] = await getAllReplicaSetsAndSyncRevision(ctx, d, rsList, true);
    allRSs = [...oldRSs, newRS];
  }
  await scaleUpNewReplicaSetForRecreate(ctx, newRS as ReplicaSet, d);
  if (deploymentComplete(d, d.status ?? {})) await cleanupDeployment(ctx, oldRSs, d);
  await syncRolloutStatus(ctx, allRSs, newRS, d);
}

/** Scales every given old ReplicaSet to zero (scaleDownOldReplicaSetsForRecreate); `oldRSs` entries are replaced by the written ones. Whether any scaled. */
export async function scaleDownOldReplicaSetsForRecreate(ctx: SyncContext, oldRSs: ReplicaSet[], deployment: Deployment): Promise<boolean> {
  let scaled = false;
  for (let i = 0; i < oldRSs.length; i++) {
    const rs = oldRSs[i];
    if (replicasOf(rs) === 0) continue;
    const [scaledRS, updated] = await scaleReplicaSetAndRecordEvent(ctx, rs, 0, deployment);
    if (scaledRS) {
      oldRSs[i] = updated;
      scaled = true;
    }
  }
  return scaled;
}

/**
 * Whether an old pod may still run (oldPodsRunning): an old ReplicaSet reports pods, or a pod of
 * a ReplicaSet other than the new one is in any phase but Succeeded or Failed (Unknown counts as
 * running: it cannot be ruled out).
 */
export function oldPodsRunning(newRS: ReplicaSet | undefined, oldRSs: readonly ReplicaSet[], podMap: PodMap | undefined): boolean {
  if (getActualReplicaCountForReplicaSets(oldRSs) > 0) return true;
  for (const [uid, pods] of podMap ?? new Map<string, readonly Pod[]>()) {
    if (newRS && newRS.metadata?.uid === uid) continue;
    for (const pod of pods) {
      const phase = pod.status?.phase;
      if (phase === "Failed" || phase === "Succeeded") continue;
      return true;
    }
  }
  return false;
}

/** Scales the new ReplicaSet to spec.replicas (scaleUpNewReplicaSetForRecreate). Whether it scaled. */
export async function scaleUpNewReplicaSetForRecreate(ctx: SyncContext, newRS: ReplicaSet, deployment: Deployment): Promise<boolean> {
  const [scaled] = await scaleReplicaSetAndRecordEvent(ctx, newRS, replicasOf(deployment), deployment);
  return scaled;
}
