/**
 * The HPA controller's own metrics (upstream pkg/controller/podautoscaler/monitor, subsystem
 * horizontal_pod_autoscaler_controller), created once per registry:
 *
 * - reconciliations_total / reconciliation_duration_seconds {action, error}: one per sync;
 * - metric_computation_total / metric_computation_duration_seconds {action, error, metric_type}:
 *   one per entry of spec.metrics computed.
 *
 * `action` is scale_up, scale_down or none; `error` is spec (the HPA's spec is invalid), internal
 * (anything else) or none; `metric_type` is the MetricSpec's type. Durations are in seconds on the
 * controller's clock.
 */
import { Counter, Histogram } from "prom-client";
import type { Registry } from "prom-client";

export type ActionLabel = "scale_up" | "scale_down" | "none";
export type ErrorLabel = "spec" | "internal" | "none";

const subsystem = "horizontal_pod_autoscaler_controller";
/** metrics.ExponentialBuckets(0.001, 2, 15). */
const buckets = Array.from({ length: 15 }, (_, i) => 0.001 * 2 ** i);

export interface HPAMonitor {
  reconciliationsTotal: Counter<"action" | "error">;
  reconciliationDuration: Histogram<"action" | "error">;
  metricComputationTotal: Counter<"action" | "error" | "metric_type">;
  metricComputationDuration: Histogram<"action" | "error" | "metric_type">;
}

const byRegistry = new WeakMap<Registry, HPAMonitor>();

export function hpaMonitor(registry: Registry): HPAMonitor {
  const existing = byRegistry.get(registry);
  if (existing) return existing;
  const registers = [registry];
  const labels = ["action", "error"] as const;
  const metricLabels = ["action", "error", "metric_type"] as const;
  const m: HPAMonitor = {
    reconciliationsTotal: new Counter({
      name: `${subsystem}_reconciliations_total`,
      help: "Number of reconciliations of HPA controller. The label 'action' should be either 'scale_down', 'scale_up', or 'none'. Also, the label 'error' should be either 'spec', 'internal', or 'none'. Note that if both spec and internal errors happen during a reconciliation, the first one to occur is reported in `error` label.",
      labelNames: labels,
      registers,
    }),
    reconciliationDuration: new Histogram({
      name: `${subsystem}_reconciliation_duration_seconds`,
      help: "The time(seconds) that the HPA controller takes to reconcile once. The label 'action' should be either 'scale_down', 'scale_up', or 'none'. Also, the label 'error' should be either 'spec', 'internal', or 'none'. Note that if both spec and internal errors happen during a reconciliation, the first one to occur is reported in `error` label.",
      labelNames: labels,
      buckets,
      registers,
    }),
    metricComputationTotal: new Counter({
      name: `${subsystem}_metric_computation_total`,
      help: "Number of metric computations. The label 'action' should be either 'scale_down', 'scale_up', or 'none'. Also, the label 'error' should be either 'spec', 'internal', or 'none'. The label 'metric_type' corresponds to HPA.spec.metrics[*].type",
      labelNames: metricLabels,
      registers,
    }),
    metricComputationDuration: new Histogram({
      name: `${subsystem}_metric_computation_duration_seconds`,
      help: "The time(seconds) that the HPA controller takes to calculate one metric. The label 'action' should be either 'scale_down', 'scale_up', or 'none'. The label 'error' should be either 'spec', 'internal', or 'none'. The label 'metric_type' corresponds to HPA.spec.metrics[*].type",
      labelNames: metricLabels,
      buckets,
      registers,
    }),
  };
  byRegistry.set(registry, m);
  return m;
}
