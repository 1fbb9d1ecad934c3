/** kubeloop/controllers/disruption: the Disruption controller (PodDisruptionBudget status). */
export {
  DisruptionController,
  buildDisruptedPodMap,
  countHealthyPods,
  DISRUPTION_CONTROLLER_NAME,
  DEFAULT_DISRUPTION_WORKERS,
  DELETION_TIMEOUT_MS,
  DISRUPTION_ALLOWED_CONDITION,
  SUFFICIENT_PODS_REASON,
  INSUFFICIENT_PODS_REASON,
  SYNC_FAILED_REASON,
} from "./controller.js";
export type { DisruptionControllerOptions } from "./controller.js";
export { ScaleFinder, NoControllersError } from "./scale.js";
