/**
 * The RollingUpdate strategy (update.go rollingUpdate, findUpdatedPodsOnNode,
 * updatedDesiredNodeCounts) as a plan over the node → daemon pods map: which old pods to delete
 * and on which nodes to create new ones, within maxUnavailable (no surge) or maxSurge.
 *
 * Without surge, just enough old pods are deleted to stay within maxUnavailable and the manage
 * loop creates their replacements; with surge, new pods are created beside old ones (at most
 * maxSurge beside available old pods) and an old pod goes once its replacement is available.
 * Deleted pods never count as unavailable, so that updates progress while nodes are down.
 */
import type { DaemonSet } from "../../apimachinery/api/apps/v1.js";
import type { Node, Pod } from "../../apimachinery/api/core/v1.js";
import { isPodAvailable } from "../replicaset/podutil.js";
import { nodeShouldRunDaemonPod } from "./predicates.js";
import { isPodUpdated, surgeCount, templateGenerationOrUndefined, unavailableCount } from "./util.js";

export interface UpdatedPodsOnNode {
  newPod?: Pod;
  oldPod?: Pod;
  /** False when the node has more than one new or more than one old (non-deleted) pod. */
  ok: boolean;
}

/** The node's one new and one old non-deleted pod (findUpdatedPodsOnNode). */
export function findUpdatedPodsOnNode(ds: DaemonSet, podsOnNode: readonly Pod[], hash: string): UpdatedPodsOnNode {
  let newPod: Pod | undefined;
  let oldPod: Pod | undefined;
  const generation = templateGenerationOrUndefined(ds);
  for (const pod of podsOnNode) {
    if (pod.metadata?.deletionTimestamp) continue;
    if (isPodUpdated(pod, hash, generation)) {
      if (newPod) return { ok: false };
      newPod = pod;
    } else {
      if (oldPod) return { ok: false };
      oldPod = pod;
    }
  }
  return { newPod, oldPod, ok: true };
}

/** An invalid maxSurge or maxUnavailable. */
export class RollingUpdateConfigError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "RollingUpdateConfigError";
  }
}

export interface DesiredNodeCounts {
  maxSurge: number;
  maxUnavailable: number;
  desiredNumberScheduled: number;
}

/**
 * maxSurge and maxUnavailable out of the nodes that should run the pod, adding an empty entry to
 * `nodeToDaemonPods` for each such node without pods (updatedDesiredNodeCounts). Both 0 (which
 * the API server refuses) is read as maxUnavailable 1.
 */
export function updatedDesiredNodeCounts(ds: DaemonSet, nodeList: readonly Node[], nodeToDaemonPods: Map<string, Pod[]>): DesiredNodeCounts {
  let desiredNumberScheduled = 0;
  for (const node of nodeList) {
    if (!nodeShouldRunDaemonPod(node, ds).shouldRun) continue;
    desiredNumberScheduled++;
    const name = node.metadata?.name ?? "";
    if (!nodeToDaemonPods.has(name)) nodeToDaemonPods.set(name, []);
  }
  let maxUnavailable: number;
  try {
    maxUnavailable = unavailableCount(ds, desiredNumberScheduled);
  } catch (err) {
    throw new RollingUpdateConfigError(`invalid value for MaxUnavailable: ${(err as Error).message}`, { cause: err });
  }
  let maxSurge: number;
  try {
    maxSurge = surgeCount(ds, desiredNumberScheduled);
  } catch (err) {
    throw new RollingUpdateConfigError(`invalid value for MaxSurge: ${(err as Error).message}`, { cause: err });
  }
  if (desiredNumberScheduled > 0 && maxUnavailable === 0 && maxSurge === 0) maxUnavailable = 1;
  return { maxSurge, maxUnavailable, desiredNumberScheduled };
}

export interface RollingUpdatePlan {
  podsToDelete: string[];
  nodesToCreate: string[];
}

/** What the plan reads besides the pods: the node cache and whether a pod is still in the pod cache. */
export interface RollingUpdateView {
  nowMs: number;
  /** The node of that name from the cache; throws when it is not there. */
  getNode(name: string): Node;
  /** Whether the pod cache still has the pod. */
  podExists(name: string): boolean;
}

/** rollingUpdate's decisions (the caller passes them to syncNodes). */
export function planRollingUpdate(ds: DaemonSet, nodeList: readonly Node[], nodeToDaemonPods: Map<string, Pod[]>, hash: string, view: RollingUpdateView): RollingUpdatePlan {
  const { maxSurge, maxUnavailable, desiredNumberScheduled } = updatedDesiredNodeCounts(ds, nodeList, nodeToDaemonPods);
  const minReady = ds.spec?.minReadySeconds ?? 0;
  const available = (p: Pod) => isPodAvailable(p, minReady, view.nowMs);

  if (maxSurge === 0) {
    let numUnavailable = 0;
    const allowedReplacementPods: string[] = [];
    const candidatePodsToDelete: string[] = [];
    for (const pods of nodeToDaemonPods.values()) {
      const { newPod, oldPod, ok } = findUpdatedPodsOnNode(ds, pods, hash);
      if (!ok) {
        // The manage loop prunes the excess; the node counts as unavailable meanwhile.
        numUnavailable++;
        continue;
      }
      if ((!oldPod && !newPod) || (oldPod && newPod)) {
        numUnavailable++;
      } else if (newPod) {
        if (!available(newPod)) numUnavailable++;
      } else if (oldPod) {
        if (!available(oldPod)) {
          allowedReplacementPods.push(oldPod.metadata?.name ?? "");
          numUnavailable++;
        } else if (numUnavailable >= maxUnavailable) {
          continue;
        } else {
          candidatePodsToDelete.push(oldPod.metadata?.name ?? "");
        }
      }
    }
    const remaining = Math.min(Math.max(maxUnavailable - numUnavailable, 0), candidatePodsToDelete.length);
    return { podsToDelete: [...allowedReplacementPods, ...candidatePodsToDelete.slice(0, remaining)], nodesToCreate: [] };
  }

  const oldPodsToDelete: string[] = [];
  const shouldNotRunPodsToDelete: string[] = [];
  const candidateNewNodes: string[] = [];
  const allowedNewNodes: string[] = [];
  let numSurge = 0;
  let numAvailable = 0;
  for (const [nodeName, pods] of nodeToDaemonPods) {
    const { newPod, oldPod, ok } = findUpdatedPodsOnNode(ds, pods, hash);
    if (!ok) {
      numSurge++;
      continue;
    }
    // Availability over every node, the ones being sunset by scheduling constraints too.
    if (oldPod) {
      if (available(oldPod)) numAvailable++;
    } else if (newPod) {
      if (available(newPod)) numAvailable++;
    }
    if (!oldPod) continue; // nothing to update here; the manage loop handles the node
    if (!newPod) {
      const shouldRun = nodeShouldRunDaemonPod(view.getNode(nodeName), ds).shouldRun;
      if (!available(oldPod)) {
        if (!shouldRun) {
          oldPodsToDelete.push(oldPod.metadata?.name ?? "");
          continue;
        }
        allowedNewNodes.push(nodeName);
      } else {
        if (!shouldRun) {
          shouldNotRunPodsToDelete.push(oldPod.metadata?.name ?? "");
          continue;
        }
        if (numSurge >= maxSurge) continue;
        candidateNewNodes.push(nodeName);
      }
      continue;
    }
    // Already surged onto this node.
    if (!available(newPod)) {
      numSurge++;
      continue;
    }
    oldPodsToDelete.push(oldPod.metadata?.name ?? "");
  }

  // With surge the owner expects full availability: a pod on a node that should no longer run it
  // goes only once enough pods elsewhere are available.
  const deletable = Math.min(numAvailable - desiredNumberScheduled, shouldNotRunPodsToDelete.length);
  for (const name of shouldNotRunPodsToDelete.slice(0, Math.max(deletable, 0))) {
    if (view.podExists(name)) oldPodsToDelete.push(name);
  }
  const remainingSurge = Math.min(Math.max(maxSurge - numSurge, 0), candidateNewNodes.length);
  return { podsToDelete: oldPodsToDelete, nodesToCreate: [...allowedNewNodes, ...candidateNewNodes.slice(0, remainingSurge)] };
}
