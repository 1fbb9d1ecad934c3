/** kubeloop/controllers/nodelifecycle: node health and the NotReady/Unreachable taints (pkg/controller/nodelifecycle). */
export {
  NodeLifecycleController,
  NODE_LIFECYCLE_CONTROLLER_NAME,
  DEFAULT_NODE_MONITOR_GRACE_PERIOD_MS,
  DEFAULT_NODE_STARTUP_GRACE_PERIOD_MS,
  TAINT_NODE_NOT_READY,
  TAINT_NODE_UNREACHABLE,
  TAINT_NODE_UNSCHEDULABLE,
  NODE_STATUS_UNKNOWN_REASON,
  NODE_STATUS_UNKNOWN_MESSAGE,
  NODE_STATUS_NEVER_UPDATED_REASON,
  NODE_STATUS_NEVER_UPDATED_MESSAGE,
  desiredTaints,
  reconcileTaints,
} from "./controller.js";
export type { NodeLifecycleControllerOptions } from "./controller.js";
