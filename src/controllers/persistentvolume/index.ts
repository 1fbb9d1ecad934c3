/** kubeloop/controllers/persistentvolume: the PersistentVolume binder, a simulated provisioner and the default StorageClass. */
export {
  PersistentVolumeController,
  claimReference,
  PERSISTENT_VOLUME_CONTROLLER_NAME,
  PERSISTENT_VOLUME_EVENT_COMPONENT,
  DEFAULT_PERSISTENT_VOLUME_WORKERS,
} from "./controller.js";
export type { PersistentVolumeControllerOptions } from "./controller.js";
export { SimulatedProvisioner, provisionedVolume, SIMULATED_PROVISIONER, PROVISIONER_CONTROLLER_NAME, HOSTPATH_ROOT } from "./provisioner.js";
export type { SimulatedProvisionerOptions } from "./provisioner.js";
export { defaultStorageClass, installDefaultStorageClass, DEFAULT_STORAGE_CLASS_NAME, IS_DEFAULT_CLASS_ANNOTATION } from "./storageclass.js";
export { claimClass, volumeClass, findBestMatchForClaim, findMatchingVolume, isVolumeBoundToClaim, volumeSatisfiesClaim, accessModesMatch, volumeModeMismatches } from "./match.js";
export * from "./constants.js";
