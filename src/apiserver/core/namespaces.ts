/**
 * Namespace lifecycle in the server: DELETE of a namespace with spec.finalizers moves it to
 * phase Terminating (deletionTimestamp set) instead of removing it; the finalize subresource
 * edits spec.finalizers only, and the namespace disappears once both spec.finalizers and
 * metadata.finalizers are empty. What may be created in a namespace, and that default,
 * kube-system and kube-public cannot be deleted, is NamespaceLifecycle admission's
 * (admission/plugins/namespacelifecycle.ts).
 */
import type { FieldError } from "../../apimachinery/fielderrors.js";
import type { GroupResource } from "../../apimachinery/gvk.js";
import type { KubeObject } from "../../apimachinery/types.js";
import type { ResourceHooks } from "../rest/context.js";

export const protectedNamespaces = new Set(["default", "kube-system", "kube-public"]);
export const namespacesGR: GroupResource = { group: "", resource: "namespaces" };

interface NamespaceShape {
  spec?: { finalizers?: string[] };
  status?: { phase?: string };
}

/** spec.finalizers (only its strings: the lifecycle loop reads whatever is stored). */
export function specFinalizers(ns: KubeObject): string[] {
  const spec: unknown = (ns as NamespaceShape).spec;
  const f: unknown = typeof spec === "object" && spec !== null ? (spec as { finalizers?: unknown }).finalizers : undefined;
  return Array.isArray(f) ? f.filter((x): x is string => typeof x === "string") : [];
}

export function isTerminating(ns: KubeObject): boolean {
  const status: unknown = (ns as NamespaceShape).status;
  return !!ns.metadata?.deletionTimestamp || (typeof status === "object" && status !== null && (status as { phase?: unknown }).phase === "Terminating");
}

export function namespaceHooks(): ResourceHooks {
  return {
    prepareDelete(obj) {
      if (specFinalizers(obj).length === 0) return undefined;
      const o = obj as NamespaceShape;
      if (typeof o.status !== "object" || o.status === null) o.status = {};
      o.status.phase = "Terminating";
      return obj;
    },
    canRemove(obj) {
      return specFinalizers(obj).length === 0;
    },
  };
}

/**
 * The namespaces/finalize update: only spec.finalizers changes; everything else is the stored
 * state. (Used as UpdateOptions.prepare.)
 */
export function finalizeNamespace(obj: KubeObject, old: KubeObject): FieldError[] {
  const finalizers = [...specFinalizers(obj)];
  const meta = obj.metadata;
  for (const k of Object.keys(obj)) delete obj[k];
  Object.assign(obj, structuredClone(old));
  if (meta?.resourceVersion) obj.metadata = { ...obj.metadata, resourceVersion: meta.resourceVersion };
  const oldSpec: unknown = (obj as NamespaceShape).spec;
  const spec: { finalizers?: string[] } = typeof oldSpec === "object" && oldSpec !== null ? { ...oldSpec } : {};
  if (finalizers.length) spec.finalizers = finalizers;
  else delete spec.finalizers;
  (obj as NamespaceShape).spec = spec;
  return [];
}
