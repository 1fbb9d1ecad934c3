/**
 * The Deployment status the controller computes from its ReplicaSets (calculateStatus) and the
 * comparison that decides whether it must be written.
 *
 * Wire form: like Go's encoding of apps/v1 DeploymentStatus (every counter is `omitempty`),
 * counters that are zero are left out; collisionCount, a pointer upstream, is kept when set, even
 * at zero. Comparisons treat an absent counter as zero.
 */
import type { Deployment, DeploymentStatus, ReplicaSet } from "../../apimachinery/api/apps/v1.js";
import { semanticEqual } from "../../apimachinery/equality.js";
import { newDeploymentCondition, setDeploymentCondition } from "./conditions.js";
import { DEPLOYMENT_AVAILABLE, MINIMUM_REPLICAS_AVAILABLE, MINIMUM_REPLICAS_UNAVAILABLE } from "./constants.js";
import {
  getActualReplicaCountForReplicaSets,
  getAvailableReplicaCountForReplicaSets,
  getTerminatingReplicaCountForReplicaSets,
  getReadyReplicaCountForReplicaSets,
  getReplicaCountForReplicaSets,
  replicasOf,
} from "./replicasets.js";
import { maxUnavailable } from "./rollout.js";

const COUNTERS = ["observedGeneration", "replicas", "updatedReplicas", "readyReplicas", "availableReplicas", "unavailableReplicas"] as const;

/**
 * DeploymentStatus with 1.33+'s terminatingReplicas: a pointer upstream, so 0 is a value and only
 * absence is omitted (absent while no ReplicaSet reports it, i.e. the
 * DeploymentReplicaSetTerminatingReplicas gate is off).
 */
export type DeploymentStatusWithTerminating = DeploymentStatus & { terminatingReplicas?: number };

/** The status with zero counters and an empty condition list removed (Go's omitempty). */
export function compactStatus(status: DeploymentStatusWithTerminating): DeploymentStatusWithTerminating {
  const out: DeploymentStatusWithTerminating = {};
  for (const k of COUNTERS) {
    const v = status[k];
    if (v !== undefined && v !== null && v !== 0) out[k] = v;
  }
  if (status.terminatingReplicas !== undefined && status.terminatingReplicas !== null) out.terminatingReplicas = status.terminatingReplicas;
  if (status.conditions && status.conditions.length > 0) out.conditions = status.conditions.map((c) => ({ ...c }));
  if (status.collisionCount !== undefined && status.collisionCount !== null) out.collisionCount = status.collisionCount;
  return out;
}

/** Whether two statuses say the same thing (reflect.DeepEqual on the Go structs). */
export function statusEqual(a: DeploymentStatus | undefined, b: DeploymentStatus | undefined): boolean {
  return semanticEqual(compactStatus(a ?? {}), compactStatus(b ?? {}));
}

/**
 * The status of the Deployment given its ReplicaSets (calculateStatus): counters summed over
 * them, the conditions carried over, and Available set from whether at least
 * spec.replicas - maxUnavailable replicas are available.
 */
export function calculateStatus(
  allRSs: readonly (ReplicaSet | undefined)[],
  newRS: ReplicaSet | undefined,
  deployment: Deployment,
  now: number,
): DeploymentStatusWithTerminating {
  const available = getAvailableReplicaCountForReplicaSets(allRSs);
  const total = getReplicaCountForReplicaSets(allRSs);
  const unavailable = Math.max(0, total - available);
  const status: DeploymentStatusWithTerminating = {
    observedGeneration: deployment.metadata?.generation ?? 0,
    replicas: getActualReplicaCountForReplicaSets(allRSs),
    updatedReplicas: getActualReplicaCountForReplicaSets([newRS]),
    readyReplicas: getReadyReplicaCountForReplicaSets(allRSs),
    availableReplicas: available,
    unavailableReplicas: unavailable,
  };
  const terminating = getTerminatingReplicaCountForReplicaSets(allRSs);
  if (terminating !== undefined) status.terminatingReplicas = terminating;
  const conditions = deployment.status?.conditions;
  if (conditions && conditions.length > 0) status.conditions = conditions.map((c) => ({ ...c }));
  if (deployment.status?.collisionCount !== undefined && deployment.status?.collisionCount !== null) {
    status.collisionCount = deployment.status.collisionCount;
  }
  if (available >= replicasOf(deployment) - maxUnavailable(deployment)) {
    setDeploymentCondition(status, newDeploymentCondition(DEPLOYMENT_AVAILABLE, "True", MINIMUM_REPLICAS_AVAILABLE, "Deployment has minimum availability.", now));
  } else {
    setDeploymentCondition(status, newDeploymentCondition(DEPLOYMENT_AVAILABLE, "False", MINIMUM_REPLICAS_UNAVAILABLE, "Deployment does not have minimum availability.", now));
  }
  return compactStatus(status);
}
