/**
 * StorageObjectInUseProtection (plugin/pkg/admission/storage/storageobjectinuseprotection): every
 * new PersistentVolumeClaim gets the `kubernetes.io/pvc-protection` finalizer and every new
 * PersistentVolume `kubernetes.io/pv-protection` (once; subresources untouched). The PVC and PV
 * protection controllers remove them when the claim is no longer used by a pod, the volume no
 * longer Bound. On by default in kube-apiserver.
 */
import type { KubeObject } from "../../../apimachinery/types.js";
import { isResource } from "../attributes.js";
import type { AdmissionPluginRegistration, AnyAdmissionPlugin } from "../chain.js";

export const pvcProtectionFinalizer = "kubernetes.io/pvc-protection";
export const pvProtectionFinalizer = "kubernetes.io/pv-protection";

function addFinalizer(obj: KubeObject, finalizer: string): void {
  const meta = (obj.metadata ??= {});
  const finalizers = meta.finalizers ?? [];
  if (finalizers.includes(finalizer)) return;
  meta.finalizers = [...finalizers, finalizer];
}

export function storageObjectInUseProtectionPlugin(): AnyAdmissionPlugin {
  return {
    name: "StorageObjectInUseProtection",
    handles: (op) => op === "CREATE",
    async admit(a) {
      if (a.subresource !== "" || !a.object) return;
      if (isResource(a, "", "persistentvolumeclaims")) addFinalizer(a.object, pvcProtectionFinalizer);
      else if (isResource(a, "", "persistentvolumes")) addFinalizer(a.object, pvProtectionFinalizer);
    },
  };
}

export const storageObjectInUseProtection: AdmissionPluginRegistration = { name: "StorageObjectInUseProtection", create: () => storageObjectInUseProtectionPlugin() };
