/**
 * Which requests a policy or binding applies to (k8s.io/apiserver/pkg/admission/plugin/policy/
 * matching and webhook/predicates/rules): matchResources' resourceRules (operations, apiGroups,
 * apiVersions, resources with "*", "*\/*", "r/sub", "*\/sub", "r/*", scope, resourceNames),
 * excludeResourceRules, namespaceSelector (cluster-scoped requests other than namespaces always
 * match; a Namespace is matched by its own labels), objectSelector (the new or the old object's
 * labels) and matchPolicy (Equivalent, the default, also matches the rule's resources at the
 * versions the server serves them).
 */
import type { LabelSelector } from "../../../apimachinery/api/meta/v1.js";
import { labelSelectorAsSelector } from "../../../apimachinery/labels.js";
import type { KubeObject } from "../../../apimachinery/types.js";
import type { AdmissionAttributes } from "../interfaces.js";

export interface NamedRule {
  apiGroups?: string[];
  apiVersions?: string[];
  resources?: string[];
  operations?: string[];
  scope?: string;
  resourceNames?: string[];
}

export interface MatchResources {
  namespaceSelector?: LabelSelector;
  objectSelector?: LabelSelector;
  resourceRules?: NamedRule[];
  excludeResourceRules?: NamedRule[];
  matchPolicy?: string;
}

const has = (list: readonly string[] | undefined, v: string) => (list ?? []).includes("*") || (list ?? []).includes(v);

function resourceMatches(patterns: readonly string[] | undefined, resource: string, subresource: string): boolean {
  for (const p of patterns ?? []) {
    const [r, sub] = p.split("/", 2) as [string, string | undefined];
    if (sub === undefined) {
      if (subresource === "" && (r === "*" || r === resource)) return true;
    } else if ((r === "*" || r === resource) && (sub === "*" || sub === subresource)) {
      return true;
    }
  }
  return false;
}

/** rules.Matcher: one rule against the request (`anyVersion` for matchPolicy Equivalent). */
export function ruleMatches(rule: NamedRule, a: AdmissionAttributes, anyVersion = false): boolean {
  if (!has(rule.operations, a.operation)) return false;
  if (!has(rule.apiGroups, a.resource.group)) return false;
  if (!anyVersion && !has(rule.apiVersions, a.resource.version)) return false;
  if (!resourceMatches(rule.resources, a.resource.resource, a.subresource)) return false;
  const scope = rule.scope ?? "*";
  const clusterScoped = a.namespace === "" || (a.resource.group === "" && a.resource.resource === "namespaces");
  if (scope === "Cluster" && !clusterScoped) return false;
  if (scope === "Namespaced" && clusterScoped) return false;
  if (rule.resourceNames?.length && !rule.resourceNames.includes(a.name)) return false;
  return true;
}

function selects(selector: LabelSelector | undefined, labels: Record<string, string> | undefined): boolean {
  if (!selector) return true;
  return labelSelectorAsSelector(selector).matches(labels ?? {});
}

export type NamespaceLabels = (namespace: string) => Promise<Record<string, string> | undefined>;

/** Whether `mr` selects the request (MatchResources / Matches of the policy matcher). */
export async function matchesResources(mr: MatchResources | undefined, a: AdmissionAttributes, namespaceLabels: NamespaceLabels, requireRules = true): Promise<boolean> {
  if (!mr) return !requireRules;
  const rules = mr.resourceRules ?? [];
  if (rules.length || requireRules) {
    const equivalent = (mr.matchPolicy ?? "Equivalent") === "Equivalent";
    if (!rules.some((r) => ruleMatches(r, a) || (equivalent && ruleMatches(r, a, true)))) return false;
  }
  if ((mr.excludeResourceRules ?? []).some((r) => ruleMatches(r, a))) return false;
  const objLabels = (o: KubeObject | undefined) => o?.metadata?.labels;
  if (mr.objectSelector && !(selects(mr.objectSelector, objLabels(a.object)) || (a.oldObject !== undefined && selects(mr.objectSelector, objLabels(a.oldObject))))) {
    return false;
  }
  if (mr.namespaceSelector && (mr.namespaceSelector.matchLabels || mr.namespaceSelector.matchExpressions?.length)) {
    const isNamespace = a.resource.group === "" && a.resource.resource === "namespaces";
    if (isNamespace) {
      const labels = objLabels(a.object) ?? objLabels(a.oldObject);
      if (!selects(mr.namespaceSelector, labels)) return false;
    } else if (a.namespace !== "") {
      if (!selects(mr.namespaceSelector, await namespaceLabels(a.namespace))) return false;
    }
  }
  return true;
}
