/** The DaemonSet controller (kube-controller-manager's pkg/controller/daemon). */
export {
  DaemonSetsController,
  POD_NODE_NAME_INDEX,
  compareByCreationTimestampAndPhase,
  failedPodsBackoffKey,
  getUnscheduledPodsWithoutNode,
  shouldIgnoreNodeUpdate,
} from "./controller.js";
export type { DaemonSetControllerOptions, DaemonSetStatusCounts } from "./controller.js";
export { DAEMONSET_GVK } from "./gvk.js";
export * from "./constants.js";
export { FailedPodsBackoff } from "./backoff.js";
export { newDaemonPod, predicates, nodeShouldRunDaemonPod } from "./predicates.js";
export type { Predicates, ShouldRun } from "./predicates.js";
export { findUpdatedPodsOnNode, updatedDesiredNodeCounts, planRollingUpdate, RollingUpdateConfigError } from "./rolling.js";
export type { DesiredNodeCounts, RollingUpdatePlan, RollingUpdateView, UpdatedPodsOnNode } from "./rolling.js";
export { daemonSetPatch, revisionMatches, maxRevision, sortByRevision, daemonSetHash, newDaemonSetRevision } from "./revisions.js";
export {
  getTemplateGeneration,
  TemplateGenerationError,
  addOrUpdateTolerationInPodSpec,
  addOrUpdateDaemonPodTolerations,
  createPodTemplate,
  surgeCount,
  unavailableCount,
  allowsSurge,
  isPodUpdated,
  replaceDaemonSetPodNodeNameNodeAffinity,
  getTargetNodeName,
  TargetNodeNameError,
  findMatchingUntoleratedTaint,
} from "./util.js";
