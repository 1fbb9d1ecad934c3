/**
 * Which nodes a DaemonSet runs on (daemon_controller.go NodeShouldRunDaemonPod, predicates,
 * NewPod): the pod the DaemonSet would put on the node — its template with the node name and the
 * daemon tolerations — must fit the node's name, the required node affinity / nodeSelector, and
 * tolerate the node's NoSchedule and NoExecute taints.
 */
import type { DaemonSet } from "../../apimachinery/api/apps/v1.js";
import type { Node, Pod, Taint } from "../../apimachinery/api/core/v1.js";
import { deepCopy } from "../../apimachinery/deepcopy.js";
import { podMatchesNodeAffinity } from "../podlifecycle/nodeaffinity.js";
import { addOrUpdateDaemonPodTolerations, findMatchingUntoleratedTaint } from "./util.js";

/** The pod the DaemonSet would run on `nodeName` (NewPod). */
export function newDaemonPod(ds: DaemonSet, nodeName: string): Pod {
  const template = ds.spec?.template;
  const pod: Pod = {
    metadata: { ...deepCopy(template?.metadata ?? {}), namespace: ds.metadata?.namespace },
    spec: { ...deepCopy(template?.spec ?? { containers: [] }), nodeName },
  };
  addOrUpdateDaemonPodTolerations(pod.spec as NonNullable<Pod["spec"]>);
  return pod;
}

export interface Predicates {
  fitsNodeName: boolean;
  fitsNodeAffinity: boolean;
  fitsTaints: boolean;
}

const noScheduleOrNoExecute = (t: Taint) => t.effect === "NoExecute" || t.effect === "NoSchedule";
const noExecute = (t: Taint) => t.effect === "NoExecute";

/** Whether the pod fits the node's name, affinity and taints (predicates). */
export function predicates(pod: Pod, node: Node, taints: readonly Taint[]): Predicates {
  const nodeName = pod.spec?.nodeName ?? "";
  return {
    fitsNodeName: nodeName === "" || nodeName === node.metadata?.name,
    fitsNodeAffinity: podMatchesNodeAffinity(pod, node),
    fitsTaints: findMatchingUntoleratedTaint(taints, pod.spec?.tolerations ?? [], noScheduleOrNoExecute) === undefined,
  };
}

export interface ShouldRun {
  /** A daemon pod should be created on the node if there is none. */
  shouldRun: boolean;
  /** A daemon pod already on the node may stay (only NoSchedule taints are untolerated). */
  shouldContinueRunning: boolean;
}

/** NodeShouldRunDaemonPod. */
export function nodeShouldRunDaemonPod(node: Node, ds: DaemonSet): ShouldRun {
  const name = node.metadata?.name ?? "";
  const pod = newDaemonPod(ds, name);
  const templateNode = ds.spec?.template?.spec?.nodeName ?? "";
  if (!(templateNode === "" || templateNode === name)) return { shouldRun: false, shouldContinueRunning: false };
  const taints = node.spec?.taints ?? [];
  const p = predicates(pod, node, taints);
  if (!p.fitsNodeName || !p.fitsNodeAffinity) return { shouldRun: false, shouldContinueRunning: false };
  if (!p.fitsTaints) {
    return { shouldRun: false, shouldContinueRunning: findMatchingUntoleratedTaint(taints, pod.spec?.tolerations ?? [], noExecute) === undefined };
  }
  return { shouldRun: true, shouldContinueRunning: true };
}
