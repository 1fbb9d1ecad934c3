/**
 * The CronJob controller's metric (upstream pkg/controller/cronjob/metrics/metrics.go at
 * kubernetes/kubernetes 9d2a8fb, subsystem cronjob_controller), created once per registry: how
 * late a Job was created after its scheduled time, observed when the controller creates it (not
 * when it finds it already created).
 */
import { Histogram } from "prom-client";
import type { Registry } from "prom-client";

/** metrics.ExponentialBuckets(1, 2, 10): 1 s doubling to 512 s. */
export const CRONJOB_CREATION_SKEW_BUCKETS: readonly number[] = Object.freeze(Array.from({ length: 10 }, (_, i) => 2 ** i));

export interface CronJobMetrics {
  jobCreationSkewDurationSeconds: Histogram;
}

const byRegistry = new WeakMap<Registry, CronJobMetrics>();

export function cronJobMetrics(registry: Registry): CronJobMetrics {
  const existing = byRegistry.get(registry);
  if (existing) return existing;
  const m: CronJobMetrics = {
    jobCreationSkewDurationSeconds: new Histogram({
      name: "cronjob_controller_job_creation_skew_duration_seconds",
      help: "[STABLE] Time between when a cronjob is scheduled to be run, and when the corresponding job is created",
      buckets: [...CRONJOB_CREATION_SKEW_BUCKETS],
      registers: [registry],
    }),
  };
  byRegistry.set(registry, m);
  return m;
}
