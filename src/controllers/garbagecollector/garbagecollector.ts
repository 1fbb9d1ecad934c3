/**
 * The garbage collector (upstream pkg/controller/garbagecollector, garbagecollector.go and
 * operations.go).
 *
 * The GraphBuilder watches every deletable resource and keeps the owner → dependents graph;
 * workers take nodes from two rate-limited queues:
 * - attemptToDelete: an object whose owners may all be gone (verified by a live GET of each owner,
 *   by UID) is deleted; an object with some live owners keeps them and loses the references to the
 *   absent ones; an owner being deleted in the foreground loses its `foregroundDeletion` finalizer
 *   once no blocking dependent remains, after its blocking dependents were deleted (themselves in
 *   the foreground when they have dependents of their own);
 * - attemptToOrphan: an owner deleted with the `orphan` finalizer has its reference removed from
 *   every dependent, then the finalizer removed.
 *
 * Composed on the manager: the two queues are the queues of two builder-built controllers whose
 * requests are graph nodes (by reference, as upstream's queues hold node pointers) —
 * garbage_collector_attempt_to_delete and garbage_collector_attempt_to_orphan, `workers` workers
 * each — whose workers wait (through a raw source) until the monitors' initial lists are in, or
 * `initialSyncTimeoutMs` passed; the graph builder and the discovery loop are a runnable of the
 * same manager. The monitors are metadata-only informers (upstream's GC uses the metadata client):
 * the collector needs owner references, finalizers and deletion timestamps, never specs. Every API
 * call of a worker carries its reconcile's signal.
 *
 * Discovery is re-read every `resyncDiscoveryMs` (upstream: 30 s) so new CRDs are collected too.
 * Namespace deletion: the API server empties a terminating namespace itself (Background deletes);
 * the collector only sees those deletions as informer events (dependents' owners vanish, GETs
 * answer 404) and never recreates or blocks anything, so the two do not fight.
 */
import type { OwnerReference } from "../../apimachinery/api/meta/v1.js";
import type { Clock } from "../../apimachinery/clock.js";
import { deepEqual } from "../../apimachinery/equality.js";
import { isConflict, isNotFound, StatusError } from "../../apimachinery/errors.js";
import type { TypedObject } from "../../apimachinery/types.js";
import type { PropagationPolicy, ResourceClientFactory, ResourceDescriptor } from "../../client/interfaces.js";
import type { SharedInformerFactory } from "../../informers/factory.js";
import type { Controller } from "../../runtime/controller.js";
import { deleteOwnerRefStrategicMergePatch } from "../../runtime/controllerrefmanager.js";
import type { Logger } from "../../runtime/logging.js";
import type { Manager } from "../../runtime/manager.js";
import type { ReconcileResult } from "../../runtime/reconcile.js";
import type { RateLimitingQueue } from "../../workqueue/ratelimiting.js";
import { deletableResources, discover, DEFAULT_IGNORED_RESOURCES, KindMapper, type DiscoverySource } from "./discovery.js";
import { formatReference, referenceFromOwner, type GraphNode, type ObjectReference } from "./graph.js";
import { FINALIZER_DELETE_DEPENDENTS, FINALIZER_ORPHAN_DEPENDENTS, GraphBuilder } from "./graphbuilder.js";
import {
  deleteOwnerRefJSONMergePatch,
  finalizersPatch,
  unblockOwnerReferencesJSONMergePatch,
  unblockOwnerReferencesStrategicMergePatch,
} from "./patches.js";
import { ReferenceCache } from "./referencecache.js";

/** kube-controller-manager's --concurrent-gc-syncs default. */
export const DEFAULT_GC_WORKERS = 20;
/** How often discovery is re-read (kube-controller-manager passes 30 s to GarbageCollector.Sync). */
export const DEFAULT_DISCOVERY_RESYNC_MS = 30_000;
/** How long run() waits for the monitors' initial lists before collecting anyway. */
export const DEFAULT_INITIAL_SYNC_TIMEOUT_MS = 30_000;
/** client-go retry.DefaultBackoff.Steps: attempts of a finalizer removal that keeps conflicting. */
const UPDATE_MAX_RETRIES = 5;

/** A cluster-scoped object names a namespaced owner: invalid, and retrying will not help. */
export class NamespacedOwnerOfClusterScopedObjectError extends Error {
  constructor() {
    super("cluster-scoped objects cannot refer to namespaced owners");
    this.name = "NamespacedOwnerOfClusterScopedObjectError";
  }
}

/** attemptToDeleteItem's signal that it queued a virtual delete instead of acting. */
class EnqueuedVirtualDeleteEvent extends Error {
  constructor() {
    super("enqueued virtual delete event");
  }
}

export interface GarbageCollectorOptions {
  /** Where the collector learns which resources exist (re-read every resyncDiscoveryMs). */
  discovery: DiscoverySource;
  resyncDiscoveryMs?: number;
  initialSyncTimeoutMs?: number;
  /** Workers on each of the two queues (default 20, --concurrent-gc-syncs). */
  workers?: number;
  /** Resources never monitored (default: core and events.k8s.io events). */
  ignoredResources?: readonly { group: string; resource: string }[];
}

export type ItemAction = "forget" | "requeue";

interface Classified {
  solid: OwnerReference[];
  dangling: OwnerReference[];
  waitingForDependentsDeletion: OwnerReference[];
}

export class GarbageCollector {
  readonly attemptToDelete: RateLimitingQueue<GraphNode>;
  readonly attemptToOrphan: RateLimitingQueue<GraphNode>;
  /** The controllers working the two queues. */
  readonly deleteController: Controller<GraphNode>;
  readonly orphanController: Controller<GraphNode>;
  readonly absentOwnerCache = new ReferenceCache();
  readonly graphBuilder: GraphBuilder;
  private readonly client: ResourceClientFactory;
  private readonly discoverySource: DiscoverySource;
  readonly informers: SharedInformerFactory;
  private readonly clock: Clock;
  private readonly log: Logger;
  private readonly resyncMs: number;
  private readonly initialSyncTimeoutMs: number;
  private readonly ignored: readonly { group: string; resource: string }[];
  private mapper = new KindMapper();
  /** The deletable resources of the last discovery that changed the monitor set. */
  private monitoredKeys = new Map<string, ResourceDescriptor>();
  /** Resolves once the monitors' initial lists are in (or the initial sync timed out): the workers start then. */
  private readonly initialSync: { done: boolean; promise: Promise<void>; resolve: () => void };

  constructor(mgr: Manager, opts: GarbageCollectorOptions) {
    this.client = mgr.client;
    this.discoverySource = opts.discovery;
    this.clock = mgr.clock;
    this.log = mgr.logger.child({ controller: "garbagecollector" });
    this.informers = mgr.informers;
    this.resyncMs = opts.resyncDiscoveryMs ?? DEFAULT_DISCOVERY_RESYNC_MS;
    this.initialSyncTimeoutMs = opts.initialSyncTimeoutMs ?? DEFAULT_INITIAL_SYNC_TIMEOUT_MS;
    this.ignored = opts.ignoredResources ?? DEFAULT_IGNORED_RESOURCES;
    let resolve!: () => void;
    const promise = new Promise<void>((r) => (resolve = r));
    this.initialSync = { done: false, promise, resolve };
    const initialSync = {
      start: () => {},
      hasSynced: () => this.initialSync.done,
      waitForSync: async (signal?: AbortSignal) => {
        await Promise.race([this.initialSync.promise, new Promise<void>((r) => signal?.addEventListener("abort", () => r(), { once: true }))]);
        return this.initialSync.done;
      },
    };
    const queueController = (name: string, work: (n: GraphNode, client: ResourceClientFactory) => Promise<ItemAction>) =>
      mgr
        .controller<GraphNode>(name)
        .watchesRawSource(initialSync)
        .withOptions({
          maxConcurrentReconciles: opts.workers ?? DEFAULT_GC_WORKERS,
          describe: (n) => formatReference(n.identity),
          eventSource: "garbage-collector-controller",
        })
        .reconcile(async (n, ctx): Promise<ReconcileResult> => ((await work(n, ctx.client)) === "requeue" ? { requeue: true } : {}));
    this.deleteController = queueController("garbage_collector_attempt_to_delete", (n, c) => this.attemptToDeleteWorker(n, c));
    this.orphanController = queueController("garbage_collector_attempt_to_orphan", (n, c) => this.attemptToOrphanWorker(n, c));
    this.attemptToDelete = this.deleteController.queue;
    this.attemptToOrphan = this.orphanController.queue;
    this.graphBuilder = new GraphBuilder({
      informers: this.informers,
      attemptToDelete: this.attemptToDelete,
      attemptToOrphan: this.attemptToOrphan,
      absentOwnerCache: this.absentOwnerCache,
      logger: this.log,
      recorder: mgr.eventRecorder("garbage-collector-controller"),
    });
    mgr.add({ name: "garbage-collector-graph-builder", run: (signal) => this.runGraph(signal) });
  }

  /** The nodes of the dependency graph (for tests and debugging). */
  graph(): GraphNode[] {
    return this.graphBuilder.uidToNode.nodes();
  }

  /** Whether the graph has a node for the UID (upstream GraphHasUID). */
  graphHasUID(uid: string): boolean {
    return this.graphBuilder.uidToNode.read(uid) !== undefined;
  }

  isSynced(): boolean {
    return this.graphBuilder.isSynced();
  }

  /** The resources currently monitored. */
  monitoredResources(): ResourceDescriptor[] {
    return this.graphBuilder.monitoredResources();
  }

  /**
   * Reads discovery once and, when the deletable resources changed, rebuilds the kind mapping and
   * the monitor set (upstream Sync's body). Resources of group/versions discovery failed to list
   * keep their synced monitors. Returns whether the monitor set changed.
   */
  async resyncMonitors(signal?: AbortSignal): Promise<boolean> {
    let result;
    try {
      result = await discover(this.discoverySource, signal);
    } catch (err) {
      this.log.warn({ err }, "failed to discover preferred resources");
      return false;
    }
    if (result.failedGroupVersions.length > 0) this.log.info({ groups: result.failedGroupVersions }, "failed to discover some groups");
    const next = deletableResources(result.preferred, this.ignored);
    if (next.size === 0) {
      this.log.debug("no resources reported by discovery, skipping garbage collector sync");
      return false;
    }
    for (const [key, r] of this.monitoredKeys) {
      const gv = r.group ? `${r.group}/${r.version}` : r.version;
      if (result.failedGroupVersions.includes(gv) && this.graphBuilder.isResourceSynced(key)) next.set(key, r);
    }
    this.mapper = new KindMapper(result.all.length > 0 ? result.all : result.preferred);
    const same = next.size === this.monitoredKeys.size && [...next.keys()].every((k) => this.monitoredKeys.has(k));
    if (same) return false;
    const added = [...next.keys()].filter((k) => !this.monitoredKeys.has(k));
    const removed = [...this.monitoredKeys.keys()].filter((k) => !next.has(k));
    this.log.info({ added, removed }, "syncing garbage collector with updated resources from discovery");
    await this.graphBuilder.syncMonitors(next);
    this.monitoredKeys = next;
    return true;
  }

  /**
   * Runs the graph builder, reads discovery (then every resyncDiscoveryMs), and lets the workers
   * of both queues start once the monitors' initial lists are in or initialSyncTimeoutMs passed;
   * resolves once the signal aborted and everything stopped.
   */
  private async runGraph(signal: AbortSignal): Promise<void> {
    this.log.info("Starting controller");
    const builder = this.graphBuilder.run(signal);
    try {
      await this.resyncMonitors(signal);
      if (await this.waitForInitialSync(signal)) this.log.info("Garbage collector: all resource monitors have synced");
      else if (!signal.aborted) this.log.info("Garbage collector: not all resource monitors could be synced, proceeding anyways");
      this.log.info("Proceeding to collect garbage");
      this.initialSync.done = true;
      this.initialSync.resolve();
      await this.discoveryLoop(signal);
    } finally {
      await builder;
      this.log.info("Shutting down controller");
    }
  }

  private async waitForInitialSync(signal: AbortSignal): Promise<boolean> {
    const timeout = new AbortController();
    const timer = this.clock.setTimer(this.initialSyncTimeoutMs, () => timeout.abort());
    const onAbort = () => timeout.abort();
    signal.addEventListener("abort", onAbort, { once: true });
    try {
      return await this.graphBuilder.waitForInformers(timeout.signal);
    } finally {
      timer.cancel();
      signal.removeEventListener("abort", onAbort);
    }
  }

  private async discoveryLoop(signal: AbortSignal): Promise<void> {
    for (;;) {
      try {
        await this.clock.sleep(this.resyncMs, signal);
      } catch {
        return;
      }
      try {
        await this.resyncMonitors(signal);
      } catch (err) {
        this.log.error({ err }, "failed to sync resource monitors");
      }
    }
  }

  // ---- attemptToDelete ----

  /** One attemptToDelete item: forget it or requeue it (upstream attemptToDeleteWorker). */
  async attemptToDeleteWorker(item: GraphNode, client: ResourceClientFactory = this.client): Promise<ItemAction> {
    let n = item;
    if (!n.isObserved()) {
      const fromGraph = this.graphBuilder.uidToNode.read(n.identity.uid);
      if (!fromGraph) {
        this.log.debug({ item: formatReference(n.identity) }, "item no longer in the graph, skipping attemptToDeleteItem");
        return "forget";
      }
      if (fromGraph.isObserved()) {
        this.log.debug({ item: formatReference(n.identity) }, "item no longer virtual in the graph, skipping attemptToDeleteItem on virtual node");
        return "forget";
      }
    }
    const fromGraph = this.graphBuilder.uidToNode.read(n.identity.uid);
    if (fromGraph && (fromGraph.identity.apiVersion !== n.identity.apiVersion || fromGraph.identity.kind !== n.identity.kind)) {
      n = n.clone();
      n.identity = { ...n.identity, apiVersion: fromGraph.identity.apiVersion, kind: fromGraph.identity.kind };
    }
    try {
      await this.attemptToDeleteItem(n, client);
    } catch (err) {
      if (err instanceof EnqueuedVirtualDeleteEvent || err instanceof NamespacedOwnerOfClusterScopedObjectError) return "forget";
      this.log.error({ err, item: formatReference(n.identity) }, "error syncing item");
      return "requeue";
    }
    if (!n.isObserved()) {
      // Keep polling a virtual node until an informer reports the object (issue 56121).
      this.log.debug({ item: formatReference(n.identity) }, "item hasn't been observed via informer yet");
      return "requeue";
    }
    return "forget";
  }

  /**
   * Looks the object up live and deletes it if every owner is gone, trims references to absent
   * owners if some remain, or drives a foreground deletion it is part of. Throws
   * EnqueuedVirtualDeleteEvent when the object itself turned out not to exist.
   */
  async attemptToDeleteItem(item: GraphNode, client: ResourceClientFactory = this.client): Promise<void> {
    this.log.debug({ item: formatReference(item.identity), virtual: !item.isObserved() }, "Processing item");
    // Being deleted is a one-way trip: wait for the final deletion, then handle the dependents.
    if (item.beingDeleted && !item.deletingDependents) return;

    let latest: TypedObject;
    try {
      latest = await this.getObject(item.identity, client);
    } catch (err) {
      if (isNotFound(err)) {
        this.graphBuilder.enqueueVirtualDeleteEvent(item.identity);
        throw new EnqueuedVirtualDeleteEvent();
      }
      throw err;
    }
    if (latest.metadata?.uid !== item.identity.uid) {
      this.graphBuilder.enqueueVirtualDeleteEvent(item.identity);
      throw new EnqueuedVirtualDeleteEvent();
    }

    if (item.deletingDependents) {
      await this.processDeletingDependentsItem(item, client);
      return;
    }

    const ownerReferences = latest.metadata?.ownerReferences ?? [];
    if (ownerReferences.length === 0) {
      this.log.debug({ item: formatReference(item.identity) }, "item doesn't have an owner, continue on next item");
      return;
    }

    const { solid, dangling, waitingForDependentsDeletion } = await this.classifyReferences(item, ownerReferences, client);
    this.log.debug(
      { item: formatReference(item.identity), solid: solid.map((r) => r.uid), dangling: dangling.map((r) => r.uid), waiting: waitingForDependentsDeletion.map((r) => r.uid) },
      "classify item's references",
    );

    if (solid.length > 0) {
      if (dangling.length === 0 && waitingForDependentsDeletion.length === 0) return;
      // References to owners waiting for their dependents go too, or those owners would wait forever.
      const ownerUIDs = [...dangling, ...waitingForDependentsDeletion].map((r) => r.uid);
      this.log.info({ item: formatReference(item.identity), ownerUIDs }, "remove dangling references and waiting references for item");
      await this.patchWithFallback(item, deleteOwnerRefStrategicMergePatch(item.identity.uid, ownerUIDs), (cur) => deleteOwnerRefJSONMergePatch(cur, ownerUIDs), client);
      return;
    }

    if (waitingForDependentsDeletion.length > 0 && item.dependents.size > 0) {
      for (const dep of item.dependents) {
        if (!dep.deletingDependents) continue;
        // A possible cycle: make this item's references non-blocking before deleting it in the foreground.
        this.log.info({ item: formatReference(item.identity), dependent: formatReference(dep.identity) }, "unblocking item's owner references to prevent a deletion cycle");
        await this.patchWithFallback(
          item,
          unblockOwnerReferencesStrategicMergePatch(item.identity.uid, item.owners),
          (cur) => unblockOwnerReferencesJSONMergePatch(cur, item.owners),
          client,
        );
        break;
      }
      this.log.info({ item: formatReference(item.identity) }, "at least one owner of item has FinalizerDeletingDependents, and the item itself has dependents, so it is going to be deleted in Foreground");
      await this.deleteOrVirtual(item, latest, "Foreground", client);
      return;
    }

    // No solid owner left: collect the item, honouring a propagation finalizer it already carries.
    const finalizers = latest.metadata?.finalizers ?? [];
    const policy: PropagationPolicy = finalizers.includes(FINALIZER_ORPHAN_DEPENDENTS)
      ? "Orphan"
      : finalizers.includes(FINALIZER_DELETE_DEPENDENTS)
        ? "Foreground"
        : "Background";
    this.log.info({ item: formatReference(item.identity), propagationPolicy: policy }, "Deleting item");
    await this.deleteOrVirtual(item, latest, policy, client);
  }

  private async deleteOrVirtual(item: GraphNode, latest: TypedObject, policy: PropagationPolicy, client: ResourceClientFactory): Promise<void> {
    try {
      await this.deleteObject(item.identity, latest.metadata?.resourceVersion ?? "", latest.metadata?.ownerReferences ?? [], policy, client);
    } catch (err) {
      if (isNotFound(err)) {
        this.graphBuilder.enqueueVirtualDeleteEvent(item.identity);
        throw new EnqueuedVirtualDeleteEvent();
      }
      throw err;
    }
  }

  /** Owner waiting for its dependents: delete the blocking ones, or release the owner when none are left. */
  private async processDeletingDependentsItem(item: GraphNode, client: ResourceClientFactory): Promise<void> {
    const blocking = item.blockingDependents();
    if (blocking.length === 0) {
      this.log.info({ item: formatReference(item.identity) }, "remove DeleteDependents finalizer for item");
      await this.removeFinalizer(item, FINALIZER_DELETE_DEPENDENTS, client);
      return;
    }
    for (const dep of blocking) {
      if (!dep.deletingDependents) this.attemptToDelete.add(dep);
    }
  }

  /**
   * Whether an owner reference points at nothing: the absent-owner cache knows it, the GET answers
   * 404, or the object found has another UID. Returns the owner when it exists.
   */
  private async isDangling(reference: OwnerReference, item: GraphNode, client: ResourceClientFactory): Promise<{ dangling: boolean; owner?: TypedObject }> {
    const cacheKey: ObjectReference = referenceFromOwner(reference, "");
    if (this.absentOwnerCache.has(cacheKey)) return { dangling: true };
    cacheKey.namespace = item.identity.namespace;
    if (this.absentOwnerCache.has(cacheKey)) return { dangling: true };

    const resource = this.mapper.resourceFor(reference.apiVersion, reference.kind);
    if (!resource.namespaced) cacheKey.namespace = "";
    if (item.identity.namespace === "" && resource.namespaced) {
      this.log.info({ item: formatReference(item.identity), owner: reference.uid }, "item is cluster-scoped, but refers to a namespaced owner");
      throw new NamespacedOwnerOfClusterScopedObjectError();
    }
    let owner: TypedObject;
    try {
      owner = await client.resource(resource, resource.namespaced ? item.identity.namespace : "").get(reference.name);
    } catch (err) {
      if (isNotFound(err)) {
        this.absentOwnerCache.add(cacheKey);
        return { dangling: true };
      }
      throw err;
    }
    if (owner.metadata?.uid !== reference.uid) {
      this.absentOwnerCache.add(cacheKey);
      return { dangling: true };
    }
    return { dangling: false, owner };
  }

  /** solid: the owner exists and is not deleting dependents; dangling: it does not exist; waiting: it is being deleted in the foreground. */
  private async classifyReferences(item: GraphNode, refs: readonly OwnerReference[], client: ResourceClientFactory): Promise<Classified> {
    const out: Classified = { solid: [], dangling: [], waitingForDependentsDeletion: [] };
    for (const ref of refs) {
      const { dangling, owner } = await this.isDangling(ref, item, client);
      if (dangling) out.dangling.push(ref);
      else if (owner?.metadata?.deletionTimestamp && (owner.metadata.finalizers ?? []).includes(FINALIZER_DELETE_DEPENDENTS)) {
        out.waitingForDependentsDeletion.push(ref);
      } else out.solid.push(ref);
    }
    return out;
  }

  // ---- attemptToOrphan ----

  /** Removes the owner from every dependent's references, then the owner's orphan finalizer. */
  async attemptToOrphanWorker(owner: GraphNode, client: ResourceClientFactory = this.client): Promise<ItemAction> {
    const dependents = [...owner.dependents];
    try {
      await this.orphanDependents(owner.identity, dependents, client);
    } catch (err) {
      this.log.error({ err, owner: formatReference(owner.identity) }, "orphanDependents failed");
      return "requeue";
    }
    try {
      await this.removeFinalizer(owner, FINALIZER_ORPHAN_DEPENDENTS, client);
    } catch (err) {
      this.log.error({ err, owner: formatReference(owner.identity) }, "removeOrphanFinalizer failed");
      return "requeue";
    }
    return "forget";
  }

  private async orphanDependents(owner: ObjectReference, dependents: readonly GraphNode[], client: ResourceClientFactory): Promise<void> {
    const results = await Promise.allSettled(
      dependents.map((dep) =>
        this.patchWithFallback(dep, deleteOwnerRefStrategicMergePatch(dep.identity.uid, [owner.uid]), (cur) => deleteOwnerRefJSONMergePatch(cur, [owner.uid]), client),
      ),
    );
    const errors: string[] = [];
    results.forEach((r, i) => {
      // A dependent already gone needs no orphaning.
      if (r.status === "rejected" && !isNotFound(r.reason)) errors.push(`orphaning ${formatReference(dependents[i].identity)} failed, ${messageOf(r.reason)}`);
    });
    if (errors.length > 0) throw new Error(`failed to orphan dependents of owner ${formatReference(owner)}, got errors: [${errors.join(", ")}]`);
    this.log.debug({ owner: formatReference(owner) }, "successfully updated all dependents");
  }

  // ---- API operations (upstream operations.go) ----

  private clientFor(ref: ObjectReference, factory: ResourceClientFactory) {
    const resource = this.mapper.resourceFor(ref.apiVersion, ref.kind);
    const ns = resource.namespaced ? ref.namespace : "";
    if (resource.namespaced && ns === "") throw new NamespacedOwnerOfClusterScopedObjectError();
    return { resource, client: factory.resource(resource, ns) };
  }

  private async getObject(ref: ObjectReference, factory: ResourceClientFactory): Promise<TypedObject> {
    return this.clientFor(ref, factory).client.get(ref.name);
  }

  /**
   * Deletes with the UID (and, when known, resourceVersion) as preconditions. If only the
   * resourceVersion moved on and the owner references are unchanged, deletes again without it.
   */
  private async deleteObject(
    ref: ObjectReference,
    resourceVersion: string,
    ownersAtResourceVersion: readonly OwnerReference[],
    policy: PropagationPolicy,
    factory: ResourceClientFactory,
  ): Promise<void> {
    const { client } = this.clientFor(ref, factory);
    try {
      await client.delete(ref.name, { propagationPolicy: policy, preconditions: { uid: ref.uid, ...(resourceVersion ? { resourceVersion } : {}) } });
    } catch (err) {
      if (!(isConflict(err) && resourceVersion)) throw err;
      let live: TypedObject;
      try {
        live = await client.get(ref.name);
      } catch (getErr) {
        if (isNotFound(getErr)) return;
        throw err;
      }
      if (
        live.metadata?.uid === ref.uid &&
        live.metadata?.resourceVersion !== resourceVersion &&
        deepEqual(live.metadata?.ownerReferences ?? [], ownersAtResourceVersion)
      ) {
        await this.deleteObject(ref, "", [], policy, factory);
        return;
      }
      throw err;
    }
  }

  /** A strategic merge patch, or the JSON merge patch fallback when the resource refuses SMP (415). */
  private async patchWithFallback(item: GraphNode, smp: unknown, jmp: (current: TypedObject) => unknown, factory: ResourceClientFactory): Promise<TypedObject> {
    const { resource, client } = this.clientFor(item.identity, factory);
    try {
      return await client.patch(item.identity.name, "strategic", smp);
    } catch (err) {
      if (!(err instanceof StatusError && err.code === 415)) throw err;
    }
    const current = this.graphBuilder.cachedObject(resource, resource.namespaced ? item.identity.namespace : "", item.identity.name) ?? (await client.get(item.identity.name));
    return client.patch(item.identity.name, "merge", jmp(current));
  }

  /** Removes one finalizer with a resourceVersion-guarded merge patch, re-reading on conflicts. */
  private async removeFinalizer(owner: GraphNode, finalizer: string, factory: ResourceClientFactory): Promise<void> {
    for (let attempt = 0; attempt < UPDATE_MAX_RETRIES; attempt++) {
      let obj: TypedObject;
      try {
        obj = await this.getObject(owner.identity, factory);
      } catch (err) {
        if (isNotFound(err)) return;
        throw new Error(`cannot finalize owner ${formatReference(owner.identity)}, because cannot get it: ${messageOf(err)}. The garbage collector will retry later`);
      }
      const finalizers = obj.metadata?.finalizers ?? [];
      if (!finalizers.includes(finalizer)) {
        this.log.debug({ finalizer, object: formatReference(owner.identity) }, "finalizer already removed from object");
        return;
      }
      const patch = finalizersPatch(obj.metadata?.resourceVersion ?? "", finalizers.filter((f) => f !== finalizer));
      try {
        await this.clientFor(owner.identity, factory).client.patch(owner.identity.name, "merge", patch);
        return;
      } catch (err) {
        if (isNotFound(err)) return;
        if (!isConflict(err)) throw err;
      }
    }
    throw new Error(`updateMaxRetries(${UPDATE_MAX_RETRIES}) has reached. The garbage collector will retry later for owner ${formatReference(owner.identity)}`);
  }
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
