/**
 * apps/v1 StatefulSets: SetDefaults_StatefulSet (podManagementPolicy OrderedReady, update
 * strategy RollingUpdate with partition 0 and maxUnavailable 1 — MaxUnavailableStatefulSet is
 * beta and on since 1.35 —, PVC retention policy Retain/Retain, replicas 1, revision history 10,
 * the pod template's defaults and the claim templates' PVC defaults), validation
 * (ValidateStatefulSet / ValidateStatefulSetUpdate / ValidateStatefulSetStatusUpdate: the name is
 * a DNS label because pods are named after it, the selector is required and must match the
 * template, restartPolicy Always, only replicas, ordinals, template, updateStrategy, PVC
 * retention policy and minReadySeconds may change), generation on spec changes, status and
 * scale subresources.
 */
import type { StatefulSet } from "../../apimachinery/api/apps/v1.js";
import type { PersistentVolumeClaim } from "../../apimachinery/api/core/v1.js";
import { fieldErrors, type FieldError } from "../../apimachinery/fielderrors.js";
import { labelSelectorAsSelector } from "../../apimachinery/labels.js";
import type { KubeObject } from "../../apimachinery/types.js";
import { nameIsDNSLabel } from "../../apimachinery/validation.js";
import { intOrPercentValue, isNotMoreThan100Percent, validatePositiveIntOrPercent } from "./appscommon.js";
import { defineStrategy } from "./define.js";
import { semanticEqual } from "../../apimachinery/equality.js";
import { selectorIsEmpty, validateAnnotations, validateLabels, validateLabelSelector, validateNonnegative } from "./meta.js";
import { child } from "./path.js";
import { defaultPersistentVolumeClaim } from "./persistentvolumes.js";
import { defaultPodTemplateSpec } from "./poddefaults.js";
import { rec, ensureRecord, list } from "./shape.js";
import type { ResourceStrategy } from "./strategy.js";

const asStatefulSet = (o: KubeObject) => o as unknown as StatefulSet;

export function defaultStatefulSet(obj: KubeObject): void {
  const spec = ensureRecord(obj, "spec") as StatefulSet["spec"] & Record<string, unknown>;
  if (!spec) return;
  spec.podManagementPolicy ||= "OrderedReady";
  const strategy = ensureRecord(spec, "updateStrategy") as NonNullable<NonNullable<StatefulSet["spec"]>["updateStrategy"]> | undefined;
  if (strategy) {
    if (!strategy.type) {
      strategy.type = "RollingUpdate";
      strategy.rollingUpdate ??= {};
    }
    if (strategy.type === "RollingUpdate" && rec(strategy.rollingUpdate)) {
      strategy.rollingUpdate!.partition ??= 0;
      strategy.rollingUpdate!.maxUnavailable ??= 1;
    }
  }
  const retention = ensureRecord(spec, "persistentVolumeClaimRetentionPolicy") as Record<string, unknown> | undefined;
  if (retention) {
    retention.whenDeleted ||= "Retain";
    retention.whenScaled ||= "Retain";
  }
  spec.replicas ??= 1;
  spec.revisionHistoryLimit ??= 10;
  if (rec(spec.template)) defaultPodTemplateSpec(spec.template);
  for (const claim of list<PersistentVolumeClaim>(spec.volumeClaimTemplates)) {
    if (rec(claim)) defaultPersistentVolumeClaim(claim as unknown as KubeObject);
  }
}

/** ValidateStatefulSetSpec. */
export function validateStatefulSetSpec(obj: KubeObject): FieldError[] {
  const spec = asStatefulSet(obj).spec;
  const errs: FieldError[] = [];
  const p = "spec";
  const pmp = spec?.podManagementPolicy ?? "";
  if (pmp === "") errs.push(fieldErrors.required(child(p, "podManagementPolicy"), ""));
  else if (pmp !== "OrderedReady" && pmp !== "Parallel") {
    errs.push(fieldErrors.invalid(child(p, "podManagementPolicy"), pmp, "must be 'OrderedReady' or 'Parallel'"));
  }
  const us = spec?.updateStrategy ?? {};
  switch (us.type ?? "") {
    case "":
      errs.push(fieldErrors.required(child(p, "updateStrategy"), ""));
      break;
    case "OnDelete":
      if (us.rollingUpdate != null) {
        errs.push(fieldErrors.invalid(child(p, "updateStrategy", "rollingUpdate"), us.rollingUpdate, "only allowed for updateStrategy 'RollingUpdate'"));
      }
      break;
    case "RollingUpdate":
      if (us.rollingUpdate != null) {
        const rp = child(p, "updateStrategy", "rollingUpdate");
        errs.push(...validateNonnegative(us.rollingUpdate.partition ?? 0, child(rp, "partition")));
        const mu = us.rollingUpdate.maxUnavailable;
        if (mu !== undefined && mu !== null) {
          errs.push(...validatePositiveIntOrPercent(mu, child(rp, "maxUnavailable")));
          if (intOrPercentValue(mu) === 0) errs.push(fieldErrors.invalid(child(rp, "maxUnavailable"), mu, "cannot be 0"));
          errs.push(...isNotMoreThan100Percent(mu, child(rp, "maxUnavailable")));
        }
      }
      break;
    default:
      errs.push(fieldErrors.invalid(child(p, "updateStrategy"), us, "must be 'RollingUpdate' or 'OnDelete'"));
  }
  const retention = spec?.persistentVolumeClaimRetentionPolicy;
  if (retention) {
    for (const k of ["whenDeleted", "whenScaled"] as const) {
      const v = retention[k] ?? "";
      if (v !== "Retain" && v !== "Delete") errs.push(fieldErrors.notSupported(child(p, "persistentVolumeClaimRetentionPolicy", k), v, ["Retain", "Delete"]));
    }
  }
  errs.push(...validateNonnegative(spec?.replicas ?? 0, child(p, "replicas")));
  errs.push(...validateNonnegative(spec?.minReadySeconds ?? 0, child(p, "minReadySeconds")));
  if (spec?.ordinals != null) errs.push(...validateNonnegative(spec.ordinals.start ?? 0, child(p, "ordinals.start")));

  const selPath = child(p, "selector");
  if (!spec?.selector) errs.push(fieldErrors.required(selPath, ""));
  else {
    errs.push(...validateLabelSelector(spec.selector, selPath));
    if (selectorIsEmpty(spec.selector)) errs.push(fieldErrors.invalid(selPath, spec.selector, "empty selector is invalid for statefulset"));
  }
  let selector;
  try {
    selector = labelSelectorAsSelector(spec?.selector);
  } catch {
    errs.push(fieldErrors.invalid(selPath, spec?.selector ?? null, ""));
  }
  const tp = child(p, "template");
  if (selector) {
    const template = spec?.template;
    if (!template) errs.push(fieldErrors.required(tp, ""));
    else {
      // A nil selector (Nothing) is not empty and matches no labels.
      if (!selector.empty() && !selector.matches(template.metadata?.labels ?? {})) {
        errs.push(fieldErrors.invalid(child(tp, "metadata", "labels"), template.metadata?.labels ?? null, "`selector` does not match template `labels`"));
      }
      // Upstream checks the template's labels and annotations only (not its pod spec).
      errs.push(...validateLabels(template.metadata?.labels, child(tp, "labels")));
      errs.push(...validateAnnotations(template.metadata?.annotations, child(tp, "annotations")));
    }
  }
  const rp = spec?.template?.spec?.restartPolicy ?? "";
  if (rp !== "Always") errs.push(fieldErrors.notSupported(child(tp, "spec", "restartPolicy"), rp, ["Always"]));
  if (spec?.template?.spec?.activeDeadlineSeconds != null) {
    errs.push(fieldErrors.forbidden(child(tp, "spec", "activeDeadlineSeconds"), "activeDeadlineSeconds in StatefulSet is not Supported"));
  }
  return errs;
}

/** The spec fields an update may change (ValidateStatefulSetUpdate). */
const mutableSpecFields = ["replicas", "template", "updateStrategy", "minReadySeconds", "ordinals", "persistentVolumeClaimRetentionPolicy"];

export function validateStatefulSetUpdate(obj: KubeObject, old: KubeObject): FieldError[] {
  const strip = (o: KubeObject) => {
    const spec = { ...(rec(o.spec) ?? {}) };
    for (const k of mutableSpecFields) delete spec[k];
    return spec;
  };
  if (!semanticEqual(strip(obj), strip(old))) {
    return [
      fieldErrors.forbidden(
        "spec",
        "updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden",
      ),
    ];
  }
  return [];
}

/** ValidateStatefulSetStatusUpdate. */
export function validateStatefulSetStatus(obj: KubeObject, old: KubeObject): FieldError[] {
  const st = (rec(obj.status) ?? {}) as Record<string, unknown>;
  const n = (k: string) => (typeof st[k] === "number" ? (st[k] as number) : 0);
  const errs: FieldError[] = [];
  for (const k of ["replicas", "readyReplicas", "currentReplicas", "updatedReplicas", "availableReplicas"]) errs.push(...validateNonnegative(n(k), `status.${k}`));
  if (typeof st.observedGeneration === "number") errs.push(...validateNonnegative(st.observedGeneration, "status.observedGeneration"));
  if (typeof st.collisionCount === "number") errs.push(...validateNonnegative(st.collisionCount, "status.collisionCount"));
  const msg = "cannot be greater than status.replicas";
  for (const k of ["readyReplicas", "currentReplicas", "updatedReplicas", "availableReplicas"]) {
    if (n(k) > n("replicas")) errs.push(fieldErrors.invalid(`status.${k}`, n(k), msg));
  }
  if (n("availableReplicas") > n("readyReplicas")) {
    errs.push(fieldErrors.invalid("status.availableReplicas", n("availableReplicas"), "cannot be greater than status.readyReplicas"));
  }
  errs.push(...collisionCountNotDecremented(st, rec(old.status)));
  return errs;
}

/** IsDecremented on status.collisionCount: "cannot be decremented". */
export function collisionCountNotDecremented(status: Record<string, unknown>, oldStatus: Record<string, unknown> | undefined): FieldError[] {
  const prev = oldStatus?.collisionCount;
  const next = status.collisionCount;
  if (typeof prev === "number" && (typeof next !== "number" || next < prev)) {
    return [fieldErrors.invalid("status.collisionCount", typeof next === "number" ? next : 0, "cannot be decremented")];
  }
  return [];
}

export const statefulSetStrategy: ResourceStrategy = defineStrategy({
  names: {
    group: "apps",
    version: "v1",
    kind: "StatefulSet",
    resource: "statefulsets",
    singular: "statefulset",
    listKind: "StatefulSetList",
    shortNames: ["sts"],
    categories: ["all"],
    namespaced: true,
  },
  subresources: {
    status: true,
    scale: { specReplicasPath: ".spec.replicas", statusReplicasPath: ".status.replicas", labelSelectorPath: ".spec.selector" },
  },
  nameFn: nameIsDNSLabel,
  tracksGeneration: true,
  emptyStatus: () => ({ replicas: 0, availableReplicas: 0 }),
  defaults: defaultStatefulSet,
  validateSpec: validateStatefulSetSpec,
  validateUpdate: validateStatefulSetUpdate,
  validateStatus: validateStatefulSetStatus,
});
