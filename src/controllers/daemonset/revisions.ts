/**
 * The DaemonSet's ControllerRevisions, as update.go keeps them: a revision stores a strategic
 * merge patch that replaces spec.template (getPatch), so `kubectl rollout undo` can apply it; a
 * revision matches the DaemonSet when its data equals the DaemonSet's patch (Match); it is named
 * `<ds>-<hash>` with the hash of the template and status.collisionCount (controller.ComputeHash)
 * and labelled controller-revision-hash=<hash>.
 */
import type { ControllerRevision, DaemonSet } from "../../apimachinery/api/apps/v1.js";
import { deepCopy } from "../../apimachinery/deepcopy.js";
import { semanticEqual } from "../../apimachinery/equality.js";
import { newControllerRef } from "../../apimachinery/ownerrefs.js";
import { computeHash } from "../deployment/hash.js";
import { DEFAULT_DAEMONSET_UNIQUE_LABEL_KEY } from "./constants.js";
import { DAEMONSET_GVK } from "./gvk.js";

/** The patch that restores the DaemonSet's template (getPatch). */
export function daemonSetPatch(ds: DaemonSet): { spec: { template: Record<string, unknown> } } {
  const template = deepCopy((ds.spec?.template ?? {}) as unknown as Record<string, unknown>);
  return { spec: { template: { ...template, $patch: "replace" } } };
}

/** Whether the revision holds the DaemonSet's current template (Match). */
export function revisionMatches(ds: DaemonSet, history: ControllerRevision): boolean {
  return semanticEqual(history.data ?? null, daemonSetPatch(ds));
}

/** The highest revision number, 0 for none (maxRevision). */
export function maxRevision(histories: readonly ControllerRevision[]): number {
  let max = 0;
  for (const h of histories) if (h.revision > max) max = h.revision;
  return max;
}

/** Oldest revision first (historiesByRevision). */
export function sortByRevision(histories: readonly ControllerRevision[]): ControllerRevision[] {
  return [...histories].sort((a, b) => a.revision - b.revision);
}

/** The hash of the DaemonSet's current template and collision count. */
export function daemonSetHash(ds: DaemonSet): string {
  return computeHash(ds.spec?.template, ds.status?.collisionCount);
}

/** The ControllerRevision snapshot() creates for `revision`. */
export function newDaemonSetRevision(ds: DaemonSet, revision: number): ControllerRevision {
  const hash = daemonSetHash(ds);
  return {
    apiVersion: "apps/v1",
    kind: "ControllerRevision",
    metadata: {
      name: `${ds.metadata?.name ?? ""}-${hash}`,
      namespace: ds.metadata?.namespace,
      labels: { ...(ds.spec?.template?.metadata?.labels ?? {}), [DEFAULT_DAEMONSET_UNIQUE_LABEL_KEY]: hash },
      ...(ds.metadata?.annotations ? { annotations: { ...ds.metadata.annotations } } : {}),
      ownerReferences: [newControllerRef(ds, DAEMONSET_GVK)],
    },
    data: daemonSetPatch(ds),
    revision,
  };
}
