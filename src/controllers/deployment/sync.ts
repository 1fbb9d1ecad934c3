/**
 * The steps shared by every path of a Deployment sync (upstream sync.go): finding or creating the
 * new ReplicaSet and keeping revisions in order, scaling (proportionally when several ReplicaSets
 * are active), trimming history, and writing status.
 *
 * `d` is always the sync's private working copy of the Deployment: functions here modify it
 * (status, revision annotation) before writing it, as upstream does. ReplicaSets from the cache
 * are copied before any change.
 */
import type { Deployment, ReplicaSet } from "../../apimachinery/api/apps/v1.js";
import { deepCopy } from "../../apimachinery/deepcopy.js";
import { isAlreadyExists, isNotFound } from "../../apimachinery/errors.js";
import { hasNamespaceTerminatingCause } from "./errors.js";
import { getControllerOf, newControllerRef } from "../../apimachinery/ownerrefs.js";
import type { Writable } from "../../apimachinery/types.js";
import { getDesiredReplicasAnnotation, maxRevision, replicasAnnotationsNeedUpdate, setDeploymentRevision, setNewReplicaSetAnnotations, setReplicasAnnotations } from "./annotations.js";
import { getDeploymentCondition, newDeploymentCondition, setDeploymentCondition } from "./conditions.js";
import {
  DEFAULT_DEPLOYMENT_UNIQUE_LABEL_KEY,
  DEPLOYMENT_GVK,
  DEPLOYMENT_PROGRESSING,
  FAILED_RS_CREATE_REASON,
  FOUND_NEW_RS_REASON,
  MAX_REV_HISTORY_LENGTH_IN_CHARS,
  NEW_REPLICA_SET_REASON,
  PAUSED_DEPLOY_REASON,
  REVISION_ANNOTATION,
  RESUMED_DEPLOY_REASON,
  SCALING_REPLICA_SET_REASON,
  TIMED_OUT_REASON,
} from "./constants.js";
import { keyOf, recordWrite, updateDeploymentStatus, withWrites, type SyncContext } from "./context.js";
import { computeHash } from "./hash.js";
import {
  compareByCreationTimestamp,
  compareByRevision,
  compareBySizeNewer,
  compareBySizeOlder,
  equalIgnoreHash,
  filterActiveReplicaSets,
  filterReplicaSets,
  findActiveOrLatest,
  findNewReplicaSet,
  findOldReplicaSets,
  getReplicaCountForReplicaSets,
  replicasOf,
  sortedReplicaSets,
} from "./replicasets.js";
import { getReplicaSetProportion, hasProgressDeadline, hasRevisionHistoryLimit, isRollingUpdate, isSaturated, maxSurge, newRSNewReplicas } from "./rollout.js";
import { calculateStatus, statusEqual } from "./status.js";
import { getRollbackTo } from "./rollback.js";

function ns(d: Deployment): string {
  return d.metadata?.namespace ?? "";
}

/** Only updates the status (a Deployment being deleted): no scaling, no creation (syncStatusOnly). */
export async function syncStatusOnly(ctx: SyncContext, d: Deployment, rsList: readonly ReplicaSet[]): Promise<void> {
  const [newRS, oldRSs] = await getAllReplicaSetsAndSyncRevision(ctx, d, rsList, false);
  await syncDeploymentStatus(ctx, [...oldRSs, newRS], newRS, d);
}

/** Scaling events and paused Deployments: scale, trim history when paused, write status (sync). */
export async function sync(ctx: SyncContext, d: Deployment, rsList: readonly ReplicaSet[]): Promise<void> {
  const [newRS, oldRSs] = await getAllReplicaSetsAndSyncRevision(ctx, d, rsList, false);
  await scale(ctx, d, newRS, oldRSs);
  if (d.spec?.paused && getRollbackTo(d) === undefined) await cleanupDeployment(ctx, oldRSs, d);
  await syncDeploymentStatus(ctx, [...oldRSs, newRS], newRS, d);
}

/**
 * Records pausing and resuming in the Progressing condition (Unknown, DeploymentPaused or
 * DeploymentResumed) so that time spent paused never counts against the progress deadline
 * (checkPausedConditions). A ProgressDeadlineExceeded condition is left alone.
 */
export async function checkPausedConditions(ctx: SyncContext, d: Deployment): Promise<void> {
  if (!hasProgressDeadline(d)) return;
  const cond = getDeploymentCondition(d.status, DEPLOYMENT_PROGRESSING);
  if (cond?.reason === TIMED_OUT_REASON) return;
  const pausedCondExists = cond?.reason === PAUSED_DEPLOY_REASON;
  const now = ctx.clock.now();
  const status = (d.status ??= {});
  if (d.spec?.paused && !pausedCondExists) {
    setDeploymentCondition(status, newDeploymentCondition(DEPLOYMENT_PROGRESSING, "Unknown", PAUSED_DEPLOY_REASON, "Deployment is paused", now));
  } else if (!d.spec?.paused && pausedCondExists) {
    setDeploymentCondition(status, newDeploymentCondition(DEPLOYMENT_PROGRESSING, "Unknown", RESUMED_DEPLOY_REASON, "Deployment is resumed", now));
  } else {
    return;
  }
  await updateDeploymentStatus(ctx, d);
}

/**
 * The new ReplicaSet (undefined when it does not exist and may not be created) and all old ones,
 * with revisions brought up to date (getAllReplicaSetsAndSyncRevision). `rsList` is what
 * getReplicaSetsForDeployment claimed.
 */
export async function getAllReplicaSetsAndSyncRevision(
  ctx: SyncContext,
  d: Deployment,
  rsList: readonly ReplicaSet[],
  createIfNotExisted: boolean,
): Promise<[ReplicaSet | undefined, ReplicaSet[]]> {
  const current = withWrites(ctx, rsList);
  const [, allOldRSs] = findOldReplicaSets(d, current);
  const newRS = await getNewReplicaSet(ctx, d, current, allOldRSs, createIfNotExisted);
  return [newRS, allOldRSs];
}

/**
 * Finds the new ReplicaSet — updating its annotations, revision and minReadySeconds — or creates
 * it when `createIfNotExisted` (getNewReplicaSet). Creating handles hash collisions: an existing
 * ReplicaSet of that name that is not this Deployment's with this template bumps
 * status.collisionCount and fails the sync, so the next one tries another name.
 */
export async function getNewReplicaSet(
  ctx: SyncContext,
  d: Deployment,
  rsList: readonly ReplicaSet[],
  oldRSs: readonly ReplicaSet[],
  createIfNotExisted: boolean,
): Promise<ReplicaSet | undefined> {
  const existing = findNewReplicaSet(d, rsList);
  const newRevision = String(maxRevision(oldRSs) + 1);
  const now = ctx.clock.now();

  if (existing) {
    const rsCopy = deepCopy(existing);
    const annotationsUpdated = setNewReplicaSetAnnotations(d, rsCopy, newRevision, true, MAX_REV_HISTORY_LENGTH_IN_CHARS);
    const minReady = d.spec?.minReadySeconds ?? 0;
    if (annotationsUpdated || (rsCopy.spec?.minReadySeconds ?? 0) !== minReady) {
      (rsCopy.spec ??= { selector: {} }).minReadySeconds = minReady;
      return recordWrite(ctx, await ctx.replicaSets(rsCopy.metadata?.namespace ?? ns(d)).update(rsCopy));
    }
    let needsUpdate = setDeploymentRevision(d, rsCopy.metadata?.annotations?.[REVISION_ANNOTATION] ?? "");
    const cond = getDeploymentCondition(d.status, DEPLOYMENT_PROGRESSING);
    if (hasProgressDeadline(d) && !cond) {
      const msg = `Found new replica set "${rsCopy.metadata?.name ?? ""}"`;
      setDeploymentCondition((d.status ??= {}), newDeploymentCondition(DEPLOYMENT_PROGRESSING, "True", FOUND_NEW_RS_REASON, msg, now));
      needsUpdate = true;
    }
    if (needsUpdate) await updateDeploymentStatus(ctx, d);
    return rsCopy;
  }

  if (!createIfNotExisted) return undefined;

  const template = deepCopy(d.spec?.template ?? {});
  const hash = computeHash(template, d.status?.collisionCount);
  const templateMeta = (template.metadata ??= {});
  templateMeta.labels = { ...(d.spec?.template?.metadata?.labels ?? {}), [DEFAULT_DEPLOYMENT_UNIQUE_LABEL_KEY]: hash };
  const selector = deepCopy(d.spec?.selector ?? {});
  selector.matchLabels = { ...(selector.matchLabels ?? {}), [DEFAULT_DEPLOYMENT_UNIQUE_LABEL_KEY]: hash };

  const newRS: ReplicaSet = {
    apiVersion: "apps/v1",
    kind: "ReplicaSet",
    metadata: {
      name: `${d.metadata?.name ?? ""}-${hash}`,
      namespace: ns(d),
      ownerReferences: [newControllerRef(d, DEPLOYMENT_GVK)],
      labels: { ...templateMeta.labels },
    },
    spec: {
      replicas: 0,
      minReadySeconds: d.spec?.minReadySeconds ?? 0,
      selector,
      template,
    },
  };
  const newReplicasCount = newRSNewReplicas(d, [...oldRSs, newRS], newRS);
  newRS.spec!.replicas = newReplicasCount;
  setNewReplicaSetAnnotations(d, newRS, newRevision, false, MAX_REV_HISTORY_LENGTH_IN_CHARS);

  let alreadyExists = false;
  let createdRS: ReplicaSet;
  try {
    createdRS = recordWrite(ctx, await ctx.replicaSets(ns(d)).create(newRS));
  } catch (err) {
    if (isAlreadyExists(err)) {
      alreadyExists = true;
      // A slow cache or a fast resync can land here; it may also be a genuine hash collision.
      const rs = ctx.rsLister(ns(d)).get(newRS.metadata!.name!);
      const ref = getControllerOf(rs);
      if (ref && ref.uid === d.metadata?.uid && equalIgnoreHash(d.spec?.template, rs.spec?.template)) {
        createdRS = rs;
      } else {
        const status = (d.status ??= {});
        const before = status.collisionCount ?? 0;
        status.collisionCount = before + 1;
        try {
          await updateDeploymentStatus(ctx, d);
          ctx.logger.info(
            { deployment: keyOf(d), oldCollisionCount: before, newCollisionCount: status.collisionCount },
            "Found a hash collision for deployment - bumping collisionCount to resolve it",
          );
        } catch {
          // the collision error below is what the caller needs to see
        }
        throw err;
      }
    } else if (hasNamespaceTerminatingCause(err)) {
      throw err;
    } else {
      const msg = `Failed to create new replica set "${newRS.metadata!.name!}": ${errorMessage(err)}`;
      if (hasProgressDeadline(d)) {
        setDeploymentCondition((d.status ??= {}), newDeploymentCondition(DEPLOYMENT_PROGRESSING, "False", FAILED_RS_CREATE_REASON, msg, now));
        try {
          await updateDeploymentStatus(ctx, d);
        } catch {
          // the create error is the bigger issue to report
        }
      }
      ctx.recorder.event(d, "Warning", FAILED_RS_CREATE_REASON, msg);
      throw err;
    }
  }

  if (!alreadyExists && newReplicasCount > 0) {
    ctx.recorder.eventf(d, "Normal", SCALING_REPLICA_SET_REASON, "Scaled up replica set %s to %d", createdRS.metadata?.name ?? "", newReplicasCount);
  }
  let needsUpdate = setDeploymentRevision(d, newRevision);
  if (!alreadyExists && hasProgressDeadline(d)) {
    const msg = `Created new replica set "${createdRS.metadata?.name ?? ""}"`;
    setDeploymentCondition((d.status ??= {}), newDeploymentCondition(DEPLOYMENT_PROGRESSING, "True", NEW_REPLICA_SET_REASON, msg, now));
    needsUpdate = true;
  }
  if (needsUpdate) await updateDeploymentStatus(ctx, d);
  return createdRS;
}

function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/**
 * Scales ReplicaSets on a scaling event or while paused (scale): one active ReplicaSet (or none)
 * takes the whole size; a saturated new ReplicaSet leaves old ones at zero; otherwise, for rolling
 * updates, the change is shared in proportion to ReplicaSet sizes, largest first, the rounding
 * leftover going to the first (largest) one.
 */
export async function scale(ctx: SyncContext, deployment: Deployment, newRS: ReplicaSet | undefined, oldRSs: ReplicaSet[]): Promise<void> {
  const activeOrLatest = findActiveOrLatest(newRS, oldRSs);
  if (activeOrLatest) {
    if (replicasOf(activeOrLatest) === replicasOf(deployment)) return;
    await scaleReplicaSetAndRecordEvent(ctx, activeOrLatest, replicasOf(deployment), deployment);
    return;
  }

  if (isSaturated(deployment, newRS)) {
    for (const old of filterActiveReplicaSets(oldRSs)) await scaleReplicaSetAndRecordEvent(ctx, old, 0, deployment);
    return;
  }

  if (!isRollingUpdate(deployment)) return;

  let allRSs = filterActiveReplicaSets([...oldRSs, newRS]);
  const allRSsReplicas = getReplicaCountForReplicaSets(allRSs);
  const allowedSize = replicasOf(deployment) > 0 ? replicasOf(deployment) + maxSurge(deployment) : 0;
  const toAdd = allowedSize - allRSsReplicas;

  let scalingOperation = "";
  if (toAdd > 0) {
    allRSs = sortedReplicaSets(allRSs, compareBySizeNewer);
    scalingOperation = "up";
  } else if (toAdd < 0) {
    allRSs = sortedReplicaSets(allRSs, compareBySizeOlder);
    scalingOperation = "down";
  }

  let added = 0;
  const nameToSize = new Map<string, number>();
  for (const rs of allRSs) {
    const name = rs.metadata?.name ?? "";
    if (toAdd !== 0) {
      const proportion = getReplicaSetProportion(rs, deployment, toAdd, added);
      nameToSize.set(name, replicasOf(rs) + proportion);
      added += proportion;
    } else {
      nameToSize.set(name, replicasOf(rs));
    }
  }

  for (let i = 0; i < allRSs.length; i++) {
    const rs = allRSs[i];
    const name = rs.metadata?.name ?? "";
    if (i === 0 && toAdd !== 0) {
      const leftover = toAdd - added;
      nameToSize.set(name, Math.max(0, nameToSize.get(name)! + leftover));
    }
    await scaleReplicaSet(ctx, rs, nameToSize.get(name)!, deployment, scalingOperation);
  }
}

/** Scales one ReplicaSet when its size differs: `[scaled, replicaSet]` (scaleReplicaSetAndRecordEvent). */
export async function scaleReplicaSetAndRecordEvent(
  ctx: SyncContext,
  rs: ReplicaSet,
  newScale: number,
  deployment: Deployment,
): Promise<[boolean, ReplicaSet]> {
  if (replicasOf(rs) === newScale) return [false, rs];
  const op = replicasOf(rs) < newScale ? "up" : "down";
  return scaleReplicaSet(ctx, rs, newScale, deployment, op);
}

/**
 * Writes a ReplicaSet's size and replica annotations when either is out of date, with a
 * ScalingReplicaSet event when the size changed (scaleReplicaSet). `[scaled, replicaSet]`.
 */
export async function scaleReplicaSet(
  ctx: SyncContext,
  rs: ReplicaSet,
  newScale: number,
  deployment: Deployment,
  scalingOperation: string,
): Promise<[boolean, ReplicaSet]> {
  const sizeNeedsUpdate = replicasOf(rs) !== newScale;
  const desired = replicasOf(deployment);
  const max = desired + maxSurge(deployment);
  const annotationsNeedUpdate = replicasAnnotationsNeedUpdate(rs, desired, max);
  if (!sizeNeedsUpdate && !annotationsNeedUpdate) return [false, rs];
  const oldScale = replicasOf(rs);
  const rsCopy = deepCopy(rs);
  (rsCopy.spec ??= { selector: {} }).replicas = newScale;
  setReplicasAnnotations(rsCopy, desired, max);
  const updated = recordWrite(ctx, await ctx.replicaSets(rsCopy.metadata?.namespace ?? ns(deployment)).update(rsCopy));
  if (sizeNeedsUpdate) {
    ctx.recorder.eventf(
      deployment,
      "Normal",
      SCALING_REPLICA_SET_REASON,
      "Scaled %s replica set %s to %d from %d",
      scalingOperation,
      updated.metadata?.name ?? "",
      newScale,
      oldScale,
    );
  }
  return [sizeNeedsUpdate, updated];
}

/**
 * Deletes the oldest old ReplicaSets beyond revisionHistoryLimit (cleanupDeployment). Only
 * ReplicaSets with no replicas (spec and status), fully observed, and not already being deleted
 * go; the others are skipped but still count against the limit.
 */
export async function cleanupDeployment(ctx: SyncContext, oldRSs: readonly ReplicaSet[], deployment: Deployment): Promise<void> {
  if (!hasRevisionHistoryLimit(deployment)) return;
  const cleanable = filterReplicaSets(oldRSs, (rs) => !rs.metadata?.deletionTimestamp);
  const diff = cleanable.length - (deployment.spec!.revisionHistoryLimit as number);
  if (diff <= 0) return;
  const byRevision = sortedReplicaSets(cleanable, compareByRevision);
  ctx.logger.debug({ deployment: keyOf(deployment) }, "Looking to cleanup old replica sets for deployment");
  for (let i = 0; i < diff; i++) {
    const rs = byRevision[i];
    if ((rs.status?.replicas ?? 0) !== 0 || replicasOf(rs) !== 0 || (rs.metadata?.generation ?? 0) > (rs.status?.observedGeneration ?? 0) || rs.metadata?.deletionTimestamp) {
      continue;
    }
    ctx.logger.debug({ replicaSet: keyOf(rs), deployment: keyOf(deployment) }, "Trying to cleanup replica set for deployment");
    try {
      await ctx.replicaSets(rs.metadata?.namespace ?? ns(deployment)).delete(rs.metadata?.name ?? "");
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
  }
}

/** Writes the status computed from the ReplicaSets when it differs (syncDeploymentStatus). */
export async function syncDeploymentStatus(ctx: SyncContext, allRSs: readonly (ReplicaSet | undefined)[], newRS: ReplicaSet | undefined, d: Deployment): Promise<void> {
  const newStatus = calculateStatus(allRSs, newRS, d, ctx.clock.now());
  if (statusEqual(d.status, newStatus)) return;
  (d as Writable<Deployment>).status = newStatus;
  await updateDeploymentStatus(ctx, d);
}

/**
 * Whether spec.replicas changed since the active ReplicaSets were last scaled, as their
 * desired-replicas annotation tells (isScalingEvent).
 */
export async function isScalingEvent(ctx: SyncContext, d: Deployment, rsList: readonly ReplicaSet[]): Promise<boolean> {
  const [newRS, oldRSs] = await getAllReplicaSetsAndSyncRevision(ctx, d, rsList, false);
  for (const rs of filterActiveReplicaSets([...oldRSs, newRS])) {
    const [desired, ok] = getDesiredReplicasAnnotation(rs);
    if (!ok) continue;
    if (desired !== replicasOf(d)) return true;
  }
  return false;
}

/** Old ReplicaSets sorted oldest first (used by the rolling and recreate paths). */
export function oldestFirst(list: readonly ReplicaSet[]): ReplicaSet[] {
  return sortedReplicaSets(list, compareByCreationTimestamp);
}

