export { Queue } from "./queue.js";
export type { GetResult, QueueOptions } from "./queue.js";
export { DelayingQueue, maxTimerMs } from "./delaying.js";
export type { DelayingQueueOptions } from "./delaying.js";
export { RateLimitingQueue } from "./ratelimiting.js";
export type { RateLimitingQueueOptions } from "./ratelimiting.js";
export {
  BucketRateLimiter,
  ItemExponentialFailureRateLimiter,
  ItemFastSlowRateLimiter,
  MaxOfRateLimiter,
  WithMaxWaitRateLimiter,
  defaultControllerRateLimiter,
  defaultItemBasedRateLimiter,
} from "./ratelimiters.js";
export type { ItemRateLimiterOptions, RateLimiter } from "./ratelimiters.js";
export { TokenBucket } from "./tokenbucket.js";
export {
  PrometheusMetricsProvider,
  defaultUnfinishedWorkUpdatePeriodMs,
  noopMetricsProvider,
  workqueueDurationBuckets,
  workqueueMetricNames,
} from "./metrics.js";
export type {
  CounterMetric,
  GaugeMetric,
  HistogramMetric,
  SettableGaugeMetric,
  QueueMetrics,
  WorkqueueMetricsProvider,
} from "./metrics.js";
export { defaultKeyOf } from "./key.js";
export type { KeyFunc } from "./key.js";
