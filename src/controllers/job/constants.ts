/** Names the Job controller shares with the API, kubectl and users (k8s.io/api/batch/v1). */

/** The finalizer that keeps a pod until the controller counted it (JobTrackingFinalizer). */
export const JOB_TRACKING_FINALIZER = "batch.kubernetes.io/job-tracking";
/** Annotation and label with a pod's completion index (Indexed jobs). */
export const JOB_COMPLETION_INDEX_ANNOTATION = "batch.kubernetes.io/job-completion-index";
export const JOB_COMPLETION_INDEX_LABEL = "batch.kubernetes.io/job-completion-index";
/** The environment variable Indexed jobs' containers read their index from. */
export const JOB_COMPLETION_INDEX_ENV = "JOB_COMPLETION_INDEX";
export const JOB_NAME_LABEL = "batch.kubernetes.io/job-name";
export const CONTROLLER_UID_LABEL = "batch.kubernetes.io/controller-uid";

/** Condition types. */
export const JOB_COMPLETE = "Complete";
export const JOB_FAILED = "Failed";
export const JOB_SUSPENDED = "Suspended";
export const JOB_FAILURE_TARGET = "FailureTarget";
export const JOB_SUCCESS_CRITERIA_MET = "SuccessCriteriaMet";

/** Condition reasons and messages. */
export const REASON_BACKOFF_LIMIT_EXCEEDED = "BackoffLimitExceeded";
export const MESSAGE_BACKOFF_LIMIT_EXCEEDED = "Job has reached the specified backoff limit";
export const REASON_DEADLINE_EXCEEDED = "DeadlineExceeded";
export const MESSAGE_DEADLINE_EXCEEDED = "Job was active longer than specified deadline";
export const REASON_COMPLETIONS_REACHED = "CompletionsReached";
export const MESSAGE_COMPLETIONS_REACHED = "Reached expected number of succeeded pods";

/** Pods a sync creates or deletes at most (MaxPodCreateDeletePerSync). */
export const MAX_POD_CREATE_DELETE_PER_SYNC = 500;
/** UIDs kept in status.uncountedTerminatedPods at most before a flush (MaxUncountedPods). */
export const MAX_UNCOUNTED_PODS = 500;
/** Pod events wake the Job after this (syncJobBatchPeriod). */
export const SYNC_JOB_BATCH_PERIOD_MS = 1000;
/** Pod failure back-off: 10 s doubling to 10 min (DefaultJobPodFailureBackOff, MaxJobPodFailureBackOff). */
export const DEFAULT_JOB_POD_FAILURE_BACKOFF_MS = 10_000;
export const MAX_JOB_POD_FAILURE_BACKOFF_MS = 600_000;
/** kube-controller-manager's --concurrent-job-syncs default. */
export const DEFAULT_JOB_WORKERS = 5;
/** Job default (SetDefaults_Job). */
export const DEFAULT_BACKOFF_LIMIT = 6;
/** Failures of earlier pods of the same index, counted and ignored (backoffLimitPerIndex). */
export const JOB_INDEX_FAILURE_COUNT_ANNOTATION = "batch.kubernetes.io/job-index-failure-count";
export const JOB_INDEX_IGNORED_FAILURE_COUNT_ANNOTATION = "batch.kubernetes.io/job-index-ignored-failure-count";
/** The value of spec.managedBy (and its absence) that this controller syncs (JobControllerName). */
export const JOB_CONTROLLER_NAME = "kubernetes.io/job-controller";
/** Reasons and messages of the failure and success policies. */
export const REASON_POD_FAILURE_POLICY = "PodFailurePolicy";
export const REASON_FAILED_INDEXES = "FailedIndexes";
export const MESSAGE_FAILED_INDEXES = "Job has failed indexes";
export const REASON_MAX_FAILED_INDEXES_EXCEEDED = "MaxFailedIndexesExceeded";
export const MESSAGE_MAX_FAILED_INDEXES_EXCEEDED = "Job has exceeded the specified maximal number of failed indexes";
export const REASON_SUCCESS_POLICY = "SuccessPolicy";
