/**
 * metrics.k8s.io/v1beta1, the resource metrics API metrics-server serves (upstream registers it as
 * the aggregated APIService v1beta1.metrics.k8s.io; here it is Local, served by this server):
 * PodMetrics (`pods`, namespaced) and NodeMetrics (`nodes`), get and list only, computed on every
 * read and never stored.
 *
 * The server knows nothing of where usage comes from: a ResourceMetricsSource given to it
 * (ApiServerConfig.resourceMetrics) says what each pod's containers use — kubeloop's simulated
 * kubelet provides one (controllers/podlifecycle/usage.ts). Without a source the group is not
 * served at all, as on a cluster without metrics-server (`kubectl top`: "Metrics API not
 * available").
 *
 * As metrics-server:
 * - a PodMetrics carries the pod's name, namespace and labels, creationTimestamp "now", the
 *   sample's `timestamp` and `window`, and `containers[].usage` (cpu, memory; canonical
 *   quantities); a pod without metrics (not running) is absent from lists and a get answers 404
 *   `podmetrics.metrics.k8s.io "<ns>/<name>" not found`;
 * - a NodeMetrics is the sum of the usage of the pods on the node (`usage`), for every Node;
 *   a get of an unknown node answers 404 `nodemetrics.metrics.k8s.io "<name>" not found`;
 * - label selectors match the pod's (node's) labels; field selectors support metadata.name and
 *   metadata.namespace (metrics-server filters on object metadata only). No watch.
 */
import { StatusError } from "../../apimachinery/errors.js";
import { canonicalQuantity, quantityNanos } from "../../apimachinery/quantity.js";
import { formatTime } from "../../apimachinery/time.js";
import type { KubeList, KubeObject } from "../../apimachinery/types.js";
import type { ResourceStrategy } from "../registry/strategy.js";
import type { ListOptions } from "../rest/options.js";
import { ResourceStore, type ResourceStoreDeps } from "../rest/store.js";

export const metricsGroup = "metrics.k8s.io";
export const metricsVersion = "v1beta1";
const apiVersion = `${metricsGroup}/${metricsVersion}`;

/** One container's usage: resource name ("cpu", "memory") → quantity. */
export interface ContainerResourceUsage {
  name: string;
  usage: Readonly<Record<string, string>>;
}

/** Where resource usage comes from (the kubelet's side): the server only serves it. */
export interface ResourceMetricsSource {
  /** The length of one sample (metrics-server's `window`), in ms. */
  windowMs: number;
  /** The usage of each of the pod's running containers, or undefined when the pod has no metrics. */
  podUsage(pod: KubeObject, nowMs: number): readonly ContainerResourceUsage[] | undefined;
}

interface PodShape {
  metadata?: { name?: string; namespace?: string; labels?: Record<string, string> };
  spec?: { nodeName?: string };
}

function windowString(ms: number): string {
  // metav1.Duration's text (Go time.Duration.String) for whole and fractional seconds.
  if (ms % 1000 === 0) return `${ms / 1000}s`;
  if (ms < 1000) return `${ms}ms`;
  return `${(ms / 1000).toString()}s`;
}

function canonicalUsage(usage: Readonly<Record<string, string>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(usage)) {
    try {
      out[k] = canonicalQuantity(v);
    } catch {
      // A source's invalid quantity is left out rather than served.
    }
  }
  return out;
}

/** Reads pods and nodes from storage and the usage from the source; shared by both stores. */
export class ResourceMetricsReader {
  constructor(
    private readonly source: ResourceMetricsSource,
    private readonly pods: () => ResourceStore | undefined,
    private readonly nodes: () => ResourceStore | undefined,
  ) {}

  private async objects(store: ResourceStore | undefined, namespace: string | undefined): Promise<KubeObject[]> {
    if (!store) return [];
    return (await store.storage.list(store.prefix(namespace))).items.map((i) => i.object);
  }

  /** PodMetrics of the pods in `namespace` (undefined: all) that have metrics. */
  async podMetrics(namespace: string | undefined, nowMs: number): Promise<KubeObject[]> {
    const out: KubeObject[] = [];
    for (const pod of await this.objects(this.pods(), namespace)) {
      const m = this.podMetricsOf(pod, nowMs);
      if (m) out.push(m);
    }
    return out;
  }

  podMetricsOf(pod: KubeObject, nowMs: number): KubeObject | undefined {
    const containers = this.source.podUsage(pod, nowMs);
    if (!containers) return undefined;
    const meta = (pod as PodShape).metadata ?? {};
    return {
      kind: "PodMetrics",
      apiVersion,
      metadata: { name: meta.name, namespace: meta.namespace, creationTimestamp: formatTime(nowMs), ...(meta.labels ? { labels: { ...meta.labels } } : {}) },
      timestamp: formatTime(nowMs),
      window: windowString(this.source.windowMs),
      containers: containers.map((c) => ({ name: c.name, usage: canonicalUsage(c.usage) })),
    };
  }

  /** NodeMetrics of every node: the summed usage of the pods bound to it. */
  async nodeMetrics(nowMs: number): Promise<KubeObject[]> {
    const sums = new Map<string, Map<string, bigint>>();
    for (const pod of await this.objects(this.pods(), undefined)) {
      const node = (pod as PodShape).spec?.nodeName;
      if (!node) continue;
      const containers = this.source.podUsage(pod, nowMs);
      if (!containers) continue;
      const sum = sums.get(node) ?? new Map<string, bigint>();
      sums.set(node, sum);
      for (const c of containers) {
        for (const [r, q] of Object.entries(c.usage)) {
          const n = quantityNanos(q);
          if (n !== undefined) sum.set(r, (sum.get(r) ?? 0n) + n);
        }
      }
    }
    return (await this.objects(this.nodes(), undefined)).map((node) => {
      const meta = (node as PodShape).metadata ?? {};
      const sum = sums.get(meta.name ?? "") ?? new Map<string, bigint>();
      const usage: Record<string, string> = { cpu: "0", memory: "0" };
      for (const [r, n] of sum) usage[r] = nanosQuantity(r, n);
      return {
        kind: "NodeMetrics",
        apiVersion,
        metadata: { name: meta.name, creationTimestamp: formatTime(nowMs), ...(meta.labels ? { labels: { ...meta.labels } } : {}) },
        timestamp: formatTime(nowMs),
        window: windowString(this.source.windowMs),
        usage,
      };
    });
  }
}

/** A summed amount as metrics-server writes it: cpu in decimal units, memory in binary ones. */
function nanosQuantity(resource: string, nanos: bigint): string {
  if (nanos === 0n) return "0";
  if (resource === "memory" && nanos % 1_000_000_000n === 0n) {
    const bytes = nanos / 1_000_000_000n;
    // metrics-server reports memory in Ki (BinarySI): whole Ki as "<n>Ki", canonicalised.
    return bytes % 1024n === 0n ? canonicalQuantity(`${bytes / 1024n}Ki`) : bytes.toString();
  }
  return canonicalQuantity(`${nanos}n`);
}

abstract class MetricsStore extends ResourceStore {
  constructor(
    strategy: ResourceStrategy,
    deps: ResourceStoreDeps,
    protected readonly reader: ResourceMetricsReader,
  ) {
    super(strategy, deps);
  }

  protected abstract items(namespace: string | undefined): Promise<KubeObject[]>;
  protected abstract notFoundName(namespace: string | undefined, name: string): string;

  override async get(namespace: string | undefined, name: string): Promise<KubeObject> {
    const found = (await this.items(namespace)).find((m) => m.metadata?.name === name);
    if (!found) throw StatusError.notFound({ group: metricsGroup, resource: this.strategy.names.kind.toLowerCase() }, this.notFoundName(namespace, name));
    return found;
  }

  override async list(namespace: string | undefined, opts: ListOptions): Promise<KubeList> {
    const predicate = this.predicate(opts.labelSelector, opts.fieldSelector);
    const items = (await this.items(namespace)).filter((m) => !predicate || predicate(m));
    return { apiVersion, kind: this.strategy.names.listKind, metadata: {}, items };
  }
}

export class PodMetricsStore extends MetricsStore {
  protected items(namespace: string | undefined): Promise<KubeObject[]> {
    return this.reader.podMetrics(namespace || undefined, this.clock.now());
  }

  protected notFoundName(namespace: string | undefined, name: string): string {
    return `${namespace ?? ""}/${name}`;
  }
}

export class NodeMetricsStore extends MetricsStore {
  protected items(): Promise<KubeObject[]> {
    return this.reader.nodeMetrics(this.clock.now());
  }

  protected notFoundName(_namespace: string | undefined, name: string): string {
    return name;
  }
}
