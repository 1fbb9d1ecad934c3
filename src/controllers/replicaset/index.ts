/** kubeloop/controllers/replicaset: the ReplicaSet controller and the pod arithmetic it runs on. */
export { ReplicaSetController, BURST_REPLICAS, REPLICASET_GVK } from "./replicaset.js";
export type { ReplicaSetControllerOptions } from "./replicaset.js";
export {
  RealPodControl,
  PodDeleteError,
  getPodFromTemplate,
  validateControllerRef,
  hasNamespaceTerminatingCause,
  SUCCESSFUL_CREATE_POD_REASON,
  FAILED_CREATE_POD_REASON,
  SUCCESSFUL_DELETE_POD_REASON,
  FAILED_DELETE_POD_REASON,
  NAMESPACE_TERMINATING_CAUSE,
} from "./podcontrol.js";
export type { PodControl, PodOwner } from "./podcontrol.js";
export {
  getPodsToDelete,
  sortActivePodsWithRanks,
  lessActivePod,
  ranksByRelatedPodsOnSameNode,
  getDeletionCost,
  POD_DELETION_COST_ANNOTATION,
} from "./ranking.js";
export { slowStartBatch, SLOW_START_INITIAL_BATCH_SIZE } from "./slowstart.js";
export type { SlowStartResult } from "./slowstart.js";
export {
  calculateStatus,
  type ReplicaSetStatusWithTerminating,
  updateReplicaSetStatus,
  statusUnchanged,
  newReplicaSetCondition,
  getCondition,
  setCondition,
  removeCondition,
  REPLICA_FAILURE,
} from "./status.js";
export {
  isPodReady,
  isPodAvailable,
  isPodActive,
  filterActivePods,
  podKey,
  getPodReadyCondition,
  maxContainerRestarts,
  podReadyTime,
} from "./podutil.js";
