/** PersistentVolumes and PersistentVolumeClaims (VOLUMEMODE is a wide column, but every row carries it). */
import type { PersistentVolume, PersistentVolumeClaim } from "../../apimachinery/api/core/v1.js";
import type { KubeObject } from "../../apimachinery/types.js";
import { betaStorageClassAnnotation, claimStorageClass } from "../registry/persistentvolumes.js";
import { CORE, ageColumn, col, colText, nameColumn } from "./columns.js";
import { translateTimestampSince } from "./duration.js";
import type { PrintContext, PrintedRow, Printer } from "./types.js";

/** helper.GetAccessModesAsString: RWO, ROX, RWX, RWOP in that order, each once. */
export function accessModesString(modes: readonly string[] | undefined): string {
  const m = modes ?? [];
  const out: string[] = [];
  if (m.includes("ReadWriteOnce")) out.push("RWO");
  if (m.includes("ReadOnlyMany")) out.push("ROX");
  if (m.includes("ReadWriteMany")) out.push("RWX");
  if (m.includes("ReadWriteOncePod")) out.push("RWOP");
  return out.join(",");
}

export function printPersistentVolume(obj: KubeObject, ctx: PrintContext): PrintedRow {
  const pv = obj as unknown as PersistentVolume;
  const spec = pv.spec;
  const claim = spec?.claimRef ? `${spec.claimRef.namespace ?? ""}/${spec.claimRef.name ?? ""}` : "";
  const phase = pv.metadata?.deletionTimestamp ? "Terminating" : (pv.status?.phase ?? "");
  const storageClass = pv.metadata?.annotations?.[betaStorageClassAnnotation] ?? spec?.storageClassName ?? "";
  return {
    cells: [
      pv.metadata?.name ?? "",
      spec?.capacity?.storage ?? "0",
      accessModesString(spec?.accessModes),
      spec?.persistentVolumeReclaimPolicy ?? "",
      phase,
      claim,
      storageClass,
      spec?.volumeAttributesClassName ?? "<unset>",
      pv.status?.reason ?? "",
      translateTimestampSince(pv.metadata?.creationTimestamp, ctx.now),
      spec?.volumeMode ?? "<unset>",
    ],
  };
}

export const persistentVolumePrinter = (): Printer => ({
  columns: [
    nameColumn(),
    col("Capacity", "string", `${CORE}.PersistentVolumeSpec`, "capacity"),
    col("Access Modes", "string", `${CORE}.PersistentVolumeSpec`, "accessModes"),
    col("Reclaim Policy", "string", `${CORE}.PersistentVolumeSpec`, "persistentVolumeReclaimPolicy"),
    col("Status", "string", `${CORE}.PersistentVolumeStatus`, "phase"),
    col("Claim", "string", `${CORE}.PersistentVolumeSpec`, "claimRef"),
    colText("StorageClass", "string", "StorageClass of the pv"),
    colText("VolumeAttributesClass", "string", "VolumeAttributesClass of the pv"),
    col("Reason", "string", `${CORE}.PersistentVolumeStatus`, "reason"),
    ageColumn(),
    col("VolumeMode", "string", `${CORE}.PersistentVolumeSpec`, "volumeMode", 1),
  ],
  print: printPersistentVolume,
});

export function printPersistentVolumeClaim(obj: KubeObject, ctx: PrintContext): PrintedRow {
  const pvc = obj as unknown as PersistentVolumeClaim;
  const phase = pvc.metadata?.deletionTimestamp ? "Terminating" : (pvc.status?.phase ?? "");
  let capacity = "";
  let modes = "";
  if (pvc.spec?.volumeName) {
    modes = accessModesString(pvc.status?.accessModes);
    capacity = pvc.status?.capacity?.storage ?? "0";
  }
  return {
    cells: [
      pvc.metadata?.name ?? "",
      phase,
      pvc.spec?.volumeName ?? "",
      capacity,
      modes,
      claimStorageClass(obj),
      pvc.spec?.volumeAttributesClassName ?? "<unset>",
      translateTimestampSince(pvc.metadata?.creationTimestamp, ctx.now),
      pvc.spec?.volumeMode ?? "<unset>",
    ],
  };
}

export const persistentVolumeClaimPrinter = (): Printer => ({
  columns: [
    nameColumn(),
    col("Status", "string", `${CORE}.PersistentVolumeClaimStatus`, "phase"),
    col("Volume", "string", `${CORE}.PersistentVolumeClaimSpec`, "volumeName"),
    col("Capacity", "string", `${CORE}.PersistentVolumeClaimStatus`, "capacity"),
    col("Access Modes", "string", `${CORE}.PersistentVolumeClaimStatus`, "accessModes"),
    colText("StorageClass", "string", "StorageClass of the pvc"),
    colText("VolumeAttributesClass", "string", "VolumeAttributesClass of the pvc"),
    ageColumn(),
    col("VolumeMode", "string", `${CORE}.PersistentVolumeClaimSpec`, "volumeMode", 1),
  ],
  print: printPersistentVolumeClaim,
});
