/**
 * Validation shared by Deployments and ReplicaSets (apps/validation): the label selector and
 * the pod template it must select, int-or-percent rollout parameters.
 */
import type { PodTemplateSpec } from "../../apimachinery/api/core/v1.js";
import type { LabelSelector } from "../../apimachinery/api/meta/v1.js";
import { fieldErrors, type FieldError } from "../../apimachinery/fielderrors.js";
import type { IntOrString } from "../../apimachinery/types.js";
import { isQualifiedName, isValidLabelValue, isValidPercent } from "../../apimachinery/validation.js";
import { selectorIsEmpty, selectorMatches, validateLabelSelector, validateNonnegative } from "./meta.js";
import { child } from "./path.js";
import { validatePodTemplateSpec } from "./podvalidation.js";

/** Whether metav1.LabelSelectorAsSelector would accept the selector. */
function selectorConvertible(sel: LabelSelector): boolean {
  for (const [k, v] of Object.entries(sel.matchLabels ?? {})) {
    if (isQualifiedName(k).length > 0 || isValidLabelValue(String(v)).length > 0) return false;
  }
  for (const e of sel.matchExpressions ?? []) {
    if (isQualifiedName(e.key).length > 0) return false;
    const vals = e.values ?? [];
    switch (e.operator) {
      case "In":
      case "NotIn":
        if (vals.length === 0) return false;
        break;
      case "Exists":
      case "DoesNotExist":
        if (vals.length > 0) return false;
        break;
      default:
        return false;
    }
    if (vals.some((v) => isValidLabelValue(v).length > 0)) return false;
  }
  return true;
}

/**
 * The selector and template part of ValidateDeploymentSpec / ValidateReplicaSetSpec: selector
 * required and non-empty ("empty selector is invalid for deployment", upstream's text for both
 * kinds), the template must match it, then ValidatePodTemplateSpecForReplicaSet.
 */
export function validateSelectorAndTemplate(
  selector: LabelSelector | undefined,
  template: PodTemplateSpec | undefined,
  specPath: string,
): FieldError[] {
  const errs: FieldError[] = [];
  const selPath = child(specPath, "selector");
  if (!selector) errs.push(fieldErrors.required(selPath, ""));
  else {
    errs.push(...validateLabelSelector(selector, selPath));
    if (selectorIsEmpty(selector)) errs.push(fieldErrors.invalid(selPath, selector, "empty selector is invalid for deployment"));
  }
  if (selector && !selectorConvertible(selector)) {
    errs.push(fieldErrors.invalid(selPath, selector, "invalid label selector"));
    return errs;
  }
  const tplPath = child(specPath, "template");
  if (!template) {
    errs.push(fieldErrors.required(tplPath, ""));
    return errs;
  }
  // A nil selector converts to labels.Nothing(), which is not empty and matches nothing.
  const matches = selector ? selectorIsEmpty(selector) || selectorMatches(selector, template.metadata?.labels) : false;
  if (!matches) {
    errs.push(fieldErrors.invalid(child(tplPath, "metadata", "labels"), template.metadata?.labels ?? null, "`selector` does not match template `labels`"));
  }
  errs.push(...validatePodTemplateSpec(template, tplPath));
  const rp = template.spec?.restartPolicy ?? "";
  if (rp !== "Always") errs.push(fieldErrors.notSupported(child(tplPath, "spec", "restartPolicy"), rp, ["Always"]));
  if (template.spec?.activeDeadlineSeconds != null) {
    errs.push(fieldErrors.forbidden(child(tplPath, "spec", "activeDeadlineSeconds"), "activeDeadlineSeconds in ReplicaSet is not Supported"));
  }
  return errs;
}

/** The value of an int-or-percent: the percent number, the int, or 0 (intstr.IntValue). */
export function intOrPercentValue(v: IntOrString | undefined): number {
  if (v === undefined || v === null) return 0;
  if (typeof v === "number") return v;
  if (isValidPercent(v).length === 0) return Number(v.slice(0, -1));
  const n = /^[+-]?[0-9]+$/.test(v) ? Number(v) : 0;
  return Number.isFinite(n) ? n : 0;
}

/** ValidatePositiveIntOrPercent. */
export function validatePositiveIntOrPercent(v: IntOrString | undefined, field: string): FieldError[] {
  if (v === undefined || v === null) return validateNonnegative(0, field);
  if (typeof v === "string") return isValidPercent(v).map((msg) => fieldErrors.invalid(field, v, msg));
  if (typeof v === "number") return validateNonnegative(v, field);
  return [fieldErrors.invalid(field, v, "must be an integer or percentage (e.g '5%')")];
}

/** IsNotMoreThan100Percent. */
export function isNotMoreThan100Percent(v: IntOrString | undefined, field: string): FieldError[] {
  if (typeof v !== "string" || isValidPercent(v).length > 0) return [];
  if (Number(v.slice(0, -1)) <= 100) return [];
  return [fieldErrors.invalid(field, v, "must not be greater than 100%")];
}

/** The replica-count checks in status validation: "cannot be greater than status.replicas". */
export function validateReplicaCounts(
  status: Record<string, unknown>,
  statusPath: string,
  names: readonly string[],
): FieldError[] {
  const errs: FieldError[] = [];
  const num = (k: string) => (typeof status[k] === "number" ? (status[k] as number) : 0);
  for (const k of names) errs.push(...validateNonnegative(num(k), child(statusPath, k)));
  const msg = "cannot be greater than status.replicas";
  for (const k of names) {
    if (k === "replicas" || k === "observedGeneration" || k === "unavailableReplicas" || k === "collisionCount") continue;
    if (num(k) > num("replicas")) errs.push(fieldErrors.invalid(child(statusPath, k), num(k), msg));
  }
  if (num("availableReplicas") > num("readyReplicas")) {
    errs.push(fieldErrors.invalid(child(statusPath, "availableReplicas"), num("availableReplicas"), "cannot be greater than readyReplicas"));
  }
  return errs;
}
