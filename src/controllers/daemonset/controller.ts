/**
 * The DaemonSet controller (kube-controller-manager pkg/controller/daemon, 1.36): one pod of the
 * DaemonSet's template on every node that should run it, rolled to a new template with the
 * RollingUpdate strategy (maxUnavailable or maxSurge) or left for the user with OnDelete, its
 * templates kept as ControllerRevisions.
 *
 * Flow: DaemonSet, ControllerRevision and pod events enqueue DaemonSet keys (upstream's handlers);
 * node adds, and updates that change labels or taints, go to a second queue
 * (daemonset-node-updates) whose sync enqueues the DaemonSets whose placement on that node
 * changed. syncDaemonSet(key):
 *   1. read the DaemonSet and the nodes from the caches (gone → forget its expectations; empty
 *      selector → a SelectingAll warning; being deleted → nothing, its status cannot be trusted);
 *   2. constructHistory: claim ControllerRevisions, find the one that holds the current template
 *      (or create it, bumping status.collisionCount on a name clash), dedupe, renumber — its
 *      controller-revision-hash label is the hash new pods get;
 *   3. with unmet expectations only the status is written (without observedGeneration);
 *   4. manage: per node, create the missing daemon pod (pinned to the node by the required node
 *      affinity `metadata.name In [node]`, not spec.nodeName: the scheduler binds it), delete
 *      failed (with a per-node back-off), succeeded, excess and misplaced ones; then, with met
 *      expectations, the rolling update; then old revisions beyond revisionHistoryLimit go;
 *   5. status: desired/current/misscheduled/ready/updated/available/unavailable, observedGeneration.
 *
 * Invariants: (expectations) between a sync that issues N creates/deletes and the informer
 * delivering them, the DaemonSet's pods are not managed again; objects from the cache are never
 * mutated (copies are written).
 *
 * Not ported (plainly): the StaleControllerConsistencyDaemonSet consistency store, the
 * TaintTolerationComparisonOperators gate (Gt/Lt tolerations), the kube/openshift default node
 * selectors of namespaces, and the daemonset metrics.
 */
import type { ControllerRevision, DaemonSet } from "../../apimachinery/api/apps/v1.js";
import type { Node, Pod } from "../../apimachinery/api/core/v1.js";
import type { OwnerReference } from "../../apimachinery/api/meta/v1.js";
import type { Clock } from "../../apimachinery/clock.js";
import { deepCopy } from "../../apimachinery/deepcopy.js";
import { semanticEqual } from "../../apimachinery/equality.js";
import { isAlreadyExists, isNotFound } from "../../apimachinery/errors.js";
import { labelSelectorAsSelector, labelsEqual } from "../../apimachinery/labels.js";
import { metaNamespaceKey, ObjectName } from "../../apimachinery/objectname.js";
import { getControllerOf, newControllerRef } from "../../apimachinery/ownerrefs.js";
import { parseTime } from "../../apimachinery/time.js";
import type { ResourceClientFactory } from "../../client/interfaces.js";
import { builtin } from "../../client/typed.js";
import type { EventRecorder } from "../../events/broadcaster.js";
import type { Lister } from "../../informers/lister.js";
import { CONTROLLER_UID_INDEX, type Indexer } from "../../informers/store.js";
import type { Controller } from "../../runtime/controller.js";
import { ControllerRefManager, recheckDeletionTimestamp, resolveControllerRef, selectingOwners } from "../../runtime/controllerrefmanager.js";
import { ControllerExpectations } from "../../runtime/expectations.js";
import type { Logger } from "../../runtime/logging.js";
import type { Manager } from "../../runtime/manager.js";
import { hasNamespaceTerminatingCause, ownerReference, RealPodControl, type PodControl, type PodOwner } from "../replicaset/podcontrol.js";
import { isPodAvailable, isPodReady } from "../replicaset/podutil.js";
import { SLOW_START_INITIAL_BATCH_SIZE } from "../replicaset/slowstart.js";
import { FailedPodsBackoff } from "./backoff.js";
import {
  BACKOFF_GC_INTERVAL_MS,
  BURST_REPLICAS,
  DEFAULT_DAEMONSET_UNIQUE_LABEL_KEY,
  DEFAULT_DAEMONSET_WORKERS,
  FAILED_DAEMON_POD_REASON,
  FAILED_PODS_BACKOFF_INITIAL_MS,
  FAILED_PODS_BACKOFF_MAX_MS,
  SELECTING_ALL_REASON,
  STATUS_UPDATE_RETRIES,
  SUCCEEDED_DAEMON_POD_REASON,
} from "./constants.js";
import { DAEMONSET_GVK } from "./gvk.js";
import { nodeShouldRunDaemonPod } from "./predicates.js";
import { maxRevision, newDaemonSetRevision, revisionMatches, sortByRevision } from "./revisions.js";
import { planRollingUpdate } from "./rolling.js";
import { allowsSurge, createPodTemplate, getTargetNodeName, isPodUpdated, replaceDaemonSetPodNodeNameNodeAffinity, templateGenerationOrUndefined } from "./util.js";

/** The pod index by spec.nodeName (controller.PodNodeNameKeyIndex). */
export const POD_NODE_NAME_INDEX = "spec.nodeName";

export interface DaemonSetControllerOptions {
  /** Workers for each of the two queues (default 2, --concurrent-daemonset-syncs). */
  workers?: number;
  /** Creates/deletes per sync at most (default 250). */
  burstReplicas?: number;
  /** How pods are created and deleted (default: through the reconcile's client, recording events). */
  podControl?: (client: ResourceClientFactory) => PodControl;
}

/** The status fields storeDaemonSetStatus writes. */
export interface DaemonSetStatusCounts {
  desiredNumberScheduled: number;
  currentNumberScheduled: number;
  numberMisscheduled: number;
  numberReady: number;
  updatedNumberScheduled: number;
  numberAvailable: number;
  numberUnavailable: number;
}

/** Scheduled pods first, then by creation time, then by name (podByCreationTimestampAndPhase). */
export function compareByCreationTimestampAndPhase(a: Pod, b: Pod): number {
  const an = a.spec?.nodeName ?? "";
  const bn = b.spec?.nodeName ?? "";
  if (an !== "" && bn === "") return -1;
  if (an === "" && bn !== "") return 1;
  const at = parseTime(a.metadata?.creationTimestamp) ?? 0;
  const bt = parseTime(b.metadata?.creationTimestamp) ?? 0;
  if (at === bt) {
    const x = a.metadata?.name ?? "";
    const y = b.metadata?.name ?? "";
    return x < y ? -1 : x > y ? 1 : 0;
  }
  return at - bt;
}

/** The back-off key of a node's failed daemon pods (failedPodsBackoffKey). */
export function failedPodsBackoffKey(ds: DaemonSet, nodeName: string): string {
  return `${ds.metadata?.uid ?? ""}/${ds.status?.observedGeneration ?? 0}/${nodeName}`;
}

/** Pods for nodes that do not exist and were never scheduled (getUnscheduledPodsWithoutNode). */
export function getUnscheduledPodsWithoutNode(runningNodes: readonly Node[], nodeToDaemonPods: ReadonlyMap<string, readonly Pod[]>): string[] {
  const running = new Set(runningNodes.map((n) => n.metadata?.name ?? ""));
  const out: string[] = [];
  for (const [node, pods] of nodeToDaemonPods) {
    if (running.has(node)) continue;
    for (const p of pods) if (!p.spec?.nodeName) out.push(p.metadata?.name ?? "");
  }
  return out;
}

/** Labels and taints unchanged: nothing the DaemonSet controller decides on changed (shouldIgnoreNodeUpdate). */
export function shouldIgnoreNodeUpdate(oldNode: Node, curNode: Node): boolean {
  return semanticEqual(oldNode.metadata?.labels, curNode.metadata?.labels) && semanticEqual(oldNode.spec?.taints, curNode.spec?.taints);
}

function isPodTerminal(pod: Pod): boolean {
  return pod.status?.phase === "Failed" || pod.status?.phase === "Succeeded";
}

function aggregate(errors: unknown[]): unknown {
  if (errors.length === 1) return errors[0];
  return new AggregateError(errors, `[${errors.map((e) => (e instanceof Error ? e.message : String(e))).join(", ")}]`);
}

export class DaemonSetsController {
  readonly controller: Controller;
  /** The node-updates queue (nodeUpdateQueue): node name → the DaemonSets to look again. */
  readonly nodeUpdateController: Controller;
  readonly expectations: ControllerExpectations;
  readonly failedPodsBackoff: FailedPodsBackoff;
  readonly burstReplicas: number;

  private readonly clock: Clock;
  private readonly logger: Logger;
  private readonly recorder: EventRecorder;
  private readonly podControlFor: (client: ResourceClientFactory) => PodControl;
  private readonly dsLister: Lister<DaemonSet>;
  private readonly historyLister: Lister<ControllerRevision>;
  private readonly podLister: Lister<Pod>;
  private readonly podIndexer: Indexer<Pod>;
  private readonly nodeLister: Lister<Node>;

  constructor(mgr: Manager, opts: DaemonSetControllerOptions = {}) {
    this.clock = mgr.clock;
    this.logger = mgr.logger.child({ controller: "daemonset" });
    this.recorder = mgr.eventRecorder("daemonset-controller");
    this.expectations = new ControllerExpectations(this.clock);
    this.failedPodsBackoff = new FailedPodsBackoff(this.clock, FAILED_PODS_BACKOFF_INITIAL_MS, FAILED_PODS_BACKOFF_MAX_MS);
    this.burstReplicas = opts.burstReplicas ?? BURST_REPLICAS;
    this.podControlFor = opts.podControl ?? ((client) => new RealPodControl(client, this.recorder));
    this.dsLister = mgr.informers.forResource(builtin.daemonSets).lister();
    this.historyLister = mgr.informers.forResource(builtin.controllerRevisions).lister();
    const podInformer = mgr.informers.forResource(builtin.pods);
    this.podIndexer = podInformer.getIndexer();
    if (!(POD_NODE_NAME_INDEX in this.podIndexer.getIndexers())) {
      podInformer.addIndexers({ [POD_NODE_NAME_INDEX]: (p: Pod) => (p.spec?.nodeName ? [p.spec.nodeName] : []) });
    }
    this.podLister = podInformer.lister();
    this.nodeLister = mgr.informers.forResource(builtin.nodes).lister();
    const workers = opts.workers ?? DEFAULT_DAEMONSET_WORKERS;

    this.controller = mgr
      .controller("daemonset")
      .watches(builtin.daemonSets, {
        create: (e) => this.controller.enqueue(e.object),
        update: (e) => this.updateDaemonset(e.objectOld, e.objectNew),
        delete: (e) => this.deleteDaemonset(e.object),
      })
      .watches(builtin.controllerRevisions, {
        create: (e) => this.addHistory(e.object),
        update: (e) => this.updateHistory(e.objectOld, e.objectNew),
        delete: (e) => this.deleteHistory(e.object),
      })
      .watches(builtin.pods, {
        create: (e) => this.addPod(e.object),
        update: (e) => this.updatePod(e.objectOld, e.objectNew),
        delete: (e) => this.deletePod(e.object),
      })
      .withOptions({ maxConcurrentReconciles: workers, eventSource: "daemonset-controller" })
      .reconcile(async (req, ctx) => {
        await this.syncDaemonSet(req.toString(), ctx.client);
      });

    this.nodeUpdateController = mgr
      .controller("daemonset-node-updates")
      .watches(builtin.nodes, {
        create: (e) => this.nodeUpdateController.enqueue(e.object),
        update: (e) => {
          if (!shouldIgnoreNodeUpdate(e.objectOld, e.objectNew)) this.nodeUpdateController.enqueue(e.objectNew);
        },
      })
      .withOptions({ maxConcurrentReconciles: workers, eventSource: "daemonset-controller" })
      .reconcile(async (req) => {
        this.syncNodeUpdate(req.name);
      });

    mgr.add({ name: "daemonset-failed-pods-backoff-gc", run: (signal) => this.backoffGCLoop(signal) });
  }

  private async backoffGCLoop(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      try {
        await this.clock.sleep(BACKOFF_GC_INTERVAL_MS, signal);
      } catch {
        return;
      }
      this.failedPodsBackoff.gc();
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Event handlers

  resolveControllerRef(namespace: string, ref: OwnerReference): DaemonSet | undefined {
    return resolveControllerRef(this.dsLister, namespace, ref, DAEMONSET_GVK.kind);
  }

  private enqueueAfter(ds: DaemonSet, ms: number): void {
    this.controller.enqueueAfter(metaNamespaceKey(ds), ms);
  }

  private updateDaemonset(old: DaemonSet, cur: DaemonSet): void {
    if (old.metadata?.uid !== cur.metadata?.uid) this.deleteDaemonset(old);
    this.controller.enqueue(cur);
  }

  private deleteDaemonset(ds: DaemonSet): void {
    const key = metaNamespaceKey(ds);
    // A DaemonSet created again under this name starts clean.
    this.expectations.deleteExpectations(key);
    this.controller.enqueue(key);
  }

  private daemonSetsSelecting(namespace: string, labels: Readonly<Record<string, string>> | undefined): DaemonSet[] {
    return selectingOwners(this.dsLister.namespace(namespace).list(), labels);
  }

  /** DaemonSets that may adopt an orphan pod (getDaemonSetsForPod). */
  getDaemonSetsForPod(pod: Pod): DaemonSet[] {
    const sets = this.daemonSetsSelecting(pod.metadata?.namespace ?? "", pod.metadata?.labels);
    if (sets.length > 1) this.logger.error({ pod: metaNamespaceKey(pod), labels: pod.metadata?.labels }, "user error! more than one daemon is selecting pods with labels");
    return sets;
  }

  private addHistory(h: ControllerRevision): void {
    if (h.metadata?.deletionTimestamp) {
      this.deleteHistory(h);
      return;
    }
    const ref = getControllerOf(h);
    if (ref) {
      // Observed; its DaemonSet has nothing to do about it.
      return;
    }
    for (const ds of this.daemonSetsSelecting(h.metadata?.namespace ?? "", h.metadata?.labels)) this.controller.enqueue(ds);
  }

  private updateHistory(old: ControllerRevision, cur: ControllerRevision): void {
    if (cur.metadata?.resourceVersion === old.metadata?.resourceVersion) return;
    const curRef = getControllerOf(cur);
    const oldRef = getControllerOf(old);
    const refChanged = !semanticEqual(curRef, oldRef);
    if (refChanged && oldRef) {
      const ds = this.resolveControllerRef(old.metadata?.namespace ?? "", oldRef);
      if (ds) this.controller.enqueue(ds);
    }
    if (curRef) {
      const ds = this.resolveControllerRef(cur.metadata?.namespace ?? "", curRef);
      if (ds) this.controller.enqueue(ds);
      return;
    }
    if (refChanged || !labelsEqual(cur.metadata?.labels ?? {}, old.metadata?.labels ?? {})) {
      for (const ds of this.daemonSetsSelecting(cur.metadata?.namespace ?? "", cur.metadata?.labels)) this.controller.enqueue(ds);
    }
  }

  private deleteHistory(h: ControllerRevision): void {
    const ref = getControllerOf(h);
    if (!ref) return;
    const ds = this.resolveControllerRef(h.metadata?.namespace ?? "", ref);
    if (ds) this.controller.enqueue(ds);
  }

  private addPod(pod: Pod): void {
    if (pod.metadata?.deletionTimestamp) {
      // Already being deleted when first seen (a restart): not a creation observation.
      this.deletePod(pod);
      return;
    }
    const ref = getControllerOf(pod);
    if (ref) {
      const ds = this.resolveControllerRef(pod.metadata?.namespace ?? "", ref);
      if (!ds) return;
      this.expectations.creationObserved(metaNamespaceKey(ds));
      this.controller.enqueue(ds);
      return;
    }
    // An orphan: the DaemonSets that select it may adopt it. No creation is observed.
    for (const ds of this.getDaemonSetsForPod(pod)) this.controller.enqueue(ds);
  }

  private updatePod(old: Pod, cur: Pod): void {
    if (cur.metadata?.resourceVersion === old.metadata?.resourceVersion) return;
    if (cur.metadata?.deletionTimestamp) {
      // A graceful deletion: the DaemonSet can act now, not when the kubelet is done.
      this.deletePod(cur);
      return;
    }
    const curRef = getControllerOf(cur);
    const oldRef = getControllerOf(old);
    const refChanged = !semanticEqual(curRef, oldRef);
    if (refChanged && oldRef) {
      const ds = this.resolveControllerRef(old.metadata?.namespace ?? "", oldRef);
      if (ds) this.controller.enqueue(ds);
    }
    if (curRef) {
      const ds = this.resolveControllerRef(cur.metadata?.namespace ?? "", curRef);
      if (!ds) return;
      this.controller.enqueue(ds);
      const minReady = ds.spec?.minReadySeconds ?? 0;
      // A pod that just became ready is available minReadySeconds later: look again then (+1 s of skew).
      if (!isPodReady(old) && isPodReady(cur) && minReady > 0) this.enqueueAfter(ds, minReady * 1000 + 1000);
      return;
    }
    const sets = this.getDaemonSetsForPod(cur);
    if (sets.length === 0) return;
    if (refChanged || !labelsEqual(cur.metadata?.labels ?? {}, old.metadata?.labels ?? {})) {
      for (const ds of sets) this.controller.enqueue(ds);
    }
  }

  private deletePod(pod: Pod): void {
    const ref = getControllerOf(pod);
    if (!ref) return;
    const ds = this.resolveControllerRef(pod.metadata?.namespace ?? "", ref);
    if (!ds) return;
    this.expectations.deletionObserved(metaNamespaceKey(ds));
    this.controller.enqueue(ds);
  }

  /**
   * One node changed (syncNodeUpdate): enqueue each DaemonSet that should now start a pod there,
   * should stop one, or reports misscheduled pods that may have become valid again.
   */
  syncNodeUpdate(nodeName: string): void {
    let node: Node;
    try {
      node = this.nodeLister.get(nodeName);
    } catch (err) {
      if (isNotFound(err)) return;
      throw err;
    }
    const podsByDS = new Map<string, Pod[]>();
    for (const pod of this.podIndexer.byIndex(POD_NODE_NAME_INDEX, nodeName)) {
      const ref = getControllerOf(pod);
      if (!ref || ref.kind !== DAEMONSET_GVK.kind) continue;
      const key = `${pod.metadata?.namespace ?? ""}/${ref.name}`;
      const list = podsByDS.get(key);
      if (list) list.push(pod);
      else podsByDS.set(key, [pod]);
    }
    for (const ds of this.dsLister.list()) {
      const { shouldRun, shouldContinueRunning } = nodeShouldRunDaemonPod(node, ds);
      const scheduled = (podsByDS.get(metaNamespaceKey(ds)) ?? []).length > 0;
      if ((shouldRun && !scheduled) || (!shouldContinueRunning && scheduled) || (scheduled && (ds.status?.numberMisscheduled ?? 0) > 0)) {
        this.controller.enqueue(ds);
      }
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Pods of a DaemonSet

  private owner(ds: DaemonSet): PodOwner {
    return { object: ds, apiVersion: "apps/v1", kind: DAEMONSET_GVK.kind };
  }

  private canAdopt(ds: DaemonSet, client: ResourceClientFactory): () => Promise<void> {
    const dss = client.resource(builtin.daemonSets, ds.metadata?.namespace ?? "");
    return recheckDeletionTimestamp(async () => {
      const fresh = await dss.get(ds.metadata?.name ?? "");
      return { ...fresh, kind: fresh.kind ?? DAEMONSET_GVK.kind };
    }, ds.metadata?.uid ?? "");
  }

  /** The DaemonSet's pods after adopting matching orphans and releasing the rest (getDaemonPods). */
  async getDaemonPods(ds: DaemonSet, client: ResourceClientFactory): Promise<Pod[]> {
    const ns = ds.metadata?.namespace ?? "";
    const uid = ds.metadata?.uid ?? "";
    const selector = labelSelectorAsSelector(ds.spec?.selector);
    // Pods controlled by this DaemonSet, and the namespace's orphans (FilterPodsByOwner).
    const owned = this.podIndexer.byIndex(CONTROLLER_UID_INDEX, uid).filter((p) => (p.metadata?.namespace ?? "") === ns);
    const orphans = this.podLister.namespace(ns).list().filter((p) => !getControllerOf(p));
    const cm = new ControllerRefManager<Pod>({
      owner: ds,
      ownerGVK: DAEMONSET_GVK,
      selector,
      client: client.resource(builtin.pods, ns),
      canAdopt: this.canAdopt(ds, client),
    });
    return cm.claim([...orphans, ...owned]);
  }

  /**
   * The DaemonSet's pods by the node they are for (getNodesToDaemonPods). Terminal pods already
   * being deleted are left out unless `includeDeletedTerminal`.
   */
  async getNodesToDaemonPods(ds: DaemonSet, includeDeletedTerminal: boolean, client: ResourceClientFactory): Promise<Map<string, Pod[]>> {
    const out = new Map<string, Pod[]>();
    for (const pod of await this.getDaemonPods(ds, client)) {
      if (!includeDeletedTerminal && isPodTerminal(pod) && pod.metadata?.deletionTimestamp) continue;
      let node: string;
      try {
        node = getTargetNodeName(pod);
      } catch {
        this.logger.debug({ pod: metaNamespaceKey(pod), daemonset: metaNamespaceKey(ds) }, "Failed to get target node name of Pod in DaemonSet");
        continue;
      }
      const list = out.get(node);
      if (list) list.push(pod);
      else out.set(node, [pod]);
    }
    return out;
  }

  // ---------------------------------------------------------------------------------------------
  // Sync

  async syncDaemonSet(key: string, client: ResourceClientFactory): Promise<void> {
    const { namespace, name } = ObjectName.parse(key);
    let ds: DaemonSet;
    try {
      ds = this.dsLister.namespace(namespace).get(name);
    } catch (err) {
      if (isNotFound(err)) {
        this.logger.debug({ daemonset: key }, "Daemon set has been deleted");
        this.expectations.deleteExpectations(key);
        return;
      }
      throw err;
    }
    const nodeList = this.nodeLister.list();
    const sel = ds.spec?.selector;
    if (sel && semanticEqual(sel, {})) {
      this.recorder.eventf(ownerReference(this.owner(ds)), "Warning", SELECTING_ALL_REASON, "This daemon set is selecting all pods. A non-empty selector is required.");
      return;
    }
    // Being deleted (foreground or orphan): its revisions may be gone or orphaned, so no status
    // can be computed reliably.
    if (ds.metadata?.deletionTimestamp) return;

    let history: { cur: ControllerRevision; old: ControllerRevision[] };
    try {
      history = await this.constructHistory(ds, client);
    } catch (err) {
      throw new Error(`failed to construct revisions of DaemonSet: ${(err as Error).message}`, { cause: err });
    }
    const { cur, old } = history;
    const hash = cur.metadata?.labels?.[DEFAULT_DAEMONSET_UNIQUE_LABEL_KEY] ?? "";

    if (!this.expectations.satisfiedExpectations(key)) {
      // Status only; observedGeneration is not raised for a generation not acted on.
      await this.updateDaemonSetStatus(ds, nodeList, hash, false, client);
      return;
    }
    let syncErr: unknown;
    try {
      await this.updateDaemonSet(ds, nodeList, hash, key, old, client);
    } catch (err) {
      syncErr = err ?? new Error("sync failed");
    }
    let statusErr: unknown;
    try {
      await this.updateDaemonSetStatus(ds, nodeList, hash, true, client);
    } catch (err) {
      statusErr = err ?? new Error("status update failed");
    }
    if (syncErr !== undefined) {
      if (statusErr !== undefined) this.logger.error({ err: statusErr, daemonset: key }, "Failed to update status");
      throw syncErr;
    }
    if (statusErr !== undefined) throw statusErr;
  }

  private async updateDaemonSet(ds: DaemonSet, nodeList: readonly Node[], hash: string, key: string, old: ControllerRevision[], client: ResourceClientFactory): Promise<void> {
    await this.manage(ds, nodeList, hash, client);
    if (this.expectations.satisfiedExpectations(key)) {
      if (ds.spec?.updateStrategy?.type === "RollingUpdate") await this.rollingUpdate(ds, nodeList, hash, client);
    }
    try {
      await this.cleanupHistory(ds, old, client);
    } catch (err) {
      throw new Error(`failed to clean up revisions of DaemonSet: ${(err as Error).message}`, { cause: err });
    }
  }

  /** Creates missing daemon pods and deletes the ones that should go (manage). */
  async manage(ds: DaemonSet, nodeList: readonly Node[], hash: string, client: ResourceClientFactory): Promise<void> {
    const nodeToDaemonPods = await this.getNodesToDaemonPods(ds, false, client);
    const nodesNeeding: string[] = [];
    const podsToDelete: string[] = [];
    for (const node of nodeList) {
      const r = this.podsShouldBeOnNode(node, nodeToDaemonPods, ds, hash);
      nodesNeeding.push(...r.nodesNeedingDaemonPods);
      podsToDelete.push(...r.podsToDelete);
    }
    // Pods for nodes that are gone and were never scheduled: the pod GC never sees them.
    podsToDelete.push(...getUnscheduledPodsWithoutNode(nodeList, nodeToDaemonPods));
    await this.syncNodes(ds, podsToDelete, nodesNeeding, hash, client);
  }

  /** The pods to create and delete on one node (podsShouldBeOnNode). */
  podsShouldBeOnNode(node: Node, nodeToDaemonPods: ReadonlyMap<string, readonly Pod[]>, ds: DaemonSet, hash: string): { nodesNeedingDaemonPods: string[]; podsToDelete: string[] } {
    const nodeName = node.metadata?.name ?? "";
    const { shouldRun, shouldContinueRunning } = nodeShouldRunDaemonPod(node, ds);
    const daemonPods = nodeToDaemonPods.get(nodeName);
    const exists = daemonPods !== undefined;
    const nodesNeedingDaemonPods: string[] = [];
    const podsToDelete: string[] = [];
    const now = this.clock.now();

    if (shouldRun && !exists) {
      nodesNeedingDaemonPods.push(nodeName);
    } else if (shouldContinueRunning) {
      const running: Pod[] = [];
      for (const pod of daemonPods ?? []) {
        if (pod.metadata?.deletionTimestamp) continue;
        const podName = `${pod.metadata?.namespace ?? ""}/${pod.metadata?.name ?? ""}`;
        if (pod.status?.phase === "Failed") {
          // Often a fight with a kubelet that rejects the pod: back off instead of looping.
          const bk = failedPodsBackoffKey(ds, nodeName);
          if (this.failedPodsBackoff.isInBackOffSinceUpdate(bk, now)) {
            this.enqueueAfter(ds, this.failedPodsBackoff.get(bk));
            continue;
          }
          this.failedPodsBackoff.next(bk, now);
          this.recorder.eventf(ownerReference(this.owner(ds)), "Warning", FAILED_DAEMON_POD_REASON, "%s", `Found failed daemon pod ${podName} on node ${nodeName}, will try to kill it`);
          podsToDelete.push(pod.metadata?.name ?? "");
        } else if (pod.status?.phase === "Succeeded") {
          this.recorder.eventf(ownerReference(this.owner(ds)), "Normal", SUCCEEDED_DAEMON_POD_REASON, "%s", `Found succeeded daemon pod ${podName} on node ${nodeName}, will try to delete it`);
          podsToDelete.push(pod.metadata?.name ?? "");
        } else {
          running.push(pod);
        }
      }
      if (!allowsSurge(ds)) {
        // Without surge, one pod per node: all but the oldest go.
        if (running.length > 1) {
          running.sort(compareByCreationTimestampAndPhase);
          for (const p of running.slice(1)) podsToDelete.push(p.metadata?.name ?? "");
        }
      } else if (running.length <= 1) {
        // Surging needs at least one non-deleted pod on the node.
        if (running.length === 0 && shouldRun) nodesNeedingDaemonPods.push(nodeName);
      } else {
        // With surge two pods may run, only while the oldest new pod is not yet available and the
        // oldest old pod is still ready; every other pod goes.
        let oldestNew: Pod | undefined;
        let oldestOld: Pod | undefined;
        running.sort(compareByCreationTimestampAndPhase);
        for (const pod of running) {
          if (pod.metadata?.labels?.[DEFAULT_DAEMONSET_UNIQUE_LABEL_KEY] === hash) {
            if (!oldestNew) {
              oldestNew = pod;
              continue;
            }
          } else if (!oldestOld) {
            oldestOld = pod;
            continue;
          }
          podsToDelete.push(pod.metadata?.name ?? "");
        }
        if (oldestNew && oldestOld) {
          if (!isPodReady(oldestOld)) podsToDelete.push(oldestOld.metadata?.name ?? "");
          else if (isPodAvailable(oldestNew, ds.spec?.minReadySeconds ?? 0, now)) podsToDelete.push(oldestOld.metadata?.name ?? "");
        }
      }
    } else if (exists) {
      // Should not run here, but does: every daemon pod on the node goes.
      for (const pod of daemonPods ?? []) if (!pod.metadata?.deletionTimestamp) podsToDelete.push(pod.metadata?.name ?? "");
    }
    return { nodesNeedingDaemonPods, podsToDelete };
  }

  /** Deletes `podsToDelete` and creates a pod on each node of `nodesNeeding`, with expectations (syncNodes). */
  async syncNodes(ds: DaemonSet, podsToDelete: readonly string[], nodesNeeding: readonly string[], hash: string, client: ResourceClientFactory): Promise<void> {
    const key = metaNamespaceKey(ds);
    const ns = ds.metadata?.namespace ?? "";
    const createDiff = Math.min(nodesNeeding.length, this.burstReplicas);
    const deleteDiff = Math.min(podsToDelete.length, this.burstReplicas);
    this.expectations.setExpectations(key, createDiff, deleteDiff);
    const errors: unknown[] = [];
    const podControl = this.podControlFor(client);
    const owner = this.owner(ds);
    const template = createPodTemplate(ds.spec?.template, templateGenerationOrUndefined(ds), hash);
    const controllerRef = newControllerRef(ds, DAEMONSET_GVK);

    const create = async (nodeName: string): Promise<void> => {
      const podTemplate = deepCopy(template);
      const spec = podTemplate.spec ?? { containers: [] };
      // Pinned to the node by required node affinity; the scheduler binds it.
      spec.affinity = replaceDaemonSetPodNodeNameNodeAffinity(spec.affinity, nodeName);
      podTemplate.spec = spec;
      try {
        await podControl.createPods(ns, podTemplate, owner, controllerRef);
      } catch (err) {
        // A terminating namespace refuses every create: nothing to retry.
        if (hasNamespaceTerminatingCause(err)) return;
        this.expectations.creationObserved(key);
        errors.push(err);
      }
    };
    // Slow start: batches of 1, 2, 4, …; a batch with a failure ends the creates.
    let batchSize = Math.min(createDiff, SLOW_START_INITIAL_BATCH_SIZE);
    for (let pos = 0; createDiff > pos; ) {
      const errorCount = errors.length;
      await Promise.all(nodesNeeding.slice(pos, pos + batchSize).map((n) => create(n)));
      const skipped = createDiff - (batchSize + pos);
      if (errorCount < errors.length && skipped > 0) {
        // The pods never attempted are not expected; the next sync tries again.
        this.expectations.lowerExpectations(key, skipped, 0);
        break;
      }
      const next = Math.min(2 * batchSize, createDiff - (pos + batchSize));
      pos += batchSize;
      batchSize = next;
    }

    await Promise.all(
      podsToDelete.slice(0, deleteDiff).map(async (name) => {
        try {
          await podControl.deletePod(ns, name, owner);
        } catch (err) {
          this.expectations.deletionObserved(key);
          if (!isNotFound(err)) errors.push(err);
        }
      }),
    );
    if (errors.length > 0) throw aggregate(errors);
  }

  private async rollingUpdate(ds: DaemonSet, nodeList: readonly Node[], hash: string, client: ResourceClientFactory): Promise<void> {
    const nodeToDaemonPods = await this.getNodesToDaemonPods(ds, false, client);
    const ns = ds.metadata?.namespace ?? "";
    const plan = planRollingUpdate(ds, nodeList, nodeToDaemonPods, hash, {
      nowMs: this.clock.now(),
      getNode: (name) => this.nodeLister.get(name),
      podExists: (name) => {
        try {
          this.podLister.namespace(ns).get(name);
          return true;
        } catch {
          return false;
        }
      },
    });
    await this.syncNodes(ds, plan.podsToDelete, plan.nodesToCreate, hash, client);
  }

  // ---------------------------------------------------------------------------------------------
  // History (update.go)

  /** The ControllerRevisions this DaemonSet controls, after adoption and release (controlledHistories). */
  private async controlledHistories(ds: DaemonSet, client: ResourceClientFactory): Promise<ControllerRevision[]> {
    const ns = ds.metadata?.namespace ?? "";
    const cm = new ControllerRefManager<ControllerRevision>({
      owner: ds,
      ownerGVK: DAEMONSET_GVK,
      selector: labelSelectorAsSelector(ds.spec?.selector),
      client: client.resource(builtin.controllerRevisions, ns),
      canAdopt: this.canAdopt(ds, client),
    });
    return cm.claim(this.historyLister.namespace(ns).list());
  }

  /**
   * The current revision (created when missing, deduplicated, renumbered to follow the old ones)
   * and the old ones (constructHistory).
   */
  async constructHistory(ds: DaemonSet, client: ResourceClientFactory): Promise<{ cur: ControllerRevision; old: ControllerRevision[] }> {
    const revisions = client.resource(builtin.controllerRevisions, ds.metadata?.namespace ?? "");
    const current: ControllerRevision[] = [];
    const old: ControllerRevision[] = [];
    for (let h of await this.controlledHistories(ds, client)) {
      // The unique label, from the name (not the hash: no collision to worry about).
      if (h.metadata?.labels?.[DEFAULT_DAEMONSET_UNIQUE_LABEL_KEY] === undefined) {
        const toUpdate = deepCopy(h);
        toUpdate.metadata = { ...toUpdate.metadata, labels: { ...(toUpdate.metadata?.labels ?? {}), [DEFAULT_DAEMONSET_UNIQUE_LABEL_KEY]: toUpdate.metadata?.name ?? "" } };
        h = await revisions.update(toUpdate);
      }
      if (revisionMatches(ds, h)) current.push(h);
      else old.push(h);
    }
    const currRevision = maxRevision(old) + 1;
    if (current.length === 0) return { cur: await this.snapshot(ds, currRevision, client), old };
    const cur = await this.dedupCurHistories(ds, current, client);
    if (cur.revision < currRevision) {
      await revisions.update({ ...deepCopy(cur), revision: currRevision });
    }
    return { cur, old };
  }

  /** Keeps the highest-numbered of several current revisions, relabelling pods to it (dedupCurHistories). */
  private async dedupCurHistories(ds: DaemonSet, current: ControllerRevision[], client: ResourceClientFactory): Promise<ControllerRevision> {
    if (current.length === 1) return current[0];
    let keep = current[0];
    for (const c of current) if (c.revision >= keep.revision) keep = c;
    const keepHash = keep.metadata?.labels?.[DEFAULT_DAEMONSET_UNIQUE_LABEL_KEY] ?? "";
    const ns = ds.metadata?.namespace ?? "";
    const pods = client.resource(builtin.pods, ns);
    for (const pod of await this.getDaemonPods(ds, client)) {
      if (pod.metadata?.labels?.[DEFAULT_DAEMONSET_UNIQUE_LABEL_KEY] !== keepHash) {
        await pods.patch(pod.metadata?.name ?? "", "merge", { metadata: { labels: { [DEFAULT_DAEMONSET_UNIQUE_LABEL_KEY]: keepHash } } });
      }
    }
    const revisions = client.resource(builtin.controllerRevisions, ns);
    for (const c of current) {
      if (c.metadata?.name === keep.metadata?.name) continue;
      await revisions.delete(c.metadata?.name ?? "");
    }
    return keep;
  }

  /**
   * Creates the revision of the current template (snapshot). On a name clash with a revision of
   * another template, status.collisionCount goes up (so the next hash differs) and the create's
   * error is returned for a retry.
   */
  private async snapshot(ds: DaemonSet, revision: number, client: ResourceClientFactory): Promise<ControllerRevision> {
    const ns = ds.metadata?.namespace ?? "";
    const revisions = client.resource(builtin.controllerRevisions, ns);
    const history = newDaemonSetRevision(ds, revision);
    try {
      return await revisions.create(history);
    } catch (outerErr) {
      if (!isAlreadyExists(outerErr)) throw outerErr;
      const existing = await revisions.get(history.metadata?.name ?? "");
      if (revisionMatches(ds, existing)) return existing;
      const dss = client.resource(builtin.daemonSets, ns);
      const currDS = await dss.get(ds.metadata?.name ?? "");
      // A stale collision count hashed the name: retry once the cache catches up, no bump.
      if ((currDS.status?.collisionCount ?? undefined) !== (ds.status?.collisionCount ?? undefined)) {
        throw new Error(
          `found a stale collision count (${ds.status?.collisionCount ?? "nil"}, expected ${currDS.status?.collisionCount ?? "nil"}) of DaemonSet ${JSON.stringify(ds.metadata?.name ?? "")} while processing; will retry until it is updated`,
        );
      }
      const next = deepCopy(currDS);
      next.status = { ...(next.status ?? { currentNumberScheduled: 0, desiredNumberScheduled: 0, numberMisscheduled: 0, numberReady: 0 }), collisionCount: (currDS.status?.collisionCount ?? 0) + 1 };
      await dss.updateStatus(next);
      this.logger.info({ daemonset: metaNamespaceKey(ds), collisionCount: next.status.collisionCount }, "Found a hash collision for DaemonSet - bumping collisionCount to resolve it");
      throw outerErr;
    }
  }

  /** Deletes the oldest old revisions beyond revisionHistoryLimit that no pod uses (cleanupHistory). */
  private async cleanupHistory(ds: DaemonSet, old: readonly ControllerRevision[], client: ResourceClientFactory): Promise<void> {
    const nodeToDaemonPods = await this.getNodesToDaemonPods(ds, true, client);
    const toKeep = ds.spec?.revisionHistoryLimit ?? 10;
    let toKill = old.length - toKeep;
    if (toKill <= 0) return;
    const liveHashes = new Set<string>();
    for (const pods of nodeToDaemonPods.values()) {
      for (const p of pods) {
        const h = p.metadata?.labels?.[DEFAULT_DAEMONSET_UNIQUE_LABEL_KEY];
        if (h) liveHashes.add(h);
      }
    }
    const revisions = client.resource(builtin.controllerRevisions, ds.metadata?.namespace ?? "");
    for (const h of sortByRevision(old)) {
      if (toKill <= 0) break;
      if (liveHashes.has(h.metadata?.labels?.[DEFAULT_DAEMONSET_UNIQUE_LABEL_KEY] ?? "")) continue;
      await revisions.delete(h.metadata?.name ?? "");
      toKill--;
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Status

  /** The status counts over the nodes (updateDaemonSetStatus's loop). */
  statusCounts(ds: DaemonSet, nodeList: readonly Node[], nodeToDaemonPods: ReadonlyMap<string, readonly Pod[]>, hash: string): DaemonSetStatusCounts {
    const now = this.clock.now();
    const generation = templateGenerationOrUndefined(ds);
    const c: DaemonSetStatusCounts = {
      desiredNumberScheduled: 0,
      currentNumberScheduled: 0,
      numberMisscheduled: 0,
      numberReady: 0,
      updatedNumberScheduled: 0,
      numberAvailable: 0,
      numberUnavailable: 0,
    };
    for (const node of nodeList) {
      const { shouldRun } = nodeShouldRunDaemonPod(node, ds);
      const pods = nodeToDaemonPods.get(node.metadata?.name ?? "") ?? [];
      const scheduled = pods.length > 0;
      if (!shouldRun) {
        if (scheduled) c.numberMisscheduled++;
        continue;
      }
      c.desiredNumberScheduled++;
      if (!scheduled) continue;
      c.currentNumberScheduled++;
      const pod = [...pods].sort(compareByCreationTimestampAndPhase)[0];
      if (isPodReady(pod)) {
        c.numberReady++;
        if (isPodAvailable(pod, ds.spec?.minReadySeconds ?? 0, now)) c.numberAvailable++;
      }
      if (isPodUpdated(pod, hash, generation)) c.updatedNumberScheduled++;
    }
    c.numberUnavailable = c.desiredNumberScheduled - c.numberAvailable;
    return c;
  }

  private async updateDaemonSetStatus(ds: DaemonSet, nodeList: readonly Node[], hash: string, updateObservedGen: boolean, client: ResourceClientFactory): Promise<void> {
    const nodeToDaemonPods = await this.getNodesToDaemonPods(ds, false, client);
    const counts = this.statusCounts(ds, nodeList, nodeToDaemonPods, hash);
    try {
      await this.storeDaemonSetStatus(ds, counts, updateObservedGen, client);
    } catch (err) {
      throw new Error(`error storing status for daemon set ${metaNamespaceKey(ds)}: ${(err as Error).message}`, { cause: err });
    }
    // A last line of defence against clock skew: look again after minReadySeconds.
    const minReady = ds.spec?.minReadySeconds ?? 0;
    if (minReady > 0 && counts.numberReady !== counts.numberAvailable) this.enqueueAfter(ds, minReady * 1000);
  }

  /** Writes the status unless it already says so (storeDaemonSetStatus), retrying once after a fresh GET. */
  private async storeDaemonSetStatus(ds: DaemonSet, c: DaemonSetStatusCounts, updateObservedGen: boolean, client: ResourceClientFactory): Promise<void> {
    const s = ds.status;
    const generation = ds.metadata?.generation ?? 0;
    if (
      (s?.desiredNumberScheduled ?? 0) === c.desiredNumberScheduled &&
      (s?.currentNumberScheduled ?? 0) === c.currentNumberScheduled &&
      (s?.numberMisscheduled ?? 0) === c.numberMisscheduled &&
      (s?.numberReady ?? 0) === c.numberReady &&
      (s?.updatedNumberScheduled ?? 0) === c.updatedNumberScheduled &&
      (s?.numberAvailable ?? 0) === c.numberAvailable &&
      (s?.numberUnavailable ?? 0) === c.numberUnavailable &&
      (s?.observedGeneration ?? 0) >= generation
    ) {
      return;
    }
    const dss = client.resource(builtin.daemonSets, ds.metadata?.namespace ?? "");
    let toUpdate = deepCopy(ds);
    for (let i = 0; ; i++) {
      toUpdate.status = {
        ...(toUpdate.status ?? {}),
        ...(updateObservedGen ? { observedGeneration: generation } : {}),
        ...c,
      };
      try {
        await dss.updateStatus(toUpdate);
        return;
      } catch (err) {
        if (i >= STATUS_UPDATE_RETRIES) throw err;
      }
      toUpdate = await dss.get(ds.metadata?.name ?? "");
    }
  }
}
