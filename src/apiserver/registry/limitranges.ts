/**
 * core/v1 LimitRanges: SetDefaults_LimitRangeItem (for Container limits: the default limit
 * falls back to max, the default request to the default limit, then to min) and ValidateLimitRange
 * (one item per type — Pod, Container, PersistentVolumeClaim or a qualified name —, qualified
 * resource names, no defaults for Pod items, storage bounds for PVC items, min ≤ default request
 * ≤ default ≤ max, a maxLimitRequestRatio of at least 1 and within max/min, equal default and
 * default request for resources that cannot be overcommitted). Quantities in messages are
 * printed as given (upstream prints their canonical form).
 */
import { fieldErrors, type FieldError } from "../../apimachinery/fielderrors.js";
import type { KubeObject } from "../../apimachinery/types.js";
import { isQualifiedName, nameIsDNSSubdomain } from "../../apimachinery/validation.js";
import { defineStrategy } from "./define.js";
import { child, index, key } from "./path.js";
import { rec, list } from "./shape.js";
import type { ResourceStrategy } from "./strategy.js";
import { quantityValue, validateResourceQuantityValue } from "./volumequantity.js";

type Json = Record<string, unknown>;
const standardLimitTypes = new Set(["Pod", "Container", "PersistentVolumeClaim"]);

export function defaultLimitRange(obj: KubeObject): void {
  for (const item of list<Json>(rec(obj.spec)?.limits)) {
    if (!rec(item) || item.type !== "Container") continue;
    const def: Json = { ...(rec(item.default) ?? {}) };
    const req: Json = { ...(rec(item.defaultRequest) ?? {}) };
    for (const [k, v] of Object.entries(rec(item.max) ?? {})) if (!(k in def)) def[k] = v;
    for (const [k, v] of Object.entries(def)) if (!(k in req)) req[k] = v;
    for (const [k, v] of Object.entries(rec(item.min) ?? {})) if (!(k in req)) req[k] = v;
    // Empty maps are omitted on the wire.
    if (Object.keys(def).length > 0) item.default = def;
    if (Object.keys(req).length > 0) item.defaultRequest = req;
  }
}

/** Resources whose requests must equal their limits (helper.IsOvercommitAllowed is false). */
function overcommitAllowed(name: string): boolean {
  if (name.startsWith("hugepages-")) return false;
  const slash = name.indexOf("/");
  if (slash >= 0) {
    const domain = name.slice(0, slash);
    // Extended resources (outside kubernetes.io) cannot be overcommitted.
    if (!(domain === "kubernetes.io" || domain.endsWith(".kubernetes.io"))) return false;
  }
  return true;
}

function validateItem(item: Json, p: string, seen: Set<string>): FieldError[] {
  const errs: FieldError[] = [];
  const type = typeof item.type === "string" ? item.type : "";
  if (!standardLimitTypes.has(type)) for (const msg of isQualifiedName(type)) errs.push(fieldErrors.invalid(child(p, "type"), type, msg));
  if (seen.has(type)) errs.push(fieldErrors.duplicate(child(p, "type"), type));
  seen.add(type);
  const lists: Record<string, Record<string, bigint>> = { min: {}, max: {}, default: {}, defaultRequest: {}, maxLimitRequestRatio: {} };
  const raw: Record<string, Json> = {};
  const keys = new Set<string>();
  for (const field of ["max", "min", "default", "defaultRequest", "maxLimitRequestRatio"]) {
    const m = rec(item[field]) ?? {};
    raw[field] = m;
    if (type === "Pod" && (field === "default" || field === "defaultRequest")) {
      if (Object.keys(m).length > 0) errs.push(fieldErrors.forbidden(child(p, field), "may not be specified when `type` is 'Pod'"));
      continue;
    }
    for (const [k, v] of Object.entries(m)) {
      const kp = key(child(p, field), k);
      if (k.includes("/")) for (const msg of isQualifiedName(k)) errs.push(fieldErrors.invalid(kp, k, msg));
      const e = validateResourceQuantityValue(k, v, kp);
      errs.push(...e);
      const q = quantityValue(v, kp).value;
      if (q !== undefined) lists[field][k] = q;
      keys.add(k);
    }
  }
  if (type === "PersistentVolumeClaim" && !("storage" in raw.min) && !("storage" in raw.max)) {
    errs.push(fieldErrors.required(child(p, "limits"), "either minimum or maximum storage value is required, but neither was provided"));
  }
  const s = (field: string, k: string) => String(raw[field][k]);
  for (const k of [...keys].sort()) {
    const min = lists.min[k];
    const max = lists.max[k];
    const def = lists.default[k];
    const req = lists.defaultRequest[k];
    const ratio = lists.maxLimitRequestRatio[k];
    if (min !== undefined && max !== undefined && min > max) errs.push(fieldErrors.invalid(key(child(p, "min"), k), s("min", k), `min value ${s("min", k)} is greater than max value ${s("max", k)}`));
    if (req !== undefined && min !== undefined && min > req) {
      errs.push(fieldErrors.invalid(key(child(p, "defaultRequest"), k), s("defaultRequest", k), `min value ${s("min", k)} is greater than default request value ${s("defaultRequest", k)}`));
    }
    if (req !== undefined && max !== undefined && req > max) {
      errs.push(fieldErrors.invalid(key(child(p, "defaultRequest"), k), s("defaultRequest", k), `default request value ${s("defaultRequest", k)} is greater than max value ${s("max", k)}`));
    }
    if (req !== undefined && def !== undefined && req > def) {
      errs.push(
        fieldErrors.invalid(key(child(p, "defaultRequest"), k), s("defaultRequest", k), `default request value ${s("defaultRequest", k)} is greater than default limit value ${s("default", k)}`),
      );
    }
    if (def !== undefined && min !== undefined && min > def) errs.push(fieldErrors.invalid(key(child(p, "default"), k), s("min", k), `min value ${s("min", k)} is greater than default value ${s("default", k)}`));
    if (def !== undefined && max !== undefined && def > max) errs.push(fieldErrors.invalid(key(child(p, "default"), k), s("max", k), `default value ${s("default", k)} is greater than max value ${s("max", k)}`));
    if (ratio !== undefined && ratio < 1_000_000_000n) {
      errs.push(fieldErrors.invalid(key(child(p, "maxLimitRequestRatio"), k), s("maxLimitRequestRatio", k), `ratio ${s("maxLimitRequestRatio", k)} is less than 1`));
    }
    if (ratio !== undefined && min !== undefined && max !== undefined && min > 0n) {
      const limit = Number(max) / Number(min);
      if (Number(ratio) / 1e9 > limit) {
        errs.push(
          fieldErrors.invalid(key(child(p, "maxLimitRequestRatio"), k), s("maxLimitRequestRatio", k), `ratio ${s("maxLimitRequestRatio", k)} is greater than max/min = ${limit.toFixed(6)}`),
        );
      }
    }
    if (!overcommitAllowed(k) && def !== undefined && req !== undefined && def !== req) {
      errs.push(
        fieldErrors.invalid(key(child(p, "defaultRequest"), k), s("defaultRequest", k), `default value ${s("default", k)} must equal to defaultRequest value ${s("defaultRequest", k)} in ${k}`),
      );
    }
  }
  return errs;
}

export function validateLimitRangeSpec(obj: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  list<unknown>(rec(obj.spec)?.limits).forEach((item, i) => errs.push(...validateItem(rec(item) ?? {}, index("spec.limits", i), seen)));
  return errs;
}

export const limitRangeStrategy: ResourceStrategy = defineStrategy({
  names: {
    group: "",
    version: "v1",
    kind: "LimitRange",
    resource: "limitranges",
    singular: "limitrange",
    listKind: "LimitRangeList",
    shortNames: ["limits"],
    categories: [],
    namespaced: true,
  },
  nameFn: nameIsDNSSubdomain,
  defaults: defaultLimitRange,
  validateSpec: validateLimitRangeSpec,
});
