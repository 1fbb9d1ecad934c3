/**
 * node.k8s.io/v1 RuntimeClasses (pkg/apis/node/validation): the handler is a DNS-1123 label and
 * immutable; overhead.podFixed holds non-negative quantities of valid resource names;
 * scheduling.nodeSelector is a label map and scheduling.tolerations are valid and unique.
 * No defaults, no generation, no status.
 */
import type { Toleration } from "../../apimachinery/api/core/v1.js";
import { fieldErrors, type FieldError } from "../../apimachinery/fielderrors.js";
import type { KubeObject } from "../../apimachinery/types.js";
import { isDNS1123Label, nameIsDNSSubdomain } from "../../apimachinery/validation.js";
import { defineStrategy } from "./define.js";
import { validateImmutableField, validateLabelName, validateLabels } from "./meta.js";
import { index, key } from "./path.js";
import { validateTolerations } from "./podvalidation.js";
import { quantityNanos } from "../../apimachinery/quantity.js";
import { fieldsOf, num, rec, records, str, stringMap, text } from "./shape.js";
import type { ResourceStrategy } from "./strategy.js";

/** Tolerations read for validation (string fields as strings, tolerationSeconds as a number). */
export function tolerationsOf(v: unknown): Toleration[] {
  return records(v).map((t) => {
    const out: Toleration = {};
    for (const f of ["key", "operator", "value", "effect"] as const) {
      const s = str(t[f]);
      if (s !== undefined) out[f] = s;
    }
    const secs = num(t.tolerationSeconds);
    if (secs !== undefined) out.tolerationSeconds = secs;
    return out;
  });
}

/** The identity of a toleration in the list (key, operator with "" as Equal, value, effect). */
function tolerationKey(t: Toleration): string {
  return JSON.stringify([t.key ?? "", t.operator || "Equal", t.value ?? "", t.effect ?? ""]);
}

function validateOverhead(overhead: unknown): FieldError[] {
  const errs: FieldError[] = [];
  const podFixed = rec(rec(overhead)?.podFixed) ?? {};
  for (const [name, q] of Object.entries(podFixed)) {
    const p = key("overhead.podFixed", name);
    errs.push(...validateLabelName(name, p));
    const s = typeof q === "number" ? String(q) : text(q);
    const v = quantityNanos(s);
    if (v === undefined) errs.push(fieldErrors.invalid(p, s, "must be a valid resource quantity"));
    else if (v < 0n) errs.push(fieldErrors.invalid(p, s, "must be greater than or equal to 0"));
  }
  return errs;
}

function validateScheduling(scheduling: unknown): FieldError[] {
  const s = rec(scheduling);
  if (!s) return [];
  const errs = validateLabels(stringMap(s.nodeSelector), "scheduling.nodeSelector");
  const tolerations = tolerationsOf(s.tolerations);
  errs.push(...validateTolerations(tolerations, "scheduling.tolerations"));
  const seen = new Set<string>();
  tolerations.forEach((t, i) => {
    const k = tolerationKey(t);
    if (seen.has(k)) errs.push(fieldErrors.duplicate(index("scheduling.tolerations", i), t));
    seen.add(k);
  });
  return errs;
}

export function validateRuntimeClass(obj: KubeObject): FieldError[] {
  const rc = fieldsOf(obj);
  const handler = text(rc.handler);
  const errs = isDNS1123Label(handler).map((m) => fieldErrors.invalid("handler", handler, m));
  if (rc.overhead !== undefined && rc.overhead !== null) errs.push(...validateOverhead(rc.overhead));
  errs.push(...validateScheduling(rc.scheduling));
  return errs;
}

export const runtimeClassStrategy: ResourceStrategy = defineStrategy({
  names: {
    group: "node.k8s.io",
    version: "v1",
    kind: "RuntimeClass",
    resource: "runtimeclasses",
    singular: "runtimeclass",
    listKind: "RuntimeClassList",
    shortNames: [],
    categories: [],
    namespaced: false,
  },
  nameFn: nameIsDNSSubdomain,
  validateCreate: validateRuntimeClass,
  // ValidateRuntimeClassUpdate checks only that the handler did not change.
  validateUpdate: (obj, old) => validateImmutableField(fieldsOf(obj).handler, fieldsOf(old).handler, "handler"),
});
