/**
 * StatusError: an error carrying a metav1 Status exactly as kube-apiserver writes it, with
 * constructors mirroring apimachinery's api/errors and predicates that work on errors raised by
 * the client (decoded from a response) and by the server (constructed in a handler) alike.
 */
import type { Status, StatusCause } from "./api/meta/v1.js";
import { aggregateMessage, type FieldError } from "./fielderrors.js";
import type { GroupResource } from "./gvk.js";
import { groupResourceString } from "./gvk.js";

export type StatusReason =
  | ""
  | "Unauthorized"
  | "Forbidden"
  | "NotFound"
  | "AlreadyExists"
  | "Conflict"
  | "Gone"
  | "Invalid"
  | "ServerTimeout"
  | "StoreReadError"
  | "Timeout"
  | "TooManyRequests"
  | "BadRequest"
  | "MethodNotAllowed"
  | "NotAcceptable"
  | "RequestEntityTooLarge"
  | "UnsupportedMediaType"
  | "InternalError"
  | "Expired"
  | "ServiceUnavailable";

/** A GroupKind for Invalid errors: "Deployment.apps" or "Pod". */
export interface GroupKind {
  group: string;
  kind: string;
}

function groupKindString(gk: GroupKind): string {
  return gk.group === "" ? gk.kind : `${gk.kind}.${gk.group}`;
}

/** The full metav1.Status of a failure, with the fields kube-apiserver always writes. */
export interface FailureStatus extends Status {
  kind: "Status";
  apiVersion: "v1";
  metadata: Record<string, never>;
  status: "Failure";
  message: string;
  reason: StatusReason;
  code: number;
}

export class StatusError extends Error {
  readonly status: FailureStatus;

  constructor(status: Omit<FailureStatus, "kind" | "apiVersion" | "metadata" | "status"> & Partial<FailureStatus>) {
    super(status.message);
    this.name = "StatusError";
    // Field order follows kube-apiserver's JSON: kind, apiVersion, metadata, status, message, reason, details, code.
    const s = {
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message: status.message,
      reason: status.reason,
      ...(status.details ? { details: status.details } : {}),
      code: status.code,
    } as FailureStatus;
    this.status = s;
  }

  get code(): number {
    return this.status.code;
  }

  get reason(): StatusReason {
    return this.status.reason;
  }

  /** Wraps a Status decoded from a response body (any reason string is kept as is). */
  static fromStatus(status: Status, fallbackCode = 500): StatusError {
    return new StatusError({
      message: status.message ?? "",
      reason: (status.reason ?? "") as StatusReason,
      code: status.code ?? fallbackCode,
      details: status.details,
    });
  }

  static notFound(gr: GroupResource, name: string): StatusError {
    return new StatusError({
      message: `${groupResourceString(gr)} "${name}" not found`,
      reason: "NotFound",
      details: { name, group: gr.group || undefined, kind: gr.resource },
      code: 404,
    });
  }

  static alreadyExists(gr: GroupResource, name: string): StatusError {
    return new StatusError({
      message: `${groupResourceString(gr)} "${name}" already exists`,
      reason: "AlreadyExists",
      details: { name, group: gr.group || undefined, kind: gr.resource },
      code: 409,
    });
  }

  /** A generateName collision: the same 409 with upstream's wording about retrying. */
  static generateNameConflict(gr: GroupResource, name: string, retryAfterSeconds: number): StatusError {
    return new StatusError({
      message: `${groupResourceString(gr)} "${name}" already exists, the server was not able to generate a unique name for the object`,
      reason: "AlreadyExists",
      details: { name, group: gr.group || undefined, kind: gr.resource, retryAfterSeconds },
      code: 409,
    });
  }

  /** "Operation cannot be fulfilled on deployments.apps "web": <detail>". */
  static conflict(gr: GroupResource, name: string, detail: string): StatusError {
    return new StatusError({
      message: `Operation cannot be fulfilled on ${groupResourceString(gr)} "${name}": ${detail}`,
      reason: "Conflict",
      details: { name, group: gr.group || undefined, kind: gr.resource },
      code: 409,
    });
  }

  /** 422 with one cause per field error: `Deployment.apps "web" is invalid: spec.replicas: ...`. */
  static invalid(gk: GroupKind, name: string, errs: readonly FieldError[]): StatusError {
    const causes: StatusCause[] = errs.map((e) => ({ reason: e.type, message: e.body(), field: e.field }));
    return new StatusError({
      message: `${groupKindString(gk)} "${name}" is invalid: ${aggregateMessage(errs)}`,
      reason: "Invalid",
      details: { name, group: gk.group || undefined, kind: gk.kind, causes },
      code: 422,
    });
  }

  static badRequest(message: string): StatusError {
    return new StatusError({ message, reason: "BadRequest", code: 400 });
  }

  static unauthorized(message = ""): StatusError {
    return new StatusError({ message: message || "Unauthorized", reason: "Unauthorized", code: 401 });
  }

  /** `deployments.apps "web" is forbidden: User "x" cannot get resource ...`. */
  static forbidden(gr: GroupResource, name: string, reason: string): StatusError {
    let message: string;
    if (gr.resource === "" && gr.group === "") message = `forbidden: ${reason}`;
    else if (name === "") message = `${groupResourceString(gr)} is forbidden: ${reason}`;
    else message = `${groupResourceString(gr)} "${name}" is forbidden: ${reason}`;
    return new StatusError({
      message,
      reason: "Forbidden",
      details: { name: name || undefined, group: gr.group || undefined, kind: gr.resource || undefined },
      code: 403,
    });
  }

  static gone(message: string): StatusError {
    return new StatusError({ message, reason: "Gone", code: 410 });
  }

  /** 410 with reason Expired: a too old resourceVersion or continue token. */
  static expired(message: string): StatusError {
    return new StatusError({ message, reason: "Expired", code: 410 });
  }

  static methodNotAllowed(gr: GroupResource, action: string): StatusError {
    return new StatusError({
      message: `${action} is not supported on resources of kind "${groupResourceString(gr)}"`,
      reason: "MethodNotAllowed",
      details: { group: gr.group || undefined, kind: gr.resource },
      code: 405,
    });
  }

  static unsupportedMediaType(contentType: string, accepted: readonly string[]): StatusError {
    return new StatusError({
      message: `the body of the request was in an unknown format - accepted media types include: ${accepted.join(", ")}`,
      reason: "UnsupportedMediaType",
      details: { causes: [{ reason: "UnexpectedServerResponse", message: contentType }] },
      code: 415,
    });
  }

  static notAcceptable(accepted: readonly string[]): StatusError {
    return new StatusError({
      message: `only the following media types are accepted: ${accepted.join(", ")}`,
      reason: "NotAcceptable",
      code: 406,
    });
  }

  static requestEntityTooLarge(message: string): StatusError {
    return new StatusError({ message: `Request entity too large: ${message}`, reason: "RequestEntityTooLarge", code: 413 });
  }

  static tooManyRequests(message: string, retryAfterSeconds: number): StatusError {
    return new StatusError({
      message,
      reason: "TooManyRequests",
      details: { retryAfterSeconds },
      code: 429,
    });
  }

  static internalError(err: unknown): StatusError {
    const m = err instanceof Error ? err.message : String(err);
    return new StatusError({
      message: `Internal error occurred: ${m}`,
      reason: "InternalError",
      details: { causes: [{ message: m }] },
      code: 500,
    });
  }

  static timeout(message: string, retryAfterSeconds = 0): StatusError {
    return new StatusError({
      message: `Timeout: ${message}`,
      reason: "Timeout",
      details: retryAfterSeconds ? { retryAfterSeconds } : undefined,
      code: 504,
    });
  }

  static serviceUnavailable(message: string): StatusError {
    return new StatusError({ message, reason: "ServiceUnavailable", code: 503 });
  }
}

const codeForReason: Partial<Record<StatusReason, number>> = {
  NotFound: 404,
  AlreadyExists: 409,
  Conflict: 409,
  Gone: 410,
  Expired: 410,
  Invalid: 422,
  Forbidden: 403,
  Unauthorized: 401,
  TooManyRequests: 429,
  BadRequest: 400,
  MethodNotAllowed: 405,
  RequestEntityTooLarge: 413,
  UnsupportedMediaType: 415,
  InternalError: 500,
  Timeout: 504,
  ServerTimeout: 500,
  ServiceUnavailable: 503,
};

const knownReasons = new Set(Object.keys(codeForReason));

/** The Status of an error if it carries one (a StatusError, or any object with a Status-shaped `status`). */
export function statusOf(err: unknown): Status | undefined {
  if (err instanceof StatusError) return err.status;
  if (typeof err === "object" && err !== null) {
    const s = (err as { status?: unknown }).status;
    if (typeof s === "object" && s !== null && (s as Status).kind === "Status") return s as Status;
    const body = (err as { body?: unknown }).body;
    if (typeof body === "object" && body !== null && (body as Status).kind === "Status") return body as Status;
  }
  return undefined;
}

/** The reason of an error, or "" when it has none. */
export function reasonForError(err: unknown): string {
  return statusOf(err)?.reason ?? "";
}

// Upstream rule: match the reason; when the reason is unknown, fall back to the HTTP code.
function matches(err: unknown, reason: StatusReason, code: number): boolean {
  const s = statusOf(err);
  if (!s) return false;
  if (s.reason === reason) return true;
  if (s.reason === undefined || s.reason === "" || !knownReasons.has(s.reason)) return s.code === code;
  return false;
}

export const isNotFound = (err: unknown): boolean => matches(err, "NotFound", 404);
export const isAlreadyExists = (err: unknown): boolean => matches(err, "AlreadyExists", 409);
export const isConflict = (err: unknown): boolean => matches(err, "Conflict", 409);
export const isInvalid = (err: unknown): boolean => matches(err, "Invalid", 422);
export const isForbidden = (err: unknown): boolean => matches(err, "Forbidden", 403);
export const isUnauthorized = (err: unknown): boolean => matches(err, "Unauthorized", 401);
export const isTooManyRequests = (err: unknown): boolean => matches(err, "TooManyRequests", 429);
export const isBadRequest = (err: unknown): boolean => matches(err, "BadRequest", 400);
export const isMethodNotSupported = (err: unknown): boolean => matches(err, "MethodNotAllowed", 405);
export const isInternalError = (err: unknown): boolean => matches(err, "InternalError", 500);
/** Gone (410) in either form: reason Gone or reason Expired. */
export const isGone = (err: unknown): boolean => matches(err, "Gone", 410) || reasonForError(err) === "Expired";
export const isResourceExpired = (err: unknown): boolean => reasonForError(err) === "Expired";

/** retryAfterSeconds from the details of a 429/504/500 ServerTimeout, if present. */
export function suggestsClientDelay(err: unknown): number | undefined {
  const s = statusOf(err);
  const r = s?.details?.retryAfterSeconds;
  return typeof r === "number" && r > 0 ? r : undefined;
}
