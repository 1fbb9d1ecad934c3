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
} from "./controller.js";
export type { JobControllerOptions } from "./controller.js";
export * from "./constants.js";
export { getCompletionIndex, OrderedIntervals, firstPendingIndexes, podGenerateNameWithIndex, UNKNOWN_COMPLETION_INDEX } from "./indexes.js";
export { BackoffStore, remainingBackoffMs, getFinishedTime } from "./backoff.js";
export type { BackoffRecord } from "./backoff.js";
