/**
 * kubeloop/controllers/deployment: the Deployment controller and the rollout arithmetic it runs
 * on, under upstream's names (pkg/controller/deployment/util) in camelCase. Tuples are arrays;
 * functions that depend on time take `now` (ms) as their last argument; Go errors are thrown.
 */
export { DeploymentController, DEPLOYMENT_MAX_RETRIES } from "./controller.js";
export type { DeploymentControllerOptions } from "./controller.js";
export { InvalidStrategyError, InvalidSelectorError, hasNamespaceTerminatingCause } from "./errors.js";
export { validateRollingUpdate } from "./validation.js";
export { withDeploymentDefaults } from "./defaults.js";
export * from "./constants.js";
export { computeHash, canonicalJSON, fnv1a32, safeEncodeString, SAFE_ENCODE_ALPHABET } from "./hash.js";
export {
  replicasOf,
  compareByCreationTimestamp,
  compareBySizeOlder,
  compareBySizeNewer,
  compareByRevision,
  sortedReplicaSets,
  filterReplicaSets,
  filterActiveReplicaSets,
  getReplicaCountForReplicaSets,
  getActualReplicaCountForReplicaSets,
  getReadyReplicaCountForReplicaSets,
  getAvailableReplicaCountForReplicaSets,
  getTerminatingReplicaCountForReplicaSets,
  equalIgnoreHash,
  findNewReplicaSet,
  findOldReplicaSets,
  findActiveOrLatest,
  setFromReplicaSetTemplate,
  getDeploymentsForReplicaSet,
} from "./replicasets.js";
export {
  RevisionParseError,
  skipCopyAnnotation,
  revision,
  maxRevision,
  lastRevision,
  setDeploymentRevision,
  setNewReplicaSetAnnotations,
  setDeploymentAnnotationsTo,
  getDesiredReplicasAnnotation,
  getMaxReplicasAnnotation,
  setReplicasAnnotations,
  replicasAnnotationsNeedUpdate,
} from "./annotations.js";
export {
  rfc3339,
  newDeploymentCondition,
  getDeploymentCondition,
  setDeploymentCondition,
  removeDeploymentCondition,
  replicaSetToDeploymentCondition,
} from "./conditions.js";
export {
  isRollingUpdate,
  resolveFenceposts,
  maxUnavailable,
  maxSurge,
  minAvailable,
  getReplicaSetFraction,
  getReplicaSetProportion,
  newRSNewReplicas,
  isSaturated,
  deploymentComplete,
  deploymentProgressing,
  deploymentTimedOut,
  progressDeadline,
  hasProgressDeadline,
  hasRevisionHistoryLimit,
} from "./rollout.js";
export { calculateStatus, compactStatus, statusEqual } from "./status.js";
export type { DeploymentStatusWithTerminating } from "./status.js";
export { getRollbackTo, setRollbackTo } from "./rollback.js";
export { oldPodsRunning } from "./recreate.js";
export type { PodMap } from "./recreate.js";
export { getReplicaFailures } from "./progress.js";
