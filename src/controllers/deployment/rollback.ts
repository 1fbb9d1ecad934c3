/**
 * The deprecated server-side rollback (upstream rollback.go): a Deployment annotated
 * `deprecated.deployment.rollback.to: <revision>` (what apps/v1beta1's spec.rollbackTo became)
 * gets the template of that revision's ReplicaSet — 0 meaning the previous revision — and the
 * annotation is cleared in the same update. kubectl's own `rollout undo` works client-side and
 * never goes through here.
 */
import type { Deployment, ReplicaSet } from "../../apimachinery/api/apps/v1.js";
import { setDeploymentAnnotationsTo, lastRevision, revision } from "./annotations.js";
import { DEPRECATED_ROLLBACK_TO_ANNOTATION, ROLLBACK_DONE, ROLLBACK_REVISION_NOT_FOUND, ROLLBACK_TEMPLATE_UNCHANGED } from "./constants.js";
import { adoptResourceVersion, keyOf, type SyncContext } from "./context.js";
import { equalIgnoreHash, setFromReplicaSetTemplate } from "./replicasets.js";
import { getAllReplicaSetsAndSyncRevision } from "./sync.js";

/** The requested rollback revision, or undefined when there is none or it is not an integer (getRollbackTo). */
export function getRollbackTo(d: Deployment): { revision: number } | undefined {
  const v = d.metadata?.annotations?.[DEPRECATED_ROLLBACK_TO_ANNOTATION];
  if (!v) return undefined;
  if (!/^[+-]?\d+$/.test(v)) return undefined;
  const n = BigInt(v);
  if (n < -(2n ** 63n) || n > 2n ** 63n - 1n) return undefined;
  return { revision: Number(n) };
}

/** Sets or (undefined) clears the rollback request (setRollbackTo). */
export function setRollbackTo(d: Deployment, rollbackTo: { revision: number } | undefined): void {
  if (!rollbackTo) {
    if (d.metadata?.annotations) delete d.metadata.annotations[DEPRECATED_ROLLBACK_TO_ANNOTATION];
    return;
  }
  const meta = (d.metadata ??= {});
  (meta.annotations ??= {})[DEPRECATED_ROLLBACK_TO_ANNOTATION] = String(rollbackTo.revision);
}

/** Rolls back to the requested revision; in every case clears the request (rollback). */
export async function rollback(ctx: SyncContext, d: Deployment, rsList: readonly ReplicaSet[]): Promise<void> {
  const rollbackTo = getRollbackTo(d) ?? { revision: 0 };
  const [newRS, allOldRSs] = await getAllReplicaSetsAndSyncRevision(ctx, d, rsList, true);
  const allRSs = [...allOldRSs, newRS];
  let target = rollbackTo.revision;
  if (target === 0) {
    target = lastRevision(allRSs);
    if (target === 0) {
      ctx.recorder.event(d, "Warning", ROLLBACK_REVISION_NOT_FOUND, "Unable to find last revision.");
      await updateDeploymentAndClearRollbackTo(ctx, d);
      return;
    }
  }
  for (const rs of allRSs) {
    if (!rs) continue;
    let v: number;
    try {
      v = revision(rs);
    } catch (err) {
      ctx.logger.debug({ replicaSet: keyOf(rs), err: String(err) }, "Unable to extract revision from deployment's replica set");
      continue;
    }
    if (v === target) {
      ctx.logger.debug({ replicaSet: keyOf(rs), revision: v }, "Found replica set with desired revision");
      const performed = await rollbackToTemplate(ctx, d, rs);
      if (performed) {
        ctx.recorder.event(d, "Normal", ROLLBACK_DONE, `Rolled back deployment "${d.metadata?.name ?? ""}" to revision ${target}`);
      }
      return;
    }
  }
  ctx.recorder.event(d, "Warning", ROLLBACK_REVISION_NOT_FOUND, "Unable to find the revision to rollback to.");
  await updateDeploymentAndClearRollbackTo(ctx, d);
}

/**
 * Copies the ReplicaSet's template and annotations into the Deployment when its template differs,
 * then clears the request (rollbackToTemplate). Whether a rollback was performed.
 */
export async function rollbackToTemplate(ctx: SyncContext, d: Deployment, rs: ReplicaSet): Promise<boolean> {
  let performed = false;
  if (!equalIgnoreHash(d.spec?.template, rs.spec?.template)) {
    ctx.logger.debug({ deployment: keyOf(d) }, "Rolling back deployment to old template spec");
    setFromReplicaSetTemplate(d, rs.spec?.template ?? {});
    // The old ReplicaSet's annotations (change-cause, ...) come back with its template; otherwise
    // the current ones would be copied onto it after the rollback.
    setDeploymentAnnotationsTo(d, rs);
    performed = true;
  } else {
    ctx.recorder.event(
      d,
      "Warning",
      ROLLBACK_TEMPLATE_UNCHANGED,
      `The rollback revision contains the same template as current deployment "${d.metadata?.name ?? ""}"`,
    );
  }
  await updateDeploymentAndClearRollbackTo(ctx, d);
  return performed;
}

/** Clears the rollback request and updates the Deployment (updateDeploymentAndClearRollbackTo). */
export async function updateDeploymentAndClearRollbackTo(ctx: SyncContext, d: Deployment): Promise<void> {
  ctx.logger.debug({ deployment: keyOf(d) }, "Cleans up rollbackTo of deployment");
  setRollbackTo(d, undefined);
  const written = await ctx.deployments(d.metadata?.namespace ?? "").update(d);
  adoptResourceVersion(d, written);
}
