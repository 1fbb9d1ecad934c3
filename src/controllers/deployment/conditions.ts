/**
 * Deployment status conditions (deployment/util's condition helpers). Times are RFC 3339 with
 * second precision, as metav1.Time is on the wire; `now` is always passed in (from the Clock).
 */
import type { DeploymentCondition, DeploymentStatus, ReplicaSetCondition } from "../../apimachinery/api/apps/v1.js";

import { formatTime as rfc3339 } from "../../apimachinery/time.js";

/** metav1.Time's wire form of a millisecond timestamp (the package's name for formatTime). */
export { rfc3339 };

/** A condition whose lastUpdateTime and lastTransitionTime are `now` (NewDeploymentCondition). */
export function newDeploymentCondition(type: string, status: string, reason: string, message: string, now: number): DeploymentCondition {
  const t = rfc3339(now);
  return { type, status, lastUpdateTime: t, lastTransitionTime: t, reason, message };
}

/** A copy of the condition of that type, or undefined (GetDeploymentCondition). */
export function getDeploymentCondition(status: DeploymentStatus | undefined, type: string): DeploymentCondition | undefined {
  const c = status?.conditions?.find((x) => x.type === type);
  return c ? { ...c } : undefined;
}

/**
 * Puts the condition into the status, replacing one of the same type (SetDeploymentCondition).
 * Nothing changes when a condition with the same status and reason is already there; when only
 * the reason changes, lastTransitionTime is kept. The replaced condition moves to the end.
 */
export function setDeploymentCondition(status: DeploymentStatus, condition: DeploymentCondition): void {
  const current = getDeploymentCondition(status, condition.type);
  if (current && current.status === condition.status && current.reason === condition.reason) return;
  const next = { ...condition };
  if (current && current.status === condition.status) next.lastTransitionTime = current.lastTransitionTime;
  status.conditions = [...filterOutCondition(status.conditions, condition.type), next];
}

/** Removes the condition of that type (RemoveDeploymentCondition). */
export function removeDeploymentCondition(status: DeploymentStatus, type: string): void {
  const rest = filterOutCondition(status.conditions, type);
  if (rest.length === 0) delete status.conditions;
  else status.conditions = rest;
}

function filterOutCondition(conditions: readonly DeploymentCondition[] | undefined, type: string): DeploymentCondition[] {
  return (conditions ?? []).filter((c) => c.type !== type);
}

/** A ReplicaSet condition as a Deployment condition, e.g. ReplicaFailure (ReplicaSetToDeploymentCondition). */
export function replicaSetToDeploymentCondition(cond: ReplicaSetCondition): DeploymentCondition {
  return {
    type: cond.type,
    status: cond.status,
    lastTransitionTime: cond.lastTransitionTime,
    lastUpdateTime: cond.lastTransitionTime,
    reason: cond.reason,
    message: cond.message,
  };
}
