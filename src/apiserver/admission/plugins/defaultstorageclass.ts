/**
 * DefaultStorageClass (plugin/pkg/admission/storage/storageclass/setdefault): a new
 * PersistentVolumeClaim that names no class (no spec.storageClassName, not even "", and no
 * volume.beta.kubernetes.io/storage-class annotation) gets the default StorageClass — the one
 * annotated storageclass.kubernetes.io/is-default-class: "true" (or the beta annotation); with
 * several, the newest (then the first by name), as util.GetDefaultClass chooses.
 */
import type { KubeObject } from "../../../apimachinery/types.js";
import { resourcePrefix } from "../../rest/keys.js";
import type { AdmissionPluginContext, AdmissionPluginRegistration, AnyAdmissionPlugin } from "../chain.js";
import { isResource } from "../attributes.js";

export const defaultClassAnnotation = "storageclass.kubernetes.io/is-default-class";
export const betaDefaultClassAnnotation = "storageclass.beta.kubernetes.io/is-default-class";
export const betaStorageClassAnnotation = "volume.beta.kubernetes.io/storage-class";

export function isDefaultClass(sc: KubeObject): boolean {
  const a = sc.metadata?.annotations ?? {};
  return a[defaultClassAnnotation] === "true" || a[betaDefaultClassAnnotation] === "true";
}

/** The default class among `classes`, or undefined. */
export function defaultClass(classes: readonly KubeObject[]): KubeObject | undefined {
  const defaults = classes.filter(isDefaultClass);
  defaults.sort((x, y) => {
    const tx = Date.parse(x.metadata?.creationTimestamp ?? "") || 0;
    const ty = Date.parse(y.metadata?.creationTimestamp ?? "") || 0;
    if (tx !== ty) return ty - tx;
    const nx = x.metadata?.name ?? "";
    const ny = y.metadata?.name ?? "";
    return nx < ny ? -1 : nx > ny ? 1 : 0;
  });
  return defaults[0];
}

export function defaultStorageClassPlugin(ctx: AdmissionPluginContext): AnyAdmissionPlugin {
  return {
    name: "DefaultStorageClass",
    handles: (op) => op === "CREATE",
    handlesResource: (r, sub) => r.group === "" && r.resource === "persistentvolumeclaims" && sub === "",
    async admit(a) {
      if (!isResource(a, "", "persistentvolumeclaims") || a.subresource !== "" || !a.object) return;
      const pvc = a.object as KubeObject & { spec?: { storageClassName?: string | null } };
      if (pvc.metadata?.annotations?.[betaStorageClassAnnotation] !== undefined) return;
      if (typeof pvc.spec?.storageClassName === "string") return;
      const classes = (await ctx.storage.list(resourcePrefix("storage.k8s.io", "storageclasses"))).items.map((i) => i.object);
      const def = defaultClass(classes);
      if (!def) return;
      (pvc.spec ??= {}).storageClassName = def.metadata?.name ?? "";
    },
  };
}

export const defaultStorageClass: AdmissionPluginRegistration = { name: "DefaultStorageClass", create: (ctx) => defaultStorageClassPlugin(ctx) };
