/** kubeloop/controllers/endpointslicemirroring: EndpointSlices mirrored from the Endpoints of Services without a selector. */
export {
  EndpointSliceMirroringController,
  planMirroring,
  shouldMirror,
  managedByMirroring,
  ENDPOINTSLICE_MIRRORING_CONTROLLER_NAME,
  DEFAULT_ENDPOINTSLICE_MIRRORING_WORKERS,
  ENDPOINTSLICE_MIRRORING_MAX_RETRIES,
} from "./controller.js";
export type { EndpointSliceMirroringControllerOptions, MirroringPlan } from "./controller.js";
export {
  desiredState,
  repackSubsets,
  canonicalIP,
  addressToEndpoint,
  newEndpointSlice,
  sliceGroupKey,
  MIRRORING_CONTROLLER_NAME_VALUE,
  MANAGED_BY_LABEL,
  SERVICE_NAME_LABEL,
  SKIP_MIRROR_LABEL,
  DEFAULT_MAX_ENDPOINTS_PER_SUBSET,
} from "./desired.js";
export type { DesiredGroup, DesiredState, AddressType } from "./desired.js";
