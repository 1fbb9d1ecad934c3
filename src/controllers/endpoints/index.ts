/** kubeloop/controllers/endpoints: the Endpoints controller. */
export {
  EndpointsController,
  podEndpointsChanged,
  ENDPOINTS_CONTROLLER_NAME,
  DEFAULT_ENDPOINTS_WORKERS,
  ENDPOINTS_MAX_RETRIES,
} from "./controller.js";
export type { EndpointsControllerOptions } from "./controller.js";
export {
  computeSubsets,
  repackSubsets,
  findPort,
  isPodReady,
  shouldPodBeInEndpoints,
  PortNotFoundError,
  HEADLESS_SERVICE_LABEL,
  LAST_CHANGE_TRIGGER_TIME_ANNOTATION,
  LEADER_ANNOTATION,
} from "./subsets.js";
export type { SubsetsResult } from "./subsets.js";
