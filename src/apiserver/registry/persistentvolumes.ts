/**
 * core/v1 PersistentVolumes and PersistentVolumeClaims.
 *
 * Defaults (core/v1 defaults.go): PV reclaim policy Retain, volumeMode Filesystem; PVC
 * volumeMode Filesystem; both start in phase Pending (upstream's create resets status and the
 * stored object is read back with the phase defaulted). PVs also record
 * lastPhaseTransitionTime, on create and whenever the phase changes: core/volumes.ts, which has
 * the server's clock.
 *
 * Validation (core/validation): access modes (at least one, known ones, ReadWriteOncePod alone),
 * PV capacity holding exactly `storage` with a positive quantity, one volume source exactly
 * (the essentials of each: hostPath/local path, nfs server and path, csi driver and handle),
 * reclaim policy, storage class names; PVC storage request required and positive, volume mode,
 * selector. Updates: a PV's source and volume mode are immutable; a PVC's spec is immutable
 * except resources.requests (only up) and, once, volumeName; the beta storage-class annotation
 * cannot change.
 */
import type { PersistentVolume, PersistentVolumeClaim } from "../../apimachinery/api/core/v1.js";
import { fieldErrors, type FieldError } from "../../apimachinery/fielderrors.js";
import type { KubeObject } from "../../apimachinery/types.js";
import { nameIsDNSSubdomain } from "../../apimachinery/validation.js";
import { defineStrategy } from "./define.js";
import { semanticEqual } from "../../apimachinery/equality.js";
import { validateImmutableField, validateLabelSelector } from "./meta.js";
import { child, key } from "./path.js";
import { jsonDiff } from "./podvalidation.js";
import { rec, ensureRecord, list, str } from "./shape.js";
import type { ResourceStrategy } from "./strategy.js";
import { quantityValue, validatePositiveQuantity, validateResourceQuantityValue } from "./volumequantity.js";

/** core.BetaStorageClassAnnotation. */
export const betaStorageClassAnnotation = "volume.beta.kubernetes.io/storage-class";

const accessModes = ["ReadOnlyMany", "ReadWriteMany", "ReadWriteOnce", "ReadWriteOncePod"];
const volumeModes = ["Block", "Filesystem"];
const reclaimPolicies = ["Delete", "Recycle", "Retain"];

/** The persistent volume sources a PV may carry (PersistentVolumeSource), in upstream's check order. */
const pvSources = [
  "hostPath", "gcePersistentDisk", "awsElasticBlockStore", "glusterfs", "flocker", "nfs", "rbd", "quobyte", "cinder",
  "cephfs", "iscsi", "fc", "azureFile", "vsphereVolume", "photonPersistentDisk", "portworxVolume", "azureDisk",
  "scaleIO", "local", "storageos", "csi", "flexVolume",
];

// ---- defaults -------------------------------------------------------------------------------

export function defaultPersistentVolumeClaim(obj: KubeObject): void {
  const spec = ensureRecord(obj, "spec");
  if (spec) spec.volumeMode ??= "Filesystem";
}

export function defaultPersistentVolume(obj: KubeObject): void {
  const spec = ensureRecord(obj, "spec");
  if (!spec) return;
  spec.persistentVolumeReclaimPolicy ||= "Retain";
  spec.volumeMode ??= "Filesystem";
}

// ---- shared ---------------------------------------------------------------------------------

function validateAccessModes(modes: unknown, field: string, required: string): FieldError[] {
  const errs: FieldError[] = [];
  const items = list<unknown>(modes);
  if (items.length === 0) errs.push(fieldErrors.required(field, required));
  let rwop = false;
  let other = false;
  for (const m of items) {
    if (typeof m !== "string" || !accessModes.includes(m)) errs.push(fieldErrors.notSupported(field, m, accessModes));
    else if (m === "ReadWriteOncePod") rwop = true;
    else other = true;
  }
  if (rwop && other) errs.push(fieldErrors.forbidden(field, "may not use ReadWriteOncePod with other access modes"));
  return errs;
}

function validateClassName(name: unknown, field: string): FieldError[] {
  if (typeof name !== "string" || name === "") return [];
  return nameIsDNSSubdomain(name, false).map((msg) => fieldErrors.invalid(field, name, msg));
}

function validateVolumeMode(mode: unknown, field: string): FieldError[] {
  if (mode === undefined || mode === null) return [];
  if (typeof mode !== "string" || !volumeModes.includes(mode)) return [fieldErrors.notSupported(field, mode, volumeModes)];
  return [];
}

// ---- PersistentVolume -----------------------------------------------------------------------

function validateVolumeSource(spec: Record<string, unknown>, field: string): FieldError[] {
  const errs: FieldError[] = [];
  let count = 0;
  for (const src of pvSources) {
    const v = spec[src];
    if (v === undefined || v === null) continue;
    if (count > 0) {
      errs.push(fieldErrors.forbidden(child(field, src), "may not specify more than 1 volume type"));
      continue;
    }
    count++;
    const s = rec(v) ?? {};
    const p = child(field, src);
    switch (src) {
      case "hostPath":
      case "local":
        if (!str(s.path)) errs.push(fieldErrors.required(child(p, "path"), ""));
        break;
      case "nfs":
        if (!str(s.server)) errs.push(fieldErrors.required(child(p, "server"), ""));
        if (!str(s.path)) errs.push(fieldErrors.required(child(p, "path"), ""));
        else if (!str(s.path)!.startsWith("/")) errs.push(fieldErrors.invalid(child(p, "path"), s.path, "must be an absolute path"));
        break;
      case "csi":
        if (!str(s.driver)) errs.push(fieldErrors.required(child(p, "driver"), ""));
        if (!str(s.volumeHandle)) errs.push(fieldErrors.required(child(p, "volumeHandle"), ""));
        break;
    }
  }
  if (count === 0) errs.push(fieldErrors.required(field, "must specify a volume type"));
  return errs;
}

/** ValidatePersistentVolumeSpec (not inline). */
export function validatePersistentVolumeSpec(obj: KubeObject): FieldError[] {
  const spec = rec(obj.spec) ?? {};
  const errs: FieldError[] = [];
  errs.push(...validateAccessModes(spec.accessModes, "spec.accessModes", ""));
  const capacity = rec(spec.capacity);
  const capKeys = Object.keys(capacity ?? {});
  if (capKeys.length === 0) errs.push(fieldErrors.required("spec.capacity", ""));
  if (!capacity || !("storage" in capacity) || capKeys.length > 1) errs.push(fieldErrors.notSupported("spec.capacity", capacity ?? null, ["storage"]));
  for (const k of capKeys) {
    const p = key("spec.capacity", k);
    const e = validateResourceQuantityValue(k, capacity![k], p);
    errs.push(...(e.length ? e : validatePositiveQuantity(capacity![k], p)));
  }
  errs.push(...validateClassName(spec.storageClassName, "spec.storageClassName"));
  errs.push(...validateVolumeMode(spec.volumeMode, "spec.volumeMode"));
  errs.push(...validateClassName(spec.volumeAttributesClassName, "spec.volumeAttributesClassName"));
  const rp = spec.persistentVolumeReclaimPolicy;
  if (typeof rp === "string" && rp !== "" && !reclaimPolicies.includes(rp)) {
    errs.push(fieldErrors.notSupported("spec.persistentVolumeReclaimPolicy", rp, reclaimPolicies));
  }
  errs.push(...validateVolumeSource(spec, "spec"));
  const hostPath = str(rec(spec.hostPath)?.path);
  if (hostPath !== undefined && hostPath.replace(/\/+$/, "") === "" && hostPath.startsWith("/") && rp === "Recycle") {
    errs.push(fieldErrors.forbidden("spec.persistentVolumeReclaimPolicy", "may not be 'recycle' for a hostPath mount of '/'"));
  }
  const claimRef = rec(spec.claimRef);
  if (claimRef && str(claimRef.name) === undefined) errs.push(fieldErrors.required("spec.claimRef.name", ""));
  return errs;
}

function sourceOf(obj: KubeObject): Record<string, unknown> {
  const spec = rec(obj.spec) ?? {};
  const out: Record<string, unknown> = {};
  for (const s of pvSources) if (spec[s] !== undefined) out[s] = spec[s];
  return out;
}

export function validatePersistentVolumeUpdate(obj: KubeObject, old: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  const next = sourceOf(obj);
  const prev = sourceOf(old);
  if (!semanticEqual(next, prev)) {
    errs.push(fieldErrors.forbidden("spec.persistentvolumesource", `spec.persistentvolumesource is immutable after creation\n${jsonDiff(prev, next).join("\n")}`));
  }
  errs.push(...validateImmutableField((obj.spec as PersistentVolume["spec"])?.volumeMode, (old.spec as PersistentVolume["spec"])?.volumeMode, "volumeMode"));
  const oldAffinity = (old.spec as PersistentVolume["spec"])?.nodeAffinity;
  if (oldAffinity != null) errs.push(...validateImmutableField((obj.spec as PersistentVolume["spec"])?.nodeAffinity, oldAffinity, "nodeAffinity"));
  return errs;
}

const pvPhases = ["Available", "Bound", "Failed", "Pending", "Released"];

export const persistentVolumeStrategy: ResourceStrategy = defineStrategy({
  names: {
    group: "",
    version: "v1",
    kind: "PersistentVolume",
    resource: "persistentvolumes",
    singular: "persistentvolume",
    listKind: "PersistentVolumeList",
    shortNames: ["pv"],
    categories: [],
    namespaced: false,
  },
  subresources: { status: true },
  nameFn: nameIsDNSSubdomain,
  defaults: defaultPersistentVolume,
  // lastPhaseTransitionTime is stamped by the server's hook (core/volumes.ts): it needs a clock.
  emptyStatus: () => ({ phase: "Pending" }),
  validateSpec: validatePersistentVolumeSpec,
  validateUpdate: validatePersistentVolumeUpdate,
  validateStatus: (obj) => {
    const phase = rec(obj.status)?.phase;
    if (phase !== undefined && phase !== "" && (typeof phase !== "string" || !pvPhases.includes(phase))) {
      return [fieldErrors.notSupported("status.phase", phase, pvPhases)];
    }
    return [];
  },
});

// ---- PersistentVolumeClaim ------------------------------------------------------------------

/** ValidatePersistentVolumeClaimSpec. */
export function validatePersistentVolumeClaimSpec(spec: Record<string, unknown>, field: string): FieldError[] {
  const errs: FieldError[] = [];
  errs.push(...validateAccessModes(spec.accessModes, child(field, "accessModes"), "at least 1 access mode is required"));
  if (rec(spec.selector)) errs.push(...validateLabelSelector(spec.selector as never, child(field, "selector")));
  const requests = rec(rec(spec.resources)?.requests);
  const sp = key(child(field, "resources"), "storage");
  if (!requests || !("storage" in requests)) errs.push(fieldErrors.required(sp, ""));
  else {
    const e = validatePositiveQuantity(requests.storage, sp);
    errs.push(...(e.length ? e : validateResourceQuantityValue("storage", requests.storage, sp)));
  }
  errs.push(...validateClassName(spec.storageClassName, child(field, "storageClassName")));
  errs.push(...validateVolumeMode(spec.volumeMode, child(field, "volumeMode")));
  errs.push(...validateClassName(spec.volumeAttributesClassName, child(field, "volumeAttributesClassName")));
  for (const k of ["dataSource", "dataSourceRef"]) {
    const ds = rec(spec[k]);
    if (!ds) continue;
    if (!str(ds.name)) errs.push(fieldErrors.required(child(field, k, "name"), ""));
    if (!str(ds.kind)) errs.push(fieldErrors.required(child(field, k, "kind"), ""));
    const group = str(ds.apiGroup) ?? "";
    if (group === "" && ds.kind !== undefined && ds.kind !== "PersistentVolumeClaim") {
      errs.push(fieldErrors.invalid(child(field, k), ds.kind, "must be 'PersistentVolumeClaim' when referencing the default apiGroup"));
    }
  }
  return errs;
}

const storageOf = (o: KubeObject): unknown => rec(rec(rec(o.spec)?.resources)?.requests)?.storage;

export function validatePersistentVolumeClaimUpdate(obj: KubeObject, old: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  const next = structuredClone(rec(obj.spec) ?? {});
  const prev = structuredClone(rec(old.spec) ?? {});
  // The volume name may be set once (the binder does it).
  if (!str(prev.volumeName)) prev.volumeName = next.volumeName;
  const oldAnn = old.metadata?.annotations?.[betaStorageClassAnnotation];
  const newAnn = obj.metadata?.annotations?.[betaStorageClassAnnotation];
  // Moving the beta annotation into spec.storageClassName is the one class change allowed.
  const upgrade = oldAnn !== undefined && oldAnn === newAnn && prev.storageClassName === undefined && next.storageClassName === oldAnn;
  if (upgrade) delete next.storageClassName;
  else if ((oldAnn ?? "") !== (newAnn ?? "")) {
    errs.push(fieldErrors.forbidden(key("metadata.annotations", betaStorageClassAnnotation), "field is immutable"));
  }
  // Requests may change; volumeAttributesClassName too (VolumeAttributesClass is GA).
  for (const s of [next, prev]) {
    const res = rec(s.resources);
    if (res) s.resources = { ...res, requests: undefined };
    delete s.volumeAttributesClassName;
  }
  if (!semanticEqual(next, prev)) {
    errs.push(
      fieldErrors.forbidden("spec", `spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims\n${jsonDiff(prev, next).join("\n")}`),
    );
  }
  const newSize = quantityValue(storageOf(obj), "").value;
  const oldSize = quantityValue(storageOf(old), "").value;
  if (newSize !== undefined && oldSize !== undefined && newSize < oldSize) {
    // RecoverVolumeExpansionFailure (GA): a request may shrink back down to the recorded capacity.
    const capacity = rec(rec(old.status)?.capacity)?.storage;
    const cap = quantityValue(capacity, "").value;
    if (cap === undefined || newSize <= cap) {
      errs.push(fieldErrors.forbidden("spec.resources.requests.storage", cap === undefined ? "field can not be less than previous value" : "field can not be less than status.capacity"));
    }
  }
  errs.push(...validateImmutableField((obj.spec as PersistentVolumeClaim["spec"])?.volumeMode, (old.spec as PersistentVolumeClaim["spec"])?.volumeMode, "volumeMode"));
  return errs;
}

const pvcPhases = ["Bound", "Lost", "Pending"];

export const persistentVolumeClaimStrategy: ResourceStrategy = defineStrategy({
  names: {
    group: "",
    version: "v1",
    kind: "PersistentVolumeClaim",
    resource: "persistentvolumeclaims",
    singular: "persistentvolumeclaim",
    listKind: "PersistentVolumeClaimList",
    shortNames: ["pvc"],
    categories: [],
    namespaced: true,
  },
  subresources: { status: true },
  nameFn: nameIsDNSSubdomain,
  defaults: defaultPersistentVolumeClaim,
  emptyStatus: () => ({ phase: "Pending" }),
  validateSpec: (obj) => validatePersistentVolumeClaimSpec(rec(obj.spec) ?? {}, "spec"),
  validateUpdate: validatePersistentVolumeClaimUpdate,
  validateStatus: (obj) => {
    const st = rec(obj.status) ?? {};
    const errs: FieldError[] = [];
    const phase = st.phase;
    if (phase !== undefined && phase !== "" && (typeof phase !== "string" || !pvcPhases.includes(phase))) {
      errs.push(fieldErrors.notSupported("status.phase", phase, pvcPhases));
    }
    const cap = rec(st.capacity) ?? {};
    for (const k of Object.keys(cap)) errs.push(...validateResourceQuantityValue(k, cap[k], key("status.capacity", k)));
    return errs;
  },
});

/** A PVC's storage class as the printers and binder read it: the beta annotation first. */
export function claimStorageClass(obj: KubeObject): string {
  const ann = obj.metadata?.annotations?.[betaStorageClassAnnotation];
  if (ann !== undefined) return ann;
  return str(rec(obj.spec)?.storageClassName) ?? "";
}
