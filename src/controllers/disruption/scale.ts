/**
 * The expected scale of a PDB's pods (upstream getExpectedScale and its finders): the sum of the
 * replicas of the distinct controllers of the selected pods — a ReplicaSet's own spec.replicas, or,
 * when a Deployment controls the ReplicaSet, the Deployment's; a ReplicationController's; a
 * StatefulSet's. Pods without a controller are "unmanaged" (reported, not counted). A controller
 * that is missing, or whose UID differs from the pod's reference, fails the sync with upstream's
 * "found no controllers for pod" error.
 *
 * Not here: upstream's last finder, the scale subresource of any other kind (a custom resource
 * with a scale subresource); such pods fail the sync as a missing controller does.
 */
import type { Pod, ReplicationController } from "../../apimachinery/api/core/v1.js";
import type { Deployment, ReplicaSet, StatefulSet } from "../../apimachinery/api/apps/v1.js";
import type { OwnerReference } from "../../apimachinery/api/meta/v1.js";
import type { PodDisruptionBudget } from "../../apimachinery/api/policy/v1.js";
import { isNotFound } from "../../apimachinery/errors.js";
import { builtin } from "../../client/typed.js";
import type { TypedObject } from "../../apimachinery/types.js";
import type { Lister } from "../../informers/lister.js";
import type { Manager } from "../../runtime/manager.js";

export class NoControllersError extends Error {
  constructor(pod: string) {
    super(`found no controllers for pod "${pod}"`);
    this.name = "NoControllersError";
  }
}

function controllerOf(o: { metadata?: { ownerReferences?: OwnerReference[] } }): OwnerReference | undefined {
  return o.metadata?.ownerReferences?.find((r) => r.controller === true);
}

function getOrUndefined<T extends TypedObject>(l: Lister<T>, ns: string, name: string): T | undefined {
  try {
    return l.namespace(ns).get(name);
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
}

export class ScaleFinder {
  private readonly rs: Lister<ReplicaSet>;
  private readonly deploy: Lister<Deployment>;
  private readonly rc: Lister<ReplicationController>;
  private readonly sts: Lister<StatefulSet>;

  constructor(mgr: Manager) {
    this.rs = mgr.informers.forResource(builtin.replicaSets).lister();
    this.deploy = mgr.informers.forResource(builtin.deployments).lister();
    this.rc = mgr.informers.forResource(builtin.replicationControllers).lister();
    this.sts = mgr.informers.forResource(builtin.statefulSets).lister();
  }

  /** The (uid, replicas) of the controller a pod's controller reference names, if one of the finders knows it. */
  private find(ref: OwnerReference, ns: string): { uid: string; scale: number } | undefined {
    const group = ref.apiVersion.split("/").length > 1 ? ref.apiVersion.split("/")[0] : "";
    if (group === "apps" && ref.kind === "ReplicaSet") {
      const rs = getOrUndefined(this.rs, ns, ref.name);
      if (!rs || rs.metadata?.uid !== ref.uid) return undefined;
      const owner = controllerOf(rs);
      if (owner && owner.kind === "Deployment" && owner.apiVersion.startsWith("apps/")) {
        const d = getOrUndefined(this.deploy, ns, owner.name);
        if (!d || d.metadata?.uid !== owner.uid) return undefined;
        return { uid: d.metadata?.uid ?? "", scale: d.spec?.replicas ?? 1 };
      }
      return { uid: rs.metadata?.uid ?? "", scale: rs.spec?.replicas ?? 1 };
    }
    if (group === "" && ref.kind === "ReplicationController") {
      const rc = getOrUndefined(this.rc, ns, ref.name);
      if (!rc || rc.metadata?.uid !== ref.uid) return undefined;
      return { uid: rc.metadata?.uid ?? "", scale: rc.spec?.replicas ?? 1 };
    }
    if (group === "apps" && ref.kind === "StatefulSet") {
      const s = getOrUndefined(this.sts, ns, ref.name);
      if (!s || s.metadata?.uid !== ref.uid) return undefined;
      return { uid: s.metadata?.uid ?? "", scale: s.spec?.replicas ?? 1 };
    }
    return undefined;
  }

  /** getExpectedScale: the summed scale of the pods' distinct controllers, and the unmanaged pods. */
  expectedScale(pdb: PodDisruptionBudget, pods: readonly Pod[]): { scale: number; unmanagedPods: string[] } {
    const ns = pdb.metadata?.namespace ?? "";
    const scales = new Map<string, number>();
    const unmanagedPods: string[] = [];
    for (const pod of pods) {
      const ref = controllerOf(pod);
      if (!ref) {
        unmanagedPods.push(pod.metadata?.name ?? "");
        continue;
      }
      if (scales.has(ref.uid)) continue;
      const found = this.find(ref, ns);
      if (!found) throw new NoControllersError(pod.metadata?.name ?? "");
      scales.set(ref.uid, found.scale);
    }
    let scale = 0;
    for (const v of scales.values()) scale += v;
    return { scale, unmanagedPods };
  }
}
