/**
 * policy/v1 PodDisruptionBudgets: validation (ValidatePodDisruptionBudget: minAvailable and
 * maxUnavailable exclusive, each a non-negative int or a percentage of at most 100 %; the label
 * selector; unhealthyPodEvictionPolicy IfHealthyBudget or AlwaysAllow), the status update rules
 * (standard conditions, non-negative counts), generation 1 on create and bumped on spec changes.
 * The status is what pods/eviction decides on (core/eviction.ts); computing it is the
 * disruption controller's job.
 */
import type { PodDisruptionBudget } from "../../apimachinery/api/policy/v1.js";
import { fieldErrors, type FieldError } from "../../apimachinery/fielderrors.js";
import type { KubeObject } from "../../apimachinery/types.js";
import { nameIsDNSSubdomain } from "../../apimachinery/validation.js";
import { isNotMoreThan100Percent, validatePositiveIntOrPercent } from "./appscommon.js";
import { validateConditions } from "./conditions.js";
import { defineStrategy } from "./define.js";
import { validateLabelSelector, validateNonnegative } from "./meta.js";
import { rec } from "./shape.js";
import type { ResourceStrategy } from "./strategy.js";

const unhealthyPodEvictionPolicies = ["AlwaysAllow", "IfHealthyBudget"];

/** ValidatePodDisruptionBudgetSpec. */
export function validatePodDisruptionBudgetSpec(obj: KubeObject): FieldError[] {
  const spec = (obj as unknown as PodDisruptionBudget).spec ?? {};
  const errs: FieldError[] = [];
  if (spec.minAvailable != null && spec.maxUnavailable != null) {
    errs.push(fieldErrors.invalid("spec", spec, "minAvailable and maxUnavailable cannot be both set"));
  }
  for (const k of ["minAvailable", "maxUnavailable"] as const) {
    const v = spec[k];
    if (v == null) continue;
    errs.push(...validatePositiveIntOrPercent(v, `spec.${k}`));
    errs.push(...isNotMoreThan100Percent(v, `spec.${k}`));
  }
  errs.push(...validateLabelSelector(spec.selector, "spec.selector"));
  const policy = spec.unhealthyPodEvictionPolicy;
  if (policy != null && !unhealthyPodEvictionPolicies.includes(policy)) {
    errs.push(fieldErrors.notSupported("spec.unhealthyPodEvictionPolicy", policy, unhealthyPodEvictionPolicies));
  }
  return errs;
}

/** ValidatePodDisruptionBudgetStatusUpdate (policy/v1 rules). */
export function validatePodDisruptionBudgetStatus(obj: KubeObject): FieldError[] {
  const st = rec(obj.status) ?? {};
  const errs = validateConditions(st.conditions, "status.conditions");
  for (const k of ["disruptionsAllowed", "currentHealthy", "desiredHealthy", "expectedPods"]) {
    errs.push(...validateNonnegative(typeof st[k] === "number" ? (st[k] as number) : 0, `status.${k}`));
  }
  return errs;
}

export const podDisruptionBudgetStrategy: ResourceStrategy = defineStrategy({
  names: {
    group: "policy",
    version: "v1",
    kind: "PodDisruptionBudget",
    resource: "poddisruptionbudgets",
    singular: "poddisruptionbudget",
    listKind: "PodDisruptionBudgetList",
    shortNames: ["pdb"],
    categories: [],
    namespaced: true,
  },
  subresources: { status: true },
  nameFn: nameIsDNSSubdomain,
  tracksGeneration: true,
  emptyStatus: () => ({ disruptionsAllowed: 0, currentHealthy: 0, desiredHealthy: 0, expectedPods: 0 }),
  validateSpec: validatePodDisruptionBudgetSpec,
  validateStatus: validatePodDisruptionBudgetStatus,
});
