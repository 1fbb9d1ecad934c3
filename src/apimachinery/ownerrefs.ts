/** Owner references, as apimachinery's apis/meta/v1 helpers (NewControllerRef, GetControllerOf, IsControlledBy). */
import type { ObjectMeta, OwnerReference } from "kubernetes-types/meta/v1.js";
import type { GroupVersionKind } from "./gvk.js";
import { groupVersionString } from "./gvk.js";

interface HasMeta {
  metadata?: ObjectMeta;
}

/** A controller reference to `owner`: controller and blockOwnerDeletion both true. */
export function newControllerRef(owner: HasMeta, gvk: GroupVersionKind): OwnerReference {
  const meta = owner.metadata ?? {};
  if (!meta.name || !meta.uid) throw new Error("newControllerRef: the owner needs metadata.name and metadata.uid");
  return {
    apiVersion: groupVersionString(gvk),
    kind: gvk.kind,
    name: meta.name,
    uid: meta.uid,
    blockOwnerDeletion: true,
    controller: true,
  };
}

/** The owner reference with controller=true, if any (a copy, never the object's own). */
export function getControllerOf(obj: HasMeta): OwnerReference | undefined {
  const ref = obj.metadata?.ownerReferences?.find((r) => r.controller === true);
  return ref ? { ...ref } : undefined;
}

/** Whether `obj`'s controller reference points at `owner` (compared by UID). */
export function isControlledBy(obj: HasMeta, owner: HasMeta): boolean {
  const ref = getControllerOf(obj);
  return ref !== undefined && owner.metadata?.uid !== undefined && ref.uid === owner.metadata.uid;
}
