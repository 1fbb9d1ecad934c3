/**
 * The AdmissionRequest of a request as admission webhooks receive it (admission.k8s.io/v1
 * AdmissionReview.request) and as CEL admission expressions see it (`request`): kind, resource
 * and subresource of the invocation (an equivalent resource when `matchPolicy: Equivalent`
 * matched one), the request's own kind/resource/subresource, name, namespace, operation, user,
 * dryRun and the operation's options. Keys in upstream's JSON order; empty optional fields
 * omitted as Go's omitempty does.
 */
import type { GroupVersionKind, GroupVersionResource } from "../../apimachinery/gvk.js";
import type { KubeObject } from "../../apimachinery/types.js";
import type { AdmissionAttributes } from "./interfaces.js";

/** What an invocation is about: the resource and kind the webhook or policy matched. */
export interface Invocation {
  resource: GroupVersionResource;
  subresource: string;
  kind: GroupVersionKind;
}

export interface AdmissionRequestJSON {
  uid?: string;
  kind: GroupVersionKind;
  resource: GroupVersionResource;
  subResource?: string;
  requestKind: GroupVersionKind;
  requestResource: GroupVersionResource;
  requestSubResource?: string;
  name?: string;
  namespace?: string;
  operation: string;
  userInfo: { username?: string; uid?: string; groups?: string[]; extra?: Record<string, string[]> };
  object?: KubeObject | null;
  oldObject?: KubeObject | null;
  dryRun: boolean;
  options: KubeObject | null;
}

const gvk = (k: GroupVersionKind): GroupVersionKind => ({ group: k.group, version: k.version, kind: k.kind });
const gvr = (r: GroupVersionResource): GroupVersionResource => ({ group: r.group, version: r.version, resource: r.resource });

/**
 * The request without uid, object and oldObject (CEL's `request`, upstream CreateAdmissionRequest);
 * `admissionReviewRequest` adds them for webhooks.
 */
export function admissionRequest(a: AdmissionAttributes, inv: Invocation): AdmissionRequestJSON {
  const u = a.userInfo;
  const userInfo: AdmissionRequestJSON["userInfo"] = {};
  if (u.username) userInfo.username = u.username;
  if (u.uid) userInfo.uid = u.uid;
  if (u.groups.length) userInfo.groups = [...u.groups];
  if (u.extra && Object.keys(u.extra).length) userInfo.extra = Object.fromEntries(Object.entries(u.extra).map(([k, v]) => [k, [...v]]));
  return {
    kind: gvk(inv.kind),
    resource: gvr(inv.resource),
    ...(inv.subresource ? { subResource: inv.subresource } : {}),
    requestKind: gvk(a.kind),
    requestResource: gvr(a.resource),
    ...(a.subresource ? { requestSubResource: a.subresource } : {}),
    ...(a.name ? { name: a.name } : {}),
    ...(a.namespace ? { namespace: a.namespace } : {}),
    operation: a.operation,
    userInfo,
    dryRun: a.dryRun,
    options: a.options ?? null,
  };
}

/** The AdmissionReview request body's `request` for a webhook call. */
export function admissionReviewRequest(a: AdmissionAttributes, inv: Invocation, uid: string, object: KubeObject | undefined, oldObject: KubeObject | undefined): AdmissionRequestJSON {
  const r = admissionRequest(a, inv);
  const { dryRun, options, ...head } = r;
  return { uid, ...head, object: object ?? null, oldObject: oldObject ?? null, dryRun, options };
}
