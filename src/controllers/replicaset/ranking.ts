/**
 * Which pods a ReplicaSet deletes first when it has too many (upstream ActivePodsWithRanks in
 * pkg/controller/controller_utils.go and getPodsToDelete in replica_set.go).
 *
 * Pods are ordered by the first rule that tells them apart; earlier pods are deleted first:
 *  1. unassigned (no spec.nodeName) before assigned;
 *  2. Pending before Unknown before Running (any other phase counts as Pending);
 *  3. not ready before ready;
 *  4. lower `controller.kubernetes.io/pod-deletion-cost` before higher (PodDeletionCost, on by default);
 *  5. higher rank before lower — the rank is the number of active related pods on the same node,
 *     so doubled-up pods go first;
 *  6. both ready: ready for less time before ready for longer (zero time first);
 *  7. more container restarts before fewer;
 *  8. newer before older (zero creation time first).
 * Rules 6 and 8 compare times on a logarithmic scale of their age relative to `now`
 * (LogarithmicScaleDown, GA): ages within the same power of two are equal, and then the pod
 * with the smaller UID goes first, which spreads deletions pseudo-randomly among equals.
 */
import type { Pod } from "../../apimachinery/api/core/v1.js";
import { isPodActive, isPodReady, maxContainerRestarts, parseTime, podReadyTime } from "./podutil.js";

export const POD_DELETION_COST_ANNOTATION = "controller.kubernetes.io/pod-deletion-cost";

const podPhaseToOrdinal: Record<string, number> = { Pending: 0, Unknown: 1, Running: 2 };

function phaseOrdinal(pod: Pod): number {
  return podPhaseToOrdinal[pod.status?.phase ?? ""] ?? 0;
}

/**
 * The pod's deletion cost (helper.GetDeletionCostFromPodAnnotations): an int32 written without a
 * plus sign or leading zeros; absent or invalid → 0.
 */
export function getDeletionCost(pod: Pod): number {
  const v = pod.metadata?.annotations?.[POD_DELETION_COST_ANNOTATION];
  if (v === undefined || !/^(0|-?[1-9][0-9]*)$/.test(v)) return 0;
  const n = Number(v);
  return n >= -(2 ** 31) && n <= 2 ** 31 - 1 ? n : 0;
}

/** Go's int64(math.Log2(nanoseconds)) of an age, or -1 for an age ≤ 0. */
function logRank(ageMs: number): number {
  return ageMs > 0 ? Math.floor(Math.log2(ageMs * 1e6)) : -1;
}

/** Go's afterOrZero: a zero time sorts first; otherwise the later time first. */
function afterOrZero(t1: number | undefined, t2: number | undefined): boolean {
  if (t1 === undefined || t2 === undefined) return t1 === undefined;
  return t1 > t2;
}

/** Whether t1 sorts before t2 under rules 6/8, or undefined when they tie. */
function compareTimes(t1: number | undefined, t2: number | undefined, uid1: string, uid2: string, nowMs: number | undefined): boolean | undefined {
  if (t1 === t2) return undefined;
  if (nowMs === undefined || t1 === undefined || t2 === undefined) return afterOrZero(t1, t2);
  const diff = logRank(nowMs - t1) - logRank(nowMs - t2);
  if (diff === 0) return uid1 < uid2;
  return diff < 0;
}

/** Whether pod `a` (with rank `ra`) should be deleted before pod `b` (rank `rb`). */
export function lessActivePod(a: Pod, ra: number, b: Pod, rb: number, nowMs?: number): boolean {
  const na = a.spec?.nodeName ?? "";
  const nb = b.spec?.nodeName ?? "";
  if (na !== nb && (na === "" || nb === "")) return na === "";
  const pa = phaseOrdinal(a);
  const pb = phaseOrdinal(b);
  if (pa !== pb) return pa < pb;
  const readyA = isPodReady(a);
  const readyB = isPodReady(b);
  if (readyA !== readyB) return !readyA;
  const ca = getDeletionCost(a);
  const cb = getDeletionCost(b);
  if (ca !== cb) return ca < cb;
  if (ra !== rb) return ra > rb;
  const uidA = a.metadata?.uid ?? "";
  const uidB = b.metadata?.uid ?? "";
  if (readyA && readyB) {
    const r = compareTimes(podReadyTime(a), podReadyTime(b), uidA, uidB, nowMs);
    if (r !== undefined) return r;
  }
  const ma = maxContainerRestarts(a);
  const mb = maxContainerRestarts(b);
  if (ma !== mb) return ma > mb;
  const r = compareTimes(parseTime(a.metadata?.creationTimestamp), parseTime(b.metadata?.creationTimestamp), uidA, uidB, nowMs);
  return r ?? false;
}

/**
 * Sorts pods (with parallel ranks) so the ones to delete first come first. Returns new arrays;
 * the inputs are untouched.
 */
export function sortActivePodsWithRanks<P extends Pod>(pods: readonly P[], ranks: readonly number[], nowMs?: number): { pods: P[]; ranks: number[] } {
  if (pods.length !== ranks.length) throw new Error("sortActivePodsWithRanks: pods and ranks differ in length");
  const idx = pods.map((_, i) => i);
  idx.sort((i, j) => {
    if (lessActivePod(pods[i], ranks[i], pods[j], ranks[j], nowMs)) return -1;
    if (lessActivePod(pods[j], ranks[j], pods[i], ranks[i], nowMs)) return 1;
    return 0;
  });
  return { pods: idx.map((i) => pods[i]), ranks: idx.map((i) => ranks[i]) };
}

/**
 * Ranks each pod by the number of active pods among `relatedPods` on its node
 * (getPodsRankedByRelatedPodsOnSameNode). `relatedPods` is normally a superset of `pods`.
 */
export function ranksByRelatedPodsOnSameNode(pods: readonly Pod[], relatedPods: readonly Pod[]): number[] {
  const onNode = new Map<string, number>();
  for (const p of relatedPods) {
    if (!isPodActive(p)) continue;
    const n = p.spec?.nodeName ?? "";
    onNode.set(n, (onNode.get(n) ?? 0) + 1);
  }
  return pods.map((p) => onNode.get(p.spec?.nodeName ?? "") ?? 0);
}

/**
 * The `diff` pods to delete out of `filteredPods` (getPodsToDelete). When every pod goes, no
 * sorting is needed and the pods come back in their given order.
 */
export function getPodsToDelete<P extends Pod>(filteredPods: readonly P[], relatedPods: readonly Pod[], diff: number, nowMs?: number): P[] {
  if (diff < filteredPods.length) {
    const ranks = ranksByRelatedPodsOnSameNode(filteredPods, relatedPods);
    return sortActivePodsWithRanks(filteredPods, ranks, nowMs).pods.slice(0, diff);
  }
  return filteredPods.slice(0, diff);
}
