/**
 * The TTL-after-finished controller (kube-controller-manager pkg/controller/ttlafterfinished):
 * deletes a finished Job once spec.ttlSecondsAfterFinished has passed since it finished (the
 * lastTransitionTime of its Complete or Failed condition), with Foreground propagation and a UID
 * precondition, after re-reading the Job from the API (its TTL may have been changed meanwhile).
 * Until then the Job is requeued for the moment it expires, on the manager's Clock.
 */
import type { Job } from "../../apimachinery/api/batch/v1.js";
import type { Clock } from "../../apimachinery/clock.js";
import { isConflict, isNotFound } from "../../apimachinery/errors.js";
import type { ObjectName } from "../../apimachinery/objectname.js";
import { parseTime } from "../../apimachinery/time.js";
import type { ResourceClientFactory } from "../../client/interfaces.js";
import { builtin } from "../../client/typed.js";
import type { Lister } from "../../informers/lister.js";
import type { Controller } from "../../runtime/controller.js";
import type { Logger } from "../../runtime/logging.js";
import type { Manager } from "../../runtime/manager.js";
import type { ReconcileResult } from "../../runtime/reconcile.js";

/** kube-controller-manager's --concurrent-ttl-after-finished-syncs default. */
export const DEFAULT_TTL_AFTER_FINISHED_WORKERS = 5;

/** A finished Job with a TTL (needsCleanup). */
export function needsCleanup(job: Job): boolean {
  return job.spec?.ttlSecondsAfterFinished != null && jobFinishTime(job) !== null;
}

/** When the Job finished: its True Complete/Failed condition's lastTransitionTime; null when not finished; undefined when unknown. */
export function jobFinishTime(job: Job): number | undefined | null {
  const c = (job.status?.conditions ?? []).find((x) => (x.type === "Complete" || x.type === "Failed") && x.status === "True");
  if (!c) return null;
  return parseTime(c.lastTransitionTime);
}

export class TTLAfterFinishedController {
  readonly controller: Controller;
  private readonly clock: Clock;
  private readonly logger: Logger;
  private readonly jobLister: Lister<Job>;

  constructor(mgr: Manager, opts: { workers?: number } = {}) {
    this.clock = mgr.clock;
    this.logger = mgr.logger.child({ controller: "ttl-after-finished" });
    this.jobLister = mgr.informers.forResource(builtin.jobs).lister();
    const wanted = (j: Job) => j.metadata?.deletionTimestamp == null && needsCleanup(j);
    this.controller = mgr
      .controller("ttl-after-finished")
      .for(builtin.jobs, { predicates: [{ create: (e) => wanted(e.object), update: (e) => wanted(e.objectNew), delete: () => false }] })
      .withOptions({ maxConcurrentReconciles: opts.workers ?? DEFAULT_TTL_AFTER_FINISHED_WORKERS, eventSource: "ttl-after-finished-controller" })
      .reconcile((req, ctx) => this.processJob(req, ctx.client));
  }

  /** Milliseconds until the Job expires (≤ 0: expired), or undefined when it needs no cleanup. */
  private timeLeft(job: Job): number | undefined {
    if (job.metadata?.deletionTimestamp != null || !needsCleanup(job)) return undefined;
    const finishAt = jobFinishTime(job);
    if (finishAt === undefined || finishAt === null) {
      this.logger.error({ job: `${job.metadata?.namespace}/${job.metadata?.name}` }, "unable to find the time when the Job finished");
      return undefined;
    }
    const now = this.clock.now();
    if (finishAt > now) this.logger.info({ job: job.metadata?.name }, "Found Job finished in the future. This is likely due to time skew in the cluster. Job cleanup will be deferred.");
    return finishAt + (job.spec?.ttlSecondsAfterFinished ?? 0) * 1000 - now;
  }

  async processJob(req: ObjectName, client: ResourceClientFactory): Promise<ReconcileResult> {
    let job: Job;
    try {
      job = this.jobLister.namespace(req.namespace).get(req.name);
    } catch (err) {
      if (isNotFound(err)) return {};
      throw err;
    }
    const left = this.timeLeft(job);
    if (left === undefined) return {};
    if (left > 0) return { requeueAfterMs: left };
    // The cache may be stale (the TTL changed): decide again on a fresh copy.
    const jobs = client.resource(builtin.jobs, req.namespace);
    let fresh: Job;
    try {
      fresh = await jobs.get(req.name);
    } catch (err) {
      if (isNotFound(err)) return {};
      throw err;
    }
    const freshLeft = this.timeLeft(fresh);
    if (freshLeft === undefined) return {};
    if (freshLeft > 0) return { requeueAfterMs: freshLeft };
    this.logger.info({ job: `${req.namespace}/${req.name}` }, "Cleaning up Job");
    try {
      await jobs.delete(req.name, { propagationPolicy: "Foreground", preconditions: { uid: fresh.metadata?.uid } });
    } catch (err) {
      if (!isNotFound(err) && !isConflict(err)) throw err;
    }
    return {};
  }
}
