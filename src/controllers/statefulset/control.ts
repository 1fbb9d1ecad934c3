/**
 * The StatefulSet control loop (upstream stateful_set_control.go and stateful_set_status_updater.go):
 * one pass over a set and the pods it owns.
 *
 *   1. revisions: list (owned and orphans), sort; the update revision is the set's template as a
 *      revision — the newest one when equal, an older equal one renumbered (rollback), or a new one
 *      (renamed on collision, counting collisions); the current revision is status.currentRevision's,
 *      or the update revision for a new set;
 *   2. pods: those with an ordinal in [start, start + replicas) are the replicas (missing ones
 *      stand in, to be created at the revision newVersionedStatefulSetPod says), the others are
 *      condemned (descending);
 *   3. replicas, in ordinal order (OrderedReady: one step at a time, stopping at the first pod that
 *      is not Running, Ready and Available; Parallel: all at once in slow-start batches): recreate
 *      Failed/Succeeded pods, create missing ones (claims first), create missing claims of Pending
 *      pods, fix identity, storage and claim owner references;
 *   4. condemned pods: claim owner references for the scale-down policy, then deletion (OrderedReady:
 *      highest ordinal first, one at a time, only while every replica is healthy);
 *   5. RollingUpdate (not OnDelete): delete pods not at the update revision from the highest ordinal
 *      down to the partition — one at a time, waiting for each to come back healthy, or up to
 *      maxUnavailable at once (the MaxUnavailableStatefulSet gate, 1.36's rules: Parallel sets delete
 *      old unavailable pods first, then available ones within the budget);
 *   6. status (only when it changed), completing a rolling update once every replica is updated and
 *      ready; then history beyond revisionHistoryLimit is deleted, oldest first, never a live one
 *      (current, update, or any pod's).
 *
 * Invariant: a pass never modifies the cached set or pods (it copies), and the status it writes is
 * computed from what the pass saw and did.
 */
import type { ControllerRevision, StatefulSet, StatefulSetStatus } from "../../apimachinery/api/apps/v1.js";
import type { Pod } from "../../apimachinery/api/core/v1.js";
import { deepCopy } from "../../apimachinery/deepcopy.js";
import { isConflict, isNotFound } from "../../apimachinery/errors.js";
import { labelSelectorAsSelector } from "../../apimachinery/labels.js";
import type { ResourceClient } from "../../client/interfaces.js";
import type { Lister } from "../../informers/lister.js";
import type { Logger } from "../../runtime/logging.js";
import { equalRevision, findEqualRevisions, nextRevision, RevisionHistory, sortControllerRevisions } from "../history/index.js";
import type { StatefulPodControl } from "./podcontrol.js";
import {
  allowsBurst,
  applyRevision,
  completeRollingUpdate,
  descendingOrdinal,
  getEndOrdinal,
  getOrdinal,
  getPodRevision,
  getStartOrdinal,
  getStatefulSetMaxUnavailable,
  identityMatches,
  inconsistentStatus,
  isCreated,
  isFailed,
  isHealthy,
  isPending,
  isRunningAndAvailable,
  isRunningAndReady,
  isSucceeded,
  isTerminating,
  isUnavailable,
  newRevision,
  newVersionedStatefulSetPod,
  podInOrdinalRange,
  replicasOf,
  storageMatches,
} from "./utils.js";

/** The most requests one Parallel step has in flight (MaxBatchSize). */
export const MAX_BATCH_SIZE = 500;

/** How often a status write is tried against conflicts (retry.RetryOnConflict's DefaultBackoff). */
const STATUS_UPDATE_ATTEMPTS = 4;

export interface StatefulSetControlDeps {
  podControl: StatefulPodControl;
  history: RevisionHistory;
  /** The namespace's StatefulSets client (status writes). */
  sets: ResourceClient<StatefulSet>;
  setLister: Lister<StatefulSet>;
  logger: Logger;
  /** Epoch ms "now" (the manager's Clock). */
  now: number;
  signal?: AbortSignal;
  /** The MaxUnavailableStatefulSet feature gate. */
  maxUnavailable: boolean;
}

/** Several errors of one pass, as utilerrors.NewAggregate. */
export class AggregateSyncError extends Error {
  constructor(readonly errors: unknown[]) {
    super(errors.length === 1 ? String((errors[0] as Error)?.message ?? errors[0]) : `[${errors.map((e) => (e as Error)?.message ?? String(e)).join(", ")}]`);
    this.name = "AggregateSyncError";
  }
}

/** Runs fn over [0, n) in slow-start batches (1, 2, 4, … at most MAX_BATCH_SIZE); stops after a batch with failures. */
export async function slowStartBatch(initialBatchSize: number, remaining: number, fn: (i: number) => Promise<unknown>): Promise<number> {
  let successes = 0;
  let j = 0;
  for (let batch = Math.min(remaining, initialBatchSize); batch > 0; batch = Math.min(Math.min(2 * batch, remaining), MAX_BATCH_SIZE)) {
    const idx = Array.from({ length: batch }, () => j++);
    const results = await Promise.allSettled(idx.map((k) => fn(k)));
    const errs = results.filter((r): r is PromiseRejectedResult => r.status === "rejected").map((r) => r.reason as unknown);
    successes += batch - errs.length;
    if (errs.length > 0) throw errs.length === 1 ? errs[0] : new AggregateSyncError(errs);
    remaining -= batch;
  }
  return successes;
}

/** OrderedReady: one at a time, stopping at the first that says so; Parallel: all, in batches (runForAll). */
async function runForAll(n: number, fn: (i: number) => Promise<boolean>, monotonic: boolean): Promise<boolean> {
  if (monotonic) {
    for (let i = 0; i < n; i++) if (await fn(i)) return true;
    return false;
  }
  await slowStartBatch(1, n, fn);
  return false;
}

function emptyStatus(): StatefulSetStatus {
  return { replicas: 0, readyReplicas: 0, availableReplicas: 0, currentReplicas: 0, updatedReplicas: 0 };
}

/** Counts replicas, ready, available, current and updated over the pod lists (updateStatus); modifies `status`. */
export function updateStatus(status: StatefulSetStatus, minReadySeconds: number, now: number, current: ControllerRevision, update: ControllerRevision, ...lists: Pod[][]): void {
  Object.assign(status, { replicas: 0, readyReplicas: 0, availableReplicas: 0, currentReplicas: 0, updatedReplicas: 0 });
  for (const pods of lists) {
    for (const pod of pods) {
      if (isCreated(pod)) status.replicas++;
      if (isRunningAndReady(pod)) {
        status.readyReplicas = (status.readyReplicas ?? 0) + 1;
        if (isRunningAndAvailable(pod, minReadySeconds, now)) status.availableReplicas = (status.availableReplicas ?? 0) + 1;
      }
      if (isCreated(pod) && !isTerminating(pod)) {
        const rev = getPodRevision(pod);
        if (rev === current.metadata?.name) status.currentReplicas = (status.currentReplicas ?? 0) + 1;
        if (rev === update.metadata?.name) status.updatedReplicas = (status.updatedReplicas ?? 0) + 1;
      }
    }
  }
}

export class StatefulSetControl {
  constructor(private readonly d: StatefulSetControlDeps) {}

  /** One pass (UpdateStatefulSet): resolves to the status computed, rejects after recording what it could. */
  async updateStatefulSet(cachedSet: StatefulSet, pods: Pod[]): Promise<StatefulSetStatus | undefined> {
    const set = deepCopy(cachedSet);
    const revisions = await this.listRevisions(set);
    sortControllerRevisions(revisions);
    let current: ControllerRevision | undefined;
    let update: ControllerRevision | undefined;
    let status: StatefulSetStatus | undefined;
    try {
      ({ current, update, status } = await this.performUpdate(set, pods, revisions));
    } catch (err) {
      const errs = err instanceof AggregateSyncError ? [...err.errors] : [err];
      const partial = (err as { current?: ControllerRevision; update?: ControllerRevision }) ?? {};
      try {
        await this.truncateHistory(set, pods, revisions, partial.current, partial.update);
      } catch (e) {
        errs.push(e);
      }
      throw errs.length === 1 ? errs[0] : new AggregateSyncError(errs);
    }
    await this.truncateHistory(set, pods, revisions, current, update);
    return status;
  }

  async listRevisions(set: StatefulSet): Promise<ControllerRevision[]> {
    return this.d.history.list(set, labelSelectorAsSelector(set.spec?.selector), this.d.signal);
  }

  private async performUpdate(
    set: StatefulSet,
    pods: Pod[],
    revisions: ControllerRevision[],
  ): Promise<{ current: ControllerRevision; update: ControllerRevision; status: StatefulSetStatus }> {
    const { current, update, collisionCount } = await this.getStatefulSetRevisions(set, revisions);
    let status: StatefulSetStatus | undefined;
    let err: unknown;
    try {
      status = await this.updateStatefulSetPods(set, current, update, collisionCount, pods);
    } catch (e) {
      if (e instanceof PassError) {
        status = e.status;
        err = e.cause;
      } else {
        throw Object.assign(asError(e), { current, update });
      }
    }
    let statusErr: unknown;
    try {
      await this.updateStatefulSetStatus(set, status!);
      this.d.logger.debug(
        {
          statefulSet: `${set.metadata?.namespace}/${set.metadata?.name}`,
          replicas: status!.replicas,
          readyReplicas: status!.readyReplicas,
          currentReplicas: status!.currentReplicas,
          updatedReplicas: status!.updatedReplicas,
        },
        "Updated status",
      );
    } catch (e) {
      statusErr = e;
    }
    if (err !== undefined) {
      if (statusErr !== undefined) this.d.logger.error({ err: statusErr }, "Could not update status");
      throw Object.assign(asError(err), { current, update });
    }
    if (statusErr !== undefined) throw Object.assign(asError(statusErr), { current, update });
    return { current, update, status: status! };
  }

  /** The current and update revisions and the collision count (getStatefulSetRevisions); may create or renumber one. */
  async getStatefulSetRevisions(
    set: StatefulSet,
    revisions: ControllerRevision[],
  ): Promise<{ current: ControllerRevision; update: ControllerRevision; collisionCount: number }> {
    sortControllerRevisions(revisions);
    let collisionCount = set.status?.collisionCount ?? 0;
    let update = newRevision(set, nextRevision(revisions), collisionCount);
    const equal = findEqualRevisions(revisions, update);
    const n = revisions.length;
    if (equal.length > 0 && equalRevision(revisions[n - 1], equal[equal.length - 1])) {
      // The newest revision is the set's template: nothing changed.
      update = revisions[n - 1];
    } else if (equal.length > 0) {
      // An older revision holds the template: roll back by renumbering it.
      update = await this.d.history.updateRevision(equal[equal.length - 1], update.revision, this.d.signal);
    } else {
      const created = await this.d.history.create(set, update, collisionCount, this.d.signal);
      update = created.revision;
      collisionCount = created.collisionCount;
    }
    const current = revisions.find((r) => r.metadata?.name === set.status?.currentRevision) ?? update;
    return { current, update, collisionCount };
  }

  /** Deletes non-live revisions beyond revisionHistoryLimit, oldest first (truncateHistory). */
  async truncateHistory(set: StatefulSet, pods: Pod[], revisions: ControllerRevision[], current?: ControllerRevision, update?: ControllerRevision): Promise<void> {
    const live = new Set<string>();
    if (current?.metadata?.name) live.add(current.metadata.name);
    if (update?.metadata?.name) live.add(update.metadata.name);
    for (const p of pods) live.add(getPodRevision(p));
    const history = revisions.filter((r) => !live.has(r.metadata?.name ?? ""));
    const limit = set.spec?.revisionHistoryLimit ?? 10;
    if (history.length <= limit) return;
    for (const r of history.slice(0, history.length - limit)) await this.d.history.delete(r, this.d.signal);
  }

  private async processReplica(set: StatefulSet, updateSet: StatefulSet, monotonic: boolean, replicas: Pod[], i: number): Promise<boolean> {
    const pc = this.d.podControl;
    const pod = replicas[i];
    const log = { statefulSet: `${set.metadata?.namespace}/${set.metadata?.name}`, pod: pod.metadata?.name };
    // Failed or Succeeded (evicted, or stopped by a node reboot): delete; the next sync recreates it once it is gone.
    if (isFailed(pod) || isSucceeded(pod)) {
      if (!pod.metadata?.deletionTimestamp) await pc.deleteStatefulPod(set, pod);
      return true;
    }
    if (!isCreated(pod)) {
      // A claim still owned by an earlier pod of this name: wait for the garbage collector.
      if (pc.podClaimIsStale(set, pod)) return true;
      await pc.createStatefulPod(set, pod);
      if (monotonic) return true;
    }
    if (isPending(pod)) {
      this.d.logger.debug(log, "StatefulSet is triggering PVC creation for pending Pod");
      await pc.createMissingPersistentVolumeClaims(set, pod);
    }
    if (isTerminating(pod) && monotonic) {
      this.d.logger.debug(log, "StatefulSet is waiting for Pod to Terminate");
      return true;
    }
    if (!isRunningAndReady(pod) && monotonic) {
      this.d.logger.debug(log, "StatefulSet is waiting for Pod to be Running and Ready");
      return true;
    }
    if (!isRunningAndAvailable(pod, set.spec?.minReadySeconds ?? 0, this.d.now) && monotonic) {
      this.d.logger.debug(log, "StatefulSet is waiting for Pod to be Available");
      return true;
    }
    let retentionMatch = true;
    try {
      retentionMatch = await pc.claimsMatchRetentionPolicy(updateSet, pod);
    } catch {
      retentionMatch = true; // not yet fully updated: treated as matching
    }
    if (identityMatches(set, pod) && storageMatches(set, pod) && retentionMatch) return false;
    await pc.updateStatefulPod(updateSet, deepCopy(pod));
    return false;
  }

  private async processCondemned(set: StatefulSet, firstUnhealthyPod: Pod | undefined, monotonic: boolean, condemned: Pod[], i: number): Promise<boolean> {
    const pod = condemned[i];
    const log = { statefulSet: `${set.metadata?.namespace}/${set.metadata?.name}`, pod: pod.metadata?.name };
    if (isTerminating(pod)) {
      if (monotonic) {
        this.d.logger.debug(log, "StatefulSet is waiting for Pod to Terminate prior to scale down");
        return true;
      }
      return false;
    }
    if (!isRunningAndReady(pod) && monotonic && pod !== firstUnhealthyPod) {
      this.d.logger.debug({ ...log, pod: firstUnhealthyPod?.metadata?.name }, "StatefulSet is waiting for Pod to be Running and Ready prior to scale down");
      return true;
    }
    if (!isRunningAndAvailable(pod, set.spec?.minReadySeconds ?? 0, this.d.now) && monotonic && pod !== firstUnhealthyPod) {
      this.d.logger.debug({ ...log, pod: firstUnhealthyPod?.metadata?.name }, "StatefulSet is waiting for Pod to be Available prior to scale down");
      return true;
    }
    this.d.logger.info(log, "Pod of StatefulSet is terminating for scale down");
    await this.d.podControl.deleteStatefulPod(set, pod);
    return true;
  }

  /**
   * Creates, updates and deletes pods toward the set's spec (updateStatefulSet); resolves to the
   * status to record. A failure part-way rejects with a PassError carrying the status so far.
   */
  async updateStatefulSetPods(set: StatefulSet, current: ControllerRevision, update: ControllerRevision, collisionCount: number, pods: Pod[]): Promise<StatefulSetStatus> {
    const currentSet = applyRevision(set, current);
    const updateSet = applyRevision(set, update);
    const minReady = set.spec?.minReadySeconds ?? 0;
    const now = this.d.now;
    const status: StatefulSetStatus = {
      ...emptyStatus(),
      observedGeneration: set.metadata?.generation ?? 0,
      currentRevision: current.metadata?.name,
      updateRevision: update.metadata?.name,
      collisionCount,
    };
    updateStatus(status, minReady, now, current, update, pods);

    const start = getStartOrdinal(set);
    const replicaCount = replicasOf(set);
    const replicas: Pod[] = new Array<Pod>(replicaCount);
    const condemned: Pod[] = [];
    for (const pod of pods) {
      if (podInOrdinalRange(pod, set)) replicas[getOrdinal(pod) - start] = pod;
      else if (getOrdinal(pod) >= 0) condemned.push(pod);
    }
    for (let ord = start; ord <= getEndOrdinal(set); ord++) {
      if (!replicas[ord - start]) replicas[ord - start] = newVersionedStatefulSetPod(currentSet, updateSet, current.metadata?.name ?? "", update.metadata?.name ?? "", ord);
    }
    condemned.sort(descendingOrdinal);

    let unhealthy = 0;
    let firstUnhealthyPod: Pod | undefined;
    for (const p of replicas) {
      if (!isHealthy(p)) {
        unhealthy++;
        firstUnhealthyPod ??= p;
      }
    }
    for (let i = condemned.length - 1; i >= 0; i--) {
      if (!isHealthy(condemned[i])) {
        unhealthy++;
        firstUnhealthyPod ??= condemned[i];
      }
    }
    if (unhealthy > 0) {
      this.d.logger.debug({ statefulSet: `${set.metadata?.namespace}/${set.metadata?.name}`, unhealthyReplicas: unhealthy, pod: firstUnhealthyPod?.metadata?.name }, "StatefulSet has unhealthy Pods");
    }

    // Being deleted: only status.
    if (set.metadata?.deletionTimestamp) return status;

    const monotonic = !allowsBurst(set);
    const finish = () => updateStatus(status, minReady, now, current, update, replicas, condemned);
    const guarded = async (step: () => Promise<boolean>): Promise<boolean> => {
      try {
        const exit = await step();
        if (exit) finish();
        return exit;
      } catch (err) {
        finish();
        throw new PassError(status, err);
      }
    };

    if (await guarded(() => runForAll(replicas.length, (i) => this.processReplica(set, updateSet, monotonic, replicas, i), monotonic))) return status;

    const fixPodClaim = async (i: number): Promise<boolean> => {
      if (!(await this.d.podControl.claimsMatchRetentionPolicy(updateSet, condemned[i]))) await this.d.podControl.updatePodClaimForRetentionPolicy(updateSet, condemned[i]);
      return false;
    };
    if (await guarded(() => runForAll(condemned.length, fixPodClaim, monotonic))) return status;

    if (await guarded(() => runForAll(condemned.length, (i) => this.processCondemned(set, firstUnhealthyPod, monotonic, condemned, i), monotonic))) return status;

    finish();
    // OnDelete: pods are updated when someone deletes them.
    if (set.spec?.updateStrategy?.type === "OnDelete") return status;

    try {
      if (this.d.maxUnavailable) await this.updateAfterInvariantEstablished(set, replicas, update, status);
      else await this.updateOneAtATime(set, replicas, update, status);
    } catch (err) {
      throw new PassError(status, err);
    }
    return status;
  }

  /** The rolling update without the gate: the highest-ordinal outdated pod, one at a time. */
  private async updateOneAtATime(set: StatefulSet, replicas: Pod[], update: ControllerRevision, status: StatefulSetStatus): Promise<void> {
    const updateMin = set.spec?.updateStrategy?.rollingUpdate?.partition ?? 0;
    for (let target = replicas.length - 1; target >= updateMin; target--) {
      const pod = replicas[target];
      if (getPodRevision(pod) !== update.metadata?.name && !isTerminating(pod)) {
        this.d.logger.info({ statefulSet: `${set.metadata?.namespace}/${set.metadata?.name}`, pod: pod.metadata?.name }, "Pod of StatefulSet is terminating for update");
        try {
          await this.d.podControl.deleteStatefulPod(set, pod);
        } catch (err) {
          if (!isNotFound(err)) throw err;
        }
        status.currentReplicas = (status.currentReplicas ?? 0) - 1;
        return;
      }
      if (!isHealthy(pod)) {
        this.d.logger.debug({ statefulSet: `${set.metadata?.namespace}/${set.metadata?.name}`, pod: pod.metadata?.name }, "StatefulSet is waiting for Pod to update");
        return;
      }
    }
  }

  /** The rolling update with maxUnavailable (updateStatefulSetAfterInvariantEstablished, 1.36). */
  private async updateAfterInvariantEstablished(set: StatefulSet, replicas: Pod[], update: ControllerRevision, status: StatefulSetStatus): Promise<void> {
    const rolling = set.spec?.updateStrategy?.rollingUpdate;
    const updateMin = rolling?.partition ?? 0;
    const maxUnavailable = rolling ? getStatefulSetMaxUnavailable(rolling.maxUnavailable, replicasOf(set)) : 1;
    const minReady = set.spec?.minReadySeconds ?? 0;
    const now = this.d.now;
    const parallel = set.spec?.podManagementPolicy === "Parallel";
    const updateName = update.metadata?.name;
    const log = { statefulSet: `${set.metadata?.namespace}/${set.metadata?.name}` };

    let unavailablePods = 0;
    let unavailableNeedingUpdate = 0;
    for (const pod of replicas) {
      if (isUnavailable(pod, minReady, now)) {
        unavailablePods++;
        if (parallel && getPodRevision(pod) !== updateName && !isTerminating(pod)) unavailableNeedingUpdate++;
      }
    }
    if (unavailablePods >= maxUnavailable && unavailableNeedingUpdate === 0) {
      if (unavailablePods > maxUnavailable) this.d.logger.debug({ ...log, unavailablePods, maxUnavailable }, "StatefulSet found unavailablePods, more than the allowed maxUnavailable");
      return;
    }
    const del = async (pod: Pod, message: string) => {
      this.d.logger.info({ ...log, pod: pod.metadata?.name }, message);
      await this.d.podControl.deleteStatefulPod(set, pod);
      status.currentReplicas = (status.currentReplicas ?? 0) - 1;
    };
    if (parallel) {
      // Old pods that are unavailable anyway go first, so the budget is not spent on good ones.
      for (let t = replicas.length - 1; t >= updateMin; t--) {
        const pod = replicas[t];
        if (getPodRevision(pod) !== updateName && !isRunningAndAvailable(pod, minReady, now) && !isTerminating(pod)) await del(pod, "StatefulSet terminating unavailable Pod for update");
      }
      let budget = maxUnavailable - unavailablePods;
      for (let t = replicas.length - 1; t >= updateMin && budget > 0; t--) {
        const pod = replicas[t];
        if (getPodRevision(pod) !== updateName && isRunningAndAvailable(pod, minReady, now) && !isTerminating(pod)) {
          await del(pod, "StatefulSet terminating Pod for update");
          budget--;
        }
      }
      return;
    }
    const podsToDelete = maxUnavailable - unavailablePods;
    let deleted = 0;
    for (let t = replicas.length - 1; t >= updateMin && deleted < podsToDelete; t--) {
      const pod = replicas[t];
      if (getPodRevision(pod) !== updateName && !isTerminating(pod)) {
        this.d.logger.info({ ...log, pod: pod.metadata?.name }, "StatefulSet terminating Pod for update");
        try {
          await this.d.podControl.deleteStatefulPod(set, pod);
        } catch (err) {
          if (!isNotFound(err)) throw err;
        }
        deleted++;
        status.currentReplicas = (status.currentReplicas ?? 0) - 1;
      }
    }
  }

  /** Completes a finished rolling update and writes the status if it changed (updateStatefulSetStatus). */
  async updateStatefulSetStatus(set: StatefulSet, status: StatefulSetStatus): Promise<void> {
    completeRollingUpdate(set, status);
    if (!inconsistentStatus(set, status)) return;
    await this.writeStatus(deepCopy(set), status);
  }

  /** UpdateStatefulSetStatus: PUT status, on conflict again from the cached copy, a few times. */
  private async writeStatus(set: StatefulSet, status: StatefulSetStatus): Promise<void> {
    let copy = set;
    for (let attempt = 1; ; attempt++) {
      copy.status = { ...status };
      try {
        await this.d.sets.updateStatus(copy, { signal: this.d.signal });
        return;
      } catch (err) {
        if (!isConflict(err) || attempt >= STATUS_UPDATE_ATTEMPTS) throw err;
      }
      try {
        copy = deepCopy(this.d.setLister.namespace(set.metadata?.namespace ?? "").get(set.metadata?.name ?? ""));
      } catch (err) {
        throw new Error(`error getting updated StatefulSet ${set.metadata?.namespace}/${set.metadata?.name} from lister: ${asError(err).message}`, { cause: err });
      }
    }
  }
}

/** A pass that failed part-way: the status it computed so far (still written) and why it stopped. */
export class PassError extends Error {
  constructor(
    readonly status: StatefulSetStatus,
    override readonly cause: unknown,
  ) {
    super(asError(cause).message);
    this.name = "PassError";
  }
}

function asError(e: unknown): Error {
  return e instanceof Error ? e : new Error(String(e));
}
