/**
 * A pod's required node affinity (component-helpers scheduling/corev1/nodeaffinity,
 * GetRequiredNodeAffinity(pod).Match(node)): the pod's nodeSelector must match the node's labels,
 * and, when spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution is set, at
 * least one of its terms must match the node.
 *
 * A term matches when all of its matchExpressions (over labels) and all of its matchFields (over
 * fields: only metadata.name is supported) match; a term with neither matches nothing. A term
 * that cannot be parsed (an unknown operator, Gt/Lt without one integer, an unsupported field)
 * matches nothing either, as upstream's lazy error handling ends up doing.
 */
import type { Node, NodeSelector, NodeSelectorRequirement, NodeSelectorTerm, Pod } from "../../apimachinery/api/core/v1.js";

/** The only field node selectors can match (metav1.ObjectNameField). */
export const OBJECT_NAME_FIELD = "metadata.name";

function integer(s: string): number | undefined {
  return /^[+-]?\d+$/.test(s) ? Number(s) : undefined;
}

/** Whether one requirement holds over `values` (labels, or the fields map). undefined: invalid. */
function requirementMatches(r: NodeSelectorRequirement, values: Readonly<Record<string, string>>): boolean | undefined {
  const has = Object.hasOwn(values, r.key);
  const v = values[r.key];
  const want = r.values ?? [];
  switch (r.operator) {
    case "In":
      if (want.length === 0) return undefined;
      return has && want.includes(v);
    case "NotIn":
      if (want.length === 0) return undefined;
      return !has || !want.includes(v);
    case "Exists":
      if (want.length > 0) return undefined;
      return has;
    case "DoesNotExist":
      if (want.length > 0) return undefined;
      return !has;
    case "Gt":
    case "Lt": {
      const bound = want.length === 1 ? integer(want[0]) : undefined;
      if (bound === undefined) return undefined;
      if (!has) return false;
      const n = integer(v);
      if (n === undefined) return false;
      return r.operator === "Gt" ? n > bound : n < bound;
    }
    default:
      return undefined;
  }
}

/** Whether a node selector term matches the node (see the module comment). */
export function nodeSelectorTermMatches(term: NodeSelectorTerm, node: Node): boolean {
  const exprs = term.matchExpressions ?? [];
  const fields = term.matchFields ?? [];
  if (exprs.length === 0 && fields.length === 0) return false;
  const labels = node.metadata?.labels ?? {};
  for (const r of exprs) if (requirementMatches(r, labels) !== true) return false;
  const fieldValues = { [OBJECT_NAME_FIELD]: node.metadata?.name ?? "" };
  for (const r of fields) {
    if (r.key !== OBJECT_NAME_FIELD || (r.operator !== "In" && r.operator !== "NotIn")) return false;
    if (requirementMatches(r, fieldValues) !== true) return false;
  }
  return true;
}

/** Whether any term of a node selector matches (terms are ORed). */
export function nodeSelectorMatches(selector: NodeSelector, node: Node): boolean {
  return (selector.nodeSelectorTerms ?? []).some((t) => nodeSelectorTermMatches(t, node));
}

/** Whether the node satisfies the pod's nodeSelector and required node affinity. */
export function podMatchesNodeAffinity(pod: Pod, node: Node): boolean {
  const labels = node.metadata?.labels ?? {};
  for (const [k, v] of Object.entries(pod.spec?.nodeSelector ?? {})) {
    if (labels[k] !== v) return false;
  }
  const required = pod.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution;
  return required ? nodeSelectorMatches(required, node) : true;
}
