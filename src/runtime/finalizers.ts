/**
 * Finalizers: the controller-runtime `controllerutil` helpers (contains / add / remove on an
 * object, in place) and kube-rs's `finalizer()` flow, which runs a reconcile as either "apply" or
 * "cleanup" and adds and removes the finalizer around them:
 *
 *   return finalizer(ctx.client.resource(apps, ns), "apps.example.com/cleanup", app, async (e) =>
 *     e.type === "apply" ? apply(e.object) : cleanup(e.object));
 *
 * - not being deleted, finalizer absent → the finalizer is added (a JSON merge patch of
 *   metadata.finalizers guarded by the object's resourceVersion, so a concurrent change fails with
 *   a conflict and is retried rather than lost) and nothing else happens: the update brings the
 *   object back with the finalizer;
 * - not being deleted, finalizer present → `reconcile({ type: "apply", object })`;
 * - being deleted, finalizer present → `reconcile({ type: "cleanup", object })`; once it succeeds
 *   the finalizer is removed (the same guarded patch), and the API server completes the deletion
 *   when no finalizer is left;
 * - being deleted, finalizer absent → nothing: the object is not ours to hold.
 * The object given is never modified (it may come from a cache).
 */
import { InvalidOwnerError } from "../apimachinery/ownerrefs.js";
import type { TypedObject } from "../apimachinery/types.js";
import type { ResourceClient } from "../client/interfaces.js";
import type { ReconcileResult } from "./reconcile.js";

export interface HasFinalizers {
  metadata?: { finalizers?: string[] };
}

/** Whether `o` carries `finalizer` (controllerutil.ContainsFinalizer). */
export function containsFinalizer(o: HasFinalizers, finalizer: string): boolean {
  return (o.metadata?.finalizers ?? []).includes(finalizer);
}

/** Adds `finalizer` to `o` in place; true when it was not there (controllerutil.AddFinalizer). */
export function addFinalizer(o: HasFinalizers, finalizer: string): boolean {
  if (containsFinalizer(o, finalizer)) return false;
  const meta = (o.metadata ??= {});
  meta.finalizers = [...(meta.finalizers ?? []), finalizer];
  return true;
}

/** Removes every `finalizer` from `o` in place; true when one was there (controllerutil.RemoveFinalizer). */
export function removeFinalizer(o: HasFinalizers, finalizer: string): boolean {
  const fs = o.metadata?.finalizers ?? [];
  if (!fs.includes(finalizer)) return false;
  o.metadata!.finalizers = fs.filter((f) => f !== finalizer);
  return true;
}

/** What `finalizer()` asks the reconcile function to do. */
export type FinalizerEvent<T> = { type: "apply"; object: T } | { type: "cleanup"; object: T };

/** The merge patch setting metadata.finalizers, conditional on `resourceVersion`. */
export function finalizersPatch(resourceVersion: string | undefined, finalizers: readonly string[]): { metadata: Record<string, unknown> } {
  const metadata: Record<string, unknown> = { finalizers: finalizers.length > 0 ? [...finalizers] : null };
  if (resourceVersion) metadata.resourceVersion = resourceVersion;
  return { metadata };
}

/**
 * kube-rs's `finalizer()`: see the module comment. `client` addresses the object's resource in
 * its namespace (use `ctx.client` so the calls carry the reconcile's signal).
 */
export async function finalizer<T extends TypedObject>(
  client: ResourceClient<T>,
  name: string,
  object: T,
  reconcile: (event: FinalizerEvent<T>) => Promise<ReconcileResult | void>,
): Promise<ReconcileResult | void> {
  const meta = object.metadata ?? {};
  if (!meta.name) throw new InvalidOwnerError("finalizer(): the object has no metadata.name");
  const finalizers = meta.finalizers ?? [];
  const has = finalizers.includes(name);
  if (meta.deletionTimestamp) {
    if (!has) return;
    const result = await reconcile({ type: "cleanup", object });
    await client.patch(meta.name, "merge", finalizersPatch(meta.resourceVersion, finalizers.filter((f) => f !== name)));
    return result;
  }
  if (!has) {
    await client.patch(meta.name, "merge", finalizersPatch(meta.resourceVersion, [...finalizers, name]));
    return;
  }
  return reconcile({ type: "apply", object });
}
