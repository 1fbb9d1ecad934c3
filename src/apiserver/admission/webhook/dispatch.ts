/**
 * What the mutating and validating webhook plugins share (k8s.io/apiserver/pkg/admission/
 * plugin/webhook/generic and the dispatchers' callHook): deciding whether a webhook applies to a
 * request (namespaceSelector, objectSelector, rules, matchPolicy Equivalent, matchConditions),
 * the object in the version the webhook is called with, and one call — AdmissionReview out,
 * answer verified — with upstream's errors:
 *
 * - a failure to talk to the webhook is a CallingWebhookError (`failed calling webhook "x":
 *   failed to call webhook: ...`, `... received invalid webhook response: ...`); the plugins
 *   apply failurePolicy to it (Fail: 500 `Internal error occurred: <that text>`; Ignore: the
 *   request goes on, with a failed-open audit annotation);
 * - a webhook saying no is a rejection: the Status it sent, with the message
 *   `admission webhook "x" denied the request: <message>` and a code of at least 400;
 * - a dry-run request to a webhook with side effects is a 400, whatever the failure policy.
 */
import { randomUUID } from "node:crypto";
import type { Status } from "../../../apimachinery/api/meta/v1.js";
import { StatusError } from "../../../apimachinery/errors.js";
import type { GroupVersionKind } from "../../../apimachinery/gvk.js";
import { sameGVK } from "../../../apimachinery/gvk.js";
import type { Selector } from "../../../apimachinery/labels.js";
import type { KubeObject } from "../../../apimachinery/types.js";
import { objectKey } from "../../rest/keys.js";
import type { StorageCache } from "../../storage/cache.js";
import { WebhookConfigError, WebhookRequestError, type WebhookClient } from "../../webhook/client.js";
import type { AdmissionAttributes } from "../interfaces.js";
import type { ObjectInterfaces } from "../objects.js";
import { admissionRequest, admissionReviewRequest, type Invocation } from "../request.js";
import { reviewBody, reviewVersionFor, ReviewDecodeError, ReviewInvalidError, verifyResponse, type VerifiedResponse } from "./review.js";
import { ruleMatches } from "./rules.js";
import type { WebhookAccessor } from "./source.js";

/** A failure to talk to a webhook (upstream ErrCallingWebhook): subject to failurePolicy. */
export class CallingWebhookError extends Error {
  constructor(
    readonly webhookName: string,
    readonly reason: string,
    /** The status metrics would record (the webhook's own error status, or 503/400/500). */
    readonly status: StatusError,
  ) {
    super(`failed calling webhook ${JSON.stringify(webhookName)}: ${reason}`);
    this.name = "CallingWebhookError";
  }
}

/** ToStatusErr: the rejection a webhook's answer means. */
export function rejection(webhookName: string, result: Status | undefined): StatusError {
  const deniedBy = `admission webhook ${JSON.stringify(webhookName)} denied the request`;
  const r: Status = { ...(result ?? {}) };
  const code = typeof r.code === "number" && r.code >= 400 ? r.code : 400;
  let message: string;
  if (r.message) message = `${deniedBy}: ${r.message}`;
  else if (r.reason) message = `${deniedBy}: ${r.reason}`;
  else message = `${deniedBy} without explanation`;
  return new StatusError({
    message,
    reason: (r.reason ?? "") as StatusError["status"]["reason"],
    ...(r.details ? { details: r.details } : {}),
    code,
  });
}

/** NewDryRunUnsupportedErr. */
export function dryRunUnsupported(webhookName: string): StatusError {
  return StatusError.badRequest(`admission webhook ${JSON.stringify(webhookName)} does not support dry run`);
}

export interface DispatchDeps {
  cache: StorageCache;
  client: WebhookClient;
  objects: ObjectInterfaces;
}

/** The request's object and old object in one version (upstream VersionedAttributes). */
export interface VersionedObjects {
  kind: GroupVersionKind;
  object: KubeObject | undefined;
  oldObject: KubeObject | undefined;
  /** The object was patched by a webhook in this version. */
  dirty: boolean;
}

/** Converts the request's objects to a kind's version (no copy when it is the request's own). */
export async function versionedObjects(a: AdmissionAttributes, from: VersionedObjects | undefined, kind: GroupVersionKind, objects: ObjectInterfaces, signal: AbortSignal): Promise<VersionedObjects> {
  if (from && sameGVK(from.kind, kind)) return from;
  const source = from ?? { kind: a.kind, object: a.object, oldObject: a.oldObject, dirty: false };
  if (sameGVK(source.kind, kind)) return { ...source };
  const convert = async (o: KubeObject | undefined) => (o ? objects.convert(o, kind, signal) : undefined);
  const [object, oldObject] = await Promise.all([convert(source.object), convert(source.oldObject)]);
  return { kind, object, oldObject, dirty: source.dirty };
}

function selectorMatches(sel: Selector, labels: Record<string, string> | undefined): boolean {
  return sel.matches(labels ?? {});
}

/** MatchNamespaceSelector: [matches, error when the namespace cannot be read]. */
function matchNamespace(h: WebhookAccessor, a: AdmissionAttributes, cache: StorageCache): [boolean, StatusError | undefined] {
  const isNamespaceRequest = a.resource.resource === "namespaces" && a.resource.group === "";
  if (a.namespace === "" && !isNamespaceRequest) return [true, undefined];
  const sel = h.namespaceSelector;
  if (sel instanceof Error) return [false, StatusError.internalError(sel)];
  if (sel.empty()) return [true, undefined];
  let labels: Record<string, string> | undefined;
  if (isNamespaceRequest && a.subresource === "" && (a.operation === "CREATE" || a.operation === "UPDATE")) {
    labels = a.object?.metadata?.labels;
  } else {
    const ns = cache.get(objectKey("", "namespaces", undefined, a.namespace));
    if (!ns) return [false, StatusError.notFound({ group: "", resource: "namespaces" }, a.namespace)];
    labels = ns.metadata?.labels;
  }
  return [selectorMatches(sel, labels), undefined];
}

function matchObject(h: WebhookAccessor, a: AdmissionAttributes): [boolean, StatusError | undefined] {
  const sel = h.objectSelector;
  if (sel instanceof Error) return [false, StatusError.internalError(sel)];
  if (sel.empty()) return [true, undefined];
  const m = (o: KubeObject | undefined) => o !== undefined && selectorMatches(sel, o.metadata?.labels);
  return [m(a.object) || m(a.oldObject), undefined];
}

/**
 * ShouldCallHook: the invocation when the webhook applies, undefined when it does not; throws
 * a StatusError when deciding fails (a namespace that is not there, failing match conditions).
 * `versioned` gives the request's objects in an invocation's version (for match conditions).
 */
export async function shouldCallHook(
  h: WebhookAccessor,
  a: AdmissionAttributes,
  deps: DispatchDeps,
  versioned: (kind: GroupVersionKind) => Promise<VersionedObjects>,
): Promise<Invocation | undefined> {
  const [nsMatches, nsErr] = matchNamespace(h, a, deps.cache);
  if (!nsMatches && !nsErr) return undefined;
  const [objMatches, objErr] = matchObject(h, a);
  if (!objMatches && !objErr) return undefined;
  let invocation: Invocation | undefined;
  if (h.rules.some((r) => ruleMatches(r, a))) invocation = { resource: a.resource, subresource: a.subresource, kind: a.kind };
  if (!invocation && h.matchPolicy === "Equivalent") {
    const equivalents = deps.objects.equivalentResourcesFor(a.resource, a.subresource);
    outer: for (const r of h.rules) {
      for (const eq of equivalents) {
        if (eq.group === a.resource.group && eq.version === a.resource.version && eq.resource === a.resource.resource) continue;
        if (!ruleMatches(r, a, eq)) continue;
        const kind = deps.objects.kindFor(eq, a.subresource);
        if (!kind) throw StatusError.internalError(new Error(`unable to convert to ${eq.group}/${eq.version}, Resource=${eq.resource}: unknown kind`));
        invocation = { resource: eq, subresource: a.subresource, kind };
        break outer;
      }
    }
  }
  if (!invocation) return undefined;
  if (nsErr) throw nsErr;
  if (objErr) throw objErr;
  if (!h.matchConditions.empty) {
    const v = await versioned(invocation.kind);
    const m = h.matchConditions.match({ object: v.object, oldObject: v.oldObject, request: admissionRequest(a, invocation) });
    if ("error" in m) throw StatusError.forbidden({ group: a.resource.group, resource: a.resource.resource }, a.name, m.error);
    if (!m.matches) return undefined;
  }
  return invocation;
}

/** One call of a webhook: the verified answer, or a CallingWebhookError / StatusError thrown. */
export async function callHook(
  h: WebhookAccessor,
  inv: Invocation,
  v: VersionedObjects,
  a: AdmissionAttributes,
  client: WebhookClient,
  signal: AbortSignal,
): Promise<VerifiedResponse> {
  if (a.dryRun) {
    if (!h.sideEffects) throw new CallingWebhookError(h.name, "Webhook SideEffects is nil", StatusError.badRequest("Webhook SideEffects is nil"));
    if (h.sideEffects !== "None" && h.sideEffects !== "NoneOnDryRun") throw dryRunUnsupported(h.name);
  }
  const version = reviewVersionFor(h.admissionReviewVersions);
  if (!version) {
    throw new CallingWebhookError(
      h.name,
      "could not create admission objects: webhook does not accept known AdmissionReview versions (v1, v1beta1)",
      StatusError.badRequest("error creating admission objects"),
    );
  }
  const uid = randomUUID();
  const body = reviewBody(version, admissionReviewRequest(a, inv, uid, v.object, v.oldObject));
  let answer: unknown;
  try {
    answer = await client.post(h.clientConfig, body, { signal, timeoutMs: h.timeoutSeconds * 1000 });
  } catch (err) {
    if (err instanceof WebhookConfigError) throw new CallingWebhookError(h.name, `could not get REST client: ${err.message}`, StatusError.internalError(err));
    if (err instanceof WebhookRequestError) throw new CallingWebhookError(h.name, `failed to call webhook: ${err.message}`, err.status ?? StatusError.serviceUnavailable("error calling webhook"));
    throw err;
  }
  try {
    return verifyResponse(answer, version, uid, h.flavor === "mutating");
  } catch (err) {
    if (err instanceof ReviewDecodeError) throw new CallingWebhookError(h.name, `failed to call webhook: ${err.message}`, StatusError.serviceUnavailable("error calling webhook"));
    if (err instanceof ReviewInvalidError) throw new CallingWebhookError(h.name, `received invalid webhook response: ${err.message}`, StatusError.serviceUnavailable("error validating webhook response"));
    throw err;
  }
}

/** Records a webhook's warnings and audit annotations on the request. */
export function recordResponse(h: WebhookAccessor, a: AdmissionAttributes, r: VerifiedResponse): void {
  for (const [k, val] of Object.entries(r.auditAnnotations)) {
    const key = `${h.name}/${k}`;
    if (!a.auditAnnotations.has(key)) a.auditAnnotations.set(key, val);
  }
  for (const w of r.warnings) if (!a.warnings.includes(w)) a.warnings.push(w);
}

/** The error a plugin returns for a failed call under failurePolicy Fail. */
export function failedClosed(err: CallingWebhookError): StatusError {
  return StatusError.internalError(err);
}

/** The error when the request itself was cancelled or timed out while webhooks were called. */
export function requestTimedOut(): StatusError {
  return StatusError.timeout("request did not complete within requested timeout", 0);
}
