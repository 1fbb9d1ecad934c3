/**
 * core/v1 ResourceQuotas: ValidateResourceQuota (hard limits named by standard quota resources
 * or qualified names, with non-negative — and for counted resources whole — quantities; known,
 * non-conflicting scopes; a scope selector with known scope names and operators) and
 * ValidateResourceQuotaStatus (hard and used quantities). The status is the quota
 * controller's: it starts empty and only the status subresource writes it.
 */
import { fieldErrors, type FieldError } from "../../apimachinery/fielderrors.js";
import type { KubeObject } from "../../apimachinery/types.js";
import { isQualifiedName, nameIsDNSSubdomain } from "../../apimachinery/validation.js";
import { defineStrategy } from "./define.js";
import { child, index, key } from "./path.js";
import { rec, list } from "./shape.js";
import type { ResourceStrategy } from "./strategy.js";
import { validateResourceQuantityValue } from "./volumequantity.js";

const standardQuotaResources = new Set([
  "pods", "services", "replicationcontrollers", "resourcequotas", "secrets", "configmaps", "persistentvolumeclaims",
  "services.nodeports", "services.loadbalancers", "cpu", "memory", "ephemeral-storage", "requests.cpu", "requests.memory",
  "requests.storage", "requests.ephemeral-storage", "limits.cpu", "limits.memory", "limits.ephemeral-storage",
]);
const scopes = ["BestEffort", "CrossNamespacePodAffinity", "NotBestEffort", "NotTerminating", "PriorityClass", "Terminating", "VolumeAttributesClass"];
const scopeOperators = ["DoesNotExist", "Exists", "In", "NotIn"];

function isStandardQuotaResource(name: string): boolean {
  return standardQuotaResources.has(name) || name.startsWith("hugepages-") || name.startsWith("requests.hugepages-");
}

function validateResourceList(list: unknown, field: string, names: boolean): FieldError[] {
  const errs: FieldError[] = [];
  for (const [k, v] of Object.entries(rec(list) ?? {})) {
    const p = key(field, k);
    if (names) {
      if (k.includes("/")) for (const msg of isQualifiedName(k)) errs.push(fieldErrors.invalid(p, k, msg));
      else if (!isStandardQuotaResource(k)) errs.push(fieldErrors.invalid(p, k, "must be a standard resource for quota"));
    }
    errs.push(...validateResourceQuantityValue(k, v, p));
  }
  return errs;
}

export function validateResourceQuotaSpec(obj: KubeObject): FieldError[] {
  const spec = rec(obj.spec) ?? {};
  const errs = validateResourceList(spec.hard, "spec.hard", true);
  const given = list<unknown>(spec.scopes);
  if (given.length > 0) {
    for (const s of given) {
      if (typeof s !== "string" || !scopes.includes(s)) errs.push(fieldErrors.invalid("spec.scopes", given, "unsupported scope"));
    }
    const set = new Set(given);
    if ((set.has("BestEffort") && set.has("NotBestEffort")) || (set.has("Terminating") && set.has("NotTerminating"))) {
      errs.push(fieldErrors.invalid("spec.scopes", given, "conflicting scopes"));
    }
  }
  const selector = rec(spec.scopeSelector);
  if (selector) {
    list<unknown>(selector.matchExpressions).forEach((raw, i) => {
      const e = rec(raw) ?? {};
      const p = index("spec.scopeSelector.matchExpressions", i);
      if (typeof e.scopeName !== "string" || !scopes.includes(e.scopeName)) errs.push(fieldErrors.invalid(child(p, "scopeName"), e.scopeName ?? "", "unsupported scope"));
      const op = e.operator;
      if (typeof op !== "string" || !scopeOperators.includes(op)) errs.push(fieldErrors.invalid(child(p, "operator"), op ?? "", "not a valid selector operator"));
      const values = list<unknown>(e.values);
      if ((op === "In" || op === "NotIn") && values.length === 0) {
        errs.push(fieldErrors.required(child(p, "values"), "must be at least one value when `operator` is 'In' or 'NotIn' for scope selector"));
      }
      if ((op === "Exists" || op === "DoesNotExist") && values.length > 0) {
        errs.push(fieldErrors.invalid(child(p, "values"), values, "must be no value when `operator` is 'Exist' or 'DoesNotExist' for scope selector"));
      }
    });
  }
  return errs;
}

export const resourceQuotaStrategy: ResourceStrategy = defineStrategy({
  names: {
    group: "",
    version: "v1",
    kind: "ResourceQuota",
    resource: "resourcequotas",
    singular: "resourcequota",
    listKind: "ResourceQuotaList",
    shortNames: ["quota"],
    categories: [],
    namespaced: true,
  },
  subresources: { status: true },
  nameFn: nameIsDNSSubdomain,
  validateSpec: validateResourceQuotaSpec,
  validateStatus: (obj) => {
    const st = rec(obj.status) ?? {};
    return [...validateResourceList(st.hard, "status.hard", true), ...validateResourceList(st.used, "status.used", true)];
  },
});
