/**
 * Where a webhook's `clientConfig.service` sends its requests (k8s.io/apiserver/pkg/util/proxy
 * ResolveEndpoint and ResolveCluster), read from the API server's own caches of Services,
 * EndpointSlices and Endpoints.
 *
 * kubeloop has no service network: cluster IPs route nowhere. So a Service resolves as
 * kube-apiserver resolves it with `--enable-aggregator-routing=true` — to one ready endpoint of
 * the service port (EndpointSlices labelled `kubernetes.io/service-name`, else the Endpoints
 * object of the same name, which kubeloop's Endpoints controller writes) — and an `ExternalName`
 * Service resolves as the default cluster resolver does, to `externalName:<webhook port>`.
 *
 * The ExternalName form is how a test or `kubeloop up` points a Service at a process on the
 * host (envtest rewrites webhook configurations to URLs instead; Endpoints and EndpointSlices
 * may not name loopback addresses, as upstream validates):
 *
 *   kind: Service
 *   spec: { type: ExternalName, externalName: 127.0.0.1 }   # or localhost
 *
 * with the webhook configuration's `service.port` set to the port the process listens on. TLS
 * is still verified against `<name>.<namespace>.svc`, as upstream does.
 */
import type { KubeObject } from "../../apimachinery/types.js";
import { objectKey, resourcePrefix } from "../rest/keys.js";
import type { StorageCache } from "../storage/cache.js";

export const servicesPrefix = resourcePrefix("", "services");
export const endpointsPrefix = resourcePrefix("", "endpoints");
export const endpointSlicesPrefix = resourcePrefix("discovery.k8s.io", "endpointslices");
const serviceNameLabel = "kubernetes.io/service-name";

/** A resolution failure; its message is what the dialer reports (upstream's texts). */
export class ServiceResolutionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ServiceResolutionError";
  }
}

export interface ResolvedEndpoint {
  host: string;
  port: number;
}

type Rec = Record<string, unknown>;
const rec = (v: unknown): Rec | undefined => (typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Rec) : undefined);
const recs = (v: unknown): Rec[] => (Array.isArray(v) ? v.map(rec).filter((x): x is Rec => x !== undefined) : []);

/** Resolves services through a StorageCache holding services, endpoints and endpointslices. */
export class ServiceResolver {
  constructor(
    private readonly cache: StorageCache,
    private readonly random: () => number = Math.random,
  ) {}

  resolve(namespace: string, name: string, port: number): ResolvedEndpoint {
    if (!name || !namespace || !port) throw new ServiceResolutionError("cannot resolve an empty service name or namespace or port");
    const svc = this.cache.get(objectKey("", "services", namespace, name));
    if (!svc) throw new ServiceResolutionError(`service "${name}" not found`);
    const spec = rec(svc.spec) ?? {};
    const type = typeof spec.type === "string" && spec.type !== "" ? spec.type : "ClusterIP";
    if (type === "ExternalName") return { host: String(spec.externalName ?? ""), port };
    if (type !== "ClusterIP" && type !== "NodePort" && type !== "LoadBalancer") throw new ServiceResolutionError(`unsupported service type "${type}"`);
    const svcPort = recs(spec.ports).find((p) => p.port === port);
    if (!svcPort) throw new ServiceResolutionError(`no service port ${port} found for service "${name}"`);
    const portName = typeof svcPort.name === "string" ? svcPort.name : "";
    return this.fromSlices(namespace, name, portName) ?? this.fromEndpoints(namespace, name, portName) ?? this.noEndpoints(name);
  }

  private noEndpoints(name: string): never {
    throw new ServiceResolutionError(`no endpoints available for service "${name}"`);
  }

  private pick<T>(items: readonly T[]): T[] {
    if (items.length <= 1) return [...items];
    const offset = Math.floor(this.random() * items.length) % items.length;
    return [...items.slice(offset), ...items.slice(0, offset)];
  }

  private fromSlices(namespace: string, name: string, portName: string): ResolvedEndpoint | undefined {
    const slices = this.cache.list(`${endpointSlicesPrefix}${namespace}/`).filter((s) => s.metadata?.labels?.[serviceNameLabel] === name);
    for (const slice of slices) {
      for (const p of recs(slice.ports)) {
        if (typeof p.name !== "string" || p.name !== portName || typeof p.port !== "number") continue;
        for (const ep of this.pick(recs(slice.endpoints))) {
          const ready = rec(ep.conditions)?.ready;
          const addresses = Array.isArray(ep.addresses) ? ep.addresses : [];
          if ((ready === undefined || ready === null || ready === true) && typeof addresses[0] === "string") return { host: addresses[0], port: p.port };
        }
      }
    }
    return undefined;
  }

  private fromEndpoints(namespace: string, name: string, portName: string): ResolvedEndpoint | undefined {
    const eps: KubeObject | undefined = this.cache.get(objectKey("", "endpoints", namespace, name));
    for (const subset of recs(eps?.subsets)) {
      const p = recs(subset.ports).find((x) => (typeof x.name === "string" ? x.name : "") === portName);
      if (!p || typeof p.port !== "number") continue;
      const addr = this.pick(recs(subset.addresses)).find((a) => typeof a.ip === "string" && a.ip !== "");
      if (addr) return { host: String(addr.ip), port: p.port };
    }
    return undefined;
  }
}
