/**
 * Registry strategies of rbac.authorization.k8s.io/v1: Roles, ClusterRoles, RoleBindings,
 * ClusterRoleBindings — v1 defaulting (roleRef and User/Group subjects get the rbac API group)
 * and upstream's validation (pkg/apis/rbac/validation). Escalation checks need the requesting
 * user and live in escalation.ts as resource hooks.
 */
import type { AggregationRule, PolicyRule, RoleRef, Subject } from "../../apimachinery/api/rbac/v1.js";
import { fieldErrors, type FieldError } from "../../apimachinery/fielderrors.js";
import type { KubeObject } from "../../apimachinery/types.js";
import { nameIsDNSSubdomain, nameIsPathSegment } from "../../apimachinery/validation.js";
import { defineStrategy } from "../registry/define.js";
import { validateLabelSelector } from "../registry/meta.js";
import type { ResourceStrategy } from "../registry/strategy.js";
import { semanticEqual } from "../../apimachinery/equality.js";
import { requireRBACTypes } from "./shape.js";

export const rbacGroup = "rbac.authorization.k8s.io";

/** path.ValidatePathSegmentName: RBAC object names may be anything usable as a URL path segment. */
export { nameIsPathSegment };

interface RuleHolder {
  rules?: PolicyRule[];
  aggregationRule?: AggregationRule;
}
interface BindingHolder {
  subjects?: Subject[];
  roleRef?: RoleRef;
}

export function validatePolicyRule(rule: PolicyRule, namespaced: boolean, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (!rule.verbs?.length) errs.push(fieldErrors.required(`${path}.verbs`, "verbs must contain at least one value"));
  if (rule.nonResourceURLs?.length) {
    if (namespaced) errs.push(fieldErrors.invalid(`${path}.nonResourceURLs`, rule.nonResourceURLs, "namespaced rules cannot apply to non-resource URLs"));
    if (rule.apiGroups?.length || rule.resources?.length || rule.resourceNames?.length) {
      errs.push(fieldErrors.invalid(`${path}.nonResourceURLs`, rule.nonResourceURLs, "rules cannot apply to both regular resources and non-resource URLs"));
    }
    return errs;
  }
  if (!rule.apiGroups?.length) errs.push(fieldErrors.required(`${path}.apiGroups`, "resource rules must supply at least one api group"));
  if (!rule.resources?.length) errs.push(fieldErrors.required(`${path}.resources`, "resource rules must supply at least one resource"));
  return errs;
}

function validateRules(obj: KubeObject, namespaced: boolean): FieldError[] {
  const rules = (obj as RuleHolder).rules ?? [];
  return rules.flatMap((r, i) => validatePolicyRule(r ?? {}, namespaced, `rules[${i}]`));
}

function validateAggregationRule(obj: KubeObject): FieldError[] {
  const agg = (obj as RuleHolder).aggregationRule;
  if (agg == null) return [];
  const errs: FieldError[] = [];
  const sels = agg.clusterRoleSelectors ?? [];
  if (sels.length === 0) errs.push(fieldErrors.required("aggregationRule.clusterRoleSelectors", "at least one clusterRoleSelector required if aggregationRule is non-nil"));
  sels.forEach((s, i) => errs.push(...validateLabelSelector(s, `aggregationRule.clusterRoleSelectors[${i}]`)));
  return errs;
}

export function validateSubject(s: Subject, namespaced: boolean, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (!s.name) errs.push(fieldErrors.required(`${path}.name`, ""));
  switch (s.kind) {
    case "ServiceAccount":
      if (s.name) for (const m of nameIsDNSSubdomain(s.name, false)) errs.push(fieldErrors.invalid(`${path}.name`, s.name, m));
      if (s.apiGroup) errs.push(fieldErrors.notSupported(`${path}.apiGroup`, s.apiGroup, [""]));
      if (!namespaced && !s.namespace) errs.push(fieldErrors.required(`${path}.namespace`, ""));
      break;
    case "User":
    case "Group":
      if (s.apiGroup !== rbacGroup) errs.push(fieldErrors.notSupported(`${path}.apiGroup`, s.apiGroup ?? "", [rbacGroup]));
      break;
    default:
      errs.push(fieldErrors.notSupported(`${path}.kind`, s.kind ?? "", ["ServiceAccount", "User", "Group"]));
  }
  return errs;
}

function validateBinding(obj: KubeObject, namespaced: boolean): FieldError[] {
  const b = obj as BindingHolder;
  const ref: Partial<RoleRef> = b.roleRef ?? {};
  const errs: FieldError[] = [];
  if (ref.apiGroup !== rbacGroup) errs.push(fieldErrors.notSupported("roleRef.apiGroup", ref.apiGroup ?? "", [rbacGroup]));
  const kinds = namespaced ? ["Role", "ClusterRole"] : ["ClusterRole"];
  if (!kinds.includes(ref.kind ?? "")) errs.push(fieldErrors.notSupported("roleRef.kind", ref.kind ?? "", kinds));
  if (!ref.name) errs.push(fieldErrors.required("roleRef.name", ""));
  else for (const m of nameIsPathSegment(ref.name, false)) errs.push(fieldErrors.invalid("roleRef.name", ref.name, m));
  (b.subjects ?? []).forEach((s, i) => errs.push(...validateSubject(s ?? {}, namespaced, `subjects[${i}]`)));
  return errs;
}

function defaultBinding(obj: KubeObject): void {
  const b = obj as BindingHolder;
  if (b.roleRef && !b.roleRef.apiGroup) b.roleRef.apiGroup = rbacGroup;
  for (const s of b.subjects ?? []) {
    if (s && !s.apiGroup && (s.kind === "User" || s.kind === "Group")) s.apiGroup = rbacGroup;
  }
}

function roleRefImmutable(obj: KubeObject, old: KubeObject): FieldError[] {
  const ref = (obj as BindingHolder).roleRef;
  if (semanticEqual(ref, (old as BindingHolder).roleRef)) return [];
  return [fieldErrors.invalid("roleRef", ref, "cannot change roleRef")];
}

const names = (kind: string, resource: string, namespaced: boolean) => ({
  group: rbacGroup,
  version: "v1",
  kind,
  resource,
  singular: kind.toLowerCase(),
  listKind: `${kind}List`,
  shortNames: [],
  categories: [],
  namespaced,
});

export const roleStrategy: ResourceStrategy = defineStrategy({
  names: names("Role", "roles", true),
  nameFn: nameIsPathSegment,
  defaults: (o) => requireRBACTypes("Role", o),
  validateSpec: (o) => validateRules(o, true),
});

export const clusterRoleStrategy: ResourceStrategy = defineStrategy({
  names: names("ClusterRole", "clusterroles", false),
  nameFn: nameIsPathSegment,
  defaults: (o) => requireRBACTypes("ClusterRole", o),
  validateSpec: (o) => [...validateRules(o, false), ...validateAggregationRule(o)],
});

export const roleBindingStrategy: ResourceStrategy = defineStrategy({
  names: names("RoleBinding", "rolebindings", true),
  nameFn: nameIsPathSegment,
  defaults: (o) => {
    requireRBACTypes("RoleBinding", o);
    defaultBinding(o);
  },
  validateSpec: (o) => validateBinding(o, true),
  validateUpdate: roleRefImmutable,
});

export const clusterRoleBindingStrategy: ResourceStrategy = defineStrategy({
  names: names("ClusterRoleBinding", "clusterrolebindings", false),
  nameFn: nameIsPathSegment,
  defaults: (o) => {
    requireRBACTypes("ClusterRoleBinding", o);
    defaultBinding(o);
  },
  validateSpec: (o) => validateBinding(o, false),
  validateUpdate: roleRefImmutable,
});

/** The four RBAC strategies, in upstream's discovery order. */
export function rbacStrategies(): ResourceStrategy[] {
  return [clusterRoleBindingStrategy, clusterRoleStrategy, roleBindingStrategy, roleStrategy];
}
