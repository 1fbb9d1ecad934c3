/**
 * The PersistentVolume binder (upstream pkg/controller/volume/persistentvolume pv_controller.go):
 * binds PersistentVolumeClaims to PersistentVolumes, asks a provisioner for a volume when no
 * static one fits, and reclaims volumes whose claims are gone.
 *
 * State machines (phases as upstream):
 *   claim:  Pending ──bind──▶ Bound ──volume lost / misbound──▶ Lost
 *   volume: (Pending) ─▶ Available ──bind──▶ Bound ──claim deleted──▶ Released ──Delete──▶ (deleted by
 *           its provisioner) │ Recycle without a recycler ──▶ Failed │ Retain: stays Released
 *
 * A claim without `pv.kubernetes.io/bind-completed` is unbound (syncUnboundClaim): with no
 * spec.volumeName the best matching volume is bound (match.ts); none → with WaitForFirstConsumer
 * and no `volume.kubernetes.io/selected-node` the claim waits (event WaitForFirstConsumer); with a
 * class the claim is handed to the class's provisioner (annotation
 * `volume.kubernetes.io/storage-provisioner`, event ExternalProvisioning; every provisioner is
 * external here, as in-tree provisioning is gone upstream); without a class it stays Pending
 * (FailedBinding). A claim naming a volume (pre-bound by the user) binds to it if the volume fits
 * (else VolumeMismatch) and is not taken (else FailedBinding). Binding writes, in upstream's order,
 * the volume's claimRef (+ bound-by-controller when the controller chose) and phase Bound, then the
 * claim's volumeName (+ bound-by-controller), bind-completed, and status Bound with the volume's
 * capacity and access modes. Every write is skipped when nothing changes (zero writes in steady
 * state).
 *
 * Requests: one controller, two kinds of key, as upstream's two queues: a claim is "ns/name",
 * a volume (cluster-scoped) is "name" (ObjectName with namespace ""). Claim events enqueue the
 * claim and the volume it names (a deleted claim's volume turns Released); volume events the
 * volume. Unbound claims are synced again every RESYNC_PERIOD_MS (upstream's 15 s resync).
 */
import type { ObjectReference, PersistentVolume, PersistentVolumeClaim } from "../../apimachinery/api/core/v1.js";
import type { StorageClass } from "../../apimachinery/api/storage/v1.js";
import type { Clock } from "../../apimachinery/clock.js";
import { deepCopy } from "../../apimachinery/deepcopy.js";
import { semanticEqual } from "../../apimachinery/equality.js";
import { isNotFound } from "../../apimachinery/errors.js";
import { ObjectName } from "../../apimachinery/objectname.js";
import { formatTime } from "../../apimachinery/time.js";
import type { ResourceClientFactory } from "../../client/interfaces.js";
import { builtin } from "../../client/typed.js";
import type { EventRecorder } from "../../events/index.js";
import type { Lister } from "../../informers/lister.js";
import type { Controller } from "../../runtime/controller.js";
import type { Manager } from "../../runtime/manager.js";
import type { ReconcileResult } from "../../runtime/reconcile.js";
import {
  ANN_BETA_STORAGE_PROVISIONER,
  ANN_BIND_COMPLETED,
  ANN_BOUND_BY_CONTROLLER,
  ANN_DYNAMICALLY_PROVISIONED,
  ANN_SELECTED_NODE,
  ANN_STORAGE_PROVISIONER,
  Messages,
  Reasons,
  RESYNC_PERIOD_MS,
  VOLUME_BINDING_WAIT_FOR_FIRST_CONSUMER,
} from "./constants.js";
import { claimClass, findBestMatchForClaim, isVolumeBoundToClaim, volumeModeMismatches, volumeSatisfiesClaim } from "./match.js";

export const PERSISTENT_VOLUME_CONTROLLER_NAME = "persistentvolume-binder-controller";
/** The event source upstream's binder records with. */
export const PERSISTENT_VOLUME_EVENT_COMPONENT = "persistentvolume-controller";
/** Upstream runs the binder's claim and volume workers one each. */
export const DEFAULT_PERSISTENT_VOLUME_WORKERS = 1;

export interface PersistentVolumeControllerOptions {
  workers?: number;
  /** Resync period for unbound claims (default 15 s). */
  resyncMs?: number;
}

/** A cached object or undefined (the listers throw NotFound). */
function tryGet<T>(get: () => T): T | undefined {
  try {
    return get();
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
}

const hasAnn = (o: { metadata?: { annotations?: Record<string, string> } }, k: string) => o.metadata?.annotations?.[k] !== undefined;

export class PersistentVolumeController {
  readonly controller: Controller;
  private readonly claims: Lister<PersistentVolumeClaim>;
  private readonly volumes: Lister<PersistentVolume>;
  private readonly classes: Lister<StorageClass>;
  private readonly clock: Clock;
  private readonly recorder: EventRecorder;
  private readonly resyncMs: number;

  constructor(mgr: Manager, opts: PersistentVolumeControllerOptions = {}) {
    this.clock = mgr.clock;
    this.resyncMs = opts.resyncMs ?? RESYNC_PERIOD_MS;
    this.recorder = mgr.eventRecorder(PERSISTENT_VOLUME_EVENT_COMPONENT);
    this.claims = mgr.informers.forResource(builtin.persistentVolumeClaims).lister();
    this.volumes = mgr.informers.forResource(builtin.persistentVolumes).lister();
    this.classes = mgr.informers.forResource(builtin.storageClasses).lister();
    this.controller = mgr
      .controller(PERSISTENT_VOLUME_CONTROLLER_NAME)
      .watches(builtin.persistentVolumeClaims, (c: PersistentVolumeClaim) => [
        new ObjectName(c.metadata?.namespace ?? "", c.metadata?.name ?? ""),
        ...(c.spec?.volumeName ? [new ObjectName("", c.spec.volumeName)] : []),
      ])
      .watches(builtin.persistentVolumes, (v: PersistentVolume) => [new ObjectName("", v.metadata?.name ?? "")])
      .watches(builtin.storageClasses, () => [])
      .withOptions({ maxConcurrentReconciles: opts.workers ?? DEFAULT_PERSISTENT_VOLUME_WORKERS })
      .reconcile((req, ctx) => this.sync(req, ctx.client));
  }

  /** A claim ("ns/name") or a volume ("name"). */
  async sync(key: ObjectName, client: ResourceClientFactory): Promise<ReconcileResult | void> {
    if (key.namespace === "") {
      const volume = tryGet(() => this.volumes.get(key.name));
      if (volume) await this.syncVolume(volume, client);
      return;
    }
    const claim = tryGet(() => this.claims.namespace(key.namespace).get(key.name));
    if (!claim) return;
    return this.syncClaim(claim, client);
  }

  // ── claims ──────────────────────────────────────────────────────────────────────────────

  async syncClaim(claim: PersistentVolumeClaim, client: ResourceClientFactory): Promise<ReconcileResult | void> {
    if (!hasAnn(claim, ANN_BIND_COMPLETED)) return this.syncUnboundClaim(claim, client);
    return this.syncBoundClaim(claim, client);
  }

  /** IsDelayBindingMode unless the scheduler already picked a node (isDelayBindingProvisioning). */
  private shouldDelayBinding(claim: PersistentVolumeClaim): boolean {
    if (hasAnn(claim, ANN_SELECTED_NODE)) return false;
    const cls = claimClass(claim);
    if (cls === "") return false;
    const sc = tryGet(() => this.classes.get(cls));
    return sc?.volumeBindingMode === VOLUME_BINDING_WAIT_FOR_FIRST_CONSUMER;
  }

  private async syncUnboundClaim(claim: PersistentVolumeClaim, client: ResourceClientFactory): Promise<ReconcileResult | void> {
    const resync = { requeueAfterMs: this.resyncMs };
    const volumeName = claim.spec?.volumeName ?? "";
    if (volumeName === "") {
      const delay = this.shouldDelayBinding(claim);
      const volume = findBestMatchForClaim(claim, this.volumes.list(), delay);
      if (volume) {
        await this.bind(volume, claim, client);
        return;
      }
      if (delay) {
        this.recorder.event(claim, "Normal", Reasons.WaitForFirstConsumer, Messages.waitForFirstConsumer);
        await this.updateClaimStatus(claim, "Pending", undefined, client);
      } else if (claimClass(claim) !== "") {
        await this.provisionClaim(claim, client);
      } else {
        this.recorder.event(claim, "Normal", Reasons.FailedBinding, Messages.noVolumeNoClass);
        await this.updateClaimStatus(claim, "Pending", undefined, client);
      }
      return resync;
    }
    // The user pre-bound the claim to a volume.
    const volume = tryGet(() => this.volumes.get(volumeName));
    if (!volume) {
      await this.updateClaimStatus(claim, "Pending", undefined, client);
      return resync;
    }
    if (!volume.spec?.claimRef) {
      const why = volumeSatisfiesClaim(volume, claim);
      if (why) {
        this.recorder.event(claim, "Warning", Reasons.VolumeMismatch, Messages.cannotBind(volumeName, why));
        await this.updateClaimStatus(claim, "Pending", undefined, client);
        return resync;
      }
      await this.bind(volume, claim, client);
      return;
    }
    if (isVolumeBoundToClaim(volume, claim)) {
      await this.bind(volume, claim, client);
      return;
    }
    if (!hasAnn(claim, ANN_BOUND_BY_CONTROLLER)) {
      // Pre-bound by the user to a volume that is bound elsewhere: wait.
      this.recorder.event(claim, "Warning", Reasons.FailedBinding, Messages.volumeBoundElsewhere(volumeName));
      await this.updateClaimStatus(claim, "Pending", undefined, client);
      return resync;
    }
    throw new Error(`invalid binding of claim ${claimKey(claim)} to volume ${volumeName}: the controller bound it to a volume bound to another claim`);
  }

  private async syncBoundClaim(claim: PersistentVolumeClaim, client: ResourceClientFactory): Promise<void> {
    const volumeName = claim.spec?.volumeName ?? "";
    if (volumeName === "") {
      await this.updateClaimStatusWithEvent(claim, "Lost", undefined, Reasons.ClaimLost, Messages.claimLostReference, client);
      return;
    }
    const volume = tryGet(() => this.volumes.get(volumeName));
    if (!volume) {
      await this.updateClaimStatusWithEvent(claim, "Lost", undefined, Reasons.ClaimLost, Messages.claimLostVolume, client);
      return;
    }
    if (!volume.spec?.claimRef) {
      // The claim says bound, the volume is not: bind it again.
      await this.bind(volume, claim, client);
      return;
    }
    if (isVolumeBoundToClaim(volume, claim)) {
      // Finishes an interrupted bind, or nothing (every write is skipped when nothing changes).
      await this.bind(volume, claim, client);
      return;
    }
    await this.updateClaimStatusWithEvent(claim, "Lost", undefined, Reasons.ClaimMisbound, Messages.claimMisbound, client);
  }

  /** provisionClaim for an external provisioner: name it on the claim and say so. */
  private async provisionClaim(claim: PersistentVolumeClaim, client: ResourceClientFactory): Promise<void> {
    const cls = claimClass(claim);
    const sc = tryGet(() => this.classes.get(cls));
    if (!sc) {
      this.recorder.event(claim, "Warning", Reasons.ProvisioningFailed, `storageclass.storage.k8s.io "${cls}" not found`);
      await this.updateClaimStatus(claim, "Pending", undefined, client);
      return;
    }
    const provisioner = sc.provisioner;
    let current = claim;
    const ann = claim.metadata?.annotations ?? {};
    if (ann[ANN_STORAGE_PROVISIONER] !== provisioner || ann[ANN_BETA_STORAGE_PROVISIONER] !== provisioner) {
      const next = deepCopy(claim);
      next.metadata = { ...next.metadata, annotations: { ...next.metadata?.annotations, [ANN_STORAGE_PROVISIONER]: provisioner, [ANN_BETA_STORAGE_PROVISIONER]: provisioner } };
      current = await client.resource(builtin.persistentVolumeClaims, claim.metadata?.namespace).update(next);
    }
    this.recorder.event(current, "Normal", Reasons.ExternalProvisioning, Messages.externalProvisioning(provisioner));
    await this.updateClaimStatus(current, "Pending", undefined, client);
  }

  // ── binding ─────────────────────────────────────────────────────────────────────────────

  /** bind: the volume to the claim, then the claim to the volume, then the claim's status. */
  private async bind(volume: PersistentVolume, claim: PersistentVolumeClaim, client: ResourceClientFactory): Promise<void> {
    let v = await this.bindVolumeToClaim(volume, claim, client);
    v = await this.updateVolumePhase(v, "Bound", "", client);
    const c = await this.bindClaimToVolume(claim, v, client);
    await this.updateClaimStatus(c, "Bound", v, client);
  }

  private async bindVolumeToClaim(volume: PersistentVolume, claim: PersistentVolumeClaim, client: ResourceClientFactory): Promise<PersistentVolume> {
    const ref = volume.spec?.claimRef;
    const uid = claim.metadata?.uid ?? "";
    if (ref && ref.name === claim.metadata?.name && ref.namespace === claim.metadata?.namespace && ref.uid === uid) return volume;
    // A claimRef naming the claim without its UID is the user's pre-binding: not the controller's doing.
    const byController = !isVolumeBoundToClaim(volume, claim);
    const next = deepCopy(volume);
    next.spec = { ...next.spec, claimRef: claimReference(claim) };
    if (byController && !hasAnn(next, ANN_BOUND_BY_CONTROLLER)) {
      next.metadata = { ...next.metadata, annotations: { ...next.metadata?.annotations, [ANN_BOUND_BY_CONTROLLER]: "yes" } };
    }
    return client.resource(builtin.persistentVolumes).update(next);
  }

  private async bindClaimToVolume(claim: PersistentVolumeClaim, volume: PersistentVolume, client: ResourceClientFactory): Promise<PersistentVolumeClaim> {
    const name = volume.metadata?.name ?? "";
    const setName = claim.spec?.volumeName !== name;
    if (!setName && hasAnn(claim, ANN_BIND_COMPLETED)) return claim;
    const next = deepCopy(claim);
    const annotations: Record<string, string> = { ...next.metadata?.annotations, [ANN_BIND_COMPLETED]: "yes" };
    if (setName) {
      next.spec = { ...next.spec, volumeName: name };
      annotations[ANN_BOUND_BY_CONTROLLER] = "yes";
    }
    next.metadata = { ...next.metadata, annotations };
    return client.resource(builtin.persistentVolumeClaims, claim.metadata?.namespace).update(next);
  }

  /** updateClaimStatus: the phase, and with a volume its capacity and access modes. */
  private async updateClaimStatus(claim: PersistentVolumeClaim, phase: string, volume: PersistentVolume | undefined, client: ResourceClientFactory): Promise<PersistentVolumeClaim> {
    const status = { ...(claim.status ?? {}) };
    status.phase = phase;
    if (volume) {
      if (volume.spec?.accessModes) status.accessModes = [...volume.spec.accessModes];
      if (volume.spec?.capacity) status.capacity = { ...volume.spec.capacity };
    }
    if (semanticEqual(status, claim.status ?? {})) return claim;
    return client.resource(builtin.persistentVolumeClaims, claim.metadata?.namespace).updateStatus({ ...deepCopy(claim), status });
  }

  private async updateClaimStatusWithEvent(claim: PersistentVolumeClaim, phase: string, volume: PersistentVolume | undefined, reason: string, message: string, client: ResourceClientFactory): Promise<void> {
    if (claim.status?.phase === phase) return;
    const c = await this.updateClaimStatus(claim, phase, volume, client);
    this.recorder.event(c, "Warning", reason, message);
  }

  // ── volumes ─────────────────────────────────────────────────────────────────────────────

  async syncVolume(volume: PersistentVolume, client: ResourceClientFactory): Promise<void> {
    const ref = volume.spec?.claimRef;
    if (!ref || !ref.uid) {
      // Unused, or pre-bound by the user and waiting for its claim.
      await this.updateVolumePhase(volume, "Available", "", client);
      return;
    }
    let claim = tryGet(() => this.claims.namespace(ref.namespace ?? "").get(ref.name ?? ""));
    if (!claim && volume.status?.phase !== "Released" && volume.status?.phase !== "Failed") {
      // Not in the cache yet (a provisioner's fresh volume) or really gone: ask the server.
      try {
        claim = await client.resource(builtin.persistentVolumeClaims, ref.namespace).get(ref.name ?? "");
      } catch (err) {
        if (!isNotFound(err)) throw err;
      }
    }
    if (claim && claim.metadata?.uid !== ref.uid) claim = undefined; // deleted and created again
    if (!claim) {
      let v = volume;
      if (v.status?.phase !== "Released" && v.status?.phase !== "Failed") v = await this.updateVolumePhase(v, "Released", "", client);
      await this.reclaimVolume(v, client);
      return;
    }
    const claimVolume = claim.spec?.volumeName ?? "";
    if (claimVolume === "") {
      if (volumeModeMismatches(claim, volume)) {
        this.recorder.event(volume, "Warning", Reasons.VolumeMismatch, Messages.volumeModeMismatch(claim.metadata?.name ?? ""));
        return;
      }
      // Bound (or being bound) by the controller, or left dangling by a user: the claim's sync
      // finishes the binding (upstream queues the claim; with one worker, syncing it here is the same).
      await this.syncClaim(claim, client);
      return;
    }
    if (claimVolume === volume.metadata?.name) {
      await this.updateVolumePhase(volume, "Bound", "", client);
      return;
    }
    // The claim is bound to another volume.
    if (hasAnn(volume, ANN_DYNAMICALLY_PROVISIONED) && volume.spec?.persistentVolumeReclaimPolicy === "Delete") {
      let v = volume;
      if (v.status?.phase !== "Released" && v.status?.phase !== "Failed") v = await this.updateVolumePhase(v, "Released", "", client);
      await this.reclaimVolume(v, client);
      return;
    }
    await this.unbindVolume(volume, client);
  }

  /** unbindVolume: a controller-made binding is undone, a user's pre-binding keeps the claim's name. */
  private async unbindVolume(volume: PersistentVolume, client: ResourceClientFactory): Promise<void> {
    const next = deepCopy(volume);
    if (hasAnn(next, ANN_BOUND_BY_CONTROLLER)) {
      const spec = { ...next.spec };
      delete spec.claimRef;
      next.spec = spec;
      const annotations = { ...next.metadata?.annotations };
      delete annotations[ANN_BOUND_BY_CONTROLLER];
      next.metadata = { ...next.metadata, annotations };
    } else if (next.spec?.claimRef) {
      const claimRef = { ...next.spec.claimRef };
      delete claimRef.uid;
      next.spec = { ...next.spec, claimRef };
    }
    const updated = await client.resource(builtin.persistentVolumes).update(next);
    await this.updateVolumePhase(updated, "Available", "", client);
  }

  /** reclaimVolume by the volume's policy. */
  private async reclaimVolume(volume: PersistentVolume, client: ResourceClientFactory): Promise<void> {
    switch (volume.spec?.persistentVolumeReclaimPolicy) {
      case "Retain":
        return;
      case "Recycle":
        // Recycling needs an in-tree recycler plugin; there is none here (and it is deprecated).
        await this.updateVolumePhaseWithEvent(volume, "Failed", Reasons.VolumeFailedRecycle, Messages.noRecycler, client);
        return;
      case "Delete":
      default: {
        if (hasAnn(volume, ANN_DYNAMICALLY_PROVISIONED)) {
          // An external provisioner's volume: its provisioner deletes it.
          return;
        }
        const msg = `error getting deleter volume plugin for volume "${volume.metadata?.name ?? ""}": no deletable volume plugin matched`;
        await this.updateVolumePhaseWithEvent(volume, "Failed", "VolumeFailedDelete", msg, client);
      }
    }
  }

  /** updateVolumePhase: status.phase and message; lastPhaseTransitionTime moves when the phase does. */
  private async updateVolumePhase(volume: PersistentVolume, phase: string, message: string, client: ResourceClientFactory): Promise<PersistentVolume> {
    const old = volume.status ?? {};
    if (old.phase === phase && (old.message ?? "") === message) return volume;
    const status: NonNullable<PersistentVolume["status"]> = { ...old, phase };
    if (message) status.message = message;
    else delete status.message;
    if (old.phase !== phase) status.lastPhaseTransitionTime = formatTime(this.clock.now());
    return client.resource(builtin.persistentVolumes).updateStatus({ ...deepCopy(volume), status });
  }

  private async updateVolumePhaseWithEvent(volume: PersistentVolume, phase: string, reason: string, message: string, client: ResourceClientFactory): Promise<void> {
    if (volume.status?.phase === phase) return;
    const v = await this.updateVolumePhase(volume, phase, message, client);
    this.recorder.event(v, "Warning", reason, message);
  }
}

const claimKey = (c: PersistentVolumeClaim) => `${c.metadata?.namespace ?? ""}/${c.metadata?.name ?? ""}`;

/** GetReference of a claim, as the binder stores it in claimRef. */
export function claimReference(claim: PersistentVolumeClaim): ObjectReference {
  return {
    kind: "PersistentVolumeClaim",
    namespace: claim.metadata?.namespace ?? "",
    name: claim.metadata?.name ?? "",
    uid: claim.metadata?.uid ?? "",
    apiVersion: "v1",
    resourceVersion: claim.metadata?.resourceVersion ?? "",
  };
}
