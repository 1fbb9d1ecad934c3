/**
 * The simulated scheduler's part of kube-scheduler's VolumeBinding plugin, for pods with
 * persistentVolumeClaim volumes: a missing or deleting claim, or an unbound claim of an Immediate
 * class, makes the pod unschedulable (upstream's reasons); an unbound claim of a
 * WaitForFirstConsumer class gets `volume.kubernetes.io/selected-node` set to the node chosen for
 * the pod (PreBind), and the pod is bound only once the claim is Bound (the provisioner and the
 * PersistentVolume binder do the rest). A claim that has a selected node pins the pod to it.
 *
 * Claims and classes are read through the API (no informers): only pods with claims pay for it.
 */
import type { PersistentVolumeClaim, Pod } from "../../apimachinery/api/core/v1.js";
import { isNotFound } from "../../apimachinery/errors.js";
import type { ResourceClientFactory } from "../../client/interfaces.js";
import { builtin } from "../../client/typed.js";
import { ANN_SELECTED_NODE, VOLUME_BINDING_WAIT_FOR_FIRST_CONSUMER } from "../persistentvolume/constants.js";
import { claimClass } from "../persistentvolume/match.js";

export const UNBOUND_IMMEDIATE = "pod has unbound immediate PersistentVolumeClaims";

export interface PodVolumes {
  /** Why no node can take the pod (the reason part of "0/3 nodes are available: ..."). */
  unschedulable?: string;
  /** Unbound WaitForFirstConsumer claims: to be given the chosen node, then waited for. */
  delayed: PersistentVolumeClaim[];
  /** The node a claim already chose, if any. */
  pinnedNode?: string;
}

export function claimNames(pod: Pod): string[] {
  return (pod.spec?.volumes ?? []).flatMap((v) => (v.persistentVolumeClaim?.claimName ? [v.persistentVolumeClaim.claimName] : []));
}

/** The pod's claims as the VolumeBinding plugin's PreFilter sees them. */
export async function podVolumes(pod: Pod, client: ResourceClientFactory, signal?: AbortSignal): Promise<PodVolumes> {
  const ns = pod.metadata?.namespace ?? "";
  const out: PodVolumes = { delayed: [] };
  let unboundImmediate = false;
  for (const name of claimNames(pod)) {
    let claim: PersistentVolumeClaim;
    try {
      claim = await client.resource(builtin.persistentVolumeClaims, ns).get(name, { signal });
    } catch (err) {
      if (isNotFound(err)) return { ...out, unschedulable: `persistentvolumeclaim "${name}" not found` };
      throw err;
    }
    if (claim.metadata?.deletionTimestamp) return { ...out, unschedulable: `persistentvolumeclaim "${name}" is being deleted` };
    const selected = claim.metadata?.annotations?.[ANN_SELECTED_NODE];
    if (selected && !out.pinnedNode) out.pinnedNode = selected;
    if (claim.spec?.volumeName) continue;
    const cls = claimClass(claim);
    let wffc = false;
    if (cls !== "") {
      try {
        wffc = (await client.resource(builtin.storageClasses).get(cls, { signal })).volumeBindingMode === VOLUME_BINDING_WAIT_FOR_FIRST_CONSUMER;
      } catch (err) {
        if (!isNotFound(err)) throw err;
      }
    }
    if (wffc) out.delayed.push(claim);
    else unboundImmediate = true;
  }
  if (unboundImmediate) out.unschedulable = UNBOUND_IMMEDIATE;
  return out;
}

/** PreBind: the chosen node on every delayed claim that has none yet. */
export async function selectNode(claims: readonly PersistentVolumeClaim[], node: string, client: ResourceClientFactory, signal?: AbortSignal): Promise<void> {
  for (const c of claims) {
    if (c.metadata?.annotations?.[ANN_SELECTED_NODE] === node) continue;
    await client.resource(builtin.persistentVolumeClaims, c.metadata?.namespace ?? "").patch(c.metadata?.name ?? "", "merge", { metadata: { annotations: { [ANN_SELECTED_NODE]: node } } }, { signal });
  }
}
