/**
 * admissionregistration.k8s.io/v1 MutatingWebhookConfigurations and
 * ValidatingWebhookConfigurations: upstream's defaults (failurePolicy Fail, matchPolicy
 * Equivalent, empty namespace/object selectors, timeoutSeconds 10, reinvocationPolicy Never for
 * mutating webhooks, rule scope "*", service port 443) and validation (webhook names fully
 * qualified and unique, rules, sideEffects None|NoneOnDryRun, timeout 1–30 s, exactly one of
 * url/service, https URLs without user info, query or fragment, admissionReviewVersions
 * including v1 or v1beta1, match conditions). On updates the create-only tightenings apply
 * only where the stored object already satisfied them, as upstream does for compatibility.
 * generation starts at 1 and is bumped when the webhooks change. The admission webhook plugins
 * (admission/webhook) call them.
 */
import { fieldErrors, type FieldError } from "../../apimachinery/fielderrors.js";
import type { KubeObject } from "../../apimachinery/types.js";
import { isDNS1035Label, isDNS1123Subdomain, isValidPortNum, nameIsDNSSubdomain } from "../../apimachinery/validation.js";
import {
  admissionGroup,
  defaultClientConfig,
  defaultRule,
  failurePolicies,
  invalidSlice,
  matchPolicies,
  validateMatchConditions,
  validateRuleWithOperations,
} from "./admissionrules.js";
import { defineStrategy } from "./define.js";
import { semanticEqual } from "../../apimachinery/equality.js";
import { validateLabelSelector } from "./meta.js";
import { child, index } from "./path.js";
import { fieldsOf, has, labelSelector, num, rec, records, str, strings, text, type Obj } from "./shape.js";
import type { ResourceStrategy } from "./strategy.js";

const sideEffectClasses = ["None", "NoneOnDryRun", "Some", "Unknown"];
const noSideEffectClasses = ["None", "NoneOnDryRun"];
const reinvocationPolicies = ["IfNeeded", "Never"];
/** AcceptedAdmissionReviewVersions. */
const acceptedReviewVersions = ["v1", "v1beta1"];

type Flavor = "mutating" | "validating";

function webhooksOf(obj: KubeObject): Obj[] {
  return records(fieldsOf(obj).webhooks);
}

export function defaultWebhook(hook: Obj, flavor: Flavor): void {
  if (!has(hook, "failurePolicy")) hook.failurePolicy = "Fail";
  if (!has(hook, "matchPolicy")) hook.matchPolicy = "Equivalent";
  if (!has(hook, "namespaceSelector")) hook.namespaceSelector = {};
  if (!has(hook, "objectSelector")) hook.objectSelector = {};
  if (!has(hook, "timeoutSeconds")) hook.timeoutSeconds = 10;
  if (flavor === "mutating" && !has(hook, "reinvocationPolicy")) hook.reinvocationPolicy = "Never";
  for (const r of records(hook.rules)) defaultRule(r);
  defaultClientConfig(hook.clientConfig);
}

/** What a webhook configuration's update must still satisfy because the stored one did. */
interface Options {
  requireNoSideEffects: boolean;
  requireRecognizedAdmissionReviewVersion: boolean;
  requireUniqueWebhookNames: boolean;
  /** Match conditions are validated unless an update left every webhook's conditions as they were. */
  validateMatchConditions: boolean;
}

const createOptions: Options = { requireNoSideEffects: true, requireRecognizedAdmissionReviewVersion: true, requireUniqueWebhookNames: true, validateMatchConditions: true };

/** IsFullyQualifiedName: a DNS subdomain with at least three segments. */
function validateFullyQualifiedName(name: string, field: string): FieldError[] {
  if (name.length === 0) return [fieldErrors.required(field, "")];
  const errs = isDNS1123Subdomain(name);
  if (errs.length) return [fieldErrors.invalid(field, name, errs.join(","))];
  if (name.split(".").length < 3) return [fieldErrors.invalid(field, name, "should be a domain with at least three segments separated by dots")];
  return [];
}

/** The parts of a URL as Go's url.Parse splits them (no unescaping; only what validation looks at). */
function parseURL(raw: string): { scheme: string; host: string; user?: string; query: string; fragment: string } | string {
  // eslint-disable-next-line no-control-regex
  if (/[\x00-\x1f\x7f]/.test(raw)) return "net/url: invalid control character in URL";
  let rest = raw;
  let fragment = "";
  const hash = rest.indexOf("#");
  if (hash >= 0) {
    fragment = rest.slice(hash + 1);
    rest = rest.slice(0, hash);
  }
  let scheme = "";
  const m = /^([a-zA-Z][a-zA-Z0-9+.-]*):/.exec(rest);
  if (m) {
    scheme = m[1].toLowerCase();
    rest = rest.slice(m[0].length);
  } else if (/^[^/?]*:/.test(rest) && !rest.startsWith("/")) {
    return rest.startsWith(":") ? "missing protocol scheme" : "first path segment in URL cannot contain colon";
  }
  let query = "";
  const q = rest.indexOf("?");
  if (q >= 0) {
    query = rest.slice(q + 1);
    rest = rest.slice(0, q);
  }
  let host = "";
  let user: string | undefined;
  if (rest.startsWith("//")) {
    const authEnd = rest.indexOf("/", 2);
    let authority = authEnd < 0 ? rest.slice(2) : rest.slice(2, authEnd);
    const at = authority.lastIndexOf("@");
    if (at >= 0) {
      user = authority.slice(0, at);
      authority = authority.slice(at + 1);
    }
    if (authority.includes(" ")) return `invalid character " " in host name`;
    host = authority;
  }
  return { scheme, host, user, query, fragment };
}

/** ValidateWebhookURL with https forced (shared with CRD conversion webhooks). */
export function validateWebhookURL(url: string, field: string): FieldError[] {
  const form = "; desired format: https://host[/path]";
  const u = parseURL(url);
  if (typeof u === "string") return [fieldErrors.required(field, `url must be a valid URL: parse ${JSON.stringify(url)}: ${u}${form}`)];
  const errs: FieldError[] = [];
  if (u.scheme !== "https") errs.push(fieldErrors.invalid(field, u.scheme, `'https' is the only allowed URL scheme${form}`));
  if (u.host.length === 0) errs.push(fieldErrors.invalid(field, u.host, `host must be specified${form}`));
  if (u.user !== undefined) errs.push(fieldErrors.invalid(field, u.user, "user information is not permitted in the URL"));
  if (u.fragment.length !== 0) errs.push(fieldErrors.invalid(field, u.fragment, "fragments are not permitted in the URL"));
  if (u.query.length !== 0) errs.push(fieldErrors.invalid(field, u.query, "query parameters are not permitted in the URL"));
  return errs;
}

/** ValidateWebhookService (shared with CRD conversion webhooks). */
export function validateWebhookService(svc: Obj, field: string): FieldError[] {
  const errs: FieldError[] = [];
  if (text(svc.name) === "") errs.push(fieldErrors.required(child(field, "name"), ""));
  if (text(svc.namespace) === "") errs.push(fieldErrors.required(child(field, "namespace"), ""));
  const port = num(svc.port) ?? 0;
  const portErrs = isValidPortNum(port);
  if (portErrs.length) errs.push(fieldErrors.invalid(child(field, "port"), port, `port is not valid: ${portErrs.join(", ")}`));
  const path = str(svc.path);
  if (path === undefined || path === "/" || path === "") return errs;
  const pf = child(field, "path");
  if (path === "//") return [...errs, fieldErrors.invalid(pf, path, "segment[0] may not be empty")];
  if (!path.startsWith("/")) errs.push(fieldErrors.invalid(pf, path, "must start with a '/'"));
  let check = path.slice(1);
  if (check.endsWith("/")) check = check.slice(0, -1);
  check.split("/").forEach((step, i) => {
    if (step.length === 0) {
      errs.push(fieldErrors.invalid(pf, path, `segment[${i}] may not be empty`));
      return;
    }
    for (const failure of isDNS1123Subdomain(step)) errs.push(fieldErrors.invalid(pf, path, `segment[${i}]: ${failure}`));
  });
  return errs;
}

function validateWebhook(hook: Obj, flavor: Flavor, opts: Options, field: string): FieldError[] {
  const errs = validateFullyQualifiedName(text(hook.name), child(field, "name"));
  records(hook.rules).forEach((r, i) => errs.push(...validateRuleWithOperations(r, index(child(field, "rules"), i))));
  if (has(hook, "failurePolicy") && !failurePolicies.includes(String(hook.failurePolicy))) {
    errs.push(fieldErrors.notSupported(child(field, "failurePolicy"), hook.failurePolicy, failurePolicies));
  }
  if (has(hook, "matchPolicy") && !matchPolicies.includes(String(hook.matchPolicy))) {
    errs.push(fieldErrors.notSupported(child(field, "matchPolicy"), hook.matchPolicy, matchPolicies));
  }
  const allowedSideEffects = opts.requireNoSideEffects ? noSideEffectClasses : sideEffectClasses;
  if (!has(hook, "sideEffects")) errs.push(fieldErrors.required(child(field, "sideEffects"), `must specify one of ${allowedSideEffects.join(", ")}`));
  else if (!allowedSideEffects.includes(String(hook.sideEffects))) errs.push(fieldErrors.notSupported(child(field, "sideEffects"), hook.sideEffects, allowedSideEffects));
  const timeout = num(hook.timeoutSeconds);
  if (timeout !== undefined && (timeout > 30 || timeout < 1)) {
    errs.push(fieldErrors.invalid(child(field, "timeoutSeconds"), timeout, "the timeout value must be between 1 and 30 seconds"));
  }
  for (const sel of ["namespaceSelector", "objectSelector"]) {
    if (has(hook, sel)) errs.push(...validateLabelSelector(labelSelector(hook[sel]), child(field, sel)));
  }
  if (flavor === "mutating" && has(hook, "reinvocationPolicy") && !reinvocationPolicies.includes(String(hook.reinvocationPolicy))) {
    errs.push(fieldErrors.notSupported(child(field, "reinvocationPolicy"), hook.reinvocationPolicy, reinvocationPolicies));
  }
  const cc = rec(hook.clientConfig) ?? {};
  const url = str(cc.url);
  const service = rec(cc.service);
  if ((url === undefined) === (service === undefined)) errs.push(fieldErrors.required(child(field, "clientConfig"), "exactly one of url or service is required"));
  else if (url !== undefined) errs.push(...validateWebhookURL(url, child(field, "clientConfig", "url")));
  else if (service) errs.push(...validateWebhookService(service, child(field, "clientConfig", "service")));
  if (opts.validateMatchConditions) errs.push(...validateMatchConditions(hook.matchConditions, child(field, "matchConditions")));
  return errs;
}

function validateAdmissionReviewVersions(versions: string[], requireRecognized: boolean, field: string): FieldError[] {
  if (versions.length < 1) return [fieldErrors.required(field, `must specify one of ${acceptedReviewVersions.join(", ")}`)];
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  let accepted = false;
  versions.forEach((v, i) => {
    if (seen.has(v)) {
      errs.push(fieldErrors.invalid(index(field, i), v, "duplicate version"));
      return;
    }
    seen.add(v);
    for (const msg of isDNS1035Label(v)) errs.push(fieldErrors.invalid(index(field, i), v, msg));
    if (acceptedReviewVersions.includes(v)) accepted = true;
  });
  if (requireRecognized && !accepted) errs.push(invalidSlice(field, versions, `must include at least one of ${acceptedReviewVersions.join(", ")}`));
  return errs;
}

function validateConfiguration(obj: KubeObject, flavor: Flavor, opts: Options): FieldError[] {
  const errs: FieldError[] = [];
  const names = new Set<string>();
  webhooksOf(obj).forEach((hook, i) => {
    const p = index("webhooks", i);
    errs.push(...validateWebhook(hook, flavor, opts, p));
    errs.push(...validateAdmissionReviewVersions(strings(hook.admissionReviewVersions), opts.requireRecognizedAdmissionReviewVersion, child(p, "admissionReviewVersions")));
    const name = text(hook.name);
    if (opts.requireUniqueWebhookNames && name.length > 0) {
      if (names.has(name)) errs.push(fieldErrors.duplicate(child(p, "name"), name));
      names.add(name);
    }
  });
  return errs;
}

/** The options an update is validated with, given what the stored configuration already satisfied. */
function updateOptions(obj: KubeObject, old: KubeObject): Options {
  const oldHooks = webhooksOf(old);
  const newHooks = webhooksOf(obj);
  const names = oldHooks.map((h) => text(h.name));
  const unchangedConditions = oldHooks.length === newHooks.length && oldHooks.every((h, i) => semanticEqual(h.matchConditions, newHooks[i].matchConditions));
  return {
    requireNoSideEffects: oldHooks.every((h) => noSideEffectClasses.includes(String(h.sideEffects))),
    requireRecognizedAdmissionReviewVersion: oldHooks.every((h) => {
      const vs = strings(h.admissionReviewVersions);
      return vs.length === 0 || vs.some((v) => acceptedReviewVersions.includes(v));
    }),
    requireUniqueWebhookNames: new Set(names).size === names.length,
    validateMatchConditions: !unchangedConditions,
  };
}

function webhookConfigurationStrategy(flavor: Flavor): ResourceStrategy {
  const kind = flavor === "mutating" ? "MutatingWebhookConfiguration" : "ValidatingWebhookConfiguration";
  return defineStrategy({
    names: {
      group: admissionGroup,
      version: "v1",
      kind,
      resource: `${kind.toLowerCase()}s`,
      singular: kind.toLowerCase(),
      listKind: `${kind}List`,
      shortNames: [],
      categories: ["api-extensions"],
      namespaced: false,
    },
    nameFn: nameIsDNSSubdomain,
    tracksGeneration: true,
    generationInputs: (obj) => fieldsOf(obj).webhooks,
    defaults(obj) {
      for (const hook of webhooksOf(obj)) defaultWebhook(hook, flavor);
    },
    validateCreate: (obj) => validateConfiguration(obj, flavor, createOptions),
    validateUpdate: (obj, old) => validateConfiguration(obj, flavor, updateOptions(obj, old)),
  });
}

export const mutatingWebhookConfigurationStrategy: ResourceStrategy = webhookConfigurationStrategy("mutating");
export const validatingWebhookConfigurationStrategy: ResourceStrategy = webhookConfigurationStrategy("validating");
