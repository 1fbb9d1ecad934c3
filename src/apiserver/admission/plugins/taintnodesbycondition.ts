/**
 * TaintNodesByCondition (plugin/pkg/admission/nodetaint): a new Node gets the
 * node.kubernetes.io/not-ready:NoSchedule taint (unless it has a taint of that key and effect),
 * so nothing is scheduled on it before the node lifecycle controller sees it Ready and removes
 * the taint.
 *
 * Registered default-off in kubeloop until the node lifecycle controller (issue 16) removes the
 * taint: with it on and no such controller, no pod would ever be scheduled on a new node.
 */
import type { AdmissionPluginRegistration, AnyAdmissionPlugin } from "../chain.js";
import { isResource } from "../attributes.js";
import { notReadyTaintKey } from "./defaulttolerationseconds.js";

interface Taint {
  key?: string;
  value?: string;
  effect?: string;
}

export function taintNodesByConditionPlugin(): AnyAdmissionPlugin {
  return {
    name: "TaintNodesByCondition",
    handles: (op) => op === "CREATE",
    handlesResource: (r, sub) => r.group === "" && r.resource === "nodes" && sub === "",
    admit(a) {
      if (!isResource(a, "", "nodes") || a.subresource !== "" || !a.object) return Promise.resolve();
      const spec = ((a.object as { spec?: { taints?: Taint[] } }).spec ??= {});
      const taints = spec.taints ?? [];
      if (!taints.some((t) => t.key === notReadyTaintKey && t.effect === "NoSchedule")) spec.taints = [...taints, { key: notReadyTaintKey, effect: "NoSchedule" }];
      return Promise.resolve();
    },
  };
}

export const taintNodesByCondition: AdmissionPluginRegistration = { name: "TaintNodesByCondition", defaultOff: true, create: () => taintNodesByConditionPlugin() };
