/**
 * Admission webhooks for controller authors (controller-runtime's pkg/webhook/admission with
 * CustomDefaulter and CustomValidator): typed handlers of one kind, turned into AdmissionReview
 * answers.
 *
 * - A defaulting (mutating) handler gets a copy of the object and either changes it in place or
 *   returns the object to use; the answer is the JSONPatch from the object as received to the
 *   result (none when nothing changed). DELETE and CONNECT are allowed untouched.
 * - A validating handler gets the object (for DELETE: the old object) and the request, and
 *   returns nothing or `allowed(warnings)` to allow, `denied(message)` to refuse.
 * - Either may throw: a StatusError refuses with its status, any other error with 403 Forbidden
 *   and its message (controller-runtime's Denied); the API server then reports
 *   `admission webhook "<name>" denied the request: <message>`.
 *
 * The answer echoes the review's apiVersion (admission.k8s.io/v1 or v1beta1) and uid.
 */
import { deepCopy } from "../../apimachinery/deepcopy.js";
import { StatusError, statusOf } from "../../apimachinery/errors.js";
import type { GroupVersionKind, GroupVersionResource } from "../../apimachinery/gvk.js";
import { createJsonPatch } from "../../apimachinery/patch/jsonpatch.js";
import type { KubeObject, TypedObject } from "../../apimachinery/types.js";

export type AdmissionOperation = "CREATE" | "UPDATE" | "DELETE" | "CONNECT";

/** admission.k8s.io/v1 AdmissionRequest with the objects typed. */
export interface AdmissionRequest<T extends TypedObject = KubeObject> {
  uid: string;
  kind: GroupVersionKind;
  resource: GroupVersionResource;
  subResource?: string;
  requestKind?: GroupVersionKind;
  requestResource?: GroupVersionResource;
  requestSubResource?: string;
  name: string;
  namespace: string;
  operation: AdmissionOperation;
  userInfo: { username?: string; uid?: string; groups?: string[]; extra?: Record<string, string[]> };
  object?: T;
  oldObject?: T;
  dryRun: boolean;
  options?: KubeObject;
}

/** What a handler decides; build it with `allowed()` and `denied()`. */
export interface AdmissionDecision {
  readonly allowed: boolean;
  readonly message?: string;
  readonly code?: number;
  readonly reason?: string;
  readonly warnings?: readonly string[];
}

const decisionBrand = Symbol("AdmissionDecision");
type Branded = AdmissionDecision & { [decisionBrand]: true };

/** Allow, with optional warnings (shown by kubectl as `Warning: ...`). */
export function allowed(warnings: readonly string[] = []): AdmissionDecision {
  return { allowed: true, warnings, [decisionBrand]: true } as Branded;
}

/** Refuse with a message (403 Forbidden unless another code/reason is given). */
export function denied(message: string, opts: { code?: number; reason?: string; warnings?: readonly string[] } = {}): AdmissionDecision {
  return { allowed: false, message, code: opts.code ?? 403, reason: opts.reason ?? "Forbidden", warnings: opts.warnings ?? [], [decisionBrand]: true } as Branded;
}

function isDecision(v: unknown): v is AdmissionDecision {
  return typeof v === "object" && v !== null && (v as Branded)[decisionBrand] === true;
}

/** A defaulting handler: change `obj` in place or return the object to use; may return `denied(...)`. */
export type DefaultingHandler<T extends TypedObject = KubeObject> = (obj: T, req: AdmissionRequest<T>) => T | AdmissionDecision | void | Promise<T | AdmissionDecision | void>;

/** A validating handler: return nothing / `allowed(warnings)`, or `denied(message)`. */
export type ValidatingHandler<T extends TypedObject = KubeObject> = (obj: T, req: AdmissionRequest<T>) => AdmissionDecision | void | Promise<AdmissionDecision | void>;

/** admission.k8s.io AdmissionResponse as written. */
export interface AdmissionResponse {
  uid: string;
  allowed: boolean;
  status?: { code?: number; reason?: string; message?: string; details?: unknown };
  patch?: string;
  patchType?: "JSONPatch";
  warnings?: string[];
}

/** Errored: a response for a request that could not be handled. */
export function erroredResponse(uid: string, code: number, message: string): AdmissionResponse {
  return { uid, allowed: false, status: { code, message } };
}

function fromDecision(uid: string, d: AdmissionDecision): AdmissionResponse {
  const r: AdmissionResponse = { uid, allowed: d.allowed };
  if (!d.allowed) r.status = { code: d.code, reason: d.reason, ...(d.message ? { message: d.message } : {}) };
  else r.status = { code: 200 };
  if (d.warnings?.length) r.warnings = [...d.warnings];
  return r;
}

function fromError(uid: string, err: unknown): AdmissionResponse {
  if (err instanceof StatusError || statusOf(err)) {
    const s = statusOf(err)!;
    return { uid, allowed: false, status: { code: s.code, reason: s.reason, message: s.message, ...(s.details ? { details: s.details } : {}) } };
  }
  return fromDecision(uid, denied(err instanceof Error ? err.message : String(err)));
}

/** Runs a defaulting handler on a request; the answer with its JSONPatch. */
export async function runDefaulting<T extends TypedObject>(handler: DefaultingHandler<T>, req: AdmissionRequest<T>): Promise<AdmissionResponse> {
  if (req.operation === "DELETE" || req.operation === "CONNECT" || !req.object) return { uid: req.uid, allowed: true, status: { code: 200 } };
  const original = req.object;
  const obj = deepCopy(original);
  let out: T | AdmissionDecision | void;
  try {
    out = await handler(obj, req);
  } catch (err) {
    return fromError(req.uid, err);
  }
  if (isDecision(out) && !out.allowed) return fromDecision(req.uid, out);
  const result = out && !isDecision(out) ? out : obj;
  const warnings = isDecision(out) ? out.warnings : undefined;
  const ops = createJsonPatch(original, result);
  const r: AdmissionResponse = { uid: req.uid, allowed: true };
  if (ops.length) {
    r.patchType = "JSONPatch";
    r.patch = Buffer.from(JSON.stringify(ops)).toString("base64");
  }
  if (warnings?.length) r.warnings = [...warnings];
  return r;
}

/** Runs a validating handler on a request (DELETE: on the old object). */
export async function runValidating<T extends TypedObject>(handler: ValidatingHandler<T>, req: AdmissionRequest<T>): Promise<AdmissionResponse> {
  if (req.operation === "CONNECT") return fromDecision(req.uid, allowed());
  const subject = req.operation === "DELETE" ? req.oldObject : req.object;
  if (!subject) return erroredResponse(req.uid, 400, `there is no content to decode`);
  try {
    const out = await handler(deepCopy(subject), req);
    return fromDecision(req.uid, isDecision(out) ? out : allowed());
  } catch (err) {
    return fromError(req.uid, err);
  }
}
