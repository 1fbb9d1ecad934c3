/**
 * apps/v1 DaemonSets: SetDefaults_DaemonSet (RollingUpdate with maxUnavailable 1 and maxSurge 0,
 * revision history 10, the template's defaults), validation (ValidateDaemonSet /
 * ValidateDaemonSetUpdate / ValidateDaemonSetStatusUpdate) and the strategy's generations.
 *
 * The internal type's spec.templateGeneration travels in apps/v1 as the annotation
 * deprecated.daemonset.template.generation (upstream's conversion): it is 1 on create and goes
 * up by one with every template change; clients cannot set it. metadata.generation goes up with
 * any spec change.
 */
import type { DaemonSet } from "../../apimachinery/api/apps/v1.js";
import { fieldErrors, type FieldError } from "../../apimachinery/fielderrors.js";
import { labelSelectorAsSelector } from "../../apimachinery/labels.js";
import type { KubeObject } from "../../apimachinery/types.js";
import { nameIsDNSSubdomain } from "../../apimachinery/validation.js";
import { intOrPercentValue, isNotMoreThan100Percent, validatePositiveIntOrPercent } from "./appscommon.js";
import { defineStrategy, metaOf } from "./define.js";
import { semanticEqual } from "../../apimachinery/equality.js";
import { selectorIsEmpty, validateLabelSelector, validateNonnegative } from "./meta.js";
import { child } from "./path.js";
import { defaultPodTemplateSpec } from "./poddefaults.js";
import { validatePodTemplateSpec } from "./podvalidation.js";
import { rec, ensureRecord } from "./shape.js";
import { collisionCountNotDecremented } from "./statefulsets.js";
import type { ResourceStrategy } from "./strategy.js";

/** appsv1.DeprecatedTemplateGeneration. */
export const templateGenerationAnnotation = "deprecated.daemonset.template.generation";

const asDaemonSet = (o: KubeObject) => o as unknown as DaemonSet;

export function defaultDaemonSet(obj: KubeObject): void {
  const spec = ensureRecord(obj, "spec") as NonNullable<DaemonSet["spec"]> | undefined;
  if (!spec) return;
  const us = ensureRecord(spec as unknown as Record<string, unknown>, "updateStrategy") as NonNullable<NonNullable<DaemonSet["spec"]>["updateStrategy"]> | undefined;
  if (us) {
    us.type ||= "RollingUpdate";
    if (us.type === "RollingUpdate") {
      const ru = ensureRecord(us as unknown as Record<string, unknown>, "rollingUpdate") as Record<string, unknown> | undefined;
      if (ru) {
        ru.maxUnavailable ??= 1;
        ru.maxSurge ??= 0;
      }
    }
  }
  spec.revisionHistoryLimit ??= 10;
  if (rec(spec.template)) defaultPodTemplateSpec(spec.template);
}

function templateGeneration(obj: KubeObject): number | undefined {
  const v = obj.metadata?.annotations?.[templateGenerationAnnotation];
  if (typeof v !== "string" || !/^\d+$/.test(v)) return undefined;
  return Number(v);
}

function setTemplateGeneration(obj: KubeObject, n: number): void {
  const meta = metaOf(obj);
  meta.annotations = { ...(meta.annotations ?? {}), [templateGenerationAnnotation]: String(n) };
}

/** ValidateDaemonSetSpec. */
export function validateDaemonSetSpec(obj: KubeObject): FieldError[] {
  const spec = asDaemonSet(obj).spec;
  const errs: FieldError[] = [];
  errs.push(...validateLabelSelector(spec?.selector, "spec.selector"));
  let selector;
  try {
    selector = labelSelectorAsSelector(spec?.selector);
  } catch {
    selector = undefined;
  }
  if (selector && !selector.matches(spec?.template?.metadata?.labels ?? {})) {
    errs.push(fieldErrors.invalid("spec.template.metadata.labels", spec?.template?.metadata?.labels ?? null, "`selector` does not match template `labels`"));
  }
  if (spec?.selector && selectorIsEmpty(spec.selector)) errs.push(fieldErrors.invalid("spec.selector", spec.selector, "empty selector is invalid for daemonset"));
  errs.push(...validatePodTemplateSpec(spec?.template, "spec.template"));
  const rp = spec?.template?.spec?.restartPolicy ?? "";
  if (rp !== "Always") errs.push(fieldErrors.notSupported("spec.template.spec.restartPolicy", rp, ["Always"]));
  if (spec?.template?.spec?.activeDeadlineSeconds != null) {
    errs.push(fieldErrors.forbidden("spec.template.spec.activeDeadlineSeconds", "activeDeadlineSeconds in DaemonSet is not Supported"));
  }
  errs.push(...validateNonnegative(spec?.minReadySeconds ?? 0, "spec.minReadySeconds"));
  errs.push(...validateNonnegative(templateGeneration(obj) ?? 0, "spec.templateGeneration"));
  const us = spec?.updateStrategy ?? {};
  const usp = "spec.updateStrategy";
  switch (us.type) {
    case "OnDelete":
      break;
    case "RollingUpdate": {
      const ru = us.rollingUpdate;
      if (!ru) {
        errs.push(fieldErrors.required(child(usp, "rollingUpdate"), ""));
        break;
      }
      const rp2 = child(usp, "rollingUpdate");
      errs.push(...validatePositiveIntOrPercent(ru.maxUnavailable ?? 0, child(rp2, "maxUnavailable")));
      errs.push(...validatePositiveIntOrPercent(ru.maxSurge ?? 0, child(rp2, "maxSurge")));
      errs.push(...isNotMoreThan100Percent(ru.maxUnavailable, child(rp2, "maxUnavailable")));
      errs.push(...isNotMoreThan100Percent(ru.maxSurge, child(rp2, "maxSurge")));
      const hasUnavailable = intOrPercentValue(ru.maxUnavailable) !== 0;
      const hasSurge = intOrPercentValue(ru.maxSurge) !== 0;
      if (hasUnavailable && hasSurge) errs.push(fieldErrors.invalid(child(rp2, "maxSurge"), ru.maxSurge ?? 0, "may not be set when maxUnavailable is non-zero"));
      else if (!hasUnavailable && !hasSurge) errs.push(fieldErrors.required(child(rp2, "maxUnavailable"), "cannot be 0 when maxSurge is 0"));
      break;
    }
    default:
      errs.push(fieldErrors.notSupported(usp, us, ["RollingUpdate", "OnDelete"]));
  }
  if (spec?.revisionHistoryLimit != null) errs.push(...validateNonnegative(spec.revisionHistoryLimit, "spec.revisionHistoryLimit"));
  return errs;
}

/** validateDaemonSetStatus plus the collisionCount rule of ValidateDaemonSetStatusUpdate. */
export function validateDaemonSetStatus(obj: KubeObject, old: KubeObject): FieldError[] {
  const st = rec(obj.status) ?? {};
  const errs: FieldError[] = [];
  for (const k of [
    "currentNumberScheduled",
    "numberMisscheduled",
    "desiredNumberScheduled",
    "numberReady",
    "observedGeneration",
    "updatedNumberScheduled",
    "numberAvailable",
    "numberUnavailable",
  ]) {
    errs.push(...validateNonnegative(typeof st[k] === "number" ? (st[k] as number) : 0, `status.${k}`));
  }
  if (typeof st.collisionCount === "number") errs.push(...validateNonnegative(st.collisionCount, "status.collisionCount"));
  errs.push(...collisionCountNotDecremented(st, rec(old.status)));
  return errs;
}

export const daemonSetStrategy: ResourceStrategy = defineStrategy({
  names: {
    group: "apps",
    version: "v1",
    kind: "DaemonSet",
    resource: "daemonsets",
    singular: "daemonset",
    listKind: "DaemonSetList",
    shortNames: ["ds"],
    categories: ["all"],
    namespaced: true,
  },
  subresources: { status: true },
  nameFn: nameIsDNSSubdomain,
  tracksGeneration: true,
  emptyStatus: () => ({ currentNumberScheduled: 0, numberMisscheduled: 0, desiredNumberScheduled: 0, numberReady: 0 }),
  defaults: defaultDaemonSet,
  prepareForCreate(obj) {
    const n = templateGeneration(obj);
    setTemplateGeneration(obj, n === undefined || n < 1 ? 1 : n);
  },
  prepareForUpdate(obj, old) {
    // Clients cannot set the template generation; a template change moves it on.
    const prev = templateGeneration(old) ?? 0;
    const templateChanged = !semanticEqual(asDaemonSet(obj).spec?.template, asDaemonSet(old).spec?.template);
    setTemplateGeneration(obj, templateChanged ? prev + 1 : prev);
  },
  prepareForStatusUpdate(obj, old) {
    const n = templateGeneration(old);
    if (n !== undefined) setTemplateGeneration(obj, n);
  },
  generationInputs: (o) => o.spec,
  validateSpec: validateDaemonSetSpec,
  validateStatus: validateDaemonSetStatus,
});
