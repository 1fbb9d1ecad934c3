/**
 * backoffLimitPerIndex of Indexed Jobs (indexed_job_utils.go, backoff_utils.go): each index has
 * its own failure budget. A pod carries how many earlier pods of its index failed in the
 * `batch.kubernetes.io/job-index-failure-count` annotation (and failures a podFailurePolicy Ignore
 * rule excused in `batch.kubernetes.io/job-index-ignored-failure-count`); the replacement gets the
 * count plus its own failure. An index fails when a pod of it fails with the count already at
 * backoffLimitPerIndex, or matches a FailIndex rule; failed indexes go to status.failedIndexes
 * and are never recreated.
 *
 * Invariant: the finalizer (and so the object) of an index's last failed pod is kept until its
 * replacement exists, because the replacement's annotation is computed from it ("pods with
 * delayed deletion"); the replacement also waits out the index's own pod failure back-off.
 */
import type { Job } from "../../apimachinery/api/batch/v1.js";
import type { Pod } from "../../apimachinery/api/core/v1.js";
import { getFinishedTime, remainingBackoffMs } from "./backoff.js";
import { DEFAULT_JOB_POD_FAILURE_BACKOFF_MS, JOB_INDEX_FAILURE_COUNT_ANNOTATION, JOB_INDEX_IGNORED_FAILURE_COUNT_ANNOTATION, JOB_TRACKING_FINALIZER, MAX_JOB_POD_FAILURE_BACKOFF_MS } from "./constants.js";
import { getCompletionIndex, OrderedIntervals, UNKNOWN_COMPLETION_INDEX } from "./indexes.js";
import { matchPodFailurePolicy } from "./podfailurepolicy.js";

const MAX_INT32 = 2 ** 31 - 1;

export function hasBackoffLimitPerIndex(job: Job): boolean {
  return job.spec?.backoffLimitPerIndex != null;
}

/** A non-negative int32 annotation value, else 0 (parseInt32: absent, malformed or out of range). */
function annotationCount(pod: Pod, key: string): number {
  const v = pod.metadata?.annotations?.[key];
  if (v === undefined || !/^[+-]?[0-9]+$/.test(v)) return 0;
  const n = Number(v);
  return n < 0 || n > MAX_INT32 ? 0 : n;
}

/** Counted failures of earlier pods of the pod's index (getIndexFailureCount). */
export function getIndexFailureCount(pod: Pod): number {
  return annotationCount(pod, JOB_INDEX_FAILURE_COUNT_ANNOTATION);
}

/** Counted plus ignored failures of earlier pods of the pod's index (getIndexAbsoluteFailureCount). */
export function getIndexAbsoluteFailureCount(pod: Pod): number {
  return getIndexFailureCount(pod) + annotationCount(pod, JOB_INDEX_IGNORED_FAILURE_COUNT_ANNOTATION);
}

/** The pod's failure fails its index (isIndexFailed); `isFailed` is the controller's isPodFailed. */
export function isIndexFailed(job: Job, pod: Pod, isFailed: (p: Pod) => boolean): boolean {
  if (!isFailed(pod)) return false;
  let counted = true;
  if (job.spec?.podFailurePolicy) {
    const m = matchPodFailurePolicy(job.spec.podFailurePolicy, pod);
    if (m.action === "FailIndex") return true;
    counted = m.countFailed;
  }
  return counted && getIndexFailureCount(pod) >= (job.spec?.backoffLimitPerIndex ?? 0);
}

function validIndex(pod: Pod, completions: number): number {
  const ix = getCompletionIndex(pod.metadata?.annotations);
  return ix !== UNKNOWN_COMPLETION_INDEX && ix < completions ? ix : UNKNOWN_COMPLETION_INDEX;
}

function hasFinalizer(pod: Pod): boolean {
  return (pod.metadata?.finalizers ?? []).includes(JOB_TRACKING_FINALIZER);
}

/** status.failedIndexes plus the indexes that failed since (calculateFailedIndexes). */
export function calculateFailedIndexes(job: Job, pods: readonly Pod[], completions: number, isFailed: (p: Pod) => boolean): OrderedIntervals {
  const prev = OrderedIntervals.parse(job.status?.failedIndexes ?? undefined, completions);
  const fresh = new Set<number>();
  for (const p of pods) {
    const ix = validIndex(p, completions);
    if (ix !== UNKNOWN_COMPLETION_INDEX && hasFinalizer(p) && isIndexFailed(job, p, isFailed)) fresh.add(ix);
  }
  return prev.withOrderedIndexes([...fresh].sort((a, b) => a - b));
}

export interface DelayedDeletionInput {
  job: Job;
  pods: readonly Pod[];
  activePods: readonly Pod[];
  completions: number;
  succeededIndexes: OrderedIntervals;
  failedIndexes: OrderedIntervals;
  /** UIDs whose finalizer removal is in flight (already processed). */
  expectedRmFinalizers: ReadonlySet<string>;
  isFailed: (p: Pod) => boolean;
}

/**
 * Per pending index, its latest failed pod, whose finalizer stays until the replacement exists
 * (getPodsWithDelayedDeletionPerIndex). Indexes that succeeded, failed or have an active pod need
 * none: the active pod carries the count already.
 */
export function getPodsWithDelayedDeletionPerIndex(input: DelayedDeletionInput): Map<number, Pod> {
  const activeIndexes = new Set(input.activePods.map((p) => getCompletionIndex(p.metadata?.annotations)));
  const out = new Map<number, Pod>();
  for (const p of input.pods) {
    if (!hasFinalizer(p) || input.expectedRmFinalizers.has(p.metadata?.uid ?? "")) continue;
    const ix = validIndex(p, input.completions);
    if (ix === UNKNOWN_COMPLETION_INDEX || !input.isFailed(p)) continue;
    if (input.succeededIndexes.has(ix) || input.failedIndexes.has(ix) || activeIndexes.has(ix)) continue;
    const last = out.get(ix);
    if (!last || (getIndexAbsoluteFailureCount(last) <= getIndexAbsoluteFailureCount(p) && getFinishedTime(p) >= getFinishedTime(last))) out.set(ix, p);
  }
  return out;
}

/** The failure counts a replacement of `replaced` starts with (getNewIndexFailureCounts): [counted, ignored]. */
export function getNewIndexFailureCounts(job: Job, replaced: Pod | undefined): [number, number] {
  if (!replaced) return [0, 0];
  let counted = getIndexFailureCount(replaced);
  let ignored = annotationCount(replaced, JOB_INDEX_IGNORED_FAILURE_COUNT_ANNOTATION);
  if (matchPodFailurePolicy(job.spec?.podFailurePolicy, replaced).countFailed) counted++;
  else ignored++;
  return [counted, ignored];
}

/** The annotations a new pod of an index gets (addIndexFailureCountAnnotation). */
export function indexFailureCountAnnotations(job: Job, replaced: Pod | undefined): Record<string, string> {
  const [counted, ignored] = getNewIndexFailureCounts(job, replaced);
  return { [JOB_INDEX_FAILURE_COUNT_ANNOTATION]: String(counted), ...(ignored > 0 ? { [JOB_INDEX_IGNORED_FAILURE_COUNT_ANNOTATION]: String(ignored) } : {}) };
}

/** How long the index of `lastFailed` must still wait before its replacement (getRemainingTimePerIndex). */
export function remainingTimePerIndexMs(nowMs: number, lastFailed: Pod | undefined): number {
  if (!lastFailed) return 0;
  return remainingBackoffMs(nowMs, DEFAULT_JOB_POD_FAILURE_BACKOFF_MS, MAX_JOB_POD_FAILURE_BACKOFF_MS, getIndexAbsoluteFailureCount(lastFailed) + 1, getFinishedTime(lastFailed));
}

/**
 * The indexes whose back-off is over; when none is, the shortest wait among the others
 * (getPodCreationInfoForIndependentIndexes).
 */
export function podCreationInfoForIndependentIndexes(nowMs: number, indexes: readonly number[], delayed: ReadonlyMap<number, Pod>): { indexes: number[]; remainingMs: number } {
  const now: number[] = [];
  let min: number | undefined;
  for (const ix of indexes) {
    const r = remainingTimePerIndexMs(nowMs, delayed.get(ix));
    if (r === 0) now.push(ix);
    else if (min === undefined || r < min) min = r;
  }
  return now.length > 0 ? { indexes: now, remainingMs: 0 } : { indexes: now, remainingMs: min ?? 0 };
}
