/**
 * AdmissionReview on the wire (k8s.io/apiserver/pkg/admission/plugin/webhook/request): the
 * request in the first version the webhook lists in admissionReviewVersions that the server
 * speaks (v1, v1beta1), and the checks of the answer — the shape as Go's decoder would refuse
 * it, then VerifyAdmissionResponse: v1 must echo the uid and be admission.k8s.io/v1
 * AdmissionReview; a mutating answer gives patch and patchType together; a validating answer
 * gives neither; v1beta1 answers are taken as they are, a patch being JSONPatch.
 */
import type { Status } from "../../../apimachinery/api/meta/v1.js";

export type ReviewVersion = "v1" | "v1beta1";

/** The first known version a webhook accepts, or undefined. */
export function reviewVersionFor(versions: readonly string[]): ReviewVersion | undefined {
  for (const v of versions) if (v === "v1" || v === "v1beta1") return v;
  return undefined;
}

export function reviewBody(version: ReviewVersion, request: unknown): Record<string, unknown> {
  return { kind: "AdmissionReview", apiVersion: `admission.k8s.io/${version}`, request };
}

export interface VerifiedResponse {
  allowed: boolean;
  /** The decoded patch bytes (JSON text), when one was given. */
  patch?: string;
  patchType?: string;
  result?: Status;
  auditAnnotations: Record<string, string>;
  warnings: string[];
}

/** A body that does not decode into an AdmissionReview (a call failure, Go's decode text). */
export class ReviewDecodeError extends Error {}
/** A decoded AdmissionReview that VerifyAdmissionResponse refuses. */
export class ReviewInvalidError extends Error {}

type Rec = Record<string, unknown>;
const isRec = (v: unknown): v is Rec => typeof v === "object" && v !== null && !Array.isArray(v);

function jsonType(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "array";
  if (typeof v === "object") return "object";
  return typeof v;
}

function field(r: Rec, key: string, goField: string, want: "string" | "bool" | "object" | "[]string" | "map[string]string", goType: string): unknown {
  const v = r[key];
  if (v === undefined || v === null) return undefined;
  const bad = () => new ReviewDecodeError(`json: cannot unmarshal ${jsonType(v) === "boolean" ? "bool" : jsonType(v)} into Go struct field ${goField} of type ${goType}`);
  switch (want) {
    case "string":
      if (typeof v !== "string") throw bad();
      return v;
    case "bool":
      if (typeof v !== "boolean") throw bad();
      return v;
    case "object":
      if (!isRec(v)) throw bad();
      return v;
    case "[]string":
      if (!Array.isArray(v) || v.some((x) => typeof x !== "string")) throw bad();
      return v;
    case "map[string]string":
      if (!isRec(v) || Object.values(v).some((x) => typeof x !== "string")) throw bad();
      return v;
  }
}

/** Decodes and verifies an AdmissionReview answer. */
export function verifyResponse(body: unknown, version: ReviewVersion, uid: string, mutating: boolean): VerifiedResponse {
  if (!isRec(body)) throw new ReviewDecodeError(`json: cannot unmarshal ${jsonType(body)} into Go value of type struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }`);
  if (typeof body.kind !== "string" || body.kind === "") throw new ReviewDecodeError(`Object 'Kind' is missing in '${JSON.stringify(body)}'`);
  const apiVersion = typeof body.apiVersion === "string" ? body.apiVersion : "";
  const response = field(body, "response", "AdmissionReview.response", "object", "v1.AdmissionResponse") as Rec | undefined;
  const prefix = "AdmissionReview.response.";
  const r = response ?? {};
  const ruid = field(r, "uid", `${prefix}uid`, "string", "types.UID") as string | undefined;
  const allowed = (field(r, "allowed", `${prefix}allowed`, "bool", "bool") as boolean | undefined) ?? false;
  const result = field(r, "status", `${prefix}status`, "object", "v1.Status") as Status | undefined;
  const patch = field(r, "patch", `${prefix}patch`, "string", "[]uint8") as string | undefined;
  const patchType = field(r, "patchType", `${prefix}patchType`, "string", "v1.PatchType") as string | undefined;
  const auditAnnotations = (field(r, "auditAnnotations", `${prefix}auditAnnotations`, "map[string]string", "map[string]string") as Record<string, string> | undefined) ?? {};
  const warnings = (field(r, "warnings", `${prefix}warnings`, "[]string", "[]string") as string[] | undefined) ?? [];
  let patchText: string | undefined;
  if (patch !== undefined && patch !== "") {
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(patch) || patch.length % 4 !== 0) throw new ReviewDecodeError(`illegal base64 data at input byte ${firstBadBase64(patch)}`);
    patchText = Buffer.from(patch, "base64").toString("utf8");
  }
  if (!response) throw new ReviewInvalidError("webhook response was absent");
  if (version === "v1beta1") {
    return { allowed, result, auditAnnotations, warnings, ...(mutating && patchText ? { patch: patchText, patchType: "JSONPatch" } : {}) };
  }
  if ((ruid ?? "") !== uid) throw new ReviewInvalidError(`expected response.uid=${JSON.stringify(uid)}, got ${JSON.stringify(ruid ?? "")}`);
  if (apiVersion !== "admission.k8s.io/v1" || body.kind !== "AdmissionReview") {
    throw new ReviewInvalidError(`expected webhook response of admission.k8s.io/v1, Kind=AdmissionReview, got ${apiVersion}, Kind=${String(body.kind)}`);
  }
  if (mutating) {
    if (patchText && patchType === undefined) throw new ReviewInvalidError("webhook returned response.patch but not response.patchType");
    if (!patchText && patchType !== undefined) throw new ReviewInvalidError("webhook returned response.patchType but not response.patch");
    if (patchType !== undefined && patchType === "") throw new ReviewInvalidError(`webhook returned invalid response.patchType of ""`);
    return { allowed, result, auditAnnotations, warnings, ...(patchText ? { patch: patchText, patchType } : {}) };
  }
  if (patchText) throw new ReviewInvalidError("validating webhook may not return response.patch");
  if (patchType !== undefined) throw new ReviewInvalidError("validating webhook may not return response.patchType");
  return { allowed, result, auditAnnotations, warnings };
}

function firstBadBase64(s: string): number {
  for (let i = 0; i < s.length; i++) if (!/[A-Za-z0-9+/=]/.test(s[i])) return i;
  return s.length;
}
