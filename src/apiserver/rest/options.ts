/**
 * Query and body options of the REST verbs (metav1 ListOptions, GetOptions, CreateOptions,
 * UpdateOptions, PatchOptions, DeleteOptions), parsed and validated as kube-apiserver does.
 */
import { StatusError } from "../../apimachinery/errors.js";
import { fieldErrors, type FieldError } from "../../apimachinery/fielderrors.js";

export type ResourceVersionMatch = "Exact" | "NotOlderThan";
export type FieldValidationMode = "Ignore" | "Warn" | "Strict";
export type PropagationPolicy = "Orphan" | "Background" | "Foreground";

export interface ListOptions {
  labelSelector: string;
  fieldSelector: string;
  resourceVersion: string;
  resourceVersionMatch?: ResourceVersionMatch;
  limit: number;
  continue: string;
  watch: boolean;
  allowWatchBookmarks: boolean;
  sendInitialEvents?: boolean;
  timeoutSeconds?: number;
}

export interface WriteOptions {
  dryRun: boolean;
  fieldManager: string;
  fieldValidation: FieldValidationMode;
}

export interface DeleteOptions {
  gracePeriodSeconds?: number;
  propagationPolicy?: PropagationPolicy;
  orphanDependents?: boolean;
  preconditions?: { uid?: string; resourceVersion?: string };
  dryRun: boolean;
}

/** Go's strconv.ParseBool. */
export function parseBool(name: string, v: string | null): boolean | undefined {
  if (v === null) return undefined;
  if (["1", "t", "T", "TRUE", "true", "True"].includes(v)) return true;
  if (["0", "f", "F", "FALSE", "false", "False"].includes(v)) return false;
  if (v === "") return undefined;
  throw StatusError.badRequest(`invalid value for ${name}: strconv.ParseBool: parsing ${JSON.stringify(v)}: invalid syntax`);
}

export function parseInt64(name: string, v: string | null): number | undefined {
  if (v === null || v === "") return undefined;
  if (!/^[+-]?\d+$/.test(v)) {
    throw StatusError.badRequest(`invalid value for ${name}: strconv.ParseInt: parsing ${JSON.stringify(v)}: invalid syntax`);
  }
  return Number(v);
}

function invalidOptions(kind: string, errs: FieldError[]): StatusError {
  return StatusError.invalid({ group: "meta.k8s.io", kind }, "", errs);
}

export function parseListOptions(q: URLSearchParams): ListOptions {
  const match = q.get("resourceVersionMatch") ?? "";
  const opts: ListOptions = {
    labelSelector: q.get("labelSelector") ?? "",
    fieldSelector: q.get("fieldSelector") ?? "",
    resourceVersion: q.get("resourceVersion") ?? "",
    resourceVersionMatch: match === "" ? undefined : (match as ResourceVersionMatch),
    limit: parseInt64("limit", q.get("limit")) ?? 0,
    continue: q.get("continue") ?? "",
    watch: parseBool("watch", q.get("watch")) ?? false,
    allowWatchBookmarks: parseBool("allowWatchBookmarks", q.get("allowWatchBookmarks")) ?? false,
    sendInitialEvents: parseBool("sendInitialEvents", q.get("sendInitialEvents")),
    timeoutSeconds: parseInt64("timeoutSeconds", q.get("timeoutSeconds")),
  };
  validateListOptions(opts);
  return opts;
}

/** apimachinery's ValidateListOptions (watch and list variants), WatchList enabled. */
export function validateListOptions(o: ListOptions): void {
  const errs: FieldError[] = [];
  const match = o.resourceVersionMatch;
  if (o.watch) {
    if (o.sendInitialEvents !== undefined && match !== "NotOlderThan") {
      errs.push(fieldErrors.forbidden("resourceVersionMatch", "sendInitialEvents requires setting resourceVersionMatch to NotOlderThan"));
    }
    if (match !== undefined) {
      if (o.sendInitialEvents === undefined) {
        errs.push(fieldErrors.forbidden("resourceVersionMatch", "resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided"));
      }
      if (match !== "NotOlderThan") errs.push(fieldErrors.notSupported("resourceVersionMatch", match, ["NotOlderThan"]));
      if (o.continue !== "") errs.push(fieldErrors.forbidden("resourceVersionMatch", "resourceVersionMatch is forbidden when continue is provided"));
    }
  } else {
    if (match !== undefined) {
      if (o.resourceVersion === "") {
        errs.push(fieldErrors.forbidden("resourceVersionMatch", "resourceVersionMatch is forbidden unless resourceVersion is provided"));
      }
      if (o.continue !== "") errs.push(fieldErrors.forbidden("resourceVersionMatch", "resourceVersionMatch is forbidden when continue is provided"));
      if (match !== "Exact" && match !== "NotOlderThan") {
        errs.push(fieldErrors.notSupported("resourceVersionMatch", match, ["Exact", "NotOlderThan"]));
      }
      if (match === "Exact" && o.resourceVersion === "0") {
        errs.push(fieldErrors.forbidden("resourceVersionMatch", 'resourceVersionMatch "exact" is forbidden for resourceVersion "0"'));
      }
    }
    if (o.sendInitialEvents !== undefined) errs.push(fieldErrors.forbidden("sendInitialEvents", "sendInitialEvents is forbidden for list"));
  }
  if (o.limit < 0) errs.push(fieldErrors.invalid("limit", o.limit, "must be greater than or equal to 0"));
  if (errs.length) throw invalidOptions("ListOptions", errs);
}

/** A resourceVersion query value as a revision: undefined for "" and "0" ("any"). */
export function parseResourceVersion(rv: string, what = "resourceVersion"): number | undefined {
  if (rv === "" || rv === "0") return undefined;
  if (!/^\d+$/.test(rv)) throw StatusError.badRequest(`invalid ${what}: ${JSON.stringify(rv)}`);
  return Number(rv);
}

function parseDryRun(values: readonly string[], kind: string): boolean {
  const bad = values.filter((v) => v !== "All");
  if (bad.length) throw invalidOptions(kind, [fieldErrors.notSupported("dryRun", values, ["All"])]);
  return values.length > 0;
}

export function parseWriteOptions(q: URLSearchParams, kind: "CreateOptions" | "UpdateOptions" | "PatchOptions", userAgent: string): WriteOptions {
  const fv = q.get("fieldValidation") ?? "";
  let fieldValidation: FieldValidationMode = "Warn";
  if (fv !== "") {
    if (fv !== "Ignore" && fv !== "Warn" && fv !== "Strict") {
      throw invalidOptions(kind, [fieldErrors.notSupported("fieldValidation", fv, ["Ignore", "Strict", "Warn"])]);
    }
    fieldValidation = fv;
  }
  let fieldManager = q.get("fieldManager") ?? "";
  if (fieldManager.length > 128) {
    throw invalidOptions(kind, [fieldErrors.tooLong("fieldManager", fieldManager, 128)]);
  }
  // Upstream default manager: the User-Agent up to the first "/".
  if (fieldManager === "") fieldManager = userAgent.split("/")[0] ?? "";
  return { dryRun: parseDryRun(q.getAll("dryRun"), kind), fieldManager, fieldValidation };
}

/** DeleteOptions from a decoded body (may be undefined) merged over the query parameters. */
export function parseDeleteOptions(q: URLSearchParams, body: Record<string, unknown> | undefined): DeleteOptions {
  const opts: DeleteOptions = { dryRun: false };
  const grace = parseInt64("gracePeriodSeconds", q.get("gracePeriodSeconds"));
  if (grace !== undefined) opts.gracePeriodSeconds = grace;
  const pp = q.get("propagationPolicy");
  if (pp) opts.propagationPolicy = pp as PropagationPolicy;
  const orphan = parseBool("orphanDependents", q.get("orphanDependents"));
  if (orphan !== undefined) opts.orphanDependents = orphan;
  let dryRun = q.getAll("dryRun");
  if (body) {
    if (typeof body.gracePeriodSeconds === "number") opts.gracePeriodSeconds = body.gracePeriodSeconds;
    if (typeof body.propagationPolicy === "string") opts.propagationPolicy = body.propagationPolicy as PropagationPolicy;
    if (typeof body.orphanDependents === "boolean") opts.orphanDependents = body.orphanDependents;
    if (Array.isArray(body.dryRun) && body.dryRun.length > 0) dryRun = body.dryRun.map(String);
    const pre = body.preconditions;
    if (typeof pre === "object" && pre !== null) {
      const p = pre as { uid?: unknown; resourceVersion?: unknown };
      opts.preconditions = {
        uid: typeof p.uid === "string" ? p.uid : undefined,
        resourceVersion: typeof p.resourceVersion === "string" ? p.resourceVersion : undefined,
      };
    }
  }
  opts.dryRun = parseDryRun(dryRun, "DeleteOptions");
  const errs: FieldError[] = [];
  if (opts.propagationPolicy !== undefined && !["Orphan", "Background", "Foreground"].includes(opts.propagationPolicy)) {
    errs.push(fieldErrors.notSupported("propagationPolicy", opts.propagationPolicy, ["Foreground", "Background", "Orphan", "nil"]));
  }
  if (opts.propagationPolicy !== undefined && opts.orphanDependents !== undefined) {
    errs.push(fieldErrors.invalid("propagationPolicy", opts.propagationPolicy, "orphanDependents and deletionPropagation cannot be both set"));
  }
  if (opts.gracePeriodSeconds !== undefined && opts.gracePeriodSeconds < 0) {
    // Upstream treats negative grace as 1 for pods; reject elsewhere is not upstream, so clamp.
    opts.gracePeriodSeconds = 1;
  }
  if (errs.length) throw invalidOptions("DeleteOptions", errs);
  return opts;
}
