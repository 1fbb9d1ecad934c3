/**
 * Names and reasons the Deployment controller shares with kubectl and with users: annotation keys,
 * condition reasons, event reasons. Values are upstream's (pkg/controller/deployment/util and
 * k8s.io/api/apps/v1), so that tooling written for a real cluster reads them unchanged.
 */
import type { GroupVersionKind } from "../../apimachinery/gvk.js";

/** The kind the controller owns ReplicaSets as (controllerKind upstream). */
export const DEPLOYMENT_GVK: GroupVersionKind = Object.freeze({ group: "apps", version: "v1", kind: "Deployment" });

/** The label that distinguishes the ReplicaSets (and pods) of one Deployment's pod templates. */
export const DEFAULT_DEPLOYMENT_UNIQUE_LABEL_KEY = "pod-template-hash";

/** Rollout sequence number of a ReplicaSet (and, copied, of its Deployment). */
export const REVISION_ANNOTATION = "deployment.kubernetes.io/revision";
/** Earlier revisions a ReplicaSet served (it was rolled back to), comma separated. */
export const REVISION_HISTORY_ANNOTATION = "deployment.kubernetes.io/revision-history";
/** spec.replicas of the Deployment when the ReplicaSet was last scaled by it. */
export const DESIRED_REPLICAS_ANNOTATION = "deployment.kubernetes.io/desired-replicas";
/** spec.replicas + maxSurge of the Deployment when the ReplicaSet was last scaled by it. */
export const MAX_REPLICAS_ANNOTATION = "deployment.kubernetes.io/max-replicas";
/** The deprecated rollbackTo field, round-tripped through an annotation (apps.DeprecatedRollbackTo). */
export const DEPRECATED_ROLLBACK_TO_ANNOTATION = "deprecated.deployment.rollback.to";
/** kubectl apply's record of the last applied configuration (v1.LastAppliedConfigAnnotation). */
export const LAST_APPLIED_CONFIG_ANNOTATION = "kubectl.kubernetes.io/last-applied-configuration";

/** Longest revision-history annotation kept (about 100 revisions). */
export const MAX_REV_HISTORY_LENGTH_IN_CHARS = 2000;

/** Event reasons of the rollback path. */
export const ROLLBACK_REVISION_NOT_FOUND = "DeploymentRollbackRevisionNotFound";
export const ROLLBACK_TEMPLATE_UNCHANGED = "DeploymentRollbackTemplateUnchanged";
export const ROLLBACK_DONE = "DeploymentRollback";

/** Progressing condition reasons. */
export const REPLICA_SET_UPDATED_REASON = "ReplicaSetUpdated";
export const FAILED_RS_CREATE_REASON = "ReplicaSetCreateError";
export const NEW_REPLICA_SET_REASON = "NewReplicaSetCreated";
export const FOUND_NEW_RS_REASON = "FoundNewReplicaSet";
export const NEW_RS_AVAILABLE_REASON = "NewReplicaSetAvailable";
export const TIMED_OUT_REASON = "ProgressDeadlineExceeded";
export const PAUSED_DEPLOY_REASON = "DeploymentPaused";
export const RESUMED_DEPLOY_REASON = "DeploymentResumed";

/** Available condition reasons. */
export const MINIMUM_REPLICAS_AVAILABLE = "MinimumReplicasAvailable";
export const MINIMUM_REPLICAS_UNAVAILABLE = "MinimumReplicasUnavailable";

/** Condition types (apps/v1 DeploymentConditionType and ReplicaSetConditionType). */
export const DEPLOYMENT_AVAILABLE = "Available";
export const DEPLOYMENT_PROGRESSING = "Progressing";
export const DEPLOYMENT_REPLICA_FAILURE = "ReplicaFailure";
export const REPLICA_SET_REPLICA_FAILURE = "ReplicaFailure";

/** Strategy types. */
export const ROLLING_UPDATE_STRATEGY = "RollingUpdate";
export const RECREATE_STRATEGY = "Recreate";

/** Event reasons emitted by the controller outside the rollback path. */
export const SCALING_REPLICA_SET_REASON = "ScalingReplicaSet";
export const SELECTING_ALL_REASON = "SelectingAll";
/** kubeloop's reason for a strategy that cannot be resolved (upstream has none: validation stops it). */
export const INVALID_STRATEGY_REASON = "InvalidStrategy";

export const INT32_MAX = 2 ** 31 - 1;
