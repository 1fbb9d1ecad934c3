/** kubeloop/controllers/podautoscaler: the HorizontalPodAutoscaler controller (autoscaling/v2 over metrics.k8s.io). */
export { HorizontalController, HPASyncError, HPA_CONTROLLER_NAME, DEFAULT_HPA_WORKERS, DEFAULT_HPA_SYNC_PERIOD_MS, horizontalPodAutoscalers, scaleUpRules, scaleDownRules } from "./controller.js";
export type { HorizontalControllerOptions, ScaleTargetMapper } from "./controller.js";
export {
  ReplicaCalculator,
  ReplicaCalculationError,
  groupPods,
  calculatePodRequests,
  resourceUtilizationRatio,
  metricUsageRatio,
  isWithinTolerance,
  DEFAULT_TOLERANCE,
  DEFAULT_CPU_INITIALIZATION_PERIOD_MS,
  DEFAULT_DELAY_OF_INITIAL_READINESS_STATUS_MS,
  goLabelSelectorText,
} from "./replicacalculator.js";
export type { Tolerances, PodGroups, PodLister, ReplicaCalculatorOptions } from "./replicacalculator.js";
export {
  Recommendations,
  calculateScaleUpLimit,
  convertDesiredReplicasWithRules,
  scaleUpLimitWithRules,
  scaleDownLimitWithRules,
  replicasChangePerPeriod,
  DEFAULT_DOWNSCALE_STABILIZATION_WINDOW_MS,
  SCALE_UP_LIMIT_FACTOR,
  SCALE_UP_LIMIT_MINIMUM,
} from "./behavior.js";
export type { NormalizationArg, Limited, TimestampedRecommendation, TimestampedScaleEvent } from "./behavior.js";
export { setCondition, setConditionInList, removeCondition, ABLE_TO_SCALE, SCALING_ACTIVE, SCALING_LIMITED, SCALED_TO_ZERO } from "./conditions.js";
export type { ConditionStatus } from "./conditions.js";
export { ResourceMetricsClient, MetricsUnavailableError, podMetricsInfo, podMetricsResource, parseDurationMs } from "./metrics.js";
export type { MetricsClient, PodMetric, PodMetricsInfo, PodMetricsObject } from "./metrics.js";
export { hpaMonitor } from "./monitor.js";
export type { HPAMonitor, ActionLabel, ErrorLabel } from "./monitor.js";
export { HPASelectors } from "./selectors.js";
