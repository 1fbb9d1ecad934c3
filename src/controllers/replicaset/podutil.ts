/**
 * Pod predicates the ReplicaSet controller counts and ranks by (upstream pkg/api/v1/pod and
 * pkg/controller/controller_utils.go): readiness, availability after minReadySeconds, activity,
 * and the "ns/name" key expectations are tracked by.
 *
 * Times on the wire are RFC 3339 strings; here they are compared as epoch milliseconds, with an
 * absent or unparsable time standing for Go's zero time.
 */
import type { Pod, PodCondition } from "../../apimachinery/api/core/v1.js";

/** Epoch milliseconds of a metav1.Time string, or undefined for the zero time. */
export function parseTime(t: string | undefined): number | undefined {
  if (!t) return undefined;
  const ms = Date.parse(t);
  return Number.isNaN(ms) ? undefined : ms;
}

export { formatTime } from "../../apimachinery/time.js";

/** The pod's Ready condition, if present. */
export function getPodReadyCondition(pod: Pod): PodCondition | undefined {
  return pod.status?.conditions?.find((c) => c.type === "Ready");
}

/** Ready condition is True (podutil.IsPodReady). */
export function isPodReady(pod: Pod): boolean {
  return getPodReadyCondition(pod)?.status === "True";
}

/**
 * Ready for at least minReadySeconds (podutil.IsPodAvailable): ready, and either minReadySeconds
 * is 0 or the Ready condition's lastTransitionTime + minReadySeconds is strictly before `nowMs`.
 */
export function isPodAvailable(pod: Pod, minReadySeconds: number, nowMs: number): boolean {
  if (!isPodReady(pod)) return false;
  if (minReadySeconds === 0) return true;
  const since = parseTime(getPodReadyCondition(pod)?.lastTransitionTime);
  return since !== undefined && since + minReadySeconds * 1000 < nowMs;
}

/** Not Succeeded, not Failed, not being deleted (controller.IsPodActive). */
export function isPodActive(pod: Pod): boolean {
  const phase = pod.status?.phase;
  return phase !== "Succeeded" && phase !== "Failed" && !pod.metadata?.deletionTimestamp;
}

/** Being deleted but not yet terminal: Succeeded and Failed pods are done (controller.IsPodTerminating). */
export function isPodTerminating(pod: Pod): boolean {
  const phase = pod.status?.phase;
  return phase !== "Succeeded" && phase !== "Failed" && !!pod.metadata?.deletionTimestamp;
}

/** The terminating pods, in order (controller.FilterTerminatingPods). */
export function filterTerminatingPods<P extends Pod>(pods: readonly P[]): P[] {
  return pods.filter(isPodTerminating);
}

/** The pods `owner` controls whose labels its selector matches (controller.FilterClaimedPods). */
export function filterClaimedPods<P extends Pod>(owner: { metadata?: { uid?: string } }, selector: { matches(labels: Readonly<Record<string, string>>): boolean }, pods: readonly P[]): P[] {
  const uid = owner.metadata?.uid;
  return pods.filter((p) => {
    const ref = p.metadata?.ownerReferences?.find((r) => r.controller === true);
    return ref !== undefined && ref.uid === uid && selector.matches(p.metadata?.labels ?? {});
  });
}

/** The active pods, in order (controller.FilterActivePods). */
export function filterActivePods<P extends Pod>(pods: readonly P[]): P[] {
  return pods.filter(isPodActive);
}

/** "namespace/name": the key deletion expectations track a pod by (controller.PodKey). */
export function podKey(pod: Pod): string {
  return `${pod.metadata?.namespace ?? ""}/${pod.metadata?.name ?? ""}`;
}

/** The highest restart count among the pod's containers. */
export function maxContainerRestarts(pod: Pod): number {
  let max = 0;
  for (const c of pod.status?.containerStatuses ?? []) max = Math.max(max, c.restartCount ?? 0);
  return max;
}

/** When the pod became ready (the True Ready condition's lastTransitionTime); undefined = zero time. */
export function podReadyTime(pod: Pod): number | undefined {
  const c = getPodReadyCondition(pod);
  return c?.status === "True" ? parseTime(c.lastTransitionTime) : undefined;
}
