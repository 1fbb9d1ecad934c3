/** Constants of kube-controller-manager's DaemonSet controller (pkg/controller/daemon, 1.36). */

/** Creates and deletes per sync at most (BurstReplicas). */
export const BURST_REPLICAS = 250;
/** Status update retries before the DaemonSet is requeued with back-off (StatusUpdateRetries). */
export const STATUS_UPDATE_RETRIES = 1;
/** How often stale failed-pod back-off entries are dropped (BackoffGCInterval). */
export const BACKOFF_GC_INTERVAL_MS = 60_000;
/** kube-controller-manager's failedPodsBackoff: flowcontrol.NewBackOff(1s, 15min). */
export const FAILED_PODS_BACKOFF_INITIAL_MS = 1000;
export const FAILED_PODS_BACKOFF_MAX_MS = 15 * 60 * 1000;
/** --concurrent-daemonset-syncs. */
export const DEFAULT_DAEMONSET_WORKERS = 2;

/** Event reasons. */
export const SELECTING_ALL_REASON = "SelectingAll";
export const FAILED_PLACEMENT_REASON = "FailedPlacement";
export const FAILED_DAEMON_POD_REASON = "FailedDaemonPod";
export const SUCCEEDED_DAEMON_POD_REASON = "SucceededDaemonPod";

/** apps.DefaultDaemonSetUniqueLabelKey (= apps.ControllerRevisionHashLabelKey). */
export const DEFAULT_DAEMONSET_UNIQUE_LABEL_KEY = "controller-revision-hash";
/** extensions.DaemonSetTemplateGenerationKey. */
export const DAEMONSET_TEMPLATE_GENERATION_LABEL = "pod-template-generation";
/** apps.DeprecatedTemplateGeneration. */
export const DEPRECATED_TEMPLATE_GENERATION_ANNOTATION = "deprecated.daemonset.template.generation";

/** The node taints daemon pods tolerate (v1.TaintNode*). */
export const TAINT_NODE_NOT_READY = "node.kubernetes.io/not-ready";
export const TAINT_NODE_UNREACHABLE = "node.kubernetes.io/unreachable";
export const TAINT_NODE_UNSCHEDULABLE = "node.kubernetes.io/unschedulable";
export const TAINT_NODE_MEMORY_PRESSURE = "node.kubernetes.io/memory-pressure";
export const TAINT_NODE_DISK_PRESSURE = "node.kubernetes.io/disk-pressure";
export const TAINT_NODE_NETWORK_UNAVAILABLE = "node.kubernetes.io/network-unavailable";
export const TAINT_NODE_PID_PRESSURE = "node.kubernetes.io/pid-pressure";
