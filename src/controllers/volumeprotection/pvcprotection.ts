/**
 * The PVC protection controller (upstream pkg/controller/volume/pvcprotection
 * pvc_protection_controller.go): a PersistentVolumeClaim keeps `kubernetes.io/pvc-protection`
 * while a scheduled pod uses it, so `kubectl delete pvc` of a claim in use leaves it Terminating
 * until its pods are gone or finished. A claim without the finalizer that is not being deleted gets
 * it (claims created before the StorageObjectInUseProtection admission plugin added it).
 *
 * "Used" is upstream's podUsesPVC: a pod bound to a node (spec.nodeName set) with a
 * persistentVolumeClaim volume naming the claim, or a generic ephemeral volume whose claim
 * (`<pod>-<volume>`) is this one and is controlled by the pod — unless the pod is shut down
 * (deleted with grace 0). A Succeeded or Failed pod that still exists keeps the claim, as upstream.
 * The informer's pod index (`pod-pvc-index`: "ns/claim" of every claim a pod names) answers first;
 * when it finds no user, a live list of the namespace's pods decides, so a pod the informer has not
 * seen yet still protects the claim.
 *
 * Batching by namespace (upstream's pvcProcessingStore and LazyLivePodList): events name claims
 * ("ns/name") — claim adds and updates that need the finalizer added or removed, and pod events
 * that may free a claim: a deleted pod, a terminated or unscheduled one, and the old pod of an
 * update that replaced a pod by another of the same name (new uid). Each claim goes into its
 * namespace's pending batch and the namespace (a cluster-scoped request named after it) is queued.
 * A reconcile of a namespace takes the whole batch and processes its claims in order with one lazy
 * live list: made by the first claim that needs it, reused by the rest. So deleting N unused
 * claims of a namespace at once costs one live list, not N. A claim that fails goes back into the
 * batch and the namespace is retried with the queue's back-off (upstream backs off per claim).
 * The work queue never hands one namespace to two workers at once.
 */
import type { PersistentVolumeClaim, Pod, Volume } from "../../apimachinery/api/core/v1.js";
import { deepCopy } from "../../apimachinery/deepcopy.js";
import { isNotFound } from "../../apimachinery/errors.js";
import { ObjectName } from "../../apimachinery/objectname.js";
import type { ResourceClientFactory } from "../../client/interfaces.js";
import { builtin } from "../../client/typed.js";
import type { Indexer } from "../../informers/store.js";
import type { Lister } from "../../informers/lister.js";
import type { Controller } from "../../runtime/controller.js";
import type { Manager } from "../../runtime/manager.js";
import type { Logger } from "../../runtime/logging.js";
import { DEFAULT_PVC_PROTECTION_WORKERS, isDeletionCandidate, needToAddFinalizer, PVC_PROTECTION_CONTROLLER_NAME, PVC_PROTECTION_FINALIZER } from "./constants.js";

/** Upstream's pkg/controller/volume/common PodPVCIndex. */
export const POD_PVC_INDEX = "pod-pvc-index";

export interface PVCProtectionControllerOptions {
  workers?: number;
}

/**
 * The claims waiting to be processed, per namespace (pvcProcessingStore). Invariant: a namespace
 * has an entry only while it has claims pending, and then it is queued.
 */
export class PVCBatches {
  private readonly byNamespace = new Map<string, Set<string>>();

  /** Adds a claim to its namespace's batch; whether the namespace had none pending (so must be queued). */
  add(namespace: string, name: string): boolean {
    const pending = this.byNamespace.get(namespace);
    if (pending) {
      pending.add(name);
      return false;
    }
    this.byNamespace.set(namespace, new Set([name]));
    return true;
  }

  /** Takes the namespace's pending claims, in the order they came (flushNextPVCsByNamespace). */
  take(namespace: string): string[] {
    const pending = this.byNamespace.get(namespace);
    this.byNamespace.delete(namespace);
    return [...(pending ?? [])];
  }

  pending(namespace: string): readonly string[] {
    return [...(this.byNamespace.get(namespace) ?? [])];
  }
}

/** One live list of a namespace's pods, made when first asked for and shared by a batch (LazyLivePodList). */
export class LazyLivePodList {
  private pods: Promise<Pod[]> | undefined;

  constructor(private readonly list: () => Promise<Pod[]>) {}

  get(): Promise<Pod[]> {
    this.pods ??= this.list().catch((err: unknown) => {
      // A failed list is not kept: the next claim of the batch asks again.
      this.pods = undefined;
      throw err;
    });
    return this.pods;
  }
}

/** ephemeral.VolumeClaimName: the claim a generic ephemeral volume gets, `<pod>-<volume>`. */
export function ephemeralVolumeClaimName(pod: Pod, volume: Volume): string {
  return `${pod.metadata?.name ?? ""}-${volume.name}`;
}

/** ephemeral.VolumeIsForPod: the claim is controlled by this pod. */
export function ephemeralVolumeIsForPod(pod: Pod, pvc: PersistentVolumeClaim): boolean {
  const owner = (pvc.metadata?.ownerReferences ?? []).find((r) => r.controller === true);
  return owner !== undefined && owner.uid === pod.metadata?.uid;
}

/** PodPVCIndexFunc: "ns/claim" of every claim the pod's volumes name (generic ephemeral ones too). */
export function podPVCIndexKeys(pod: Pod): string[] {
  const keys: string[] = [];
  for (const v of pod.spec?.volumes ?? []) {
    const claim = v.persistentVolumeClaim ? v.persistentVolumeClaim.claimName : v.ephemeral ? ephemeralVolumeClaimName(pod, v) : "";
    if (claim) keys.push(`${pod.metadata?.namespace ?? ""}/${claim}`);
  }
  return keys;
}

/** podIsShutDown: deleted with a zero grace period (the kubelet is done with it, or it was force-deleted). */
export function podIsShutDown(pod: Pod): boolean {
  return !!pod.metadata?.deletionTimestamp && pod.metadata.deletionGracePeriodSeconds === 0;
}

/** volumeutil.IsPodTerminated: Succeeded or Failed, or deleted with no container running. */
export function isPodTerminated(pod: Pod): boolean {
  const phase = pod.status?.phase;
  if (phase === "Succeeded" || phase === "Failed") return true;
  if (!pod.metadata?.deletionTimestamp) return false;
  const notRunning = (statuses: ReadonlyArray<{ state?: { terminated?: unknown; waiting?: unknown } }> | undefined) =>
    (statuses ?? []).every((s) => !!s.state?.terminated || !!s.state?.waiting);
  return notRunning(pod.status?.initContainerStatuses) && notRunning(pod.status?.containerStatuses) && notRunning(pod.status?.ephemeralContainerStatuses);
}

/** podUsesPVC: a scheduled pod names the claim (a generic ephemeral volume only while the pod is not shut down). */
export function podUsesPVC(pod: Pod, pvc: PersistentVolumeClaim): boolean {
  if (!pod.spec?.nodeName) return false;
  const name = pvc.metadata?.name;
  return (pod.spec.volumes ?? []).some(
    (v) => (v.persistentVolumeClaim && v.persistentVolumeClaim.claimName === name) || (!podIsShutDown(pod) && !!v.ephemeral && ephemeralVolumeClaimName(pod, v) === name && ephemeralVolumeIsForPod(pod, pvc)),
  );
}

/** pvcAddedUpdated's filter: the claim needs the finalizer added or may lose it. */
export function pvcNeedsSync(pvc: PersistentVolumeClaim): boolean {
  return needToAddFinalizer(pvc, PVC_PROTECTION_FINALIZER) || isDeletionCandidate(pvc, PVC_PROTECTION_FINALIZER);
}

/**
 * enqueuePVCs: the claims a pod event may free ("ns/name"). A running scheduled pod frees nothing;
 * a deleted, terminated or unscheduled one may free each claim it names.
 */
export function claimsFreedBy(pod: Pod, deleted: boolean): string[] {
  if (!deleted && !isPodTerminated(pod) && pod.spec?.nodeName) return [];
  const ns = pod.metadata?.namespace ?? "";
  const out: string[] = [];
  for (const v of pod.spec?.volumes ?? []) {
    if (v.persistentVolumeClaim) out.push(`${ns}/${v.persistentVolumeClaim.claimName}`);
    else if (v.ephemeral) out.push(`${ns}/${ephemeralVolumeClaimName(pod, v)}`);
  }
  return out;
}

/**
 * podAddedDeletedUpdated: the claims to look at after a pod event. An update whose old pod has
 * another uid hides a deletion and a creation under one name: the old pod's claims count as freed.
 */
export function claimsForPodEvent(oldPod: Pod | undefined, pod: Pod, deleted: boolean): string[] {
  const keys = claimsFreedBy(pod, deleted);
  if (oldPod && oldPod.metadata?.uid !== pod.metadata?.uid) keys.push(...claimsFreedBy(oldPod, true));
  return keys;
}

export class PVCProtectionController {
  readonly controller: Controller;
  /** The claims waiting per namespace; the controller's requests are the namespaces (ObjectName("", ns)). */
  readonly batches = new PVCBatches();
  private readonly claims: Lister<PersistentVolumeClaim>;
  private readonly podIndexer: Indexer<Pod>;
  private readonly log: Logger;

  constructor(mgr: Manager, opts: PVCProtectionControllerOptions = {}) {
    this.log = mgr.logger.child({ controller: PVC_PROTECTION_CONTROLLER_NAME });
    this.claims = mgr.informers.forResource(builtin.persistentVolumeClaims).lister();
    const pods = mgr.informers.forResource(builtin.pods);
    this.podIndexer = pods.getIndexer();
    if (!(POD_PVC_INDEX in this.podIndexer.getIndexers())) pods.addIndexers({ [POD_PVC_INDEX]: podPVCIndexKeys });
    const enqueue = (namespace: string, name: string, q: { add(r: ObjectName): void }) => {
      this.batches.add(namespace, name);
      // Queued even when already pending: a namespace being processed right now comes back for it.
      q.add(new ObjectName("", namespace));
    };
    const enqueueClaim = (pvc: PersistentVolumeClaim, q: { add(r: ObjectName): void }) => {
      if (pvcNeedsSync(pvc)) enqueue(pvc.metadata?.namespace ?? "", pvc.metadata?.name ?? "", q);
    };
    const enqueueKeys = (keys: readonly string[], q: { add(r: ObjectName): void }) => {
      for (const k of keys) {
        const n = ObjectName.parse(k);
        enqueue(n.namespace, n.name, q);
      }
    };
    this.controller = mgr
      .controller(PVC_PROTECTION_CONTROLLER_NAME)
      .watches(builtin.persistentVolumeClaims, {
        create: (e, q) => enqueueClaim(e.object, q),
        update: (e, q) => enqueueClaim(e.objectNew, q),
      })
      .watches(builtin.pods, {
        create: (e, q) => enqueueKeys(claimsForPodEvent(undefined, e.object, false), q),
        update: (e, q) => enqueueKeys(claimsForPodEvent(e.objectOld, e.objectNew, false), q),
        delete: (e, q) => enqueueKeys(claimsForPodEvent(undefined, e.object, true), q),
      })
      .withOptions({ maxConcurrentReconciles: opts.workers ?? DEFAULT_PVC_PROTECTION_WORKERS })
      .reconcile((req, ctx) => this.processPVCsByNamespace(req.name, ctx.client));
  }

  /**
   * processPVCsByNamespace: every pending claim of `namespace`, with one shared lazy live list.
   * Claims that fail go back into the batch; the first failure is thrown so the namespace is retried.
   */
  async processPVCsByNamespace(namespace: string, client: ResourceClientFactory): Promise<void> {
    const claims = this.batches.take(namespace);
    const live = new LazyLivePodList(async () => (await client.resource(builtin.pods, namespace).list()).items);
    let failure: unknown;
    for (const name of claims) {
      try {
        await this.processPVC(namespace, name, client, live);
      } catch (err) {
        this.batches.add(namespace, name);
        failure ??= err;
      }
    }
    if (failure !== undefined) throw failure;
  }

  /** processPVC: remove the finalizer of a deleting claim no pod uses; add it to a live claim that lacks it. */
  async processPVC(namespace: string, name: string, client: ResourceClientFactory, live = new LazyLivePodList(async () => (await client.resource(builtin.pods, namespace).list()).items)): Promise<void> {
    let pvc: PersistentVolumeClaim;
    try {
      pvc = this.claims.namespace(namespace).get(name);
    } catch (err) {
      if (isNotFound(err)) return;
      throw err;
    }
    const claims = client.resource(builtin.persistentVolumeClaims, namespace);
    if (isDeletionCandidate(pvc, PVC_PROTECTION_FINALIZER)) {
      if (!(await this.isBeingUsed(pvc, live))) {
        const next = deepCopy(pvc);
        next.metadata = { ...next.metadata, finalizers: (next.metadata?.finalizers ?? []).filter((f) => f !== PVC_PROTECTION_FINALIZER) };
        await claims.update(next);
        return;
      }
      this.log.debug({ pvc: `${namespace}/${name}` }, "Keeping PVC because it is being used");
    }
    if (needToAddFinalizer(pvc, PVC_PROTECTION_FINALIZER)) {
      const next = deepCopy(pvc);
      next.metadata = { ...next.metadata, finalizers: [...(next.metadata?.finalizers ?? []), PVC_PROTECTION_FINALIZER] };
      await claims.update(next);
    }
  }

  /**
   * isBeingUsed: the informer's index first (askInformer: only the pods naming the claim); when it
   * finds no user, the batch's live list (askAPIServer), since a pod may not be in the cache yet.
   */
  private async isBeingUsed(pvc: PersistentVolumeClaim, live: LazyLivePodList): Promise<boolean> {
    const key = `${pvc.metadata?.namespace ?? ""}/${pvc.metadata?.name ?? ""}`;
    if (this.podIndexer.byIndex(POD_PVC_INDEX, key).some((p) => podUsesPVC(p, pvc))) return true;
    return (await live.get()).some((p) => podUsesPVC(p, pvc));
  }
}
