/**
 * core/v1 Namespaces (cluster-scoped, DNS-1123 label names). Defaults: label
 * `kubernetes.io/metadata.name=<name>` (always re-set, SetDefaults_Namespace) and
 * `status.phase: Active`. Create: status Active and the `kubernetes` finalizer in spec.finalizers.
 * Update: spec.finalizers and status are kept (only /finalize and /status change them).
 * Status update: `status.phase` must be Active without deletionTimestamp, Terminating with it.
 * No deletecollection verb (as upstream). Selectable fields: status.phase and the legacy `name`.
 */
import type { Namespace } from "../../apimachinery/api/core/v1.js";
import { fieldErrors, type FieldError } from "../../apimachinery/fielderrors.js";
import type { KubeObject } from "../../apimachinery/types.js";
import { nameIsDNSLabel } from "../../apimachinery/validation.js";
import { defineStrategy, metaOf } from "./define.js";
import { validateKubeFinalizerName } from "./meta.js";
import { index } from "./path.js";
import type { ResourceStrategy } from "./strategy.js";

const asNamespace = (o: KubeObject) => o as unknown as Namespace;
/** The label every namespace carries with its own name. */
export const namespaceNameLabel = "kubernetes.io/metadata.name";

export function defaultNamespace(obj: KubeObject): void {
  const meta = metaOf(obj);
  if (meta.name) meta.labels = { ...(meta.labels ?? {}), [namespaceNameLabel]: meta.name };
  const ns = asNamespace(obj);
  ns.status ??= {};
  ns.status.phase ||= "Active";
}

function validateNamespaceSpec(obj: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  (asNamespace(obj).spec?.finalizers ?? []).forEach((f, i) => errs.push(...validateKubeFinalizerName(f, index("spec.finalizers", i))));
  return errs;
}

/** ValidateNamespaceFinalizeUpdate's rule for the /finalize subresource. */
export function validateNamespaceFinalizers(obj: KubeObject): FieldError[] {
  return validateNamespaceSpec(obj);
}

export const namespaceStrategy: ResourceStrategy = defineStrategy({
  names: {
    group: "",
    version: "v1",
    kind: "Namespace",
    resource: "namespaces",
    singular: "namespace",
    listKind: "NamespaceList",
    shortNames: ["ns"],
    categories: [],
    namespaced: false,
  },
  verbs: ["create", "delete", "get", "list", "patch", "update", "watch"],
  subresources: { status: true },
  nameFn: nameIsDNSLabel,
  emptyStatus: () => ({ phase: "Active" }),
  defaults: defaultNamespace,
  prepareForCreate(obj) {
    const ns = asNamespace(obj);
    ns.spec ??= {};
    const f = ns.spec.finalizers ?? [];
    if (!f.includes("kubernetes")) ns.spec.finalizers = [...f, "kubernetes"];
  },
  prepareForUpdate(obj, old) {
    const ns = asNamespace(obj);
    const finalizers = asNamespace(old).spec?.finalizers;
    ns.spec ??= {};
    if (finalizers) ns.spec.finalizers = [...finalizers];
    else delete ns.spec.finalizers;
  },
  validateSpec: validateNamespaceSpec,
  // ValidateNamespaceUpdate only checks metadata; spec.finalizers were reset from the old object.
  validateStatus: (obj) => {
    const ns = asNamespace(obj);
    const phase = ns.status?.phase ?? "";
    if (!ns.metadata?.deletionTimestamp) {
      if (phase !== "Active") return [fieldErrors.invalid("status.Phase", phase, "may only be 'Active' if `deletionTimestamp` is empty")];
    } else if (phase !== "Terminating") {
      return [fieldErrors.invalid("status.Phase", phase, "may only be 'Terminating' if `deletionTimestamp` is not empty")];
    }
    return [];
  },
  fields: (obj) => ({ "status.phase": asNamespace(obj).status?.phase ?? "", name: obj.metadata?.name ?? "" }),
});
