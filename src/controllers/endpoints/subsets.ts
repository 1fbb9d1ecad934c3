/**
 * From a Service and its selected Pods to Endpoints subsets (upstream
 * pkg/controller/endpoint/endpoints_controller.go syncService's middle part, with
 * pkg/api/v1/endpoints RepackSubsets and pkg/api/v1/pod FindPort / IsPodReady).
 */
import type { EndpointAddress, EndpointPort, EndpointSubset, Pod, Service, ServicePort } from "../../apimachinery/api/core/v1.js";

/** Label set on the Endpoints of a headless service (v1.IsHeadlessService). */
export const HEADLESS_SERVICE_LABEL = "service.kubernetes.io/headless";
/** Annotation upstream sets from its trigger-time tracker; kubeloop does not track it and drops stale values. */
export const LAST_CHANGE_TRIGGER_TIME_ANNOTATION = "endpoints.kubernetes.io/last-change-trigger-time";
/** Endpoints carrying this annotation are leader-election records, not service endpoints. */
export const LEADER_ANNOTATION = "control-plane.alpha.kubernetes.io/leader";

export function isPodReady(pod: Pod): boolean {
  return (pod.status?.conditions ?? []).some((c) => c.type === "Ready" && c.status === "True");
}

function isPodTerminal(pod: Pod): boolean {
  const phase = pod.status?.phase;
  return phase === "Failed" || phase === "Succeeded";
}

/** Whether a Service has a cluster IP (is not headless). */
export function isServiceIPSet(svc: Service): boolean {
  const ip = svc.spec?.clusterIP ?? "";
  return ip !== "" && ip !== "None";
}

/** Pods without an IP, terminal pods and (unless terminating pods are wanted) deleting pods are left out. */
export function shouldPodBeInEndpoints(pod: Pod, includeTerminating: boolean): boolean {
  if (!pod.status?.podIP && (pod.status?.podIPs ?? []).length === 0) return false;
  if (!includeTerminating && pod.metadata?.deletionTimestamp) return false;
  return !isPodTerminal(pod);
}

export class PortNotFoundError extends Error {
  constructor(pod: Pod) {
    super(`no suitable port for manifest: ${pod.metadata?.uid ?? ""}`);
    this.name = "PortNotFoundError";
  }
}

/** The container port a service port targets: a number as is, a name looked up among the containers' ports. */
export function findPort(pod: Pod, svcPort: ServicePort): number {
  const target = svcPort.targetPort ?? svcPort.port;
  if (typeof target === "number") return target;
  if (/^\d+$/.test(target)) return Number(target);
  const protocol = svcPort.protocol ?? "TCP";
  for (const c of pod.spec?.containers ?? []) {
    for (const p of c.ports ?? []) {
      if (p.name === target && (p.protocol ?? "TCP") === protocol) return p.containerPort;
    }
  }
  throw new PortNotFoundError(pod);
}

function isIPv6(ip: string): boolean {
  return ip.includes(":");
}

/** The Service's address family: its first ipFamilies entry, else its cluster IP's family, else IPv4. */
function serviceFamily(svc: Service): "IPv4" | "IPv6" {
  const f = svc.spec?.ipFamilies?.[0];
  if (f === "IPv4" || f === "IPv6") return f;
  const ip = svc.spec?.clusterIP ?? "";
  return isServiceIPSet(svc) && isIPv6(ip) ? "IPv6" : "IPv4";
}

/** The pod address of the service's family, if the pod has one. */
function podIPForService(svc: Service, pod: Pod): string | undefined {
  const ips = (pod.status?.podIPs ?? []).map((p) => p.ip).filter((ip): ip is string => !!ip);
  if (ips.length === 0 && pod.status?.podIP) ips.push(pod.status.podIP);
  const want6 = serviceFamily(svc) === "IPv6";
  return ips.find((ip) => isIPv6(ip) === want6);
}

function podToEndpointAddress(svc: Service, pod: Pod, ip: string): EndpointAddress {
  const m = pod.metadata ?? {};
  const addr: EndpointAddress = {
    ip,
    targetRef: { kind: "Pod", namespace: m.namespace, name: m.name, uid: m.uid },
  };
  if (pod.spec?.nodeName) addr.nodeName = pod.spec.nodeName;
  const hostname = pod.spec?.hostname;
  if (hostname && pod.spec?.subdomain === svc.metadata?.name && svc.metadata?.namespace === m.namespace) addr.hostname = hostname;
  return addr;
}

export interface SubsetsResult {
  subsets: EndpointSubset[];
  ready: number;
  notReady: number;
  /** Pods skipped because a named target port was not found on them. */
  portErrors: number;
}

/** The subsets of a Service with a selector, from the pods it selects. */
export function computeSubsets(svc: Service, pods: readonly Pod[]): SubsetsResult {
  const tolerateUnready = svc.spec?.publishNotReadyAddresses === true;
  const raw: EndpointSubset[] = [];
  let ready = 0;
  let notReady = 0;
  let portErrors = 0;
  const add = (pod: Pod, addr: EndpointAddress, ports: EndpointPort[] | undefined) => {
    if (tolerateUnready || isPodReady(pod)) {
      raw.push({ addresses: [addr], ...(ports ? { ports } : {}) });
      ready++;
    } else {
      raw.push({ notReadyAddresses: [addr], ...(ports ? { ports } : {}) });
      notReady++;
    }
  };
  for (const pod of pods) {
    if (!shouldPodBeInEndpoints(pod, tolerateUnready)) continue;
    const ip = podIPForService(svc, pod);
    if (!ip) continue;
    const addr = podToEndpointAddress(svc, pod, ip);
    const svcPorts = svc.spec?.ports ?? [];
    if (svcPorts.length === 0) {
      // Only a headless service may have endpoints without ports.
      if (svc.spec?.clusterIP === "None") add(pod, addr, undefined);
      continue;
    }
    for (const sp of svcPorts) {
      let port: number;
      try {
        port = findPort(pod, sp);
      } catch {
        portErrors++;
        continue;
      }
      const ep: EndpointPort = { port, protocol: sp.protocol ?? "TCP" };
      if (sp.name) ep.name = sp.name;
      if (sp.appProtocol) ep.appProtocol = sp.appProtocol;
      add(pod, addr, [ep]);
    }
  }
  return { subsets: repackSubsets(raw), ready, notReady, portErrors };
}

function addressKey(a: EndpointAddress): string {
  return `${a.ip}\x00${a.targetRef?.uid ?? ""}`;
}

function portKey(p: EndpointPort): string {
  return JSON.stringify([p.name ?? "", p.port, p.protocol ?? "", p.appProtocol ?? ""]);
}

function compareAddresses(a: EndpointAddress, b: EndpointAddress): number {
  if (a.ip !== b.ip) return a.ip < b.ip ? -1 : 1;
  const ua = a.targetRef?.uid ?? "";
  const ub = b.targetRef?.uid ?? "";
  return ua < ub ? -1 : ua > ub ? 1 : 0;
}

function cmp(a: string | number, b: string | number): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function comparePorts(a: EndpointPort, b: EndpointPort): number {
  return cmp(a.name ?? "", b.name ?? "") || cmp(a.port, b.port) || cmp(a.protocol ?? "", b.protocol ?? "") || cmp(a.appProtocol ?? "", b.appProtocol ?? "");
}

function compareSubsets(a: EndpointSubset, b: EndpointSubset): number {
  const fa = a.addresses?.[0] ?? a.notReadyAddresses?.[0];
  const fb = b.addresses?.[0] ?? b.notReadyAddresses?.[0];
  if (fa && fb) {
    const c = compareAddresses(fa, fb);
    if (c !== 0) return c;
  } else if (fa || fb) {
    return fa ? 1 : -1;
  }
  const pa = a.ports ?? [];
  const pb = b.ports ?? [];
  for (let i = 0; i < Math.min(pa.length, pb.length); i++) {
    const c = comparePorts(pa[i], pb[i]);
    if (c !== 0) return c;
  }
  return pa.length - pb.length;
}

/**
 * Regroups subsets so that each subset holds the addresses that offer exactly the same ports
 * (RepackSubsets). An address listed both ready and not ready for a port counts as not ready.
 * Addresses are sorted by IP then target UID, ports by name/port/protocol, subsets by their first
 * address. (Upstream sorts ports and subsets by a hash of their Go representation; the order here
 * differs but is just as stable.)
 */
export function repackSubsets(subsets: readonly EndpointSubset[]): EndpointSubset[] {
  const allAddrs = new Map<string, EndpointAddress>();
  // port key → (address key → ready)
  const byPort = new Map<string, { port: EndpointPort | undefined; addrs: Map<string, boolean> }>();
  const mapAddr = (addr: EndpointAddress, port: EndpointPort | undefined, ready: boolean) => {
    const ak = addressKey(addr);
    if (!allAddrs.has(ak)) allAddrs.set(ak, addr);
    const pk = port ? portKey(port) : "<none>";
    let entry = byPort.get(pk);
    if (!entry) {
      entry = { port, addrs: new Map() };
      byPort.set(pk, entry);
    }
    const was = entry.addrs.get(ak);
    // Not ready wins over ready.
    if (was === undefined || was) entry.addrs.set(ak, ready);
  };
  for (const s of subsets) {
    const ports: Array<EndpointPort | undefined> = s.ports && s.ports.length > 0 ? s.ports : [undefined];
    for (const p of ports) {
      for (const a of s.addresses ?? []) mapAddr(a, p, true);
      for (const a of s.notReadyAddresses ?? []) mapAddr(a, p, false);
    }
  }
  // Group ports by identical address sets.
  const groups = new Map<string, { addrs: Map<string, boolean>; ports: EndpointPort[] }>();
  for (const { port, addrs } of byPort.values()) {
    const key = JSON.stringify([...addrs.entries()].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)));
    let g = groups.get(key);
    if (!g) {
      g = { addrs, ports: [] };
      groups.set(key, g);
    }
    if (port) g.ports.push(port);
  }
  const out: EndpointSubset[] = [];
  for (const g of groups.values()) {
    const addresses: EndpointAddress[] = [];
    const notReadyAddresses: EndpointAddress[] = [];
    for (const [ak, ready] of g.addrs) (ready ? addresses : notReadyAddresses).push(allAddrs.get(ak)!);
    addresses.sort(compareAddresses);
    notReadyAddresses.sort(compareAddresses);
    const subset: EndpointSubset = {};
    if (addresses.length) subset.addresses = addresses;
    if (notReadyAddresses.length) subset.notReadyAddresses = notReadyAddresses;
    if (g.ports.length) subset.ports = [...g.ports].sort(comparePorts);
    out.push(subset);
  }
  return out.sort(compareSubsets);
}
