/**
 * The Deployment controller (upstream deployment_controller.go): event handlers that map
 * Deployment, ReplicaSet and Pod changes to Deployment keys, and syncDeployment, the decision tree
 * run for one key:
 *
 *   gone → nothing · empty selector → SelectingAll warning · unresolvable strategy → warning and
 *   error, no write · claim ReplicaSets (adopt/release) · being deleted → status only ·
 *   paused/resumed conditions · paused → scale + cleanup · rollback annotation → rollback ·
 *   scaling event → proportional scale · otherwise Recreate or RollingUpdate, one step.
 *
 * Composed with the builder: for(deployments), watches(replicaSets) with upstream's add / update /
 * delete handlers (controller reference, else every Deployment selecting an orphan), and
 * watches(pods) for deletions only (a Recreate Deployment waits for its last pod). maxRetries 15; a
 * terminating namespace ends the retries.
 *
 * The controller reads through the manager's cache and writes through the reconcile's client (its
 * calls carry the reconcile's signal); a sync works on a deep copy of the cached Deployment (with
 * the API defaults filled in) and never modifies cached objects.
 */
import type { Deployment, ReplicaSet } from "../../apimachinery/api/apps/v1.js";
import type { Pod } from "../../apimachinery/api/core/v1.js";
import type { OwnerReference } from "../../apimachinery/api/meta/v1.js";
import type { Clock } from "../../apimachinery/clock.js";
import { deepCopy } from "../../apimachinery/deepcopy.js";
import { deepEqual, semanticEqual } from "../../apimachinery/equality.js";
import { isNotFound } from "../../apimachinery/errors.js";
import { labelSelectorAsSelector, type Selector } from "../../apimachinery/labels.js";
import { ObjectName } from "../../apimachinery/objectname.js";
import { getControllerOf, isControlledBy } from "../../apimachinery/ownerrefs.js";
import type { ResourceClientFactory } from "../../client/interfaces.js";
import { builtin } from "../../client/typed.js";
import type { EventRecorder } from "../../events/broadcaster.js";
import { objectFromDeletion } from "../../informers/handlers.js";
import type { Lister } from "../../informers/lister.js";
import type { SharedIndexInformer } from "../../informers/sharedinformer.js";
import { CONTROLLER_UID_INDEX, type DeletedFinalStateUnknown } from "../../informers/store.js";
import type { Controller } from "../../runtime/controller.js";
import { ControllerRefManager, recheckDeletionTimestamp, resolveControllerRef } from "../../runtime/controllerrefmanager.js";
import type { Logger } from "../../runtime/logging.js";
import type { Manager } from "../../runtime/manager.js";
import type { ReconcileContext, ReconcileResult } from "../../runtime/reconcile.js";
import { DEPLOYMENT_GVK, INVALID_STRATEGY_REASON, RECREATE_STRATEGY, ROLLING_UPDATE_STRATEGY, SELECTING_ALL_REASON } from "./constants.js";
import { keyOf, updateDeploymentStatus, type SyncContext } from "./context.js";
import { withDeploymentDefaults } from "./defaults.js";
import { hasNamespaceTerminatingCause, InvalidSelectorError, InvalidStrategyError } from "./errors.js";
import { rolloutRecreate, type PodMap } from "./recreate.js";
import { getDeploymentsForReplicaSet } from "./replicasets.js";
import { getRollbackTo, rollback } from "./rollback.js";
import { rolloutRolling } from "./rolling.js";
import { checkPausedConditions, isScalingEvent, sync, syncStatusOnly } from "./sync.js";
import { validateRollingUpdate } from "./validation.js";

/**
 * How many times a failing key is retried before it is dropped. With the default rate limiter
 * (5ms·2^n) the retries are spread over about 3 minutes.
 */
export const DEPLOYMENT_MAX_RETRIES = 15;

/** kube-controller-manager's --concurrent-deployment-syncs default. */
export const DEFAULT_DEPLOYMENT_WORKERS = 5;

export interface DeploymentControllerOptions {
  /** Workers (default 5). */
  workers?: number;
}

export class DeploymentController {
  readonly controller: Controller;
  readonly deploymentInformer: SharedIndexInformer<Deployment>;
  readonly rsInformer: SharedIndexInformer<ReplicaSet>;
  readonly podInformer: SharedIndexInformer<Pod>;
  /** How the event handlers enqueue a Deployment; replaceable in tests (upstream's enqueueDeployment). */
  enqueueDeployment: (d: Deployment) => void;

  private readonly client: ResourceClientFactory;
  private readonly recorder: EventRecorder;
  private readonly clock: Clock;
  private readonly logger: Logger;
  private readonly dLister: Lister<Deployment>;
  private readonly rsLister: Lister<ReplicaSet>;
  private readonly podLister: Lister<Pod>;

  constructor(mgr: Manager, opts: DeploymentControllerOptions = {}) {
    this.client = mgr.client;
    this.recorder = mgr.eventRecorder("deployment-controller");
    this.clock = mgr.clock;
    this.logger = mgr.logger.child({ controller: "deployment" });

    this.deploymentInformer = mgr.informers.forResource(builtin.deployments);
    this.rsInformer = mgr.informers.forResource(builtin.replicaSets);
    this.podInformer = mgr.informers.forResource(builtin.pods);
    this.dLister = this.deploymentInformer.lister();
    this.rsLister = this.rsInformer.lister();
    this.podLister = this.podInformer.lister();

    this.controller = mgr
      .controller("deployment")
      .for(builtin.deployments)
      .watches(builtin.replicaSets, {
        create: (e) => this.addReplicaSet(e.object),
        update: (e) => this.updateReplicaSet(e.objectOld, e.objectNew),
        delete: (e) => this.deleteReplicaSet(e.object),
      })
      .watches(builtin.pods, { delete: (e) => this.deletePod(e.object) })
      .withOptions({
        maxConcurrentReconciles: opts.workers ?? DEFAULT_DEPLOYMENT_WORKERS,
        maxRetries: DEPLOYMENT_MAX_RETRIES,
        eventSource: "deployment-controller",
      })
      .reconcile((req, ctx) => this.reconcile(req, ctx));
    this.enqueueDeployment = (d) => this.controller.enqueue(d);
  }

  /** The work queue of Deployment keys. */
  get queue(): Controller["queue"] {
    return this.controller.queue;
  }

  // ---------------------------------------------------------------------------------------------
  // Event handlers

  /** A new ReplicaSet wakes its controller, or — an orphan — every Deployment that selects it. */
  addReplicaSet(rs: ReplicaSet): void {
    if (rs.metadata?.deletionTimestamp) {
      // Seen at (re)start while already being deleted: treat as a deletion.
      this.deleteReplicaSet(rs);
      return;
    }
    const ref = getControllerOf(rs);
    if (ref) {
      const d = this.resolveControllerRef(rs.metadata?.namespace ?? "", ref);
      if (!d) return;
      this.logger.debug({ replicaSet: keyOf(rs) }, "ReplicaSet added");
      this.enqueueDeployment(d);
      return;
    }
    const ds = this.getDeploymentsForReplicaSet(rs);
    if (ds.length === 0) return;
    this.logger.debug({ replicaSet: keyOf(rs) }, "Orphan ReplicaSet added");
    for (const d of ds) this.enqueueDeployment(d);
  }

  /**
   * A changed ReplicaSet wakes its controller — the old one too when the controller reference
   * changed — or, an orphan whose labels or reference changed, every Deployment that selects it.
   * Resyncs (same resourceVersion) are ignored.
   */
  updateReplicaSet(oldRS: ReplicaSet, curRS: ReplicaSet): void {
    if (curRS.metadata?.resourceVersion === oldRS.metadata?.resourceVersion) return;
    const curRef = getControllerOf(curRS);
    const oldRef = getControllerOf(oldRS);
    const refChanged = !deepEqual(curRef, oldRef);
    if (refChanged && oldRef) {
      const d = this.resolveControllerRef(oldRS.metadata?.namespace ?? "", oldRef);
      if (d) this.enqueueDeployment(d);
    }
    if (curRef) {
      const d = this.resolveControllerRef(curRS.metadata?.namespace ?? "", curRef);
      if (!d) return;
      this.logger.debug({ replicaSet: keyOf(curRS) }, "ReplicaSet updated");
      this.enqueueDeployment(d);
      return;
    }
    const labelsChanged = !semanticEqual(curRS.metadata?.labels ?? {}, oldRS.metadata?.labels ?? {});
    if (labelsChanged || refChanged) {
      const ds = this.getDeploymentsForReplicaSet(curRS);
      if (ds.length === 0) return;
      this.logger.debug({ replicaSet: keyOf(curRS) }, "Orphan ReplicaSet updated");
      for (const d of ds) this.enqueueDeployment(d);
    }
  }

  /** A deleted ReplicaSet wakes its controller; nobody cares about deleted orphans. */
  deleteReplicaSet(obj: ReplicaSet | DeletedFinalStateUnknown<ReplicaSet>): void {
    const rs = objectFromDeletion(obj);
    if (!rs) {
      this.logger.error({ obj: String(obj) }, "couldn't get object from tombstone");
      return;
    }
    const ref = getControllerOf(rs);
    if (!ref) return;
    const d = this.resolveControllerRef(rs.metadata?.namespace ?? "", ref);
    if (!d) return;
    this.logger.debug({ replicaSet: keyOf(rs) }, "ReplicaSet deleted");
    this.enqueueDeployment(d);
  }

  /** A deleted pod wakes a Recreate Deployment once none of its pods remain. */
  deletePod(obj: Pod | DeletedFinalStateUnknown<Pod>): void {
    const pod = objectFromDeletion(obj);
    if (!pod) {
      this.logger.error({ obj: String(obj) }, "couldn't get object from tombstone");
      return;
    }
    const d = this.getDeploymentForPod(pod);
    if (!d) return;
    this.logger.debug({ pod: keyOf(pod) }, "Pod deleted");
    if (withDeploymentDefaults(deepCopy(d)).spec?.strategy?.type !== RECREATE_STRATEGY) return;
    const rsList = this.rsLister
      .namespace(d.metadata?.namespace ?? "")
      .list()
      .filter((rs) => isControlledBy(rs, d));
    let podMap: PodMap;
    try {
      podMap = this.getPodMapForDeployment(d, rsList);
    } catch {
      return;
    }
    let numPods = 0;
    for (const pods of podMap.values()) numPods += pods.length;
    if (numPods === 0) this.enqueueDeployment(d);
  }

  /** The Deployment behind a pod: its controlling ReplicaSet's controlling Deployment. */
  getDeploymentForPod(pod: Pod): Deployment | undefined {
    const ref = getControllerOf(pod);
    if (!ref || ref.kind !== "ReplicaSet") return undefined;
    let rs: ReplicaSet;
    try {
      rs = this.rsLister.namespace(pod.metadata?.namespace ?? "").get(ref.name);
    } catch {
      return undefined;
    }
    if (rs.metadata?.uid !== ref.uid) return undefined;
    const rsRef = getControllerOf(rs);
    if (!rsRef) return undefined;
    return this.resolveControllerRef(rs.metadata?.namespace ?? "", rsRef);
  }

  /** The Deployment a controller reference names, if it is in the cache with that UID and kind. */
  resolveControllerRef(namespace: string, ref: OwnerReference): Deployment | undefined {
    return resolveControllerRef(this.dLister, namespace, ref, DEPLOYMENT_GVK.kind);
  }

  /** Deployments of the ReplicaSet's namespace whose selector matches it (for orphans). */
  getDeploymentsForReplicaSet(rs: ReplicaSet): Deployment[] {
    const ds = getDeploymentsForReplicaSet(this.dLister.namespace(rs.metadata?.namespace ?? "").list(), rs);
    if (ds.length > 1) {
      this.logger.debug(
        { replicaSet: keyOf(rs), labels: rs.metadata?.labels, deployment: keyOf(ds[0]) },
        "user error! more than one deployment is selecting replica set",
      );
    }
    return ds;
  }

  // ---------------------------------------------------------------------------------------------
  // Sync

  private async reconcile(key: ObjectName, ctx: ReconcileContext): Promise<ReconcileResult | void> {
    try {
      return await this.syncDeployment(key, ctx.client);
    } catch (err) {
      // A terminating namespace refuses every create: nothing to retry, nothing wrong (upstream's handleErr).
      if (hasNamespaceTerminatingCause(err)) {
        ctx.log.debug("namespace is terminating; not retrying");
        return;
      }
      throw err;
    }
  }

  /**
   * Syncs one Deployment ("ns/name" or an ObjectName) and tells the work queue whether to come
   * back: `requeueAfterMs` at the progress deadline of a rollout that shows no progress,
   * `requeue` when that deadline has passed. Throws on failure (the caller retries). Writes go
   * through `client` (the reconcile's, bound to its signal; the manager's by default).
   */
  async syncDeployment(key: string | ObjectName, client: ResourceClientFactory = this.client): Promise<ReconcileResult> {
    const name = typeof key === "string" ? ObjectName.parse(key) : key;
    const start = this.clock.now();
    this.logger.debug({ deployment: name.toString() }, "Started syncing deployment");
    try {
      return await this.syncOne(name, client);
    } finally {
      this.logger.debug({ deployment: name.toString(), durationMs: this.clock.now() - start }, "Finished syncing deployment");
    }
  }

  private async syncOne(name: ObjectName, client: ResourceClientFactory): Promise<ReconcileResult> {
    let cached: Deployment;
    try {
      cached = this.dLister.namespace(name.namespace).get(name.name);
    } catch (err) {
      if (isNotFound(err)) {
        this.logger.debug({ deployment: name.toString() }, "Deployment has been deleted");
        return {};
      }
      throw err;
    }
    const d = withDeploymentDefaults(deepCopy(cached));
    const ctx = this.newContext(client);

    if (d.spec?.selector && deepEqual(d.spec.selector, {})) {
      this.recorder.event(d, "Warning", SELECTING_ALL_REASON, "This deployment is selecting all pods. A non-empty selector is required.");
      if ((d.status?.observedGeneration ?? 0) < (d.metadata?.generation ?? 0)) {
        (d.status ??= {}).observedGeneration = d.metadata?.generation;
        try {
          await updateDeploymentStatus(ctx, d);
        } catch (err) {
          this.logger.debug({ deployment: name.toString(), err: String(err) }, "Failed to record observedGeneration");
        }
      }
      return {};
    }

    try {
      validateRollingUpdate(d);
    } catch (err) {
      if (err instanceof InvalidStrategyError) {
        this.recorder.event(d, "Warning", INVALID_STRATEGY_REASON, `Invalid rolling update strategy: ${err.field}: ${err.detail}`);
      }
      throw err;
    }

    const rsList = await this.getReplicaSetsForDeployment(d, client);
    const podMap = this.getPodMapForDeployment(d, rsList);

    if (d.metadata?.deletionTimestamp) {
      await syncStatusOnly(ctx, d, rsList);
      return ctx.result;
    }
    await checkPausedConditions(ctx, d);
    if (d.spec?.paused) {
      await sync(ctx, d, rsList);
      return ctx.result;
    }
    // Rollback is not re-entrant: nothing else happens until the request is cleared.
    if (getRollbackTo(d) !== undefined) {
      await rollback(ctx, d, rsList);
      return ctx.result;
    }
    if (await isScalingEvent(ctx, d, rsList)) {
      await sync(ctx, d, rsList);
      return ctx.result;
    }
    const type = d.spec?.strategy?.type;
    switch (type) {
      case RECREATE_STRATEGY:
        await rolloutRecreate(ctx, d, rsList, podMap);
        return ctx.result;
      case ROLLING_UPDATE_STRATEGY:
        await rolloutRolling(ctx, d, rsList);
        return ctx.result;
    }
    throw new Error(`unexpected deployment strategy type: ${type ?? ""}`);
  }

  private newContext(client: ResourceClientFactory): SyncContext {
    return {
      deployments: (ns) => client.resource(builtin.deployments, ns),
      replicaSets: (ns) => client.resource(builtin.replicaSets, ns),
      rsLister: (ns) => this.rsLister.namespace(ns),
      recorder: this.recorder,
      clock: this.clock,
      logger: this.logger,
      result: {},
      written: new Map(),
    };
  }

  private selectorOf(d: Deployment): Selector {
    try {
      return labelSelectorAsSelector(d.spec?.selector);
    } catch (err) {
      throw new InvalidSelectorError(keyOf(d), err instanceof Error ? err.message : String(err));
    }
  }

  /**
   * The ReplicaSets this Deployment controls, after adopting matching orphans and releasing owned
   * ones that no longer match (getReplicaSetsForDeployment). Adoption first re-reads the
   * Deployment from the API, so a Deployment deleted meanwhile adopts nothing.
   */
  async getReplicaSetsForDeployment(d: Deployment, client: ResourceClientFactory = this.client): Promise<ReplicaSet[]> {
    const ns = d.metadata?.namespace ?? "";
    const rsList = this.rsLister.namespace(ns).list();
    const selector = this.selectorOf(d);
    const deployments = client.resource(builtin.deployments, ns);
    const canAdopt = recheckDeletionTimestamp(() => deployments.get(d.metadata?.name ?? ""), d.metadata?.uid ?? "");
    const cm = new ControllerRefManager<ReplicaSet>({
      owner: d,
      ownerGVK: DEPLOYMENT_GVK,
      selector,
      client: client.resource(builtin.replicaSets, ns),
      canAdopt,
    });
    return cm.claim(rsList);
  }

  /**
   * The Deployment's pods grouped by controlling ReplicaSet UID (getPodMapForDeployment), from
   * the pod cache's controller-UID index, limited to pods the Deployment's selector matches.
   * Inactive pods are kept: Recreate must see every old pod that may still run.
   */
  getPodMapForDeployment(d: Deployment, rsList: readonly ReplicaSet[]): Map<string, Pod[]> {
    const selector = this.selectorOf(d);
    const ns = d.metadata?.namespace ?? "";
    const indexer = this.podInformer.getIndexer();
    const podMap = new Map<string, Pod[]>();
    for (const rs of rsList) {
      const uid = rs.metadata?.uid;
      if (!uid || podMap.has(uid)) continue;
      const pods = indexer
        .byIndex(CONTROLLER_UID_INDEX, uid)
        .filter((p) => (p.metadata?.namespace ?? "") === ns && selector.matches(p.metadata?.labels ?? {}));
      podMap.set(uid, [...pods]);
    }
    return podMap;
  }

  /** The pods in the cache, for callers that want them (tests, diagnostics). */
  listPods(namespace: string): readonly Pod[] {
    return this.podLister.namespace(namespace).list();
  }
}
