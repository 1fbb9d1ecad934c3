/** kubeloop/controllers/volumeprotection: the PVC and PV protection controllers (storage-object-in-use protection finalizers). */
export {
  PVC_PROTECTION_FINALIZER,
  PV_PROTECTION_FINALIZER,
  PVC_PROTECTION_CONTROLLER_NAME,
  PV_PROTECTION_CONTROLLER_NAME,
  DEFAULT_PVC_PROTECTION_WORKERS,
  DEFAULT_PV_PROTECTION_WORKERS,
  isDeletionCandidate,
  needToAddFinalizer,
} from "./constants.js";
export type { Finalizable } from "./constants.js";
export {
  PVCProtectionController,
  PVCBatches,
  LazyLivePodList,
  POD_PVC_INDEX,
  podPVCIndexKeys,
  podUsesPVC,
  podIsShutDown,
  isPodTerminated,
  pvcNeedsSync,
  claimsFreedBy,
  claimsForPodEvent,
  ephemeralVolumeClaimName,
  ephemeralVolumeIsForPod,
} from "./pvcprotection.js";
export type { PVCProtectionControllerOptions } from "./pvcprotection.js";
export { PVProtectionController, pvNeedsSync, pvIsBeingUsed } from "./pvprotection.js";
export type { PVProtectionControllerOptions } from "./pvprotection.js";
