/**
 * Revision and replica annotations on Deployments and their ReplicaSets (deployment/util's
 * annotation helpers). Functions named set* modify the object they are given — always a private
 * copy, never a cached object — and report whether anything changed.
 */
import type { Deployment, ReplicaSet } from "../../apimachinery/api/apps/v1.js";
import type { ObjectMeta } from "../../apimachinery/api/meta/v1.js";
import { atoi } from "../../apimachinery/intstr.js";
import {
  DEPRECATED_ROLLBACK_TO_ANNOTATION,
  DESIRED_REPLICAS_ANNOTATION,
  LAST_APPLIED_CONFIG_ANNOTATION,
  MAX_REPLICAS_ANNOTATION,
  REVISION_ANNOTATION,
  REVISION_HISTORY_ANNOTATION,
} from "./constants.js";
import { maxSurge } from "./rollout.js";
import { replicasOf } from "./replicasets.js";

/** An annotation value that is not a revision number. */
export class RevisionParseError extends Error {
  override readonly name = "RevisionParseError";
}

/** Annotations never copied from a Deployment to its ReplicaSets (nor back on rollback). */
const ANNOTATIONS_TO_SKIP: ReadonlySet<string> = new Set([
  LAST_APPLIED_CONFIG_ANNOTATION,
  REVISION_ANNOTATION,
  REVISION_HISTORY_ANNOTATION,
  DESIRED_REPLICAS_ANNOTATION,
  MAX_REPLICAS_ANNOTATION,
  DEPRECATED_ROLLBACK_TO_ANNOTATION,
]);

/** Whether an annotation stays on the Deployment only (skipCopyAnnotation). */
export function skipCopyAnnotation(key: string): boolean {
  return ANNOTATIONS_TO_SKIP.has(key);
}

/** Go's strconv.ParseInt(s, 10, 64), as a number, or undefined. */
function parseInt64(s: string): number | undefined {
  if (!/^[+-]?\d+$/.test(s)) return undefined;
  const v = BigInt(s);
  if (v < -(2n ** 63n) || v > 2n ** 63n - 1n) return undefined;
  return Number(v);
}

/** The revision of an object: 0 without the annotation; throws RevisionParseError when it is not an integer. */
export function revision(obj: { metadata?: ObjectMeta }): number {
  const v = obj.metadata?.annotations?.[REVISION_ANNOTATION];
  if (v === undefined) return 0;
  const n = parseInt64(v);
  if (n === undefined) throw new RevisionParseError(`strconv.ParseInt: parsing ${JSON.stringify(v)}: invalid syntax`);
  return n;
}

/** The highest revision among the ReplicaSets; unparsable ones are skipped (MaxRevision). */
export function maxRevision(allRSs: readonly (ReplicaSet | undefined)[]): number {
  let max = 0;
  for (const rs of allRSs) {
    if (!rs) continue;
    try {
      const v = revision(rs);
      if (v > max) max = v;
    } catch {
      // skipped, as upstream
    }
  }
  return max;
}

/** The second-highest revision among the ReplicaSets: the one before the current (LastRevision). */
export function lastRevision(allRSs: readonly (ReplicaSet | undefined)[]): number {
  let max = 0;
  let secMax = 0;
  for (const rs of allRSs) {
    if (!rs) continue;
    let v: number;
    try {
      v = revision(rs);
    } catch {
      continue;
    }
    if (v >= max) {
      secMax = max;
      max = v;
    } else if (v > secMax) {
      secMax = v;
    }
  }
  return secMax;
}

function annotationsOf(obj: { metadata?: ObjectMeta }): Record<string, string> {
  const meta = (obj.metadata ??= {});
  return (meta.annotations ??= {});
}

/** Sets the Deployment's revision annotation; true if it changed (SetDeploymentRevision). */
export function setDeploymentRevision(deployment: Deployment, rev: string): boolean {
  const a = annotationsOf(deployment);
  if (a[REVISION_ANNOTATION] === rev) return false;
  a[REVISION_ANNOTATION] = rev;
  return true;
}

/** Copies the Deployment's annotations (except the skipped ones) onto the ReplicaSet; true if any changed. */
function copyDeploymentAnnotationsToReplicaSet(deployment: Deployment, rs: ReplicaSet): boolean {
  let changed = false;
  const a = annotationsOf(rs);
  for (const [k, v] of Object.entries(deployment.metadata?.annotations ?? {})) {
    if (skipCopyAnnotation(k) || a[k] === v) continue;
    a[k] = v;
    changed = true;
  }
  return changed;
}

/**
 * Brings a new ReplicaSet's annotations up to date (SetNewReplicaSetAnnotations): copies the
 * Deployment's annotations, raises the revision to `newRevision` if it is lower — recording the
 * previous revision in revision-history when the ReplicaSet had one (a rollback to it), keeping
 * that history under `revHistoryLimitInChars` by dropping the oldest entries — and, for a
 * ReplicaSet about to be created (`exists` false), sets the replica annotations.
 */
export function setNewReplicaSetAnnotations(
  deployment: Deployment,
  newRS: ReplicaSet,
  newRevision: string,
  exists: boolean,
  revHistoryLimitInChars: number,
): boolean {
  let changed = copyDeploymentAnnotationsToReplicaSet(deployment, newRS);
  const a = annotationsOf(newRS);
  const hadRevision = REVISION_ANNOTATION in a;
  const oldRevision = a[REVISION_ANNOTATION] ?? "";
  let oldRevisionInt = parseInt64(oldRevision);
  if (oldRevisionInt === undefined) {
    if (oldRevision !== "") return false; // not a number: leave it alone, as upstream
    oldRevisionInt = 0;
  }
  const newRevisionInt = parseInt64(newRevision);
  if (newRevisionInt === undefined) return false;
  if (oldRevisionInt < newRevisionInt) {
    a[REVISION_ANNOTATION] = newRevision;
    changed = true;
  }
  if (hadRevision && oldRevisionInt < newRevisionInt) {
    const history = a[REVISION_HISTORY_ANNOTATION] ?? "";
    const oldRevisions = history.split(",");
    if (oldRevisions[0].length === 0) {
      a[REVISION_HISTORY_ANNOTATION] = oldRevision;
    } else {
      let totalLen = history.length + oldRevision.length + 1;
      let start = 0;
      while (totalLen > revHistoryLimitInChars && start < oldRevisions.length) {
        totalLen = totalLen - oldRevisions[start].length - 1;
        start++;
      }
      if (totalLen <= revHistoryLimitInChars) {
        a[REVISION_HISTORY_ANNOTATION] = [...oldRevisions.slice(start), oldRevision].join(",");
      }
    }
  }
  if (!exists) {
    const desired = replicasOf(deployment);
    if (setReplicasAnnotations(newRS, desired, desired + maxSurge(deployment))) changed = true;
  }
  return changed;
}

/**
 * Replaces the Deployment's annotations with the ReplicaSet's (rolling back to it), keeping the
 * Deployment's own skipped ones (SetDeploymentAnnotationsTo).
 */
export function setDeploymentAnnotationsTo(deployment: Deployment, rollbackToRS: ReplicaSet): void {
  const kept: Record<string, string> = {};
  for (const [k, v] of Object.entries(deployment.metadata?.annotations ?? {})) if (skipCopyAnnotation(k)) kept[k] = v;
  for (const [k, v] of Object.entries(rollbackToRS.metadata?.annotations ?? {})) if (!skipCopyAnnotation(k)) kept[k] = v;
  (deployment.metadata ??= {}).annotations = kept;
}

function intAnnotation(rs: ReplicaSet, key: string): [number, boolean] {
  const v = rs.metadata?.annotations?.[key];
  if (v === undefined) return [0, false];
  const n = atoi(v);
  if (typeof n !== "number") return [0, false];
  return [n, true];
}

/** The desired-replicas annotation: `[value, ok]` (GetDesiredReplicasAnnotation). */
export function getDesiredReplicasAnnotation(rs: ReplicaSet): [number, boolean] {
  return intAnnotation(rs, DESIRED_REPLICAS_ANNOTATION);
}

/** The max-replicas annotation: `[value, ok]`. */
export function getMaxReplicasAnnotation(rs: ReplicaSet): [number, boolean] {
  return intAnnotation(rs, MAX_REPLICAS_ANNOTATION);
}

/** Sets desired-replicas and max-replicas; true if either changed (SetReplicasAnnotations). */
export function setReplicasAnnotations(rs: ReplicaSet, desiredReplicas: number, maxReplicas: number): boolean {
  let updated = false;
  const a = annotationsOf(rs);
  const desired = String(desiredReplicas);
  if (a[DESIRED_REPLICAS_ANNOTATION] !== desired) {
    a[DESIRED_REPLICAS_ANNOTATION] = desired;
    updated = true;
  }
  const max = String(maxReplicas);
  if (a[MAX_REPLICAS_ANNOTATION] !== max) {
    a[MAX_REPLICAS_ANNOTATION] = max;
    updated = true;
  }
  return updated;
}

/** Whether setReplicasAnnotations would change anything (ReplicasAnnotationsNeedUpdate). */
export function replicasAnnotationsNeedUpdate(rs: ReplicaSet, desiredReplicas: number, maxReplicas: number): boolean {
  const a = rs.metadata?.annotations;
  if (!a) return true;
  return a[DESIRED_REPLICAS_ANNOTATION] !== String(desiredReplicas) || a[MAX_REPLICAS_ANNOTATION] !== String(maxReplicas);
}
