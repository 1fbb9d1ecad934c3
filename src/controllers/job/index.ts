/** The Job controller (kube-controller-manager's pkg/controller/job). */
export {
  JobController,
  JOB_GVK,
  jobSpecView,
  isJobFinished,
  isPodFailed,
  hasJobTrackingFinalizer,
  removeTrackingFinalizerPatch,
  pastBackoffLimitOnFailure,
  ensureJobConditionStatus,
  cleanUncountedPodsWithoutFinalizers,
  addCompletionIndexEnvVariables,
  managedByExternalController,
} from "./controller.js";
export type { JobControllerOptions } from "./controller.js";
export * from "./constants.js";
export { getCompletionIndex, OrderedIntervals, firstPendingIndexes, podGenerateNameWithIndex, UNKNOWN_COMPLETION_INDEX } from "./indexes.js";
export { BackoffStore, remainingBackoffMs, getFinishedTime } from "./backoff.js";
export type { BackoffRecord } from "./backoff.js";
export { matchPodFailurePolicy, matchOnExitCodes, matchOnPodConditions, getFailJobMessage, nonIgnoredFailedPodsCount } from "./podfailurepolicy.js";
export type { PodFailurePolicyAction, PodFailurePolicyMatch } from "./podfailurepolicy.js";
export { matchSuccessPolicy, matchSucceededIndexesRule } from "./successpolicy.js";
export type { SuccessPolicyMatch } from "./successpolicy.js";
export {
  hasBackoffLimitPerIndex,
  getIndexFailureCount,
  getIndexAbsoluteFailureCount,
  isIndexFailed,
  calculateFailedIndexes,
  getPodsWithDelayedDeletionPerIndex,
  getNewIndexFailureCounts,
  indexFailureCountAnnotations,
  remainingTimePerIndexMs,
  podCreationInfoForIndependentIndexes,
} from "./perindex.js";
export type { DelayedDeletionInput } from "./perindex.js";
