/**
 * GraphBuilder (upstream graph_builder.go): one monitor (a handler on a shared informer) per
 * deletable resource funnels add/update/delete notifications into a single `graphChanges` queue;
 * one loop takes them in order and keeps the dependency graph (graph.ts) up to date, enqueueing
 * objects that may be garbage into `attemptToDelete` and owners whose dependents must be orphaned
 * into `attemptToOrphan`.
 *
 * State: `monitors` (resource key → monitor) changes only in syncMonitors; the graph (`uidToNode`
 * and the nodes) changes only in processEvent, called by the single loop in run() (tests call it
 * directly).
 */
import type { OwnerReference } from "../../apimachinery/api/meta/v1.js";
import { groupVersionString } from "../../apimachinery/gvk.js";
import { metadataOnly } from "../../apimachinery/resource.js";
import type { TypedObject } from "../../apimachinery/types.js";
import type { ResourceDescriptor } from "../../client/interfaces.js";
import type { EventRecorder } from "../../events/broadcaster.js";
import { objectFromDeletion } from "../../informers/handlers.js";
import type { HandlerRegistration, SharedIndexInformer } from "../../informers/sharedinformer.js";
import type { SharedInformerFactory } from "../../informers/factory.js";
import { Queue } from "../../workqueue/queue.js";
import type { RateLimitingQueue } from "../../workqueue/ratelimiting.js";
import {
  alternateOwnerIdentity,
  formatReference,
  GraphNode,
  ownerReferenceMatchesCoordinates,
  partitionDependents,
  referenceFromOwner,
  referencesDiffs,
  sameReference,
  UIDToNode,
  type ObjectReference,
  type OwnerRefPair,
} from "./graph.js";
import { gvrKey } from "./discovery.js";
import type { Logger } from "../../runtime/logging.js";
import type { ReferenceCache } from "./referencecache.js";

export const FINALIZER_ORPHAN_DEPENDENTS = "orphan";
export const FINALIZER_DELETE_DEPENDENTS = "foregroundDeletion";

export type GraphEventType = "add" | "update" | "delete";

/** One change to apply to the graph. */
export interface GraphEvent {
  /** Made up by the collector (an owner verified absent), not reported by an informer. */
  virtual: boolean;
  type: GraphEventType;
  obj: TypedObject;
  oldObj?: TypedObject;
  /** apiVersion and kind of the resource the event came from. */
  apiVersion: string;
  kind: string;
}

interface Monitor {
  resource: ResourceDescriptor;
  informer: SharedIndexInformer<TypedObject>;
  registration: HandlerRegistration;
}

export interface GraphBuilderOptions {
  informers: SharedInformerFactory;
  attemptToDelete: RateLimitingQueue<GraphNode>;
  attemptToOrphan: RateLimitingQueue<GraphNode>;
  absentOwnerCache: ReferenceCache;
  logger: Logger;
  recorder?: EventRecorder;
}

function beingDeleted(obj: TypedObject | undefined): boolean {
  return !!obj?.metadata?.deletionTimestamp;
}

function hasFinalizer(obj: TypedObject | undefined, f: string): boolean {
  return (obj?.metadata?.finalizers ?? []).includes(f);
}

/** The object just started being deleted with finalizer `f` (or was first seen that way). */
function deletionStartsWithFinalizer(oldObj: TypedObject | undefined, newObj: TypedObject, f: string): boolean {
  if (!beingDeleted(newObj) || !hasFinalizer(newObj, f)) return false;
  if (!oldObj) return true;
  return !beingDeleted(oldObj) || !hasFinalizer(oldObj, f);
}

export class GraphBuilder {
  readonly uidToNode = new UIDToNode();
  readonly graphChanges = new Queue<GraphEvent>({ name: "garbage_collector_graph_changes" });
  private readonly monitors = new Map<string, Monitor>();
  private readonly opts: GraphBuilderOptions;
  private startSignal: AbortSignal | undefined;

  constructor(opts: GraphBuilderOptions) {
    this.opts = opts;
  }

  private get log(): Logger {
    return this.opts.logger;
  }

  /** The resources currently monitored. */
  monitoredResources(): ResourceDescriptor[] {
    return [...this.monitors.values()].map((m) => m.resource);
  }

  /**
   * Makes the monitor set exactly `resources`: handlers are added for new resources and removed
   * for resources no longer served. New monitors start at once if run() is under way.
   */
  async syncMonitors(resources: ReadonlyMap<string, ResourceDescriptor>): Promise<{ added: number; kept: number; removed: number }> {
    let added = 0;
    let kept = 0;
    const toRemove = new Map(this.monitors);
    for (const [key, resource] of resources) {
      if (toRemove.has(key)) {
        toRemove.delete(key);
        kept++;
        continue;
      }
      this.monitors.set(key, this.monitorFor(resource));
      added++;
    }
    for (const [key, m] of toRemove) {
      this.monitors.delete(key);
      await m.registration.remove();
    }
    if (this.startSignal && !this.startSignal.aborted) this.opts.informers.start(this.startSignal);
    this.log.debug({ added, kept, removed: toRemove.size }, "synced monitors");
    return { added, kept, removed: toRemove.size };
  }

  private monitorFor(resource: ResourceDescriptor): Monitor {
    const apiVersion = groupVersionString(resource);
    const kind = resource.kind;
    // Metadata only, as upstream's metadata informers: owner references, finalizers and deletion
    // timestamps are all the graph needs; specs and statuses are never cached.
    const informer = this.opts.informers.forResource(metadataOnly(resource));
    const push = (e: Omit<GraphEvent, "apiVersion" | "kind" | "virtual">) => this.graphChanges.add({ ...e, virtual: false, apiVersion, kind });
    const registration = informer.addEventHandler(
      {
        onAdd: (obj) => push({ type: "add", obj }),
        onUpdate: (oldObj, newObj) => push({ type: "update", obj: newObj, oldObj }),
        onDelete: (obj) => {
          const o = objectFromDeletion(obj);
          if (o) push({ type: "delete", obj: o });
        },
      },
      0,
    );
    return { resource, informer, registration };
  }

  /** The cached object of a monitored resource, if the monitor has it. */
  cachedObject(resource: ResourceDescriptor, namespace: string, name: string): TypedObject | undefined {
    const m = this.monitors.get(gvrKey(resource));
    if (!m) return undefined;
    return m.informer.getIndexer().getByKey(namespace ? `${namespace}/${name}` : name);
  }

  /** True once there is at least one monitor and every monitor has delivered its initial list. */
  isSynced(): boolean {
    if (this.monitors.size === 0) return false;
    for (const m of this.monitors.values()) if (!m.registration.hasSynced()) return false;
    return true;
  }

  /** Whether the monitor of a resource exists and has synced. */
  isResourceSynced(key: string): boolean {
    return this.monitors.get(key)?.registration.hasSynced() ?? false;
  }

  /** Resolves once every current monitor's informer has synced, or the signal aborts. */
  async waitForInformers(signal: AbortSignal): Promise<boolean> {
    const results = await Promise.all([...this.monitors.values()].map((m) => m.informer.waitForSync(signal)));
    return results.every(Boolean);
  }

  /**
   * Starts the monitors (and any added later) and applies graph changes one at a time until
   * `signal` aborts; the handlers are removed on the way out.
   */
  async run(signal: AbortSignal): Promise<void> {
    this.startSignal = signal;
    this.opts.informers.start(signal);
    const onAbort = () => this.graphChanges.shutDown();
    signal.addEventListener("abort", onAbort, { once: true });
    if (signal.aborted) onAbort();
    try {
      for (;;) {
        const r = await this.graphChanges.get();
        if (r.shutdown) break;
        try {
          if (!signal.aborted) this.processEvent(r.item);
        } catch (err) {
          this.log.error({ err }, "processing a graph change failed");
        } finally {
          this.graphChanges.done(r.item);
        }
      }
    } finally {
      signal.removeEventListener("abort", onAbort);
      const ms = [...this.monitors.values()];
      this.monitors.clear();
      await Promise.all(ms.map((m) => m.registration.remove()));
    }
  }

  /** Queues a made-up delete for an object the API server says is gone. */
  enqueueVirtualDeleteEvent(ref: ObjectReference): void {
    this.graphChanges.add({
      virtual: true,
      type: "delete",
      apiVersion: ref.apiVersion,
      kind: ref.kind,
      obj: { apiVersion: ref.apiVersion, kind: ref.kind, metadata: { namespace: ref.namespace || undefined, name: ref.name, uid: ref.uid } },
    });
  }

  // ---- graph maintenance ----

  private identityFromEvent(e: GraphEvent): ObjectReference {
    const m = e.obj.metadata ?? {};
    return { apiVersion: e.apiVersion, kind: e.kind, uid: m.uid ?? "", name: m.name ?? "", namespace: m.namespace ?? "" };
  }

  private insertNode(n: GraphNode): void {
    this.uidToNode.write(n);
    this.addDependentToOwners(n, n.owners);
  }

  private removeNode(n: GraphNode): void {
    this.uidToNode.delete(n.identity.uid);
    this.removeDependentFromOwners(n, n.owners);
  }

  private removeDependentFromOwners(n: GraphNode, owners: readonly OwnerReference[]): void {
    for (const o of owners) this.uidToNode.read(o.uid)?.dependents.delete(n);
  }

  /**
   * Adds `n` to its owners' dependents; an owner not in the graph gets a virtual node, queued so
   * that a worker asks the API server whether it exists. A reference whose coordinates or namespace
   * disagree with an observed owner makes `n` itself a candidate.
   */
  private addDependentToOwners(n: GraphNode, owners: readonly OwnerReference[]): void {
    let potentiallyInvalid = false;
    for (const owner of owners) {
      let ownerNode = this.uidToNode.read(owner.uid);
      const existed = ownerNode !== undefined;
      if (!ownerNode) {
        ownerNode = new GraphNode({ identity: referenceFromOwner(owner, n.identity.namespace), virtual: true });
        this.log.debug({ identity: formatReference(ownerNode.identity) }, "add virtual item");
        this.uidToNode.write(ownerNode);
      }
      ownerNode.dependents.add(n);
      if (!existed) {
        this.opts.attemptToDelete.add(ownerNode);
      } else if (!potentiallyInvalid) {
        const ownerNamespaced = ownerNode.identity.namespace !== "";
        if (ownerNamespaced && ownerNode.identity.namespace !== n.identity.namespace) {
          if (ownerNode.isObserved()) {
            this.log.info(
              { item: formatReference(n.identity), owner: formatReference(ownerNode.identity) },
              "item references an owner but does not match namespaces",
            );
            this.reportInvalidNamespaceOwnerRef(n, owner.uid);
          }
          potentiallyInvalid = true;
        } else if (!ownerReferenceMatchesCoordinates(owner, ownerNode.identity)) {
          potentiallyInvalid = true;
        } else if (!ownerNamespaced && ownerNode.identity.namespace !== n.identity.namespace && !ownerNode.isObserved()) {
          potentiallyInvalid = true;
        }
      }
    }
    if (potentiallyInvalid) this.opts.attemptToDelete.add(n);
  }

  private reportInvalidNamespaceOwnerRef(n: GraphNode, ownerUID: string): void {
    const ref = n.owners.find((o) => o.uid === ownerUID);
    if (!ref || !this.opts.recorder) return;
    const invalid = referenceFromOwner(ref, n.identity.namespace);
    this.opts.recorder.eventf(
      { kind: n.identity.kind, apiVersion: n.identity.apiVersion, namespace: n.identity.namespace, name: n.identity.name, uid: n.identity.uid },
      "Warning",
      "OwnerRefInvalidNamespace",
      "ownerRef %s does not exist in namespace %q",
      formatReference(invalid),
      n.identity.namespace,
    );
  }

  /** Queues owners whose blocking reference from a dependent was removed or unblocked. */
  private addUnblockedOwnersToDeleteQueue(removed: readonly OwnerReference[], changed: readonly OwnerRefPair[]): void {
    for (const ref of removed) {
      if (ref.blockOwnerDeletion !== true) continue;
      const n = this.uidToNode.read(ref.uid);
      if (n) this.opts.attemptToDelete.add(n);
    }
    for (const c of changed) {
      if (c.oldRef.blockOwnerDeletion === true && c.newRef.blockOwnerDeletion !== true) {
        const n = this.uidToNode.read(c.newRef.uid);
        if (n) this.opts.attemptToDelete.add(n);
      }
    }
  }

  private processTransitions(oldObj: TypedObject | undefined, obj: TypedObject, n: GraphNode): void {
    if (deletionStartsWithFinalizer(oldObj, obj, FINALIZER_ORPHAN_DEPENDENTS)) {
      this.log.debug({ item: formatReference(n.identity) }, "add item to attemptToOrphan");
      this.opts.attemptToOrphan.add(n);
      return;
    }
    if (deletionStartsWithFinalizer(oldObj, obj, FINALIZER_DELETE_DEPENDENTS)) {
      this.log.debug({ item: formatReference(n.identity) }, "add item to attemptToDelete, because it's waiting for its dependents to be deleted");
      n.deletingDependents = true;
      for (const dep of n.dependents) this.opts.attemptToDelete.add(dep);
      this.opts.attemptToDelete.add(n);
    }
  }

  /** Applies one change to the graph (upstream processGraphChanges' body). */
  processEvent(e: GraphEvent): void {
    const obj = e.obj;
    const uid = obj.metadata?.uid ?? "";
    let existing = this.uidToNode.read(uid);
    const found = existing !== undefined;

    if (existing && !e.virtual && !existing.isObserved()) {
      // First informer sighting of an object known so far only from its dependents' references.
      const observed = this.identityFromEvent(e);
      if (!sameReference(observed, existing.identity)) {
        const { nonmatching } = partitionDependents(existing.dependents, observed);
        for (const dep of nonmatching) {
          if (observed.namespace !== "" && dep.identity.namespace !== observed.namespace) {
            this.log.info({ item: formatReference(dep.identity), owner: formatReference(observed) }, "item references an owner but does not match namespaces");
            this.reportInvalidNamespaceOwnerRef(dep, observed.uid);
          }
          this.opts.attemptToDelete.add(dep);
        }
        this.log.debug({ virtual: formatReference(existing.identity), observed: formatReference(observed) }, "replacing virtual item with observed item");
        existing = existing.clone();
        existing.identity = observed;
        this.uidToNode.write(existing);
      }
      existing.virtual = false;
    }

    if ((e.type === "add" || e.type === "update") && !existing) {
      const n = new GraphNode({
        identity: this.identityFromEvent(e),
        owners: obj.metadata?.ownerReferences ?? [],
        beingDeleted: beingDeleted(obj),
        deletingDependents: beingDeleted(obj) && hasFinalizer(obj, FINALIZER_DELETE_DEPENDENTS),
      });
      this.insertNode(n);
      // The informer may have folded a creation and a deletion into one notification.
      this.processTransitions(e.oldObj, obj, n);
      return;
    }

    if ((e.type === "add" || e.type === "update") && existing) {
      if (!e.virtual && (existing.identity.apiVersion !== e.apiVersion || existing.identity.kind !== e.kind)) {
        const before = existing;
        existing = existing.clone();
        existing.identity = { ...existing.identity, apiVersion: e.apiVersion, kind: e.kind };
        this.uidToNode.write(existing);
        for (const o of existing.owners) this.uidToNode.read(o.uid)?.replaceDependentIfItExists(before, existing);
      }
      const newOwners = obj.metadata?.ownerReferences ?? [];
      const { added, removed, changed } = referencesDiffs(existing.owners, newOwners);
      if (added.length || removed.length || changed.length) {
        this.addUnblockedOwnersToDeleteQueue(removed, changed);
        existing.owners = [...newOwners];
        this.addDependentToOwners(existing, added);
        this.removeDependentFromOwners(existing, removed);
      }
      if (beingDeleted(obj)) existing.beingDeleted = true;
      this.processTransitions(e.oldObj, obj, existing);
      return;
    }

    // delete
    if (!found || !existing) {
      this.log.debug({ uid }, "item doesn't exist in the graph, this shouldn't happen");
      return;
    }
    let removeExisting = true;
    if (e.virtual) {
      const deleted = this.identityFromEvent(e);
      if (existing.virtual) {
        // Not sure of a virtual node's coordinates: dependents may name this UID differently.
        const { matching, nonmatching } = partitionDependents(existing.dependents, deleted);
        if (nonmatching.length > 0) {
          removeExisting = false;
          if (matching.length > 0) {
            this.opts.absentOwnerCache.add(deleted);
            for (const dep of matching) this.opts.attemptToDelete.add(dep);
          }
          if (sameReference(existing.identity, deleted)) {
            const replacement = alternateOwnerIdentity(nonmatching, deleted);
            if (replacement) {
              const r = existing.clone();
              r.identity = replacement;
              this.uidToNode.write(r);
              this.opts.attemptToDelete.addRateLimited(r);
            }
          }
        }
      } else if (!sameReference(existing.identity, deleted)) {
        // An observed node is not removed on the word of a virtual event for other coordinates.
        removeExisting = false;
        const { matching } = partitionDependents(existing.dependents, deleted);
        if (matching.length > 0) {
          this.opts.absentOwnerCache.add(deleted);
          for (const dep of matching) this.opts.attemptToDelete.add(dep);
        }
      }
    }
    if (!removeExisting) return;
    this.removeNode(existing);
    if (existing.dependents.size > 0) this.opts.absentOwnerCache.add(this.identityFromEvent(e));
    for (const dep of existing.dependents) this.opts.attemptToDelete.add(dep);
    for (const o of existing.owners) {
      const ownerNode = this.uidToNode.read(o.uid);
      // Lets a foreground-deleting owner check whether its last blocking dependent is gone.
      if (ownerNode?.deletingDependents) this.opts.attemptToDelete.add(ownerNode);
    }
  }
}

