/**
 * storage.k8s.io/v1: StorageClasses, CSIDrivers, CSINodes, CSIStorageCapacities,
 * VolumeAttachments (+status) and VolumeAttributesClasses, with upstream's defaults
 * (pkg/apis/storage/v1/defaults.go) and validation (pkg/apis/storage/validation):
 * - StorageClass: provisioner a qualified name, parameters ≤ 512 entries / 256 kB, reclaimPolicy
 *   Delete|Retain (default Delete), volumeBindingMode Immediate|WaitForFirstConsumer (default
 *   Immediate), allowedTopologies terms; provisioner, parameters, reclaimPolicy and
 *   volumeBindingMode are immutable. The default class is the one annotated
 *   storageclass.kubernetes.io/is-default-class=true (printed "NAME (default)").
 * - CSIDriver: attachRequired, podInfoOnMount, storageCapacity, requiresRepublish, seLinuxMount
 *   default false (attachRequired true), fsGroupPolicy ReadWriteOnceWithFSType,
 *   volumeLifecycleModes [Persistent]; attachRequired and volumeLifecycleModes are immutable.
 * - CSINode: drivers unique with nodeID ≤ 192 characters; an existing driver entry is
 *   immutable (its allocatable count may change).
 * - CSIStorageCapacity (namespaced): nodeTopology and storageClassName immutable.
 * - VolumeAttachment: attacher, exactly one of source.persistentVolumeName / inlineVolumeSpec,
 *   nodeName; the spec is immutable; status through the status subresource.
 * - VolumeAttributesClass: driverName, at least one parameter; both immutable.
 */
import { fieldErrors, type FieldError } from "../../apimachinery/fielderrors.js";
import type { KubeObject } from "../../apimachinery/types.js";
import { isDNS1123Subdomain, isQualifiedName, nameIsDNSSubdomain, utf8Length } from "../../apimachinery/validation.js";
import { defineStrategy } from "./define.js";
import { semanticEqual } from "../../apimachinery/equality.js";
import { validateImmutableField, validateLabelName, validateLabelSelector } from "./meta.js";
import { child, index } from "./path.js";
import { quantityNanos } from "../../apimachinery/quantity.js";
import { bool, fieldsOf, has, labelSelector, list, num, objAt, rec, records, str, stringMap, strings, text, type Obj } from "./shape.js";
import type { ResourceStrategy } from "./strategy.js";

export const storageGroup = "storage.k8s.io";

/** Annotations marking the default StorageClass (GA and the older beta key). */
export const isDefaultStorageClassAnnotation = "storageclass.kubernetes.io/is-default-class";
export const betaIsDefaultStorageClassAnnotation = "storageclass.beta.kubernetes.io/is-default-class";
/** The annotation marking the default VolumeAttributesClass. */
export const isDefaultVolumeAttributesClassAnnotation = "storage.kubernetes.io/is-default-class";

const maxProvisionerParameterSize = 256 * 1024;
const maxProvisionerParameterLen = 512;
const maxAttachedVolumeMetadataSize = 256 * 1024;
const maxVolumeErrorMessageSize = 1024;
const csiNodeIDMaxLength = 192;

/** storageutil.IsDefaultAnnotation: either annotation set to "true". */
export function isDefaultStorageClass(obj: KubeObject): boolean {
  const a = stringMap(obj.metadata?.annotations) ?? {};
  return a[isDefaultStorageClassAnnotation] === "true" || a[betaIsDefaultStorageClassAnnotation] === "true";
}

export function isDefaultVolumeAttributesClass(obj: KubeObject): boolean {
  return (stringMap(obj.metadata?.annotations) ?? {})[isDefaultVolumeAttributesClassAnnotation] === "true";
}

/** ValidateCSIDriverName (core validation): required, ≤ 63 characters, a DNS subdomain once lower-cased. */
export function validateCSIDriverName(name: string, field: string): FieldError[] {
  const errs: FieldError[] = [];
  if (name.length === 0) errs.push(fieldErrors.required(field, ""));
  if (name.length > 63) errs.push(fieldErrors.tooLong(field, name, 63));
  for (const msg of isDNS1123Subdomain(name.toLowerCase())) errs.push(fieldErrors.invalid(field, name, msg));
  return errs;
}

/** ValidateQualifiedName at `field`. */
export function validateQualifiedName(value: string, field: string): FieldError[] {
  return isQualifiedName(value).map((m) => fieldErrors.invalid(field, value, m));
}

/** validateProvisioner: required, a qualified name once lower-cased. */
function validateProvisioner(provisioner: string, field: string): FieldError[] {
  if (provisioner.length === 0) return [fieldErrors.required(field, provisioner)];
  return validateQualifiedName(provisioner.toLowerCase(), field);
}

function validateParameters(params: Record<string, string> | undefined, allowEmpty: boolean, field: string): FieldError[] {
  const errs: FieldError[] = [];
  const entries = Object.entries(params ?? {});
  if (entries.length > maxProvisionerParameterLen) return [fieldErrors.tooLong(field, "", maxProvisionerParameterLen)];
  let total = 0;
  for (const [k, v] of entries) {
    if (k.length < 1) errs.push(fieldErrors.invalid(field, k, "field can not be empty."));
    total += utf8Length(k) + utf8Length(v);
  }
  if (total > maxProvisionerParameterSize) errs.push(fieldErrors.tooLong(field, "", maxProvisionerParameterSize));
  if (!allowEmpty && entries.length === 0) errs.push(fieldErrors.required(field, "must contain at least one key/value pair"));
  return errs;
}

/** ValidateTopologySelectorTerm; returns the key → values map used to find duplicate terms. */
function validateTopologySelectorTerm(term: Obj, field: string): { exprs: Map<string, string[]>; errs: FieldError[] } {
  const errs: FieldError[] = [];
  const exprs = new Map<string, string[]>();
  const exprPath = child(field, "matchLabelExpressions");
  records(term.matchLabelExpressions).forEach((req, i) => {
    const p = index(exprPath, i);
    const values = strings(req.values);
    if (values.length === 0) errs.push(fieldErrors.required(child(p, "values"), ""));
    const seen = new Set<string>();
    values.forEach((v, vi) => {
      if (seen.has(v)) errs.push(fieldErrors.duplicate(index(child(p, "values"), vi), v));
      seen.add(v);
    });
    const key = text(req.key);
    errs.push(...validateLabelName(key, child(p, "key")));
    if (exprs.has(key)) errs.push(fieldErrors.duplicate(child(p, "key"), key));
    exprs.set(key, [...seen].sort());
  });
  return { exprs, errs };
}

function validateAllowedTopologies(v: unknown, field: string): FieldError[] {
  const errs: FieldError[] = [];
  const seen: Map<string, string[]>[] = [];
  records(v).forEach((term, i) => {
    const { exprs, errs: termErrs } = validateTopologySelectorTerm(term, index(field, i));
    errs.push(...termErrs);
    for (const t of seen) if (semanticEqual(Object.fromEntries(t), Object.fromEntries(exprs))) errs.push(fieldErrors.duplicate(child(index(field, i), "matchLabelExpressions"), ""));
    seen.push(exprs);
  });
  return errs;
}

// ---- StorageClass --------------------------------------------------------------------------

export function defaultStorageClass(obj: KubeObject): void {
  const sc = fieldsOf(obj);
  if (!has(sc, "reclaimPolicy")) sc.reclaimPolicy = "Delete";
  if (!has(sc, "volumeBindingMode")) sc.volumeBindingMode = "Immediate";
}

const reclaimPolicies = ["Delete", "Retain"];
const volumeBindingModes = ["Immediate", "WaitForFirstConsumer"];

export function validateStorageClass(obj: KubeObject): FieldError[] {
  const sc = fieldsOf(obj);
  const errs = validateProvisioner(text(sc.provisioner), "provisioner");
  errs.push(...validateParameters(stringMap(sc.parameters), true, "parameters"));
  const reclaim = text(sc.reclaimPolicy);
  if (reclaim.length > 0 && !reclaimPolicies.includes(reclaim)) errs.push(fieldErrors.notSupported("reclaimPolicy", reclaim, reclaimPolicies));
  const mode = sc.volumeBindingMode;
  if (mode === undefined || mode === null) errs.push(fieldErrors.required("volumeBindingMode", ""));
  else if (!volumeBindingModes.includes(String(mode))) errs.push(fieldErrors.notSupported("volumeBindingMode", mode, volumeBindingModes));
  errs.push(...validateAllowedTopologies(sc.allowedTopologies, "allowedTopologies"));
  return errs;
}

export function validateStorageClassUpdate(obj: KubeObject, old: KubeObject): FieldError[] {
  const n = fieldsOf(obj);
  const o = fieldsOf(old);
  const errs: FieldError[] = [];
  if (!semanticEqual(o.parameters ?? {}, n.parameters ?? {})) errs.push(fieldErrors.forbidden("parameters", "updates to parameters are forbidden."));
  if (text(n.provisioner) !== text(o.provisioner)) errs.push(fieldErrors.forbidden("provisioner", "updates to provisioner are forbidden."));
  if (text(n.reclaimPolicy) !== text(o.reclaimPolicy)) errs.push(fieldErrors.forbidden("reclaimPolicy", "updates to reclaimPolicy are forbidden."));
  errs.push(...validateImmutableField(n.volumeBindingMode, o.volumeBindingMode, "volumeBindingMode"));
  return errs;
}

// Upstream validates the StorageClass fields on create only; updates check immutability.
export const storageClassStrategy: ResourceStrategy = defineStrategy({
  names: {
    group: storageGroup,
    version: "v1",
    kind: "StorageClass",
    resource: "storageclasses",
    singular: "storageclass",
    listKind: "StorageClassList",
    shortNames: ["sc"],
    categories: [],
    namespaced: false,
  },
  nameFn: nameIsDNSSubdomain,
  defaults: defaultStorageClass,
  validateCreate: validateStorageClass,
  validateUpdate: validateStorageClassUpdate,
});

// ---- CSIDriver -----------------------------------------------------------------------------

export function defaultCSIDriver(obj: KubeObject): void {
  const spec = objAt(fieldsOf(obj), "spec");
  if (!has(spec, "attachRequired")) spec.attachRequired = true;
  if (!has(spec, "podInfoOnMount")) spec.podInfoOnMount = false;
  if (!has(spec, "storageCapacity")) spec.storageCapacity = false;
  if (!has(spec, "fsGroupPolicy")) spec.fsGroupPolicy = "ReadWriteOnceWithFSType";
  if (list(spec.volumeLifecycleModes).length === 0) spec.volumeLifecycleModes = ["Persistent"];
  if (!has(spec, "requiresRepublish")) spec.requiresRepublish = false;
  // SELinuxMountReadWriteOncePod is on by default: seLinuxMount defaults to false.
  if (!has(spec, "seLinuxMount")) spec.seLinuxMount = false;
}

const fsGroupPolicies = ["File", "None", "ReadWriteOnceWithFSType"];
const lifecycleModes = ["Persistent", "Ephemeral"];

function validateCSIDriverSpec(spec: Obj): FieldError[] {
  const errs: FieldError[] = [];
  // Upstream's paths say "attachedRequired".
  if (!has(spec, "attachRequired")) errs.push(fieldErrors.required("spec.attachedRequired", ""));
  if (!has(spec, "podInfoOnMount")) errs.push(fieldErrors.required("spec.podInfoOnMount", ""));
  if (!has(spec, "storageCapacity")) errs.push(fieldErrors.required("spec.storageCapacity", ""));
  if (has(spec, "fsGroupPolicy") && !fsGroupPolicies.includes(String(spec.fsGroupPolicy))) {
    errs.push(fieldErrors.notSupported("spec.fsGroupPolicy", spec.fsGroupPolicy, fsGroupPolicies));
  }
  const audiences = new Set<string>();
  records(spec.tokenRequests).forEach((tr, i) => {
    const p = index("spec.tokenRequests", i);
    const audience = text(tr.audience);
    if (audiences.has(audience)) {
      errs.push(fieldErrors.duplicate(child(p, "audience"), audience));
      return;
    }
    audiences.add(audience);
    const exp = num(tr.expirationSeconds);
    if (exp === undefined) return;
    if (exp < 600) errs.push(fieldErrors.invalid(child(p, "expirationSeconds"), exp, "may not specify a duration less than 10 minutes"));
    if (exp > 2 ** 32) errs.push(fieldErrors.invalid(child(p, "expirationSeconds"), exp, "may not specify a duration larger than 2^32 seconds"));
  });
  for (const mode of list(spec.volumeLifecycleModes)) {
    if (!lifecycleModes.includes(String(mode))) errs.push(fieldErrors.notSupported("spec.volumeLifecycleModes", mode, lifecycleModes));
  }
  if (!has(spec, "seLinuxMount")) errs.push(fieldErrors.required("spec.seLinuxMount", ""));
  const period = num(spec.nodeAllocatableUpdatePeriodSeconds);
  if (period !== undefined && period < 10) errs.push(fieldErrors.invalid("spec.nodeAllocatableUpdatePeriodSeconds", period, "must be greater than or equal to 10 seconds"));
  return errs;
}

export const csiDriverStrategy: ResourceStrategy = defineStrategy({
  names: {
    group: storageGroup,
    version: "v1",
    kind: "CSIDriver",
    resource: "csidrivers",
    singular: "csidriver",
    listKind: "CSIDriverList",
    shortNames: [],
    categories: [],
    namespaced: false,
  },
  nameFn: nameIsDNSSubdomain,
  defaults: defaultCSIDriver,
  validateSpec: (obj) => validateCSIDriverSpec(rec(fieldsOf(obj).spec) ?? {}),
  validateUpdate(obj, old) {
    const n = rec(fieldsOf(obj).spec) ?? {};
    const o = rec(fieldsOf(old).spec) ?? {};
    return [
      ...validateImmutableField(n.attachRequired, o.attachRequired, "spec.attachedRequired"),
      ...validateImmutableField(n.volumeLifecycleModes, o.volumeLifecycleModes, "spec.volumeLifecycleModes"),
    ];
  },
});

// ---- CSINode -------------------------------------------------------------------------------

function validateCSINodeSpec(spec: Obj): FieldError[] {
  const errs: FieldError[] = [];
  const names = new Set<string>();
  records(spec.drivers).forEach((d, i) => {
    const p = index("spec.drivers", i);
    const name = text(d.name);
    errs.push(...validateCSIDriverName(name, child(p, "name")));
    const nodeID = text(d.nodeID);
    if (nodeID.length === 0) errs.push(fieldErrors.required(child(p, "nodeID"), nodeID));
    if (nodeID.length > csiNodeIDMaxLength) errs.push(fieldErrors.invalid(child(p, "nodeID"), nodeID, `must be ${csiNodeIDMaxLength} characters or less`));
    const count = num(rec(d.allocatable)?.count);
    if (count !== undefined && count < 0) errs.push(fieldErrors.invalid(child(p, "allocatable", "count"), count, "must be greater than or equal to 0"));
    if (names.has(name)) errs.push(fieldErrors.duplicate(child(p, "name"), name));
    names.add(name);
    const keys = new Set<string>();
    for (const key of strings(d.topologyKeys)) {
      if (key.length === 0) errs.push(fieldErrors.required(p, key));
      if (keys.has(key)) errs.push(fieldErrors.duplicate(p, key));
      keys.add(key);
      errs.push(...validateQualifiedName(key, p));
    }
  });
  return errs;
}

export const csiNodeStrategy: ResourceStrategy = defineStrategy({
  names: {
    group: storageGroup,
    version: "v1",
    kind: "CSINode",
    resource: "csinodes",
    singular: "csinode",
    listKind: "CSINodeList",
    shortNames: [],
    categories: [],
    namespaced: false,
  },
  nameFn: nameIsDNSSubdomain,
  validateSpec: (obj) => validateCSINodeSpec(rec(fieldsOf(obj).spec) ?? {}),
  validateUpdate(obj, old) {
    const errs: FieldError[] = [];
    const withoutAllocatable = (d: Obj) => {
      const c = { ...d };
      delete c.allocatable;
      return c;
    };
    const newDrivers = records(rec(fieldsOf(obj).spec)?.drivers);
    for (const o of records(rec(fieldsOf(old).spec)?.drivers)) {
      for (const n of newDrivers) {
        if (text(o.name) !== text(n.name)) continue;
        // MutableCSINodeAllocatableCount (beta, on): allocatable may change.
        errs.push(...validateImmutableField(withoutAllocatable(n), withoutAllocatable(o), "spec.drivers"));
      }
    }
    return errs;
  },
});

// ---- CSIStorageCapacity --------------------------------------------------------------------

export const csiStorageCapacityStrategy: ResourceStrategy = defineStrategy({
  names: {
    group: storageGroup,
    version: "v1",
    kind: "CSIStorageCapacity",
    resource: "csistoragecapacities",
    singular: "csistoragecapacity",
    listKind: "CSIStorageCapacityList",
    shortNames: [],
    categories: [],
    namespaced: true,
  },
  nameFn: nameIsDNSSubdomain,
  validateSpec(obj) {
    const c = fieldsOf(obj);
    const errs = validateLabelSelector(labelSelector(c.nodeTopology), "nodeTopology");
    const scName = text(c.storageClassName);
    for (const msg of nameIsDNSSubdomain(scName, false)) errs.push(fieldErrors.invalid("storageClassName", scName, msg));
    const capacity = c.capacity;
    if (capacity !== undefined && capacity !== null) errs.push(...validateNonnegativeQuantity(capacity, "capacity"));
    return errs;
  },
  validateUpdate(obj, old) {
    const n = fieldsOf(obj);
    const o = fieldsOf(old);
    const errs: FieldError[] = [];
    if (!semanticEqual(n.nodeTopology, o.nodeTopology)) errs.push(fieldErrors.invalid("nodeTopology", n.nodeTopology ?? null, "field is immutable"));
    if (text(n.storageClassName) !== text(o.storageClassName)) errs.push(fieldErrors.invalid("storageClassName", text(n.storageClassName), "field is immutable"));
    return errs;
  },
});

/** ValidateNonnegativeQuantity: a quantity (string or number) ≥ 0. */
export function validateNonnegativeQuantity(q: unknown, field: string): FieldError[] {
  const s = typeof q === "number" ? String(q) : str(q);
  const v = s === undefined ? undefined : quantityNanos(s);
  if (v === undefined) return [fieldErrors.invalid(field, q, "must be a valid resource quantity")];
  if (v < 0n) return [fieldErrors.invalid(field, s, "must be greater than or equal to 0")];
  return [];
}

// ---- VolumeAttachment ----------------------------------------------------------------------

function validateVolumeError(e: unknown, field: string): FieldError[] {
  const ve = rec(e);
  if (!ve) return [];
  const errs: FieldError[] = [];
  // Upstream reports the metadata size limit here, not the message limit.
  if (utf8Length(text(ve.message)) > maxVolumeErrorMessageSize) errs.push(fieldErrors.tooLong(child(field, "message"), "", maxAttachedVolumeMetadataSize));
  const code = num(ve.errorCode);
  if (code !== undefined && code < 0) errs.push(fieldErrors.invalid(child(field, "errorCode"), code, "must be between 0 and 2147483647, inclusive"));
  return errs;
}

function validateVolumeAttachmentStatus(status: Obj): FieldError[] {
  const errs: FieldError[] = [];
  let size = 0;
  for (const [k, v] of Object.entries(stringMap(status.attachmentMetadata) ?? {})) size += utf8Length(k) + utf8Length(v);
  if (size > maxAttachedVolumeMetadataSize) errs.push(fieldErrors.tooLong("status.attachmentMetadata", "", maxAttachedVolumeMetadataSize));
  errs.push(...validateVolumeError(status.attachError, "status.attachError"));
  errs.push(...validateVolumeError(status.detachError, "status.detachError"));
  return errs;
}

/** ValidateVolumeAttachment: attacher, source, nodeName, status. */
export function validateVolumeAttachment(obj: KubeObject): FieldError[] {
  const va = fieldsOf(obj);
  const spec = rec(va.spec) ?? {};
  const errs: FieldError[] = [];
  const attacher = text(spec.attacher);
  if (attacher.length === 0) errs.push(fieldErrors.required("spec.attacher", attacher));
  const source = rec(spec.source) ?? {};
  const inline = has(source, "inlineVolumeSpec");
  const pv = str(source.persistentVolumeName);
  if (!inline && pv === undefined) errs.push(fieldErrors.required("spec.source", "must specify exactly one of inlineVolumeSpec and persistentVolumeName"));
  else if (inline && pv !== undefined) errs.push(fieldErrors.forbidden("spec.source", "must specify exactly one of inlineVolumeSpec and persistentVolumeName"));
  else if (pv !== undefined && pv.length === 0) errs.push(fieldErrors.required("spec.source.persistentVolumeName", "must specify non empty persistentVolumeName"));
  const node = text(spec.nodeName);
  for (const msg of nameIsDNSSubdomain(node, false)) errs.push(fieldErrors.invalid("spec.nodeName", node, msg));
  errs.push(...validateVolumeAttachmentStatus(rec(va.status) ?? {}));
  return errs;
}

/** ValidateVolumeAttachmentV1 (create through v1): the attacher is a CSI driver name, the PV name a DNS subdomain. */
function validateVolumeAttachmentV1(obj: KubeObject): FieldError[] {
  const spec = rec(fieldsOf(obj).spec) ?? {};
  const errs = validateCSIDriverName(text(spec.attacher), "spec.attacher");
  const pv = str(rec(spec.source)?.persistentVolumeName);
  if (pv !== undefined) for (const msg of nameIsDNSSubdomain(pv, false)) errs.push(fieldErrors.invalid("spec.source.persistentVolumeName", pv, msg));
  return errs;
}

/** ValidateVolumeAttachmentUpdate: the object again, and a spec that did not change. */
function volumeAttachmentUpdate(obj: KubeObject, old: KubeObject): FieldError[] {
  const errs = validateVolumeAttachment(obj);
  if (!semanticEqual(fieldsOf(old).spec, fieldsOf(obj).spec)) errs.push(fieldErrors.invalid("spec", fieldsOf(obj).spec ?? null, "field is immutable"));
  return errs;
}

export const volumeAttachmentStrategy: ResourceStrategy = defineStrategy({
  names: {
    group: storageGroup,
    version: "v1",
    kind: "VolumeAttachment",
    resource: "volumeattachments",
    singular: "volumeattachment",
    listKind: "VolumeAttachmentList",
    shortNames: [],
    categories: [],
    namespaced: false,
  },
  subresources: { status: true },
  nameFn: nameIsDNSSubdomain,
  validateSpec: validateVolumeAttachment,
  validateCreate: validateVolumeAttachmentV1,
  validateUpdate: volumeAttachmentUpdate,
  validateStatus: volumeAttachmentUpdate,
});

// ---- VolumeAttributesClass -----------------------------------------------------------------

export const volumeAttributesClassStrategy: ResourceStrategy = defineStrategy({
  names: {
    group: storageGroup,
    version: "v1",
    kind: "VolumeAttributesClass",
    resource: "volumeattributesclasses",
    singular: "volumeattributesclass",
    listKind: "VolumeAttributesClassList",
    shortNames: ["vac"],
    categories: [],
    namespaced: false,
  },
  nameFn: nameIsDNSSubdomain,
  validateSpec(obj) {
    const vac = fieldsOf(obj);
    return [...validateProvisioner(text(vac.driverName), "driverName"), ...validateParameters(stringMap(vac.parameters), false, "parameters")];
  },
  updateChecksFirst: true,
  validateUpdate(obj, old) {
    const n = fieldsOf(obj);
    const o = fieldsOf(old);
    const errs: FieldError[] = [];
    if (text(n.driverName) !== text(o.driverName)) errs.push(fieldErrors.forbidden("driverName", "updates to driverName are forbidden."));
    if (!semanticEqual(o.parameters ?? {}, n.parameters ?? {})) errs.push(fieldErrors.forbidden("parameters", "updates to parameters are forbidden."));
    return errs;
  },
});

/** Whether a VolumeAttachment is attached (status.attached), for printing. */
export function volumeAttached(obj: KubeObject): boolean {
  return bool(rec(fieldsOf(obj).status)?.attached) ?? false;
}
