/**
 * Names the storage-object-in-use protection shares: the finalizers (upstream pkg/volume/util
 * finalizers.go), the controllers' registry names and the two predicates of
 * pkg/controller/volume/protectionutil.
 */
/** On every PersistentVolumeClaim: removed once no pod uses the claim. */
export const PVC_PROTECTION_FINALIZER = "kubernetes.io/pvc-protection";
/** On every PersistentVolume: removed once the volume is not Bound. */
export const PV_PROTECTION_FINALIZER = "kubernetes.io/pv-protection";

/** kube-controller-manager's names (aliases `pvc-protection`, `pv-protection`). */
export const PVC_PROTECTION_CONTROLLER_NAME = "persistentvolumeclaim-protection-controller";
export const PV_PROTECTION_CONTROLLER_NAME = "persistentvolume-protection-controller";
/** kube-controller-manager starts both with one worker. */
export const DEFAULT_PVC_PROTECTION_WORKERS = 1;
export const DEFAULT_PV_PROTECTION_WORKERS = 1;

/** What the two predicates read: the deletion timestamp and the finalizers. */
export interface Finalizable {
  metadata?: { deletionTimestamp?: string | null; finalizers?: readonly string[] | null };
}

/** IsDeletionCandidate: being deleted and still holding `finalizer`. */
export function isDeletionCandidate(obj: Finalizable, finalizer: string): boolean {
  return !!obj.metadata?.deletionTimestamp && (obj.metadata.finalizers ?? []).includes(finalizer);
}

/** NeedToAddFinalizer: not being deleted and not holding `finalizer` yet. */
export function needToAddFinalizer(obj: Finalizable, finalizer: string): boolean {
  return !obj.metadata?.deletionTimestamp && !(obj.metadata?.finalizers ?? []).includes(finalizer);
}
