/**
 * The pod-status writes PodGC and taint eviction make before they delete a pod, as upstream's
 * `apipod.UpdatePodCondition` and `utilpod.PatchPodStatus`: a condition set on a copy of the
 * status (its lastTransitionTime kept when the status did not change), then a strategic merge
 * patch of the status subresource that carries the pod's UID as a precondition, so a pod that was
 * deleted and recreated under the same name is not touched.
 */
import type { Pod, PodCondition, PodStatus } from "../../apimachinery/api/core/v1.js";
import { formatTime } from "../../apimachinery/time.js";
import type { ResourceClientFactory } from "../../client/interfaces.js";
import { builtin } from "../../client/typed.js";

/** The DisruptionTarget condition type (v1.DisruptionTarget). */
export const DISRUPTION_TARGET = "DisruptionTarget";

/**
 * updatePodCondition: `status` with `condition` set (added, or replacing the one of its type);
 * lastTransitionTime is now unless an existing condition had the same status. Returns whether
 * anything changed. Mutates `status` — pass a copy.
 */
export function updatePodCondition(status: PodStatus, condition: PodCondition, nowMs: number): boolean {
  const conditions = (status.conditions ??= []);
  const i = conditions.findIndex((c) => c.type === condition.type);
  const next: PodCondition = { ...condition, lastTransitionTime: formatTime(nowMs) };
  if (i < 0) {
    conditions.push(next);
    return true;
  }
  const old = conditions[i];
  if (old.status === next.status) next.lastTransitionTime = old.lastTransitionTime ?? next.lastTransitionTime;
  const same = old.status === next.status && old.reason === next.reason && old.message === next.message && old.lastTransitionTime === next.lastTransitionTime;
  conditions[i] = next;
  return !same;
}

/**
 * patchPodStatus: a strategic merge patch of `pod`'s status subresource to `next` — the fields
 * of `next` that differ from the pod's, conditions merged by type — with the UID precondition.
 */
export async function patchPodStatus(client: ResourceClientFactory, pod: Pod, next: PodStatus): Promise<Pod> {
  const old = pod.status ?? {};
  const status: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(next) as Array<[keyof PodStatus, unknown]>) {
    if (k === "conditions") continue;
    if (JSON.stringify(old[k]) !== JSON.stringify(v)) status[k] = v;
  }
  const changed = (next.conditions ?? []).filter((c) => {
    const o = (old.conditions ?? []).find((x) => x.type === c.type);
    return JSON.stringify(o) !== JSON.stringify(c);
  });
  if (changed.length > 0) status.conditions = changed;
  const patch = { metadata: { uid: pod.metadata?.uid }, status };
  return client.resource(builtin.pods, pod.metadata?.namespace ?? "").patch(pod.metadata?.name ?? "", "strategic", patch, { subresource: "status" });
}
