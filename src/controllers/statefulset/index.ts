/**
 * The StatefulSet controller (kube-controller-manager's pkg/controller/statefulset, 1.36):
 * OrderedReady and Parallel pod management, stable identity (`<set>-<ordinal>`, hostname and
 * subdomain, the `statefulset.kubernetes.io/pod-name` and `apps.kubernetes.io/pod-index` labels),
 * `spec.ordinals.start`, RollingUpdate with `partition` and `maxUnavailable` (the
 * MaxUnavailableStatefulSet gate, on by default), OnDelete, volumeClaimTemplates
 * (`<claim>-<set>-<ordinal>`) with the PVC retention policy as owner references, `minReadySeconds`
 * on the manager's Clock, ControllerRevision history (controllers/history) with
 * `revisionHistoryLimit`, rollback and `collisionCount`, upstream's status and events.
 *
 *   new StatefulSetController(mgr, { workers?: 5, maxUnavailableStatefulSet?: true })
 *
 * The utilities under upstream's names (camelCase) are exported for tests and other controllers.
 */
export { StatefulSetController, DEFAULT_STATEFULSET_WORKERS } from "./controller.js";
export type { StatefulSetControllerOptions } from "./controller.js";
export { StatefulSetControl, slowStartBatch, updateStatus, MAX_BATCH_SIZE, PassError, AggregateSyncError, type StatefulSetControlDeps } from "./control.js";
export { StatefulPodControl, setReference } from "./podcontrol.js";
export * from "./utils.js";
