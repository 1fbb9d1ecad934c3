/** Services and Endpoints. */
import type { Endpoints, LoadBalancerStatus, Service, ServicePort } from "../../apimachinery/api/core/v1.js";
import type { KubeObject } from "../../apimachinery/types.js";
import { CORE, ageColumn, col, nameColumn } from "./columns.js";
import { translateTimestampSince } from "./duration.js";
import { formatLabels, joinHostPort } from "./format.js";
import type { PrintContext, PrintedRow, Printer } from "./types.js";

/** Narrow output clips load-balancer addresses to this many characters. */
const LOAD_BALANCER_WIDTH = 16;

/** The load balancer's ingress IPs (or hostnames), sorted and de-duplicated. */
export function loadBalancerStatusString(s: LoadBalancerStatus | undefined, wide: boolean): string {
  const result = new Set<string>();
  for (const ing of s?.ingress ?? []) {
    if (ing.ip) result.add(ing.ip);
    else if (ing.hostname) result.add(ing.hostname);
  }
  let r = [...result].sort().join(",");
  if (!wide && r.length > LOAD_BALANCER_WIDTH) r = `${r.slice(0, LOAD_BALANCER_WIDTH - 3)}...`;
  return r;
}

export function serviceExternalIP(svc: Service, wide: boolean): string {
  const externalIPs = svc.spec?.externalIPs ?? [];
  switch (svc.spec?.type) {
    case "ClusterIP":
    case "NodePort":
      return externalIPs.length > 0 ? externalIPs.join(",") : "<none>";
    case "LoadBalancer": {
      const lbIPs = loadBalancerStatusString(svc.status?.loadBalancer, wide);
      if (externalIPs.length > 0) return [...(lbIPs ? lbIPs.split(",") : []), ...externalIPs].join(",");
      return lbIPs || "<pending>";
    }
    case "ExternalName":
      return svc.spec.externalName ?? "";
    default:
      return "<unknown>";
  }
}

export function makePortString(ports: ServicePort[] | undefined): string {
  return (ports ?? [])
    .map((p) => (p.nodePort ? `${p.port}:${p.nodePort}/${p.protocol ?? ""}` : `${p.port}/${p.protocol ?? ""}`))
    .join(",");
}

export function printService(obj: KubeObject, ctx: PrintContext): PrintedRow {
  const svc = obj as unknown as Service;
  const clusterIP = svc.spec?.clusterIPs?.[0] || svc.spec?.clusterIP || "<none>";
  return {
    cells: [
      svc.metadata?.name ?? "",
      svc.spec?.type ?? "",
      clusterIP,
      serviceExternalIP(svc, ctx.wide),
      makePortString(svc.spec?.ports) || "<none>",
      translateTimestampSince(svc.metadata?.creationTimestamp, ctx.now),
      formatLabels(svc.spec?.selector),
    ],
  };
}

export const servicePrinter = (): Printer => ({
  columns: [
    nameColumn(),
    col("Type", "string", `${CORE}.ServiceSpec`, "type"),
    col("Cluster-IP", "string", `${CORE}.ServiceSpec`, "clusterIP"),
    col("External-IP", "string", `${CORE}.ServiceSpec`, "externalIPs"),
    col("Port(s)", "string", `${CORE}.ServiceSpec`, "ports"),
    ageColumn(),
    col("Selector", "string", `${CORE}.ServiceSpec`, "selector", 1),
  ],
  print: printService,
});

/** "ip:port,..." for at most three endpoints, then " + N more..."; "<none>" without subsets. */
export function formatEndpoints(endpoints: Endpoints): string {
  const subsets = endpoints.subsets ?? [];
  if (subsets.length === 0) return "<none>";
  const list: string[] = [];
  const max = 3;
  let more = false;
  let count = 0;
  for (const ss of subsets) {
    const addresses = ss.addresses ?? [];
    if ((ss.ports ?? []).length === 0) {
      // Headless services may have no ports.
      for (const addr of addresses) {
        if (list.length === max) more = true;
        if (!more) list.push(addr.ip);
        count++;
      }
    } else {
      for (const port of ss.ports ?? []) {
        for (const addr of addresses) {
          if (list.length === max) more = true;
          if (!more) list.push(joinHostPort(addr.ip, port.port));
          count++;
        }
      }
    }
  }
  const ret = list.join(",");
  return more ? `${ret} + ${count - max} more...` : ret;
}

export function printEndpoints(obj: KubeObject, ctx: PrintContext): PrintedRow {
  const ep = obj as unknown as Endpoints;
  return { cells: [ep.metadata?.name ?? "", formatEndpoints(ep), translateTimestampSince(ep.metadata?.creationTimestamp, ctx.now)] };
}

export const endpointsPrinter = (): Printer => ({
  columns: [nameColumn(), col("Endpoints", "string", `${CORE}.Endpoints`, "subsets"), ageColumn()],
  print: printEndpoints,
});
