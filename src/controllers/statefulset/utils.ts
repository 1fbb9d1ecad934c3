/**
 * The StatefulSet controller's vocabulary (upstream stateful_set_utils.go): pod identity from
 * `<set>-<ordinal>`, the ordinal range `[spec.ordinals.start, start + replicas)`, claims named
 * `<template>-<set>-<ordinal>`, the PVC retention policy as owner references, pod predicates,
 * revisions as template patches, and the status helpers.
 *
 * Every function here is pure over its arguments and never modifies a cached object: the ones that
 * change a pod or claim (updateIdentity, updateStorage, updateClaimOwnerRefForSetAndPod) are given
 * a copy by their callers.
 */
import type { ControllerRevision, StatefulSet, StatefulSetPersistentVolumeClaimRetentionPolicy, StatefulSetStatus } from "../../apimachinery/api/apps/v1.js";
import type { PersistentVolumeClaim, Pod } from "../../apimachinery/api/core/v1.js";
import type { ObjectMeta, OwnerReference } from "../../apimachinery/api/meta/v1.js";
import { deepCopy } from "../../apimachinery/deepcopy.js";
import type { GroupVersionKind } from "../../apimachinery/gvk.js";
import { groupVersionString } from "../../apimachinery/gvk.js";
import { getScaledValueFromIntOrPercent } from "../../apimachinery/intstr.js";
import type { IntOrString } from "../../apimachinery/types.js";
import { newControllerRef } from "../../apimachinery/ownerrefs.js";
import { applyStrategicMergePatch, patchMetaForKind } from "../../apimachinery/patch/index.js";
import { parseTime } from "../../apimachinery/time.js";
import { newControllerRevision } from "../history/index.js";
import { getPodFromTemplate } from "../replicaset/podcontrol.js";
import { isPodAvailable, isPodReady } from "../replicaset/podutil.js";

export const STATEFULSET_GVK: GroupVersionKind = Object.freeze({ group: "apps", version: "v1", kind: "StatefulSet" });
export const POD_GVK: GroupVersionKind = Object.freeze({ group: "", version: "v1", kind: "Pod" });

/** apps.StatefulSetPodNameLabel: the pod's own name, so a Service can select one replica. */
export const STATEFULSET_POD_NAME_LABEL = "statefulset.kubernetes.io/pod-name";
/** apps.PodIndexLabel: the pod's ordinal (the PodIndexLabel gate, GA since 1.32). */
export const POD_INDEX_LABEL = "apps.kubernetes.io/pod-index";
/** apps.StatefulSetRevisionLabel: the revision a pod was made from. */
export const STATEFULSET_REVISION_LABEL = "controller-revision-hash";

const statefulPodRegex = /^(.*)-([0-9]+)$/;

/** The parent name and ordinal in a pod's name ("" and -1 when it has none) — getParentNameAndOrdinal. */
export function getParentNameAndOrdinal(pod: { metadata?: ObjectMeta }): { parent: string; ordinal: number } {
  const m = statefulPodRegex.exec(pod.metadata?.name ?? "");
  if (!m) return { parent: "", ordinal: -1 };
  const n = Number(m[2]);
  // strconv.ParseInt(s, 10, 32): out of range is an error, leaving the ordinal -1.
  return { parent: m[1], ordinal: Number.isSafeInteger(n) && n <= 2147483647 ? n : -1 };
}

export function getParentName(pod: Pod): string {
  return getParentNameAndOrdinal(pod).parent;
}

export function getOrdinal(pod: Pod): number {
  return getParentNameAndOrdinal(pod).ordinal;
}

export function replicasOf(set: StatefulSet): number {
  return set.spec?.replicas ?? 1;
}

/** spec.ordinals.start, or 0. */
export function getStartOrdinal(set: StatefulSet): number {
  return set.spec?.ordinals?.start ?? 0;
}

/** The last ordinal the set controls (inclusive). */
export function getEndOrdinal(set: StatefulSet): number {
  return getStartOrdinal(set) + replicasOf(set) - 1;
}

export function podInOrdinalRange(pod: Pod, set: StatefulSet): boolean {
  const o = getOrdinal(pod);
  return o >= getStartOrdinal(set) && o <= getEndOrdinal(set);
}

export function getPodName(set: StatefulSet, ordinal: number): string {
  return `${set.metadata?.name ?? ""}-${ordinal}`;
}

/** `<claim template>-<set>-<ordinal>`. */
export function getPersistentVolumeClaimName(set: StatefulSet, claim: PersistentVolumeClaim, ordinal: number): string {
  return `${claim.metadata?.name ?? ""}-${set.metadata?.name ?? ""}-${ordinal}`;
}

export function isMemberOf(set: StatefulSet, pod: Pod): boolean {
  return getParentName(pod) === set.metadata?.name;
}

/** The pod's name, namespace and pod-name label are those of a member of set (identityMatches). */
export function identityMatches(set: StatefulSet, pod: Pod): boolean {
  const { parent, ordinal } = getParentNameAndOrdinal(pod);
  return (
    ordinal >= 0 &&
    set.metadata?.name === parent &&
    pod.metadata?.name === getPodName(set, ordinal) &&
    pod.metadata?.namespace === set.metadata?.namespace &&
    pod.metadata?.labels?.[STATEFULSET_POD_NAME_LABEL] === pod.metadata?.name
  );
}

/** Every claim template has a volume of the pod pointing at the claim for its ordinal (storageMatches). */
export function storageMatches(set: StatefulSet, pod: Pod): boolean {
  const ordinal = getOrdinal(pod);
  if (ordinal < 0) return false;
  const volumes = new Map((pod.spec?.volumes ?? []).map((v) => [v.name, v]));
  for (const claim of set.spec?.volumeClaimTemplates ?? []) {
    const v = volumes.get(claim.metadata?.name ?? "");
    if (!v?.persistentVolumeClaim || v.persistentVolumeClaim.claimName !== getPersistentVolumeClaimName(set, claim, ordinal)) return false;
  }
  return true;
}

/** The retention policy, Retain/Retain when unset. */
export function getPersistentVolumeClaimRetentionPolicy(set: StatefulSet): Required<StatefulSetPersistentVolumeClaimRetentionPolicy> {
  const p = set.spec?.persistentVolumeClaimRetentionPolicy;
  return { whenDeleted: p?.whenDeleted ?? "Retain", whenScaled: p?.whenScaled ?? "Retain" };
}

export interface Named {
  metadata?: ObjectMeta;
}

/** The reference names obj with kind gvk (not comparing UIDs) — matchesRef. */
export function matchesRef(ref: OwnerReference, obj: Named, gvk: GroupVersionKind): boolean {
  return groupVersionString(gvk) === ref.apiVersion && gvk.kind === ref.kind && ref.name === obj.metadata?.name;
}

/** With a non-Retain policy, the claim is controlled by something that is neither set nor pod (or by a stale them). */
export function hasUnexpectedController(claim: PersistentVolumeClaim, set: StatefulSet, pod: Pod): boolean {
  const policy = getPersistentVolumeClaimRetentionPolicy(set);
  if (policy.whenScaled === "Retain" && policy.whenDeleted === "Retain") return false;
  for (const ref of claim.metadata?.ownerReferences ?? []) {
    if (matchesRef(ref, set, STATEFULSET_GVK)) {
      if (ref.uid !== set.metadata?.uid) return true;
      continue;
    }
    if (matchesRef(ref, pod, POD_GVK)) {
      if (ref.uid !== pod.metadata?.uid) return true;
      continue;
    }
    if (ref.controller === true) return true;
  }
  return false;
}

/** Set or pod owns the claim without being its controller. */
export function hasNonControllerOwner(claim: PersistentVolumeClaim, set: StatefulSet, pod: Pod): boolean {
  return (claim.metadata?.ownerReferences ?? []).some((r) => (r.uid === set.metadata?.uid || r.uid === pod.metadata?.uid) && r.controller !== true);
}

/** target has a reference to owner's UID. */
export function hasOwnerRef(target: Named, owner: Named): boolean {
  const uid = owner.metadata?.uid;
  return (target.metadata?.ownerReferences ?? []).some((r) => r.uid === uid);
}

/** target's first reference naming obj has another UID. */
export function hasStaleOwnerRef(target: Named, obj: Named, gvk: GroupVersionKind): boolean {
  for (const ref of target.metadata?.ownerReferences ?? []) {
    if (matchesRef(ref, obj, gvk)) return ref.uid !== obj.metadata?.uid;
  }
  return false;
}

function addControllerRef(refs: OwnerReference[], owner: Named, gvk: GroupVersionKind): OwnerReference[] {
  if (refs.some((r) => r.uid === owner.metadata?.uid)) return refs;
  return [...refs, newControllerRef(owner, gvk)];
}

/**
 * Whether the claim's owner references agree with the retention policy (isClaimOwnerUpToDate):
 * Retain/Retain — none; Retain on scale, Delete on set deletion — the set only; Delete on scale,
 * Retain on deletion — the pod only, once it is scaled down; Delete/Delete — the set while the pod
 * is in range, the pod once it is scaled down. Stale references or a foreign controller leave the
 * claim alone (true).
 */
export function isClaimOwnerUpToDate(claim: PersistentVolumeClaim, set: StatefulSet, pod: Pod): boolean {
  if (hasStaleOwnerRef(claim, set, STATEFULSET_GVK) || hasStaleOwnerRef(claim, pod, POD_GVK)) return true;
  if (hasUnexpectedController(claim, set, pod)) return !(hasOwnerRef(claim, set) || hasOwnerRef(claim, pod));
  if (hasNonControllerOwner(claim, set, pod)) return false;
  const policy = getPersistentVolumeClaimRetentionPolicy(set);
  const scaledDown = !podInOrdinalRange(pod, set);
  if (policy.whenScaled === "Retain" && policy.whenDeleted === "Delete") return hasOwnerRef(claim, set) && !hasOwnerRef(claim, pod);
  if (policy.whenScaled === "Delete" && policy.whenDeleted === "Retain") return !hasOwnerRef(claim, set) && scaledDown === hasOwnerRef(claim, pod);
  if (policy.whenScaled === "Delete" && policy.whenDeleted === "Delete") return scaledDown !== hasOwnerRef(claim, set) && scaledDown === hasOwnerRef(claim, pod);
  // Retain/Retain, and unknown values treated as Retain.
  return !hasOwnerRef(claim, set) && !hasOwnerRef(claim, pod);
}

/** Rewrites the claim's references to set and pod as the policy wants (updateClaimOwnerRefForSetAndPod); modifies `claim`. */
export function updateClaimOwnerRefForSetAndPod(claim: PersistentVolumeClaim, set: StatefulSet, pod: Pod): void {
  const unexpected = hasUnexpectedController(claim, set, pod);
  let refs = (claim.metadata?.ownerReferences ?? []).filter((r) => !(matchesRef(r, set, STATEFULSET_GVK) || matchesRef(r, pod, POD_GVK)));
  if (!unexpected) {
    const policy = getPersistentVolumeClaimRetentionPolicy(set);
    const scaledDown = !podInOrdinalRange(pod, set);
    if (policy.whenScaled === "Retain" && policy.whenDeleted === "Delete") refs = addControllerRef(refs, set, STATEFULSET_GVK);
    else if (policy.whenScaled === "Delete" && policy.whenDeleted === "Retain") {
      if (scaledDown) refs = addControllerRef(refs, pod, POD_GVK);
    } else if (policy.whenScaled === "Delete" && policy.whenDeleted === "Delete") {
      refs = scaledDown ? addControllerRef(refs, pod, POD_GVK) : addControllerRef(refs, set, STATEFULSET_GVK);
    }
  }
  const meta = (claim.metadata ??= {});
  if (refs.length > 0) meta.ownerReferences = refs;
  else delete meta.ownerReferences;
}

/**
 * The claims the pod needs, by template name (getPersistentVolumeClaims): each template renamed for
 * the pod's ordinal, in the set's namespace, labelled with the template's labels plus the
 * selector's matchLabels.
 */
export function getPersistentVolumeClaims(set: StatefulSet, pod: Pod): Map<string, PersistentVolumeClaim> {
  const ordinal = getOrdinal(pod);
  const out = new Map<string, PersistentVolumeClaim>();
  for (const t of set.spec?.volumeClaimTemplates ?? []) {
    const claim: PersistentVolumeClaim = deepCopy(t);
    const meta = (claim.metadata ??= {});
    meta.name = getPersistentVolumeClaimName(set, t, ordinal);
    meta.namespace = set.metadata?.namespace;
    const matchLabels = set.spec?.selector?.matchLabels;
    if (meta.labels) Object.assign(meta.labels, matchLabels ?? {});
    else if (matchLabels) meta.labels = { ...matchLabels };
    claim.apiVersion = "v1";
    claim.kind = "PersistentVolumeClaim";
    out.set(t.metadata?.name ?? "", claim);
  }
  return out;
}

/** Points the pod's volumes named after claim templates at its claims, keeping its other volumes (updateStorage); modifies `pod`. */
export function updateStorage(set: StatefulSet, pod: Pod): void {
  const claims = getPersistentVolumeClaims(set, pod);
  const spec = (pod.spec ??= { containers: [] });
  const current = spec.volumes ?? [];
  const volumes = [...claims].map(([name, claim]) => ({ name, persistentVolumeClaim: { claimName: claim.metadata?.name ?? "", readOnly: false } }));
  for (const v of current) if (!claims.has(v.name)) volumes.push(v as never);
  spec.volumes = volumes;
}

/** Name, namespace and the pod-name and pod-index labels from the set (updateIdentity); modifies `pod`. */
export function updateIdentity(set: StatefulSet, pod: Pod): void {
  const ordinal = getOrdinal(pod);
  const meta = (pod.metadata ??= {});
  meta.name = getPodName(set, ordinal);
  meta.namespace = set.metadata?.namespace;
  meta.labels = { ...(meta.labels ?? {}), [STATEFULSET_POD_NAME_LABEL]: meta.name, [POD_INDEX_LABEL]: String(ordinal) };
}

/** updateIdentity plus the hostname and subdomain, which are set only at creation (initIdentity). */
export function initIdentity(set: StatefulSet, pod: Pod): void {
  updateIdentity(set, pod);
  const spec = (pod.spec ??= { containers: [] });
  spec.hostname = pod.metadata?.name;
  if (set.spec?.serviceName) spec.subdomain = set.spec.serviceName;
}

export function isRunningAndReady(pod: Pod): boolean {
  return pod.status?.phase === "Running" && isPodReady(pod);
}

export function isRunningAndAvailable(pod: Pod, minReadySeconds: number, nowMs: number): boolean {
  return isPodAvailable(pod, minReadySeconds, nowMs);
}

/** Created and maintained by the API server: it has a phase. */
export function isCreated(pod: Pod): boolean {
  return !!pod.status?.phase;
}

export function isPending(pod: Pod): boolean {
  return pod.status?.phase === "Pending";
}

export function isFailed(pod: Pod): boolean {
  return pod.status?.phase === "Failed";
}

export function isSucceeded(pod: Pod): boolean {
  return pod.status?.phase === "Succeeded";
}

export function isTerminating(pod: Pod): boolean {
  return !!pod.metadata?.deletionTimestamp;
}

export function isHealthy(pod: Pod): boolean {
  return isRunningAndReady(pod) && !isTerminating(pod);
}

/** Not available after minReadySeconds, or being deleted (counted against maxUnavailable). */
export function isUnavailable(pod: Pod, minReadySeconds: number, nowMs: number): boolean {
  return !isRunningAndAvailable(pod, minReadySeconds, nowMs) || isTerminating(pod);
}

/** Parallel pod management (allowsBurst). */
export function allowsBurst(set: StatefulSet): boolean {
  return set.spec?.podManagementPolicy === "Parallel";
}

export function setPodRevision(pod: Pod, revision: string): void {
  const meta = (pod.metadata ??= {});
  meta.labels = { ...(meta.labels ?? {}), [STATEFULSET_REVISION_LABEL]: revision };
}

export function getPodRevision(pod: Pod): string {
  return pod.metadata?.labels?.[STATEFULSET_REVISION_LABEL] ?? "";
}

/** A new pod of set with ordinal's identity and storage (newStatefulSetPod). */
export function newStatefulSetPod(set: StatefulSet, ordinal: number): Pod {
  const pod = getPodFromTemplate(set.spec?.template, set.metadata?.name ?? "", newControllerRef(set, STATEFULSET_GVK));
  pod.metadata!.name = getPodName(set, ordinal);
  initIdentity(set, pod);
  updateStorage(set, pod);
  return pod;
}

/**
 * The pod for ordinal at the revision it should have (newVersionedStatefulSetPod): the current
 * revision below the partition (or below the current replicas when a RollingUpdate has no
 * rollingUpdate block), the update revision otherwise. Go's precedence kept: (RollingUpdate and no
 * block and below current) or (a block and below the partition).
 */
export function newVersionedStatefulSetPod(currentSet: StatefulSet, updateSet: StatefulSet, currentRevision: string, updateRevision: string, ordinal: number): Pod {
  const strategy = currentSet.spec?.updateStrategy;
  const start = getStartOrdinal(currentSet);
  const rollingType = (strategy?.type ?? "RollingUpdate") === "RollingUpdate";
  const useCurrent =
    (rollingType && !strategy?.rollingUpdate && ordinal < start + (currentSet.status?.currentReplicas ?? 0)) ||
    (!!strategy?.rollingUpdate && ordinal < start + (strategy.rollingUpdate.partition ?? 0));
  const pod = newStatefulSetPod(useCurrent ? currentSet : updateSet, ordinal);
  setPodRevision(pod, useCurrent ? currentRevision : updateRevision);
  return pod;
}

/** The revision data: a strategic merge patch replacing spec.template (getPatch). */
export function getPatch(set: StatefulSet): { spec: { template: Record<string, unknown> } } {
  const template = deepCopy((set.spec?.template ?? {}) as unknown as Record<string, unknown>);
  template.$patch = "replace";
  return { spec: { template } };
}

/** A revision of set's template numbered `revision`, with the set's annotations (newRevision). */
export function newRevision(set: StatefulSet, revision: number, collisionCount: number): ControllerRevision {
  const cr = newControllerRevision(set, STATEFULSET_GVK, set.spec?.template?.metadata?.labels, getPatch(set), revision, collisionCount);
  const meta = cr.metadata!;
  meta.annotations = { ...(meta.annotations ?? {}), ...(set.metadata?.annotations ?? {}) };
  return cr;
}

/** set with the revision's template patched in (ApplyRevision). */
export function applyRevision(set: StatefulSet, revision: ControllerRevision): StatefulSet {
  const meta = patchMetaForKind("apps", "v1", "StatefulSet");
  return applyStrategicMergePatch(deepCopy(set), revision.data ?? {}, meta) as StatefulSet;
}

/** The status differs from set's in a way worth writing (inconsistentStatus). */
export function inconsistentStatus(set: StatefulSet, status: StatefulSetStatus): boolean {
  const s = set.status;
  return (
    (status.observedGeneration ?? 0) > (s?.observedGeneration ?? 0) ||
    status.replicas !== (s?.replicas ?? 0) ||
    (status.currentReplicas ?? 0) !== (s?.currentReplicas ?? 0) ||
    (status.readyReplicas ?? 0) !== (s?.readyReplicas ?? 0) ||
    (status.updatedReplicas ?? 0) !== (s?.updatedReplicas ?? 0) ||
    (status.currentRevision ?? "") !== (s?.currentRevision ?? "") ||
    (status.availableReplicas ?? 0) !== (s?.availableReplicas ?? 0) ||
    (status.updateRevision ?? "") !== (s?.updateRevision ?? "")
  );
}

/** Once every replica is updated and ready, the update revision becomes current (completeRollingUpdate); modifies `status`. */
export function completeRollingUpdate(set: StatefulSet, status: StatefulSetStatus): void {
  const replicas = replicasOf(set);
  if (
    (set.spec?.updateStrategy?.type ?? "RollingUpdate") === "RollingUpdate" &&
    (status.updatedReplicas ?? 0) === replicas &&
    (status.readyReplicas ?? 0) === replicas &&
    status.replicas === replicas
  ) {
    status.currentReplicas = status.updatedReplicas;
    status.currentRevision = status.updateRevision;
  }
}

/** Ascending by ordinal (non-members, -1, first). */
export function ascendingOrdinal(a: Pod, b: Pod): number {
  return getOrdinal(a) - getOrdinal(b);
}

/** Descending by ordinal. */
export function descendingOrdinal(a: Pod, b: Pod): number {
  return getOrdinal(b) - getOrdinal(a);
}

/**
 * maxUnavailable as a number of pods (getStatefulSetMaxUnavailable): 1 when unset, a percentage of
 * the replicas rounded down, never less than 1.
 */
export function getStatefulSetMaxUnavailable(maxUnavailable: IntOrString | undefined, replicaCount: number): number {
  const n = getScaledValueFromIntOrPercent(maxUnavailable ?? 1, replicaCount, false);
  return n < 1 ? 1 : n;
}

/** Overlapping sets: older first, then by name (overlappingStatefulSets). */
export function compareOverlapping(a: StatefulSet, b: StatefulSet): number {
  const ta = parseTime(a.metadata?.creationTimestamp) ?? 0;
  const tb = parseTime(b.metadata?.creationTimestamp) ?? 0;
  if (ta !== tb) return ta - tb;
  const na = a.metadata?.name ?? "";
  const nb = b.metadata?.name ?? "";
  return na < nb ? -1 : na > nb ? 1 : 0;
}
