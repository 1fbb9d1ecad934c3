/** kubeloop/controllers/namespace: the namespace controller (asynchronous namespace deletion). */
export {
  NamespaceController,
  NAMESPACE_CONTROLLER_NAME,
  DEFAULT_NAMESPACE_WORKERS,
  NAMESPACE_SYNC_PERIOD_MS,
  NAMESPACE_DELETION_GRACE_PERIOD_MS,
} from "./controller.js";
export type { NamespaceControllerOptions } from "./controller.js";
export {
  NamespacedResourcesDeleter,
  ResourcesRemainingError,
  NamespaceDeletionErrors,
  FINALIZER_KUBERNETES,
  FINALIZER_ESTIMATE_SECONDS,
} from "./deleter.js";
export type { NamespacedResourcesDeleterOptions } from "./deleter.js";
export {
  NamespaceConditionUpdater,
  updateConditions,
  successfulCondition,
  NAMESPACE_CONDITION_TYPES,
  NamespaceDeletionDiscoveryFailure,
  NamespaceDeletionGVParsingFailure,
  NamespaceDeletionContentFailure,
  NamespaceContentRemaining,
  NamespaceFinalizersRemaining,
} from "./conditions.js";
export type { ContentTotals } from "./conditions.js";
export { namespaceDiscoveryFrom, GroupDiscoveryFailedError } from "./discovery.js";
export type { NamespaceDiscovery, NamespaceDiscoveryResult, NamespacedResourceList, NamespacedAPIResource } from "./discovery.js";
