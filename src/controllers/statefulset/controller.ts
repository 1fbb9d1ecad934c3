/**
 * The StatefulSet controller (upstream pkg/controller/statefulset/stateful_set.go) on the builder.
 *
 * Watches: StatefulSets (every add, update and delete enqueues the set) and pods with upstream's
 * addPod / updatePod / deletePod (a pod wakes its controller; an orphan wakes every set whose
 * selector matches it; a pod turning ready wakes its set again after minReadySeconds + 1 s).
 * PersistentVolumeClaims and ControllerRevisions are read from their informers' caches.
 *
 * sync(key): read the set from the cache (gone: done); adopt orphan ControllerRevisions matching
 * the selector; claim pods (members by name — `<set>-<ordinal>` — and matching the selector:
 * adopt orphans, release those that stopped matching, after re-reading the set from the API);
 * run one pass of StatefulSetControl; requeue after minReadySeconds while not every replica is
 * available.
 *
 * Like upstream, the StatefulSet controller keeps no create/delete expectations: pod names are
 * fixed by ordinal, so a stale cache cannot make it create a second pod for an ordinal (the create
 * meets AlreadyExists and the pass is retried), and OrderedReady waits for each pod to be seen
 * Running and Ready before the next.
 */
import type { ControllerRevision, StatefulSet } from "../../apimachinery/api/apps/v1.js";
import type { PersistentVolumeClaim, Pod } from "../../apimachinery/api/core/v1.js";
import type { OwnerReference } from "../../apimachinery/api/meta/v1.js";
import type { Clock } from "../../apimachinery/clock.js";
import { deepEqual } from "../../apimachinery/equality.js";
import { isNotFound } from "../../apimachinery/errors.js";
import { labelSelectorAsSelector, labelsEqual, type Selector } from "../../apimachinery/labels.js";
import { metaNamespaceKey, ObjectName } from "../../apimachinery/objectname.js";
import { getControllerOf } from "../../apimachinery/ownerrefs.js";
import type { ResourceClientFactory } from "../../client/interfaces.js";
import { builtin } from "../../client/typed.js";
import type { EventRecorder } from "../../events/broadcaster.js";
import { objectFromDeletion } from "../../informers/handlers.js";
import type { Lister } from "../../informers/lister.js";
import type { DeletedFinalStateUnknown } from "../../informers/store.js";
import type { Controller } from "../../runtime/controller.js";
import { ControllerRefManager, recheckDeletionTimestamp, resolveControllerRef, selectingOwners } from "../../runtime/controllerrefmanager.js";
import type { Logger } from "../../runtime/logging.js";
import type { Manager } from "../../runtime/manager.js";
import type { ReconcileResult } from "../../runtime/reconcile.js";
import { RevisionHistory } from "../history/index.js";
import { isPodReady } from "../replicaset/podutil.js";
import { StatefulSetControl } from "./control.js";
import { StatefulPodControl } from "./podcontrol.js";
import { compareOverlapping, isMemberOf, replicasOf, STATEFULSET_GVK } from "./utils.js";

/** kube-controller-manager's --concurrent-statefulset-syncs default. */
export const DEFAULT_STATEFULSET_WORKERS = 5;

export interface StatefulSetControllerOptions {
  /** Workers (default 5). */
  workers?: number;
  /**
   * The MaxUnavailableStatefulSet feature gate: rollingUpdate.maxUnavailable pods updated at once
   * (default on; off, one pod at a time whatever maxUnavailable says).
   */
  maxUnavailableStatefulSet?: boolean;
}

export class StatefulSetController {
  readonly controller: Controller;
  readonly maxUnavailableStatefulSet: boolean;
  private readonly client: ResourceClientFactory;
  private readonly recorder: EventRecorder;
  private readonly clock: Clock;
  private readonly logger: Logger;
  private readonly setLister: Lister<StatefulSet>;
  private readonly podLister: Lister<Pod>;
  private readonly claimLister: Lister<PersistentVolumeClaim>;
  private readonly revisionLister: Lister<ControllerRevision>;

  constructor(mgr: Manager, opts: StatefulSetControllerOptions = {}) {
    this.client = mgr.client;
    this.clock = mgr.clock;
    this.logger = mgr.logger.child({ controller: "statefulset" });
    this.recorder = mgr.eventRecorder("statefulset-controller");
    this.maxUnavailableStatefulSet = opts.maxUnavailableStatefulSet ?? true;
    this.setLister = mgr.informers.forResource(builtin.statefulSets).lister();
    this.podLister = mgr.informers.forResource(builtin.pods).lister();
    this.claimLister = mgr.informers.forResource(builtin.persistentVolumeClaims).lister();
    this.revisionLister = mgr.informers.forResource(builtin.controllerRevisions).lister();

    this.controller = mgr
      .controller("statefulset")
      .watches(builtin.statefulSets, {
        create: (e) => this.enqueue(e.object),
        update: (e) => this.enqueue(e.objectNew),
        delete: (e) => {
          const set = objectFromDeletion(e.object);
          if (set) this.enqueue(set);
        },
      })
      .watches(builtin.pods, {
        create: (e) => this.addPod(e.object),
        update: (e) => this.updatePod(e.objectOld, e.objectNew),
        delete: (e) => this.deletePod(e.object),
      })
      .withOptions({ maxConcurrentReconciles: opts.workers ?? DEFAULT_STATEFULSET_WORKERS, eventSource: "statefulset-controller" })
      .reconcile((req, ctx) => this.sync(req.toString(), ctx.client, ctx.signal));
  }

  private enqueue(set: StatefulSet): void {
    this.controller.enqueue(metaNamespaceKey(set));
  }

  // ---------------------------------------------------------------------------------------------
  // Event handlers

  resolveControllerRef(namespace: string, ref: OwnerReference): StatefulSet | undefined {
    return resolveControllerRef(this.setLister, namespace, ref, STATEFULSET_GVK.kind);
  }

  /** The sets whose selector matches the pod (getStatefulSetsForPod); more than one is a user error, logged. */
  getStatefulSetsForPod(pod: Pod): StatefulSet[] {
    const sets = selectingOwners(this.setLister.namespace(pod.metadata?.namespace ?? "").list(), pod.metadata?.labels ?? {});
    if (sets.length > 1) {
      sets.sort(compareOverlapping);
      this.logger.error({ pod: metaNamespaceKey(pod), statefulSets: sets.map((s) => s.metadata?.name) }, "user error: more than one StatefulSet is selecting pods with labels");
    }
    return sets;
  }

  addPod(pod: Pod): void {
    if (pod.metadata?.deletionTimestamp) {
      // Seen first already being deleted (after a restart): a deletion, not a creation.
      this.deletePod(pod);
      return;
    }
    const ref = getControllerOf(pod);
    if (ref) {
      const set = this.resolveControllerRef(pod.metadata?.namespace ?? "", ref);
      if (set) this.enqueue(set);
      return;
    }
    // An orphan: every matching set may want to adopt it.
    for (const set of this.getStatefulSetsForPod(pod)) this.enqueue(set);
  }

  updatePod(oldPod: Pod, curPod: Pod): void {
    if (curPod.metadata?.resourceVersion === oldPod.metadata?.resourceVersion) return;
    const labelChanged = !labelsEqual(curPod.metadata?.labels, oldPod.metadata?.labels);
    const curRef = getControllerOf(curPod);
    const oldRef = getControllerOf(oldPod);
    const refChanged = !deepEqual(curRef, oldRef);
    if (refChanged && oldRef) {
      const old = this.resolveControllerRef(oldPod.metadata?.namespace ?? "", oldRef);
      if (old) this.enqueue(old);
    }
    if (curRef) {
      const set = this.resolveControllerRef(curPod.metadata?.namespace ?? "", curRef);
      if (!set) return;
      this.enqueue(set);
      // Nothing announces that a ready pod became available: look again after minReadySeconds.
      const minReady = set.spec?.minReadySeconds ?? 0;
      if (!isPodReady(oldPod) && isPodReady(curPod) && minReady > 0) this.controller.enqueueAfter(metaNamespaceKey(set), minReady * 1000 + 1000);
      return;
    }
    if (labelChanged || refChanged) for (const set of this.getStatefulSetsForPod(curPod)) this.enqueue(set);
  }

  deletePod(obj: Pod | DeletedFinalStateUnknown<Pod>): void {
    const pod = objectFromDeletion(obj);
    if (!pod) return;
    const ref = getControllerOf(pod);
    if (!ref) return;
    const set = this.resolveControllerRef(pod.metadata?.namespace ?? "", ref);
    if (set) this.enqueue(set);
  }

  // ---------------------------------------------------------------------------------------------
  // Sync

  /** One sync of "ns/name" through `client` (the reconcile's, bound to its signal). */
  async sync(key: string, client: ResourceClientFactory = this.client, signal?: AbortSignal): Promise<ReconcileResult> {
    const started = this.clock.now();
    const { namespace, name } = ObjectName.parse(key);
    try {
      let set: StatefulSet;
      try {
        set = this.setLister.namespace(namespace).get(name);
      } catch (err) {
        if (isNotFound(err)) {
          this.logger.info({ key }, "StatefulSet has been deleted");
          return {};
        }
        throw err;
      }
      let selector: Selector;
      try {
        selector = labelSelectorAsSelector(set.spec?.selector);
      } catch (err) {
        // Not transient: the next update of the set fixes it.
        this.logger.error({ key, err }, "error converting StatefulSet selector");
        return {};
      }
      const history = new RevisionHistory(client, { lister: this.revisionLister });
      await this.adoptOrphanRevisions(set, history, client, signal);
      const pods = await this.getPodsForStatefulSet(set, selector, client);

      const control = new StatefulSetControl({
        podControl: new StatefulPodControl(client, this.podLister, this.claimLister, this.recorder),
        history,
        sets: client.resource(builtin.statefulSets, namespace),
        setLister: this.setLister,
        logger: this.logger,
        now: this.clock.now(),
        signal,
        maxUnavailable: this.maxUnavailableStatefulSet,
      });
      const status = await control.updateStatefulSet(set, pods);
      const minReady = set.spec?.minReadySeconds ?? 0;
      if (minReady > 0 && status && (status.availableReplicas ?? 0) !== replicasOf(set)) return { requeueAfterMs: minReady * 1000 };
      return {};
    } finally {
      this.logger.debug({ key, durationMs: this.clock.now() - started }, "Finished syncing statefulset");
    }
  }

  /** Adopts the revisions matching the selector that nobody controls, after re-reading the set (adoptOrphanRevisions). */
  private async adoptOrphanRevisions(set: StatefulSet, history: RevisionHistory, client: ResourceClientFactory, signal?: AbortSignal): Promise<void> {
    const revisions = await history.list(set, labelSelectorAsSelector(set.spec?.selector), signal);
    const orphans = revisions.filter((r) => !getControllerOf(r));
    if (orphans.length === 0) return;
    const canAdopt = recheckDeletionTimestamp(() => this.freshSet(set, client), set.metadata?.uid ?? "");
    await canAdopt();
    for (const r of orphans) await history.adopt(set, STATEFULSET_GVK, r, signal);
  }

  private async freshSet(set: StatefulSet, client: ResourceClientFactory): Promise<StatefulSet> {
    const fresh = await client.resource(builtin.statefulSets, set.metadata?.namespace ?? "").get(set.metadata?.name ?? "");
    return { ...fresh, kind: fresh.kind ?? "StatefulSet" };
  }

  /** The pods the set owns once claims are settled: members by name and matching the selector (getPodsForStatefulSet). */
  private async getPodsForStatefulSet(set: StatefulSet, selector: Selector, client: ResourceClientFactory): Promise<Pod[]> {
    const namespace = set.metadata?.namespace ?? "";
    const all = this.podLister.namespace(namespace).list();
    const mgr = new ControllerRefManager<Pod>({
      owner: set,
      ownerGVK: STATEFULSET_GVK,
      selector,
      client: client.resource(builtin.pods, namespace),
      canAdopt: recheckDeletionTimestamp(() => this.freshSet(set, client), set.metadata?.uid ?? ""),
    });
    // Members by name only: an owned pod that is not named after the set is released.
    return mgr.claim(all, [(p) => isMemberOf(set, p)]);
  }
}
