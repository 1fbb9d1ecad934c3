/**
 * core/v1 ReplicationControllers: SetDefaults_ReplicationController (selector and object labels
 * from the template's labels when unset, replicas 1, the template's defaults), validation
 * (ValidateReplicationControllerSpec: a non-empty selector matching the template, replicas and
 * minReadySeconds non-negative, restartPolicy Always, no activeDeadlineSeconds; the selector may
 * change, unlike apps/v1 controllers'), the status rules (ValidateReplicationControllerStatus),
 * generation on spec changes, status and scale subresources (the Scale selector is the selector
 * map as a selector string). Field selector: status.replicas.
 */
import type { ReplicationController } from "../../apimachinery/api/core/v1.js";
import { fieldErrors, type FieldError } from "../../apimachinery/fielderrors.js";
import { selectorFromSet } from "../../apimachinery/labels.js";
import type { KubeObject } from "../../apimachinery/types.js";
import { nameIsDNSSubdomain } from "../../apimachinery/validation.js";
import { defineStrategy, metaOf } from "./define.js";
import { validateNonnegative } from "./meta.js";
import { defaultPodTemplateSpec } from "./poddefaults.js";
import { validatePodTemplateSpec } from "./podvalidation.js";
import { rec, ensureRecord, stringMapOf } from "./shape.js";
import type { ResourceStrategy } from "./strategy.js";

const asRC = (o: KubeObject) => o as unknown as ReplicationController;

export function defaultReplicationController(obj: KubeObject): void {
  const spec = ensureRecord(obj, "spec") as NonNullable<ReplicationController["spec"]> | undefined;
  if (!spec) return;
  const template = rec(spec.template);
  const labels = stringMapOf(rec(template?.metadata)?.labels);
  if (labels) {
    if (Object.keys(spec.selector ?? {}).length === 0) spec.selector = { ...labels };
    const meta = metaOf(obj);
    if (Object.keys(meta.labels ?? {}).length === 0) meta.labels = { ...labels };
  }
  spec.replicas ??= 1;
  if (template) defaultPodTemplateSpec(spec.template);
}

/** ValidateReplicationControllerSpec. */
export function validateReplicationControllerSpec(obj: KubeObject): FieldError[] {
  const spec = asRC(obj).spec;
  const errs: FieldError[] = [];
  errs.push(...validateNonnegative(spec?.minReadySeconds ?? 0, "spec.minReadySeconds"));
  const selector = stringMapOf(spec?.selector) ?? {};
  const empty = Object.keys(selector).length === 0;
  if (empty) errs.push(fieldErrors.required("spec.selector", ""));
  errs.push(...validateNonnegative(spec?.replicas ?? 0, "spec.replicas"));
  const template = spec?.template;
  if (!template) errs.push(fieldErrors.required("spec.template", ""));
  else {
    if (!empty && !selectorFromSet(selector).matches(template.metadata?.labels ?? {})) {
      errs.push(fieldErrors.invalid("spec.template.metadata.labels", template.metadata?.labels ?? null, "`selector` does not match template `labels`"));
    }
    errs.push(...validatePodTemplateSpec(template, "spec.template"));
    const rp = template.spec?.restartPolicy ?? "";
    if (rp !== "Always") errs.push(fieldErrors.notSupported("spec.template.spec.restartPolicy", rp, ["Always"]));
    if (template.spec?.activeDeadlineSeconds != null) {
      errs.push(fieldErrors.forbidden("spec.template.spec.activeDeadlineSeconds", "activeDeadlineSeconds in ReplicationController is not Supported"));
    }
  }
  return errs;
}

/** ValidateReplicationControllerStatus. */
export function validateReplicationControllerStatus(obj: KubeObject): FieldError[] {
  const st = rec(obj.status) ?? {};
  const n = (k: string) => (typeof st[k] === "number" ? (st[k] as number) : 0);
  const errs: FieldError[] = [];
  for (const k of ["replicas", "fullyLabeledReplicas", "readyReplicas", "availableReplicas", "observedGeneration"]) errs.push(...validateNonnegative(n(k), `status.${k}`));
  const msg = "cannot be greater than status.replicas";
  for (const k of ["fullyLabeledReplicas", "readyReplicas", "availableReplicas"]) if (n(k) > n("replicas")) errs.push(fieldErrors.invalid(`status.${k}`, n(k), msg));
  if (n("availableReplicas") > n("readyReplicas")) {
    errs.push(fieldErrors.invalid("status.availableReplicas", n("availableReplicas"), "cannot be greater than readyReplicas"));
  }
  return errs;
}

export const replicationControllerStrategy: ResourceStrategy = defineStrategy({
  names: {
    group: "",
    version: "v1",
    kind: "ReplicationController",
    resource: "replicationcontrollers",
    singular: "replicationcontroller",
    listKind: "ReplicationControllerList",
    shortNames: ["rc"],
    categories: ["all"],
    namespaced: true,
  },
  subresources: {
    status: true,
    scale: { specReplicasPath: ".spec.replicas", statusReplicasPath: ".status.replicas", labelSelectorPath: ".spec.selector", selectorIsMap: true },
  },
  nameFn: nameIsDNSSubdomain,
  tracksGeneration: true,
  emptyStatus: () => ({ replicas: 0 }),
  defaults: defaultReplicationController,
  validateSpec: validateReplicationControllerSpec,
  validateStatus: validateReplicationControllerStatus,
  fields: (obj) => ({ "status.replicas": String((rec(obj.status)?.replicas as number | undefined) ?? 0) }),
});
