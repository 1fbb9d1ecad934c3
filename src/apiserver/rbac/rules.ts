/**
 * PolicyRule semantics: whether a rule allows a request (upstream's rbac RuleAllows and the
 * rbacv1helpers matchers), whether one set of rules covers another (escalation checks,
 * component-helpers' Covers), and the compact form of missing rules for error messages.
 */
import type { PolicyRule } from "../../apimachinery/api/rbac/v1.js";
import type { Attributes } from "./attributes.js";

export const VerbAll = "*";
export const APIGroupAll = "*";
export const ResourceAll = "*";
export const NonResourceAll = "*";

const has = (set: readonly string[] | undefined, x: string) => (set ?? []).includes(x);
const hasAll = (set: readonly string[] | undefined, xs: readonly string[] | undefined) => (xs ?? []).every((x) => has(set, x));

export function verbMatches(rule: PolicyRule, verb: string): boolean {
  return rule.verbs.some((v) => v === VerbAll || v === verb);
}

export function apiGroupMatches(rule: PolicyRule, group: string): boolean {
  return (rule.apiGroups ?? []).some((g) => g === APIGroupAll || g === group);
}

/**
 * `combined` is "resource" or "resource/subresource"; a rule resource "*\/sub" matches any
 * resource's subresource "sub".
 */
export function resourceMatches(rule: PolicyRule, combined: string, subresource: string): boolean {
  for (const r of rule.resources ?? []) {
    if (r === ResourceAll || r === combined) return true;
    if (!subresource) continue;
    if (r.length === subresource.length + 2 && r.startsWith("*/") && r.endsWith(subresource)) return true;
  }
  return false;
}

export function resourceNameMatches(rule: PolicyRule, name: string): boolean {
  const names = rule.resourceNames ?? [];
  return names.length === 0 || names.includes(name);
}

export function nonResourceURLMatches(rule: PolicyRule, path: string): boolean {
  for (const u of rule.nonResourceURLs ?? []) {
    if (u === NonResourceAll || u === path) return true;
    if (u.endsWith("*") && path.startsWith(u.replace(/\*+$/, ""))) return true;
  }
  return false;
}

export function ruleAllows(attrs: Attributes, rule: PolicyRule): boolean {
  if (attrs.resourceRequest) {
    const combined = attrs.subresource ? `${attrs.resource}/${attrs.subresource}` : attrs.resource;
    return verbMatches(rule, attrs.verb) && apiGroupMatches(rule, attrs.apiGroup) && resourceMatches(rule, combined, attrs.subresource) && resourceNameMatches(rule, attrs.name);
  }
  return verbMatches(rule, attrs.verb) && nonResourceURLMatches(rule, attrs.path);
}

// ---- covers (escalation) ----------------------------------------------------------------------

/** One rule per (group, resource, verb[, name]) and per (nonResourceURL, verb). */
export function breakdownRule(rule: PolicyRule): PolicyRule[] {
  const out: PolicyRule[] = [];
  for (const group of rule.apiGroups ?? []) {
    for (const resource of rule.resources ?? []) {
      for (const verb of rule.verbs) {
        if (rule.resourceNames?.length) {
          for (const n of rule.resourceNames) out.push({ apiGroups: [group], resources: [resource], verbs: [verb], resourceNames: [n] });
        } else {
          out.push({ apiGroups: [group], resources: [resource], verbs: [verb] });
        }
      }
    }
  }
  for (const url of rule.nonResourceURLs ?? []) {
    for (const verb of rule.verbs) out.push({ nonResourceURLs: [url], verbs: [verb] });
  }
  return out;
}

function resourceCoversAll(owner: readonly string[] | undefined, wanted: readonly string[] | undefined): boolean {
  if (has(owner, ResourceAll) || hasAll(owner, wanted)) return true;
  for (const path of wanted ?? []) {
    if (has(owner, path)) continue;
    const slash = path.indexOf("/");
    if (slash < 0) return false;
    if (!has(owner, `*/${path.slice(slash + 1)}`)) return false;
  }
  return true;
}

function nonResourceURLCovers(owner: string, sub: string): boolean {
  if (owner === sub) return true;
  return owner.endsWith("*") && sub.startsWith(owner.replace(/\*+$/, ""));
}

function nonResourceURLsCoverAll(owner: readonly string[] | undefined, wanted: readonly string[] | undefined): boolean {
  return (wanted ?? []).every((p) => (owner ?? []).some((o) => nonResourceURLCovers(o, p)));
}

/** Whether `owner` covers `sub` (a rule with at most one verb, resource and name). */
export function ruleCovers(owner: PolicyRule, sub: PolicyRule): boolean {
  const verbs = has(owner.verbs, VerbAll) || hasAll(owner.verbs, sub.verbs);
  const groups = has(owner.apiGroups, APIGroupAll) || hasAll(owner.apiGroups, sub.apiGroups);
  const resources = resourceCoversAll(owner.resources, sub.resources);
  const urls = nonResourceURLsCoverAll(owner.nonResourceURLs, sub.nonResourceURLs);
  const ownerNames = owner.resourceNames ?? [];
  const names = (sub.resourceNames ?? []).length === 0 ? ownerNames.length === 0 : ownerNames.length === 0 || hasAll(ownerNames, sub.resourceNames);
  return verbs && groups && resources && names && urls;
}

/** Whether `ownerRules` cover every part of `servantRules`; the uncovered atomic rules otherwise. */
export function covers(ownerRules: readonly PolicyRule[], servantRules: readonly PolicyRule[]): { covered: boolean; missing: PolicyRule[] } {
  const missing: PolicyRule[] = [];
  for (const servant of servantRules) {
    for (const sub of breakdownRule(servant)) {
      if (!ownerRules.some((o) => ruleCovers(o, sub))) missing.push(sub);
    }
  }
  return { covered: missing.length === 0, missing };
}

/** Merges rules that name one group and one resource (and at most one name) and differ only by verbs. */
export function compactRules(rules: readonly PolicyRule[]): PolicyRule[] {
  const out: PolicyRule[] = [];
  const simple = new Map<string, PolicyRule>();
  for (const r of rules) {
    const isSimple =
      (r.resourceNames?.length ?? 0) <= 1 && !(r.nonResourceURLs?.length) && r.apiGroups?.length === 1 && r.resources?.length === 1;
    if (!isSimple) {
      out.push(r);
      continue;
    }
    const key = JSON.stringify([r.apiGroups![0], r.resources![0], r.resourceNames?.[0] ?? null]);
    const existing = simple.get(key);
    if (!existing) {
      simple.set(key, { ...r, verbs: [...r.verbs] });
      continue;
    }
    for (const v of r.verbs) if (!existing.verbs.includes(v)) existing.verbs.push(v);
  }
  return [...out, ...simple.values()];
}

/** Go's %q of a []string. */
const q = (xs: readonly string[]) => `[${xs.map((x) => JSON.stringify(x)).join(" ")}]`;

/** `{APIGroups:["apps"], Resources:["deployments"], Verbs:["create"]}` (rbacv1helpers.CompactString). */
export function compactString(r: PolicyRule): string {
  const parts: string[] = [];
  if (r.apiGroups?.length) parts.push(`APIGroups:${q(r.apiGroups)}`);
  if (r.resources?.length) parts.push(`Resources:${q(r.resources)}`);
  if (r.nonResourceURLs?.length) parts.push(`NonResourceURLs:${q(r.nonResourceURLs)}`);
  if (r.resourceNames?.length) parts.push(`ResourceNames:${q(r.resourceNames)}`);
  if (r.verbs?.length) parts.push(`Verbs:${q(r.verbs)}`);
  return `{${parts.join(", ")}}`;
}
