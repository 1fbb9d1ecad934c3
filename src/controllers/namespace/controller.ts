/**
 * The namespace controller (upstream pkg/controller/namespace): deletes the contents of
 * namespaces being deleted, then removes their `kubernetes` finalizer so the API server removes
 * them (see deleter.ts for one pass).
 *
 * Composed with the builder — requests: one per namespace (name, no namespace):
 *   watches(namespaces) → on add and update (and every 5 min resync) of a namespace with a
 *   deletionTimestamp, the namespace's name after the 5 s namespaceDeletionGracePeriod (time for
 *   every API server to refuse new content, and for last-minute creations to be visible). A pass
 *   leaving content behind is requeued after estimate/2 + 1 seconds; a failed one with the
 *   controller's own backoff (5 ms doubling to 60 s, with a 10 qps / burst 100 bucket overall).
 */
import type { Namespace } from "../../apimachinery/api/core/v1.js";
import { isNotFound } from "../../apimachinery/errors.js";
import { ObjectName } from "../../apimachinery/objectname.js";
import { builtin } from "../../client/typed.js";
import type { Controller } from "../../runtime/controller.js";
import type { RequestQueue } from "../../runtime/handler.js";
import type { Manager } from "../../runtime/manager.js";
import type { ReconcileContext, ReconcileResult } from "../../runtime/reconcile.js";
import { BucketRateLimiter, ItemExponentialFailureRateLimiter, MaxOfRateLimiter } from "../../workqueue/ratelimiters.js";
import { NamespacedResourcesDeleter, ResourcesRemainingError } from "./deleter.js";
import type { NamespaceDiscovery } from "./discovery.js";

export const NAMESPACE_CONTROLLER_NAME = "namespace-controller";
/** kube-controller-manager's --concurrent-namespace-syncs default. */
export const DEFAULT_NAMESPACE_WORKERS = 10;
/** --namespace-sync-period default. */
export const NAMESPACE_SYNC_PERIOD_MS = 5 * 60_000;
/** namespaceDeletionGracePeriod. */
export const NAMESPACE_DELETION_GRACE_PERIOD_MS = 5_000;

export interface NamespaceControllerOptions {
  /** Where the deletable namespaced resources are found (ServerPreferredNamespacedResources). */
  discovery: NamespaceDiscovery;
  /** Workers (default 10). */
  workers?: number;
  /** Resync period (default 5 min). */
  resyncPeriodMs?: number;
}

export class NamespaceController {
  readonly controller: Controller;
  readonly deleter: NamespacedResourcesDeleter;

  constructor(mgr: Manager, opts: NamespaceControllerOptions) {
    this.deleter = new NamespacedResourcesDeleter({ discovery: opts.discovery, clock: mgr.clock });
    const namespaces = mgr.informers.forResource(builtin.namespaces).lister();
    this.controller = mgr
      .controller(NAMESPACE_CONTROLLER_NAME)
      .watches(
        builtin.namespaces,
        {
          create: (e, q) => enqueueNamespace(e.object, q),
          update: (e, q) => enqueueNamespace(e.objectNew, q),
        },
        { resyncPeriodMs: opts.resyncPeriodMs ?? NAMESPACE_SYNC_PERIOD_MS },
      )
      .withOptions({
        maxConcurrentReconciles: opts.workers ?? DEFAULT_NAMESPACE_WORKERS,
        // nsControllerRateLimiter: retried at least every minute.
        rateLimiter: new MaxOfRateLimiter<ObjectName>(new ItemExponentialFailureRateLimiter(5, 60_000), new BucketRateLimiter(10, 100, mgr.clock)),
      })
      .reconcile(async (req, ctx) => {
        // syncNamespaceFromKey: the cache says whether it is still there; the deleter reads it live.
        try {
          namespaces.get(req.name);
        } catch (err) {
          if (!isNotFound(err)) throw err;
          ctx.log.info({ namespace: req.name }, "Namespace has been deleted");
          return;
        }
        return this.sync(req.name, ctx);
      });
  }

  private async sync(name: string, ctx: ReconcileContext): Promise<ReconcileResult | void> {
    try {
      await this.deleter.delete(ctx.client, name, ctx.signal);
    } catch (err) {
      if (err instanceof ResourcesRemainingError) {
        const waitSeconds = Math.floor(err.estimate / 2) + 1;
        ctx.log.debug({ namespace: name, waitSeconds }, "Content remaining in namespace");
        return { requeueAfterMs: waitSeconds * 1000 };
      }
      throw err;
    }
  }
}

/** Only namespaces being deleted are queued, after the grace period. */
function enqueueNamespace(ns: Namespace, q: RequestQueue): void {
  if (!ns.metadata?.deletionTimestamp) return;
  q.addAfter(new ObjectName("", ns.metadata.name ?? ""), NAMESPACE_DELETION_GRACE_PERIOD_MS);
}
