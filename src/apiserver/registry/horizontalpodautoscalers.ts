/**
 * HorizontalPodAutoscalers, stored as autoscaling/v2 and served as autoscaling/v2 (preferred)
 * and autoscaling/v1 (versions.ts, hpaconversion.ts).
 *
 * Defaults: v2 SetDefaults_HorizontalPodAutoscaler (minReplicas 1, a CPU utilization target of
 * 80 % when there is no metric, a given behavior completed with upstream's scale-up rules —
 * stabilization 0 s, Max of 4 pods and 100 % per 15 s — and scale-down rules — Max of 100 %
 * per 15 s); v1 defaults only minReplicas (its CPU default is applied by the conversion).
 *
 * Validation (autoscaling/validation): minReplicas at least 1 (0 only for objects that already
 * have it: HPAScaleToZero is alpha), maxReplicas positive and not below minReplicas, the scale
 * target and metric names as path segments, each metric of a known type populating exactly its
 * source with a proper target, behavior rules within upstream's bounds. Field paths are v2's,
 * for v1 requests too (upstream validates the internal type). Status: the replica counts are
 * non-negative. HPAs carry no generation.
 */
import { fieldErrors, type FieldError } from "../../apimachinery/fielderrors.js";
import type { KubeObject } from "../../apimachinery/types.js";
import { isDNS1123Label, nameIsDNSSubdomain } from "../../apimachinery/validation.js";
import { defineStrategy } from "./define.js";
import { hpaV1ToV2, hpaV2ToV1 } from "./hpaconversion.js";
import { pathSegmentErrors } from "./identifiers.js";
import { child, index } from "./path.js";
import { quantityNanos } from "../../apimachinery/quantity.js";
import { rec, ensureRecord, list, str, objOf } from "./shape.js";
import type { ResourceStrategy } from "./strategy.js";
import { servedAtVersion } from "./versions.js";

type Json = Record<string, unknown>;

const maxPeriodSeconds = 1800;
const maxStabilizationWindowSeconds = 3600;

const scaleUpRules = (): Json => ({
  stabilizationWindowSeconds: 0,
  selectPolicy: "Max",
  policies: [
    { type: "Pods", value: 4, periodSeconds: 15 },
    { type: "Percent", value: 100, periodSeconds: 15 },
  ],
});
const scaleDownRules = (): Json => ({ selectPolicy: "Max", policies: [{ type: "Percent", value: 100, periodSeconds: 15 }] });

/** copyHPAScalingRules: the given rules' set fields over the defaults. */
function completeRules(given: unknown, defaults: Json): Json {
  const g = rec(given);
  if (!g) return defaults;
  const out: Json = { ...defaults };
  for (const k of ["selectPolicy", "stabilizationWindowSeconds", "policies", "tolerance"]) {
    if (g[k] !== undefined && g[k] !== null) out[k] = g[k];
  }
  // Fields the defaults do not know are kept as given.
  for (const k of Object.keys(g)) if (!(k in out)) out[k] = g[k];
  return out;
}

/** autoscaling/v2 SetDefaults_HorizontalPodAutoscaler. */
export function defaultHorizontalPodAutoscalerV2(obj: KubeObject): void {
  const spec = ensureRecord(obj, "spec");
  if (!spec) return;
  spec.minReplicas ??= 1;
  if (list(spec.metrics).length === 0 && (spec.metrics === undefined || spec.metrics === null || Array.isArray(spec.metrics))) {
    spec.metrics = [{ type: "Resource", resource: { name: "cpu", target: { type: "Utilization", averageUtilization: 80 } } }];
  }
  const behavior = rec(spec.behavior);
  if (behavior) {
    behavior.scaleUp = completeRules(behavior.scaleUp, scaleUpRules());
    behavior.scaleDown = completeRules(behavior.scaleDown, scaleDownRules());
  }
}

/** autoscaling/v1 SetDefaults_HorizontalPodAutoscaler. */
export function defaultHorizontalPodAutoscalerV1(obj: KubeObject): void {
  const spec = ensureRecord(obj, "spec");
  if (spec) spec.minReplicas ??= 1;
}

/** ValidateCrossVersionObjectReference. */
function validateReference(ref: unknown, field: string): FieldError[] {
  const r = objOf(ref);
  const errs: FieldError[] = [];
  for (const k of ["kind", "name"]) {
    const v = str(r[k]) ?? "";
    if (v === "") errs.push(fieldErrors.required(child(field, k), ""));
    else for (const msg of pathSegmentErrors(v)) errs.push(fieldErrors.invalid(child(field, k), v, msg));
  }
  return errs;
}

function validateMetricIdentifier(id: unknown, field: string): FieldError[] {
  const name = str(objOf(id).name) ?? "";
  if (name === "") return [fieldErrors.required(child(field, "name"), "must specify a metric name")];
  return pathSegmentErrors(name).map((msg) => fieldErrors.invalid(child(field, "name"), name, msg));
}

function positive(q: unknown): boolean {
  const n = typeof q === "string" || typeof q === "number" ? quantityNanos(String(q)) : undefined;
  return n !== undefined && n > 0n;
}

function validateMetricTarget(t: Json, field: string): FieldError[] {
  const errs: FieldError[] = [];
  const type = str(t.type) ?? "";
  if (type === "") errs.push(fieldErrors.required(child(field, "type"), "must specify a metric target type"));
  if (type !== "Utilization" && type !== "Value" && type !== "AverageValue") {
    errs.push(fieldErrors.invalid(child(field, "type"), type, "must be either Utilization, Value, or AverageValue"));
  }
  if (t.value != null && !positive(t.value)) errs.push(fieldErrors.invalid(child(field, "value"), t.value, "must be positive"));
  if (t.averageValue != null && !positive(t.averageValue)) errs.push(fieldErrors.invalid(child(field, "averageValue"), t.averageValue, "must be positive"));
  if (t.averageUtilization != null && !(typeof t.averageUtilization === "number" && t.averageUtilization >= 1)) {
    errs.push(fieldErrors.invalid(child(field, "averageUtilization"), t.averageUtilization, "must be greater than 0"));
  }
  return errs;
}

const standardContainerResources = new Set(["cpu", "memory", "ephemeral-storage"]);

function validateContainerResourceName(name: string, field: string): FieldError[] {
  if (!name.includes("/")) {
    if (!standardContainerResources.has(name) && !name.startsWith("hugepages-")) return [fieldErrors.invalid(field, name, "must be a standard resource for containers")];
    return [];
  }
  const domain = name.slice(0, name.indexOf("/"));
  if (domain === "kubernetes.io" || domain.endsWith(".kubernetes.io") || name.startsWith("requests.")) {
    return [fieldErrors.invalid(field, name, "doesn't follow extended resource name standard")];
  }
  return [];
}

function validateResourceSource(src: Json, field: string, container: boolean): FieldError[] {
  const errs: FieldError[] = [];
  const name = str(src.name) ?? "";
  if (name === "") errs.push(fieldErrors.required(child(field, "name"), "must specify a resource name"));
  else if (container) errs.push(...validateContainerResourceName(name, child(field, "name")));
  if (container) {
    const c = str(src.container) ?? "";
    if (c === "") errs.push(fieldErrors.required(child(field, "container"), "must specify a container"));
    else for (const msg of isDNS1123Label(c)) errs.push(fieldErrors.invalid(child(field, "container"), c, msg));
  }
  const t = objOf(src.target);
  errs.push(...validateMetricTarget(t, child(field, "target")));
  if (t.averageUtilization == null && t.averageValue == null) {
    errs.push(fieldErrors.required(child(field, "target", "averageUtilization"), "must set either a target raw value or a target utilization"));
  }
  if (t.averageUtilization != null && t.averageValue != null) {
    errs.push(fieldErrors.forbidden(child(field, "target", "averageValue"), "may not set both a target raw value and a target utilization"));
  }
  return errs;
}

const metricSourceTypes = ["ContainerResource", "External", "Object", "Pods", "Resource"];
const sourceFieldOf: Record<string, string> = { Object: "object", Pods: "pods", Resource: "resource", ContainerResource: "containerResource", External: "external" };

function validateMetricSpec(m: Json, field: string): FieldError[] {
  const errs: FieldError[] = [];
  const type = str(m.type) ?? "";
  if (type === "") errs.push(fieldErrors.required(child(field, "type"), "must specify a metric source type"));
  if (!metricSourceTypes.includes(type)) errs.push(fieldErrors.notSupported(child(field, "type"), type, metricSourceTypes));
  const present: string[] = [];
  for (const k of ["object", "external", "pods", "resource", "containerResource"]) {
    if (m[k] === undefined || m[k] === null) continue;
    present.push(k);
    if (present.length !== 1) continue;
    const src = objOf(m[k]);
    const p = child(field, k);
    const t = objOf(src.target);
    switch (k) {
      case "object":
        errs.push(...validateReference(src.describedObject, child(p, "describedObject")));
        errs.push(...validateMetricIdentifier(src.metric, child(p, "metric")));
        errs.push(...validateMetricTarget(t, child(p, "target")));
        if (t.value == null && t.averageValue == null) errs.push(fieldErrors.required(child(p, "target", "averageValue"), "must set either a target value or averageValue"));
        break;
      case "external":
        errs.push(...validateMetricIdentifier(src.metric, child(p, "metric")));
        errs.push(...validateMetricTarget(t, child(p, "target")));
        if (t.value == null && t.averageValue == null) {
          errs.push(fieldErrors.required(child(p, "target", "averageValue"), "must set either a target value for metric or a per-pod target"));
        }
        if (t.value != null && t.averageValue != null) {
          errs.push(fieldErrors.forbidden(child(p, "target", "value"), "may not set both a target value for metric and a per-pod target"));
        }
        break;
      case "pods":
        errs.push(...validateMetricIdentifier(src.metric, child(p, "metric")));
        errs.push(...validateMetricTarget(t, child(p, "target")));
        if (t.averageValue == null) errs.push(fieldErrors.required(child(p, "target", "averageValue"), "must specify a positive target averageValue"));
        break;
      case "resource":
        errs.push(...validateResourceSource(src, p, false));
        break;
      case "containerResource":
        errs.push(...validateResourceSource(src, p, true));
        break;
    }
  }
  // (Upstream reports an unknown type twice; the error list is de-duplicated anyway.)
  const expected = sourceFieldOf[type];
  if (expected && (m[expected] === undefined || m[expected] === null)) {
    errs.push(fieldErrors.required(child(field, expected), "must populate information for the given metric source"));
  }
  if (present.length !== 1) {
    for (const k of present) if (k !== expected) errs.push(fieldErrors.forbidden(child(field, k), "must populate the given metric source only"));
  }
  return errs;
}

function validateScalingRules(rules: unknown, field: string): FieldError[] {
  const r = rec(rules);
  if (!r) return [];
  const errs: FieldError[] = [];
  const sw = r.stabilizationWindowSeconds;
  if (typeof sw === "number" && sw < 0) errs.push(fieldErrors.invalid(child(field, "stabilizationWindowSeconds"), sw, "must be greater than or equal to zero"));
  if (typeof sw === "number" && sw > maxStabilizationWindowSeconds) {
    errs.push(fieldErrors.invalid(child(field, "stabilizationWindowSeconds"), sw, `must be less than or equal to ${maxStabilizationWindowSeconds}`));
  }
  if (r.selectPolicy != null && !["Disabled", "Max", "Min"].includes(String(r.selectPolicy))) {
    errs.push(fieldErrors.notSupported(child(field, "selectPolicy"), r.selectPolicy, ["Disabled", "Max", "Min"]));
  }
  const tol = r.tolerance;
  if (tol != null) {
    const n = typeof tol === "string" || typeof tol === "number" ? quantityNanos(String(tol)) : undefined;
    if (n !== undefined && n < 0n) errs.push(fieldErrors.invalid(child(field, "tolerance"), tol, "must be greater than or equal to zero"));
  }
  const policies = list<Json>(r.policies);
  const pp = child(field, "policies");
  if (policies.length === 0) errs.push(fieldErrors.required(pp, "must specify at least one Policy"));
  policies.forEach((pol, i) => {
    const p = index(pp, i);
    const x = objOf(pol);
    if (x.type !== "Pods" && x.type !== "Percent") errs.push(fieldErrors.notSupported(child(p, "type"), x.type ?? "", ["Percent", "Pods"]));
    const value = typeof x.value === "number" ? x.value : 0;
    const period = typeof x.periodSeconds === "number" ? x.periodSeconds : 0;
    if (value <= 0) errs.push(fieldErrors.invalid(child(p, "value"), value, "must be greater than zero"));
    if (period <= 0) errs.push(fieldErrors.invalid(child(p, "periodSeconds"), period, "must be greater than zero"));
    if (period > maxPeriodSeconds) errs.push(fieldErrors.invalid(child(p, "periodSeconds"), period, `must be less than or equal to ${maxPeriodSeconds}`));
  });
  return errs;
}

/** validateHorizontalPodAutoscalerSpec. */
function validateSpec(obj: KubeObject, minReplicasLowerBound: number): FieldError[] {
  const spec = objOf(obj.spec);
  const errs: FieldError[] = [];
  const min = typeof spec.minReplicas === "number" ? spec.minReplicas : undefined;
  const max = typeof spec.maxReplicas === "number" ? spec.maxReplicas : 0;
  if (min !== undefined && min < minReplicasLowerBound) {
    errs.push(fieldErrors.invalid("spec.minReplicas", min, `must be greater than or equal to ${minReplicasLowerBound}`));
  }
  if (max < 1) errs.push(fieldErrors.invalid("spec.maxReplicas", max, "must be greater than 0"));
  if (min !== undefined && max < min) errs.push(fieldErrors.invalid("spec.maxReplicas", max, "must be greater than or equal to `minReplicas`"));
  errs.push(...validateReference(spec.scaleTargetRef, "spec.scaleTargetRef"));
  const metrics = list<unknown>(spec.metrics).map(objOf);
  let objectOrExternal = false;
  metrics.forEach((m, i) => {
    errs.push(...validateMetricSpec(m, index("spec.metrics", i)));
    if (m.type === "Object" || m.type === "External") objectOrExternal = true;
  });
  if (min === 0 && !objectOrExternal) {
    errs.push(fieldErrors.forbidden("spec.metrics", "must specify at least one Object or External metric to support scaling to zero replicas"));
  }
  const behavior = rec(spec.behavior);
  if (behavior) {
    errs.push(...validateScalingRules(behavior.scaleUp, "spec.behavior.scaleUp"));
    errs.push(...validateScalingRules(behavior.scaleDown, "spec.behavior.scaleDown"));
  }
  return errs;
}

function validateStatus(obj: KubeObject): FieldError[] {
  const st = objOf(obj.status);
  const errs: FieldError[] = [];
  for (const k of ["currentReplicas", "desiredReplicas"]) {
    const v = typeof st[k] === "number" ? (st[k] as number) : 0;
    if (v < 0) errs.push(fieldErrors.invalid(`status.${k}`, v, "must be greater than or equal to 0"));
  }
  return errs;
}

export const horizontalPodAutoscalerStrategy: ResourceStrategy = defineStrategy({
  names: {
    group: "autoscaling",
    version: "v2",
    kind: "HorizontalPodAutoscaler",
    resource: "horizontalpodautoscalers",
    singular: "horizontalpodautoscaler",
    listKind: "HorizontalPodAutoscalerList",
    shortNames: ["hpa"],
    categories: ["all"],
    namespaced: true,
  },
  subresources: { status: true },
  nameFn: nameIsDNSSubdomain,
  emptyStatus: () => ({ desiredReplicas: 0 }),
  defaults: defaultHorizontalPodAutoscalerV2,
  validateCreate: (obj) => validateSpec(obj, 1),
  validateUpdate: (obj, old) => validateSpec(obj, objOf(old.spec).minReplicas === 0 ? 0 : 1),
  validateStatus,
});

/** autoscaling/v1, served from the v2 storage. */
export const horizontalPodAutoscalerV1Strategy: ResourceStrategy = servedAtVersion(horizontalPodAutoscalerStrategy, {
  version: "v1",
  defaults: defaultHorizontalPodAutoscalerV1,
  toStorage: hpaV1ToV2,
  fromStorage: hpaV2ToV1,
});
