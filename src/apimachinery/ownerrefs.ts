/**
 * Owner references: apimachinery's apis/meta/v1 helpers (NewControllerRef, GetControllerOf,
 * IsControlledBy) and controller-runtime's controllerutil ones (SetControllerReference,
 * SetOwnerReference, RemoveOwnerReference, HasControllerReference, HasOwnerReference).
 */
import type { ObjectMeta, OwnerReference } from "./api/meta/v1.js";
import type { GroupVersionKind } from "./gvk.js";
import { groupVersionString, parseGroupVersion } from "./gvk.js";

export interface HasMeta {
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

// --- controller-runtime's controllerutil owner-reference helpers -------------------------------

/** `object` is already controlled by another owner (controllerutil.AlreadyOwnedError). */
export class AlreadyOwnedError extends Error {
  constructor(
    readonly object: HasMeta,
    readonly owner: OwnerReference,
  ) {
    super(`Object ${object.metadata?.namespace ?? ""}/${object.metadata?.name ?? ""} is already owned by another ${owner.kind} controller ${owner.name}`);
    this.name = "AlreadyOwnedError";
  }
}

/** An owner reference that cannot be set: cross-namespace, or a namespaced owner of a cluster-scoped object. */
export class InvalidOwnerError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "InvalidOwnerError";
  }
}

/** Whether two references name the same owner: same group, kind and name (any version). */
export function referSameObject(a: OwnerReference, b: OwnerReference): boolean {
  let ga: string;
  let gb: string;
  try {
    ga = parseGroupVersion(a.apiVersion).group;
    gb = parseGroupVersion(b.apiVersion).group;
  } catch {
    return false;
  }
  return ga === gb && a.kind === b.kind && a.name === b.name;
}

function ownerGVK(owner: HasMeta & { apiVersion?: string; kind?: string }, gvk: GroupVersionKind | undefined): GroupVersionKind {
  if (gvk) return gvk;
  if (!owner.apiVersion || !owner.kind) throw new InvalidOwnerError("the owner has no apiVersion and kind: pass its GroupVersionKind");
  return { ...parseGroupVersion(owner.apiVersion), kind: owner.kind };
}

function validateOwner(owner: HasMeta, object: HasMeta): void {
  const ownerNs = owner.metadata?.namespace ?? "";
  if (ownerNs === "") return;
  const objNs = object.metadata?.namespace ?? "";
  if (objNs === "") throw new InvalidOwnerError(`cluster-scoped resource must not have a namespace-scoped owner, owner's namespace ${ownerNs}`);
  if (objNs !== ownerNs) {
    throw new InvalidOwnerError(`cross-namespace owner references are disallowed, owner's namespace ${ownerNs}, obj's namespace ${objNs}`);
  }
}

function upsertOwnerRef(ref: OwnerReference, object: HasMeta): void {
  const meta = (object.metadata ??= {}) as { ownerReferences?: OwnerReference[] };
  const owners = [...(meta.ownerReferences ?? [])];
  const i = owners.findIndex((r) => referSameObject(r, ref));
  if (i < 0) owners.push(ref);
  else owners[i] = ref;
  meta.ownerReferences = owners;
}

export interface OwnerReferenceOptions {
  /** The owner's kind; default: its apiVersion and kind fields. */
  gvk?: GroupVersionKind;
  /** Default true for a controller reference; an owner reference leaves it unset unless given. */
  blockOwnerDeletion?: boolean;
}

/**
 * Makes `owner` the controller of `object` (controllerutil.SetControllerReference), in place:
 * a controller reference with blockOwnerDeletion, replacing a reference to the same owner.
 * Throws AlreadyOwnedError when another owner controls it, InvalidOwnerError across namespaces.
 * `object` must be a copy, never a cached object.
 */
export function setControllerReference<O extends HasMeta>(owner: HasMeta & { apiVersion?: string; kind?: string }, object: O, opts: OwnerReferenceOptions = {}): O {
  validateOwner(owner, object);
  const ref = newControllerRef(owner, ownerGVK(owner, opts.gvk));
  if (opts.blockOwnerDeletion !== undefined) ref.blockOwnerDeletion = opts.blockOwnerDeletion;
  const existing = getControllerOf(object);
  if (existing && !referSameObject(existing, ref)) throw new AlreadyOwnedError(object, existing);
  upsertOwnerRef(ref, object);
  return object;
}

/** Adds (or replaces) a plain owner reference to `owner` (controllerutil.SetOwnerReference), in place. */
export function setOwnerReference<O extends HasMeta>(owner: HasMeta & { apiVersion?: string; kind?: string }, object: O, opts: OwnerReferenceOptions = {}): O {
  validateOwner(owner, object);
  const gvk = ownerGVK(owner, opts.gvk);
  const meta = owner.metadata ?? {};
  if (!meta.name || !meta.uid) throw new InvalidOwnerError("the owner needs metadata.name and metadata.uid");
  const ref: OwnerReference = { apiVersion: groupVersionString(gvk), kind: gvk.kind, name: meta.name, uid: meta.uid };
  if (opts.blockOwnerDeletion !== undefined) ref.blockOwnerDeletion = opts.blockOwnerDeletion;
  upsertOwnerRef(ref, object);
  return object;
}

/** Removes the reference to `owner` (controllerutil.RemoveOwnerReference), in place; throws when there is none. */
export function removeOwnerReference<O extends HasMeta>(owner: HasMeta & { apiVersion?: string; kind?: string }, object: O, opts: Pick<OwnerReferenceOptions, "gvk"> = {}): O {
  const owners = object.metadata?.ownerReferences ?? [];
  if (owners.length === 0) throw new InvalidOwnerError(`${object.metadata?.name ?? "object"} does not have any owner references`);
  const gvk = ownerGVK(owner, opts.gvk);
  const probe: OwnerReference = { apiVersion: groupVersionString(gvk), kind: gvk.kind, name: owner.metadata?.name ?? "", uid: owner.metadata?.uid ?? "" };
  const i = owners.findIndex((r) => referSameObject(r, probe));
  if (i < 0) throw new InvalidOwnerError(`${object.metadata?.name ?? "object"} does not have an owner reference for ${gvk.kind} ${probe.name}`);
  (object.metadata as { ownerReferences?: OwnerReference[] }).ownerReferences = owners.filter((_, j) => j !== i);
  return object;
}

/** Whether any owner reference of `object` is a controller reference (controllerutil.HasControllerReference). */
export function hasControllerReference(object: HasMeta): boolean {
  return (object.metadata?.ownerReferences ?? []).some((r) => r.controller === true);
}

/** Whether `object` has a reference to `owner` (controllerutil.HasOwnerReference). */
export function hasOwnerReference(object: HasMeta, owner: HasMeta & { apiVersion?: string; kind?: string }, opts: Pick<OwnerReferenceOptions, "gvk"> = {}): boolean {
  const gvk = ownerGVK(owner, opts.gvk);
  const probe: OwnerReference = { apiVersion: groupVersionString(gvk), kind: gvk.kind, name: owner.metadata?.name ?? "", uid: "" };
  return (object.metadata?.ownerReferences ?? []).some((r) => referSameObject(r, probe));
}
