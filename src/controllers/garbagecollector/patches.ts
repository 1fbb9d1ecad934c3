/**
 * The patches the garbage collector sends (upstream patch.go and operations.go).
 *
 * Owner references are removed with the strategic merge patch the ControllerRefManager releases
 * with (deleteOwnerRefStrategicMergePatch, runtime/controllerrefmanager.ts): it deletes list
 * entries by their merge key (uid) and carries the dependent's own uid, so a patch aimed at a
 * deleted-and-recreated object fails instead of editing the newcomer. Resources without strategic merge support (custom
 * resources answer 415) get a JSON merge patch instead: the whole remaining list, guarded by the
 * resourceVersion it was computed from.
 */
import type { OwnerReference } from "../../apimachinery/api/meta/v1.js";
import type { TypedObject } from "../../apimachinery/types.js";

/** JSON merge patch keeping every reference of `current` except those to `ownerUIDs`. */
export function deleteOwnerRefJSONMergePatch(current: TypedObject, ownerUIDs: readonly string[]): Record<string, unknown> {
  const remaining = (current.metadata?.ownerReferences ?? []).filter((r) => !ownerUIDs.includes(r.uid));
  return {
    metadata: {
      resourceVersion: current.metadata?.resourceVersion ?? "",
      ownerReferences: remaining.length > 0 ? remaining : null,
    },
  };
}

/** SMP setting blockOwnerDeletion=false on each of the node's blocking references. */
export function unblockOwnerReferencesStrategicMergePatch(uid: string, owners: readonly OwnerReference[]): Record<string, unknown> {
  const refs = owners.filter((o) => o.blockOwnerDeletion === true).map((o) => ({ ...o, blockOwnerDeletion: false }));
  return { metadata: { ownerReferences: refs, uid } };
}

/** JSON merge patch setting blockOwnerDeletion=false on every reference. */
export function unblockOwnerReferencesJSONMergePatch(current: TypedObject, owners: readonly OwnerReference[]): Record<string, unknown> {
  return {
    metadata: {
      resourceVersion: current.metadata?.resourceVersion ?? "",
      ownerReferences: owners.map((o) => ({ ...o, blockOwnerDeletion: false })),
    },
  };
}

/** JSON merge patch setting the finalizers, guarded by resourceVersion (upstream objectForFinalizersPatch). */
export function finalizersPatch(resourceVersion: string, finalizers: readonly string[]): Record<string, unknown> {
  return { metadata: { resourceVersion, finalizers: finalizers.length > 0 ? [...finalizers] : null } };
}
