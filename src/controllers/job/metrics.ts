/**
 * The Job controller's metrics (upstream pkg/controller/job/metrics/metrics.go at
 * kubernetes/kubernetes 151c7d6, subsystem job_controller), created once per registry. Names,
 * help, labels and buckets are upstream's; the help carries the stability prefix
 * ("[STABLE] ", "[BETA] ", "[ALPHA] ") component-base puts before it on /metrics.
 *
 * Where they move (job_controller.go): job_sync_duration_seconds and job_syncs_total once per
 * syncJob past the finished/managedBy checks, labelled with what the sync did (`action`);
 * jobs_by_external_controller_total when a Job with a foreign spec.managedBy is added;
 * terminated_pods_tracking_finalizer_total when a pod becomes (add) or stops being (delete)
 * terminal with the tracking finalizer; job_pods_finished_total and job_finished_indexes_total
 * by the counters a status write moved; pod_failures_handled_by_failure_policy_total by the
 * matched rule's action; job_pods_creation_total per manageJob that created pods;
 * jobs_finished_total when the terminal condition is written.
 */
import { Counter, Histogram } from "prom-client";
import type { Registry } from "prom-client";

/** The `action` label of job_sync_duration_seconds and job_syncs_total. */
export type JobSyncAction = "reconciling" | "tracking" | "pods_created" | "pods_deleted";
export const JOB_SYNC_ACTION_RECONCILING: JobSyncAction = "reconciling";
export const JOB_SYNC_ACTION_TRACKING: JobSyncAction = "tracking";
export const JOB_SYNC_ACTION_PODS_CREATED: JobSyncAction = "pods_created";
export const JOB_SYNC_ACTION_PODS_DELETED: JobSyncAction = "pods_deleted";

/** The `reason` label of job_pods_creation_total. */
export type JobPodCreationReason = "new" | "recreate_terminating_or_failed" | "recreate_failed";

/** metrics.ExponentialBuckets(0.004, 2, 15): 4 ms doubling to about 65 s. */
export const JOB_SYNC_DURATION_BUCKETS: readonly number[] = Object.freeze(Array.from({ length: 15 }, (_, i) => 0.004 * 2 ** i));

export interface JobMetrics {
  syncDurationSeconds: Histogram<"completion_mode" | "result" | "action">;
  syncsTotal: Counter<"completion_mode" | "result" | "action">;
  jobsFinishedTotal: Counter<"completion_mode" | "result" | "reason">;
  jobsByExternalControllerTotal: Counter<"controller_name">;
  podsFinishedTotal: Counter<"completion_mode" | "result">;
  podFailuresHandledByFailurePolicyTotal: Counter<"action">;
  terminatedPodsTrackingFinalizerTotal: Counter<"event">;
  finishedIndexesTotal: Counter<"status" | "backoffLimit">;
  podsCreationTotal: Counter<"reason" | "status">;
}

const byRegistry = new WeakMap<Registry, JobMetrics>();

export function jobMetrics(registry: Registry): JobMetrics {
  const existing = byRegistry.get(registry);
  if (existing) return existing;
  const registers = [registry];
  const syncLabels = ["completion_mode", "result", "action"] as const;
  const m: JobMetrics = {
    syncDurationSeconds: new Histogram({
      name: "job_controller_job_sync_duration_seconds",
      help: "[STABLE] The time it took to sync a job",
      labelNames: syncLabels,
      buckets: [...JOB_SYNC_DURATION_BUCKETS],
      registers,
    }),
    syncsTotal: new Counter({ name: "job_controller_job_syncs_total", help: "[STABLE] The number of job syncs", labelNames: syncLabels, registers }),
    jobsFinishedTotal: new Counter({
      name: "job_controller_jobs_finished_total",
      help: "[STABLE] The number of finished jobs",
      labelNames: ["completion_mode", "result", "reason"] as const,
      registers,
    }),
    jobsByExternalControllerTotal: new Counter({
      name: "job_controller_jobs_by_external_controller_total",
      help: "[ALPHA] The number of Jobs managed by an external controller",
      labelNames: ["controller_name"] as const,
      registers,
    }),
    podsFinishedTotal: new Counter({
      name: "job_controller_job_pods_finished_total",
      help: "[STABLE] The number of finished Pods that are fully tracked",
      labelNames: ["completion_mode", "result"] as const,
      registers,
    }),
    podFailuresHandledByFailurePolicyTotal: new Counter({
      name: "job_controller_pod_failures_handled_by_failure_policy_total",
      help: '[BETA] The number of failed Pods handled by failure policy with respect to the failure policy action applied based on the matched rule. Possible values of the action label correspond to the possible values for the failure policy rule action, which are: "FailJob", "Ignore" and "Count".',
      labelNames: ["action"] as const,
      registers,
    }),
    terminatedPodsTrackingFinalizerTotal: new Counter({
      name: "job_controller_terminated_pods_tracking_finalizer_total",
      help: '[BETA] The number of terminated pods (phase=Failed|Succeeded) that have the finalizer batch.kubernetes.io/job-tracking. The event label can be "add" or "delete".',
      labelNames: ["event"] as const,
      registers,
    }),
    finishedIndexesTotal: new Counter({
      name: "job_controller_job_finished_indexes_total",
      help: '[ALPHA] The number of finished indexes. Possible values for the\n\t\t\tstatus label are: "succeeded", "failed". Possible values for the\n\t\t\tbackoffLimit label are: "perIndex" and "global"',
      labelNames: ["status", "backoffLimit"] as const,
      registers,
    }),
    podsCreationTotal: new Counter({
      name: "job_controller_job_pods_creation_total",
      help: '[ALPHA] The number of Pods created by the Job controller labelled with a reason for the Pod creation.\nThis metric also distinguishes between Pods created using different PodReplacementPolicy settings.\nPossible values of the "reason" label are:\n"new", "recreate_terminating_or_failed", "recreate_failed".\nPossible values of the "status" label are:\n"succeeded", "failed".',
      labelNames: ["reason", "status"] as const,
      registers,
    }),
  };
  byRegistry.set(registry, m);
  return m;
}
