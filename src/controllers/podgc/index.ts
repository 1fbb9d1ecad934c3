/** kubeloop/controllers/podgc: the pod garbage collector (kube-controller-manager's pkg/controller/podgc). */
export {
  PodGCController,
  PODGC_CONTROLLER_NAME,
  GC_CHECK_PERIOD_MS,
  QUARANTINE_MS,
  DEFAULT_TERMINATED_POD_GC_THRESHOLD,
  TAINT_NODE_OUT_OF_SERVICE,
  DELETION_BY_POD_GC,
  isPodTerminated,
  podIsEvicted,
  isNodeReady,
  byEvictionAndCreationTimestamp,
} from "./controller.js";
export type { PodGCControllerOptions } from "./controller.js";
export { DISRUPTION_TARGET, updatePodCondition, patchPodStatus } from "./podstatus.js";
