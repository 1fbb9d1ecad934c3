/**
 * autoscaling/v1 ⇄ autoscaling/v2 HorizontalPodAutoscalers, as upstream converts them through
 * the internal type (pkg/apis/autoscaling/v1/conversion.go and annotations.go). v2 is the
 * storage version; v1 carries only targetCPUUtilizationPercentage and
 * currentCPUUtilizationPercentage as fields, and everything else v2 has travels in annotations,
 * so that a v1 client reading and writing an object back loses nothing:
 *
 * - autoscaling.alpha.kubernetes.io/metrics: the spec metrics other than a CPU utilization
 *   target, as v1 MetricSpecs (JSON);
 * - autoscaling.alpha.kubernetes.io/current-metrics: every status metric, as v1 MetricStatuses;
 * - autoscaling.alpha.kubernetes.io/behavior: spec.behavior, as Go marshals the internal type
 *   (no JSON tags: "ScaleUp", "StabilizationWindowSeconds", ...; read back ignoring case, as
 *   encoding/json matches keys);
 * - autoscaling.alpha.kubernetes.io/conditions: the status conditions.
 *
 * Converting to v1 drops any of these annotations already on the object before writing its own;
 * converting from v1 moves well-formed ones into fields (malformed ones are ignored) and drops
 * them all, and a v1 object without any metric gets the implicit CPU utilization target of 80 %.
 * Both functions work on JSON values, never mutate their input, and are pure.
 */
import type { KubeObject } from "../../apimachinery/types.js";
import { rec, list, objOf } from "./shape.js";

export const metricSpecsAnnotation = "autoscaling.alpha.kubernetes.io/metrics";
export const metricStatusesAnnotation = "autoscaling.alpha.kubernetes.io/current-metrics";
export const conditionsAnnotation = "autoscaling.alpha.kubernetes.io/conditions";
export const behaviorSpecsAnnotation = "autoscaling.alpha.kubernetes.io/behavior";
export const toleranceScaleDownAnnotation = "autoscaling.alpha.kubernetes.io/scale-down-tolerance";
export const toleranceScaleUpAnnotation = "autoscaling.alpha.kubernetes.io/scale-up-tolerance";
/** autoscaling.DefaultCPUUtilization. */
export const defaultCPUUtilization = 80;

const roundTripAnnotations = [
  metricSpecsAnnotation,
  behaviorSpecsAnnotation,
  toleranceScaleDownAnnotation,
  toleranceScaleUpAnnotation,
  metricStatusesAnnotation,
  conditionsAnnotation,
];

type Json = Record<string, unknown>;

const has = (o: Json, k: string): boolean => o[k] !== undefined && o[k] !== null;

/** Copies o[from] to out[to] when set. */
function put(out: Json, to: string, o: Json, from = to): void {
  if (has(o, from)) out[to] = o[from];
}

/** A non-pointer resource.Quantity: the zero quantity marshals as "0". */
const quantity = (o: Json, k: string): unknown => (has(o, k) ? o[k] : "0");

/** DropRoundTripHorizontalPodAutoscalerAnnotations on a metadata copy (an emptied map goes away). */
function dropRoundTrip(meta: Json): void {
  const ann = rec(meta.annotations);
  if (!ann || !roundTripAnnotations.some((k) => k in ann)) return;
  const rest: Json = { ...ann };
  for (const k of roundTripAnnotations) delete rest[k];
  if (Object.keys(rest).length > 0) meta.annotations = rest;
  else delete meta.annotations;
}

function ref(o: Json): Json {
  const out: Json = { kind: o.kind ?? "", name: o.name ?? "" };
  put(out, "apiVersion", o);
  return out;
}

function identifier(name: unknown, selector: unknown): Json {
  const out: Json = { name: name ?? "" };
  if (selector !== undefined && selector !== null) out.selector = selector;
  return out;
}

const isCPUUtilization = (m: Json): boolean =>
  m.type === "Resource" && objOf(m.resource).name === "cpu" && has(objOf(objOf(m.resource).target), "averageUtilization");

// ---- metric specs ---------------------------------------------------------------------------

function metricSpecToV1(m: Json): Json {
  const out: Json = { type: m.type ?? "" };
  if (has(m, "object")) {
    const o = objOf(m.object);
    const t = objOf(o.target);
    const metric = objOf(o.metric);
    const v: Json = { target: ref(objOf(o.describedObject)), metricName: metric.name ?? "", targetValue: quantity(t, "value") };
    put(v, "selector", metric);
    put(v, "averageValue", t);
    out.object = v;
  }
  if (has(m, "pods")) {
    const p = objOf(m.pods);
    const metric = objOf(p.metric);
    const v: Json = { metricName: metric.name ?? "", targetAverageValue: quantity(objOf(p.target), "averageValue") };
    put(v, "selector", metric);
    out.pods = v;
  }
  for (const k of ["resource", "containerResource"]) {
    if (!has(m, k)) continue;
    const r = objOf(m[k]);
    const t = objOf(r.target);
    const v: Json = { name: r.name ?? "" };
    put(v, "targetAverageUtilization", t, "averageUtilization");
    put(v, "targetAverageValue", t, "averageValue");
    if (k === "containerResource") v.container = r.container ?? "";
    out[k] = v;
  }
  if (has(m, "external")) {
    const e = objOf(m.external);
    const t = objOf(e.target);
    const metric = objOf(e.metric);
    const v: Json = { metricName: metric.name ?? "" };
    put(v, "metricSelector", metric, "selector");
    put(v, "targetValue", t, "value");
    put(v, "targetAverageValue", t, "averageValue");
    out.external = v;
  }
  return out;
}

function metricSpecFromV1(m: Json): Json {
  const out: Json = { type: m.type ?? "" };
  if (has(m, "object")) {
    const o = objOf(m.object);
    const target: Json = { type: has(o, "averageValue") ? "AverageValue" : "Value", value: quantity(o, "targetValue") };
    put(target, "averageValue", o);
    out.object = { describedObject: ref(objOf(o.target)), target, metric: identifier(o.metricName, o.selector) };
  }
  if (has(m, "pods")) {
    const p = objOf(m.pods);
    out.pods = { metric: identifier(p.metricName, p.selector), target: { type: "AverageValue", averageValue: quantity(p, "targetAverageValue") } };
  }
  for (const k of ["resource", "containerResource"]) {
    if (!has(m, k)) continue;
    const r = objOf(m[k]);
    const target: Json = { type: has(r, "targetAverageUtilization") ? "Utilization" : "AverageValue" };
    put(target, "averageValue", r, "targetAverageValue");
    put(target, "averageUtilization", r, "targetAverageUtilization");
    const v: Json = { name: r.name ?? "", target };
    if (k === "containerResource") v.container = r.container ?? "";
    out[k] = v;
  }
  if (has(m, "external")) {
    const e = objOf(m.external);
    const target: Json = { type: has(e, "targetValue") ? "Value" : "AverageValue" };
    put(target, "value", e, "targetValue");
    put(target, "averageValue", e, "targetAverageValue");
    out.external = { metric: identifier(e.metricName, e.metricSelector), target };
  }
  return out;
}

// ---- metric statuses ------------------------------------------------------------------------

function metricStatusToV1(m: Json): Json {
  const out: Json = { type: m.type ?? "" };
  if (has(m, "object")) {
    const o = objOf(m.object);
    const c = objOf(o.current);
    const metric = objOf(o.metric);
    const v: Json = { target: ref(objOf(o.describedObject)), metricName: metric.name ?? "", currentValue: quantity(c, "value") };
    put(v, "selector", metric);
    put(v, "averageValue", c);
    out.object = v;
  }
  if (has(m, "pods")) {
    const p = objOf(m.pods);
    const metric = objOf(p.metric);
    const v: Json = { metricName: metric.name ?? "", currentAverageValue: quantity(objOf(p.current), "averageValue") };
    put(v, "selector", metric);
    out.pods = v;
  }
  for (const k of ["resource", "containerResource"]) {
    if (!has(m, k)) continue;
    const r = objOf(m[k]);
    const c = objOf(r.current);
    const v: Json = { name: r.name ?? "" };
    put(v, "currentAverageUtilization", c, "averageUtilization");
    v.currentAverageValue = quantity(c, "averageValue");
    if (k === "containerResource") v.container = r.container ?? "";
    out[k] = v;
  }
  if (has(m, "external")) {
    const e = objOf(m.external);
    const c = objOf(e.current);
    const metric = objOf(e.metric);
    const v: Json = { metricName: metric.name ?? "" };
    put(v, "metricSelector", metric, "selector");
    v.currentValue = quantity(c, "value");
    put(v, "currentAverageValue", c, "averageValue");
    out.external = v;
  }
  return out;
}

function metricStatusFromV1(m: Json): Json {
  const out: Json = { type: m.type ?? "" };
  if (has(m, "object")) {
    const o = objOf(m.object);
    const current: Json = { value: quantity(o, "currentValue") };
    put(current, "averageValue", o);
    out.object = { metric: identifier(o.metricName, o.selector), current, describedObject: ref(objOf(o.target)) };
  }
  if (has(m, "pods")) {
    const p = objOf(m.pods);
    out.pods = { metric: identifier(p.metricName, p.selector), current: { averageValue: quantity(p, "currentAverageValue") } };
  }
  for (const k of ["resource", "containerResource"]) {
    if (!has(m, k)) continue;
    const r = objOf(m[k]);
    const current: Json = { averageValue: quantity(r, "currentAverageValue") };
    put(current, "averageUtilization", r, "currentAverageUtilization");
    const v: Json = { name: r.name ?? "", current };
    if (k === "containerResource") v.container = r.container ?? "";
    out[k] = v;
  }
  if (has(m, "external")) {
    const e = objOf(m.external);
    const current: Json = { value: quantity(e, "currentValue") };
    put(current, "averageValue", e, "currentAverageValue");
    out.external = { metric: identifier(e.metricName, e.metricSelector), current };
  }
  return out;
}

// ---- behavior -------------------------------------------------------------------------------

/** The behavior as json.Marshal writes the internal type: Go field names, nil as null. */
function behaviorToGoJSON(b: Json): Json {
  const rules = (r: unknown): unknown => {
    const x = rec(r);
    if (!x) return null;
    return {
      StabilizationWindowSeconds: x.stabilizationWindowSeconds ?? null,
      SelectPolicy: x.selectPolicy ?? null,
      Policies: Array.isArray(x.policies)
        ? x.policies.map((p) => {
            const y = objOf(p);
            return { Type: y.type ?? "", Value: y.value ?? 0, PeriodSeconds: y.periodSeconds ?? 0 };
          })
        : null,
      Tolerance: x.tolerance ?? null,
    };
  };
  return { ScaleUp: rules(b.scaleUp), ScaleDown: rules(b.scaleDown) };
}

/** A key looked up as encoding/json matches it: exactly, else ignoring case. */
function getCI(o: Json, name: string): unknown {
  if (name in o) return o[name];
  const lower = name.toLowerCase();
  for (const k of Object.keys(o)) if (k.toLowerCase() === lower) return o[k];
  return undefined;
}

/** The behavior from the annotation; undefined when it does not decode or is the zero value. */
function behaviorFromGoJSON(raw: string): Json | undefined {
  let v: unknown;
  try {
    v = JSON.parse(raw);
  } catch {
    return undefined;
  }
  const top = rec(v);
  if (!top) return undefined;
  const rules = (r: unknown): Json | undefined => {
    const x = rec(r);
    if (!x) return undefined;
    const out: Json = {};
    const set = (to: string, from: string) => {
      const val = getCI(x, from);
      if (val !== undefined && val !== null) out[to] = val;
    };
    set("stabilizationWindowSeconds", "StabilizationWindowSeconds");
    set("selectPolicy", "SelectPolicy");
    const policies = getCI(x, "Policies");
    if (Array.isArray(policies)) {
      out.policies = policies.map((p) => {
        const y = objOf(p);
        return { type: getCI(y, "Type") ?? "", value: getCI(y, "Value") ?? 0, periodSeconds: getCI(y, "PeriodSeconds") ?? 0 };
      });
    }
    set("tolerance", "Tolerance");
    return out;
  };
  const out: Json = {};
  const up = rules(getCI(top, "ScaleUp"));
  const down = rules(getCI(top, "ScaleDown"));
  if (up) out.scaleUp = up;
  if (down) out.scaleDown = down;
  return Object.keys(out).length > 0 ? out : undefined;
}

function parseJSONList(raw: unknown): Json[] | undefined {
  if (typeof raw !== "string") return undefined;
  try {
    const v: unknown = JSON.parse(raw);
    return Array.isArray(v) ? v.map(objOf) : undefined;
  } catch {
    return undefined;
  }
}

// ---- whole objects --------------------------------------------------------------------------

/** A stored autoscaling/v2 HPA as autoscaling/v1 (Convert_autoscaling_…_To_v1_…). */
export function hpaV2ToV1(v2: KubeObject): KubeObject {
  const spec = objOf(v2.spec);
  const status = objOf(v2.status);
  const meta: Json = { ...rec(v2.metadata) };
  dropRoundTrip(meta);
  const metrics = list<unknown>(spec.metrics).map(objOf);

  const outSpec: Json = { scaleTargetRef: ref(objOf(spec.scaleTargetRef)) };
  put(outSpec, "minReplicas", spec);
  outSpec.maxReplicas = spec.maxReplicas ?? 0;
  for (const m of metrics) {
    if (m.type === "Resource" && objOf(m.resource).name === "cpu") {
      const u = objOf(objOf(m.resource).target).averageUtilization;
      if (u !== undefined && u !== null) outSpec.targetCPUUtilizationPercentage = u;
      break;
    }
  }

  const outStatus: Json = {};
  put(outStatus, "observedGeneration", status);
  put(outStatus, "lastScaleTime", status);
  outStatus.currentReplicas = status.currentReplicas ?? 0;
  outStatus.desiredReplicas = status.desiredReplicas ?? 0;
  const current = list<unknown>(status.currentMetrics).map(objOf);
  for (const m of current) {
    if (m.type === "Resource" && objOf(m.resource).name === "cpu") {
      const u = objOf(objOf(m.resource).current).averageUtilization;
      if (u !== undefined && u !== null) outStatus.currentCPUUtilizationPercentage = u;
    }
  }

  const annotations: Record<string, string> = {};
  const other = metrics.filter((m) => !isCPUUtilization(m)).map(metricSpecToV1);
  if (other.length > 0) annotations[metricSpecsAnnotation] = JSON.stringify(other);
  if (current.length > 0) annotations[metricStatusesAnnotation] = JSON.stringify(current.map(metricStatusToV1));
  if (has(spec, "behavior")) annotations[behaviorSpecsAnnotation] = JSON.stringify(behaviorToGoJSON(objOf(spec.behavior)));
  const conditions = list<unknown>(status.conditions);
  if (conditions.length > 0) annotations[conditionsAnnotation] = JSON.stringify(conditions);
  if (Object.keys(annotations).length > 0) meta.annotations = { ...rec(meta.annotations), ...annotations };

  const out: KubeObject = { ...v2, apiVersion: "autoscaling/v1", metadata: meta as KubeObject["metadata"], spec: outSpec, status: outStatus };
  if (v2.kind !== undefined) out.kind = v2.kind;
  return out;
}

/** An autoscaling/v1 HPA as the stored autoscaling/v2 (Convert_v1_…_To_autoscaling_…). */
export function hpaV1ToV2(v1: KubeObject): KubeObject {
  const spec = objOf(v1.spec);
  const status = objOf(v1.status);
  const meta: Json = { ...rec(v1.metadata) };
  const ann = objOf(meta.annotations);

  const outSpec: Json = { scaleTargetRef: ref(objOf(spec.scaleTargetRef)) };
  put(outSpec, "minReplicas", spec);
  outSpec.maxReplicas = spec.maxReplicas ?? 0;
  let metrics: Json[] = [];
  if (has(spec, "targetCPUUtilizationPercentage")) {
    metrics.push({ type: "Resource", resource: { name: "cpu", target: { type: "Utilization", averageUtilization: spec.targetCPUUtilizationPercentage } } });
  }
  const other = parseJSONList(ann[metricSpecsAnnotation]);
  // The CPU target from the field goes after the annotation's metrics.
  if (other) metrics = [...other.map(metricSpecFromV1), ...metrics];
  const behavior = typeof ann[behaviorSpecsAnnotation] === "string" ? behaviorFromGoJSON(ann[behaviorSpecsAnnotation] as string) : undefined;
  if (behavior) outSpec.behavior = behavior;
  if (metrics.length === 0) {
    // autoscaling/v1 formerly had this default in the controller.
    metrics = [{ type: "Resource", resource: { name: "cpu", target: { type: "Utilization", averageUtilization: defaultCPUUtilization } } }];
  }
  outSpec.metrics = metrics;

  const outStatus: Json = {};
  put(outStatus, "observedGeneration", status);
  put(outStatus, "lastScaleTime", status);
  // omitempty in v2: a zero count is not written.
  if (status.currentReplicas) outStatus.currentReplicas = status.currentReplicas;
  outStatus.desiredReplicas = status.desiredReplicas ?? 0;
  if (has(status, "currentCPUUtilizationPercentage")) {
    outStatus.currentMetrics = [{ type: "Resource", resource: { name: "cpu", current: { averageUtilization: status.currentCPUUtilizationPercentage } } }];
  }
  const current = parseJSONList(ann[metricStatusesAnnotation]);
  // "ignore any existing status values -- the ones here have more information"
  if (current) outStatus.currentMetrics = current.map(metricStatusFromV1);
  const conditions = parseJSONList(ann[conditionsAnnotation]);
  if (conditions) outStatus.conditions = conditions;

  dropRoundTrip(meta);
  const out: KubeObject = { ...v1, apiVersion: "autoscaling/v2", metadata: meta as KubeObject["metadata"], spec: outSpec, status: outStatus };
  if (v1.kind !== undefined) out.kind = v1.kind;
  return out;
}
