/**
 * What EndpointSlice mirroring wants for one Endpoints object (upstream
 * pkg/controller/endpointslicemirroring reconciler.go and utils.go): the subsets repacked
 * (RepackSubsets: subsets with the same ports merged, an address ready in one and not ready in
 * another counted ready), then per (ports, address type) one set of endpoints — at most
 * maxEndpointsPerSubset addresses of each subset, ready ones first, invalid IPs skipped — and the
 * slice that holds them: the Endpoints' labels and annotations (less
 * `endpoints.kubernetes.io/last-change-trigger-time` and kubectl's last-applied configuration),
 * `kubernetes.io/service-name` and `endpointslice.kubernetes.io/managed-by:
 * endpointslicemirroring-controller.k8s.io`, owned by the Endpoints.
 */
import { isIPv4, isIPv6 } from "node:net";
import type { EndpointAddress, EndpointPort as CoreEndpointPort, EndpointSubset, Endpoints } from "../../apimachinery/api/core/v1.js";
import type { Endpoint, EndpointPort, EndpointSlice } from "../../apimachinery/api/discovery/v1.js";

export const MIRRORING_CONTROLLER_NAME_VALUE = "endpointslicemirroring-controller.k8s.io";
export const MANAGED_BY_LABEL = "endpointslice.kubernetes.io/managed-by";
export const SERVICE_NAME_LABEL = "kubernetes.io/service-name";
export const SKIP_MIRROR_LABEL = "endpointslice.kubernetes.io/skip-mirror";
export const LEADER_ELECTION_ANNOTATION = "control-plane.alpha.kubernetes.io/leader";
export const LAST_CHANGE_TRIGGER_TIME_ANNOTATION = "endpoints.kubernetes.io/last-change-trigger-time";
export const LAST_APPLIED_CONFIG_ANNOTATION = "kubectl.kubernetes.io/last-applied-configuration";
/** --mirroring-max-endpoints-per-subset default. */
export const DEFAULT_MAX_ENDPOINTS_PER_SUBSET = 1000;

export type AddressType = "IPv4" | "IPv6";

/** One group of desired endpoints: the slice for these ports and this address type. */
export interface DesiredGroup {
  key: string;
  addressType: AddressType;
  ports: EndpointPort[];
  endpoints: Endpoint[];
}

export interface DesiredState {
  groups: Map<string, DesiredGroup>;
  invalidAddresses: number;
  /** Addresses left out: invalid ones and those beyond maxEndpointsPerSubset. */
  skippedAddresses: number;
}

const portKey = (p: CoreEndpointPort) => `${p.name ?? ""}/${p.port}/${p.protocol ?? "TCP"}/${p.appProtocol ?? ""}`;

/** RepackSubsets: one subset per distinct port set; an address ready anywhere is ready. */
export function repackSubsets(subsets: readonly EndpointSubset[] | undefined): EndpointSubset[] {
  const byPorts = new Map<string, { ports: CoreEndpointPort[]; ready: Map<string, EndpointAddress>; notReady: Map<string, EndpointAddress> }>();
  for (const s of subsets ?? []) {
    const ports = s.ports ?? [];
    const key = ports.map(portKey).sort().join(",");
    let g = byPorts.get(key);
    if (!g) byPorts.set(key, (g = { ports: [...ports].sort((a, b) => portKey(a).localeCompare(portKey(b))), ready: new Map(), notReady: new Map() }));
    for (const a of s.addresses ?? []) {
      g.ready.set(a.ip, a);
      g.notReady.delete(a.ip);
    }
    for (const a of s.notReadyAddresses ?? []) if (!g.ready.has(a.ip)) g.notReady.set(a.ip, a);
  }
  const byIP = (a: EndpointAddress, b: EndpointAddress) => (a.ip < b.ip ? -1 : a.ip > b.ip ? 1 : 0);
  return [...byPorts.values()].map((g) => ({
    ports: g.ports,
    addresses: [...g.ready.values()].sort(byIP),
    notReadyAddresses: [...g.notReady.values()].sort(byIP),
  }));
}

/** The address in canonical form and its family, or undefined for an invalid IP (ParseIPSloppy). */
export function canonicalIP(ip: string): { ip: string; addressType: AddressType } | undefined {
  if (isIPv4(ip)) return { ip, addressType: "IPv4" };
  const v4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(ip);
  if (v4 && v4.slice(1).every((o) => Number(o) <= 255)) return { ip: v4.slice(1).map(Number).join("."), addressType: "IPv4" };
  if (isIPv6(ip)) {
    const host = new URL(`http://[${ip}]/`).hostname.slice(1, -1);
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(ip);
    return mapped ? { ip: mapped[1], addressType: "IPv4" } : { ip: host, addressType: "IPv6" };
  }
  return undefined;
}

/** addressToEndpoint. */
export function addressToEndpoint(address: EndpointAddress, ready: boolean): { endpoint: Endpoint; addressType: AddressType } | undefined {
  const parsed = canonicalIP(address.ip);
  if (!parsed) return undefined;
  const endpoint: Endpoint = { addresses: [parsed.ip], conditions: { ready } };
  if (address.targetRef) endpoint.targetRef = address.targetRef;
  if (address.nodeName) endpoint.nodeName = address.nodeName;
  if (address.hostname) endpoint.hostname = address.hostname;
  return { endpoint, addressType: parsed.addressType };
}

/** epPortsToEpsPorts. */
export function slicePorts(ports: readonly CoreEndpointPort[]): EndpointPort[] {
  return ports.map((p) => ({ name: p.name ?? "", port: p.port, protocol: p.protocol ?? "TCP", ...(p.appProtocol !== undefined ? { appProtocol: p.appProtocol } : {}) }));
}

/** The desired endpoints of each (ports, address type) group. */
export function desiredState(endpoints: Endpoints, maxEndpointsPerSubset = DEFAULT_MAX_ENDPOINTS_PER_SUBSET): DesiredState {
  const groups = new Map<string, DesiredGroup>();
  let invalidAddresses = 0;
  let skippedAddresses = 0;
  for (const subset of repackSubsets(endpoints.subsets)) {
    const ports = slicePorts(subset.ports ?? []);
    const pk = (subset.ports ?? []).map(portKey).join(",");
    const total = (subset.addresses?.length ?? 0) + (subset.notReadyAddresses?.length ?? 0);
    let added = 0;
    const add = (addresses: readonly EndpointAddress[] | undefined, ready: boolean) => {
      for (const a of addresses ?? []) {
        if (added >= maxEndpointsPerSubset) break;
        const converted = addressToEndpoint(a, ready);
        if (!converted) {
          invalidAddresses++;
          continue;
        }
        const key = `${pk}|${converted.addressType}`;
        let g = groups.get(key);
        if (!g) groups.set(key, (g = { key, addressType: converted.addressType, ports, endpoints: [] }));
        g.endpoints.push(converted.endpoint);
        added++;
      }
    };
    add(subset.addresses, true);
    add(subset.notReadyAddresses, false);
    skippedAddresses += total - added;
  }
  return { groups, invalidAddresses, skippedAddresses };
}

/** The key of an existing slice's group (its ports, sorted as repacking sorts them, and address type). */
export function sliceGroupKey(slice: EndpointSlice): string {
  const ports = (slice.ports ?? []).map((p) => portKey({ name: p.name ?? "", port: p.port ?? 0, protocol: p.protocol ?? "TCP", appProtocol: p.appProtocol })).sort();
  return `${ports.join(",")}|${slice.addressType}`;
}

/** The labels a mirrored slice carries: the Endpoints' own, then service-name and managed-by. */
export function sliceLabels(endpoints: Endpoints): Record<string, string> {
  return { ...endpoints.metadata?.labels, [SERVICE_NAME_LABEL]: endpoints.metadata?.name ?? "", [MANAGED_BY_LABEL]: MIRRORING_CONTROLLER_NAME_VALUE };
}

/** The annotations a mirrored slice carries: the Endpoints' own, less the trigger time and kubectl's last-applied configuration. */
export function sliceAnnotations(endpoints: Endpoints): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(endpoints.metadata?.annotations ?? {})) {
    if (k !== LAST_CHANGE_TRIGGER_TIME_ANNOTATION && k !== LAST_APPLIED_CONFIG_ANNOTATION) out[k] = v;
  }
  return out;
}

/** getEndpointSlicePrefix: `<service>-` (the name alone when the dash would make it too long). */
export function endpointSlicePrefix(serviceName: string): string {
  return serviceName.length + 1 <= 253 - 5 ? `${serviceName}-` : serviceName;
}

/** newEndpointSlice: the slice for a group (name kept for an update, generateName for a create). */
export function newEndpointSlice(endpoints: Endpoints, group: DesiredGroup, sliceName: string | undefined): EndpointSlice {
  const meta = endpoints.metadata ?? {};
  return {
    apiVersion: "discovery.k8s.io/v1",
    kind: "EndpointSlice",
    metadata: {
      ...(sliceName ? { name: sliceName } : { generateName: endpointSlicePrefix(meta.name ?? "") }),
      namespace: meta.namespace,
      labels: sliceLabels(endpoints),
      annotations: sliceAnnotations(endpoints),
      ownerReferences: [{ apiVersion: "v1", kind: "Endpoints", name: meta.name ?? "", uid: meta.uid ?? "", controller: true, blockOwnerDeletion: true }],
    },
    addressType: group.addressType,
    ports: group.ports,
    endpoints: group.endpoints,
  };
}
