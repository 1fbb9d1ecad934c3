/**
 * Event handlers: from an informer's notifications to requests on a controller's queue
 * (controller-runtime's pkg/handler). The builder wires one per watch; every controller maps
 * owned objects to owners here, in one place:
 *
 * - `enqueueRequestForObject()`: the object's own namespace/name (what `for(..)` uses);
 * - `enqueueRequestForOwner(owner)`: the owner named by an owner reference whose group and kind
 *   match `owner` — only the controller reference by default (what `owns(..)` uses), every
 *   matching reference with `{ onlyController: false }`; the request takes the object's
 *   namespace unless the owner kind is cluster-scoped; both the old and the new object's owners
 *   on an update; an owner reference whose apiVersion cannot be parsed ends the lookup for that
 *   object, as upstream's;
 * - `enqueueRequestsFromMapFunc(fn)`: whatever `fn(object)` returns — for the old and the new
 *   object on an update.
 *
 * A handler receives the queue (`add`, `addAfter`, `addRateLimited`) so that
 * kube-controller-manager-style handlers can also observe expectations or schedule a later look
 * (the ReplicaSet controller's minReadySeconds). Deletes arrive with the last known state; a
 * tombstone with no object is dropped by the builder before any handler sees it.
 */
import { parseGroupVersion } from "../apimachinery/gvk.js";
import { ObjectName } from "../apimachinery/objectname.js";
import { getControllerOf } from "../apimachinery/ownerrefs.js";
import type { TypedObject } from "../apimachinery/types.js";
import type { OwnerReference } from "../apimachinery/api/meta/v1.js";
import type { Request } from "./reconcile.js";

/** What handlers may do with a controller's queue. */
export interface RequestQueue<R = Request> {
  add(request: R): void;
  addAfter(request: R, delayMs: number): void;
  addRateLimited(request: R): void;
}

export interface CreateEvent<T> {
  object: T;
  /** True for objects of the informer's initial list (at start, or for a late handler). */
  isInInitialList: boolean;
}

export interface UpdateEvent<T> {
  objectOld: T;
  objectNew: T;
}

export interface DeleteEvent<T> {
  /** The object, or its last known state when the deletion was missed (a tombstone). */
  object: T;
  /** The deletion was seen only as a tombstone: `object` may be stale. */
  deleteStateUnknown: boolean;
}

/** Turns notifications into requests (handler.EventHandler); absent methods ignore the event. */
export interface EventHandler<T, R = Request> {
  create?(e: CreateEvent<T>, queue: RequestQueue<R>): void;
  update?(e: UpdateEvent<T>, queue: RequestQueue<R>): void;
  delete?(e: DeleteEvent<T>, queue: RequestQueue<R>): void;
}

/** Maps an object to the requests it concerns. */
export type MapFunc<T, R = Request> = (object: T) => readonly R[];

/** The object's own request (handler.EnqueueRequestForObject). */
export function enqueueRequestForObject<T extends TypedObject>(): EventHandler<T> {
  return {
    create: (e, q) => q.add(ObjectName.of(e.object)),
    update: (e, q) => q.add(ObjectName.of(e.objectNew)),
    delete: (e, q) => q.add(ObjectName.of(e.object)),
  };
}

/** The owner kind `enqueueRequestForOwner` looks for. */
export interface OwnerKind {
  group: string;
  kind: string;
  /** Whether owners of this kind are namespaced (then requests take the object's namespace). */
  namespaced: boolean;
}

export interface EnqueueForOwnerOptions {
  /** Only the controller reference (default true, as `Owns` / OnlyControllerOwner). */
  onlyController?: boolean;
}

/** The requests for the owners of `obj` of kind `owner` (getOwnerReconcileRequest). */
export function ownerRequests(obj: TypedObject, owner: OwnerKind, onlyController = true): ObjectName[] {
  let refs: readonly OwnerReference[];
  if (onlyController) {
    const ref = getControllerOf(obj);
    refs = ref ? [ref] : [];
  } else {
    refs = obj.metadata?.ownerReferences ?? [];
  }
  const out: ObjectName[] = [];
  for (const ref of refs) {
    let group: string;
    try {
      group = parseGroupVersion(ref.apiVersion).group;
    } catch {
      return out; // upstream logs "Could not parse OwnerReference APIVersion" and stops here
    }
    if (ref.kind !== owner.kind || group !== owner.group) continue;
    out.push(new ObjectName(owner.namespaced ? (obj.metadata?.namespace ?? "") : "", ref.name));
  }
  return out;
}

/** The owners' requests (handler.EnqueueRequestForOwner). */
export function enqueueRequestForOwner<T extends TypedObject>(owner: OwnerKind, opts: EnqueueForOwnerOptions = {}): EventHandler<T> {
  const only = opts.onlyController ?? true;
  return enqueueRequestsFromMapFunc((obj: T) => ownerRequests(obj, owner, only));
}

/** The requests `fn` maps an object to (handler.EnqueueRequestsFromMapFunc); both sides of an update. */
export function enqueueRequestsFromMapFunc<T, R = Request>(fn: MapFunc<T, R>): EventHandler<T, R> {
  const addAll = (obj: T, q: RequestQueue<R>) => {
    for (const r of fn(obj)) q.add(r);
  };
  return {
    create: (e, q) => addAll(e.object, q),
    update: (e, q) => {
      addAll(e.objectOld, q);
      addAll(e.objectNew, q);
    },
    delete: (e, q) => addAll(e.object, q),
  };
}
