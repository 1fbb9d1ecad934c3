/**
 * What every step of a Deployment sync works with: clients to write through, the ReplicaSet cache
 * to read, the event recorder, the clock, a logger, and the answer the sync gives the work queue.
 * One SyncContext is made per sync (`result` belongs to that sync only).
 */
import type { Deployment, ReplicaSet } from "../../apimachinery/api/apps/v1.js";
import type { Clock } from "../../apimachinery/clock.js";
import type { WritableObjectMeta } from "../../apimachinery/types.js";
import type { ResourceClient } from "../../client/interfaces.js";
import type { EventRecorder } from "../../events/broadcaster.js";
import type { NamespaceLister } from "../../informers/lister.js";
import type { Logger } from "../../runtime/logging.js";

/** What a sync asks of the work queue (the runtime's ReconcileResult). */
export interface SyncResult {
  /** Sync again after this many milliseconds (the progress deadline check). */
  requeueAfterMs?: number;
  /** Sync again soon, rate limited. */
  requeue?: boolean;
}

export interface SyncContext {
  deployments(namespace: string): ResourceClient<Deployment>;
  replicaSets(namespace: string): ResourceClient<ReplicaSet>;
  /** The ReplicaSet cache of a namespace (read after an AlreadyExists on create). */
  rsLister(namespace: string): NamespaceLister<ReplicaSet>;
  recorder: EventRecorder;
  clock: Clock;
  logger: Logger;
  result: SyncResult;
  /**
   * ReplicaSets written during this sync, by UID, as the API returned them. Later steps of the
   * same sync see these instead of the (older) cached copies, so the controller does not conflict
   * with its own writes.
   */
  written: Map<string, ReplicaSet>;
}

/** Records a ReplicaSet the API returned from a write of this sync. */
export function recordWrite(ctx: SyncContext, rs: ReplicaSet): ReplicaSet {
  const uid = rs.metadata?.uid;
  if (uid) ctx.written.set(uid, rs);
  return rs;
}

/** `rsList` with this sync's writes substituted (and ReplicaSets it created appended). */
export function withWrites(ctx: SyncContext, rsList: readonly ReplicaSet[]): ReplicaSet[] {
  if (ctx.written.size === 0) return [...rsList];
  const seen = new Set<string>();
  const out = rsList.map((rs) => {
    const uid = rs.metadata?.uid ?? "";
    seen.add(uid);
    return ctx.written.get(uid) ?? rs;
  });
  for (const [uid, rs] of ctx.written) if (!seen.has(uid)) out.push(rs);
  return out;
}

/** "ns/name" of an object, for logs and messages. */
export function keyOf(obj: { metadata?: { namespace?: string; name?: string } }): string {
  const ns = obj.metadata?.namespace ?? "";
  return ns ? `${ns}/${obj.metadata?.name ?? ""}` : (obj.metadata?.name ?? "");
}

/**
 * After a successful write of `d`, carries the stored resourceVersion over to the working copy,
 * so that the next write of the same sync does not conflict with the controller's own previous
 * write (upstream keeps the stale copy and relies on a retry).
 */
export function adoptResourceVersion(d: Deployment, written: Deployment): void {
  const rv = written.metadata?.resourceVersion;
  if (rv === undefined) return;
  ((d.metadata ??= {}) as WritableObjectMeta).resourceVersion = rv;
}

/** Writes the working copy's status (and, as the real status subresource allows, its annotations). */
export async function updateDeploymentStatus(ctx: SyncContext, d: Deployment): Promise<void> {
  const written = await ctx.deployments(d.metadata?.namespace ?? "").updateStatus(d);
  adoptResourceVersion(d, written);
}
