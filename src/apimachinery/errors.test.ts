import { describe, expect, it } from "vitest";
import {
  StatusError,
  isAlreadyExists,
  isConflict,
  isForbidden,
  isGone,
  isInvalid,
  isNotFound,
  isResourceExpired,
  isTooManyRequests,
  reasonForError,
  suggestsClientDelay,
} from "./errors.js";
import { fieldErrors } from "./fielderrors.js";

const deployments = { group: "apps", resource: "deployments" };
const pods = { group: "", resource: "pods" };

describe("StatusError constructors write Status as kube-apiserver does", () => {
  const cases: Array<{ name: string; err: StatusError; code: number; reason: string; message: string }> = [
    { name: "NotFound core", err: StatusError.notFound(pods, "web"), code: 404, reason: "NotFound", message: 'pods "web" not found' },
    {
      name: "NotFound grouped",
      err: StatusError.notFound(deployments, "web"),
      code: 404,
      reason: "NotFound",
      message: 'deployments.apps "web" not found',
    },
    {
      name: "AlreadyExists",
      err: StatusError.alreadyExists(deployments, "web"),
      code: 409,
      reason: "AlreadyExists",
      message: 'deployments.apps "web" already exists',
    },
    {
      name: "Conflict",
      err: StatusError.conflict(deployments, "web", "the object has been modified; please apply your changes to the latest version and try again"),
      code: 409,
      reason: "Conflict",
      message:
        'Operation cannot be fulfilled on deployments.apps "web": the object has been modified; please apply your changes to the latest version and try again',
    },
    { name: "BadRequest", err: StatusError.badRequest("bad"), code: 400, reason: "BadRequest", message: "bad" },
    { name: "Unauthorized", err: StatusError.unauthorized(), code: 401, reason: "Unauthorized", message: "Unauthorized" },
    {
      name: "Forbidden",
      err: StatusError.forbidden(deployments, "", 'User "bob" cannot list resource "deployments" in API group "apps" in the namespace "default"'),
      code: 403,
      reason: "Forbidden",
      message: 'deployments.apps is forbidden: User "bob" cannot list resource "deployments" in API group "apps" in the namespace "default"',
    },
    {
      name: "Forbidden with name",
      err: StatusError.forbidden(pods, "p", "no"),
      code: 403,
      reason: "Forbidden",
      message: 'pods "p" is forbidden: no',
    },
    { name: "Gone", err: StatusError.gone("gone"), code: 410, reason: "Gone", message: "gone" },
    {
      name: "Expired",
      err: StatusError.expired("too old resource version: 1 (5)"),
      code: 410,
      reason: "Expired",
      message: "too old resource version: 1 (5)",
    },
    {
      name: "MethodNotAllowed",
      err: StatusError.methodNotAllowed(deployments, "watch"),
      code: 405,
      reason: "MethodNotAllowed",
      message: 'watch is not supported on resources of kind "deployments.apps"',
    },
    {
      name: "RequestEntityTooLarge",
      err: StatusError.requestEntityTooLarge("limit is 3145728"),
      code: 413,
      reason: "RequestEntityTooLarge",
      message: "Request entity too large: limit is 3145728",
    },
    { name: "TooManyRequests", err: StatusError.tooManyRequests("slow down", 1), code: 429, reason: "TooManyRequests", message: "slow down" },
    {
      name: "InternalError",
      err: StatusError.internalError(new Error("boom")),
      code: 500,
      reason: "InternalError",
      message: "Internal error occurred: boom",
    },
    { name: "Timeout", err: StatusError.timeout("request did not complete"), code: 504, reason: "Timeout", message: "Timeout: request did not complete" },
  ];
  for (const c of cases) {
    it(c.name, () => {
      expect(c.err).toBeInstanceOf(Error);
      expect(c.err.message).toBe(c.message);
      expect(c.err.status).toMatchObject({ kind: "Status", apiVersion: "v1", status: "Failure", code: c.code, reason: c.reason, message: c.message });
      expect(c.err.status.metadata).toEqual({});
    });
  }

  it("serializes fields in kube-apiserver's order", () => {
    const s = JSON.stringify(StatusError.notFound(deployments, "web").status);
    expect(s).toBe(
      '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"deployments.apps \\"web\\" not found","reason":"NotFound","details":{"name":"web","group":"apps","kind":"deployments"},"code":404}',
    );
  });

  it("Invalid carries one cause per field error and aggregates messages", () => {
    const err = StatusError.invalid({ group: "apps", kind: "Deployment" }, "web", [
      fieldErrors.invalid("spec.replicas", -1, "must be greater than or equal to 0"),
      fieldErrors.required("spec.template.spec.containers[0].image", ""),
    ]);
    expect(err.code).toBe(422);
    expect(err.message).toBe(
      'Deployment.apps "web" is invalid: [spec.replicas: Invalid value: -1: must be greater than or equal to 0, spec.template.spec.containers[0].image: Required value]',
    );
    expect(err.status.details?.causes).toEqual([
      { reason: "FieldValueInvalid", message: "Invalid value: -1: must be greater than or equal to 0", field: "spec.replicas" },
      { reason: "FieldValueRequired", message: "Required value", field: "spec.template.spec.containers[0].image" },
    ]);
  });

  it("Invalid with a single error has no brackets and quotes string values", () => {
    const err = StatusError.invalid({ group: "", kind: "Pod" }, "p", [fieldErrors.invalid("metadata.name", "A", "bad name")]);
    expect(err.message).toBe('Pod "p" is invalid: metadata.name: Invalid value: "A": bad name');
  });
});

describe("predicates", () => {
  it("match by reason", () => {
    expect(isNotFound(StatusError.notFound(pods, "x"))).toBe(true);
    expect(isNotFound(StatusError.alreadyExists(pods, "x"))).toBe(false);
    expect(isAlreadyExists(StatusError.alreadyExists(pods, "x"))).toBe(true);
    expect(isConflict(StatusError.conflict(pods, "x", "y"))).toBe(true);
    expect(isConflict(StatusError.alreadyExists(pods, "x"))).toBe(false);
    expect(isInvalid(StatusError.invalid({ group: "", kind: "Pod" }, "x", []))).toBe(true);
    expect(isForbidden(StatusError.forbidden(pods, "x", "no"))).toBe(true);
    expect(isTooManyRequests(StatusError.tooManyRequests("x", 2))).toBe(true);
    expect(isGone(StatusError.gone("x"))).toBe(true);
    expect(isGone(StatusError.expired("x"))).toBe(true);
    expect(isResourceExpired(StatusError.expired("x"))).toBe(true);
    expect(isResourceExpired(StatusError.gone("x"))).toBe(false);
  });

  it("fall back to the code when the reason is unknown, as upstream", () => {
    const decoded = StatusError.fromStatus({ kind: "Status", status: "Failure", code: 404, reason: "SomethingNew" });
    expect(isNotFound(decoded)).toBe(true);
    const noReason = StatusError.fromStatus({ kind: "Status", status: "Failure", code: 409 });
    expect(isConflict(noReason)).toBe(true);
    expect(isAlreadyExists(noReason)).toBe(true);
  });

  it("work on plain objects carrying a Status body (errors from other clients)", () => {
    const e = { body: { kind: "Status", code: 404, reason: "NotFound" } };
    expect(isNotFound(e)).toBe(true);
    expect(reasonForError(e)).toBe("NotFound");
    expect(isNotFound(new Error("x"))).toBe(false);
    expect(isNotFound(undefined)).toBe(false);
  });

  it("suggestsClientDelay reads retryAfterSeconds", () => {
    expect(suggestsClientDelay(StatusError.tooManyRequests("x", 3))).toBe(3);
    expect(suggestsClientDelay(StatusError.notFound(pods, "x"))).toBeUndefined();
  });
});
