/**
 * ReplicaSet bookkeeping for a Deployment: which of its ReplicaSets is the new one, which are old,
 * how many replicas they hold, and the orders upstream sorts them in (pkg/controller/controller_utils
 * and deployment/util). Every function here is pure: inputs — often frozen objects from an
 * informer cache — are never modified, and sorting works on copies of the arrays.
 */
import type { Deployment, DeploymentSpec, ReplicaSet } from "../../apimachinery/api/apps/v1.js";
import type { PodTemplateSpec } from "../../apimachinery/api/core/v1.js";
import { deepCopy } from "../../apimachinery/deepcopy.js";
import { semanticEqual } from "../../apimachinery/equality.js";
import { selectingOwners } from "../../runtime/controllerrefmanager.js";
import { DEFAULT_DEPLOYMENT_UNIQUE_LABEL_KEY, REVISION_ANNOTATION } from "./constants.js";

/** spec.replicas of a ReplicaSet or Deployment; the API server defaults an absent value to 1. */
export function replicasOf(obj: { spec?: { replicas?: number } } | undefined): number {
  return obj?.spec?.replicas ?? 1;
}

function timeOf(ts: string | undefined): number {
  if (!ts) return Number.NEGATIVE_INFINITY; // Go's zero time sorts first
  const t = Date.parse(ts);
  return Number.isNaN(t) ? Number.NEGATIVE_INFINITY : t;
}

function nameOf(rs: ReplicaSet): string {
  return rs.metadata?.name ?? "";
}

/** Oldest first; equal timestamps by name (controller.ReplicaSetsByCreationTimestamp). */
export function compareByCreationTimestamp(a: ReplicaSet, b: ReplicaSet): number {
  const ta = timeOf(a.metadata?.creationTimestamp);
  const tb = timeOf(b.metadata?.creationTimestamp);
  if (ta === tb) return nameOf(a) < nameOf(b) ? -1 : nameOf(a) > nameOf(b) ? 1 : 0;
  return ta < tb ? -1 : 1;
}

/** Larger first; equal sizes older first (controller.ReplicaSetsBySizeOlder: scale-down order). */
export function compareBySizeOlder(a: ReplicaSet, b: ReplicaSet): number {
  const ra = replicasOf(a);
  const rb = replicasOf(b);
  if (ra === rb) return compareByCreationTimestamp(a, b);
  return ra > rb ? -1 : 1;
}

/** Larger first; equal sizes newer first (controller.ReplicaSetsBySizeNewer: scale-up order). */
export function compareBySizeNewer(a: ReplicaSet, b: ReplicaSet): number {
  const ra = replicasOf(a);
  const rb = replicasOf(b);
  if (ra === rb) return compareByCreationTimestamp(b, a);
  return ra > rb ? -1 : 1;
}

/** Lowest revision first; unparsable or equal revisions by creation timestamp (ReplicaSetsByRevision). */
export function compareByRevision(a: ReplicaSet, b: ReplicaSet): number {
  const va = tryRevision(a);
  const vb = tryRevision(b);
  if (va === undefined || vb === undefined || va === vb) return compareByCreationTimestamp(a, b);
  return va < vb ? -1 : 1;
}

function tryRevision(rs: ReplicaSet): bigint | undefined {
  const v = rs.metadata?.annotations?.[REVISION_ANNOTATION];
  if (v === undefined) return 0n;
  return /^[+-]?\d+$/.test(v) ? BigInt(v) : undefined;
}

/** The sorted copy of `list` (controller's sort.Sort, without touching the caller's array). */
export function sortedReplicaSets(list: readonly ReplicaSet[], cmp: (a: ReplicaSet, b: ReplicaSet) => number): ReplicaSet[] {
  return [...list].sort(cmp);
}

/** The ReplicaSets that satisfy `keep` (controller.FilterReplicaSets). */
export function filterReplicaSets(list: readonly (ReplicaSet | undefined)[], keep: (rs: ReplicaSet) => boolean): ReplicaSet[] {
  return list.filter((rs): rs is ReplicaSet => rs !== undefined && rs !== null && keep(rs));
}

/** The ReplicaSets with spec.replicas > 0 (controller.FilterActiveReplicaSets). */
export function filterActiveReplicaSets(list: readonly (ReplicaSet | undefined)[]): ReplicaSet[] {
  return filterReplicaSets(list, (rs) => replicasOf(rs) > 0);
}

/** Sum of spec.replicas. */
export function getReplicaCountForReplicaSets(list: readonly (ReplicaSet | undefined)[]): number {
  let n = 0;
  for (const rs of list) if (rs) n += replicasOf(rs);
  return n;
}

/** Sum of status.replicas (pods that exist). */
export function getActualReplicaCountForReplicaSets(list: readonly (ReplicaSet | undefined)[]): number {
  let n = 0;
  for (const rs of list) if (rs) n += rs.status?.replicas ?? 0;
  return n;
}

/** Sum of status.readyReplicas. */
export function getReadyReplicaCountForReplicaSets(list: readonly (ReplicaSet | undefined)[]): number {
  let n = 0;
  for (const rs of list) if (rs) n += rs.status?.readyReplicas ?? 0;
  return n;
}

/**
 * Sum of status.terminatingReplicas (GetTerminatingReplicaCountForReplicaSets); undefined when no
 * ReplicaSet reports one.
 */
export function getTerminatingReplicaCountForReplicaSets(list: readonly (ReplicaSet | undefined)[]): number | undefined {
  let n: number | undefined;
  for (const rs of list) {
    const t = (rs?.status as { terminatingReplicas?: number } | undefined)?.terminatingReplicas;
    if (t !== undefined && t !== null) n = (n ?? 0) + t;
  }
  return n;
}

/** Sum of status.availableReplicas. */
export function getAvailableReplicaCountForReplicaSets(list: readonly (ReplicaSet | undefined)[]): number {
  let n = 0;
  for (const rs of list) if (rs) n += rs.status?.availableReplicas ?? 0;
  return n;
}

/**
 * Whether two pod templates are equal apart from the pod-template-hash label (EqualIgnoreHash,
 * by equality.Semantic):
 * the hash would differ across versions, and a Deployment's own template never carries it.
 */
export function equalIgnoreHash(t1: PodTemplateSpec | undefined, t2: PodTemplateSpec | undefined): boolean {
  return semanticEqual(withoutHashLabel(t1), withoutHashLabel(t2));
}

function withoutHashLabel(t: PodTemplateSpec | undefined): PodTemplateSpec {
  const c = deepCopy(t ?? {});
  if (c.metadata?.labels) delete c.metadata.labels[DEFAULT_DEPLOYMENT_UNIQUE_LABEL_KEY];
  return c;
}

/**
 * The ReplicaSet whose template matches the Deployment's (FindNewReplicaSet). Should several
 * match (issue 40415), the oldest wins, deterministically.
 */
export function findNewReplicaSet(deployment: Deployment, rsList: readonly ReplicaSet[]): ReplicaSet | undefined {
  for (const rs of sortedReplicaSets(rsList, compareByCreationTimestamp)) {
    if (equalIgnoreHash(rs.spec?.template, deployment.spec?.template)) return rs;
  }
  return undefined;
}

/**
 * The old ReplicaSets (FindOldReplicaSets): `[withReplicas, all]` — the first leaves out the ones
 * scaled to zero. Both keep the order of `rsList`.
 */
export function findOldReplicaSets(deployment: Deployment, rsList: readonly ReplicaSet[]): [ReplicaSet[], ReplicaSet[]] {
  const newRS = findNewReplicaSet(deployment, rsList);
  const required: ReplicaSet[] = [];
  const all: ReplicaSet[] = [];
  for (const rs of rsList) {
    if (newRS && rs.metadata?.uid === newRS.metadata?.uid) continue;
    all.push(rs);
    if (replicasOf(rs) !== 0) required.push(rs);
  }
  return [required, all];
}

/**
 * The only active ReplicaSet, or the newest one when none is active; undefined when several are
 * active (they must be scaled proportionally) or there is none (FindActiveOrLatest).
 */
export function findActiveOrLatest(newRS: ReplicaSet | undefined, oldRSs: readonly ReplicaSet[]): ReplicaSet | undefined {
  if (!newRS && oldRSs.length === 0) return undefined;
  const newestFirst = sortedReplicaSets(oldRSs, (a, b) => compareByCreationTimestamp(b, a));
  const active = filterActiveReplicaSets([...newestFirst, newRS]);
  if (active.length === 0) return newRS ?? newestFirst[0];
  if (active.length === 1) return active[0];
  return undefined;
}

/**
 * Replaces the Deployment's template with a ReplicaSet's, without the pod-template-hash label
 * (SetFromReplicaSetTemplate). Modifies and returns `deployment`, which must be a private copy.
 */
export function setFromReplicaSetTemplate(deployment: Deployment, template: PodTemplateSpec): Deployment {
  const t = deepCopy(template);
  if (t.metadata?.labels) {
    delete t.metadata.labels[DEFAULT_DEPLOYMENT_UNIQUE_LABEL_KEY];
  }
  deployment.spec = { ...(deployment.spec as DeploymentSpec), template: t };
  return deployment;
}

/**
 * The Deployments (of the ReplicaSet's namespace, from `deployments`) whose non-empty selector
 * matches the ReplicaSet's labels (GetDeploymentsForReplicaSet). Empty when the ReplicaSet has no
 * labels.
 */
export function getDeploymentsForReplicaSet(deployments: readonly Deployment[], rs: ReplicaSet): Deployment[] {
  const ns = rs.metadata?.namespace ?? "";
  return selectingOwners(
    deployments.filter((d) => (d.metadata?.namespace ?? "") === ns),
    rs.metadata?.labels,
  );
}
