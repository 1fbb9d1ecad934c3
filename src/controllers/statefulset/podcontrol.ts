/**
 * StatefulPodControl (upstream stateful_pod_control.go): creates, updates and deletes a set's pods
 * and their PersistentVolumeClaims through the API, reading claims and pods from the informers'
 * caches, and records upstream's events against the StatefulSet:
 *
 *   Normal  SuccessfulCreate  "create Pod web-0 in StatefulSet web successful"
 *   Warning FailedCreate      "create Pod web-0 in StatefulSet web failed error: <err>"
 *   Normal  SuccessfulDelete  "delete Pod web-0 in StatefulSet web successful"
 *   Normal  SuccessfulCreate  "create Claim www-web-0 Pod web-0 in StatefulSet web success"
 *   Warning FailedCreate      "create Claim www-web-0 for Pod web-0 in StatefulSet web failed error: <err>"
 *
 * Every call carries the reconcile's signal (through its client).
 */
import type { StatefulSet } from "../../apimachinery/api/apps/v1.js";
import type { ObjectReference, PersistentVolumeClaim, Pod } from "../../apimachinery/api/core/v1.js";
import { deepCopy } from "../../apimachinery/deepcopy.js";
import { isAlreadyExists, isConflict, isNotFound } from "../../apimachinery/errors.js";
import type { ResourceClientFactory } from "../../client/interfaces.js";
import { builtin } from "../../client/typed.js";
import type { EventRecorder } from "../../events/broadcaster.js";
import type { Lister } from "../../informers/lister.js";
import { errorMessage } from "../replicaset/podcontrol.js";
import {
  getOrdinal,
  getPersistentVolumeClaimName,
  getPersistentVolumeClaims,
  hasStaleOwnerRef,
  identityMatches,
  isClaimOwnerUpToDate,
  POD_GVK,
  storageMatches,
  updateClaimOwnerRefForSetAndPod,
  updateIdentity,
  updateStorage,
} from "./utils.js";

/** How often an update of a pod is tried against conflicts (retry.DefaultBackoff's steps). */
const UPDATE_ATTEMPTS = 4;

function capitalize(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

/** A reference to the set events are recorded on (cached sets may lack apiVersion and kind). */
export function setReference(set: StatefulSet): ObjectReference {
  const m = set.metadata ?? {};
  return { apiVersion: "apps/v1", kind: "StatefulSet", namespace: m.namespace, name: m.name, uid: m.uid, resourceVersion: m.resourceVersion };
}

export class StatefulPodControl {
  constructor(
    private readonly client: ResourceClientFactory,
    private readonly podLister: Lister<Pod>,
    private readonly claimLister: Lister<PersistentVolumeClaim>,
    private readonly recorder: EventRecorder,
  ) {}

  private pods(ns: string) {
    return this.client.resource(builtin.pods, ns);
  }

  private claims(ns: string) {
    return this.client.resource(builtin.persistentVolumeClaims, ns);
  }

  private getClaim(ns: string, name: string): PersistentVolumeClaim | undefined {
    try {
      return this.claimLister.namespace(ns).get(name);
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  }

  /** Creates the pod's claims, then the pod, then sets the claims' owner references (CreateStatefulPod). */
  async createStatefulPod(set: StatefulSet, pod: Pod): Promise<void> {
    try {
      await this.createPersistentVolumeClaims(set, pod);
    } catch (err) {
      this.recordPodEvent("create", set, pod, err);
      throw err;
    }
    try {
      await this.pods(set.metadata?.namespace ?? "").create(pod);
    } catch (err) {
      // Someone (an earlier sync) made it already: say nothing, the next sync sees it.
      if (isAlreadyExists(err)) throw err;
      this.recordPodEvent("create", set, pod, err);
      throw err;
    }
    try {
      await this.updatePodClaimForRetentionPolicy(set, pod);
    } catch (err) {
      this.recordPodEvent("update", set, pod, err);
      throw err;
    }
    this.recordPodEvent("create", set, pod);
  }

  /**
   * Brings an existing pod's identity and storage in line with the set, creating missing claims and
   * fixing their owner references (UpdateStatefulPod); retried on conflict from a fresh cached copy.
   */
  async updateStatefulPod(set: StatefulSet, pod: Pod): Promise<void> {
    let current = pod;
    let lastErr: unknown;
    for (let attempt = 1; attempt <= UPDATE_ATTEMPTS; attempt++) {
      let consistent = true;
      if (!identityMatches(set, current)) {
        updateIdentity(set, current);
        consistent = false;
      }
      if (!storageMatches(set, current)) {
        updateStorage(set, current);
        consistent = false;
        try {
          await this.createPersistentVolumeClaims(set, current);
        } catch (err) {
          this.recordPodEvent("update", set, current, err);
          throw err;
        }
      }
      if (!(await this.claimsMatchRetentionPolicy(set, current))) {
        try {
          await this.updatePodClaimForRetentionPolicy(set, current);
        } catch (err) {
          this.recordPodEvent("update", set, current, err);
          throw err;
        }
      }
      if (consistent) return;
      try {
        await this.pods(set.metadata?.namespace ?? "").update(current);
        this.recordPodEvent("update", set, current);
        return;
      } catch (err) {
        lastErr = err;
        if (!isConflict(err) || attempt === UPDATE_ATTEMPTS) break;
      }
      try {
        current = deepCopy(this.podLister.namespace(set.metadata?.namespace ?? "").get(pod.metadata?.name ?? ""));
      } catch (err) {
        lastErr = err;
        break;
      }
    }
    this.recordPodEvent("update", set, current, lastErr);
    throw lastErr;
  }

  /** Deletes the pod (DeleteStatefulPod); rejects with the API's error. */
  async deleteStatefulPod(set: StatefulSet, pod: Pod): Promise<void> {
    try {
      await this.pods(set.metadata?.namespace ?? "").delete(pod.metadata?.name ?? "");
    } catch (err) {
      this.recordPodEvent("delete", set, pod, err);
      throw err;
    }
    this.recordPodEvent("delete", set, pod);
  }

  /** Whether every existing claim's owner references agree with the retention policy (ClaimsMatchRetentionPolicy). */
  async claimsMatchRetentionPolicy(set: StatefulSet, pod: Pod): Promise<boolean> {
    const ordinal = getOrdinal(pod);
    for (const t of set.spec?.volumeClaimTemplates ?? []) {
      const claim = this.getClaim(set.metadata?.namespace ?? "", getPersistentVolumeClaimName(set, t, ordinal));
      // A missing claim is picked up by a later sync.
      if (claim && !isClaimOwnerUpToDate(claim, set, pod)) return false;
    }
    return true;
  }

  /** Rewrites the owner references of the pod's claims as the retention policy wants (UpdatePodClaimForRetentionPolicy). */
  async updatePodClaimForRetentionPolicy(set: StatefulSet, pod: Pod): Promise<void> {
    const ns = set.metadata?.namespace ?? "";
    const ordinal = getOrdinal(pod);
    for (const t of set.spec?.volumeClaimTemplates ?? []) {
      const name = getPersistentVolumeClaimName(set, t, ordinal);
      const cached = this.getClaim(ns, name);
      if (!cached || isClaimOwnerUpToDate(cached, set, pod)) continue;
      const claim = deepCopy(cached);
      updateClaimOwnerRefForSetAndPod(claim, set, pod);
      try {
        await this.claims(ns).update(claim);
      } catch (err) {
        throw new Error(`could not update claim ${name} for delete policy ownerRefs: ${errorMessage(err)}`, { cause: err });
      }
    }
  }

  /** A claim of the pod still references an earlier pod of the same name (PodClaimIsStale). */
  podClaimIsStale(set: StatefulSet, pod: Pod): boolean {
    const ordinal = getOrdinal(pod);
    for (const t of set.spec?.volumeClaimTemplates ?? []) {
      const claim = this.getClaim(set.metadata?.namespace ?? "", getPersistentVolumeClaimName(set, t, ordinal));
      if (claim && hasStaleOwnerRef(claim, pod, POD_GVK)) return true;
    }
    return false;
  }

  /** For a Pending pod: creates claims that went missing, then fixes owner references (createMissingPersistentVolumeClaims). */
  async createMissingPersistentVolumeClaims(set: StatefulSet, pod: Pod): Promise<void> {
    await this.createPersistentVolumeClaims(set, pod);
    try {
      await this.updatePodClaimForRetentionPolicy(set, pod);
    } catch (err) {
      this.recordPodEvent("update", set, pod, err);
      throw err;
    }
  }

  /** Creates each of the pod's claims that does not exist; a claim being deleted is an error (createPersistentVolumeClaims). */
  async createPersistentVolumeClaims(set: StatefulSet, pod: Pod): Promise<void> {
    const errors: string[] = [];
    const ns = set.metadata?.namespace ?? "";
    for (const claim of getPersistentVolumeClaims(set, pod).values()) {
      const name = claim.metadata?.name ?? "";
      let existing: PersistentVolumeClaim | undefined;
      try {
        existing = this.getClaim(ns, name);
      } catch (err) {
        errors.push(`failed to retrieve PVC ${name}: ${errorMessage(err)}`);
        continue;
      }
      if (existing) {
        if (existing.metadata?.deletionTimestamp) errors.push(`pvc ${name} is being deleted`);
        continue;
      }
      try {
        await this.claims(ns).create(claim);
        this.recordClaimEvent("create", set, pod, claim);
      } catch (err) {
        if (isAlreadyExists(err)) continue;
        errors.push(`failed to create PVC ${name}: ${errorMessage(err)}`);
        this.recordClaimEvent("create", set, pod, claim, err);
      }
    }
    if (errors.length === 1) throw new Error(errors[0]);
    if (errors.length > 1) throw new Error(`[${errors.join(", ")}]`);
  }

  private recordPodEvent(verb: string, set: StatefulSet, pod: Pod, err?: unknown): void {
    const podName = pod.metadata?.name ?? "";
    const setName = set.metadata?.name ?? "";
    if (err === undefined) {
      this.recorder.event(setReference(set), "Normal", `Successful${capitalize(verb)}`, `${verb} Pod ${podName} in StatefulSet ${setName} successful`);
    } else {
      this.recorder.event(setReference(set), "Warning", `Failed${capitalize(verb)}`, `${verb} Pod ${podName} in StatefulSet ${setName} failed error: ${errorMessage(err)}`);
    }
  }

  private recordClaimEvent(verb: string, set: StatefulSet, pod: Pod, claim: PersistentVolumeClaim, err?: unknown): void {
    const claimName = claim.metadata?.name ?? "";
    const podName = pod.metadata?.name ?? "";
    const setName = set.metadata?.name ?? "";
    if (err === undefined) {
      this.recorder.event(setReference(set), "Normal", `Successful${capitalize(verb)}`, `${verb} Claim ${claimName} Pod ${podName} in StatefulSet ${setName} success`);
    } else {
      this.recorder.event(
        setReference(set),
        "Warning",
        `Failed${capitalize(verb)}`,
        `${verb} Claim ${claimName} for Pod ${podName} in StatefulSet ${setName} failed error: ${errorMessage(err)}`,
      );
    }
  }
}
