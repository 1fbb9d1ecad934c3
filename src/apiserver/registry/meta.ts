/**
 * Object metadata validation, as apimachinery's api/validation (objectmeta.go) plus the core
 * API's extra finalizer-name rule, and meta/v1 label and label-selector validation. Field paths
 * and messages are upstream's.
 */
import type { LabelSelector, ObjectMeta, OwnerReference } from "../../apimachinery/api/meta/v1.js";
import { fieldErrors, type FieldError } from "../../apimachinery/fielderrors.js";
import { parseGroupVersion } from "../../apimachinery/gvk.js";
import {
  isQualifiedName,
  isValidLabelValue,
  utf8Length,
  type ValidateNameFunc,
  nameIsDNSLabel,
} from "../../apimachinery/validation.js";
import { semanticEqual } from "../../apimachinery/equality.js";
import { child, index } from "./path.js";

/** "field is immutable" (apimachinery FieldImmutableErrorMsg). */
export const fieldImmutableErrorMsg = "field is immutable";
/** "must be greater than or equal to 0" (IsNegativeErrorMsg). */
export const isNegativeErrorMsg = "must be greater than or equal to 0";
/** Total size of all annotation keys and values: 256 KiB. */
export const totalAnnotationSizeLimitB = 256 * 1024;

/** Finalizer names the core API accepts without a "/" (helper.IsStandardFinalizerName). */
const standardFinalizers = new Set(["kubernetes", "orphan", "foregroundDeletion"]);

/** ValidateNonnegativeField. */
export function validateNonnegative(value: number | undefined, field: string): FieldError[] {
  if (value !== undefined && value !== null && value < 0) return [fieldErrors.invalid(field, value, isNegativeErrorMsg)];
  return [];
}

/** ValidateImmutableField: semantic deep equality or "field is immutable". */
export function validateImmutableField(newVal: unknown, oldVal: unknown, field: string): FieldError[] {
  if (!semanticEqual(newVal, oldVal)) return [fieldErrors.invalid(field, newVal ?? null, fieldImmutableErrorMsg)];
  return [];
}

/** ValidateLabelName: a qualified name. */
export function validateLabelName(name: string, field: string): FieldError[] {
  return isQualifiedName(name).map((msg) => fieldErrors.invalid(field, name, msg));
}

/** ValidateLabels (meta/v1): keys qualified names, values valid label values; errors at `field`. */
export function validateLabels(labels: Record<string, string> | undefined | null, field: string): FieldError[] {
  const errs: FieldError[] = [];
  if (!labels) return errs;
  for (const [k, v] of Object.entries(labels)) {
    errs.push(...validateLabelName(k, field));
    const value = typeof v === "string" ? v : String(v);
    for (const msg of isValidLabelValue(value)) errs.push(fieldErrors.invalid(field, value, msg));
  }
  return errs;
}

/** ValidateAnnotations: keys are qualified names (case-insensitive), total size ≤ 256 KiB. */
export function validateAnnotations(annotations: Record<string, string> | undefined | null, field: string): FieldError[] {
  const errs: FieldError[] = [];
  if (!annotations) return errs;
  let total = 0;
  for (const [k, v] of Object.entries(annotations)) {
    for (const msg of isQualifiedName(k.toLowerCase())) errs.push(fieldErrors.invalid(field, k, msg));
    total += utf8Length(k) + utf8Length(typeof v === "string" ? v : String(v));
  }
  if (total > totalAnnotationSizeLimitB) errs.push(fieldErrors.tooLong(field, "", totalAnnotationSizeLimitB));
  return errs;
}

/** ValidateLabelSelector (meta/v1, strict label values). */
export function validateLabelSelector(sel: LabelSelector | undefined | null, field: string): FieldError[] {
  const errs: FieldError[] = [];
  if (!sel) return errs;
  errs.push(...validateLabels(sel.matchLabels, child(field, "matchLabels")));
  (sel.matchExpressions ?? []).forEach((e, i) => {
    // A requirement decoded from null is Go's zero value: no key, no operator.
    const expr = e ?? { key: "", operator: "" };
    const p = index(child(field, "matchExpressions"), i);
    switch (expr.operator) {
      case "In":
      case "NotIn":
        if (!expr.values || expr.values.length === 0) {
          errs.push(fieldErrors.required(child(p, "values"), "must be specified when `operator` is 'In' or 'NotIn'"));
        }
        break;
      case "Exists":
      case "DoesNotExist":
        if (expr.values && expr.values.length > 0) {
          errs.push(fieldErrors.forbidden(child(p, "values"), "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"));
        }
        break;
      default:
        errs.push(fieldErrors.invalid(child(p, "operator"), expr.operator, "not a valid selector operator"));
    }
    errs.push(...validateLabelName(expr.key ?? "", child(p, "key")));
    // LabelSelectorAsSelector rejects invalid values too; strict validation reports them here.
    (expr.values ?? []).forEach((v, vi) => {
      for (const msg of isValidLabelValue(v)) errs.push(fieldErrors.invalid(index(child(p, "values"), vi), v, msg));
    });
  });
  return errs;
}

/** Whether a label set satisfies a LabelSelector (metav1.LabelSelectorAsSelector + Matches). */
export function selectorMatches(sel: LabelSelector, labels: Record<string, string> | undefined): boolean {
  const l = labels ?? {};
  for (const [k, v] of Object.entries(sel.matchLabels ?? {})) if (l[k] !== v) return false;
  for (const e of sel.matchExpressions ?? []) {
    const has = Object.prototype.hasOwnProperty.call(l, e.key);
    const vals = e.values ?? [];
    switch (e.operator) {
      case "In":
        if (!has || !vals.includes(l[e.key])) return false;
        break;
      case "NotIn":
        if (has && vals.includes(l[e.key])) return false;
        break;
      case "Exists":
        if (!has) return false;
        break;
      case "DoesNotExist":
        if (has) return false;
        break;
      default:
        return false;
    }
  }
  return true;
}

/** Whether a selector selects nothing-in-particular (no matchLabels and no matchExpressions). */
export function selectorIsEmpty(sel: LabelSelector | undefined | null): boolean {
  return !sel || (Object.keys(sel.matchLabels ?? {}).length === 0 && (sel.matchExpressions ?? []).length === 0);
}

function validateOwnerReferences(refs: OwnerReference[] | undefined, field: string): FieldError[] {
  const errs: FieldError[] = [];
  if (!refs) return errs;
  let firstController = "";
  for (const ref of refs) {
    let gv = { group: "", version: "" };
    try {
      gv = parseGroupVersion(ref.apiVersion ?? "");
    } catch {
      gv = { group: "", version: "" };
    }
    if (gv.version === "") errs.push(fieldErrors.invalid(child(field, "apiVersion"), ref.apiVersion ?? "", "version must not be empty"));
    if (!ref.kind) errs.push(fieldErrors.invalid(child(field, "kind"), ref.kind ?? "", "must not be empty"));
    if (!ref.name) errs.push(fieldErrors.invalid(child(field, "name"), ref.name ?? "", "must not be empty"));
    if (!ref.uid) errs.push(fieldErrors.invalid(child(field, "uid"), ref.uid ?? "", "must not be empty"));
    if (gv.group === "" && gv.version === "v1" && ref.kind === "Event") {
      errs.push(fieldErrors.invalid(field, ref, "/v1, Kind=Event is disallowed from being an owner"));
    }
    if (ref.controller) {
      const cur = `${ref.kind}/${ref.name}`;
      if (firstController !== "") {
        errs.push(
          fieldErrors.invalid(
            field,
            refs,
            `Only one reference can have Controller set to true. Found "true" in references for ${firstController} and ${cur}`,
          ),
        );
      } else firstController = cur;
    }
  }
  return errs;
}

/** ValidateFinalizers plus the core API's rule that unqualified names must be standard ones. */
export function validateFinalizers(finalizers: string[] | undefined, field: string): FieldError[] {
  const errs: FieldError[] = [];
  if (!finalizers) return errs;
  for (const f of finalizers) for (const msg of isQualifiedName(f)) errs.push(fieldErrors.invalid(field, f, msg));
  if (finalizers.includes("orphan") && finalizers.includes("foregroundDeletion")) {
    errs.push(fieldErrors.invalid(field, finalizers, "finalizer orphan and foregroundDeletion cannot be both set"));
  }
  finalizers.forEach((f, i) => errs.push(...validateKubeFinalizerName(f, index(field, i))));
  return errs;
}

/** validateKubeFinalizerName: names without "/" must be standard finalizer names. */
export function validateKubeFinalizerName(name: string, field: string): FieldError[] {
  if (!name.includes("/") && isQualifiedName(name).length === 0 && !standardFinalizers.has(name)) {
    return [fieldErrors.invalid(field, name, "name is neither a standard finalizer name nor is it fully qualified")];
  }
  return [];
}

function validateManagedFields(meta: ObjectMeta, field: string): FieldError[] {
  const errs: FieldError[] = [];
  (meta.managedFields ?? []).forEach((mf, i) => {
    const p = index(field, i);
    if (mf.operation !== "Apply" && mf.operation !== "Update") {
      errs.push(fieldErrors.invalid(child(p, "operation"), mf.operation ?? "", "must be `Apply` or `Update`"));
    }
    if (mf.fieldsType && mf.fieldsType !== "FieldsV1") {
      errs.push(fieldErrors.invalid(child(p, "fieldsType"), mf.fieldsType, "must be `FieldsV1`"));
    }
  });
  return errs;
}

function commonMeta(meta: ObjectMeta, namespaced: boolean, field: string): FieldError[] {
  const errs: FieldError[] = [];
  if (namespaced) {
    if (!meta.namespace) errs.push(fieldErrors.required(child(field, "namespace"), ""));
    else for (const msg of nameIsDNSLabel(meta.namespace, false)) errs.push(fieldErrors.invalid(child(field, "namespace"), meta.namespace, msg));
  } else if (meta.namespace) {
    errs.push(fieldErrors.forbidden(child(field, "namespace"), "not allowed on this type"));
  }
  errs.push(...validateNonnegative(meta.generation, child(field, "generation")));
  errs.push(...validateLabels(meta.labels, child(field, "labels")));
  errs.push(...validateAnnotations(meta.annotations, child(field, "annotations")));
  errs.push(...validateOwnerReferences(meta.ownerReferences, child(field, "ownerReferences")));
  errs.push(...validateFinalizers(meta.finalizers, child(field, "finalizers")));
  errs.push(...validateManagedFields(meta, child(field, "managedFields")));
  return errs;
}

/**
 * ValidateObjectMeta on create (name generation already done): generateName checked as a prefix,
 * name required ("name or generateName is required") and checked with `nameFn`, namespace
 * required for namespaced kinds and forbidden for cluster-scoped ones, labels, annotations,
 * owner references, finalizers, managed fields.
 */
export function validateObjectMeta(
  meta: ObjectMeta | undefined,
  namespaced: boolean,
  nameFn: ValidateNameFunc,
  field = "metadata",
): FieldError[] {
  const m = meta ?? {};
  const errs: FieldError[] = [];
  if (m.generateName) {
    for (const msg of nameFn(m.generateName, true)) errs.push(fieldErrors.invalid(child(field, "generateName"), m.generateName, msg));
  }
  if (!m.name) errs.push(fieldErrors.required(child(field, "name"), "name or generateName is required"));
  else for (const msg of nameFn(m.name, false)) errs.push(fieldErrors.invalid(child(field, "name"), m.name, msg));
  errs.push(...commonMeta(m, namespaced, field));
  return errs;
}

/**
 * ValidateObjectMetaUpdate: no new finalizers while deleting, resourceVersion present (the
 * handler fills it from storage for unconditional updates, as the generic store does),
 * generation not decremented, name/namespace/uid/creationTimestamp/deletionTimestamp/
 * deletionGracePeriodSeconds immutable, then labels, annotations, owner references, finalizer
 * names and managed fields of the new object.
 */
export function validateObjectMetaUpdate(newMeta: ObjectMeta | undefined, oldMeta: ObjectMeta | undefined, field = "metadata"): FieldError[] {
  const n = newMeta ?? {};
  const o = oldMeta ?? {};
  const errs: FieldError[] = [];
  if (o.deletionTimestamp) {
    const oldSet = new Set(o.finalizers ?? []);
    const extra = [...new Set((n.finalizers ?? []).filter((f) => !oldSet.has(f)))].sort();
    if (extra.length > 0) {
      errs.push(
        fieldErrors.forbidden(
          child(field, "finalizers"),
          `no new finalizers can be added if the object is being deleted, found new finalizers []string{${extra.map((f) => JSON.stringify(f)).join(", ")}}`,
        ),
      );
    }
  }
  if (!n.resourceVersion) errs.push(fieldErrors.invalid(child(field, "resourceVersion"), n.resourceVersion ?? "", "must be specified for an update"));
  if ((n.generation ?? 0) < (o.generation ?? 0)) {
    errs.push(fieldErrors.invalid(child(field, "generation"), n.generation ?? 0, "must not be decremented"));
  }
  errs.push(...validateImmutableField(n.name ?? "", o.name ?? "", child(field, "name")));
  errs.push(...validateImmutableField(n.namespace ?? "", o.namespace ?? "", child(field, "namespace")));
  errs.push(...validateImmutableField(n.uid ?? "", o.uid ?? "", child(field, "uid")));
  errs.push(...validateImmutableField(n.creationTimestamp, o.creationTimestamp, child(field, "creationTimestamp")));
  errs.push(...validateImmutableField(n.deletionTimestamp, o.deletionTimestamp, child(field, "deletionTimestamp")));
  errs.push(...validateImmutableField(n.deletionGracePeriodSeconds, o.deletionGracePeriodSeconds, child(field, "deletionGracePeriodSeconds")));
  errs.push(...validateLabels(n.labels, child(field, "labels")));
  errs.push(...validateAnnotations(n.annotations, child(field, "annotations")));
  errs.push(...validateOwnerReferences(n.ownerReferences, child(field, "ownerReferences")));
  errs.push(...validateManagedFields(n, child(field, "managedFields")));
  (n.finalizers ?? []).forEach((f, i) => errs.push(...validateKubeFinalizerName(f, index(child(field, "finalizers"), i))));
  return errs;
}
