/**
 * PATCH with Content-Type application/apply-patch+yaml: server-side apply through the resource
 * store, creating the object when it does not exist.
 */
import type { ServerResponse } from "node:http";
import { StatusError } from "../../apimachinery/errors.js";
import { fieldErrors } from "../../apimachinery/fielderrors.js";
import type { KubeObject } from "../../apimachinery/types.js";
import type { WriteContext } from "../rest/context.js";
import { requireObjectMetaTypes } from "../rest/metatypes.js";
import { parseBool } from "../rest/options.js";
import type { ResourceStore } from "../rest/store.js";
import { parseYAML } from "../server/body.js";
import { checkUnknownFields } from "../server/fieldcheck.js";
import { setWarnings, writeJSON } from "../server/respond.js";

const patchOptionsGK = { group: "meta.k8s.io", kind: "PatchOptions" };

/** 422 for `force` on a patch that is not an apply (upstream's PatchOptions validation). */
export function rejectForceWithoutApply(q: URLSearchParams): void {
  if (q.has("force")) {
    throw StatusError.invalid(patchOptionsGK, "", [fieldErrors.forbidden("force", "may not be specified for non-apply patch")]);
  }
}

/** Parses an apply body (YAML; JSON is YAML) into an object; 400 otherwise. */
export function parseApplyBody(body: Buffer): KubeObject {
  const v = parseYAML(body, "error decoding YAML", { uniqueKeys: true });
  if (typeof v !== "object" || v === null || Array.isArray(v)) {
    throw StatusError.badRequest("error decoding patch: the apply configuration must be an object");
  }
  return v as KubeObject;
}

export interface ApplyRequest {
  namespace: string | undefined;
  name: string;
  subresource: string | undefined;
  query: URLSearchParams;
  body: Buffer;
  ctx: WriteContext;
}

export async function serveApply(store: ResourceStore, r: ApplyRequest, res: ServerResponse): Promise<void> {
  const tracker = store.fieldTracker;
  if (!tracker) throw StatusError.unsupportedMediaType("application/apply-patch+yaml", ["application/json-patch+json", "application/merge-patch+json"]);
  // The manager must be named explicitly: no User-Agent default for appliers.
  const manager = r.query.get("fieldManager") ?? "";
  if (manager === "") {
    throw StatusError.invalid(patchOptionsGK, "", [fieldErrors.required("fieldManager", "is required for apply patch")]);
  }
  const force = parseBool("force", r.query.get("force")) ?? false;
  if (r.subresource !== undefined && r.subresource !== "status") {
    throw StatusError.badRequest(`server-side apply to the ${r.subresource} subresource is not supported by this server`);
  }
  const config = parseApplyBody(r.body);
  const names = store.strategy.names;
  requireObjectMetaTypes(config, names.kind, names.version);
  const ctx = r.ctx;
  ctx.warnings.push(...checkUnknownFields(config, names.group, names.kind, ctx.fieldValidation));
  ctx.applied = true;
  ctx.fieldManager = manager;
  const result = await store.update(
    r.namespace,
    r.name,
    (current) => {
      const cfg: KubeObject = { ...config, metadata: { ...(config.metadata ?? {}) } };
      // Identity comes from the URL when the configuration leaves it out.
      cfg.metadata!.name ??= r.name;
      if (store.namespaced && r.namespace) cfg.metadata!.namespace ??= r.namespace;
      if (!current && (cfg.apiVersion === undefined || cfg.kind === undefined)) {
        throw StatusError.badRequest("apiVersion and kind are required for server-side apply");
      }
      return tracker.apply(current, cfg, { manager, force, subresource: r.subresource });
    },
    ctx,
    r.subresource === "status" ? { subresource: "status" } : { createIfMissing: true },
  );
  setWarnings(res, ctx.warnings);
  return writeJSON(res, result.created ? 201 : 200, result.object);
}
