/**
 * flowcontrol.apiserver.k8s.io/v1 FlowSchemas and PriorityLevelConfigurations (+status), with
 * upstream's defaults (pkg/apis/flowcontrol/v1/defaults.go: matchingPrecedence 1000; a limited
 * level's nominalConcurrencyShares 30 and lendablePercent 0; queuing handSize 8, queues 64,
 * queueLengthLimit 50; an exempt level's shares and lendablePercent 0) and validation
 * (pkg/apis/flowcontrol/validation). The mandatory objects ("exempt" and "catch-all") must keep
 * their fixed specs (for the exempt level only its type is fixed: its shares and lendable
 * percent may be tuned). The bootstrap objects themselves are in flowcontrolbootstrap.ts.
 *
 * These objects are stored and served as upstream does; this server does not enforce API
 * Priority and Fairness (requests are not classified, queued or limited by them).
 */
import { fieldErrors, type FieldError } from "../../apimachinery/fielderrors.js";
import type { KubeObject } from "../../apimachinery/types.js";
import { isDNS1123Label, isDNS1123Subdomain, nameIsDNSSubdomain } from "../../apimachinery/validation.js";
import { defineStrategy, resourceNames } from "./define.js";
import { semanticEqual } from "../../apimachinery/equality.js";
import { child, index } from "./path.js";
import { GoValueError, bool, fieldsOf, has, num, objAt, rec, records, strings, text, type Obj } from "./shape.js";
import type { ResourceStrategy } from "./strategy.js";
import { mandatoryFlowSchemaSpecs, mandatoryPriorityLevelSpecs } from "./flowcontrolbootstrap.js";
import { goStrings } from "./admissionrules.js";

export const flowcontrolGroup = "flowcontrol.apiserver.k8s.io";
export const flowSchemaMaxMatchingPrecedence = 10000;
const maxQueues = 10_000_000;
/** shufflesharding.MaxHashBits. */
const maxHashBits = 60;

const distinguisherMethods = ["ByNamespace", "ByUser"];
const supportedVerbs = ["create", "delete", "deletecollection", "get", "list", "patch", "proxy", "update", "watch"];
const subjectKinds = ["Group", "ServiceAccount", "User"];
const enablements = ["Exempt", "Limited"];
const limitResponseTypes = ["Queue", "Reject"];
const nsErrIntro = "each member of this list must be '*' or a DNS-1123 label; ";

const names = (kind: string, resource: string) => resourceNames(flowcontrolGroup, "v1", kind, { resource, namespaced: false });

const specOf = (o: KubeObject): Obj => rec(fieldsOf(o).spec) ?? {};

// ---- defaults ------------------------------------------------------------------------------

export function defaultFlowSchema(obj: KubeObject): void {
  const spec = objAt(fieldsOf(obj), "spec");
  if (!num(spec.matchingPrecedence)) spec.matchingPrecedence = 1000;
}

export function defaultPriorityLevel(obj: KubeObject): void {
  const spec = objAt(fieldsOf(obj), "spec");
  const exempt = rec(spec.exempt);
  if (exempt) {
    if (!has(exempt, "nominalConcurrencyShares")) exempt.nominalConcurrencyShares = 0;
    if (!has(exempt, "lendablePercent")) exempt.lendablePercent = 0;
  }
  const limited = rec(spec.limited);
  if (limited) {
    if (!has(limited, "nominalConcurrencyShares")) limited.nominalConcurrencyShares = 30;
    if (!has(limited, "lendablePercent")) limited.lendablePercent = 0;
    const queuing = rec(rec(limited.limitResponse)?.queuing);
    if (queuing) {
      if (!num(queuing.handSize)) queuing.handSize = 8;
      if (!num(queuing.queues)) queuing.queues = 64;
      if (!num(queuing.queueLengthLimit)) queuing.queueLengthLimit = 50;
    }
  }
}

// ---- FlowSchema ----------------------------------------------------------------------------

function validateVerbs(verbs: string[], field: string): FieldError[] {
  if (verbs.length === 0) return [fieldErrors.required(field, "verbs must contain at least one value")];
  if (verbs.includes("*")) return verbs.length > 1 ? [new GoValueError("FieldValueInvalid", field, goStrings(verbs), "if '*' is present, must not specify other verbs")] : [];
  if (!verbs.every((v) => supportedVerbs.includes(v))) return [fieldErrors.notSupported(field, verbs, supportedVerbs)];
  return [];
}

/** ValidateNonResourceURLPath. */
function nonResourceURLError(path: string): string | undefined {
  if (path.length === 0) return "must not be empty";
  if (path === "/") return undefined;
  if (!path.startsWith("/")) return "must start with slash";
  if (path.includes(" ")) return "must not contain white-space";
  if (path.includes("//")) return "must not contain double slash";
  const stars = path.split("*").length - 1;
  if (stars > 1 || (stars === 1 && path.slice(-2) !== "/*")) return "wildcard can only do suffix matching";
  return undefined;
}

function validateSubject(s: Obj, field: string): FieldError[] {
  const errs: FieldError[] = [];
  const kind = s.kind;
  const forbid = (f: "user" | "group" | "serviceAccount", what: string) => {
    if (has(s, f)) errs.push(fieldErrors.forbidden(child(field, f), `${f} is forbidden when subject kind is not '${what}'`));
  };
  if (kind === "ServiceAccount") {
    const sa = rec(s.serviceAccount);
    if (!sa) errs.push(fieldErrors.required(child(field, "serviceAccount"), "serviceAccount is required when subject kind is 'ServiceAccount'"));
    else {
      const p = child(field, "serviceAccount");
      const name = text(sa.name);
      if (name === "") errs.push(fieldErrors.required(child(p, "name"), ""));
      else if (name !== "*") for (const m of isDNS1123Subdomain(name)) errs.push(fieldErrors.invalid(child(p, "name"), name, m));
      const ns = text(sa.namespace);
      if (ns === "") errs.push(fieldErrors.required(child(p, "namespace"), "must specify namespace for service account"));
      else for (const m of isDNS1123Label(ns)) errs.push(fieldErrors.invalid(child(p, "namespace"), ns, m));
    }
    forbid("user", "User");
    forbid("group", "Group");
  } else if (kind === "User" || kind === "Group") {
    const f = kind === "User" ? "user" : "group";
    const subject = rec(s[f]);
    if (!subject) errs.push(fieldErrors.required(child(field, f), `${f} is required when subject kind is '${kind}'`));
    else if (text(subject.name) === "") errs.push(fieldErrors.required(child(field, f, "name"), ""));
    if (kind === "User") {
      forbid("serviceAccount", "ServiceAccount");
      forbid("group", "Group");
    } else {
      forbid("serviceAccount", "ServiceAccount");
      forbid("user", "User");
    }
  } else {
    errs.push(fieldErrors.notSupported(child(field, "kind"), kind ?? "", subjectKinds));
  }
  return errs;
}

function validateResourceRule(r: Obj, field: string): FieldError[] {
  const errs = validateVerbs(strings(r.verbs), child(field, "verbs"));
  const groups = strings(r.apiGroups);
  if (groups.length === 0) errs.push(fieldErrors.required(child(field, "apiGroups"), "resource rules must supply at least one api group"));
  else if (groups.length > 1 && groups.includes("*")) errs.push(new GoValueError("FieldValueInvalid", child(field, "apiGroups"), goStrings(groups), "if '*' is present, must not specify other api groups"));
  const resources = strings(r.resources);
  if (resources.length === 0) errs.push(fieldErrors.required(child(field, "resources"), "resource rules must supply at least one resource"));
  else if (resources.length > 1 && resources.includes("*")) errs.push(new GoValueError("FieldValueInvalid", child(field, "resources"), goStrings(resources), "if '*' is present, must not specify other resources"));
  const namespaces = strings(r.namespaces);
  if (namespaces.length === 0 && bool(r.clusterScope) !== true) {
    errs.push(fieldErrors.required(child(field, "namespaces"), "resource rules that are not cluster scoped must supply at least one namespace"));
  } else if (namespaces.includes("*")) {
    if (namespaces.length > 1) errs.push(new GoValueError("FieldValueInvalid", child(field, "namespaces"), goStrings(namespaces), "if '*' is present, must not specify other namespaces"));
  } else {
    namespaces.forEach((ns, i) => {
      for (const m of isDNS1123Label(ns)) errs.push(fieldErrors.invalid(index(child(field, "namespaces"), i), ns, nsErrIntro + m));
    });
  }
  return errs;
}

function validateNonResourceRule(r: Obj, field: string): FieldError[] {
  const errs = validateVerbs(strings(r.verbs), child(field, "verbs"));
  const urls = strings(r.nonResourceURLs);
  if (urls.length === 0) errs.push(fieldErrors.required(child(field, "nonResourceURLs"), "nonResourceURLs must contain at least one value"));
  else if (urls.includes("*")) {
    if (urls.length > 1) errs.push(new GoValueError("FieldValueInvalid", child(field, "nonResourceURLs"), goStrings(urls), "if '*' is present, must not specify other non-resource URLs"));
  } else {
    urls.forEach((u, i) => {
      const msg = nonResourceURLError(u);
      if (msg) errs.push(fieldErrors.invalid(index(child(field, "nonResourceURLs"), i), u, msg));
    });
  }
  return errs;
}

function validatePolicyRules(rule: Obj, field: string): FieldError[] {
  const errs: FieldError[] = [];
  const subjects = records(rule.subjects);
  if (subjects.length > 0) subjects.forEach((s, i) => errs.push(...validateSubject(s, index(child(field, "subjects"), i))));
  else errs.push(fieldErrors.required(child(field, "subjects"), "subjects must contain at least one value"));
  const rr = records(rule.resourceRules);
  const nrr = records(rule.nonResourceRules);
  if (rr.length === 0 && nrr.length === 0) errs.push(fieldErrors.required(field, "at least one of resourceRules and nonResourceRules has to be non-empty"));
  rr.forEach((r, i) => errs.push(...validateResourceRule(r, index(child(field, "resourceRules"), i))));
  nrr.forEach((r, i) => errs.push(...validateNonResourceRule(r, index(child(field, "nonResourceRules"), i))));
  return errs;
}

function validateConditions(status: Obj, field: string): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  records(status.conditions).forEach((c, i) => {
    const type = text(c.type);
    if (seen.has(type)) errs.push(fieldErrors.duplicate(child(index(child(field, "conditions"), i), "type"), type));
    seen.add(type);
    if (type.length === 0) errs.push(fieldErrors.required(child(index(child(field, "conditions"), i), "type"), "must not be empty"));
  });
  return errs;
}

export function validateFlowSchema(obj: KubeObject): FieldError[] {
  const name = obj.metadata?.name ?? "";
  const spec = specOf(obj);
  const errs: FieldError[] = [];
  const mp = num(spec.matchingPrecedence) ?? 0;
  if (mp <= 0) errs.push(fieldErrors.invalid("spec.matchingPrecedence", mp, "must be a positive value"));
  if (mp > flowSchemaMaxMatchingPrecedence) errs.push(fieldErrors.invalid("spec.matchingPrecedence", mp, `must not be greater than ${flowSchemaMaxMatchingPrecedence}`));
  if (mp === 1 && name !== "exempt") errs.push(fieldErrors.invalid("spec.matchingPrecedence", mp, "only the schema named 'exempt' may have matchingPrecedence 1"));
  const dm = rec(spec.distinguisherMethod);
  if (dm && !distinguisherMethods.includes(String(dm.type))) errs.push(fieldErrors.notSupported("spec.distinguisherMethod.type", dm, distinguisherMethods));
  const plName = text(rec(spec.priorityLevelConfiguration)?.name);
  if (plName.length > 0) for (const m of isDNS1123Subdomain(plName)) errs.push(fieldErrors.invalid("spec.priorityLevelConfiguration.name", plName, m));
  else errs.push(fieldErrors.required("spec.priorityLevelConfiguration.name", "must reference a priority level"));
  records(spec.rules).forEach((r, i) => errs.push(...validatePolicyRules(r, index("spec.rules", i))));
  const mandatory = mandatoryFlowSchemaSpecs()[name];
  if (mandatory && !semanticEqual(normalizeSpec(spec), normalizeSpec(mandatory))) {
    errs.push(fieldErrors.invalid("spec", spec, `spec of '${name}' must equal the fixed value`));
  }
  errs.push(...validateConditions(rec(fieldsOf(obj).status) ?? {}, "status"));
  return errs;
}

/**
 * A spec without zero values (false, 0, "", empty lists): what Go's semantic equality of two
 * defaulted specs amounts to once absent fields are read as their zero values.
 */
function normalizeSpec(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(normalizeSpec);
  const o = rec(v);
  if (!o) return v;
  const out: Obj = {};
  for (const [k, x] of Object.entries(o)) {
    if (x === undefined || x === null || x === false || x === 0 || x === "" || (Array.isArray(x) && x.length === 0)) continue;
    out[k] = normalizeSpec(x);
  }
  return out;
}

export const flowSchemaStrategy: ResourceStrategy = defineStrategy({
  names: names("FlowSchema", "flowschemas"),
  subresources: { status: true },
  nameFn: nameIsDNSSubdomain,
  tracksGeneration: true,
  defaults: defaultFlowSchema,
  validateSpec: validateFlowSchema,
  validateStatus: (obj) => validateConditions(rec(fieldsOf(obj).status) ?? {}, "status"),
});

// ---- PriorityLevelConfiguration ------------------------------------------------------------

/** shufflesharding.RequiredEntropyBits: ceil(log2(deckSize^handSize)). */
function requiredEntropyBits(deckSize: number, handSize: number): number {
  return Math.ceil(Math.log2(deckSize) * handSize);
}

function validateQueuing(q: Obj, field: string): FieldError[] {
  const errs: FieldError[] = [];
  const qll = num(q.queueLengthLimit) ?? 0;
  if (qll <= 0) errs.push(fieldErrors.invalid(child(field, "queueLengthLimit"), qll, "must be positive"));
  const queues = num(q.queues) ?? 0;
  if (queues <= 0) errs.push(fieldErrors.invalid(child(field, "queues"), queues, "must be positive"));
  else if (queues > maxQueues) errs.push(fieldErrors.invalid(child(field, "queues"), queues, `must not be greater than ${maxQueues}`));
  const hand = num(q.handSize) ?? 0;
  if (hand <= 0) errs.push(fieldErrors.invalid(child(field, "handSize"), hand, "must be positive"));
  else if (hand > queues) errs.push(fieldErrors.invalid(child(field, "handSize"), hand, `should not be greater than queues (${queues})`));
  else if (requiredEntropyBits(queues, hand) > maxHashBits) {
    errs.push(fieldErrors.invalid(child(field, "handSize"), hand, `required entropy bits of deckSize ${queues} and handSize ${hand} should not be greater than ${maxHashBits}`));
  }
  return errs;
}

function validateLimitResponse(lr: Obj, field: string): FieldError[] {
  switch (lr.type) {
    case "Reject":
      return has(lr, "queuing") ? [fieldErrors.forbidden(child(field, "queuing"), "must be nil if limited.limitResponse.type is not Limited")] : [];
    case "Queue": {
      const q = rec(lr.queuing);
      return q ? validateQueuing(q, child(field, "queuing")) : [fieldErrors.required(child(field, "queuing"), "must not be empty if limited.limitResponse.type is Limited")];
    }
    default:
      return [fieldErrors.notSupported(child(field, "type"), lr.type ?? "", limitResponseTypes)];
  }
}

function validateShares(o: Obj, field: string): FieldError[] {
  const errs: FieldError[] = [];
  const ncs = num(o.nominalConcurrencyShares);
  if (ncs !== undefined && ncs < 0) errs.push(fieldErrors.invalid(child(field, "nominalConcurrencyShares"), ncs, "must be a non-negative integer"));
  const lp = num(o.lendablePercent);
  if (lp !== undefined && (lp < 0 || lp > 100)) errs.push(fieldErrors.invalid(child(field, "lendablePercent"), lp, "must be between 0 and 100, inclusive"));
  return errs;
}

export function validatePriorityLevel(obj: KubeObject): FieldError[] {
  const name = obj.metadata?.name ?? "";
  const spec = specOf(obj);
  const errs: FieldError[] = [];
  const type = spec.type;
  if ((name === "exempt") !== (type === "Exempt")) errs.push(fieldErrors.invalid("spec.type", type ?? "", "type must be 'Exempt' if and only if name is 'exempt'"));
  if (type === "Exempt") {
    if (has(spec, "limited")) errs.push(fieldErrors.forbidden("spec.limited", "must be nil if the type is not Limited"));
    const exempt = rec(spec.exempt);
    if (exempt) errs.push(...validateShares(exempt, "spec.exempt"));
  } else if (type === "Limited") {
    if (has(spec, "exempt")) errs.push(fieldErrors.forbidden("spec.exempt", "must be nil if the type is Limited"));
    const limited = rec(spec.limited);
    if (!limited) errs.push(fieldErrors.required("spec.limited", "must not be empty when type is Limited"));
    else {
      errs.push(...validateShares(limited, "spec.limited"));
      const blp = num(limited.borrowingLimitPercent);
      if (blp !== undefined && blp < 0) errs.push(fieldErrors.invalid("spec.limited.borrowingLimitPercent", blp, "if specified, must be a non-negative integer"));
      errs.push(...validateLimitResponse(rec(limited.limitResponse) ?? {}, "spec.limited.limitResponse"));
    }
  } else {
    errs.push(fieldErrors.notSupported("spec.type", type ?? "", enablements));
  }
  // The catch-all level's spec is fixed; the exempt level's type is (checked above).
  const mandatory = mandatoryPriorityLevelSpecs()[name];
  if (mandatory && name !== "exempt" && !semanticEqual(normalizeSpec(spec), normalizeSpec(mandatory))) {
    errs.push(fieldErrors.invalid("spec", spec, `spec of '${name}' must equal the fixed value`));
  }
  errs.push(...validateConditions(rec(fieldsOf(obj).status) ?? {}, "status"));
  return errs;
}

export const priorityLevelConfigurationStrategy: ResourceStrategy = defineStrategy({
  names: names("PriorityLevelConfiguration", "prioritylevelconfigurations"),
  subresources: { status: true },
  nameFn: nameIsDNSSubdomain,
  tracksGeneration: true,
  defaults: defaultPriorityLevel,
  validateSpec: validatePriorityLevel,
  validateStatus: (obj) => validateConditions(rec(fieldsOf(obj).status) ?? {}, "status"),
});
