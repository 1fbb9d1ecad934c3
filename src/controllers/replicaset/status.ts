/**
 * ReplicaSet status: computed from the pods a ReplicaSet owns, written only when it changed
 * (upstream replica_set_utils.go: calculateStatus, updateReplicaSetStatus and the condition helpers).
 */
import type { ReplicaSet, ReplicaSetCondition, ReplicaSetStatus } from "../../apimachinery/api/apps/v1.js";
import type { Pod } from "../../apimachinery/api/core/v1.js";
import { deepCopy } from "../../apimachinery/deepcopy.js";
import { semanticEqual } from "../../apimachinery/equality.js";
import { selectorFromValidatedSet } from "../../apimachinery/labels.js";
import type { ResourceClient } from "../../client/interfaces.js";
import { errorMessage } from "./podcontrol.js";
import { formatTime, isPodAvailable, isPodReady } from "./podutil.js";

/** The condition type set while pods cannot be created or deleted. */
export const REPLICA_FAILURE = "ReplicaFailure";

/** How many times a failed status update is retried after re-reading the ReplicaSet. */
export const STATUS_UPDATE_RETRIES = 1;

/**
 * ReplicaSetStatus with 1.33+'s terminatingReplicas (pods being deleted that are not terminal yet;
 * absent while the DeploymentReplicaSetTerminatingReplicas gate is off).
 */
export type ReplicaSetStatusWithTerminating = ReplicaSetStatus & { terminatingReplicas?: number };

export function newReplicaSetCondition(type: string, status: string, reason: string, message: string, nowMs: number): ReplicaSetCondition {
  return { type, status, lastTransitionTime: formatTime(nowMs), reason, message };
}

export function getCondition(status: ReplicaSetStatus | undefined, type: string): ReplicaSetCondition | undefined {
  return status?.conditions?.find((c) => c.type === type);
}

/** Adds or replaces a condition; one with the same status and reason already present is kept as is. */
export function setCondition(status: ReplicaSetStatus, cond: ReplicaSetCondition): void {
  const cur = getCondition(status, cond.type);
  if (cur && cur.status === cond.status && cur.reason === cond.reason) return;
  status.conditions = [...filterOutCondition(status.conditions, cond.type), cond];
}

export function removeCondition(status: ReplicaSetStatus, type: string): void {
  const rest = filterOutCondition(status.conditions, type);
  if (rest.length > 0) status.conditions = rest;
  else delete status.conditions;
}

function filterOutCondition(conds: readonly ReplicaSetCondition[] | undefined, type: string): ReplicaSetCondition[] {
  return (conds ?? []).filter((c) => c.type !== type);
}

/**
 * The status the ReplicaSet should have given its active, owned pods (calculateStatus): replicas,
 * fullyLabeledReplicas (pods carrying every template label), readyReplicas, availableReplicas
 * (ready for minReadySeconds at `nowMs`), terminatingReplicas (the owned pods being deleted;
 * `terminatingPods` undefined — the gate off — leaves it out), and the ReplicaFailure condition —
 * set with reason FailedCreate/FailedDelete when manageReplicas failed, removed once it succeeds.
 * observedGeneration is left as it was: updateReplicaSetStatus sets it.
 */
export function calculateStatus(
  rs: ReplicaSet,
  filteredPods: readonly Pod[],
  terminatingPods: readonly Pod[] | undefined,
  manageReplicasErr: unknown,
  nowMs: number,
): ReplicaSetStatusWithTerminating {
  const next: ReplicaSetStatusWithTerminating = deepCopy(rs.status ?? { replicas: 0 });
  const templateLabels = selectorFromValidatedSet(rs.spec?.template?.metadata?.labels);
  const minReady = rs.spec?.minReadySeconds ?? 0;
  let fullyLabeled = 0;
  let ready = 0;
  let available = 0;
  for (const pod of filteredPods) {
    if (templateLabels.matches(pod.metadata?.labels ?? {})) fullyLabeled++;
    if (isPodReady(pod)) {
      ready++;
      if (isPodAvailable(pod, minReady, nowMs)) available++;
    }
  }
  const failure = getCondition(rs.status, REPLICA_FAILURE);
  if (manageReplicasErr !== undefined && !failure) {
    const diff = filteredPods.length - (rs.spec?.replicas ?? 1);
    const reason = diff < 0 ? "FailedCreate" : diff > 0 ? "FailedDelete" : "";
    setCondition(next, newReplicaSetCondition(REPLICA_FAILURE, "True", reason, errorMessage(manageReplicasErr), nowMs));
  } else if (manageReplicasErr === undefined && failure) {
    removeCondition(next, REPLICA_FAILURE);
  }
  next.replicas = filteredPods.length;
  next.fullyLabeledReplicas = fullyLabeled;
  next.readyReplicas = ready;
  next.availableReplicas = available;
  if (terminatingPods) next.terminatingReplicas = terminatingPods.length;
  else delete next.terminatingReplicas;
  return next;
}

/** Whether writing `next` would change nothing (the steady state upstream skips). */
export function statusUnchanged(rs: ReplicaSet, next: ReplicaSetStatusWithTerminating): boolean {
  const cur: ReplicaSetStatusWithTerminating = rs.status ?? { replicas: 0 };
  return (
    (cur.replicas ?? 0) === (next.replicas ?? 0) &&
    (cur.fullyLabeledReplicas ?? 0) === (next.fullyLabeledReplicas ?? 0) &&
    (cur.readyReplicas ?? 0) === (next.readyReplicas ?? 0) &&
    (cur.availableReplicas ?? 0) === (next.availableReplicas ?? 0) &&
    // A pointer upstream: absent and 0 differ.
    cur.terminatingReplicas === next.terminatingReplicas &&
    (rs.metadata?.generation ?? 0) === (cur.observedGeneration ?? 0) &&
    semanticEqual(cur.conditions ?? [], next.conditions ?? [])
  );
}

/**
 * Writes `newStatus` through the status subresource unless nothing changed
 * (updateReplicaSetStatus). observedGeneration becomes the generation acted on. A failed update
 * is retried once after a fresh GET; the GET's error, or the last update error, is thrown.
 * Returns the ReplicaSet as stored (or `rs` itself when nothing was written).
 */
export async function updateReplicaSetStatus(client: ResourceClient<ReplicaSet>, rs: ReplicaSet, newStatus: ReplicaSetStatus): Promise<ReplicaSet> {
  if (statusUnchanged(rs, newStatus)) return rs;
  const status: ReplicaSetStatus = { ...newStatus, observedGeneration: rs.metadata?.generation ?? 0 };
  let current: ReplicaSet = rs;
  for (let i = 0; ; i++) {
    const next: ReplicaSet = { ...deepCopy(current), status };
    try {
      return await client.updateStatus(next);
    } catch (err) {
      if (i >= STATUS_UPDATE_RETRIES) throw err;
    }
    current = await client.get(rs.metadata?.name ?? "");
  }
}
