/**
 * ControllerRefManager: adopts orphans that match an owner's selector and releases owned objects
 * that no longer match (kubernetes pkg/controller/controller_ref_manager.go).
 *
 * The rules, per object (upstream's claimObject):
 * - controlled by another owner (controller reference with another UID): ignored, not claimed;
 * - controlled by us and the selector (and filters) match: claimed, no request — even while the
 *   owner is being deleted, since that takes no action;
 * - controlled by us but no longer matching: released, unless the owner is being deleted; a
 *   release that meets NotFound or Invalid (the object is gone, or was recreated with another UID,
 *   which the UID precondition turns into a 422) is ignored; any other error is reported;
 * - an orphan: adopted when it matches, the owner is not being deleted, the object is not being
 *   deleted, and `canAdopt()` (a fresh read of the owner from the API) passes. `canAdopt()` runs at
 *   most once per `claim()` call, and only if an adoption is attempted; its error fails every
 *   adoption of that call. An adoption that meets NotFound is ignored.
 *
 * - a namespaced owner never adopts an object of another namespace (a cluster-scoped owner — no
 *   namespace — may adopt objects of any namespace).
 *
 * Adopt and release are strategic merge PATCHes of metadata.ownerReferences (merge key uid)
 * carrying the object's metadata.uid as a precondition, byte-for-byte shaped as upstream's
 * (ownerRefControllerPatch, GenerateDeleteOwnerRefStrategicMergeBytes); with `finalizers` the
 * adopt patch adds them and the release patch removes them ($deleteFromPrimitiveList), as the
 * Job controller's tracking finalizer needs.
 * Every object is visited; errors are collected and `claim()` rejects with them afterwards (one
 * error as itself, several as an AggregateError), as upstream returns an aggregate.
 */
import type { LabelSelector, OwnerReference } from "../apimachinery/api/meta/v1.js";
import { isInvalid, isNotFound } from "../apimachinery/errors.js";
import type { GroupVersionKind } from "../apimachinery/gvk.js";
import { groupVersionString } from "../apimachinery/gvk.js";
import { labelSelectorAsSelector, type Selector } from "../apimachinery/labels.js";
import { getControllerOf } from "../apimachinery/ownerrefs.js";
import type { TypedObject } from "../apimachinery/types.js";
import type { ResourceClient } from "../client/interfaces.js";
import type { Lister } from "../informers/lister.js";

export interface ClaimOptions<T extends TypedObject> {
  /** The owner, e.g. the Deployment (must have metadata.name and metadata.uid). */
  owner: TypedObject;
  /** The owner's kind, e.g. { group: "apps", version: "v1", kind: "Deployment" }. */
  ownerGVK: GroupVersionKind;
  /** Which objects the owner wants (labelSelectorAsSelector(owner.spec.selector)). */
  selector: Selector;
  /**
   * A namespaced client for the owned objects — adopt/release PATCH through it — or, for an
   * owner that claims across namespaces (a cluster-scoped owner), the client for each object.
   */
  client: ResourceClient<T> | ((obj: T) => ResourceClient<T>);
  /** Re-reads the owner from the API (not the cache); throws if its UID differs or it is being deleted. */
  canAdopt: () => Promise<void>;
  fieldManager?: string;
  /** Added by adoption and removed by release, in the same patch (NewPodControllerRefManager's finalizers). */
  finalizers?: readonly string[];
}

/** The adopt patch's body (upstream objectMetaForPatch: ownerReferences, uid, then finalizers). */
export interface AdoptPatch {
  metadata: { ownerReferences: OwnerReference[]; uid: string; finalizers?: string[] };
}

/**
 * The patch that makes `owner` the controller of the object with `objUID`, adding `finalizers`
 * (upstream's ownerRefControllerPatch; JSON key order as upstream's bytes).
 */
export function adoptPatch(owner: TypedObject, ownerGVK: GroupVersionKind, objUID: string, finalizers: readonly string[] = []): AdoptPatch {
  const name = owner.metadata?.name;
  const uid = owner.metadata?.uid;
  if (!name || !uid) throw new Error("ControllerRefManager: the owner needs metadata.name and metadata.uid");
  const patch: AdoptPatch = {
    metadata: {
      ownerReferences: [
        {
          apiVersion: groupVersionString(ownerGVK),
          kind: ownerGVK.kind,
          name,
          uid,
          controller: true,
          blockOwnerDeletion: true,
        },
      ],
      uid: objUID,
    },
  };
  if (finalizers.length > 0) patch.metadata.finalizers = [...finalizers];
  return patch;
}

/** The delete-owner-reference patch's body (upstream objectMetaForMergePatch: uid first). */
export interface DeleteOwnerRefPatch {
  metadata: {
    uid: string;
    ownerReferences: Array<{ $patch: "delete"; uid: string }>;
    "$deleteFromPrimitiveList/finalizers"?: string[];
  };
}

/**
 * The strategic merge patch removing the references to every owner in `ownerUIDs` (and the
 * `finalizers`) from the object with `dependentUID` — upstream's
 * GenerateDeleteOwnerRefStrategicMergeBytes, used to release a claimed object and by the garbage
 * collector to orphan dependents. JSON.stringify gives upstream's exact bytes:
 * {"metadata":{"uid":"d","ownerReferences":[{"$patch":"delete","uid":"o"}]}}.
 */
export function deleteOwnerRefStrategicMergePatch(dependentUID: string, ownerUIDs: readonly string[], ...finalizers: string[]): DeleteOwnerRefPatch {
  const patch: DeleteOwnerRefPatch = {
    metadata: { uid: dependentUID, ownerReferences: ownerUIDs.map((uid) => ({ $patch: "delete" as const, uid })) },
  };
  if (finalizers.length > 0) patch.metadata["$deleteFromPrimitiveList/finalizers"] = [...finalizers];
  return patch;
}

/** The release patch: the reference to `ownerUID` (and `finalizers`) removed from the object with `objUID`. */
export function releasePatch(ownerUID: string, objUID: string, finalizers: readonly string[] = []): DeleteOwnerRefPatch {
  return deleteOwnerRefStrategicMergePatch(objUID, [ownerUID], ...finalizers);
}

/** Go's utilerrors.NewAggregate(...).Error(): one message as is, several as "[a, b]". */
function aggregate(errors: unknown[]): unknown {
  if (errors.length === 1) return errors[0];
  const msgs = errors.map((e) => (e instanceof Error ? e.message : String(e)));
  return new AggregateError(errors, `[${msgs.join(", ")}]`);
}

function describeObject(obj: TypedObject): string {
  return `${obj.metadata?.namespace ?? ""}/${obj.metadata?.name ?? ""}`;
}

export class ControllerRefManager<T extends TypedObject> {
  private readonly opts: ClaimOptions<T>;

  constructor(opts: ClaimOptions<T>) {
    if (!opts.owner.metadata?.uid) throw new Error("ControllerRefManager: the owner needs metadata.uid");
    this.opts = opts;
  }

  private clientFor(obj: T): ResourceClient<T> {
    const c = this.opts.client;
    return typeof c === "function" ? c(obj) : c;
  }

  private get ownerUID(): string {
    return this.opts.owner.metadata?.uid ?? "";
  }

  private get ownerBeingDeleted(): boolean {
    return Boolean(this.opts.owner.metadata?.deletionTimestamp);
  }

  /**
   * Returns the objects this owner controls after adopting matching orphans and releasing owned
   * objects that no longer match. `filters` narrow what matches beyond the selector (as
   * ClaimPods' filters). The returned objects are the ones passed in (never mutated); adopted ones
   * do not show the new owner reference until the informer delivers the update.
   */
  async claim(objects: readonly T[], filters: ReadonlyArray<(obj: T) => boolean> = []): Promise<T[]> {
    const claimed: T[] = [];
    const errors: unknown[] = [];
    // canAdopt() at most once per claim call; its outcome (success or error) is shared.
    let canAdopt: Promise<void> | undefined;
    const checkCanAdopt = () => (canAdopt ??= this.opts.canAdopt());
    const match = (obj: T) => this.opts.selector.matches(obj.metadata?.labels ?? {}) && filters.every((f) => f(obj));

    for (const obj of objects) {
      try {
        if (await this.claimObject(obj, match, checkCanAdopt)) claimed.push(obj);
      } catch (err) {
        errors.push(err);
      }
    }
    if (errors.length > 0) throw aggregate(errors);
    return claimed;
  }

  /** One object: true when we own it afterwards; throws when a needed adopt/release failed. */
  private async claimObject(obj: T, match: (obj: T) => boolean, canAdopt: () => Promise<void>): Promise<boolean> {
    const ref = getControllerOf(obj);
    if (ref) {
      if (ref.uid !== this.ownerUID) return false; // owned by someone else
      if (match(obj)) return true; // ours, and still wanted
      if (this.ownerBeingDeleted) return false; // no actions while being deleted
      try {
        await this.release(obj);
      } catch (err) {
        if (isNotFound(err)) return false;
        throw err;
      }
      return false;
    }
    // An orphan.
    if (this.ownerBeingDeleted || !match(obj)) return false;
    if (obj.metadata?.deletionTimestamp) return false;
    // A namespaced owner never adopts across namespaces.
    const ownerNs = this.opts.owner.metadata?.namespace ?? "";
    if (ownerNs !== "" && ownerNs !== (obj.metadata?.namespace ?? "")) return false;
    try {
      await this.adopt(obj, canAdopt);
    } catch (err) {
      if (isNotFound(err)) return false;
      throw err;
    }
    return true;
  }

  private async adopt(obj: T, canAdopt: () => Promise<void>): Promise<void> {
    try {
      await canAdopt();
    } catch (err) {
      const kind = this.clientFor(obj).resource.kind;
      const reason = err instanceof Error ? err.message : String(err);
      throw new Error(`can't adopt ${kind} ${describeObject(obj)} (${obj.metadata?.uid ?? ""}): ${reason}`, { cause: err });
    }
    // The API server rejects this if another owner reference has controller=true.
    const patch = adoptPatch(this.opts.owner, this.opts.ownerGVK, obj.metadata?.uid ?? "", this.opts.finalizers);
    await this.clientFor(obj).patch(obj.metadata?.name ?? "", "strategic", patch, this.writeOptions());
  }

  private async release(obj: T): Promise<void> {
    const patch = releasePatch(this.ownerUID, obj.metadata?.uid ?? "", this.opts.finalizers);
    try {
      await this.clientFor(obj).patch(obj.metadata?.name ?? "", "strategic", patch, this.writeOptions());
    } catch (err) {
      // Gone (404), or recreated under another UID / without owner references (422): nothing to release.
      if (isNotFound(err) || isInvalid(err)) return;
      throw err;
    }
  }

  private writeOptions(): { fieldManager?: string } {
    return this.opts.fieldManager ? { fieldManager: this.opts.fieldManager } : {};
  }
}

/**
 * A `canAdopt` that re-reads the owner with `getFresh` (a live GET, not the cache) and refuses
 * adoption when the owner was replaced (another UID) or is being deleted (upstream's
 * RecheckDeletionTimestamp plus the controllers' UID check).
 */
export function recheckDeletionTimestamp(getFresh: () => Promise<TypedObject>, uid: string): () => Promise<void> {
  return async () => {
    let fresh: TypedObject;
    try {
      fresh = await getFresh();
      const meta = fresh.metadata ?? {};
      if (meta.uid !== uid) {
        throw new Error(`original ${fresh.kind ?? "object"} ${meta.namespace ?? ""}/${meta.name ?? ""} is gone: got uid ${meta.uid ?? ""}, wanted ${uid}`);
      }
    } catch (err) {
      const reason = err instanceof Error ? err.message : String(err);
      throw new Error(`can't recheck DeletionTimestamp: ${reason}`, { cause: err });
    }
    const meta = fresh.metadata ?? {};
    if (meta.deletionTimestamp) {
      throw new Error(`${meta.namespace ?? ""}/${meta.name ?? ""} has just been deleted at ${meta.deletionTimestamp}`);
    }
  };
}

/**
 * The object a controller reference names, from the owner kind's lister: undefined unless the
 * reference is of `kind` and the cached object of that name has the reference's UID (upstream's
 * per-controller resolveControllerRef — a same-named successor is not the owner).
 */
export function resolveControllerRef<T extends TypedObject>(lister: Lister<T>, namespace: string, ref: OwnerReference, kind: string): T | undefined {
  if (ref.kind !== kind) return undefined;
  let owner: T;
  try {
    owner = lister.namespace(namespace).get(ref.name);
  } catch {
    return undefined;
  }
  return owner.metadata?.uid === ref.uid ? owner : undefined;
}

/**
 * The candidates whose spec.selector selects `labels` — the owners that may adopt an orphan
 * (GetPodReplicaSets, GetDeploymentsForReplicaSet). An empty, absent or invalid selector selects
 * nothing here; no labels, no owners.
 */
export function selectingOwners<T extends { spec?: { selector?: LabelSelector } }>(candidates: readonly T[], labels: Readonly<Record<string, string>> | undefined): T[] {
  if (!labels || Object.keys(labels).length === 0) return [];
  const out: T[] = [];
  for (const c of candidates) {
    let sel: Selector;
    try {
      sel = labelSelectorAsSelector(c.spec?.selector);
    } catch {
      continue;
    }
    if (sel.empty() || !sel.matches(labels)) continue;
    out.push(c);
  }
  return out;
}
