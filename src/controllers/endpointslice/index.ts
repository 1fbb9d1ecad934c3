/** kubeloop/controllers/endpointslice: the EndpointSlice controller. */
export {
  EndpointSliceController,
  ENDPOINTSLICE_CONTROLLER_NAME,
  DEFAULT_ENDPOINTSLICE_WORKERS,
  ENDPOINTSLICE_MAX_RETRIES,
} from "./controller.js";
export type { EndpointSliceControllerOptions } from "./controller.js";
export {
  addressTypesFor,
  desiredGroups,
  endpointPorts,
  podToEndpoint,
  MANAGED_BY_LABEL,
  CONTROLLER_NAME_VALUE,
  SERVICE_NAME_LABEL,
  HEADLESS_LABEL,
  ZONE_LABEL,
  DEFAULT_MAX_ENDPOINTS_PER_SLICE,
} from "./desired.js";
export type { AddressType, PortGroup } from "./desired.js";
export { planSlices, sliceLabels } from "./reconciler.js";
export { EndpointSliceTracker, StaleInformerCacheError } from "./tracker.js";
export type { SlicePlan } from "./reconciler.js";
