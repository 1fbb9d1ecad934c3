/**
 * The annotations, event reasons and messages the PersistentVolume controller and the simulated
 * provisioner share (upstream pkg/controller/volume/persistentvolume, component-helpers
 * storage/volume, pkg/controller/volume/events, sig-storage-lib-external-provisioner).
 */

/** On a claim: binding is complete; the controller owns the claim's sync from here ("yes"). */
export const ANN_BIND_COMPLETED = "pv.kubernetes.io/bind-completed";
/** On a claim or a volume: the controller (not a user) set volumeName / claimRef ("yes"). */
export const ANN_BOUND_BY_CONTROLLER = "pv.kubernetes.io/bound-by-controller";
/** On a volume: the provisioner that created it. */
export const ANN_DYNAMICALLY_PROVISIONED = "pv.kubernetes.io/provisioned-by";
/** On a claim: the provisioner that is to provision it (set by the controller). */
export const ANN_STORAGE_PROVISIONER = "volume.kubernetes.io/storage-provisioner";
export const ANN_BETA_STORAGE_PROVISIONER = "volume.beta.kubernetes.io/storage-provisioner";
/** On a claim: the node the scheduler chose for a WaitForFirstConsumer claim's first pod. */
export const ANN_SELECTED_NODE = "volume.kubernetes.io/selected-node";
/** The beta class annotation, read before spec.storageClassName as upstream's GetPersistentVolume(Claim)Class. */
export const ANN_BETA_STORAGE_CLASS = "volume.beta.kubernetes.io/storage-class";

export const VOLUME_BINDING_IMMEDIATE = "Immediate";
export const VOLUME_BINDING_WAIT_FOR_FIRST_CONSUMER = "WaitForFirstConsumer";

/** Event reasons (pkg/controller/volume/events) and the provisioner library's. */
export const Reasons = Object.freeze({
  ClaimLost: "ClaimLost",
  ClaimMisbound: "ClaimMisbound",
  FailedBinding: "FailedBinding",
  VolumeMismatch: "VolumeMismatch",
  ProvisioningFailed: "ProvisioningFailed",
  ProvisioningSucceeded: "ProvisioningSucceeded",
  ExternalProvisioning: "ExternalProvisioning",
  WaitForFirstConsumer: "WaitForFirstConsumer",
  Provisioning: "Provisioning",
  VolumeFailedRecycle: "VolumeFailedRecycle",
  VolumeDelete: "VolumeDelete",
});

export const Messages = Object.freeze({
  waitForFirstConsumer: "waiting for first consumer to be created before binding",
  noVolumeNoClass: "no persistent volumes available for this claim and no storage class is set",
  externalProvisioning: (provisioner: string) =>
    `Waiting for a volume to be created either by the external provisioner '${provisioner}' or manually by the system administrator. If volume creation is delayed, please verify that the provisioner is running and correctly registered.`,
  claimLostReference: "Bound claim has lost reference to PersistentVolume. Data on the volume is lost!",
  claimLostVolume: "Bound claim has lost its PersistentVolume. Data on the volume is lost!",
  claimMisbound: "Two claims are bound to the same volume, this one is bound incorrectly",
  volumeBoundElsewhere: (volume: string) => `volume "${volume}" already bound to a different claim.`,
  cannotBind: (volume: string, why: string) => `Cannot bind to requested volume "${volume}": ${why}`,
  volumeModeMismatch: (claim: string) => `Cannot bind PersistentVolume to requested PersistentVolumeClaim "${claim}" due to incompatible volumeMode.`,
  provisioning: (claimKey: string) => `External provisioner is provisioning volume for claim "${claimKey}"`,
  provisioned: (volume: string) => `Successfully provisioned volume ${volume}`,
  noRecycler: "No recycler plugin found for the volume!",
});

/** Upstream's --pvclaimbinder-sync-period default: every claim and volume is synced again this often. */
export const RESYNC_PERIOD_MS = 15_000;
