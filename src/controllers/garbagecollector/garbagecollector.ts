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
 * Discovery is re-read every `resyncDiscoveryMs` (upstream: 30 s) so new CRDs are collected too.
 * Namespace deletion: the API server empties a terminating namespace itself (Background deletes);
 * the collector only sees those deletions as informer events (dependents' owners vanish, GETs
 * answer 404) and never recreates or blocks anything, so the two do not fight.
 */
import { setMaxListeners } from "node:events";
import type { OwnerReference } from "kubernetes-types/meta/v1.js";
import type { Clock } from "../../apimachinery/clock.js";
import { realClock } from "../../apimachinery/clock.js";
import { deepEqual } from "../../apimachinery/equality.js";
import { isConflict, isNotFound, StatusError } from "../../apimachinery/errors.js";
import type { TypedObject } from "../../apimachinery/types.js";
import type { PropagationPolicy, ResourceClientFactory, ResourceDescriptor } from "../../client/interfaces.js";
import type { EventRecorder } from "../../events/broadcaster.js";
import { SharedInformerFactory } from "../../informers/factory.js";
import { defaultControllerRateLimiter } from "../../workqueue/ratelimiters.js";
import { RateLimitingQueue } from "../../workqueue/ratelimiting.js";
import { deletableResources, discover, DEFAULT_IGNORED_RESOURCES, KindMapper, RestMappingError, type DiscoverySource } from "./discovery.js";
import { formatReference, referenceFromOwner, type GraphNode, type ObjectReference } from "./graph.js";
import { FINALIZER_DELETE_DEPENDENTS, FINALIZER_ORPHAN_DEPENDENTS, GraphBuilder } from "./graphbuilder.js";
import { errorText, silentLogger, type Logger } from "./logger.js";
import {
  deleteOwnerRefJSONMergePatch,
  deleteOwnerRefStrategicMergePatch,
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
  /** A KubeClient, DynamicClient or FakeClient. */
  client: ResourceClientFactory;
  /** Where the collector learns which resources exist (re-read every resyncDiscoveryMs). */
  discovery: DiscoverySource;
  /** Shared informers to monitor through; a private factory over `client` when absent. */
  informers?: SharedInformerFactory;
  clock?: Clock;
  logger?: Logger;
  /** Receives the OwnerRefInvalidNamespace warnings. */
  recorder?: EventRecorder;
  resyncDiscoveryMs?: number;
  initialSyncTimeoutMs?: number;
  /** Default worker count for run(). */
  workers?: number;
  /** Resources never monitored (default: core and events.k8s.io events). */
  ignoredResources?: readonly { group: string; resource: string }[];
}

type ItemAction = "forget" | "requeue";

interface Classified {
  solid: OwnerReference[];
  dangling: OwnerReference[];
  waitingForDependentsDeletion: OwnerReference[];
}

export class GarbageCollector {
  readonly attemptToDelete: RateLimitingQueue<GraphNode>;
  readonly attemptToOrphan: RateLimitingQueue<GraphNode>;
  readonly absentOwnerCache = new ReferenceCache();
  readonly graphBuilder: GraphBuilder;
  private readonly client: ResourceClientFactory;
  private readonly discoverySource: DiscoverySource;
  readonly informers: SharedInformerFactory;
  private readonly clock: Clock;
  private readonly log: Logger;
  private readonly resyncMs: number;
  private readonly initialSyncTimeoutMs: number;
  private readonly defaultWorkers: number;
  private readonly ignored: readonly { group: string; resource: string }[];
  private mapper = new KindMapper();
  /** The deletable resources of the last discovery that changed the monitor set. */
  private monitoredKeys = new Map<string, ResourceDescriptor>();

  constructor(opts: GarbageCollectorOptions) {
    this.client = opts.client;
    this.discoverySource = opts.discovery;
    this.clock = opts.clock ?? realClock;
    this.log = opts.logger ?? silentLogger;
    this.informers = opts.informers ?? new SharedInformerFactory(opts.client, { clock: this.clock });
    this.resyncMs = opts.resyncDiscoveryMs ?? DEFAULT_DISCOVERY_RESYNC_MS;
    this.initialSyncTimeoutMs = opts.initialSyncTimeoutMs ?? DEFAULT_INITIAL_SYNC_TIMEOUT_MS;
    this.defaultWorkers = opts.workers ?? DEFAULT_GC_WORKERS;
    this.ignored = opts.ignoredResources ?? DEFAULT_IGNORED_RESOURCES;
    const queue = (name: string) =>
      new RateLimitingQueue<GraphNode>(defaultControllerRateLimiter<GraphNode>(this.clock), { name, clock: this.clock });
    this.attemptToDelete = queue("garbage_collector_attempt_to_delete");
    this.attemptToOrphan = queue("garbage_collector_attempt_to_orphan");
    this.graphBuilder = new GraphBuilder({
      informers: this.informers,
      attemptToDelete: this.attemptToDelete,
      attemptToOrphan: this.attemptToOrphan,
      absentOwnerCache: this.absentOwnerCache,
      logger: this.log,
      recorder: opts.recorder,
    });
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
      this.log.warn({ err: errorText(err) }, "failed to discover preferred resources");
      return false;
    }
    if (result.failedGroupVersions.length > 0) this.log.info({ groups: result.failedGroupVersions }, "failed to discover some groups");
    const next = deletableResources(result.preferred, this.ignored);
    if (next.size === 0) {
      this.log.debug({}, "no resources reported by discovery, skipping garbage collector sync");
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
   * Runs the graph builder, re-reads discovery periodically, and runs `workers` workers on each
   * queue until `signal` aborts; resolves once everything has stopped.
   */
  async run(outer: AbortSignal, workers = this.defaultWorkers): Promise<void> {
    this.log.info({ controller: "garbagecollector" }, "Starting controller");
    // One listener on the caller's signal; the many internal waits listen to our own.
    const internal = new AbortController();
    setMaxListeners(0, internal.signal);
    const forward = () => internal.abort(outer.reason);
    if (outer.aborted) forward();
    else outer.addEventListener("abort", forward, { once: true });
    const signal = internal.signal;
    const builder = this.graphBuilder.run(signal);
    const onAbort = () => {
      this.attemptToDelete.shutDown();
      this.attemptToOrphan.shutDown();
    };
    signal.addEventListener("abort", onAbort, { once: true });
    if (signal.aborted) onAbort();
    const tasks: Promise<void>[] = [builder];
    try {
      await this.resyncMonitors(signal);
      if (await this.waitForInitialSync(signal)) this.log.info({}, "Garbage collector: all resource monitors have synced");
      else if (!signal.aborted) this.log.info({}, "Garbage collector: not all resource monitors could be synced, proceeding anyways");
      this.log.info({}, "Proceeding to collect garbage");
      tasks.push(this.discoveryLoop(signal));
      for (let i = 0; i < workers; i++) {
        tasks.push(this.worker(this.attemptToDelete, (n) => this.attemptToDeleteWorker(n), signal));
        tasks.push(this.worker(this.attemptToOrphan, (n) => this.attemptToOrphanWorker(n), signal));
      }
      await new Promise<void>((resolve) => {
        if (signal.aborted) resolve();
        else signal.addEventListener("abort", () => resolve(), { once: true });
      });
    } finally {
      onAbort();
      signal.removeEventListener("abort", onAbort);
      outer.removeEventListener("abort", forward);
      await Promise.all(tasks);
      this.log.info({ controller: "garbagecollector" }, "Shutting down controller");
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
        this.log.error({ err: errorText(err) }, "failed to sync resource monitors");
      }
    }
  }

  private async worker(queue: RateLimitingQueue<GraphNode>, process: (n: GraphNode) => Promise<ItemAction>, signal: AbortSignal): Promise<void> {
    for (;;) {
      const r = await queue.get();
      if (r.shutdown) return;
      try {
        if (signal.aborted) continue;
        const action = await process(r.item);
        if (action === "forget") queue.forget(r.item);
        else queue.addRateLimited(r.item);
      } catch (err) {
        // process() reports its own errors; this is a last line of defence.
        this.log.error({ err: errorText(err) }, "garbage collector worker failed");
        queue.addRateLimited(r.item);
      } finally {
        queue.done(r.item);
      }
    }
  }

  // ---- attemptToDelete ----

  /** One attemptToDelete item: forget it or requeue it (upstream attemptToDeleteWorker). */
  async attemptToDeleteWorker(item: GraphNode): Promise<ItemAction> {
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
      await this.attemptToDeleteItem(n);
    } catch (err) {
      if (err instanceof EnqueuedVirtualDeleteEvent || err instanceof NamespacedOwnerOfClusterScopedObjectError) return "forget";
      if (err instanceof RestMappingError) this.log.error({ err: err.message, item: formatReference(n.identity) }, "error syncing item");
      else this.log.error({ err: errorText(err), item: formatReference(n.identity) }, "error syncing item");
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
  async attemptToDeleteItem(item: GraphNode): Promise<void> {
    this.log.debug({ item: formatReference(item.identity), virtual: !item.isObserved() }, "Processing item");
    // Being deleted is a one-way trip: wait for the final deletion, then handle the dependents.
    if (item.beingDeleted && !item.deletingDependents) return;

    let latest: TypedObject;
    try {
      latest = await this.getObject(item.identity);
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
      await this.processDeletingDependentsItem(item);
      return;
    }

    const ownerReferences = latest.metadata?.ownerReferences ?? [];
    if (ownerReferences.length === 0) {
      this.log.debug({ item: formatReference(item.identity) }, "item doesn't have an owner, continue on next item");
      return;
    }

    const { solid, dangling, waitingForDependentsDeletion } = await this.classifyReferences(item, ownerReferences);
    this.log.debug(
      { item: formatReference(item.identity), solid: solid.map((r) => r.uid), dangling: dangling.map((r) => r.uid), waiting: waitingForDependentsDeletion.map((r) => r.uid) },
      "classify item's references",
    );

    if (solid.length > 0) {
      if (dangling.length === 0 && waitingForDependentsDeletion.length === 0) return;
      // References to owners waiting for their dependents go too, or those owners would wait forever.
      const ownerUIDs = [...dangling, ...waitingForDependentsDeletion].map((r) => r.uid);
      this.log.info({ item: formatReference(item.identity), ownerUIDs }, "remove dangling references and waiting references for item");
      await this.patchWithFallback(item, deleteOwnerRefStrategicMergePatch(item.identity.uid, ownerUIDs), (cur) => deleteOwnerRefJSONMergePatch(cur, ownerUIDs));
      return;
    }

    if (waitingForDependentsDeletion.length > 0 && item.dependents.size > 0) {
      for (const dep of item.dependents) {
        if (!dep.deletingDependents) continue;
        // A possible cycle: make this item's references non-blocking before deleting it in the foreground.
        this.log.info({ item: formatReference(item.identity), dependent: formatReference(dep.identity) }, "unblocking item's owner references to prevent a deletion cycle");
        await this.patchWithFallback(item, unblockOwnerReferencesStrategicMergePatch(item.identity.uid, item.owners), (cur) =>
          unblockOwnerReferencesJSONMergePatch(cur, item.owners),
        );
        break;
      }
      this.log.info({ item: formatReference(item.identity) }, "at least one owner of item has FinalizerDeletingDependents, and the item itself has dependents, so it is going to be deleted in Foreground");
      await this.deleteOrVirtual(item, latest, "Foreground");
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
    await this.deleteOrVirtual(item, latest, policy);
  }

  private async deleteOrVirtual(item: GraphNode, latest: TypedObject, policy: PropagationPolicy): Promise<void> {
    try {
      await this.deleteObject(item.identity, latest.metadata?.resourceVersion ?? "", latest.metadata?.ownerReferences ?? [], policy);
    } catch (err) {
      if (isNotFound(err)) {
        this.graphBuilder.enqueueVirtualDeleteEvent(item.identity);
        throw new EnqueuedVirtualDeleteEvent();
      }
      throw err;
    }
  }

  /** Owner waiting for its dependents: delete the blocking ones, or release the owner when none are left. */
  private async processDeletingDependentsItem(item: GraphNode): Promise<void> {
    const blocking = item.blockingDependents();
    if (blocking.length === 0) {
      this.log.info({ item: formatReference(item.identity) }, "remove DeleteDependents finalizer for item");
      await this.removeFinalizer(item, FINALIZER_DELETE_DEPENDENTS);
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
  private async isDangling(reference: OwnerReference, item: GraphNode): Promise<{ dangling: boolean; owner?: TypedObject }> {
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
      owner = await this.client.resource(resource, resource.namespaced ? item.identity.namespace : "").get(reference.name);
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
  private async classifyReferences(item: GraphNode, refs: readonly OwnerReference[]): Promise<Classified> {
    const out: Classified = { solid: [], dangling: [], waitingForDependentsDeletion: [] };
    for (const ref of refs) {
      const { dangling, owner } = await this.isDangling(ref, item);
      if (dangling) out.dangling.push(ref);
      else if (owner?.metadata?.deletionTimestamp && (owner.metadata.finalizers ?? []).includes(FINALIZER_DELETE_DEPENDENTS)) {
        out.waitingForDependentsDeletion.push(ref);
      } else out.solid.push(ref);
    }
    return out;
  }

  // ---- attemptToOrphan ----

  /** Removes the owner from every dependent's references, then the owner's orphan finalizer. */
  async attemptToOrphanWorker(owner: GraphNode): Promise<ItemAction> {
    const dependents = [...owner.dependents];
    try {
      await this.orphanDependents(owner.identity, dependents);
    } catch (err) {
      this.log.error({ err: errorText(err), owner: formatReference(owner.identity) }, "orphanDependents failed");
      return "requeue";
    }
    try {
      await this.removeFinalizer(owner, FINALIZER_ORPHAN_DEPENDENTS);
    } catch (err) {
      this.log.error({ err: errorText(err), owner: formatReference(owner.identity) }, "removeOrphanFinalizer failed");
      return "requeue";
    }
    return "forget";
  }

  private async orphanDependents(owner: ObjectReference, dependents: readonly GraphNode[]): Promise<void> {
    const results = await Promise.allSettled(
      dependents.map((dep) =>
        this.patchWithFallback(dep, deleteOwnerRefStrategicMergePatch(dep.identity.uid, [owner.uid]), (cur) => deleteOwnerRefJSONMergePatch(cur, [owner.uid])),
      ),
    );
    const errors: string[] = [];
    results.forEach((r, i) => {
      // A dependent already gone needs no orphaning.
      if (r.status === "rejected" && !isNotFound(r.reason)) errors.push(`orphaning ${formatReference(dependents[i].identity)} failed, ${errorText(r.reason)}`);
    });
    if (errors.length > 0) throw new Error(`failed to orphan dependents of owner ${formatReference(owner)}, got errors: [${errors.join(", ")}]`);
    this.log.debug({ owner: formatReference(owner) }, "successfully updated all dependents");
  }

  // ---- API operations (upstream operations.go) ----

  private clientFor(ref: ObjectReference) {
    const resource = this.mapper.resourceFor(ref.apiVersion, ref.kind);
    const ns = resource.namespaced ? ref.namespace : "";
    if (resource.namespaced && ns === "") throw new NamespacedOwnerOfClusterScopedObjectError();
    return { resource, client: this.client.resource<TypedObject>(resource, ns) };
  }

  private async getObject(ref: ObjectReference): Promise<TypedObject> {
    return this.clientFor(ref).client.get(ref.name);
  }

  /**
   * Deletes with the UID (and, when known, resourceVersion) as preconditions. If only the
   * resourceVersion moved on and the owner references are unchanged, deletes again without it.
   */
  private async deleteObject(ref: ObjectReference, resourceVersion: string, ownersAtResourceVersion: readonly OwnerReference[], policy: PropagationPolicy): Promise<void> {
    const { client } = this.clientFor(ref);
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
        await this.deleteObject(ref, "", [], policy);
        return;
      }
      throw err;
    }
  }

  /** A strategic merge patch, or the JSON merge patch fallback when the resource refuses SMP (415). */
  private async patchWithFallback(item: GraphNode, smp: unknown, jmp: (current: TypedObject) => unknown): Promise<TypedObject> {
    const { resource, client } = this.clientFor(item.identity);
    try {
      return await client.patch(item.identity.name, "strategic", smp);
    } catch (err) {
      if (!(err instanceof StatusError && err.code === 415)) throw err;
    }
    const current = this.graphBuilder.cachedObject(resource, resource.namespaced ? item.identity.namespace : "", item.identity.name) ?? (await client.get(item.identity.name));
    return client.patch(item.identity.name, "merge", jmp(current));
  }

  /** Removes one finalizer with a resourceVersion-guarded merge patch, re-reading on conflicts. */
  private async removeFinalizer(owner: GraphNode, finalizer: string): Promise<void> {
    for (let attempt = 0; attempt < UPDATE_MAX_RETRIES; attempt++) {
      let obj: TypedObject;
      try {
        obj = await this.getObject(owner.identity);
      } catch (err) {
        if (isNotFound(err)) return;
        throw new Error(`cannot finalize owner ${formatReference(owner.identity)}, because cannot get it: ${errorText(err)}. The garbage collector will retry later`);
      }
      const finalizers = obj.metadata?.finalizers ?? [];
      if (!finalizers.includes(finalizer)) {
        this.log.debug({ finalizer, object: formatReference(owner.identity) }, "finalizer already removed from object");
        return;
      }
      const patch = finalizersPatch(obj.metadata?.resourceVersion ?? "", finalizers.filter((f) => f !== finalizer));
      try {
        await this.clientFor(owner.identity).client.patch(owner.identity.name, "merge", patch);
        return;
      } catch (err) {
        if (isNotFound(err)) return;
        if (!isConflict(err)) throw err;
      }
    }
    throw new Error(`updateMaxRetries(${UPDATE_MAX_RETRIES}) has reached. The garbage collector will retry later for owner ${formatReference(owner.identity)}`);
  }
}

