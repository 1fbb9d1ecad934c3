/**
 * The CronJob controller (kube-controller-manager pkg/controller/cronjob, cronjob_controllerv2.go):
 * creates a Job for each scheduled time of a CronJob and keeps its status.
 *
 * syncCronJob, per CronJob (from the cache, copied):
 *   1. reconcile status.active with the Jobs it controls: finished ones leave it (SawCompletedJob,
 *      lastSuccessfulTime), vanished ones too (MissingJob), unknown unfinished ones are reported
 *      (UnexpectedJob);
 *   2. delete finished Jobs beyond successfulJobsHistoryLimit / failedJobsHistoryLimit, oldest first;
 *   3. unless deleting or suspended: parse the schedule in spec.timeZone, find the most recent
 *      unmet scheduled time (from lastScheduleTime, else creation, bounded by
 *      startingDeadlineSeconds; more than 100 missed → TooManyMissedTimes), skip it when too late
 *      (MissSchedule), already started, or forbidden by concurrencyPolicy Forbid; with Replace
 *      delete the active Jobs first; create the Job "<name>-<unix minutes>" with the
 *      scheduled-timestamp annotation, record it in active and lastScheduleTime;
 *   4. write status if it changed; requeue at the next scheduled time (+100 ms).
 *
 * Composed with the builder: for(cronJobs), owns(jobs). Time comes from the manager's Clock.
 */
import type { CronJob, Job } from "../../apimachinery/api/batch/v1.js";
import type { ObjectReference } from "../../apimachinery/api/core/v1.js";
import type { Clock } from "../../apimachinery/clock.js";
import { deepCopy } from "../../apimachinery/deepcopy.js";
import { semanticEqual } from "../../apimachinery/equality.js";
import { isAlreadyExists, isNotFound } from "../../apimachinery/errors.js";
import type { GroupVersionKind } from "../../apimachinery/gvk.js";
import { ObjectName } from "../../apimachinery/objectname.js";
import { getControllerOf, newControllerRef } from "../../apimachinery/ownerrefs.js";
import { formatTime, parseTime } from "../../apimachinery/time.js";
import type { ResourceClientFactory } from "../../client/interfaces.js";
import { builtin } from "../../client/typed.js";
import type { EventRecorder } from "../../events/broadcaster.js";
import type { Lister } from "../../informers/lister.js";
import type { Controller } from "../../runtime/controller.js";
import type { Manager } from "../../runtime/manager.js";
import type { ReconcileResult } from "../../runtime/reconcile.js";
import { errorMessage } from "../replicaset/podcontrol.js";
import { cronJobMetrics, type CronJobMetrics } from "./metrics.js";
import { parseSchedule, validateTimeZone, wallTime, type Schedule } from "./schedule.js";

export const CRONJOB_GVK: GroupVersionKind = Object.freeze({ group: "batch", version: "v1", kind: "CronJob" });
export const CRONJOB_SCHEDULED_TIMESTAMP_ANNOTATION = "batch.kubernetes.io/cronjob-scheduled-timestamp";
/** kube-controller-manager's --concurrent-cron-job-syncs default. */
export const DEFAULT_CRONJOB_WORKERS = 5;
/** Requeues land this long after the scheduled time (nextScheduleDelta). */
export const NEXT_SCHEDULE_DELTA_MS = 100;
/** More missed start times than this is reported (TooManyMissedTimes). */
export const MANY_MISSED = 100;

export interface CronJobControllerOptions {
  workers?: number;
}

function finishedCondition(job: Job): string | undefined {
  return (job.status?.conditions ?? []).find((c) => (c.type === "Complete" || c.type === "Failed") && c.status === "True")?.type;
}

/** The Job name for a scheduled time: "<cronjob>-<minutes since the epoch>" (getJobName). */
export function getJobName(cj: CronJob, scheduledMs: number): string {
  return `${cj.metadata?.name ?? ""}-${Math.floor(scheduledMs / 60_000)}`;
}

/** RFC 3339 of `ms` in `tz` with its offset ("2026-01-01T09:00:00+09:00"), as Go formats time.RFC3339. */
export function formatRFC3339In(ms: number, tz: string): string {
  const wall = wallTime(ms, tz);
  const offMin = Math.round((wall - ms) / 60_000);
  const base = new Date(Math.floor(wall / 1000) * 1000).toISOString().slice(0, 19);
  if (offMin === 0) return `${base}Z`;
  const sign = offMin < 0 ? "-" : "+";
  const a = Math.abs(offMin);
  return `${base}${sign}${String(Math.floor(a / 60)).padStart(2, "0")}:${String(a % 60).padStart(2, "0")}`;
}

/** The Job to create for `scheduledMs` (getJobFromTemplate2). */
export function getJobFromTemplate(cj: CronJob, scheduledMs: number): Job {
  const t = cj.spec?.jobTemplate ?? {};
  return {
    apiVersion: "batch/v1",
    kind: "Job",
    metadata: {
      name: getJobName(cj, scheduledMs),
      namespace: cj.metadata?.namespace,
      labels: { ...t.metadata?.labels },
      annotations: { ...t.metadata?.annotations, [CRONJOB_SCHEDULED_TIMESTAMP_ANNOTATION]: formatRFC3339In(scheduledMs, cj.spec?.timeZone ?? "UTC") },
      ownerReferences: [newControllerRef(cj, CRONJOB_GVK)],
    },
    spec: deepCopy(t.spec ?? { template: { spec: { containers: [] } } }),
  };
}

type Missed = "none" | "few" | "many";

/**
 * The latest scheduled time at or before `now` not yet acted on (mostRecentScheduleTime):
 * undefined when the next one is still to come.
 */
export function mostRecentScheduleTime(cj: CronJob, nowMs: number, schedule: Schedule, includeStartingDeadline: boolean): { earliest: number; mostRecent?: number; missed: Missed } {
  let earliest = parseTime(cj.status?.lastScheduleTime) ?? parseTime(cj.metadata?.creationTimestamp) ?? nowMs;
  const sds = cj.spec?.startingDeadlineSeconds;
  if (includeStartingDeadline && sds != null) {
    const deadline = nowMs - sds * 1000;
    if (deadline > earliest) earliest = deadline;
  }
  const t1 = schedule.next(earliest);
  const t2 = schedule.next(t1);
  if (nowMs < t1) return { earliest, missed: "none" };
  if (nowMs < t2) return { earliest, mostRecent: t1, missed: "none" };
  const between = Math.round((t2 - t1) / 1000);
  if (between < 1) throw new Error("time difference between two schedules is less than 1 second");
  const elapsed = Math.floor((nowMs - t1) / 1000);
  const count = Math.floor(elapsed / between) + 1;
  let mostRecent = t1 + (count - 1) * between * 1000;
  // The approximation assumes even intervals; walk forward to the true latest activation.
  if (mostRecent > nowMs) mostRecent = t1;
  for (let t = schedule.next(mostRecent); t <= nowMs && t > 0; t = schedule.next(t)) mostRecent = t;
  return { earliest, mostRecent, missed: count > MANY_MISSED ? "many" : "few" };
}

export class CronJobController {
  readonly controller: Controller;
  private readonly clock: Clock;
  private readonly metrics: CronJobMetrics;
  private readonly recorder: EventRecorder;
  private readonly jobLister: Lister<Job>;
  private readonly cjLister: Lister<CronJob>;

  constructor(mgr: Manager, opts: CronJobControllerOptions = {}) {
    this.clock = mgr.clock;
    this.metrics = cronJobMetrics(mgr.registry);
    this.recorder = mgr.eventRecorder("cronjob-controller");
    this.jobLister = mgr.informers.forResource(builtin.jobs).lister();
    this.cjLister = mgr.informers.forResource(builtin.cronJobs).lister();
    this.controller = mgr
      .controller("cronjob")
      .for(builtin.cronJobs)
      .owns(builtin.jobs)
      .withOptions({ maxConcurrentReconciles: opts.workers ?? DEFAULT_CRONJOB_WORKERS, eventSource: "cronjob-controller" })
      .reconcile((req, ctx) => this.sync(req, ctx.client));
  }

  async sync(req: ObjectName, client: ResourceClientFactory): Promise<ReconcileResult> {
    let cached: CronJob;
    try {
      cached = this.cjLister.namespace(req.namespace).get(req.name);
    } catch (err) {
      if (isNotFound(err)) return {};
      throw err;
    }
    const cj = deepCopy(cached);
    cj.apiVersion ??= "batch/v1";
    cj.kind ??= "CronJob";
    const jobs = this.jobLister.namespace(req.namespace).list().filter((j) => getControllerOf(j)?.uid === cj.metadata?.uid);
    const { requeueAfterMs, updateStatus, error } = await this.syncCronJob(cj, jobs, client);
    if (updateStatus) await client.resource(builtin.cronJobs, req.namespace).updateStatus(cj);
    if (error) throw error;
    return requeueAfterMs !== undefined ? { requeueAfterMs } : {};
  }

  /** Mutates `cj` (a copy) and reports whether its status must be written. */
  async syncCronJob(cj: CronJob, jobs: readonly Job[], client: ResourceClientFactory): Promise<{ requeueAfterMs?: number; updateStatus: boolean; error?: unknown }> {
    const ns = cj.metadata?.namespace ?? "";
    const jobsClient = client.resource(builtin.jobs, ns);
    const status = (cj.status ??= {});
    const before = deepCopy(status);
    const now = this.clock.now();
    const byUID = new Map(jobs.map((j) => [j.metadata?.uid ?? "", j]));
    const inActive = (uid: string | undefined) => (status.active ?? []).some((r) => r.uid === uid);

    for (const j of jobs) {
      const finished = finishedCondition(j);
      const found = inActive(j.metadata?.uid);
      if (!found && !finished) {
        this.recorder.eventf(cj, "Warning", "UnexpectedJob", "Saw a job that the controller did not create or forgot: %s", j.metadata?.name ?? "");
      } else if (found && finished) {
        status.active = (status.active ?? []).filter((r) => r.uid !== j.metadata?.uid);
        this.recorder.eventf(cj, "Normal", "SawCompletedJob", "Saw completed job: %s, condition: %v", j.metadata?.name ?? "", finished);
      }
      if (finished === "Complete") {
        const done = parseTime(j.status?.completionTime);
        const last = parseTime(status.lastSuccessfulTime);
        if (done !== undefined && (last === undefined || last < done)) status.lastSuccessfulTime = j.status?.completionTime;
      }
    }
    // Active references whose Job is gone from the cache: gone from the API too?
    for (const ref of [...(status.active ?? [])]) {
      if (byUID.has(ref.uid ?? "")) continue;
      try {
        const j = await jobsClient.get(ref.name ?? "");
        if (j.metadata?.uid === ref.uid) continue;
      } catch (err) {
        if (!isNotFound(err)) return { updateStatus: !semanticEqual(before, status), error: err };
      }
      this.recorder.eventf(cj, "Normal", "MissingJob", "Active job went missing: %v", ref.name ?? "");
      status.active = (status.active ?? []).filter((r) => r.uid !== ref.uid);
    }
    await this.cleanupFinishedJobs(cj, jobs, client);
    if (status.active?.length === 0) delete status.active;
    const changed = () => !semanticEqual(before, status);

    if (cj.metadata?.deletionTimestamp) return { updateStatus: changed() };
    const tz = cj.spec?.timeZone;
    if (tz != null) {
      try {
        validateTimeZone(tz);
      } catch (err) {
        this.recorder.eventf(cj, "Warning", "UnknownTimeZone", "invalid timeZone: %q: %s", tz, errorMessage(err));
        return { updateStatus: changed() };
      }
    }
    if (cj.spec?.suspend === true) return { updateStatus: changed() };

    let schedule: Schedule;
    const spec = cj.spec?.schedule ?? "";
    try {
      if (tz != null && /^(CRON_TZ|TZ)=/.test(spec.trim())) {
        this.recorder.eventf(
          cj,
          "Warning",
          "UnsupportedSchedule",
          "CRON_TZ or TZ used in schedule %q is not officially supported, see https://kubernetes.io/docs/concepts/workloads/controllers/cron-jobs/ for more details",
          spec,
        );
      }
      schedule = parseSchedule(tz != null && !/^(CRON_TZ|TZ)=/.test(spec.trim()) ? `TZ=${tz} ${spec}` : spec);
    } catch (err) {
      this.recorder.eventf(cj, "Warning", "UnparseableSchedule", "unparseable schedule: %q : %s", spec, errorMessage(err));
      return { updateStatus: changed() };
    }

    const nextDuration = (): number | undefined => {
      const r = mostRecentScheduleTime(cj, now, schedule, false);
      const next = schedule.next(r.mostRecent ?? r.earliest);
      return next > 0 ? Math.max(0, next + NEXT_SCHEDULE_DELTA_MS - now) : undefined;
    };
    const requeue = (error?: unknown) => {
      const r = nextDuration();
      return { ...(r !== undefined ? { requeueAfterMs: r } : {}), updateStatus: changed(), ...(error ? { error } : {}) };
    };

    let recent: ReturnType<typeof mostRecentScheduleTime>;
    try {
      recent = mostRecentScheduleTime(cj, now, schedule, true);
    } catch (err) {
      this.recorder.eventf(cj, "Warning", "InvalidSchedule", "invalid schedule: %s : %s", spec, errorMessage(err));
      return { updateStatus: changed() };
    }
    const scheduled = recent.mostRecent;
    if (scheduled === undefined || scheduled > now) return requeue();
    if (recent.missed === "many") {
      this.recorder.event(cj, "Warning", "TooManyMissedTimes", "too many missed start times. Set or decrease .spec.startingDeadlineSeconds or check clock skew");
    }
    const sds = cj.spec?.startingDeadlineSeconds;
    if (sds != null && scheduled + sds * 1000 < now) {
      this.recorder.eventf(cj, "Warning", "MissSchedule", "Missed scheduled time to start a job: %s", new Date(scheduled).toUTCString().replace("GMT", "+0000"));
      return requeue();
    }
    const jobName = getJobName(cj, scheduled);
    if ((status.active ?? []).some((r) => r.name === jobName) || parseTime(status.lastScheduleTime) === scheduled) return requeue();
    const policy = cj.spec?.concurrencyPolicy ?? "Allow";
    if (policy === "Forbid" && (status.active ?? []).length > 0) {
      this.recorder.event(cj, "Normal", "JobAlreadyActive", "Not starting job because prior execution is running and concurrency policy is Forbid");
      return requeue();
    }
    if (policy === "Replace") {
      for (const ref of [...(status.active ?? [])]) {
        try {
          await jobsClient.delete(ref.name ?? "", { propagationPolicy: "Background" });
        } catch (err) {
          if (!isNotFound(err)) {
            this.recorder.eventf(cj, "Warning", "FailedDelete", "Deleted job: %v", errorMessage(err));
            return requeue(err);
          }
        }
        this.recorder.eventf(cj, "Normal", "SuccessfulDelete", "Deleted job %v", ref.name ?? "");
        status.active = (status.active ?? []).filter((r) => r.uid !== ref.uid);
      }
    }
    let created: Job;
    let alreadyExisted = false;
    try {
      created = await jobsClient.create(getJobFromTemplate(cj, scheduled));
    } catch (err) {
      if (isAlreadyExists(err)) {
        // Created earlier (a status write was lost): adopt it into the status if it is ours.
        const existing = await jobsClient.get(jobName);
        if (getControllerOf(existing)?.uid !== cj.metadata?.uid) return requeue(err);
        created = existing;
        alreadyExisted = true;
      } else {
        this.recorder.eventf(cj, "Warning", "FailedCreate", "Error creating job: %v", errorMessage(err));
        return requeue(err);
      }
    }
    // Only a Job this sync created is measured and announced (upstream logs "Job already exists" otherwise).
    if (!alreadyExisted) {
      const createdAt = parseTime(created.metadata?.creationTimestamp) ?? now;
      this.metrics.jobCreationSkewDurationSeconds.observe((createdAt - scheduled) / 1000);
      this.recorder.eventf(cj, "Normal", "SuccessfulCreate", "Created job %v", created.metadata?.name ?? "");
    }
    const ref: ObjectReference = {
      apiVersion: "batch/v1",
      kind: "Job",
      namespace: created.metadata?.namespace,
      name: created.metadata?.name,
      uid: created.metadata?.uid,
      resourceVersion: created.metadata?.resourceVersion,
    };
    if (!inActive(ref.uid)) status.active = [...(status.active ?? []), ref];
    status.lastScheduleTime = formatTime(scheduled);
    return requeue();
  }

  /** Deletes the oldest finished Jobs beyond the history limits (cleanupFinishedJobs). */
  private async cleanupFinishedJobs(cj: CronJob, jobs: readonly Job[], client: ResourceClientFactory): Promise<void> {
    const okLimit = cj.spec?.successfulJobsHistoryLimit;
    const failLimit = cj.spec?.failedJobsHistoryLimit;
    if (okLimit == null && failLimit == null) return;
    const succeeded = jobs.filter((j) => finishedCondition(j) === "Complete");
    const failed = jobs.filter((j) => finishedCondition(j) === "Failed");
    if (okLimit != null) await this.removeOldestJobs(cj, succeeded, okLimit, client);
    if (failLimit != null) await this.removeOldestJobs(cj, failed, failLimit, client);
  }

  private async removeOldestJobs(cj: CronJob, jobs: readonly Job[], max: number, client: ResourceClientFactory): Promise<void> {
    const n = jobs.length - max;
    if (n <= 0) return;
    const start = (j: Job) => parseTime(j.status?.startTime);
    const sorted = [...jobs].sort((a, b) => {
      const sa = start(a);
      const sb = start(b);
      if (sa === undefined && sb !== undefined) return 1;
      if (sa !== undefined && sb === undefined) return -1;
      if (sa === sb) return (a.metadata?.name ?? "").localeCompare(b.metadata?.name ?? "");
      return (sa ?? 0) - (sb ?? 0);
    });
    for (const j of sorted.slice(0, n)) {
      try {
        await client.resource(builtin.jobs, j.metadata?.namespace ?? "").delete(j.metadata?.name ?? "", { propagationPolicy: "Background" });
      } catch (err) {
        if (isNotFound(err)) continue;
        this.recorder.eventf(cj, "Warning", "FailedDelete", "Deleted job: %v", errorMessage(err));
        continue;
      }
      this.recorder.eventf(cj, "Normal", "SuccessfulDelete", "Deleted job %v", j.metadata?.name ?? "");
    }
  }
}
