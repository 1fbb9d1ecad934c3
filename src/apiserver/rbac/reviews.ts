/**
 * authorization.k8s.io/v1 reviews: SelfSubjectAccessReview, SubjectAccessReview,
 * LocalSubjectAccessReview (can this user do X?) and SelfSubjectRulesReview (what may this user
 * do in a namespace?). Create-only, never stored: the answer is the request with a status.
 */
import { StatusError } from "../../apimachinery/errors.js";
import { fieldErrors, type FieldError } from "../../apimachinery/fielderrors.js";
import type { KubeObject } from "../../apimachinery/types.js";
import type { UserInfo } from "../auth/user.js";
import type { Attributes } from "./attributes.js";
import type { Authorizer } from "./authorizer.js";
import type { RuleResolver } from "./resolver.js";
import { SystemMasters } from "../auth/user.js";

interface ResourceAttributes {
  namespace?: string;
  verb?: string;
  group?: string;
  version?: string;
  resource?: string;
  subresource?: string;
  name?: string;
}
interface NonResourceAttributes {
  path?: string;
  verb?: string;
}
interface AccessReviewSpec {
  resourceAttributes?: ResourceAttributes | null;
  nonResourceAttributes?: NonResourceAttributes | null;
  user?: string;
  groups?: string[];
  uid?: string;
  extra?: Record<string, string[]>;
}

const group = "authorization.k8s.io";

function specOf(body: KubeObject): AccessReviewSpec {
  const s = (body as { spec?: unknown }).spec;
  return typeof s === "object" && s !== null ? (s as AccessReviewSpec) : {};
}

function validateAttributesChoice(spec: AccessReviewSpec): FieldError[] {
  if (spec.resourceAttributes && spec.nonResourceAttributes) {
    return [fieldErrors.invalid("spec.nonResourceAttributes", spec.nonResourceAttributes, "cannot be specified in combination with resourceAttributes")];
  }
  if (!spec.resourceAttributes && !spec.nonResourceAttributes) {
    return [fieldErrors.invalid("spec.resourceAttributes", null, "exactly one of nonResourceAttributes or resourceAttributes must be specified")];
  }
  return [];
}

export function attributesFromSpec(user: UserInfo, spec: AccessReviewSpec): Attributes {
  const base: Attributes = { user, verb: "", resourceRequest: false, path: "", apiGroup: "", apiVersion: "", namespace: "", resource: "", subresource: "", name: "" };
  if (spec.resourceAttributes) {
    const r = spec.resourceAttributes;
    return {
      ...base,
      resourceRequest: true,
      verb: r.verb ?? "",
      namespace: r.namespace ?? "",
      apiGroup: r.group ?? "",
      apiVersion: r.version || "*",
      resource: r.resource ?? "",
      subresource: r.subresource ?? "",
      name: r.name ?? "",
    };
  }
  const n = spec.nonResourceAttributes ?? {};
  return { ...base, verb: n.verb ?? "", path: n.path ?? "" };
}

/** system:masters is allowed everything before RBAC is consulted (the privileged-group authorizer). */
export function authorizeWithMasters(authorizer: Authorizer, attrs: Attributes): { allowed: boolean; denied?: boolean; reason: string } {
  if (attrs.user.groups.includes(SystemMasters)) return { allowed: true, reason: "" };
  return authorizer.authorize(attrs);
}

function answer(body: KubeObject, kind: string, spec: AccessReviewSpec, decision: { allowed: boolean; denied?: boolean; reason: string }): KubeObject {
  const status: Record<string, unknown> = { allowed: decision.allowed };
  if (decision.denied) status.denied = true;
  if (decision.reason) status.reason = decision.reason;
  return { apiVersion: `${group}/v1`, kind, metadata: { ...(body.metadata ?? {}), creationTimestamp: null }, spec, status } as unknown as KubeObject;
}

export function selfSubjectAccessReview(user: UserInfo, body: KubeObject, authorizer: Authorizer): KubeObject {
  const spec = specOf(body);
  const errs = validateAttributesChoice(spec);
  if (errs.length) throw StatusError.invalid({ group, kind: "SelfSubjectAccessReview" }, "", errs);
  return answer(body, "SelfSubjectAccessReview", spec, authorizeWithMasters(authorizer, attributesFromSpec(user, spec)));
}

function subjectOf(spec: AccessReviewSpec): UserInfo {
  const u: UserInfo = { username: spec.user ?? "", groups: [...(spec.groups ?? [])] };
  if (spec.uid) u.uid = spec.uid;
  if (spec.extra) u.extra = spec.extra;
  return u;
}

export function subjectAccessReview(body: KubeObject, authorizer: Authorizer): KubeObject {
  const spec = specOf(body);
  const errs = validateAttributesChoice(spec);
  if (!spec.user && !(spec.groups?.length)) errs.push(fieldErrors.invalid("spec.user", spec.user ?? "", "at least one of user or group must be specified"));
  if (errs.length) throw StatusError.invalid({ group, kind: "SubjectAccessReview" }, "", errs);
  return answer(body, "SubjectAccessReview", spec, authorizeWithMasters(authorizer, attributesFromSpec(subjectOf(spec), spec)));
}

export function localSubjectAccessReview(namespace: string, body: KubeObject, authorizer: Authorizer): KubeObject {
  const spec = specOf(body);
  const errs = validateAttributesChoice(spec);
  if (!spec.user && !(spec.groups?.length)) errs.push(fieldErrors.invalid("spec.user", spec.user ?? "", "at least one of user or group must be specified"));
  if (spec.nonResourceAttributes) errs.push(fieldErrors.invalid("spec.nonResourceAttributes", spec.nonResourceAttributes, "disallowed on this kind of request"));
  if (errs.length) throw StatusError.invalid({ group, kind: "LocalSubjectAccessReview" }, "", errs);
  const bodyNS = body.metadata?.namespace;
  if (bodyNS && bodyNS !== namespace) throw StatusError.badRequest(`namespace of the provided object (${bodyNS}) does not match the namespace sent on the request (${namespace})`);
  if ((spec.resourceAttributes?.namespace ?? "") !== namespace) {
    throw StatusError.badRequest(`spec.resourceAttributes.namespace must match metadata.namespace: ${JSON.stringify(spec.resourceAttributes?.namespace ?? "")} vs ${JSON.stringify(namespace)}`);
  }
  const out = answer(body, "LocalSubjectAccessReview", spec, authorizeWithMasters(authorizer, attributesFromSpec(subjectOf(spec), spec)));
  out.metadata = { ...out.metadata, namespace };
  return out;
}

/** SelfSubjectRulesReview: the rules RBAC grants the user in spec.namespace. */
export function selfSubjectRulesReview(user: UserInfo, body: KubeObject, resolver: RuleResolver): KubeObject {
  const spec = ((body as { spec?: { namespace?: string } }).spec ?? {}) as { namespace?: string };
  const { rules, errors } = resolver.rulesFor(user, spec.namespace ?? "");
  const resourceRules: object[] = [];
  const nonResourceRules: object[] = [];
  for (const r of rules) {
    if (r.resources?.length) {
      resourceRules.push({ verbs: r.verbs, ...(r.apiGroups ? { apiGroups: r.apiGroups } : {}), resources: r.resources, ...(r.resourceNames?.length ? { resourceNames: r.resourceNames } : {}) });
    }
    if (r.nonResourceURLs?.length) nonResourceRules.push({ verbs: r.verbs, nonResourceURLs: r.nonResourceURLs });
  }
  const status: Record<string, unknown> = { resourceRules, nonResourceRules, incomplete: false };
  if (errors.length) status.evaluationError = errors.length === 1 ? errors[0].message : `[${errors.map((e) => e.message).join(", ")}]`;
  return { apiVersion: `${group}/v1`, kind: "SelfSubjectRulesReview", metadata: { ...(body.metadata ?? {}), creationTimestamp: null }, spec, status } as unknown as KubeObject;
}
