/**
 * The Job controller (kube-controller-manager pkg/controller/job/job_controller.go, 1.36): runs a
 * Job's pods to completion and reports what they did.
 *
 * Flow: Job and pod events enqueue Job keys (pod events batched by 1 s, as upstream's
 * syncJobBatchPeriod); syncJob(key):
 *   1. read the Job from the cache (gone → forget its expectations and back-off; finished → done);
 *   2. claim its pods (adopt matching orphans, adding the tracking finalizer; release the rest);
 *   3. count: active, ready, terminating, and the newly finished pods (those still carrying the
 *      `batch.kubernetes.io/job-tracking` finalizer, not yet in status.uncountedTerminatedPods);
 *   4. decide whether the Job has finished: backoffLimit exceeded (failed > backoffLimit, or for
 *      OnFailure pods the sum of restarts), activeDeadlineSeconds passed, or enough successes;
 *      a failure first records FailureTarget, a success SuccessCriteriaMet, and the terminal
 *      Failed/Complete condition follows once no pod is terminating and every finished pod was
 *      counted (1.36's delayed terminal conditions);
 *   5. otherwise manage pods (only when the expectations of earlier creates/deletes were met):
 *      delete the excess (or, suspended, all active pods), create the missing ones after the pod
 *      failure back-off, in slow-start batches — Indexed jobs get the lowest pending indexes;
 *   6. track: put finished pods' UIDs into status.uncountedTerminatedPods and write status, then
 *      remove their finalizers, then move the UIDs into succeeded/failed and write status again
 *      (so no pod is counted twice or lost however the controller is interrupted).
 *
 * A second controller, job-orphan-pods, removes the tracking finalizer from pods whose Job is gone
 * or finished (syncOrphanPod).
 *
 * Policies (each in its own module): podFailurePolicy (podfailurepolicy.ts: FailJob records
 * FailureTarget with reason PodFailurePolicy, Ignore leaves the failure uncounted, Count counts it,
 * FailIndex fails the pod's index; only terminal pods are matched, as a podFailurePolicy implies
 * podReplacementPolicy Failed), backoffLimitPerIndex with maxFailedIndexes (perindex.ts:
 * status.failedIndexes, the per-index failure-count annotations, per-index back-off, reasons
 * FailedIndexes and MaxFailedIndexesExceeded), successPolicy (successpolicy.ts:
 * SuccessCriteriaMet with reason SuccessPolicy, remaining pods deleted, Complete once they are
 * gone). A Job whose spec.managedBy names another controller is not synced, nor are its pods'
 * finalizers removed (upstream's JobManagedBy).
 *
 * Metrics: upstream's job_controller_* (metrics.ts), moved at the points job_controller.go moves
 * them.
 *
 * Not ported (plainly): the generation check of updateJob (every Job update syncs at once rather
 * than batched).
 *
 * Invariants: (expectations) between a sync that issues N creates/deletes and the informer
 * delivering them, the Job's pods are not managed again; (finalizer expectations) a pod whose
 * finalizer removal was issued is not counted again until the informer shows it without the
 * finalizer (or gone). Objects from the cache are never mutated: the Job is copied first.
 */
import type { Job, JobCondition, JobStatus } from "../../apimachinery/api/batch/v1.js";
import type { Pod, PodTemplateSpec } from "../../apimachinery/api/core/v1.js";
import type { OwnerReference } from "../../apimachinery/api/meta/v1.js";
import type { Clock } from "../../apimachinery/clock.js";
import { deepCopy } from "../../apimachinery/deepcopy.js";
import { semanticEqual } from "../../apimachinery/equality.js";
import { isNotFound } from "../../apimachinery/errors.js";
import type { GroupVersionKind } from "../../apimachinery/gvk.js";
import { labelSelectorAsSelector, labelsEqual, type Selector } from "../../apimachinery/labels.js";
import { metaNamespaceKey, ObjectName } from "../../apimachinery/objectname.js";
import { getControllerOf, newControllerRef } from "../../apimachinery/ownerrefs.js";
import { formatTime, parseTime } from "../../apimachinery/time.js";
import type { ResourceClientFactory } from "../../client/interfaces.js";
import { builtin } from "../../client/typed.js";
import type { EventRecorder } from "../../events/broadcaster.js";
import type { Lister } from "../../informers/lister.js";
import type { Controller } from "../../runtime/controller.js";
import { ControllerRefManager, recheckDeletionTimestamp, resolveControllerRef, selectingOwners } from "../../runtime/controllerrefmanager.js";
import { ControllerExpectations } from "../../runtime/expectations.js";
import type { Logger } from "../../runtime/logging.js";
import type { Manager } from "../../runtime/manager.js";
import type { ReconcileResult } from "../../runtime/reconcile.js";
import {
  errorMessage,
  FAILED_CREATE_POD_REASON,
  FAILED_DELETE_POD_REASON,
  getPodFromTemplate,
  hasNamespaceTerminatingCause,
  SUCCESSFUL_CREATE_POD_REASON,
  SUCCESSFUL_DELETE_POD_REASON,
} from "../replicaset/podcontrol.js";
import { isPodActive, isPodReady } from "../replicaset/podutil.js";
import { sortActivePodsWithRanks } from "../replicaset/ranking.js";
import { SLOW_START_INITIAL_BATCH_SIZE, slowStartBatch } from "../replicaset/slowstart.js";
import { BackoffStore, remainingBackoffMs, type BackoffRecord } from "./backoff.js";
import {
  DEFAULT_BACKOFF_LIMIT,
  DEFAULT_JOB_POD_FAILURE_BACKOFF_MS,
  DEFAULT_JOB_WORKERS,
  JOB_COMPLETE,
  JOB_COMPLETION_INDEX_ANNOTATION,
  JOB_COMPLETION_INDEX_ENV,
  JOB_COMPLETION_INDEX_LABEL,
  JOB_CONTROLLER_NAME,
  JOB_FAILED,
  JOB_FAILURE_TARGET,
  JOB_SUCCESS_CRITERIA_MET,
  JOB_SUSPENDED,
  JOB_TRACKING_FINALIZER,
  MAX_JOB_POD_FAILURE_BACKOFF_MS,
  MAX_POD_CREATE_DELETE_PER_SYNC,
  MAX_UNCOUNTED_PODS,
  MESSAGE_BACKOFF_LIMIT_EXCEEDED,
  MESSAGE_COMPLETIONS_REACHED,
  MESSAGE_DEADLINE_EXCEEDED,
  MESSAGE_FAILED_INDEXES,
  MESSAGE_MAX_FAILED_INDEXES_EXCEEDED,
  REASON_BACKOFF_LIMIT_EXCEEDED,
  REASON_COMPLETIONS_REACHED,
  REASON_DEADLINE_EXCEEDED,
  REASON_FAILED_INDEXES,
  REASON_MAX_FAILED_INDEXES_EXCEEDED,
  REASON_POD_FAILURE_POLICY,
  REASON_SUCCESS_POLICY,
  SYNC_JOB_BATCH_PERIOD_MS,
} from "./constants.js";
import { FinalizerExpectations } from "./finalizerexpectations.js";
import { calculateFailedIndexes, getPodsWithDelayedDeletionPerIndex, hasBackoffLimitPerIndex, indexFailureCountAnnotations, podCreationInfoForIndependentIndexes } from "./perindex.js";
import { getFailJobMessage, matchPodFailurePolicy, nonIgnoredFailedPodsCount } from "./podfailurepolicy.js";
import {
  jobMetrics,
  JOB_SYNC_ACTION_PODS_CREATED,
  JOB_SYNC_ACTION_PODS_DELETED,
  JOB_SYNC_ACTION_RECONCILING,
  JOB_SYNC_ACTION_TRACKING,
  type JobMetrics,
  type JobPodCreationReason,
  type JobSyncAction,
} from "./metrics.js";
import { matchSuccessPolicy } from "./successpolicy.js";
import { firstPendingIndexes, getCompletionIndex, getIndexes, OrderedIntervals, podGenerateNameWithIndex, UNKNOWN_COMPLETION_INDEX } from "./indexes.js";

const MAX_INT32 = 2 ** 31 - 1;

export const JOB_GVK: GroupVersionKind = Object.freeze({ group: "batch", version: "v1", kind: "Job" });

export interface JobControllerOptions {
  /** Workers (default 5, --concurrent-job-syncs). */
  workers?: number;
}

/** The spec fields the controller reads, with the API server's defaults (SetDefaults_Job) applied. */
interface JobSpecView {
  parallelism: number;
  completions: number | undefined;
  backoffLimit: number;
  indexed: boolean;
  suspended: boolean;
  onlyReplaceFailedPods: boolean;
  activeDeadlineSeconds: number | undefined;
}

export function jobSpecView(job: Job): JobSpecView {
  const s = job.spec;
  let completions = s?.completions ?? undefined;
  let parallelism = s?.parallelism ?? undefined;
  if (completions === undefined && parallelism === undefined) {
    completions = 1;
    parallelism = 1;
  }
  return {
    parallelism: parallelism ?? 1,
    completions,
    backoffLimit: s?.backoffLimit ?? (s?.backoffLimitPerIndex != null ? MAX_INT32 : DEFAULT_BACKOFF_LIMIT),
    indexed: s?.completionMode === "Indexed",
    suspended: s?.suspend === true,
    onlyReplaceFailedPods: s?.podReplacementPolicy === "Failed" || s?.podFailurePolicy != null,
    activeDeadlineSeconds: s?.activeDeadlineSeconds ?? undefined,
  };
}

/** The controller named by spec.managedBy when it is not this one (managedByExternalController). */
export function managedByExternalController(job: Job): string | undefined {
  const by = job.spec?.managedBy;
  return by != null && by !== JOB_CONTROLLER_NAME ? by : undefined;
}

/** A finished condition (Complete or Failed) is True (IsJobFinished). */
export function isJobFinished(job: Job): boolean {
  return (job.status?.conditions ?? []).some((c) => (c.type === JOB_COMPLETE || c.type === JOB_FAILED) && c.status === "True");
}

function findCondition(job: Job, type: string): JobCondition | undefined {
  return (job.status?.conditions ?? []).find((c) => c.type === type && c.status === "True");
}

export function hasJobTrackingFinalizer(pod: Pod): boolean {
  return (pod.metadata?.finalizers ?? []).includes(JOB_TRACKING_FINALIZER);
}

/** The strategic merge patch that removes the tracking finalizer, guarded by the pod's UID. */
export function removeTrackingFinalizerPatch(pod: Pod): Record<string, unknown> | undefined {
  if (!hasJobTrackingFinalizer(pod)) return undefined;
  return { metadata: { "$deleteFromPrimitiveList/finalizers": [JOB_TRACKING_FINALIZER], uid: pod.metadata?.uid } };
}

/** Terminal (Succeeded or Failed) and still carrying the tracking finalizer (isFinishedPodWithTrackingFinalizer). */
export function isFinishedPodWithTrackingFinalizer(pod: Pod): boolean {
  return (pod.status?.phase === "Failed" || pod.status?.phase === "Succeeded") && hasJobTrackingFinalizer(pod);
}

/** Failed for the Job: phase Failed, or (unless only failed pods are replaced) deleted before succeeding (isPodFailed). */
export function isPodFailed(pod: Pod, view: Pick<JobSpecView, "onlyReplaceFailedPods">): boolean {
  if (pod.status?.phase === "Failed") return true;
  if (view.onlyReplaceFailedPods) return false;
  return pod.metadata?.deletionTimestamp != null && pod.status?.phase !== "Succeeded";
}

function isTerminating(pod: Pod): boolean {
  return pod.metadata?.deletionTimestamp != null && pod.status?.phase !== "Succeeded" && pod.status?.phase !== "Failed";
}

/** OnFailure pods restarted at least backoffLimit times in total (pastBackoffLimitOnFailure). */
export function pastBackoffLimitOnFailure(job: Job, pods: readonly Pod[], backoffLimit: number): boolean {
  if (job.spec?.template?.spec?.restartPolicy !== "OnFailure") return false;
  let restarts = 0;
  for (const p of pods) {
    if (p.status?.phase !== "Running" && p.status?.phase !== "Pending") continue;
    for (const s of [...(p.status?.initContainerStatuses ?? []), ...(p.status?.containerStatuses ?? [])]) restarts += s.restartCount ?? 0;
  }
  return backoffLimit === 0 ? restarts > 0 : restarts >= backoffLimit;
}

/** Sets a condition's status (ensureJobConditionStatus): a False one is only recorded over an existing condition. */
export function ensureJobConditionStatus(list: JobCondition[], type: string, status: string, reason: string, message: string, nowMs: number): { conditions: JobCondition[]; changed: boolean } {
  const i = list.findIndex((c) => c.type === type);
  const now = formatTime(nowMs);
  if (i >= 0) {
    const c = list[i];
    if (c.status === status && c.reason === reason && c.message === message) return { conditions: list, changed: false };
    const next = [...list];
    next[i] = { ...c, status, reason, message, lastProbeTime: now, ...(c.status !== status ? { lastTransitionTime: now } : {}) };
    return { conditions: next, changed: true };
  }
  if (status === "False") return { conditions: list, changed: false };
  return { conditions: [...list, newCondition(type, status, reason, message, nowMs)], changed: true };
}

export function newCondition(type: string, status: string, reason: string, message: string, nowMs: number): JobCondition {
  const now = formatTime(nowMs);
  return { type, status, ...(reason ? { reason } : {}), ...(message ? { message } : {}), lastProbeTime: now, lastTransitionTime: now };
}

/** What one sync works with (syncJobCtx). */
interface SyncCtx {
  job: Job;
  view: JobSpecView;
  key: string;
  pods: Pod[];
  activePods: Pod[];
  succeeded: number;
  failed: number;
  terminating: number;
  finishedCondition?: JobCondition;
  expectedRmFinalizers: Set<string>;
  uncountedSucceeded: Set<string>;
  uncountedFailed: Set<string>;
  newBackoffRecord: BackoffRecord;
  prevSucceededIndexes?: OrderedIntervals;
  succeededIndexes?: OrderedIntervals;
  /** With backoffLimitPerIndex: status.failedIndexes plus the indexes failed since. */
  failedIndexes?: OrderedIntervals;
  /** With backoffLimitPerIndex: per pending index, the failed pod kept until its replacement exists. */
  podsWithDelayedDeletionPerIndex?: Map<number, Pod>;
  requeueAfterMs?: number;
  client: ResourceClientFactory;
}

export class JobController {
  readonly controller: Controller;
  readonly orphanController: Controller;
  readonly expectations: ControllerExpectations;
  readonly finalizerExpectations = new FinalizerExpectations();
  readonly backoffStore = new BackoffStore();

  private readonly clock: Clock;
  private readonly logger: Logger;
  private readonly recorder: EventRecorder;
  private readonly jobLister: Lister<Job>;
  private readonly podLister: Lister<Pod>;
  private readonly metrics: JobMetrics;

  constructor(mgr: Manager, opts: JobControllerOptions = {}) {
    this.clock = mgr.clock;
    this.logger = mgr.logger.child({ controller: "job" });
    this.recorder = mgr.eventRecorder("job-controller");
    this.expectations = new ControllerExpectations(this.clock);
    this.jobLister = mgr.informers.forResource(builtin.jobs).lister();
    this.podLister = mgr.informers.forResource(builtin.pods).lister();
    this.metrics = jobMetrics(mgr.registry);

    this.controller = mgr
      .controller("job")
      .watches(builtin.jobs, {
        create: (e) => this.addJob(e.object),
        update: (e) => this.updateJob(e.objectOld, e.objectNew),
        delete: (e) => this.deleteJob(e.object),
      })
      .watches(builtin.pods, {
        create: (e) => this.addPod(e.object),
        update: (e) => this.updatePod(e.objectOld, e.objectNew),
        delete: (e) => this.deletePod(e.object, true),
      })
      .withOptions({ maxConcurrentReconciles: opts.workers ?? DEFAULT_JOB_WORKERS, eventSource: "job-controller" })
      .reconcile((req, ctx) => this.syncJob(req.toString(), ctx.client));

    this.orphanController = mgr
      .controller("job-orphan-pods")
      .watches(builtin.pods, (pod) => (this.needsOrphanCleanup(pod) ? [ObjectName.of(pod)] : []))
      .withOptions({ maxConcurrentReconciles: 1, eventSource: "job-controller" })
      .reconcile((req, ctx) => this.syncOrphanPod(req, ctx.client));
  }

  // ---------------------------------------------------------------------------------------------
  // Event handlers

  resolveControllerRef(namespace: string, ref: OwnerReference): Job | undefined {
    return resolveControllerRef(this.jobLister, namespace, ref, JOB_GVK.kind);
  }

  private enqueueJob(job: Job, delayMs: number): void {
    if (delayMs > 0) this.controller.enqueueAfter(metaNamespaceKey(job), delayMs);
    else this.controller.enqueue(metaNamespaceKey(job));
  }

  private addJob(job: Job): void {
    this.enqueueJob(job, 0);
    const by = managedByExternalController(job);
    if (by !== undefined) this.metrics.jobsByExternalControllerTotal.inc({ controller_name: by });
  }

  /** Counts a pod becoming, or ceasing to be, terminal with the tracking finalizer (recordFinishedPodWithTrackingFinalizer). */
  private recordFinishedPodWithTrackingFinalizer(old: Pod | undefined, cur: Pod | undefined): void {
    const was = old !== undefined && isFinishedPodWithTrackingFinalizer(old);
    const is = cur !== undefined && isFinishedPodWithTrackingFinalizer(cur);
    if (was !== is) this.metrics.terminatedPodsTrackingFinalizerTotal.inc({ event: is ? "add" : "delete" });
  }

  private updateJob(old: Job, cur: Job): void {
    if (old.metadata?.uid !== cur.metadata?.uid) {
      this.expectations.deleteExpectations(metaNamespaceKey(old));
      this.finalizerExpectations.deleteExpectations(metaNamespaceKey(old));
    }
    this.enqueueJob(cur, 0);
    // A changed activeDeadlineSeconds: look again when the new deadline passes.
    const start = parseTime(cur.status?.startTime);
    const ads = cur.spec?.activeDeadlineSeconds;
    if (start !== undefined && ads != null && ads !== old.spec?.activeDeadlineSeconds && !isJobFinished(cur)) {
      this.enqueueJob(cur, Math.max(0, start + ads * 1000 - this.clock.now()));
    }
  }

  private deleteJob(job: Job): void {
    this.enqueueJob(job, 0);
    // Pods that still carry the finalizer lose it through the orphan controller.
    for (const p of this.podLister.namespace(job.metadata?.namespace ?? "").list()) {
      if (hasJobTrackingFinalizer(p) && getControllerOf(p)?.uid === job.metadata?.uid) this.orphanController.enqueue(p);
    }
  }

  /** Jobs that select an orphan pod (getPodJobs). */
  getPodJobs(pod: Pod): Job[] {
    const out = selectingOwners(this.jobLister.namespace(pod.metadata?.namespace ?? "").list(), pod.metadata?.labels);
    if (out.length > 1) this.logger.error({ pod: metaNamespaceKey(pod), labels: pod.metadata?.labels }, "user error: more than one job is selecting pods with these labels");
    return out;
  }

  private addPod(pod: Pod): void {
    this.recordFinishedPodWithTrackingFinalizer(undefined, pod);
    if (pod.metadata?.deletionTimestamp) {
      this.deletePod(pod, false);
      return;
    }
    const ref = getControllerOf(pod);
    if (ref) {
      const job = this.resolveControllerRef(pod.metadata?.namespace ?? "", ref);
      if (!job) return;
      this.expectations.creationObserved(metaNamespaceKey(job));
      this.enqueueJob(job, SYNC_JOB_BATCH_PERIOD_MS);
      return;
    }
    for (const job of this.getPodJobs(pod)) this.enqueueJob(job, SYNC_JOB_BATCH_PERIOD_MS);
  }

  private updatePod(old: Pod, cur: Pod): void {
    this.recordFinishedPodWithTrackingFinalizer(old, cur);
    if (old.metadata?.resourceVersion === cur.metadata?.resourceVersion) return;
    if (cur.metadata?.deletionTimestamp) {
      this.deletePod(cur, false);
      return;
    }
    // A pod that just failed wakes its Job with the batch delay; other updates too (the back-off
    // is computed by the sync).
    const finalizerRemoved = !hasJobTrackingFinalizer(cur);
    const curRef = getControllerOf(cur);
    const oldRef = getControllerOf(old);
    const refChanged = !semanticEqual(curRef, oldRef);
    if (refChanged && oldRef) {
      const job = this.resolveControllerRef(old.metadata?.namespace ?? "", oldRef);
      if (job) {
        if (finalizerRemoved) this.finalizerExpectations.finalizerRemovalObserved(metaNamespaceKey(job), cur.metadata?.uid ?? "");
        this.enqueueJob(job, SYNC_JOB_BATCH_PERIOD_MS);
      }
    }
    if (curRef) {
      const job = this.resolveControllerRef(cur.metadata?.namespace ?? "", curRef);
      if (!job) return;
      if (finalizerRemoved) this.finalizerExpectations.finalizerRemovalObserved(metaNamespaceKey(job), cur.metadata?.uid ?? "");
      this.enqueueJob(job, SYNC_JOB_BATCH_PERIOD_MS);
      return;
    }
    if (refChanged || !labelsEqual(cur.metadata?.labels ?? {}, old.metadata?.labels ?? {})) {
      for (const job of this.getPodJobs(cur)) this.enqueueJob(job, SYNC_JOB_BATCH_PERIOD_MS);
    }
  }

  /** A pod went away (final) or got its deletionTimestamp (not final). */
  private deletePod(pod: Pod, final: boolean): void {
    if (final) this.recordFinishedPodWithTrackingFinalizer(pod, undefined);
    const ref = getControllerOf(pod);
    if (!ref) return;
    const job = this.resolveControllerRef(pod.metadata?.namespace ?? "", ref);
    if (!job || isJobFinished(job)) return;
    const key = metaNamespaceKey(job);
    this.expectations.deletionObserved(key);
    if (final || !hasJobTrackingFinalizer(pod)) this.finalizerExpectations.finalizerRemovalObserved(key, pod.metadata?.uid ?? "");
    this.enqueueJob(job, SYNC_JOB_BATCH_PERIOD_MS);
  }

  /** A pod with the tracking finalizer whose Job is gone or finished, or that no Job controls. */
  private needsOrphanCleanup(pod: Pod): boolean {
    if (!hasJobTrackingFinalizer(pod)) return false;
    const ref = getControllerOf(pod);
    if (!ref) return pod.metadata?.deletionTimestamp != null;
    if (ref.kind !== JOB_GVK.kind || ref.apiVersion !== "batch/v1") return false;
    const job = this.resolveControllerRef(pod.metadata?.namespace ?? "", ref);
    if (job && managedByExternalController(job) !== undefined) return false;
    return !job || isJobFinished(job);
  }

  /** Removes the tracking finalizer of a pod no running Job owns (syncOrphanPod). */
  async syncOrphanPod(req: ObjectName, client: ResourceClientFactory): Promise<ReconcileResult> {
    let pod: Pod;
    try {
      pod = this.podLister.namespace(req.namespace).get(req.name);
    } catch (err) {
      if (isNotFound(err)) return {};
      throw err;
    }
    const ref = getControllerOf(pod);
    if (ref) {
      if (ref.kind !== JOB_GVK.kind || ref.apiVersion !== "batch/v1") return {};
      const job = this.resolveControllerRef(req.namespace, ref);
      // The finalizers of pods of a Job another controller manages are that controller's business.
      if (job && managedByExternalController(job) !== undefined) return {};
      if (job && !isJobFinished(job)) return {};
    }
    const patch = removeTrackingFinalizerPatch(pod);
    if (!patch) return {};
    try {
      await client.resource(builtin.pods, req.namespace).patch(req.name, "strategic", patch);
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
    return {};
  }

  // ---------------------------------------------------------------------------------------------
  // Sync

  async syncJob(key: string, client: ResourceClientFactory): Promise<ReconcileResult> {
    const name = ObjectName.parse(key);
    let cached: Job;
    try {
      cached = this.jobLister.namespace(name.namespace).get(name.name);
    } catch (err) {
      if (isNotFound(err)) {
        this.expectations.deleteExpectations(key);
        this.finalizerExpectations.deleteExpectations(key);
        this.backoffStore.remove(key);
        return {};
      }
      throw err;
    }
    // Another controller (spec.managedBy) syncs this Job: leave it, its pods and its status alone.
    if (managedByExternalController(cached) !== undefined) return {};
    if (isJobFinished(cached)) {
      this.backoffStore.remove(key);
      return {};
    }
    // From here on every sync is measured, labelled with what it did (upstream's deferred
    // JobSyncDurationSeconds/JobSyncNum).
    const started = this.clock.now();
    const completionMode = cached.spec?.completionMode === "Indexed" ? "Indexed" : "NonIndexed";
    const did: { action: JobSyncAction } = { action: JOB_SYNC_ACTION_RECONCILING };
    let result = "error";
    try {
      const r = await this.syncUnfinishedJob(key, cached, client, did);
      result = "success";
      return r;
    } finally {
      const labels = { completion_mode: completionMode, result, action: did.action };
      this.metrics.syncDurationSeconds.observe(labels, (this.clock.now() - started) / 1000);
      this.metrics.syncsTotal.inc(labels);
    }
  }

  private async syncUnfinishedJob(key: string, cached: Job, client: ResourceClientFactory, did: { action: JobSyncAction }): Promise<ReconcileResult> {
    const job = deepCopy(cached);
    job.kind ??= "Job";
    job.apiVersion ??= "batch/v1";
    let selector: Selector;
    try {
      selector = labelSelectorAsSelector(job.spec?.selector);
    } catch (err) {
      this.recorder.eventf(job, "Warning", "InvalidSelector", "Job has an invalid selector: %v", errorMessage(err));
      return {};
    }
    if (!job.spec?.selector || selector.empty()) {
      // The API server generates the selector (or validates a manual one); without it every sync
      // would create pods it can never find again.
      this.recorder.event(job, "Warning", "InvalidSelector", "Job has no selector: pods cannot be tracked");
      return {};
    }
    const view = jobSpecView(job);
    const status: JobStatus = (job.status ??= {});
    status.uncountedTerminatedPods ??= {};
    const satisfied = this.expectations.satisfiedExpectations(key);
    const pods = await this.getPodsForJob(job, selector, client);
    const activePods = pods.filter(isPodActive);
    let active = activePods.length;
    const ctx: SyncCtx = {
      job,
      view,
      key,
      pods,
      activePods,
      succeeded: 0,
      failed: 0,
      terminating: pods.filter(isTerminating).length,
      expectedRmFinalizers: this.finalizerExpectations.getExpectedUIDs(key),
      uncountedSucceeded: new Set(status.uncountedTerminatedPods.succeeded ?? []),
      uncountedFailed: new Set(status.uncountedTerminatedPods.failed ?? []),
      newBackoffRecord: { key, failuresAfterLastSuccess: 0 },
      client,
    };
    const { newSucceeded, newFailed } = this.getNewFinishedPods(ctx);
    ctx.succeeded = (status.succeeded ?? 0) + newSucceeded.length + ctx.uncountedSucceeded.size;
    ctx.failed = (status.failed ?? 0) + nonIgnoredFailedPodsCount(job, newFailed) + ctx.uncountedFailed.size;
    let ready = activePods.filter(isPodReady).length;
    const now = this.clock.now();
    if (!status.startTime && !view.suspended) status.startTime = formatTime(now);
    ctx.newBackoffRecord = this.backoffStore.newBackoffRecord(key, newSucceeded, newFailed);

    // A finish decided earlier (an interim condition) carries on to its terminal condition.
    const sc = findCondition(job, JOB_SUCCESS_CRITERIA_MET);
    const ft = findCondition(job, JOB_FAILURE_TARGET);
    if (sc) ctx.finishedCondition = newCondition(JOB_COMPLETE, "True", sc.reason ?? "", sc.message ?? "", now);
    else if (ft) ctx.finishedCondition = newCondition(JOB_FAILED, "True", ft.reason ?? "", ft.message ?? "", now);
    else {
      // A pod matching a FailJob rule: the interim FailureTarget records the message before the
      // finalizers (which let the pods go) are removed.
      const msg = getFailJobMessage(job, pods, (p) => isPodFailed(p, view));
      if (msg !== undefined) ctx.finishedCondition = newCondition(JOB_FAILURE_TARGET, "True", REASON_POD_FAILURE_POLICY, msg, now);
    }

    if (!ctx.finishedCondition) {
      if (ctx.failed > view.backoffLimit || pastBackoffLimitOnFailure(job, pods, view.backoffLimit)) {
        ctx.finishedCondition = newCondition(JOB_FAILURE_TARGET, "True", REASON_BACKOFF_LIMIT_EXCEEDED, MESSAGE_BACKOFF_LIMIT_EXCEEDED, now);
      } else if (this.pastActiveDeadline(job, view)) {
        ctx.finishedCondition = newCondition(JOB_FAILURE_TARGET, "True", REASON_DEADLINE_EXCEEDED, MESSAGE_DEADLINE_EXCEEDED, now);
      } else if (view.activeDeadlineSeconds !== undefined && !view.suspended) {
        const start = parseTime(status.startTime) ?? now;
        ctx.requeueAfterMs = Math.max(0, start + view.activeDeadlineSeconds * 1000 - now);
      }
    }
    if (view.indexed && view.completions !== undefined) {
      ctx.prevSucceededIndexes = OrderedIntervals.parse(status.completedIndexes, view.completions);
      const fresh = new Set<number>();
      for (const p of pods) {
        const ix = getCompletionIndex(p.metadata?.annotations);
        if (p.status?.phase === "Succeeded" && ix !== UNKNOWN_COMPLETION_INDEX && ix < view.completions && hasJobTrackingFinalizer(p)) fresh.add(ix);
      }
      ctx.succeededIndexes = ctx.prevSucceededIndexes.withOrderedIndexes([...fresh].sort((a, b) => a - b));
      ctx.succeeded = ctx.succeededIndexes.total();
      if (hasBackoffLimitPerIndex(job)) {
        const failedIndexes = calculateFailedIndexes(job, pods, view.completions, (p) => isPodFailed(p, view));
        ctx.failedIndexes = failedIndexes;
        if (!ctx.finishedCondition) {
          const maxFailed = job.spec?.maxFailedIndexes;
          if (maxFailed != null && failedIndexes.total() > maxFailed) {
            ctx.finishedCondition = newCondition(JOB_FAILURE_TARGET, "True", REASON_MAX_FAILED_INDEXES_EXCEEDED, MESSAGE_MAX_FAILED_INDEXES_EXCEEDED, now);
          } else if (failedIndexes.total() > 0 && failedIndexes.total() + ctx.succeededIndexes.total() >= view.completions) {
            ctx.finishedCondition = newCondition(JOB_FAILURE_TARGET, "True", REASON_FAILED_INDEXES, MESSAGE_FAILED_INDEXES, now);
          }
        }
        ctx.podsWithDelayedDeletionPerIndex = getPodsWithDelayedDeletionPerIndex({
          job,
          pods,
          activePods,
          completions: view.completions,
          succeededIndexes: ctx.succeededIndexes,
          failedIndexes,
          expectedRmFinalizers: ctx.expectedRmFinalizers,
          isFailed: (p) => isPodFailed(p, view),
        });
      }
      if (!ctx.finishedCondition) {
        const m = matchSuccessPolicy(job.spec?.successPolicy, view.completions, ctx.succeededIndexes);
        if (m.met) ctx.finishedCondition = newCondition(JOB_SUCCESS_CRITERIA_MET, "True", REASON_SUCCESS_POLICY, m.message, now);
      }
    }

    let suspendChanged = false;
    let manageErr: unknown;
    if (ctx.finishedCondition) {
      const { deleted, deletedReady, error } = await this.deleteActivePods(ctx, activePods);
      if (deleted !== active || !satisfied) ctx.finishedCondition = undefined;
      active -= deleted;
      ctx.terminating += deleted;
      ready -= deletedReady;
      manageErr = error;
    } else {
      let managed = false;
      if (satisfied && !job.metadata?.deletionTimestamp) {
        const r = await this.manageJob(ctx);
        did.action = r.action;
        active = r.active;
        ready -= r.removedReady;
        manageErr = r.error;
        managed = true;
      }
      const complete = view.completions === undefined ? ctx.succeeded > 0 && active === 0 : ctx.succeeded >= view.completions && active === 0;
      if (complete) {
        ctx.finishedCondition = newCondition(JOB_SUCCESS_CRITERIA_MET, "True", REASON_COMPLETIONS_REACHED, MESSAGE_COMPLETIONS_REACHED, now);
      } else if (managed) {
        const conds = status.conditions ?? [];
        if (view.suspended) {
          const r = ensureJobConditionStatus(conds, JOB_SUSPENDED, "True", "JobSuspended", "Job suspended", now);
          status.conditions = r.conditions;
          if (r.changed) {
            suspendChanged = true;
            this.recorder.event(job, "Normal", "Suspended", "Job suspended");
          }
        } else {
          const r = ensureJobConditionStatus(conds, JOB_SUSPENDED, "False", "JobResumed", "Job resumed", now);
          status.conditions = r.conditions;
          if (r.changed) {
            suspendChanged = true;
            this.recorder.event(job, "Normal", "Resumed", "Job resumed");
            // Resuming restarts the clock of activeDeadlineSeconds.
            status.startTime = formatTime(now);
          }
        }
      }
    }

    const needsUpdate = suspendChanged || active !== (status.active ?? 0) || ready !== status.ready || ctx.terminating !== status.terminating;
    status.active = active;
    status.ready = ready;
    status.terminating = ctx.terminating;
    if (status.active === 0) delete status.active;
    await this.trackJobStatusAndRemoveFinalizers(ctx, needsUpdate || status.startTime !== cached.status?.startTime);
    if (manageErr) throw manageErr;
    return ctx.requeueAfterMs !== undefined ? { requeueAfterMs: ctx.requeueAfterMs } : {};
  }

  private pastActiveDeadline(job: Job, view: JobSpecView): boolean {
    const start = parseTime(job.status?.startTime);
    if (view.activeDeadlineSeconds === undefined || start === undefined || view.suspended) return false;
    return this.clock.now() - start >= view.activeDeadlineSeconds * 1000;
  }

  /** The Job's pods: claimed (adopting with the tracking finalizer), plus its pods with the finalizer that no longer match. */
  private async getPodsForJob(job: Job, selector: Selector, client: ResourceClientFactory): Promise<Pod[]> {
    const namespace = job.metadata?.namespace ?? "";
    const uid = job.metadata?.uid ?? "";
    const all = this.podLister.namespace(namespace).list();
    const jobs = client.resource(builtin.jobs, namespace);
    const canAdopt = recheckDeletionTimestamp(async () => {
      const fresh = await jobs.get(job.metadata?.name ?? "");
      return { ...fresh, kind: fresh.kind ?? JOB_GVK.kind };
    }, uid);
    const mgr = new ControllerRefManager<Pod>({
      owner: job,
      ownerGVK: JOB_GVK,
      selector,
      client: client.resource(builtin.pods, namespace),
      canAdopt,
      finalizers: [JOB_TRACKING_FINALIZER],
    });
    const claimed = await mgr.claim(all);
    // Pods released because they stopped matching still count while they carry our finalizer.
    const have = new Set(claimed.map((p) => p.metadata?.uid));
    for (const p of all) {
      if (!have.has(p.metadata?.uid) && getControllerOf(p)?.uid === uid && hasJobTrackingFinalizer(p)) claimed.push(p);
    }
    return claimed;
  }

  /** Finished pods not yet counted: with the finalizer, not in the uncounted sets, and (Indexed) a valid index. */
  private getNewFinishedPods(ctx: SyncCtx): { newSucceeded: Pod[]; newFailed: Pod[] } {
    const valid = (p: Pod, uncounted: Set<string>) => {
      const uid = p.metadata?.uid ?? "";
      if (!hasJobTrackingFinalizer(p) || uncounted.has(uid) || ctx.expectedRmFinalizers.has(uid)) return false;
      if (ctx.view.indexed) {
        const ix = getCompletionIndex(p.metadata?.annotations);
        if (ix === UNKNOWN_COMPLETION_INDEX || ix >= (ctx.view.completions ?? 0)) return false;
      }
      return true;
    };
    return {
      newSucceeded: ctx.pods.filter((p) => valid(p, ctx.uncountedSucceeded) && p.status?.phase === "Succeeded"),
      newFailed: ctx.pods.filter((p) => valid(p, ctx.uncountedFailed) && isPodFailed(p, ctx.view)),
    };
  }

  /** Creates or deletes pods toward the wanted number of active ones (manageJob). */
  private async manageJob(ctx: SyncCtx): Promise<{ active: number; removedReady: number; action: JobSyncAction; error?: unknown }> {
    const { job, view, key } = ctx;
    let active = ctx.activePods.length;
    if (view.suspended) {
      const rm = this.activePodsForRemoval(ctx, ctx.activePods, active);
      this.expectations.expectDeletions(key, rm.length);
      const r = await this.deleteJobPods(ctx, rm);
      ctx.terminating += r.deleted;
      return { active: active - r.deleted, removedReady: r.deletedReady, action: JOB_SYNC_ACTION_PODS_DELETED, error: r.error };
    }
    let wantActive: number;
    if (view.completions === undefined) wantActive = ctx.succeeded > 0 ? active : view.parallelism;
    else wantActive = Math.max(0, Math.min(view.completions - ctx.succeeded, view.parallelism));
    const rmAtLeast = Math.max(0, active - wantActive);
    const rm = this.activePodsForRemoval(ctx, ctx.activePods, rmAtLeast).slice(0, MAX_POD_CREATE_DELETE_PER_SYNC);
    if (rm.length > 0) {
      this.expectations.expectDeletions(key, rm.length);
      const r = await this.deleteJobPods(ctx, rm);
      ctx.terminating += r.deleted;
      return { active: active - r.deleted, removedReady: r.deletedReady, action: JOB_SYNC_ACTION_PODS_DELETED, error: r.error };
    }
    const terminating = view.onlyReplaceFailedPods ? ctx.terminating : 0;
    if (wantActive - terminating - active <= 0) return { active, removedReady: 0, action: JOB_SYNC_ACTION_TRACKING };
    const perIndex = hasBackoffLimitPerIndex(job);
    const waitFor = (remaining: number) => {
      ctx.requeueAfterMs = ctx.requeueAfterMs === undefined ? remaining : Math.min(ctx.requeueAfterMs, remaining);
      return { active, removedReady: 0, action: JOB_SYNC_ACTION_PODS_CREATED };
    };
    // With backoffLimitPerIndex each index waits out its own back-off instead of the Job's.
    const remaining = perIndex
      ? 0
      : remainingBackoffMs(this.clock.now(), DEFAULT_JOB_POD_FAILURE_BACKOFF_MS, MAX_JOB_POD_FAILURE_BACKOFF_MS, ctx.newBackoffRecord.failuresAfterLastSuccess, ctx.newBackoffRecord.lastFailureTime);
    if (remaining > 0) return waitFor(remaining);
    let diff = Math.min(wantActive - active - terminating, MAX_POD_CREATE_DELETE_PER_SYNC);
    let indexes: number[] = [];
    if (view.indexed) {
      let nonPending = (ctx.succeededIndexes ?? new OrderedIntervals()).withOrderedIndexes(getIndexes(ctx.activePods));
      if (view.onlyReplaceFailedPods) nonPending = nonPending.withOrderedIndexes(getIndexes(ctx.pods.filter(isTerminating)));
      if (ctx.failedIndexes) nonPending = nonPending.merge(ctx.failedIndexes);
      indexes = firstPendingIndexes(nonPending, diff, view.completions ?? 0);
      if (perIndex) {
        const info = podCreationInfoForIndependentIndexes(this.clock.now(), indexes, ctx.podsWithDelayedDeletionPerIndex ?? new Map());
        if (info.remainingMs > 0) return waitFor(info.remainingMs);
        indexes = info.indexes;
      }
      diff = indexes.length;
    }
    if (diff === 0) return { active, removedReady: 0, action: JOB_SYNC_ACTION_PODS_CREATED };
    this.expectations.expectCreations(key, diff);
    const template: PodTemplateSpec = deepCopy(job.spec?.template ?? {});
    if (view.indexed) addCompletionIndexEnvVariables(template);
    template.metadata = { ...template.metadata, finalizers: [...new Set([...(template.metadata?.finalizers ?? []), JOB_TRACKING_FINALIZER])] };
    const ref = newControllerRef(job, JOB_GVK);
    let next = 0;
    let failed = 0;
    // For job_pods_creation_total, counted as upstream counts them: every attempt not dropped for
    // a terminating namespace bumps "succeeded" (upstream increments it after its error branch
    // too), and a failed one also bumps "failed".
    let creationsSucceeded = 0;
    const result = await slowStartBatch(diff, SLOW_START_INITIAL_BATCH_SIZE, async () => {
      const i = next++;
      try {
        await this.createPod(ctx, template, ref, view.indexed ? indexes[i] : undefined);
      } catch (err) {
        if (hasNamespaceTerminatingCause(err)) return;
        failed++;
        creationsSucceeded++;
        this.expectations.creationObserved(key);
        throw err;
      }
      creationsSucceeded++;
    });
    // Creates never attempted (a batch failed) will never be observed.
    const skipped = diff - next;
    for (let i = 0; i < skipped; i++) this.expectations.creationObserved(key);
    active += diff - failed - skipped;
    this.recordJobPodsCreationTotal(ctx, creationsSucceeded, failed);
    return { active, removedReady: 0, action: JOB_SYNC_ACTION_PODS_CREATED, error: result.error };
  }

  /** job_pods_creation_total, its reason from podReplacementPolicy and what failed or is terminating (recordJobPodsCreationTotal). */
  private recordJobPodsCreationTotal(ctx: SyncCtx, succeeded: number, failed: number): void {
    let reason: JobPodCreationReason = "new";
    if ((ctx.job.spec?.podReplacementPolicy ?? "TerminatingOrFailed") === "Failed" && ctx.failed > 0) reason = "recreate_failed";
    else if (ctx.failed > 0 || ctx.terminating > 0) reason = "recreate_terminating_or_failed";
    if (succeeded > 0) this.metrics.podsCreationTotal.inc({ reason, status: "succeeded" }, succeeded);
    if (failed > 0) this.metrics.podsCreationTotal.inc({ reason, status: "failed" }, failed);
  }

  private async createPod(ctx: SyncCtx, template: PodTemplateSpec, ref: OwnerReference, index: number | undefined): Promise<void> {
    const { job } = ctx;
    const namespace = job.metadata?.namespace ?? "";
    const pod = getPodFromTemplate(template, job.metadata?.name ?? "", ref);
    if (index !== undefined) {
      const failureCounts = hasBackoffLimitPerIndex(job) ? indexFailureCountAnnotations(job, ctx.podsWithDelayedDeletionPerIndex?.get(index)) : {};
      pod.metadata = {
        ...pod.metadata,
        generateName: podGenerateNameWithIndex(job.metadata?.name ?? "", index),
        annotations: { ...pod.metadata?.annotations, [JOB_COMPLETION_INDEX_ANNOTATION]: String(index), ...failureCounts },
        labels: { ...pod.metadata?.labels, [JOB_COMPLETION_INDEX_LABEL]: String(index) },
      };
      pod.spec = { ...pod.spec!, hostname: `${job.metadata?.name ?? ""}-${index}` };
    }
    let created: Pod;
    try {
      created = await ctx.client.resource(builtin.pods, namespace).create(pod);
    } catch (err) {
      if (!hasNamespaceTerminatingCause(err)) this.recorder.eventf(job, "Warning", FAILED_CREATE_POD_REASON, "Error creating: %v", errorMessage(err));
      throw err;
    }
    this.recorder.eventf(job, "Normal", SUCCESSFUL_CREATE_POD_REASON, "Created pod: %v", created.metadata?.name ?? "");
  }

  /**
   * The pods to delete first (activePodsForRemoval): for Indexed jobs pods with an invalid or
   * duplicate index, then the least active by upstream's ranking.
   */
  private activePodsForRemoval(ctx: SyncCtx, pods: readonly Pod[], rmAtLeast: number): Pod[] {
    const rm: Pod[] = [];
    let left: Pod[] = [...pods];
    if (ctx.view.indexed) {
      left = [];
      const byIndex = new Map<number, Pod[]>();
      for (const p of pods) {
        const ix = getCompletionIndex(p.metadata?.annotations);
        if (ix === UNKNOWN_COMPLETION_INDEX || ix >= (ctx.view.completions ?? 0)) rm.push(p);
        else byIndex.set(ix, [...(byIndex.get(ix) ?? []), p]);
      }
      for (const ix of [...byIndex.keys()].sort((a, b) => a - b)) {
        const group = sortActivePodsWithRanks(byIndex.get(ix)!, byIndex.get(ix)!.map(() => 0), this.clock.now()).pods;
        rm.push(...group.slice(0, -1));
        left.push(group[group.length - 1]);
      }
    }
    if (rm.length < rmAtLeast) {
      const sorted = sortActivePodsWithRanks(left, left.map(() => 0), this.clock.now()).pods;
      rm.push(...sorted.slice(0, rmAtLeast - rm.length));
    }
    return rm;
  }

  /** Deletes pods the Job no longer wants, removing their finalizer first: they are not counted (deleteJobPods). */
  private async deleteJobPods(ctx: SyncCtx, pods: readonly Pod[]): Promise<{ deleted: number; deletedReady: number; error?: unknown }> {
    return this.deletePods(ctx, pods, true);
  }

  /** Deletes active pods keeping their finalizers, so they get counted as failed (deleteActivePods). */
  private async deleteActivePods(ctx: SyncCtx, pods: readonly Pod[]): Promise<{ deleted: number; deletedReady: number; error?: unknown }> {
    return this.deletePods(ctx, pods, false);
  }

  private async deletePods(ctx: SyncCtx, pods: readonly Pod[], removeFinalizer: boolean): Promise<{ deleted: number; deletedReady: number; error?: unknown }> {
    const { job, key } = ctx;
    const namespace = job.metadata?.namespace ?? "";
    const podsClient = ctx.client.resource(builtin.pods, namespace);
    let deleted = 0;
    let deletedReady = 0;
    let error: unknown;
    await Promise.all(
      pods.map(async (pod) => {
        const name = pod.metadata?.name ?? "";
        try {
          const patch = removeFinalizer ? removeTrackingFinalizerPatch(pod) : undefined;
          if (patch) await podsClient.patch(name, "strategic", patch);
          try {
            await podsClient.delete(name);
          } catch (err) {
            if (!isNotFound(err)) this.recorder.eventf(job, "Warning", FAILED_DELETE_POD_REASON, "Error deleting: %v", errorMessage(err));
            throw err;
          }
          this.recorder.eventf(job, "Normal", SUCCESSFUL_DELETE_POD_REASON, "Deleted pod: %v", name);
          deleted++;
          if (isPodReady(pod)) deletedReady++;
        } catch (err) {
          // No event will come for it.
          if (removeFinalizer) this.expectations.deletionObserved(key);
          if (isNotFound(err)) {
            deleted++;
            if (isPodReady(pod)) deletedReady++;
            return;
          }
          error ??= err;
        }
      }),
    );
    return { deleted, deletedReady, error };
  }

  /**
   * Counts finished pods in two steps with the finalizers between (trackJobStatusAndRemoveFinalizers):
   * UIDs into uncountedTerminatedPods (status write), finalizers removed, UIDs into the counters
   * (status write), then the terminal condition once nothing is left uncounted or terminating.
   */
  private async trackJobStatusAndRemoveFinalizers(ctx: SyncCtx, needsFlush: boolean): Promise<void> {
    const { view } = ctx;
    let job = ctx.job;
    const status = job.status!;
    const uncounted = status.uncountedTerminatedPods!;
    uncounted.succeeded = [...(uncounted.succeeded ?? [])];
    uncounted.failed = [...(uncounted.failed ?? [])];
    const pods = view.indexed ? [...ctx.pods].sort((a, b) => getCompletionIndex(a.metadata?.annotations) - getCompletionIndex(b.metadata?.annotations)) : ctx.pods;
    const withFinalizer = new Set<string>();
    for (const p of pods) {
      const uid = p.metadata?.uid ?? "";
      if (hasJobTrackingFinalizer(p) && !ctx.expectedRmFinalizers.has(uid)) withFinalizer.add(uid);
    }
    // The counters before this sync moved any, for job_pods_finished_total (upstream's oldCounters).
    let oldCounters = countersOf(status);
    if (cleanUncountedPodsWithoutFinalizers(status, withFinalizer)) needsFlush = true;
    const podFailureCountByPolicyAction = new Map<string, number>();
    const toRemove: Pod[] = [];
    const newSucceededIndexes: number[] = [];
    let reachedMax = false;
    const finishedIsFailure = ctx.finishedCondition !== undefined && ctx.finishedCondition.type !== JOB_SUCCESS_CRITERIA_MET && ctx.finishedCondition.type !== JOB_COMPLETE;
    for (const pod of pods) {
      const uid = pod.metadata?.uid ?? "";
      if (!hasJobTrackingFinalizer(pod) || ctx.expectedRmFinalizers.has(uid)) continue;
      const failed = isPodFailed(pod, view);
      if (!canRemoveFinalizer(ctx, pod, failed)) continue;
      toRemove.push(pod);
      const ix = getCompletionIndex(pod.metadata?.annotations);
      if (pod.status?.phase === "Succeeded" && !ctx.uncountedFailed.has(uid)) {
        if (view.indexed) {
          if (ix !== UNKNOWN_COMPLETION_INDEX && ix < (view.completions ?? 0) && !ctx.prevSucceededIndexes?.has(ix)) newSucceededIndexes.push(ix);
        } else if (!ctx.uncountedSucceeded.has(uid)) {
          needsFlush = true;
          uncounted.succeeded.push(uid);
        }
      } else if (failed || finishedIsFailure) {
        if (!ctx.uncountedFailed.has(uid) && (!view.indexed || (ix !== UNKNOWN_COMPLETION_INDEX && ix < (view.completions ?? 0)))) {
          // A failure an Ignore rule excuses is not counted at all.
          const m = matchPodFailurePolicy(job.spec?.podFailurePolicy, pod);
          if (m.action !== undefined) podFailureCountByPolicyAction.set(m.action, (podFailureCountByPolicyAction.get(m.action) ?? 0) + 1);
          if (m.countFailed) {
            needsFlush = true;
            uncounted.failed.push(uid);
          }
        }
      }
      if (newSucceededIndexes.length + uncounted.succeeded.length + uncounted.failed.length >= MAX_UNCOUNTED_PODS) {
        reachedMax = true;
        break;
      }
    }
    if (view.indexed) {
      ctx.succeededIndexes = (ctx.succeededIndexes ?? new OrderedIntervals()).withOrderedIndexes(newSucceededIndexes);
      const s = ctx.succeededIndexes.toString();
      if (s !== (status.completedIndexes ?? "")) needsFlush = true;
      status.succeeded = ctx.succeededIndexes.total();
      status.completedIndexes = s;
      if (ctx.failedIndexes) {
        const f = ctx.failedIndexes.toString();
        if (status.failedIndexes !== f) {
          status.failedIndexes = f;
          needsFlush = true;
        }
      }
    }
    const fc = ctx.finishedCondition;
    if (fc?.type === JOB_FAILURE_TARGET) {
      status.conditions = [...(status.conditions ?? []), fc];
      needsFlush = true;
      ctx.finishedCondition = newCondition(JOB_FAILED, "True", fc.reason ?? "", fc.message ?? "", this.clock.now());
    }
    if (fc?.type === JOB_SUCCESS_CRITERIA_MET) {
      if (!findCondition(job, JOB_SUCCESS_CRITERIA_MET)) {
        status.conditions = [...(status.conditions ?? []), fc];
        needsFlush = true;
      }
      ctx.finishedCondition = newCondition(JOB_COMPLETE, "True", fc.reason ?? "", fc.message ?? "", this.clock.now());
    }

    // Flush the UIDs, then remove finalizers.
    const podsClient = ctx.client.resource(builtin.pods, job.metadata?.namespace ?? "");
    const jobsClient = ctx.client.resource(builtin.jobs, job.metadata?.namespace ?? "");
    const writeStatus = async () => {
      const written = await jobsClient.updateStatus(job);
      job = { ...written, kind: written.kind ?? "Job", apiVersion: written.apiVersion ?? "batch/v1" };
      ctx.job = job;
    };
    if (needsFlush) {
      await writeStatus();
      this.backoffStore.update(ctx.newBackoffRecord);
      this.recordJobPodFinished(job, oldCounters);
      oldCounters = countersOf(job.status ?? {});
      needsFlush = false;
    }
    for (const [action, n] of podFailureCountByPolicyAction) this.metrics.podFailuresHandledByFailurePolicyTotal.inc({ action }, n);
    let rmError: unknown;
    if (toRemove.length > 0) {
      this.finalizerExpectations.expectFinalizersRemoved(ctx.key, toRemove.map((p) => p.metadata?.uid ?? ""));
      await Promise.all(
        toRemove.map(async (p) => {
          const uid = p.metadata?.uid ?? "";
          try {
            await podsClient.patch(p.metadata?.name ?? "", "strategic", removeTrackingFinalizerPatch(p));
            withFinalizer.delete(uid);
          } catch (err) {
            if (isNotFound(err)) {
              withFinalizer.delete(uid);
              return;
            }
            this.finalizerExpectations.finalizerRemovalObserved(ctx.key, uid);
            rmError ??= err;
          }
        }),
      );
    }
    const st = job.status ?? {};
    st.uncountedTerminatedPods ??= {};
    if (cleanUncountedPodsWithoutFinalizers(st, withFinalizer)) needsFlush = true;
    job.status = st;
    if (rmError) {
      if (needsFlush) await writeStatus();
      throw rmError;
    }
    const finished = !reachedMax && this.enactJobFinished(ctx);
    if (finished) needsFlush = true;
    if (needsFlush) {
      await writeStatus();
      if (finished && ctx.finishedCondition) this.recordJobFinished(job, ctx.finishedCondition);
      this.recordJobPodFinished(job, oldCounters);
    }
  }

  /**
   * job_pods_finished_total (and, for Indexed Jobs, job_finished_indexes_total) by what the
   * counters moved since `old` (recordJobPodFinished). Indexed Jobs count succeeded indexes within
   * spec.completions, so a Job scaled down does not count indexes that fell out of range; a
   * negative difference (the counters went back) adds nothing, as a counter cannot go down.
   */
  private recordJobPodFinished(job: Job, old: JobCounters): void {
    const status = job.status ?? {};
    const mode = job.spec?.completionMode === "Indexed" ? "Indexed" : "NonIndexed";
    const add = (c: { inc(labels: Record<string, string>, n: number): void }, labels: Record<string, string>, n: number) => {
      if (n >= 0) c.inc(labels, n);
    };
    let diff = 0;
    if (mode === "Indexed") {
      const completions = job.spec?.completions ?? 0;
      const count = (s: string | undefined) => (s === undefined ? 0 : OrderedIntervals.parse(s, completions).total());
      if ((status.completedIndexes ?? "") !== (old.completedIndexes ?? "")) diff = count(status.completedIndexes ?? "") - count(old.completedIndexes ?? "");
      const backoffLimit = hasBackoffLimitPerIndex(job) ? "perIndex" : "global";
      add(this.metrics.finishedIndexesTotal, { status: "succeeded", backoffLimit }, diff);
      if (hasBackoffLimitPerIndex(job) && (status.failedIndexes ?? undefined) !== old.failedIndexes) {
        const failedDiff = count(status.failedIndexes ?? undefined) - count(old.failedIndexes);
        if (failedDiff > 0) this.metrics.finishedIndexesTotal.inc({ status: "failed", backoffLimit }, failedDiff);
      }
    } else {
      diff = (status.succeeded ?? 0) - old.succeeded;
    }
    add(this.metrics.podsFinishedTotal, { completion_mode: mode, result: "succeeded" }, diff);
    add(this.metrics.podsFinishedTotal, { completion_mode: mode, result: "failed" }, (status.failed ?? 0) - old.failed);
  }

  /** Sets the terminal condition once nothing is uncounted or terminating (enactJobFinished). */
  private enactJobFinished(ctx: SyncCtx): boolean {
    const fc = ctx.finishedCondition;
    if (!fc) return false;
    const job = ctx.job;
    const u = job.status?.uncountedTerminatedPods;
    if ((u?.succeeded?.length ?? 0) + (u?.failed?.length ?? 0) > 0) return false;
    if (ctx.terminating > 0) return false;
    const status = (job.status ??= {});
    const now = this.clock.now();
    status.conditions = ensureJobConditionStatus(status.conditions ?? [], fc.type, fc.status, fc.reason ?? "", fc.message ?? "", now).conditions;
    if (fc.type === JOB_COMPLETE) status.completionTime = fc.lastTransitionTime ?? formatTime(now);
    return true;
  }

  /**
   * Events and jobs_finished_total for a Job whose terminal condition was written. A success is
   * labelled with its condition's reason (CompletionsReached or SuccessPolicy), as 1.36's
   * metrics.go documents now that JobSuccessPolicy is GA ("" was the reason before it).
   */
  private recordJobFinished(job: Job, fc: JobCondition): void {
    const mode = job.spec?.completionMode === "Indexed" ? "Indexed" : "NonIndexed";
    if (fc.type === JOB_COMPLETE) {
      const completions = job.spec?.completions;
      if (completions != null && (job.status?.succeeded ?? 0) > completions) {
        this.recorder.event(job, "Warning", "TooManySucceededPods", "Too many succeeded pods running after completion count reached");
      }
      this.recorder.event(job, "Normal", "Completed", "Job completed");
      this.metrics.jobsFinishedTotal.inc({ completion_mode: mode, result: "succeeded", reason: fc.reason ?? "" });
    } else {
      this.recorder.event(job, "Warning", fc.reason ?? "", fc.message ?? "");
      this.metrics.jobsFinishedTotal.inc({ completion_mode: mode, result: "failed", reason: fc.reason ?? "" });
    }
  }
}

/**
 * A pod's finalizer can go (canRemoveFinalizer) when the Job is being deleted or has finished, the
 * pod succeeded, or it failed — unless, with backoffLimitPerIndex, it is the failed pod its index's
 * replacement takes its failure count from.
 */
function canRemoveFinalizer(ctx: SyncCtx, pod: Pod, failed: boolean): boolean {
  if (ctx.job.metadata?.deletionTimestamp != null || ctx.finishedCondition !== undefined || pod.status?.phase === "Succeeded") return true;
  if (!failed) return false;
  const ix = getCompletionIndex(pod.metadata?.annotations);
  if (ix !== UNKNOWN_COMPLETION_INDEX && ctx.podsWithDelayedDeletionPerIndex?.get(ix)?.metadata?.uid === pod.metadata?.uid) return false;
  return true;
}

/** The status counters job_pods_finished_total compares (a copy: the status is changed in place after). */
interface JobCounters {
  succeeded: number;
  failed: number;
  completedIndexes?: string;
  failedIndexes?: string;
}

function countersOf(status: JobStatus): JobCounters {
  return { succeeded: status.succeeded ?? 0, failed: status.failed ?? 0, completedIndexes: status.completedIndexes ?? undefined, failedIndexes: status.failedIndexes ?? undefined };
}

/** Moves UIDs whose finalizer is gone from uncountedTerminatedPods into the counters; whether anything moved. */
export function cleanUncountedPodsWithoutFinalizers(status: JobStatus, withFinalizer: ReadonlySet<string>): boolean {
  const u = (status.uncountedTerminatedPods ??= {});
  let changed = false;
  const keepS = (u.succeeded ?? []).filter((uid) => withFinalizer.has(uid));
  if (keepS.length !== (u.succeeded ?? []).length) {
    changed = true;
    status.succeeded = (status.succeeded ?? 0) + (u.succeeded ?? []).length - keepS.length;
    u.succeeded = keepS;
  }
  const keepF = (u.failed ?? []).filter((uid) => withFinalizer.has(uid));
  if (keepF.length !== (u.failed ?? []).length) {
    changed = true;
    status.failed = (status.failed ?? 0) + (u.failed ?? []).length - keepF.length;
    u.failed = keepF;
  }
  return changed;
}

/** Indexed jobs' containers get JOB_COMPLETION_INDEX from the annotation (addCompletionIndexEnvVariables). */
export function addCompletionIndexEnvVariables(template: PodTemplateSpec): void {
  const spec = template.spec;
  if (!spec) return;
  const add = (cs: typeof spec.containers | undefined) => {
    for (const c of cs ?? []) {
      if ((c.env ?? []).some((e) => e.name === JOB_COMPLETION_INDEX_ENV)) continue;
      c.env = [...(c.env ?? []), { name: JOB_COMPLETION_INDEX_ENV, valueFrom: { fieldRef: { fieldPath: `metadata.annotations['${JOB_COMPLETION_INDEX_ANNOTATION}']` } } }];
    }
  };
  add(spec.initContainers);
  add(spec.containers);
}
