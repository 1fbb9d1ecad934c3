/**
 * client-go's REST client metrics (component-base/metrics/prometheus/restclient), in a prom-client
 * Registry (prom-client's global one by default, as client-go registers into the legacy registry):
 *
 * - rest_client_requests_total{code, method, host}: every HTTP attempt (retries included) by
 *   status code, "<error>" when no response came back;
 * - rest_client_request_duration_seconds{verb, host}: each request from its first attempt to its
 *   outcome (watches excluded: they last as long as they are wanted);
 * - rest_client_rate_limiter_duration_seconds{verb, host}: the time spent waiting for the
 *   client-side rate limiter.
 */
import { Counter, Histogram, register as globalRegistry } from "prom-client";
import type { Registry } from "prom-client";

export const restClientMetricNames = Object.freeze({
  requests: "rest_client_requests_total",
  requestDuration: "rest_client_request_duration_seconds",
  rateLimiterDuration: "rest_client_rate_limiter_duration_seconds",
});

/** client-go's buckets for both latency histograms. */
export const restClientLatencyBuckets: readonly number[] = Object.freeze([0.005, 0.025, 0.1, 0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 15.0, 30.0, 60.0]);

export interface RestClientMetrics {
  /** One HTTP attempt ended: its status code, or undefined when it got no response. */
  result(code: number | undefined, method: string, host: string): void;
  latency(verb: string, host: string, seconds: number): void;
  rateLimiterLatency(verb: string, host: string, seconds: number): void;
}

interface Collectors {
  requests: Counter<"code" | "method" | "host">;
  requestDuration: Histogram<"verb" | "host">;
  rateLimiterDuration: Histogram<"verb" | "host">;
}

const byRegistry = new WeakMap<Registry, RestClientMetrics>();

/** The REST client metrics of `registry`, registered once and shared by every transport. */
export function restClientMetrics(registry: Registry = globalRegistry): RestClientMetrics {
  const existing = byRegistry.get(registry);
  if (existing) return existing;
  const registers = [registry];
  const c: Collectors = {
    requests: new Counter({
      name: restClientMetricNames.requests,
      help: "Number of HTTP requests, partitioned by status code, method, and host.",
      labelNames: ["code", "method", "host"] as const,
      registers,
    }),
    requestDuration: new Histogram({
      name: restClientMetricNames.requestDuration,
      help: "Request latency in seconds. Broken down by verb, and host.",
      labelNames: ["verb", "host"] as const,
      buckets: [...restClientLatencyBuckets],
      registers,
    }),
    rateLimiterDuration: new Histogram({
      name: restClientMetricNames.rateLimiterDuration,
      help: "Client side rate limiter latency in seconds. Broken down by verb, and host.",
      labelNames: ["verb", "host"] as const,
      buckets: [...restClientLatencyBuckets],
      registers,
    }),
  };
  const m: RestClientMetrics = {
    result: (code, method, host) => c.requests.inc({ code: code === undefined ? "<error>" : String(code), method, host }),
    latency: (verb, host, seconds) => c.requestDuration.observe({ verb, host }, seconds),
    rateLimiterLatency: (verb, host, seconds) => c.rateLimiterDuration.observe({ verb, host }, seconds),
  };
  byRegistry.set(registry, m);
  return m;
}
