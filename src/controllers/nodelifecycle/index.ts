/** kubeloop/controllers/nodelifecycle: node health, the NotReady/Unreachable taints and per-zone eviction rate limiting (pkg/controller/nodelifecycle). */
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
  ZONE_PASS,
} from "./controller.js";
export {
  zoneKey,
  computeZoneState,
  zoneEvictionRate,
  LABEL_TOPOLOGY_ZONE,
  LABEL_TOPOLOGY_REGION,
  LABEL_NODE_EXCLUDE_DISRUPTION,
  DEFAULT_NODE_EVICTION_RATE,
  DEFAULT_SECONDARY_NODE_EVICTION_RATE,
  DEFAULT_LARGE_CLUSTER_SIZE_THRESHOLD,
  DEFAULT_UNHEALTHY_ZONE_THRESHOLD,
} from "./zones.js";
export type { ZoneState, EvictionRates } from "./zones.js";
export type { NodeLifecycleControllerOptions } from "./controller.js";
