/**
 * What the simulated kubelet's containers use, for the resource metrics API (metrics.k8s.io, the
 * API server's core/resourcemetrics.ts) — the figures a kubelet's /metrics/resource endpoint gives
 * metrics-server, and so what `kubectl top` prints and a HorizontalPodAutoscaler scales on.
 *
 * A simulated container runs no process, so its usage is set by the pod, on the annotations:
 *
 *   | annotation                              | value                          | applies to        |
 *   |-----------------------------------------|--------------------------------|-------------------|
 *   | `sim.kubeloop.dev/usage.<container>`    | `cpu=250m,memory=64Mi` (either)| that container    |
 *   | `sim.kubeloop.dev/cpu-usage`            | a quantity (`250m`, `1`)       | every container   |
 *   | `sim.kubeloop.dev/memory-usage`         | a quantity (`64Mi`)            | every container   |
 *
 * the first that sets a resource wins; without any, a container uses what it requests
 * (`resources.requests`), and a container without a request uses DEFAULT_CPU_USAGE /
 * DEFAULT_MEMORY_USAGE. An invalid value is ignored (the next rule applies). Usage is constant
 * while a container runs, so `kubectl annotate pod` changes it at once.
 *
 * Only Running pods have metrics, and in them only the containers that are running (regular
 * containers and sidecars — restartPolicy Always init containers); a pod with none running has
 * none, as metrics-server reports nothing for it. Like pods/log (logs.ts), the usage is a function
 * of the pod alone, so it is right wherever the API server runs.
 *
 * The sample's window is metrics-server's default resolution (15 s) scaled by the kubelet's
 * speedFactor (as grace periods are: 1.5 s at the default 0.1); the sample is taken "now".
 */
import type { Container, ContainerStatus, Pod } from "../../apimachinery/api/core/v1.js";
import { quantityNanos } from "../../apimachinery/quantity.js";
import type { KubeObject } from "../../apimachinery/types.js";
import { isSidecar } from "./programs.js";
import { DEFAULT_SPEED_FACTOR } from "./simulator.js";

export const CPU_USAGE_ANNOTATION = "sim.kubeloop.dev/cpu-usage";
export const MEMORY_USAGE_ANNOTATION = "sim.kubeloop.dev/memory-usage";
/** `sim.kubeloop.dev/usage.<container>`: `cpu=<quantity>,memory=<quantity>` for one container. */
export const CONTAINER_USAGE_ANNOTATION_PREFIX = "sim.kubeloop.dev/usage.";
/** A container with no request and no annotation uses this much CPU. */
export const DEFAULT_CPU_USAGE = "1m";
/** A container with no request and no annotation uses this much memory. */
export const DEFAULT_MEMORY_USAGE = "1Mi";
/** metrics-server's default --metric-resolution: the window of one sample (before speedFactor). */
export const DEFAULT_METRICS_WINDOW_MS = 15_000;

/** One container's usage: resource name → quantity. */
export interface SimulatedContainerUsage {
  name: string;
  usage: Record<string, string>;
}

const RESOURCES = ["cpu", "memory"] as const;
type Resource = (typeof RESOURCES)[number];

function valid(q: string | undefined): string | undefined {
  if (q === undefined) return undefined;
  const t = q.trim();
  return t !== "" && quantityNanos(t) !== undefined ? t : undefined;
}

/** Parses `cpu=250m,memory=64Mi` (either part optional); unknown keys and invalid quantities are ignored. */
export function parseContainerUsage(value: string): { cpu?: string; memory?: string } {
  const out: Partial<Record<Resource, string>> = {};
  for (const part of value.split(",")) {
    const eq = part.indexOf("=");
    if (eq < 0) continue;
    const key = part.slice(0, eq).trim();
    const q = valid(part.slice(eq + 1));
    if ((key === "cpu" || key === "memory") && q !== undefined) out[key] = q;
  }
  return out;
}

function containerUsage(pod: Pod, c: Container): Record<string, string> {
  const annotations = pod.metadata?.annotations ?? {};
  const own = annotations[CONTAINER_USAGE_ANNOTATION_PREFIX + c.name];
  const perContainer = own !== undefined ? parseContainerUsage(own) : {};
  const podWide: Partial<Record<Resource, string>> = { cpu: valid(annotations[CPU_USAGE_ANNOTATION]), memory: valid(annotations[MEMORY_USAGE_ANNOTATION]) };
  const requests = c.resources?.requests ?? {};
  const fallback: Record<Resource, string> = { cpu: DEFAULT_CPU_USAGE, memory: DEFAULT_MEMORY_USAGE };
  const usage: Record<string, string> = {};
  for (const r of RESOURCES) usage[r] = perContainer[r] ?? podWide[r] ?? valid(requests[r]) ?? fallback[r];
  return usage;
}

function running(statuses: readonly ContainerStatus[] | undefined, name: string): boolean {
  return (statuses ?? []).some((s) => s.name === name && s.state?.running !== undefined && s.state.running !== null);
}

/**
 * The usage of each running container of a Running pod (sidecars first, in spec order, then the
 * regular containers), or undefined when the pod has no metrics (not Running, nothing running).
 */
export function simulatedPodUsage(obj: KubeObject): SimulatedContainerUsage[] | undefined {
  const pod = obj as Pod;
  if (pod.status?.phase !== "Running") return undefined;
  const out: SimulatedContainerUsage[] = [];
  for (const c of pod.spec?.initContainers ?? []) {
    if (isSidecar(c) && running(pod.status?.initContainerStatuses, c.name)) out.push({ name: c.name, usage: containerUsage(pod, c) });
  }
  for (const c of pod.spec?.containers ?? []) {
    if (running(pod.status?.containerStatuses, c.name)) out.push({ name: c.name, usage: containerUsage(pod, c) });
  }
  return out.length > 0 ? out : undefined;
}

/** The resource metrics source the API server serves metrics.k8s.io from (ApiServerConfig.podMetrics). */
export function simulatedResourceMetrics(opts: { speedFactor?: number } = {}): { windowMs: number; podUsage: typeof simulatedPodUsage } {
  return { windowMs: Math.max(1, Math.round(DEFAULT_METRICS_WINDOW_MS * (opts.speedFactor ?? DEFAULT_SPEED_FACTOR))), podUsage: simulatedPodUsage };
}
