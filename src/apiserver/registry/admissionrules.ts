/**
 * The pieces admissionregistration.k8s.io's kinds share (pkg/apis/admissionregistration/
 * validation): rules with operations, match resources, match conditions, param kinds and refs,
 * and the defaults of rules, selectors and service references (pkg/apis/admissionregistration/
 * v1/defaults.go). Value lists in messages are sorted as Go's sets.List() sorts them.
 *
 * CEL expressions (match conditions, validations, mutations, variables) are checked for
 * presence and size only: they are not compiled when the object is written.
 */
import { fieldErrors, type FieldError } from "../../apimachinery/fielderrors.js";
import { isDNS1035Label, isDNS1123Subdomain, isQualifiedName } from "../../apimachinery/validation.js";
import { nameIsPathSegment } from "../rbac/strategies.js";
import { validateLabelSelector } from "./meta.js";
import { child, index } from "./path.js";
import { GoValueError, has, labelSelector, list, objAt, rec, records, str, strings, text, type Obj } from "./shape.js";

export const admissionGroup = "admissionregistration.k8s.io";

export const failurePolicies = ["Fail", "Ignore"];
export const matchPolicies = ["Equivalent", "Exact"];
const operations = ["*", "CONNECT", "CREATE", "DELETE", "UPDATE"];
const scopes = ["*", "Cluster", "Namespaced"];

/** Go's %#v of a string slice: `[]string{"a", "b"}` (typeName e.g. "admissionregistration.OperationType"). */
export function goStrings(values: readonly string[], typeName = "string"): string {
  return `[]${typeName}{${values.map((v) => JSON.stringify(v)).join(", ")}}`;
}

/** An Invalid error whose bad value is a string slice, printed as Go prints it. */
export function invalidSlice(field: string, values: readonly string[], detail: string, typeName = "string"): FieldError {
  return new GoValueError("FieldValueInvalid", field, goStrings(values, typeName), detail);
}

// ---- defaults --------------------------------------------------------------------------------

/** SetDefaults_Rule: scope "*". */
export function defaultRule(rule: Obj): void {
  if (!has(rule, "scope")) rule.scope = "*";
}

/** SetDefaults_ServiceReference on a webhook clientConfig: port 443. */
export function defaultClientConfig(cc: unknown): void {
  const service = rec(rec(cc)?.service);
  if (service && !has(service, "port")) service.port = 443;
}

/** SetDefaults_MatchResources: matchPolicy Equivalent, empty selectors; every rule defaulted. */
export function defaultMatchResources(mr: Obj): void {
  if (!has(mr, "matchPolicy")) mr.matchPolicy = "Equivalent";
  if (!has(mr, "namespaceSelector")) mr.namespaceSelector = {};
  if (!has(mr, "objectSelector")) mr.objectSelector = {};
  for (const r of records(mr.resourceRules)) defaultRule(r);
  for (const r of records(mr.excludeResourceRules)) defaultRule(r);
}

/** SetDefaults_ParamRef: parameterNotFoundAction Deny. */
export function defaultParamRef(pr: unknown): void {
  const ref = rec(pr);
  if (ref && !has(ref, "parameterNotFoundAction")) ref.parameterNotFoundAction = "Deny";
}

/** The spec of a policy or binding, created when absent (for defaulting). */
export function specOf(o: Obj): Obj {
  return objAt(o, "spec");
}

// ---- rules ---------------------------------------------------------------------------------

function hasWildcard(values: readonly string[]): boolean {
  return values.includes("*");
}

/** validateResources: resources with subresources and the wildcard rules. */
function validateResources(resources: string[], field: string): FieldError[] {
  const errs: FieldError[] = [];
  if (resources.length === 0) errs.push(fieldErrors.required(field, ""));
  const withWildcardSub = new Set<string>();
  const subWithWildcardRes = new Set<string>();
  let doubleWildcard = false;
  let singleWildcard = false;
  let withoutSub = false;
  resources.forEach((resSub, i) => {
    if (resSub === "") {
      errs.push(fieldErrors.required(index(field, i), ""));
      return;
    }
    if (resSub === "*/*") doubleWildcard = true;
    if (resSub === "*") singleWildcard = true;
    const slash = resSub.indexOf("/");
    if (slash < 0) {
      withoutSub = resSub !== "*";
      return;
    }
    const res = resSub.slice(0, slash);
    const sub = resSub.slice(slash + 1);
    if (withWildcardSub.has(res)) errs.push(fieldErrors.invalid(index(field, i), resSub, `if '${res}/*' is present, must not specify ${resSub}`));
    if (subWithWildcardRes.has(sub)) errs.push(fieldErrors.invalid(index(field, i), resSub, `if '*/${sub}' is present, must not specify ${resSub}`));
    if (sub === "*") withWildcardSub.add(res);
    if (res === "*") subWithWildcardRes.add(sub);
  });
  if (resources.length > 1 && doubleWildcard) errs.push(invalidSlice(field, resources, "if '*/*' is present, must not specify other resources"));
  if (singleWildcard && withoutSub) errs.push(invalidSlice(field, resources, "if '*' is present, must not specify other resources without subresources"));
  return errs;
}

function validateRule(rule: Obj, field: string): FieldError[] {
  const errs: FieldError[] = [];
  const groups = strings(rule.apiGroups);
  if (groups.length === 0) errs.push(fieldErrors.required(child(field, "apiGroups"), ""));
  if (groups.length > 1 && hasWildcard(groups)) errs.push(invalidSlice(child(field, "apiGroups"), groups, "if '*' is present, must not specify other API groups"));
  const versions = strings(rule.apiVersions);
  if (versions.length === 0) errs.push(fieldErrors.required(child(field, "apiVersions"), ""));
  if (versions.length > 1 && hasWildcard(versions)) errs.push(invalidSlice(child(field, "apiVersions"), versions, "if '*' is present, must not specify other API versions"));
  versions.forEach((v, i) => {
    if (v === "") errs.push(fieldErrors.required(index(child(field, "apiVersions"), i), ""));
  });
  errs.push(...validateResources(strings(rule.resources), child(field, "resources")));
  if (has(rule, "scope") && !scopes.includes(String(rule.scope))) errs.push(fieldErrors.notSupported(child(field, "scope"), rule.scope, scopes));
  return errs;
}

/** validateRuleWithOperations. */
export function validateRuleWithOperations(rule: Obj, field: string): FieldError[] {
  const errs: FieldError[] = [];
  const ops = strings(rule.operations);
  if (ops.length === 0) errs.push(fieldErrors.required(child(field, "operations"), ""));
  if (ops.length > 1 && hasWildcard(ops)) {
    errs.push(invalidSlice(child(field, "operations"), ops, "if '*' is present, must not specify other operations", "admissionregistration.OperationType"));
  }
  ops.forEach((op, i) => {
    if (!operations.includes(op)) errs.push(fieldErrors.notSupported(index(child(field, "operations"), i), op, operations));
  });
  errs.push(...validateRule(rule, field));
  return errs;
}

function validateNamedRuleWithOperations(rule: Obj, field: string): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  strings(rule.resourceNames).forEach((n, i) => {
    const p = index(child(field, "resourceNames"), i);
    for (const msg of nameIsPathSegment(n, false)) errs.push(fieldErrors.invalid(p, n, msg));
    if (seen.has(n)) errs.push(fieldErrors.duplicate(p, n));
    seen.add(n);
  });
  errs.push(...validateRuleWithOperations(rule, field));
  return errs;
}

// ---- match resources, conditions, params ----------------------------------------------------

/** validateMatchResources (selectors validated strictly). */
export function validateMatchResources(mr: Obj | undefined, field: string): FieldError[] {
  if (!mr) return [];
  const errs: FieldError[] = [];
  if (!has(mr, "matchPolicy")) errs.push(fieldErrors.required(child(field, "matchPolicy"), ""));
  else if (!matchPolicies.includes(String(mr.matchPolicy))) errs.push(fieldErrors.notSupported(child(field, "matchPolicy"), mr.matchPolicy, matchPolicies));
  for (const sel of ["namespaceSelector", "objectSelector"]) {
    if (!has(mr, sel)) errs.push(fieldErrors.required(child(field, sel), ""));
    else errs.push(...validateLabelSelector(labelSelector(mr[sel]), child(field, sel)));
  }
  records(mr.resourceRules).forEach((r, i) => errs.push(...validateNamedRuleWithOperations(r, index(child(field, "resourceRules"), i))));
  records(mr.excludeResourceRules).forEach((r, i) => errs.push(...validateNamedRuleWithOperations(r, index(child(field, "excludeResourceRules"), i))));
  return errs;
}

/** validateMatchConditions: at most 64, names unique qualified names, expressions present. */
export function validateMatchConditions(conditions: unknown, field: string): FieldError[] {
  const errs: FieldError[] = [];
  const all = records(conditions);
  if (all.length > 64) errs.push(fieldErrors.tooMany(field, all.length, 64));
  const names = new Set<string>();
  all.forEach((mc, i) => {
    const p = index(field, i);
    if (text(mc.expression).trim() === "") errs.push(fieldErrors.required(child(p, "expression"), ""));
    const name = text(mc.name);
    if (name === "") errs.push(fieldErrors.required(child(p, "name"), ""));
    else for (const msg of isQualifiedName(name)) errs.push(fieldErrors.invalid(child(p, "name"), name, msg));
    if (name !== "") {
      if (names.has(name)) errs.push(fieldErrors.duplicate(child(p, "name"), name));
      names.add(name);
    }
  });
  return errs;
}

/** validateParamKind. */
export function validateParamKind(pk: Obj, field: string): FieldError[] {
  const errs: FieldError[] = [];
  const apiVersion = text(pk.apiVersion);
  if (apiVersion === "") {
    errs.push(fieldErrors.required(child(field, "apiVersion"), ""));
  } else if (apiVersion.split("/").length > 2) {
    errs.push(fieldErrors.invalid(child(field, "apiVersion"), apiVersion, `unexpected GroupVersion string: ${apiVersion}`));
  } else if (apiVersion !== "/") {
    const slash = apiVersion.indexOf("/");
    const group = slash < 0 ? "" : apiVersion.slice(0, slash);
    const version = slash < 0 ? apiVersion : apiVersion.slice(slash + 1);
    if (group.length > 0) {
      const g = isDNS1123Subdomain(group);
      if (g.length) errs.push(fieldErrors.invalid(child(field, "apiVersion"), group, g.join(",")));
    }
    if (version.length === 0) errs.push(fieldErrors.invalid(child(field, "apiVersion"), apiVersion, "version must be specified"));
    else {
      const v = isDNS1035Label(version);
      if (v.length) errs.push(fieldErrors.invalid(child(field, "apiVersion"), version, v.join(",")));
    }
  }
  const kind = text(pk.kind);
  if (kind === "") errs.push(fieldErrors.required(child(field, "kind"), ""));
  else {
    const k = isDNS1035Label(kind.toLowerCase());
    if (k.length) errs.push(fieldErrors.invalid(child(field, "kind"), kind, `may have mixed case, but should otherwise match: ${k.join(",")}`));
  }
  return errs;
}

/** validateParamRef: name xor selector, parameterNotFoundAction Allow or Deny. */
export function validateParamRef(v: unknown, field: string): FieldError[] {
  const pr = rec(v);
  if (!pr) return [];
  const errs: FieldError[] = [];
  const name = text(pr.name);
  const hasSelector = has(pr, "selector");
  if (name.length > 0) {
    for (const msg of nameIsPathSegment(name, false)) errs.push(fieldErrors.invalid(child(field, "name"), name, msg));
    if (hasSelector) errs.push(fieldErrors.forbidden(child(field, "name"), "name and selector are mutually exclusive"));
  }
  if (hasSelector) {
    errs.push(...validateLabelSelector(labelSelector(pr.selector), child(field, "selector")));
    if (name.length > 0) errs.push(fieldErrors.forbidden(child(field, "selector"), "name and selector are mutually exclusive"));
  }
  if (name.length === 0 && !hasSelector) errs.push(fieldErrors.required(field, "one of name or selector must be specified"));
  const action = pr.parameterNotFoundAction;
  if (action === undefined || action === null || action === "") errs.push(fieldErrors.required(child(field, "parameterNotFoundAction"), ""));
  else if (action !== "Deny" && action !== "Allow") errs.push(fieldErrors.notSupported(child(field, "parameterNotFoundAction"), action, ["Deny", "Allow"]));
  return errs;
}

/** Names of CEL identifiers (variables). */
const celIdent = /^[_a-zA-Z][_a-zA-Z0-9]*$/;
const celReserved = new Set(["true", "false", "null", "in", "as", "break", "const", "continue", "else", "for", "function", "if", "import", "let", "loop", "package", "namespace", "return", "var", "void", "while"]);

/** validateVariable (without compiling the expression). */
export function validateVariables(variables: unknown, field: string): FieldError[] {
  const errs: FieldError[] = [];
  records(variables).forEach((v, i) => {
    const p = index(field, i);
    const name = text(v.name);
    if (name.trim() === "") errs.push(fieldErrors.required(child(p, "name"), "name is not specified"));
    else if (!celIdent.test(name) || celReserved.has(name)) errs.push(fieldErrors.invalid(child(p, "name"), name, "name is not a valid CEL identifier"));
    if (text(v.expression).trim() === "") errs.push(fieldErrors.required(child(p, "expression"), "expression is not specified"));
  });
  return errs;
}

/** The failurePolicy of a policy spec: required, Fail or Ignore. */
export function validateFailurePolicy(spec: Obj, field: string): FieldError[] {
  if (!has(spec, "failurePolicy")) return [fieldErrors.required(field, "")];
  if (!failurePolicies.includes(String(spec.failurePolicy))) return [fieldErrors.notSupported(field, spec.failurePolicy, failurePolicies)];
  return [];
}

/** matchConstraints of a policy: required, valid, with at least one resource rule. */
export function validateMatchConstraints(spec: Obj, field: string): FieldError[] {
  const mc = rec(spec.matchConstraints);
  if (!mc) return [fieldErrors.required(field, "")];
  const errs = validateMatchResources(mc, field);
  if (list(mc.resourceRules).length === 0) errs.push(fieldErrors.required(child(field, "resourceRules"), ""));
  return errs;
}

/** The policy name a binding refers to: required, a DNS subdomain. */
export function validatePolicyName(spec: Obj, field: string): FieldError[] {
  const name = str(spec.policyName) ?? "";
  if (name === "") return [fieldErrors.required(field, "")];
  return isDNS1123Subdomain(name).map((m) => fieldErrors.invalid(field, name, m));
}
