/**
 * What a Service's EndpointSlices should hold (upstream staging/src/k8s.io/endpointslice utils):
 * one endpoint per selected pod with an address of the slice's family, grouped by the ports the
 * service's target ports resolve to on that pod (pods resolving named ports differently end up in
 * different slices, as upstream's port-map hash groups them).
 */
import type { Node, Pod, Service } from "../../apimachinery/api/core/v1.js";
import type { Endpoint, EndpointPort } from "../../apimachinery/api/discovery/v1.js";
import { findPort, isPodReady, PortNotFoundError, shouldPodBeInEndpoints } from "../endpoints/subsets.js";

export const MANAGED_BY_LABEL = "endpointslice.kubernetes.io/managed-by";
export const CONTROLLER_NAME_VALUE = "endpointslice-controller.k8s.io";
export const SERVICE_NAME_LABEL = "kubernetes.io/service-name";
export const HEADLESS_LABEL = "service.kubernetes.io/headless";
export const ZONE_LABEL = "topology.kubernetes.io/zone";
/** kube-controller-manager's --max-endpoints-per-slice default. */
export const DEFAULT_MAX_ENDPOINTS_PER_SLICE = 100;

export type AddressType = "IPv4" | "IPv6";

/** One group of desired endpoints sharing a port list. */
export interface PortGroup {
  /** Stable key of the ports (the port-map hash's role). */
  key: string;
  ports: EndpointPort[];
  endpoints: Endpoint[];
}

const isIPv6 = (ip: string) => ip.includes(":");

function podAddress(pod: Pod, family: AddressType): string | undefined {
  const ips = (pod.status?.podIPs ?? []).map((p) => p.ip).filter((ip): ip is string => !!ip);
  if (ips.length === 0 && pod.status?.podIP) ips.push(pod.status.podIP);
  return ips.find((ip) => isIPv6(ip) === (family === "IPv6"));
}

/** The address families of the service's slices: its ipFamilies, else IPv4 (upstream getAddressTypesForService). */
export function addressTypesFor(svc: Service): AddressType[] {
  const fams = (svc.spec?.ipFamilies ?? []).filter((f): f is AddressType => f === "IPv4" || f === "IPv6");
  if (fams.length > 0) return [...new Set(fams)];
  const ip = svc.spec?.clusterIP ?? "";
  return ip !== "" && ip !== "None" && isIPv6(ip) ? ["IPv6"] : ["IPv4"];
}

/** The endpoint ports of a pod (upstream getEndpointPorts): service ports whose target does not resolve are left out. */
export function endpointPorts(svc: Service, pod: Pod): EndpointPort[] {
  const out: EndpointPort[] = [];
  for (const sp of svc.spec?.ports ?? []) {
    let port: number;
    try {
      port = findPort(pod, sp);
    } catch (err) {
      if (err instanceof PortNotFoundError) continue;
      throw err;
    }
    const ep: EndpointPort = { name: sp.name ?? "", port, protocol: sp.protocol ?? "TCP" };
    if (sp.appProtocol) ep.appProtocol = sp.appProtocol;
    out.push(ep);
  }
  return out;
}

export function portsKey(ports: readonly EndpointPort[]): string {
  return JSON.stringify([...ports].map((p) => [p.name ?? "", p.port ?? 0, p.protocol ?? "TCP", p.appProtocol ?? ""]).sort());
}

/** The endpoint of a pod (upstream podToEndpoint): conditions, node, zone, target reference. */
export function podToEndpoint(pod: Pod, node: Node | undefined, svc: Service, address: string): Endpoint {
  const ready = isPodReady(pod);
  const terminating = !!pod.metadata?.deletionTimestamp;
  const m = pod.metadata ?? {};
  const ep: Endpoint = {
    addresses: [address],
    conditions: {
      // ready is never true for a terminating pod; publishNotReadyAddresses makes every pod ready.
      ready: svc.spec?.publishNotReadyAddresses === true || (ready && !terminating),
      serving: ready,
      terminating,
    },
    targetRef: { kind: "Pod", namespace: m.namespace, name: m.name, uid: m.uid },
  };
  if (pod.spec?.nodeName) ep.nodeName = pod.spec.nodeName;
  const zone = node?.metadata?.labels?.[ZONE_LABEL];
  if (zone) ep.zone = zone;
  const hostname = pod.spec?.hostname;
  if (hostname && pod.spec?.subdomain === svc.metadata?.name && m.namespace === svc.metadata?.namespace) ep.hostname = hostname;
  return ep;
}

/** The desired endpoints of one address family, grouped by ports, in pod order. */
export function desiredGroups(svc: Service, pods: readonly Pod[], family: AddressType, nodeOf: (name: string) => Node | undefined): PortGroup[] {
  const groups = new Map<string, PortGroup>();
  const sorted = [...pods].sort((a, b) => (a.metadata?.name ?? "").localeCompare(b.metadata?.name ?? ""));
  for (const pod of sorted) {
    if (!shouldPodBeInEndpoints(pod, true)) continue;
    const address = podAddress(pod, family);
    if (!address) continue;
    const ports = endpointPorts(svc, pod);
    const key = portsKey(ports);
    let g = groups.get(key);
    if (!g) groups.set(key, (g = { key, ports, endpoints: [] }));
    g.endpoints.push(podToEndpoint(pod, pod.spec?.nodeName ? nodeOf(pod.spec.nodeName) : undefined, svc, address));
  }
  return [...groups.values()];
}

/** The identity of an endpoint within a slice (upstream's endpoint hash role): the pod, else the address. */
export function endpointKey(ep: Endpoint): string {
  return ep.targetRef?.uid ? `uid:${ep.targetRef.uid}` : `addr:${ep.addresses?.[0] ?? ""}`;
}
