/**
 * The PV protection controller (upstream pkg/controller/volume/pvprotection
 * pv_protection_controller.go): a PersistentVolume keeps `kubernetes.io/pv-protection` while it is
 * Bound, so an administrator's `kubectl delete pv` of a volume in use waits until the binder
 * releases it. A deleting volume that is not Bound loses the finalizer (and the API server then
 * removes it); a volume without the finalizer that is not being deleted gets it (volumes created
 * before the StorageObjectInUseProtection admission plugin added it).
 *
 * Requests: a volume name (ObjectName with namespace ""), from volume adds and updates that need
 * the finalizer added or removed. Status phase Bound is the binder's word (pv_controller.go).
 */
import type { PersistentVolume } from "../../apimachinery/api/core/v1.js";
import { deepCopy } from "../../apimachinery/deepcopy.js";
import { isNotFound } from "../../apimachinery/errors.js";
import { ObjectName } from "../../apimachinery/objectname.js";
import type { ResourceClientFactory } from "../../client/interfaces.js";
import { builtin } from "../../client/typed.js";
import type { Lister } from "../../informers/lister.js";
import type { Controller } from "../../runtime/controller.js";
import type { Manager } from "../../runtime/manager.js";
import { DEFAULT_PV_PROTECTION_WORKERS, isDeletionCandidate, needToAddFinalizer, PV_PROTECTION_CONTROLLER_NAME, PV_PROTECTION_FINALIZER } from "./constants.js";

export interface PVProtectionControllerOptions {
  workers?: number;
}

/** pvAddedUpdated's filter: the volume needs the finalizer added or may lose it. */
export function pvNeedsSync(pv: PersistentVolume): boolean {
  return needToAddFinalizer(pv, PV_PROTECTION_FINALIZER) || isDeletionCandidate(pv, PV_PROTECTION_FINALIZER);
}

/** isBeingUsed: the binder has bound the volume to a claim. */
export function pvIsBeingUsed(pv: PersistentVolume): boolean {
  return pv.status?.phase === "Bound";
}

export class PVProtectionController {
  readonly controller: Controller;
  private readonly volumes: Lister<PersistentVolume>;

  constructor(mgr: Manager, opts: PVProtectionControllerOptions = {}) {
    this.volumes = mgr.informers.forResource(builtin.persistentVolumes).lister();
    const enqueue = (pv: PersistentVolume, q: { add(r: ObjectName): void }) => {
      if (pvNeedsSync(pv)) q.add(new ObjectName("", pv.metadata?.name ?? ""));
    };
    this.controller = mgr
      .controller(PV_PROTECTION_CONTROLLER_NAME)
      .watches(builtin.persistentVolumes, {
        create: (e, q) => enqueue(e.object, q),
        update: (e, q) => enqueue(e.objectNew, q),
      })
      .withOptions({ maxConcurrentReconciles: opts.workers ?? DEFAULT_PV_PROTECTION_WORKERS })
      .reconcile((req, ctx) => this.processPV(req.name, ctx.client));
  }

  /** processPV: remove the finalizer of a deleting volume that is not Bound; add it to a live one that lacks it. */
  async processPV(name: string, client: ResourceClientFactory): Promise<void> {
    let pv: PersistentVolume;
    try {
      pv = this.volumes.get(name);
    } catch (err) {
      if (isNotFound(err)) return;
      throw err;
    }
    const volumes = client.resource(builtin.persistentVolumes);
    if (isDeletionCandidate(pv, PV_PROTECTION_FINALIZER) && !pvIsBeingUsed(pv)) {
      const next = deepCopy(pv);
      next.metadata = { ...next.metadata, finalizers: (next.metadata?.finalizers ?? []).filter((f) => f !== PV_PROTECTION_FINALIZER) };
      await volumes.update(next);
      return;
    }
    if (needToAddFinalizer(pv, PV_PROTECTION_FINALIZER)) {
      const next = deepCopy(pv);
      next.metadata = { ...next.metadata, finalizers: [...(next.metadata?.finalizers ?? []), PV_PROTECTION_FINALIZER] };
      await volumes.update(next);
    }
  }
}
