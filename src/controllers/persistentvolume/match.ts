/**
 * Which PersistentVolume a claim may bind to (upstream pkg/controller/volume/persistentvolume
 * index.go and component-helpers storage/volume FindMatchingVolume / CheckVolumeModeMismatches /
 * CheckAccessModes, checkVolumeSatisfyClaim in pv_controller.go).
 *
 * The best match is the smallest Available, unclaimed volume of the claim's class whose capacity
 * covers the request, whose labels the claim's selector selects and whose access modes include
 * the claim's — searched among volumes with the fewest access modes first (a claim for RWO takes
 * an RWO volume before an RWO+ROX one). A volume pre-bound to the claim (claimRef names it) wins
 * at once. With delayed binding (WaitForFirstConsumer and no node chosen yet) only a pre-bound
 * volume matches: the scheduler decides the rest.
 */
import type { PersistentVolume, PersistentVolumeClaim } from "../../apimachinery/api/core/v1.js";
import { labelSelectorAsSelector } from "../../apimachinery/labels.js";
import { compareQuantities } from "../../apimachinery/quantity.js";
import { ANN_BETA_STORAGE_CLASS } from "./constants.js";

/** GetPersistentVolumeClaimClass: the beta annotation, else spec.storageClassName, else "". */
export function claimClass(claim: PersistentVolumeClaim): string {
  const ann = claim.metadata?.annotations?.[ANN_BETA_STORAGE_CLASS];
  if (ann !== undefined) return ann;
  return claim.spec?.storageClassName ?? "";
}

/** GetPersistentVolumeClass: the beta annotation, else spec.storageClassName, else "". */
export function volumeClass(volume: PersistentVolume): string {
  const ann = volume.metadata?.annotations?.[ANN_BETA_STORAGE_CLASS];
  if (ann !== undefined) return ann;
  return volume.spec?.storageClassName ?? "";
}

/** IsVolumeBoundToClaim: claimRef names the claim (and its UID, when the ref has one). */
export function isVolumeBoundToClaim(volume: PersistentVolume, claim: PersistentVolumeClaim): boolean {
  const ref = volume.spec?.claimRef;
  if (!ref) return false;
  if (ref.name !== claim.metadata?.name || ref.namespace !== claim.metadata?.namespace) return false;
  return !ref.uid || ref.uid === claim.metadata?.uid;
}

/** CheckVolumeModeMismatches: an unset mode is Filesystem on both sides. */
export function volumeModeMismatches(claim: PersistentVolumeClaim, volume: PersistentVolume): boolean {
  return (claim.spec?.volumeMode || "Filesystem") !== (volume.spec?.volumeMode || "Filesystem");
}

/** CheckAccessModes: every mode the claim asks for is one the volume has. */
export function accessModesMatch(claim: PersistentVolumeClaim, volume: PersistentVolume): boolean {
  const have = new Set(volume.spec?.accessModes ?? []);
  return (claim.spec?.accessModes ?? []).every((m) => have.has(m));
}

const requestedStorage = (claim: PersistentVolumeClaim): string => claim.spec?.resources?.requests?.storage ?? "0";
const capacityOf = (volume: PersistentVolume): string => volume.spec?.capacity?.storage ?? "0";

/** checkVolumeSatisfyClaim: why a pre-bound volume cannot take the claim, or undefined when it can. */
export function volumeSatisfiesClaim(volume: PersistentVolume, claim: PersistentVolumeClaim): string | undefined {
  if (volume.metadata?.deletionTimestamp) return `the volume is marked for deletion "${volume.metadata.name ?? ""}"`;
  if (compareQuantities(capacityOf(volume), requestedStorage(claim)) < 0) return "requested PV is too small";
  if (volumeClass(volume) !== claimClass(claim)) return "storageClassName does not match";
  if (volumeModeMismatches(claim, volume)) return "incompatible volumeMode";
  if (!accessModesMatch(claim, volume)) return "incompatible accessMode";
  return undefined;
}

/** FindMatchingVolume over one group of volumes (node-less: the controller's path). */
export function findMatchingVolume(claim: PersistentVolumeClaim, volumes: readonly PersistentVolume[], delayBinding: boolean): PersistentVolume | undefined {
  const requested = requestedStorage(claim);
  const cls = claimClass(claim);
  const selector = claim.spec?.selector ? safeSelector(claim) : undefined;
  let smallest: PersistentVolume | undefined;
  for (const volume of volumes) {
    if (volumeModeMismatches(claim, volume)) continue;
    if (volume.metadata?.deletionTimestamp) continue;
    if (isVolumeBoundToClaim(volume, claim)) return volume;
    // The scheduler binds unbound volumes to delayed claims; the controller does not.
    if (delayBinding) continue;
    if (volume.status?.phase !== "Available") continue;
    if (volume.spec?.claimRef) continue;
    if (selector === null) continue;
    if (selector && !selector.matches(volume.metadata?.labels ?? {})) continue;
    if (volumeClass(volume) !== cls) continue;
    if (compareQuantities(capacityOf(volume), requested) < 0) continue;
    if (!smallest || compareQuantities(capacityOf(smallest), capacityOf(volume)) > 0) smallest = volume;
  }
  return smallest;
}

/** An invalid selector selects nothing (null). */
function safeSelector(claim: PersistentVolumeClaim): ReturnType<typeof labelSelectorAsSelector> | null {
  try {
    return labelSelectorAsSelector(claim.spec?.selector);
  } catch {
    return null;
  }
}

/**
 * persistentVolumeOrderedIndex.findBestMatchForClaim: volumes grouped by their access modes; the
 * groups whose modes include all the claim's, fewest modes first; the first group with a match
 * decides.
 */
export function findBestMatchForClaim(claim: PersistentVolumeClaim, volumes: readonly PersistentVolume[], delayBinding: boolean): PersistentVolume | undefined {
  const groups = new Map<string, { modes: Set<string>; volumes: PersistentVolume[] }>();
  for (const v of volumes) {
    const modes = [...new Set(v.spec?.accessModes ?? [])].sort();
    const key = modes.join(",");
    let g = groups.get(key);
    if (!g) groups.set(key, (g = { modes: new Set(modes), volumes: [] }));
    g.volumes.push(v);
  }
  const wanted = claim.spec?.accessModes ?? [];
  const candidates = [...groups.values()].filter((g) => wanted.every((m) => g.modes.has(m))).sort((a, b) => a.modes.size - b.modes.size);
  for (const g of candidates) {
    const found = findMatchingVolume(claim, g.volumes, delayBinding);
    if (found) return found;
  }
  return undefined;
}
