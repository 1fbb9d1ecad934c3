/**
 * The ReplicaSet controller (upstream pkg/controller/replicaset/replica_set.go): keeps the number
 * of active pods a ReplicaSet controls equal to spec.replicas, and reports what it sees in status.
 *
 * Flow: informer events for ReplicaSets and pods enqueue ReplicaSet keys ("ns/name"); a worker
 * runs syncReplicaSet(key):
 *   1. read the ReplicaSet from the cache (gone → forget its expectations, done);
 *   2. list the namespace's active pods, claim them (adopt matching orphans, release owned pods
 *      that no longer match) through the ControllerRefManager;
 *   3. only if the expectations of earlier creates/deletes were all observed (or expired), create
 *      the missing pods (slow start, at most burstReplicas per sync) or delete the excess ones
 *      (by upstream's ranking), recording new expectations first;
 *   4. compute status and write it if it changed; requeue after minReadySeconds while pods are
 *      ready but not yet available.
 *
 * Composed with the builder: watches(replicaSets) (its own key; a deletion — or a new UID under the
 * same name — forgets the expectations first) and watches(pods) with upstream's addPod /
 * updatePod / deletePod (observing expectations, and re-checking after minReadySeconds through the
 * queue's addAfter). Pods are created and deleted through the reconcile's signal-bound client.
 *
 * Invariant (expectations): between a sync that issues N creates (or deletes of pods P) and the
 * informer delivering those N pod additions (or P's deletions), the ReplicaSet is not managed
 * again — so a stale cache can never make it double-create or double-delete. Creates that fail or
 * are skipped lower the expectation at once, since no event will ever come for them.
 */
import type { ReplicaSet } from "../../apimachinery/api/apps/v1.js";
import type { Pod } from "../../apimachinery/api/core/v1.js";
import type { OwnerReference } from "../../apimachinery/api/meta/v1.js";
import type { Clock } from "../../apimachinery/clock.js";
import { deepCopy } from "../../apimachinery/deepcopy.js";
import { deepEqual } from "../../apimachinery/equality.js";
import { isNotFound } from "../../apimachinery/errors.js";
import type { GroupVersionKind } from "../../apimachinery/gvk.js";
import { labelSelectorAsSelector, labelsEqual, type Selector } from "../../apimachinery/labels.js";
import { metaNamespaceKey, ObjectName } from "../../apimachinery/objectname.js";
import { getControllerOf, newControllerRef } from "../../apimachinery/ownerrefs.js";
import type { ResourceClient, ResourceClientFactory } from "../../client/interfaces.js";
import { builtin } from "../../client/typed.js";
import type { EventRecorder } from "../../events/broadcaster.js";
import { objectFromDeletion } from "../../informers/handlers.js";
import type { Lister } from "../../informers/lister.js";
import type { SharedIndexInformer } from "../../informers/sharedinformer.js";
import { CONTROLLER_UID_INDEX, DeletedFinalStateUnknown } from "../../informers/store.js";
import type { Controller } from "../../runtime/controller.js";
import { ControllerRefManager, recheckDeletionTimestamp, resolveControllerRef, selectingOwners } from "../../runtime/controllerrefmanager.js";
import { UIDTrackingControllerExpectations } from "../../runtime/expectations.js";
import type { Logger } from "../../runtime/logging.js";
import type { Manager } from "../../runtime/manager.js";
import type { ReconcileResult } from "../../runtime/reconcile.js";
import { hasNamespaceTerminatingCause, RealPodControl, type PodControl, type PodOwner } from "./podcontrol.js";
import { filterActivePods, filterClaimedPods, filterTerminatingPods, isPodReady, podKey } from "./podutil.js";
import { getPodsToDelete } from "./ranking.js";
import { SLOW_START_INITIAL_BATCH_SIZE, slowStartBatch } from "./slowstart.js";
import { calculateStatus, updateReplicaSetStatus } from "./status.js";

/** The most pods one sync creates or deletes (BurstReplicas). */
export const BURST_REPLICAS = 500;

export const REPLICASET_GVK: GroupVersionKind = Object.freeze({ group: "apps", version: "v1", kind: "ReplicaSet" });

/** kube-controller-manager's --concurrent-replicaset-syncs default. */
export const DEFAULT_REPLICASET_WORKERS = 5;

export interface ReplicaSetControllerOptions {
  /** At most this many creates or deletes per sync (default 500). */
  burstReplicas?: number;
  /** Replaces the API-backed pod control (tests). */
  podControl?: PodControl;
  /** Workers (default 5). */
  workers?: number;
  /** The DeploymentReplicaSetTerminatingReplicas feature gate: report status.terminatingReplicas (default on, as since 1.35). */
  terminatingReplicas?: boolean;
}

export class ReplicaSetController {
  readonly controller: Controller;
  readonly expectations: UIDTrackingControllerExpectations;
  readonly burstReplicas: number;
  /** Whether status.terminatingReplicas is reported (the feature gate). */
  readonly terminatingReplicas: boolean;
  /** Set by tests to observe or fail pod creations and deletions; default: the API-backed one per sync. */
  podControl: PodControl | undefined;

  private readonly client: ResourceClientFactory;
  private readonly recorder: EventRecorder;
  private readonly clock: Clock;
  private readonly logger: Logger;
  readonly rsInformer: SharedIndexInformer<ReplicaSet>;
  readonly podInformer: SharedIndexInformer<Pod>;
  private readonly rsLister: Lister<ReplicaSet>;
  private readonly podLister: Lister<Pod>;

  constructor(mgr: Manager, opts: ReplicaSetControllerOptions = {}) {
    this.client = mgr.client;
    this.clock = mgr.clock;
    this.logger = mgr.logger.child({ controller: "replicaset" });
    this.recorder = mgr.eventRecorder("replicaset-controller");
    this.burstReplicas = opts.burstReplicas ?? BURST_REPLICAS;
    this.terminatingReplicas = opts.terminatingReplicas ?? true;
    this.expectations = new UIDTrackingControllerExpectations(this.clock);
    this.podControl = opts.podControl;

    this.rsInformer = mgr.informers.forResource(builtin.replicaSets);
    this.podInformer = mgr.informers.forResource(builtin.pods);
    this.rsLister = this.rsInformer.lister();
    this.podLister = this.podInformer.lister();

    this.controller = mgr
      .controller("replicaset")
      .watches(builtin.replicaSets, {
        create: (e) => this.addRS(e.object),
        update: (e) => this.updateRS(e.objectOld, e.objectNew),
        delete: (e) => this.deleteRS(e.object),
      })
      .watches(builtin.pods, {
        create: (e) => this.addPod(e.object),
        // Every pod change wakes its owner (status changes included): the sync reads only the cache.
        update: (e) => this.updatePod(e.objectOld, e.objectNew),
        delete: (e) => this.deletePod(e.object),
      })
      .withOptions({ maxConcurrentReconciles: opts.workers ?? DEFAULT_REPLICASET_WORKERS, eventSource: "replicaset-controller" })
      .reconcile((req, ctx) => this.syncReplicaSet(req.toString(), ctx.client));
  }

  // ---------------------------------------------------------------------------------------------
  // Event handlers

  /** The ReplicaSet a controller reference points at, if it is in the cache with that UID. */
  resolveControllerRef(namespace: string, ref: OwnerReference): ReplicaSet | undefined {
    return resolveControllerRef(this.rsLister, namespace, ref, REPLICASET_GVK.kind);
  }

  /** The ReplicaSets in the pod's namespace whose selector matches its labels (GetPodReplicaSets). */
  getPodReplicaSets(pod: Pod): ReplicaSet[] {
    const labels = pod.metadata?.labels ?? {};
    const out = selectingOwners(this.rsLister.namespace(pod.metadata?.namespace ?? "").list(), labels);
    if (out.length > 1) {
      this.logger.error({ pod: metaNamespaceKey(pod), labels }, "user error: more than one ReplicaSet is selecting pods with these labels");
    }
    return out;
  }

  addRS(rs: ReplicaSet): void {
    this.controller.enqueue(metaNamespaceKey(rs));
  }

  updateRS(oldRS: ReplicaSet, curRS: ReplicaSet): void {
    // Same name, new object: the informer may not have told us about the deletion.
    if (oldRS.metadata?.uid !== curRS.metadata?.uid) {
      this.deleteRS(new DeletedFinalStateUnknown(metaNamespaceKey(oldRS), oldRS));
    }
    // Always sync: a resync retries ReplicaSets whose earlier creates failed.
    this.controller.enqueue(metaNamespaceKey(curRS));
  }

  deleteRS(obj: ReplicaSet | DeletedFinalStateUnknown<ReplicaSet>): void {
    const rs = objectFromDeletion(obj);
    if (!rs) return;
    const key = metaNamespaceKey(rs);
    // A new ReplicaSet of the same name starts clean.
    this.expectations.deleteExpectations(key);
    this.controller.enqueue(key);
  }

  addPod(pod: Pod): void {
    if (pod.metadata?.deletionTimestamp) {
      // Seen for the first time already terminating (e.g. after a restart): a deletion, not a creation.
      this.deletePod(pod);
      return;
    }
    const ref = getControllerOf(pod);
    if (ref) {
      const rs = this.resolveControllerRef(pod.metadata?.namespace ?? "", ref);
      if (!rs) return;
      const key = metaNamespaceKey(rs);
      this.expectations.creationObserved(key);
      this.controller.enqueue(key);
      return;
    }
    // An orphan: wake every matching ReplicaSet so one may adopt it. Not a creation anyone awaits.
    for (const rs of this.getPodReplicaSets(pod)) this.controller.enqueue(metaNamespaceKey(rs));
  }

  updatePod(oldPod: Pod, curPod: Pod): void {
    // Resyncs deliver the same version again; nothing changed.
    if (curPod.metadata?.resourceVersion === oldPod.metadata?.resourceVersion) return;
    const labelChanged = !labelsEqual(curPod.metadata?.labels, oldPod.metadata?.labels);
    if (curPod.metadata?.deletionTimestamp) {
      // Graceful deletion started: count it as deleted now so a replacement is created at once,
      // rather than when the kubelet finally removes the pod.
      this.deletePod(curPod);
      if (labelChanged) this.deletePod(oldPod);
      return;
    }
    const curRef = getControllerOf(curPod);
    const oldRef = getControllerOf(oldPod);
    const refChanged = !deepEqual(curRef, oldRef);
    if (refChanged && oldRef) {
      const old = this.resolveControllerRef(oldPod.metadata?.namespace ?? "", oldRef);
      if (old) this.controller.enqueue(metaNamespaceKey(old));
    }
    if (curRef) {
      const rs = this.resolveControllerRef(curPod.metadata?.namespace ?? "", curRef);
      if (!rs) return;
      const key = metaNamespaceKey(rs);
      this.controller.enqueue(key);
      // Nothing tells us when a ready pod becomes available: look again after minReadySeconds
      // (plus a second against clock skew).
      const minReady = rs.spec?.minReadySeconds ?? 0;
      if (!isPodReady(oldPod) && isPodReady(curPod) && minReady > 0) {
        this.controller.enqueueAfter(key, minReady * 1000 + 1000);
      }
      return;
    }
    // An orphan whose labels or ownership changed: someone may want to adopt it now.
    if (labelChanged || refChanged) {
      for (const rs of this.getPodReplicaSets(curPod)) this.controller.enqueue(metaNamespaceKey(rs));
    }
  }

  deletePod(obj: Pod | DeletedFinalStateUnknown<Pod>): void {
    // A tombstone's pod may be stale: if its labels changed meanwhile, a new owner waits for resync.
    const pod = objectFromDeletion(obj);
    if (!pod) return;
    const ref = getControllerOf(pod);
    if (!ref) return; // nobody cares about orphans going away
    const rs = this.resolveControllerRef(pod.metadata?.namespace ?? "", ref);
    if (!rs) return;
    const key = metaNamespaceKey(rs);
    this.expectations.deletionObserved(key, podKey(pod));
    this.controller.enqueue(key);
  }

  // ---------------------------------------------------------------------------------------------
  // Sync

  /**
   * Brings one ReplicaSet ("ns/name") toward its spec and writes its status, through `client` (the
   * reconcile's, bound to its signal; the manager's by default). Rejects when pods could not be
   * created/deleted (after writing status) or status could not be written; the worker then
   * retries with backoff. Must not run concurrently for the same key (the queue guarantees it).
   */
  async syncReplicaSet(key: string, client: ResourceClientFactory = this.client): Promise<ReconcileResult> {
    const started = this.clock.now();
    const { namespace, name } = ObjectName.parse(key);
    try {
      let rs: ReplicaSet;
      try {
        rs = this.rsLister.namespace(namespace).get(name);
      } catch (err) {
        if (isNotFound(err)) {
          this.logger.debug({ object: key }, "ReplicaSet has been deleted");
          this.expectations.deleteExpectations(key);
          return {};
        }
        throw err;
      }

      const rsNeedsSync = this.expectations.satisfiedExpectations(key);
      let selector: Selector;
      try {
        selector = labelSelectorAsSelector(rs.spec?.selector);
      } catch (err) {
        // Retrying cannot fix an invalid selector; the next update of the ReplicaSet will.
        this.logger.error({ object: key, err }, "error converting pod selector to selector");
        return {};
      }

      // Every pod of the namespace, so that owned pods that stopped matching get released.
      const allPods = this.podLister.namespace(namespace).list();
      const active = filterActivePods(allPods);
      const filteredPods = await this.claimPods(rs, selector, active, client);
      // Terminating pods are counted, never adopted.
      const terminatingPods = this.terminatingReplicas ? filterClaimedPods(rs, selector, filterTerminatingPods(allPods)) : undefined;

      let manageErr: unknown;
      if (rsNeedsSync && !rs.metadata?.deletionTimestamp) {
        try {
          await this.manageReplicas(filteredPods, rs, this.podControl ?? new RealPodControl(client, this.recorder));
        } catch (err) {
          manageErr = err;
        }
      }

      const copy = deepCopy(rs);
      const newStatus = calculateStatus(copy, filteredPods, terminatingPods, manageErr, this.clock.now());
      const rsClient: ResourceClient<ReplicaSet> = client.resource(builtin.replicaSets, namespace);
      const updated = await updateReplicaSetStatus(rsClient, copy, newStatus);

      if (manageErr !== undefined) throw manageErr;
      // Last line of defence against clock skew: look again once the ready pods should be available.
      const minReady = updated.spec?.minReadySeconds ?? 0;
      const replicas = updated.spec?.replicas ?? 1;
      if (minReady > 0 && (updated.status?.readyReplicas ?? 0) === replicas && (updated.status?.availableReplicas ?? 0) !== replicas) {
        return { requeueAfterMs: minReady * 1000 };
      }
      return {};
    } finally {
      this.logger.debug({ object: key, durationMs: this.clock.now() - started }, "Finished syncing ReplicaSet");
    }
  }

  private async claimPods(rs: ReplicaSet, selector: Selector, pods: Pod[], client: ResourceClientFactory): Promise<Pod[]> {
    const namespace = rs.metadata?.namespace ?? "";
    const name = rs.metadata?.name ?? "";
    const uid = rs.metadata?.uid ?? "";
    const rsClient = client.resource(builtin.replicaSets, namespace);
    // Before adopting, re-read the ReplicaSet from the API (not the cache) to be sure it is
    // neither gone nor being deleted (#42639).
    const canAdopt = recheckDeletionTimestamp(async () => {
      const fresh = await rsClient.get(name);
      return { ...fresh, kind: fresh.kind ?? REPLICASET_GVK.kind };
    }, uid);
    const mgr = new ControllerRefManager<Pod>({
      owner: rs,
      ownerGVK: REPLICASET_GVK,
      selector,
      client: client.resource(builtin.pods, namespace),
      canAdopt,
    });
    return mgr.claim(pods);
  }

  /** Creates or deletes pods so that `filteredPods` moves toward spec.replicas. Never mutates its inputs. */
  private async manageReplicas(filteredPods: readonly Pod[], rs: ReplicaSet, podControl: PodControl): Promise<void> {
    const key = metaNamespaceKey(rs);
    const namespace = rs.metadata?.namespace ?? "";
    const desired = rs.spec?.replicas ?? 1;
    const diff = filteredPods.length - desired;
    const owner: PodOwner = { object: rs, apiVersion: "apps/v1", kind: REPLICASET_GVK.kind };

    if (diff < 0) {
      const n = Math.min(-diff, this.burstReplicas);
      // Expect all n before the first request: their watch events may arrive before we return.
      this.expectations.expectCreations(key, n);
      this.logger.info({ object: key, need: desired, creating: n }, "Too few replicas");
      const ref = newControllerRef(rs, REPLICASET_GVK);
      const { successes, error } = await slowStartBatch(n, SLOW_START_INITIAL_BATCH_SIZE, async () => {
        try {
          await podControl.createPods(namespace, rs.spec?.template, owner, ref);
        } catch (err) {
          // In a terminating namespace every create fails; there is nothing to do about it.
          if (hasNamespaceTerminatingCause(err)) return;
          throw err;
        }
      });
      // Pods never created will never be observed: stop waiting for them. A later sync retries.
      const skipped = n - successes;
      if (skipped > 0) {
        this.logger.info({ object: key, skipped }, "Slow-start failure. Skipping creation of pods, decrementing expectations");
        for (let i = 0; i < skipped; i++) this.expectations.creationObserved(key);
      }
      if (error !== undefined) throw error;
      return;
    }

    if (diff > 0) {
      const n = Math.min(diff, this.burstReplicas);
      this.logger.info({ object: key, need: desired, deleting: n }, "Too many replicas");
      const related = this.getIndirectlyRelatedPods(rs);
      const toDelete = getPodsToDelete(filteredPods, related, n, this.clock.now());
      // Track exactly which pods we delete, so each deletion is counted once whether it shows up
      // as a deletionTimestamp update or as the final delete.
      this.expectations.expectDeletions(key, toDelete.map(podKey));
      const errors: unknown[] = [];
      await Promise.all(
        toDelete.map(async (pod) => {
          try {
            await podControl.deletePod(namespace, pod.metadata?.name ?? "", owner);
          } catch (err) {
            // This deletion will not be observed (or already was): stop waiting for it.
            this.expectations.deletionObserved(key, podKey(pod));
            if (!isNotFound(err)) {
              this.logger.info({ object: key, pod: podKey(pod) }, "Failed to delete pod, decremented expectations");
              errors.push(err);
            }
          }
        }),
      );
      if (errors.length > 0) throw errors[0];
    }
  }

  /** Every pod owned by a ReplicaSet with the same controller as `rs` (its Deployment's pods). */
  private getIndirectlyRelatedPods(rs: ReplicaSet): Pod[] {
    const ref = getControllerOf(rs);
    const related = ref ? this.rsInformer.getIndexer().byIndex(CONTROLLER_UID_INDEX, ref.uid) : [];
    const seen = new Set<string>();
    const out: Pod[] = [];
    for (const other of related) {
      let sel: Selector;
      try {
        sel = labelSelectorAsSelector(other.spec?.selector);
      } catch {
        continue; // an invalid selector matches no pods
      }
      for (const pod of this.podLister.namespace(other.metadata?.namespace ?? "").list(sel)) {
        const uid = pod.metadata?.uid ?? podKey(pod);
        if (seen.has(uid)) continue;
        seen.add(uid);
        out.push(pod);
      }
    }
    return out;
  }
}

