/**
 * apps/v1 Deployments: defaults (SetDefaults_Deployment), validation (ValidateDeployment,
 * ValidateDeploymentUpdate with the apps/v1 selector immutability, ValidateDeploymentStatusUpdate)
 * and the strategy's preparations: generation 1 and empty status on create; generation bumped
 * when the spec *or the annotations* change (annotations are copied to ReplicaSets); status
 * updates keep the old spec and labels.
 */
import type { Deployment } from "../../apimachinery/api/apps/v1.js";
import { fieldErrors, type FieldError } from "../../apimachinery/fielderrors.js";
import type { KubeObject } from "../../apimachinery/types.js";
import { nameIsDNSSubdomain } from "../../apimachinery/validation.js";
import {
  intOrPercentValue,
  isNotMoreThan100Percent,
  validatePositiveIntOrPercent,
  validateReplicaCounts,
  validateSelectorAndTemplate,
} from "./appscommon.js";
import { defineStrategy, metaOf } from "./define.js";
import { validateImmutableField, validateNonnegative } from "./meta.js";
import { child } from "./path.js";
import { defaultPodTemplateSpec } from "./poddefaults.js";
import type { ResourceStrategy } from "./strategy.js";

const asDeployment = (o: KubeObject) => o as unknown as Deployment;

/** SetDefaults_Deployment plus the pod template defaults. */
export function defaultDeployment(obj: KubeObject): void {
  const d = asDeployment(obj);
  d.spec ??= { selector: undefined as never, template: {} };
  const spec = d.spec;
  spec.replicas ??= 1;
  spec.strategy ??= {};
  spec.strategy.type ||= "RollingUpdate";
  if (spec.strategy.type === "RollingUpdate") {
    spec.strategy.rollingUpdate ??= {};
    spec.strategy.rollingUpdate.maxUnavailable ??= "25%";
    spec.strategy.rollingUpdate.maxSurge ??= "25%";
  }
  spec.revisionHistoryLimit ??= 10;
  spec.progressDeadlineSeconds ??= 600;
  defaultPodTemplateSpec(spec.template);
}

function validateStrategy(d: Deployment): FieldError[] {
  const errs: FieldError[] = [];
  const s = d.spec?.strategy ?? {};
  const p = "spec.strategy";
  switch (s.type) {
    case "Recreate":
      if (s.rollingUpdate != null) {
        errs.push(fieldErrors.forbidden(child(p, "rollingUpdate"), "may not be specified when strategy `type` is 'Recreate'"));
      }
      break;
    case "RollingUpdate": {
      const ru = s.rollingUpdate;
      if (!ru) {
        errs.push(fieldErrors.required(child(p, "rollingUpdate"), "this should be defaulted and never be nil"));
        break;
      }
      const rp = child(p, "rollingUpdate");
      errs.push(...validatePositiveIntOrPercent(ru.maxUnavailable, child(rp, "maxUnavailable")));
      errs.push(...validatePositiveIntOrPercent(ru.maxSurge, child(rp, "maxSurge")));
      if (intOrPercentValue(ru.maxUnavailable) === 0 && intOrPercentValue(ru.maxSurge) === 0) {
        errs.push(fieldErrors.invalid(child(rp, "maxUnavailable"), ru.maxUnavailable ?? 0, "may not be 0 when `maxSurge` is 0"));
      }
      errs.push(...isNotMoreThan100Percent(ru.maxUnavailable, child(rp, "maxUnavailable")));
      break;
    }
    default:
      errs.push(fieldErrors.notSupported(p, s, ["Recreate", "RollingUpdate"]));
  }
  return errs;
}

/** ValidateDeploymentSpec. */
export function validateDeploymentSpec(obj: KubeObject): FieldError[] {
  const d = asDeployment(obj);
  const spec = d.spec;
  const errs: FieldError[] = [];
  errs.push(...validateNonnegative(spec?.replicas ?? 0, "spec.replicas"));
  errs.push(...validateSelectorAndTemplate(spec?.selector, spec?.template, "spec"));
  errs.push(...validateStrategy(d));
  errs.push(...validateNonnegative(spec?.minReadySeconds ?? 0, "spec.minReadySeconds"));
  if (spec?.revisionHistoryLimit != null) errs.push(...validateNonnegative(spec.revisionHistoryLimit, "spec.revisionHistoryLimit"));
  if (spec?.progressDeadlineSeconds != null) {
    errs.push(...validateNonnegative(spec.progressDeadlineSeconds, "spec.progressDeadlineSeconds"));
    if (spec.progressDeadlineSeconds <= (spec.minReadySeconds ?? 0)) {
      errs.push(fieldErrors.invalid("spec.progressDeadlineSeconds", spec.progressDeadlineSeconds, "must be greater than minReadySeconds"));
    }
  }
  return errs;
}

/** ValidateDeploymentStatus plus the collisionCount-not-decremented rule of status updates. */
export function validateDeploymentStatusUpdate(obj: KubeObject, old: KubeObject): FieldError[] {
  const status = (obj.status ?? {}) as Record<string, unknown>;
  const errs = validateReplicaCounts(status, "status", [
    "observedGeneration",
    "replicas",
    "updatedReplicas",
    "readyReplicas",
    "availableReplicas",
    "unavailableReplicas",
  ]);
  if (typeof status.collisionCount === "number") errs.push(...validateNonnegative(status.collisionCount, "status.collisionCount"));
  // The "> replicas" checks apply to updated, ready and available replicas only.
  const oldCount = (old.status as Record<string, unknown> | undefined)?.collisionCount;
  const newCount = status.collisionCount;
  if (typeof oldCount === "number" && (typeof newCount !== "number" || newCount < oldCount)) {
    errs.push(fieldErrors.invalid("status.collisionCount", typeof newCount === "number" ? newCount : 0, "cannot be decremented"));
  }
  return errs;
}

export const deploymentStrategy: ResourceStrategy = defineStrategy({
  names: {
    group: "apps",
    version: "v1",
    kind: "Deployment",
    resource: "deployments",
    singular: "deployment",
    listKind: "DeploymentList",
    shortNames: ["deploy"],
    categories: ["all"],
    namespaced: true,
  },
  subresources: {
    status: true,
    scale: { specReplicasPath: ".spec.replicas", statusReplicasPath: ".status.replicas", labelSelectorPath: ".spec.selector" },
  },
  nameFn: nameIsDNSSubdomain,
  tracksGeneration: true,
  generationInputs: (o) => ({ spec: o.spec, annotations: o.metadata?.annotations }),
  defaults: defaultDeployment,
  prepareForStatusUpdate(obj, old) {
    const meta = metaOf(obj);
    if (old.metadata?.labels) meta.labels = structuredClone(old.metadata.labels);
    else delete meta.labels;
  },
  validateSpec: validateDeploymentSpec,
  validateUpdate: (obj, old) =>
    validateImmutableField(asDeployment(obj).spec?.selector, asDeployment(old).spec?.selector, "spec.selector"),
  validateStatus: validateDeploymentStatusUpdate,
});
