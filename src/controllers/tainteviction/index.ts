/** kubeloop/controllers/tainteviction: NoExecute taint eviction (kube-controller-manager's pkg/controller/tainteviction). */
export {
  TaintEvictionController,
  TAINT_EVICTION_CONTROLLER_NAME,
  DEFAULT_TAINT_EVICTION_WORKERS,
  DELETION_BY_TAINT_MANAGER,
  TAINT_MANAGER_EVICTION,
  noExecuteTaints,
  matchingTolerations,
  minTolerationMs,
} from "./controller.js";
export type { TaintEvictionControllerOptions } from "./controller.js";
