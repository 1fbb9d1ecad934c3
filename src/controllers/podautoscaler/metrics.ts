/**
 * Where the HPA reads metrics (upstream pkg/controller/podautoscaler/metrics): the MetricsClient
 * the replica calculator asks, and the one that reads the resource metrics API
 * (metrics.k8s.io/v1beta1 PodMetrics) through the client.
 *
 * Values are milli-units (Quantity.MilliValue), as upstream's PodMetric.Value. The custom
 * (custom.metrics.k8s.io) and external (external.metrics.k8s.io) metrics APIs are not served by
 * kubeloop; ResourceMetricsClient answers their calls with the error upstream's clients give when
 * no adapter is registered, so Pods, Object and External metrics report ScalingActive False.
 */
import type { CrossVersionObjectReference } from "../../apimachinery/api/autoscaling/v2.js";
import { quantityMilliValue } from "../../apimachinery/quantity.js";
import { parseTime } from "../../apimachinery/time.js";
import type { TypedObject } from "../../apimachinery/types.js";
import type { ResourceClientFactory } from "../../client/interfaces.js";
import { defineResource } from "../../apimachinery/resource.js";

/** One pod's sample: its value in milli-units, when it was taken and over how long. */
export interface PodMetric {
  timestampMs: number;
  windowMs: number;
  value: number;
}

/** Pod name → its sample (upstream PodMetricsInfo). */
export type PodMetricsInfo = Map<string, PodMetric>;

export interface MetricsClient {
  /** Per-pod usage of `resource` (the sum of its containers', or one container's) for the pods `selector` matches. */
  getResourceMetric(resource: string, namespace: string, selector: string, container: string, signal?: AbortSignal): Promise<{ metrics: PodMetricsInfo; timestampMs: number }>;
  /** A per-pod custom metric (Pods metrics). */
  getRawMetric(metricName: string, namespace: string, selector: string, metricSelector: string, signal?: AbortSignal): Promise<{ metrics: PodMetricsInfo; timestampMs: number }>;
  /** A custom metric describing one object (Object metrics). */
  getObjectMetric(metricName: string, namespace: string, objectRef: CrossVersionObjectReference, metricSelector: string, signal?: AbortSignal): Promise<{ value: number; timestampMs: number }>;
  /** An external metric's values (External metrics). */
  getExternalMetric(metricName: string, namespace: string, metricSelector: string, signal?: AbortSignal): Promise<{ values: number[]; timestampMs: number }>;
}

export interface PodMetricsObject extends TypedObject {
  metadata?: { name?: string; namespace?: string };
  timestamp?: string;
  window?: string;
  containers?: Array<{ name: string; usage?: Record<string, string> }>;
}

/** metrics.k8s.io/v1beta1 pods (PodMetrics). */
export const podMetricsResource = defineResource<PodMetricsObject>({ group: "metrics.k8s.io", version: "v1beta1", resource: "pods", kind: "PodMetrics", namespaced: true });

/** metav1.Duration text ("15s", "150ms", "1m30s", "1.5s") in ms; 0 when it is not one. */
export function parseDurationMs(s: string | undefined): number {
  if (!s) return 0;
  const re = /(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h)/g;
  const unit: Record<string, number> = { ns: 1e-6, us: 1e-3, µs: 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
  let total = 0;
  let consumed = 0;
  for (const m of s.matchAll(re)) {
    total += Number(m[1]) * unit[m[2]];
    consumed += m[0].length;
  }
  return consumed === s.length ? total : 0;
}

export class MetricsUnavailableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "MetricsUnavailableError";
  }
}

/** getPodMetrics / getContainerMetrics: a pod has a sample only when every container (or the named one) reports the resource. */
export function podMetricsInfo(items: readonly PodMetricsObject[], resource: string, container: string): PodMetricsInfo {
  const res: PodMetricsInfo = new Map();
  for (const m of items) {
    const name = m.metadata?.name ?? "";
    const timestampMs = parseTime(m.timestamp ?? "") ?? 0;
    const windowMs = parseDurationMs(m.window);
    if (container !== "") {
      // getContainerMetrics: a pod without the container, or the container without the resource, has no sample.
      const c = (m.containers ?? []).find((x) => x.name === container);
      const v = c?.usage?.[resource];
      const milli = v === undefined ? undefined : quantityMilliValue(v);
      if (milli !== undefined) res.set(name, { timestampMs, windowMs, value: milli });
      continue;
    }
    const containers = m.containers ?? [];
    let sum = 0;
    let missing = containers.length === 0;
    for (const c of containers) {
      const v = c.usage?.[resource];
      const milli = v === undefined ? undefined : quantityMilliValue(v);
      if (milli === undefined) {
        missing = true;
        break;
      }
      sum += milli;
    }
    if (!missing) res.set(name, { timestampMs, windowMs, value: sum });
  }
  return res;
}

const noCustomMetrics = "no custom metrics API (custom.metrics.k8s.io) registered";
const noExternalMetrics = "no external metrics API (external.metrics.k8s.io) registered";

/** The resource metrics client (upstream resourceMetricsClient) over metrics.k8s.io; no custom or external metrics. */
export class ResourceMetricsClient implements MetricsClient {
  constructor(private readonly client: ResourceClientFactory) {}

  async getResourceMetric(resource: string, namespace: string, selector: string, container: string, signal?: AbortSignal): Promise<{ metrics: PodMetricsInfo; timestampMs: number }> {
    let items: PodMetricsObject[];
    try {
      items = (await this.client.resource(podMetricsResource, namespace).list({ labelSelector: selector, signal })).items;
    } catch (err) {
      throw new MetricsUnavailableError(`unable to fetch metrics from resource metrics API: ${err instanceof Error ? err.message : String(err)}`);
    }
    if (items.length === 0) throw new MetricsUnavailableError("no metrics returned from resource metrics API");
    return { metrics: podMetricsInfo(items, resource, container), timestampMs: parseTime(items[0].timestamp ?? "") ?? 0 };
  }

  getRawMetric(): Promise<{ metrics: PodMetricsInfo; timestampMs: number }> {
    return Promise.reject(new MetricsUnavailableError(`unable to fetch metrics from custom metrics API: ${noCustomMetrics}`));
  }

  getObjectMetric(): Promise<{ value: number; timestampMs: number }> {
    return Promise.reject(new MetricsUnavailableError(`unable to fetch metrics from custom metrics API: ${noCustomMetrics}`));
  }

  getExternalMetric(): Promise<{ values: number[]; timestampMs: number }> {
    return Promise.reject(new MetricsUnavailableError(`unable to fetch metrics from external metrics API: ${noExternalMetrics}`));
  }
}
