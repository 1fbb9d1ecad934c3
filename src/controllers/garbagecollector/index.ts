/** kubeloop/controllers/garbagecollector: the garbage collector and its dependency graph. */
export {
  GarbageCollector,
  NamespacedOwnerOfClusterScopedObjectError,
  DEFAULT_GC_WORKERS,
  DEFAULT_DISCOVERY_RESYNC_MS,
  DEFAULT_INITIAL_SYNC_TIMEOUT_MS,
} from "./garbagecollector.js";
export type { GarbageCollectorOptions, ItemAction } from "./garbagecollector.js";
export { GraphBuilder, FINALIZER_ORPHAN_DEPENDENTS, FINALIZER_DELETE_DEPENDENTS } from "./graphbuilder.js";
export type { GraphEvent, GraphEventType, GraphBuilderOptions } from "./graphbuilder.js";
export { GraphNode, UIDToNode, referencesDiffs, formatReference } from "./graph.js";
export type { ObjectReference, OwnerRefPair } from "./graph.js";
export { ReferenceCache, ABSENT_OWNER_CACHE_SIZE } from "./referencecache.js";
export { deletableResources, discover, KindMapper, RestMappingError, DEFAULT_IGNORED_RESOURCES } from "./discovery.js";
export type { DiscoveredResourceInfo, GCDiscovery, DiscoverySource, DiscoveryResult } from "./discovery.js";
