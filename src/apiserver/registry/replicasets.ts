/**
 * apps/v1 ReplicaSets: defaults (replicas 1 and the pod template), validation
 * (ValidateReplicaSet / Update with apps/v1 selector immutability / StatusUpdate), generation 1
 * and status `{replicas: 0}` on create, generation bumped on spec changes, status updates keep
 * the old spec. Selectable field: status.replicas.
 */
import type { ReplicaSet } from "../../apimachinery/api/apps/v1.js";
import type { FieldError } from "../../apimachinery/fielderrors.js";
import type { KubeObject } from "../../apimachinery/types.js";
import { nameIsDNSSubdomain } from "../../apimachinery/validation.js";
import { validateReplicaCounts, validateSelectorAndTemplate } from "./appscommon.js";
import { defineStrategy } from "./define.js";
import { validateImmutableField, validateNonnegative } from "./meta.js";
import { defaultPodTemplateSpec } from "./poddefaults.js";
import type { ResourceStrategy } from "./strategy.js";

const asReplicaSet = (o: KubeObject) => o as unknown as ReplicaSet;

export function defaultReplicaSet(obj: KubeObject): void {
  const rs = asReplicaSet(obj);
  rs.spec ??= { selector: undefined as never };
  rs.spec.replicas ??= 1;
  defaultPodTemplateSpec(rs.spec.template);
}

/** ValidateReplicaSetSpec. */
export function validateReplicaSetSpec(obj: KubeObject): FieldError[] {
  const spec = asReplicaSet(obj).spec;
  const errs: FieldError[] = [];
  errs.push(...validateNonnegative(spec?.replicas ?? 0, "spec.replicas"));
  errs.push(...validateNonnegative(spec?.minReadySeconds ?? 0, "spec.minReadySeconds"));
  errs.push(...validateSelectorAndTemplate(spec?.selector, spec?.template, "spec"));
  return errs;
}

/** ValidateReplicaSetStatus. */
export function validateReplicaSetStatus(obj: KubeObject): FieldError[] {
  return validateReplicaCounts((obj.status ?? {}) as Record<string, unknown>, "status", [
    "replicas",
    "fullyLabeledReplicas",
    "readyReplicas",
    "availableReplicas",
    "observedGeneration",
  ]);
}

export const replicaSetStrategy: ResourceStrategy = defineStrategy({
  names: {
    group: "apps",
    version: "v1",
    kind: "ReplicaSet",
    resource: "replicasets",
    singular: "replicaset",
    listKind: "ReplicaSetList",
    shortNames: ["rs"],
    categories: ["all"],
    namespaced: true,
  },
  subresources: {
    status: true,
    scale: { specReplicasPath: ".spec.replicas", statusReplicasPath: ".status.replicas", labelSelectorPath: ".spec.selector" },
  },
  nameFn: nameIsDNSSubdomain,
  tracksGeneration: true,
  emptyStatus: () => ({ replicas: 0 }),
  defaults: defaultReplicaSet,
  validateSpec: validateReplicaSetSpec,
  validateUpdate: (obj, old) =>
    validateImmutableField(asReplicaSet(obj).spec?.selector, asReplicaSet(old).spec?.selector, "spec.selector"),
  validateStatus: (obj) => validateReplicaSetStatus(obj),
  fields: (obj) => ({ "status.replicas": String((obj.status as { replicas?: number } | undefined)?.replicas ?? 0) }),
});
