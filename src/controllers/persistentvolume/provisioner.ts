/**
 * A simulated dynamic provisioner, standing in for an external one (sig-storage-lib-external-
 * provisioner's controller, as minikube's storage-provisioner and kind's local-path-provisioner
 * run it): for every claim the binder handed to it (annotation
 * `volume.kubernetes.io/storage-provisioner` = its name) that is still unbound, it creates the
 * PersistentVolume `pvc-<claim uid>` — the claim's request as capacity, its access modes and
 * volume mode, the class's reclaim policy and mount options, `pv.kubernetes.io/provisioned-by`, a
 * claimRef to the claim, a hostPath under /tmp/hostpath-provisioner/<namespace>/<claim> (nothing is
 * written to disk) and, for a WaitForFirstConsumer claim, node affinity to the selected node — with
 * events Provisioning and ProvisioningSucceeded on the claim. The binder then binds the two.
 *
 * A WaitForFirstConsumer claim is provisioned only once it has `volume.kubernetes.io/selected-node`.
 * A volume it provisioned that is Released with reclaim policy Delete is deleted (the volume's UID
 * as precondition).
 *
 * Requests: a claim "ns/name" or a volume "name" (namespace ""), as the binder's.
 */
import type { PersistentVolume, PersistentVolumeClaim } from "../../apimachinery/api/core/v1.js";
import type { StorageClass } from "../../apimachinery/api/storage/v1.js";
import { isAlreadyExists, isNotFound } from "../../apimachinery/errors.js";
import { ObjectName } from "../../apimachinery/objectname.js";
import type { ResourceClientFactory } from "../../client/interfaces.js";
import { builtin } from "../../client/typed.js";
import type { EventRecorder } from "../../events/index.js";
import type { Lister } from "../../informers/lister.js";
import type { Controller } from "../../runtime/controller.js";
import type { Manager } from "../../runtime/manager.js";
import { claimReference } from "./controller.js";
import {
  ANN_BETA_STORAGE_PROVISIONER,
  ANN_DYNAMICALLY_PROVISIONED,
  ANN_SELECTED_NODE,
  ANN_STORAGE_PROVISIONER,
  Messages,
  Reasons,
  VOLUME_BINDING_WAIT_FOR_FIRST_CONSUMER,
} from "./constants.js";
import { claimClass } from "./match.js";

/** The provisioner name of kubeloop's default StorageClass. */
export const SIMULATED_PROVISIONER = "sim.kubeloop.dev/hostpath";
export const PROVISIONER_CONTROLLER_NAME = "volume-provisioner";
export const HOSTPATH_ROOT = "/tmp/hostpath-provisioner";

export interface SimulatedProvisionerOptions {
  /** The provisioner name classes use (default SIMULATED_PROVISIONER). */
  name?: string;
  /** Its identity, in the event source `<name>_<identity>` (default "kubeloop"). */
  identity?: string;
  workers?: number;
}

export class SimulatedProvisioner {
  readonly controller: Controller;
  readonly name: string;
  private readonly claims: Lister<PersistentVolumeClaim>;
  private readonly volumes: Lister<PersistentVolume>;
  private readonly classes: Lister<StorageClass>;
  private readonly recorder: EventRecorder;

  constructor(mgr: Manager, opts: SimulatedProvisionerOptions = {}) {
    this.name = opts.name ?? SIMULATED_PROVISIONER;
    this.recorder = mgr.eventRecorder(`${this.name}_${opts.identity ?? "kubeloop"}`);
    this.claims = mgr.informers.forResource(builtin.persistentVolumeClaims).lister();
    this.volumes = mgr.informers.forResource(builtin.persistentVolumes).lister();
    this.classes = mgr.informers.forResource(builtin.storageClasses).lister();
    this.controller = mgr
      .controller(PROVISIONER_CONTROLLER_NAME)
      .watches(builtin.persistentVolumeClaims, (c: PersistentVolumeClaim) => (this.isMine(c) ? [new ObjectName(c.metadata?.namespace ?? "", c.metadata?.name ?? "")] : []))
      .watches(builtin.persistentVolumes, (v: PersistentVolume) => (v.metadata?.annotations?.[ANN_DYNAMICALLY_PROVISIONED] === this.name ? [new ObjectName("", v.metadata?.name ?? "")] : []))
      .watches(builtin.storageClasses, () => [])
      .withOptions({ maxConcurrentReconciles: opts.workers ?? 1 })
      .reconcile((req, ctx) => this.sync(req, ctx.client));
  }

  private isMine(c: PersistentVolumeClaim): boolean {
    const a = c.metadata?.annotations ?? {};
    return (a[ANN_STORAGE_PROVISIONER] ?? a[ANN_BETA_STORAGE_PROVISIONER]) === this.name;
  }

  async sync(key: ObjectName, client: ResourceClientFactory): Promise<void> {
    if (key.namespace === "") return this.syncVolume(key.name, client);
    let claim: PersistentVolumeClaim;
    try {
      claim = this.claims.namespace(key.namespace).get(key.name);
    } catch (err) {
      if (isNotFound(err)) return;
      throw err;
    }
    await this.provision(claim, client);
  }

  /** shouldProvision + provisionClaimOperation. */
  private async provision(claim: PersistentVolumeClaim, client: ResourceClientFactory): Promise<void> {
    if (!this.isMine(claim) || claim.spec?.volumeName || claim.metadata?.deletionTimestamp) return;
    let sc: StorageClass;
    try {
      sc = this.classes.get(claimClass(claim));
    } catch (err) {
      if (isNotFound(err)) return; // the binder reports a missing class
      throw err;
    }
    if (sc.provisioner !== this.name) return;
    const node = claim.metadata?.annotations?.[ANN_SELECTED_NODE];
    if (sc.volumeBindingMode === VOLUME_BINDING_WAIT_FOR_FIRST_CONSUMER && !node) return;
    const pvName = `pvc-${claim.metadata?.uid ?? ""}`;
    try {
      this.volumes.get(pvName);
      return; // provisioned already; the binder binds it
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
    const claimKey = `${claim.metadata?.namespace ?? ""}/${claim.metadata?.name ?? ""}`;
    this.recorder.event(claim, "Normal", Reasons.Provisioning, Messages.provisioning(claimKey));
    const pv = provisionedVolume(claim, sc, this.name, node);
    try {
      await client.resource(builtin.persistentVolumes).create(pv);
    } catch (err) {
      if (isAlreadyExists(err)) return;
      this.recorder.event(claim, "Warning", Reasons.ProvisioningFailed, `failed to provision volume with StorageClass "${sc.metadata?.name ?? ""}": ${err instanceof Error ? err.message : String(err)}`);
      throw err;
    }
    this.recorder.event(claim, "Normal", Reasons.ProvisioningSucceeded, Messages.provisioned(pvName));
  }

  /** shouldDelete + deleteVolumeOperation: a Released volume of ours with policy Delete goes. */
  private async syncVolume(name: string, client: ResourceClientFactory): Promise<void> {
    let pv: PersistentVolume;
    try {
      pv = this.volumes.get(name);
    } catch (err) {
      if (isNotFound(err)) return;
      throw err;
    }
    if (pv.metadata?.annotations?.[ANN_DYNAMICALLY_PROVISIONED] !== this.name) return;
    if (pv.status?.phase !== "Released" || pv.spec?.persistentVolumeReclaimPolicy !== "Delete" || pv.metadata?.deletionTimestamp) return;
    try {
      await client.resource(builtin.persistentVolumes).delete(name, { preconditions: { uid: pv.metadata?.uid ?? "" } });
    } catch (err) {
      if (isNotFound(err)) return;
      this.recorder.event(pv, "Warning", "VolumeFailedDelete", err instanceof Error ? err.message : String(err));
      throw err;
    }
  }
}

/** The volume the provisioner creates for a claim. */
export function provisionedVolume(claim: PersistentVolumeClaim, sc: StorageClass, provisioner: string, node: string | undefined): PersistentVolume {
  const ns = claim.metadata?.namespace ?? "";
  const pv: PersistentVolume = {
    apiVersion: "v1",
    kind: "PersistentVolume",
    metadata: { name: `pvc-${claim.metadata?.uid ?? ""}`, annotations: { [ANN_DYNAMICALLY_PROVISIONED]: provisioner } },
    spec: {
      capacity: { storage: claim.spec?.resources?.requests?.storage ?? "0" },
      accessModes: [...(claim.spec?.accessModes ?? [])],
      persistentVolumeReclaimPolicy: sc.reclaimPolicy ?? "Delete",
      storageClassName: sc.metadata?.name ?? "",
      volumeMode: claim.spec?.volumeMode ?? "Filesystem",
      claimRef: claimReference(claim),
      hostPath: { path: `${HOSTPATH_ROOT}/${ns}/${claim.metadata?.name ?? ""}`, type: "DirectoryOrCreate" },
      ...(sc.mountOptions?.length ? { mountOptions: [...sc.mountOptions] } : {}),
      ...(node
        ? { nodeAffinity: { required: { nodeSelectorTerms: [{ matchExpressions: [{ key: "kubernetes.io/hostname", operator: "In", values: [node] }] }] } } }
        : {}),
    },
  };
  return pv;
}
