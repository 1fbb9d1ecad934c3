/**
 * A small scheduler for the simulated nodes: filter by readiness, schedulability (unless the
 * unschedulable taint is tolerated), nodeSelector and required node affinity,
 * taints (NoSchedule/NoExecute must be tolerated), the pod count and the sum of resource requests
 * against allocatable; then score by load and pick the least loaded node.
 *
 * A pod's request per resource is kube-scheduler's (podRequests): containers and sidecars summed,
 * at least what any init container needs beside the sidecars started before it, pod-level
 * requests in place of the containers' for cpu and memory, plus the pod overhead. The load of a node is the mean of its
 * requested cpu and memory fractions after placing the pod (LeastAllocated); ties go to the node
 * with fewer pods, then to the name that sorts first.
 */
import type { Node, Pod, Toleration, Taint } from "../../apimachinery/api/core/v1.js";
import { quantityValue } from "../../apimachinery/quantity.js";
import { podMatchesNodeAffinity } from "./nodeaffinity.js";

/** The taint kube-scheduler's NodeUnschedulable plugin checks tolerations against. */
const UNSCHEDULABLE_TAINT: Taint = Object.freeze({ key: "node.kubernetes.io/unschedulable", effect: "NoSchedule" });

export type Resources = Record<string, number>;

function addInto(into: Resources, from: Record<string, string | number> | undefined): void {
  for (const [k, v] of Object.entries(from ?? {})) into[k] = (into[k] ?? 0) + quantityValue(v);
}

/** Resources a pod may request for itself (spec.resources; component-helpers' supported pod-level resources). */
const POD_LEVEL_RESOURCES = new Set(["cpu", "memory"]);

function maxInto(into: Resources, from: Resources): void {
  for (const [k, v] of Object.entries(from)) into[k] = Math.max(into[k] ?? 0, v);
}

/**
 * The resources the pod requests, as kube-scheduler's computePodResourceRequest
 * (component-helpers resource.PodRequests):
 * - the sum of the regular containers' requests, plus every sidecar's (restartPolicy Always
 *   init containers keep running);
 * - at least, per resource, what any init container needs while it runs: its own requests plus
 *   those of the sidecars started before it (a sidecar: the sidecars up to and including it);
 * - pod-level requests (spec.resources, cpu and memory) replace the containers' figure;
 * - plus the pod overhead.
 */
export function podRequests(pod: Pod): Resources {
  const sum: Resources = {};
  for (const c of pod.spec?.containers ?? []) addInto(sum, c.resources?.requests);
  const sidecars: Resources = {};
  const initPeak: Resources = {};
  for (const c of pod.spec?.initContainers ?? []) {
    const one: Resources = {};
    addInto(one, c.resources?.requests);
    if (c.restartPolicy === "Always") {
      addInto(sum, c.resources?.requests);
      addInto(sidecars, c.resources?.requests);
      maxInto(initPeak, sidecars);
    } else {
      for (const [k, v] of Object.entries(sidecars)) one[k] = (one[k] ?? 0) + v;
      maxInto(initPeak, one);
    }
  }
  maxInto(sum, initPeak);
  for (const [k, v] of Object.entries(pod.spec?.resources?.requests ?? {})) if (POD_LEVEL_RESOURCES.has(k)) sum[k] = quantityValue(v);
  addInto(sum, pod.spec?.overhead);
  return sum;
}

/** Whether a toleration tolerates a taint (v1 helper ToleratesTaint). */
export function toleratesTaint(t: Toleration, taint: Taint): boolean {
  if (t.effect && t.effect !== taint.effect) return false;
  if (t.key && t.key !== taint.key) return false;
  if (!t.key && t.operator !== "Exists") return false;
  if (t.operator === "Exists") return true;
  return (t.value ?? "") === (taint.value ?? "");
}

export interface NodeUsage {
  node: Node;
  /** Requests of the pods already on (or assumed onto) the node. */
  requested: Resources;
  pods: number;
}

export type ScheduleResult = { node: string } | { node?: undefined; message: string };

/** Why a node does not fit the pod, or undefined when it fits. Reasons use kube-scheduler's words. */
export function unfitReason(pod: Pod, requests: Resources, u: NodeUsage): string | undefined {
  const node = u.node;
  const ready = node.status?.conditions?.find((c) => c.type === "Ready")?.status === "True";
  if (!ready) return "node(s) were not ready";
  // NodeUnschedulable: a pod tolerating the unschedulable taint (DaemonSet pods do) still fits.
  if (node.spec?.unschedulable && !(pod.spec?.tolerations ?? []).some((t) => toleratesTaint(t, UNSCHEDULABLE_TAINT))) return "node(s) were unschedulable";
  if (!podMatchesNodeAffinity(pod, node)) return "node(s) didn't match Pod's node affinity/selector";
  for (const taint of node.spec?.taints ?? []) {
    if (taint.effect === "PreferNoSchedule") continue;
    if (!(pod.spec?.tolerations ?? []).some((t) => toleratesTaint(t, taint))) return "node(s) had untolerated taint(s)";
  }
  const alloc = node.status?.allocatable ?? node.status?.capacity ?? {};
  const maxPods = alloc.pods !== undefined ? quantityValue(alloc.pods) : Infinity;
  if (u.pods + 1 > maxPods) return "Too many pods";
  for (const [name, want] of Object.entries(requests)) {
    if (want <= 0) continue;
    const have = alloc[name] !== undefined ? quantityValue(alloc[name]) : 0;
    if ((u.requested[name] ?? 0) + want > have) return `Insufficient ${name}`;
  }
  return undefined;
}

function load(requests: Resources, u: NodeUsage): number {
  const alloc = u.node.status?.allocatable ?? u.node.status?.capacity ?? {};
  let total = 0;
  for (const r of ["cpu", "memory"]) {
    const cap = alloc[r] !== undefined ? quantityValue(alloc[r]) : 0;
    total += cap > 0 ? ((u.requested[r] ?? 0) + (requests[r] ?? 0)) / cap : 0;
  }
  return total / 2;
}

/**
 * The node for `pod` among `nodes`, or the FailedScheduling message ("0/3 nodes are available:
 * 1 Insufficient cpu, 2 node(s) didn't match Pod's node affinity/selector.").
 */
export function pickNode(pod: Pod, nodes: readonly NodeUsage[]): ScheduleResult {
  const requests = podRequests(pod);
  const fits: NodeUsage[] = [];
  const reasons = new Map<string, number>();
  for (const u of nodes) {
    const why = unfitReason(pod, requests, u);
    if (why === undefined) fits.push(u);
    else reasons.set(why, (reasons.get(why) ?? 0) + 1);
  }
  if (fits.length === 0) {
    const parts = [...reasons.entries()].map(([r, n]) => `${n} ${r}`).sort();
    return { message: `0/${nodes.length} nodes are available${parts.length ? `: ${parts.join(", ")}` : ""}.` };
  }
  fits.sort((a, b) => load(requests, a) - load(requests, b) || a.pods - b.pods || ((a.node.metadata?.name ?? "") < (b.node.metadata?.name ?? "") ? -1 : 1));
  return { node: fits[0].node.metadata?.name ?? "" };
}
