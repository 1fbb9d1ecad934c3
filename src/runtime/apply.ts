/**
 * Server-side apply helpers: send the fields a controller owns as an apply patch
 * (application/apply-patch+yaml; JSON is YAML) under a field manager, as controller-runtime's
 * `client.Apply` / `Status().Apply` and kube-rs's `Patch::Apply` do.
 *
 *   await serverSideApply(ctx.client.resource(builtin.configMaps, ns), desired, { fieldManager: "my-controller", force: true });
 *
 * The applied configuration must name its apiVersion, kind and metadata.name (the server
 * identifies the object by them); fields the controller stops sending are removed if no other
 * manager owns them. `force` takes conflicting fields from other managers (what a controller that
 * is the source of truth for its fields wants). The fake client answers apply with 415, as a
 * server without server-side apply would.
 */
import { RequestConstructionError } from "../client/errors.js";
import type { TypedObject } from "../apimachinery/types.js";
import type { PatchOptions, ResourceClient } from "../client/interfaces.js";

export interface ApplyOptions extends Omit<PatchOptions, "fieldManager" | "subresource"> {
  /** Required: who owns the applied fields. */
  fieldManager: string;
}

function check(obj: TypedObject, opts: ApplyOptions): string {
  if (!opts.fieldManager) throw new RequestConstructionError("server-side apply needs a fieldManager");
  if (!obj.apiVersion || !obj.kind) throw new RequestConstructionError("server-side apply needs apiVersion and kind in the applied configuration");
  const name = obj.metadata?.name;
  if (!name) throw new RequestConstructionError("server-side apply needs metadata.name in the applied configuration");
  return name;
}

/** Applies `obj` (its owned fields only) to the main resource; resolves to the object as stored. */
export function serverSideApply<T extends TypedObject>(client: ResourceClient<T>, obj: T, opts: ApplyOptions): Promise<T> {
  return client.patch(check(obj, opts), "apply", obj, opts);
}

/** Applies `obj`'s status through the status subresource (Status().Apply). */
export function serverSideApplyStatus<T extends TypedObject>(client: ResourceClient<T>, obj: T, opts: ApplyOptions): Promise<T> {
  return client.patch(check(obj, opts), "apply", obj, { ...opts, subresource: "status" });
}
