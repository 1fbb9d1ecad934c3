/**
 * controller-runtime's controller metrics (pkg/internal/controller/metrics), in a prom-client
 * Registry. The collectors are created once per registry and shared by every controller that
 * uses it; each controller is a `controller` label value.
 */
import { collectDefaultMetrics, Counter, Gauge, Histogram, register as globalRegistry } from "prom-client";
import type { Registry } from "prom-client";

export const controllerMetricNames = Object.freeze({
  reconcileTotal: "controller_runtime_reconcile_total",
  reconcileErrors: "controller_runtime_reconcile_errors_total",
  reconcilePanics: "controller_runtime_reconcile_panics_total",
  terminalReconcileErrors: "controller_runtime_terminal_reconcile_errors_total",
  reconcileTime: "controller_runtime_reconcile_time_seconds",
  activeWorkers: "controller_runtime_active_workers",
  maxConcurrentReconciles: "controller_runtime_max_concurrent_reconciles",
  /** kubeloop's own: event handlers, map functions and predicates that threw (isolated, not fatal). */
  eventHandlerErrors: "kubeloop_controller_event_handler_errors_total",
});

/** The `result` label values of controller_runtime_reconcile_total. */
export type ReconcileResultLabel = "success" | "error" | "requeue" | "requeue_after";
export const reconcileResultLabels: readonly ReconcileResultLabel[] = Object.freeze(["success", "error", "requeue", "requeue_after"]);

/** controller-runtime's buckets for controller_runtime_reconcile_time_seconds. */
export const reconcileTimeBuckets: readonly number[] = Object.freeze([
  0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.25, 1.5, 1.75, 2.0, 2.5, 3.0, 3.5,
  4.0, 4.5, 5, 6, 7, 8, 9, 10, 15, 20, 25, 30, 40, 50, 60,
]);

export interface ControllerCollectors {
  reconcileTotal: Counter<"controller" | "result">;
  reconcileErrors: Counter<"controller">;
  reconcilePanics: Counter<"controller">;
  terminalReconcileErrors: Counter<"controller">;
  eventHandlerErrors: Counter<"controller">;
  reconcileTime: Histogram<"controller">;
  activeWorkers: Gauge<"controller">;
  maxConcurrentReconciles: Gauge<"controller">;
}

const byRegistry = new WeakMap<Registry, ControllerCollectors>();

/** The shared controller collectors of `registry` (prom-client's global registry by default). */
export function controllerCollectors(registry: Registry = globalRegistry): ControllerCollectors {
  const existing = byRegistry.get(registry);
  if (existing) return existing;
  const registers = [registry];
  const c: ControllerCollectors = {
    reconcileTotal: new Counter({
      name: controllerMetricNames.reconcileTotal,
      help: "Total number of reconciliations per controller",
      labelNames: ["controller", "result"] as const,
      registers,
    }),
    reconcileErrors: new Counter({
      name: controllerMetricNames.reconcileErrors,
      help: "Total number of reconciliation errors per controller",
      labelNames: ["controller"] as const,
      registers,
    }),
    reconcilePanics: new Counter({
      name: controllerMetricNames.reconcilePanics,
      help: "Total number of reconciliation panics per controller",
      labelNames: ["controller"] as const,
      registers,
    }),
    terminalReconcileErrors: new Counter({
      name: controllerMetricNames.terminalReconcileErrors,
      help: "Total number of terminal reconciliation errors per controller",
      labelNames: ["controller"] as const,
      registers,
    }),
    eventHandlerErrors: new Counter({
      name: controllerMetricNames.eventHandlerErrors,
      help: "Total number of event handler, map function and predicate failures per controller",
      labelNames: ["controller"] as const,
      registers,
    }),
    reconcileTime: new Histogram({
      name: controllerMetricNames.reconcileTime,
      help: "Length of time per reconciliation per controller",
      labelNames: ["controller"] as const,
      buckets: [...reconcileTimeBuckets],
      registers,
    }),
    activeWorkers: new Gauge({
      name: controllerMetricNames.activeWorkers,
      help: "Number of currently used workers per controller",
      labelNames: ["controller"] as const,
      registers,
    }),
    maxConcurrentReconciles: new Gauge({
      name: controllerMetricNames.maxConcurrentReconciles,
      help: "Maximum number of concurrent reconciles per controller",
      labelNames: ["controller"] as const,
      registers,
    }),
  };
  byRegistry.set(registry, c);
  return c;
}

/** The reconcile panic and terminal-error tests the controller counts by (reconcile.ts holds them). */
export { isPanic as isReconcilePanic, isTerminalError as isTerminalReconcileError } from "./reconcile.js";

const withProcessMetrics = new WeakSet<Registry>();

/**
 * prom-client's default collectors (process_cpu_seconds_total, process_resident_memory_bytes,
 * process_open_fds, process_start_time_seconds, nodejs_eventloop_lag_seconds, nodejs_heap_*,
 * nodejs_gc_duration_seconds …) in `registry`, once: the Go process collector's counterpart.
 */
export function registerProcessMetrics(registry: Registry = globalRegistry): void {
  if (withProcessMetrics.has(registry) || registry.getSingleMetric("process_cpu_seconds_total")) return;
  withProcessMetrics.add(registry);
  collectDefaultMetrics({ register: registry });
}
