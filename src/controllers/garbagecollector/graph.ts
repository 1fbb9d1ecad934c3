/**
 * The garbage collector's dependency graph: one node per object UID the collector knows about,
 * linked owner → dependents through `metadata.ownerReferences` (upstream graph.go).
 *
 * Ownership of the state: only the graph builder's single change-processing loop
 * (GraphBuilder.processGraphChanges) writes nodes and the UID map. Workers read nodes between
 * their awaits; JavaScript runs one task at a time, so a read never sees a half-applied change,
 * but what a worker read before an await may be stale after it (as upstream, where workers read
 * under per-field locks and act on possibly outdated values, and the API server has the last word
 * through preconditions).
 */
import type { OwnerReference } from "../../apimachinery/api/meta/v1.js";

/** Where an object lives and what it is: an owner reference's coordinates plus the namespace. */
export interface ObjectReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  /** "" for cluster-scoped objects (and for virtual owners whose scope is not known yet). */
  namespace: string;
}

export function formatReference(r: ObjectReference): string {
  return `[${r.apiVersion}/${r.kind}, namespace: ${r.namespace}, name: ${r.name}, uid: ${r.uid}]`;
}

export function sameReference(a: ObjectReference, b: ObjectReference): boolean {
  return a.uid === b.uid && a.name === b.name && a.kind === b.kind && a.apiVersion === b.apiVersion && a.namespace === b.namespace;
}

/** The identifying fields of an owner reference (uid, name, kind, apiVersion), nothing else. */
export function ownerReferenceCoordinates(ref: OwnerReference): OwnerReference {
  return { apiVersion: ref.apiVersion, kind: ref.kind, name: ref.name, uid: ref.uid };
}

/** Whether two references agree on uid, name, kind and apiVersion. */
export function ownerReferenceMatchesCoordinates(a: Pick<OwnerReference, "uid" | "name" | "kind" | "apiVersion">, b: Pick<OwnerReference, "uid" | "name" | "kind" | "apiVersion">): boolean {
  return a.uid === b.uid && a.name === b.name && a.kind === b.kind && a.apiVersion === b.apiVersion;
}

export function referenceFromOwner(ref: OwnerReference, namespace: string): ObjectReference {
  return { apiVersion: ref.apiVersion, kind: ref.kind, name: ref.name, uid: ref.uid, namespace };
}

/**
 * One object in the graph.
 *
 * Nodes are work-queue items and compare by reference (no toString: the queues' default key
 * function would otherwise compare them by string).
 *
 * Invariants (kept by the graph builder):
 * - a node is in the UID map under `identity.uid`; a node replaced by a clone is no longer there
 *   (queues may still hold the old one: workers re-read the map);
 * - for every node N and every owner reference R of N whose UID is in the map, N is among the
 *   dependents of the node mapped at R.uid, and every dependent D of a node O has a reference to
 *   O's UID;
 * - `beingDeleted` and `deletingDependents` only ever go from false to true (deletion is a one-way
 *   trip); `virtual` only goes from true to false (once an informer reported the object).
 */
export class GraphNode {
  identity: ObjectReference;
  /** Nodes whose ownerReferences name this node's UID. */
  readonly dependents = new Set<GraphNode>();
  /** The object's ownerReferences as last observed. */
  owners: OwnerReference[];
  /** deletionTimestamp set and the foregroundDeletion finalizer present. */
  deletingDependents: boolean;
  /** deletionTimestamp set. */
  beingDeleted: boolean;
  /** Made up from a dependent's owner reference; never reported by an informer (yet). */
  virtual: boolean;

  constructor(init: { identity: ObjectReference; owners?: OwnerReference[]; beingDeleted?: boolean; deletingDependents?: boolean; virtual?: boolean }) {
    this.identity = { ...init.identity };
    this.owners = [...(init.owners ?? [])];
    this.beingDeleted = init.beingDeleted ?? false;
    this.deletingDependents = init.deletingDependents ?? false;
    this.virtual = init.virtual ?? false;
  }

  /** A copy with the same dependents (the set is copied; the dependent nodes are shared). */
  clone(): GraphNode {
    const c = new GraphNode({
      identity: this.identity,
      owners: this.owners,
      beingDeleted: this.beingDeleted,
      deletingDependents: this.deletingDependents,
      virtual: this.virtual,
    });
    for (const d of this.dependents) c.dependents.add(d);
    return c;
  }

  isObserved(): boolean {
    return !this.virtual;
  }

  /**
   * Dependents whose reference to this node has blockOwnerDeletion: true — the ones a foreground
   * deletion of this node waits for.
   */
  blockingDependents(): GraphNode[] {
    const out: GraphNode[] = [];
    for (const dep of this.dependents) {
      if (dep.owners.some((o) => o.uid === this.identity.uid && o.blockOwnerDeletion === true)) out.push(dep);
    }
    return out;
  }

  /** Swaps `oldNode` for `newNode` among the dependents, if it is there (after a node was cloned). */
  replaceDependentIfItExists(oldNode: GraphNode, newNode: GraphNode): void {
    if (!this.dependents.delete(oldNode)) return;
    this.dependents.add(newNode);
  }
}

/** The UID → node map. */
export class UIDToNode {
  private readonly map = new Map<string, GraphNode>();

  read(uid: string): GraphNode | undefined {
    return this.map.get(uid);
  }

  write(n: GraphNode): void {
    this.map.set(n.identity.uid, n);
  }

  delete(uid: string): void {
    this.map.delete(uid);
  }

  get size(): number {
    return this.map.size;
  }

  nodes(): GraphNode[] {
    return [...this.map.values()];
  }
}

export interface OwnerRefPair {
  oldRef: OwnerReference;
  newRef: OwnerReference;
}

function sameOwnerReference(a: OwnerReference, b: OwnerReference): boolean {
  return (
    ownerReferenceMatchesCoordinates(a, b) &&
    (a.controller ?? null) === (b.controller ?? null) &&
    (a.blockOwnerDeletion ?? null) === (b.blockOwnerDeletion ?? null)
  );
}

/** Owner references added, removed and changed (same UID, other fields differ) from old to new. */
export function referencesDiffs(
  oldRefs: readonly OwnerReference[],
  newRefs: readonly OwnerReference[],
): { added: OwnerReference[]; removed: OwnerReference[]; changed: OwnerRefPair[] } {
  const oldByUID = new Map<string, OwnerReference>();
  for (const r of oldRefs) oldByUID.set(r.uid, r);
  const remaining = new Set(oldByUID.keys());
  const added: OwnerReference[] = [];
  const changed: OwnerRefPair[] = [];
  for (const r of newRefs) {
    const old = oldByUID.get(r.uid);
    if (old && remaining.has(r.uid)) {
      if (!sameOwnerReference(old, r)) changed.push({ oldRef: old, newRef: r });
      remaining.delete(r.uid);
    } else {
      added.push(r);
    }
  }
  const removed = [...remaining].map((uid) => oldByUID.get(uid)!);
  return { added, removed, changed };
}

/**
 * Splits dependents into those whose reference to `owner.uid` matches the owner's coordinates
 * (and namespace, for a namespaced owner) and those that do not. A dependent with two references
 * to the same UID can land in both lists.
 */
export function partitionDependents(dependents: Iterable<GraphNode>, owner: ObjectReference): { matching: GraphNode[]; nonmatching: GraphNode[] } {
  const ownerNamespaced = owner.namespace !== "";
  const matching: GraphNode[] = [];
  const nonmatching: GraphNode[] = [];
  for (const dep of dependents) {
    let match = false;
    let mismatch = false;
    if (ownerNamespaced && owner.namespace !== dep.identity.namespace) {
      mismatch = true;
    } else {
      for (const ref of dep.owners) {
        if (ref.uid !== owner.uid) continue;
        if (ownerReferenceMatchesCoordinates(ref, owner)) match = true;
        else mismatch = true;
      }
    }
    if (match) matching.push(dep);
    if (mismatch) nonmatching.push(dep);
  }
  return { matching, nonmatching };
}

/** Ordering of references: kind, apiVersion, namespace, name, uid. */
export function referenceLessThan(a: ObjectReference, b: ObjectReference): boolean {
  if (a.kind !== b.kind) return a.kind < b.kind;
  if (a.apiVersion !== b.apiVersion) return a.apiVersion < b.apiVersion;
  if (a.namespace !== b.namespace) return a.namespace < b.namespace;
  if (a.name !== b.name) return a.name < b.name;
  return a.uid < b.uid;
}

/**
 * Another identity the dependents use for the UID of a verified-absent owner (different
 * apiVersion/kind/name or namespace): the first one after `absent` in referenceLessThan order,
 * else the first one; undefined when the dependents all agree with `absent`.
 */
export function alternateOwnerIdentity(deps: Iterable<GraphNode>, absent: ObjectReference): ObjectReference | undefined {
  const absentClusterScoped = absent.namespace === "";
  const seen = new Set<string>([JSON.stringify(keyOf(absent))]);
  let first: ObjectReference | undefined;
  let firstFollowing: ObjectReference | undefined;
  for (const dep of deps) {
    for (const ref of dep.owners) {
      if (ref.uid !== absent.uid) continue;
      if (ownerReferenceMatchesCoordinates(ref, absent) && (absentClusterScoped || absent.namespace === dep.identity.namespace)) continue;
      const alt = referenceFromOwner(ref, dep.identity.namespace);
      // A reference with the absent identity's apiVersion/kind is known to be cluster-scoped.
      if (absentClusterScoped && alt.apiVersion === absent.apiVersion && alt.kind === absent.kind) alt.namespace = "";
      const k = JSON.stringify(keyOf(alt));
      if (seen.has(k)) continue;
      seen.add(k);
      if (!first || referenceLessThan(alt, first)) first = alt;
      if (referenceLessThan(absent, alt) && (!firstFollowing || referenceLessThan(alt, firstFollowing))) firstFollowing = alt;
    }
  }
  return firstFollowing ?? first;
}

function keyOf(r: ObjectReference): string[] {
  return [r.apiVersion, r.kind, r.namespace, r.name, r.uid];
}
