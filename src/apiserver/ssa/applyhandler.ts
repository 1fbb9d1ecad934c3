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
import { applyStrictCheck, builtinKind, decodeAppliedObject, decodeCustomResourceMetadata, parseApplyBody, sameKind } from "../decode/request.js";
import { objectGVKNN, validateApplyConfiguration } from "../decode/smd.js";
import { setWarnings, writeJSON } from "../server/respond.js";

const patchOptionsGK = { group: "meta.k8s.io", kind: "PatchOptions" };

/** 422 for `force` on a patch that is not an apply (upstream's PatchOptions validation). */
export function rejectForceWithoutApply(q: URLSearchParams): void {
  if (q.has("force")) {
    throw StatusError.invalid(patchOptionsGK, "", [fieldErrors.forbidden("force", "may not be specified for non-apply patch")]);
  }
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
  const { config, duplicates } = parseApplyBody(r.body);
  const names = store.strategy.names;
  const target = { group: names.group, version: names.version, kind: names.kind };
  const ctx = r.ctx;
  // structured-merge-diff's typed conversion of the configuration: unknown fields and wrong
  // types fail the request whatever fieldValidation says (it only governs duplicate keys here).
  if (sameKind(config, target)) validateApplyConfiguration(config as Record<string, unknown>, target);
  if (!builtinKind(target)) decodeCustomResourceMetadata(config, target, ctx.fieldValidation, ctx.warnings);
  // TypeMeta and ObjectMeta of the right JSON types whatever the kind (a 400 otherwise).
  requireObjectMetaTypes(config, names.kind, names.version);
  const gvknn = objectGVKNN(config as Record<string, unknown>, target);
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
      const applied = decodeAppliedObject(tracker.apply(current, cfg, { manager, force, subresource: r.subresource }), target, gvknn);
      applyStrictCheck(duplicates, ctx.fieldValidation, ctx.warnings);
      return applied;
    },
    ctx,
    r.subresource === "status" ? { subresource: "status" } : { createIfMissing: true },
  );
  setWarnings(res, ctx.warnings);
  return writeJSON(res, result.created ? 201 : 200, result.object);
}
