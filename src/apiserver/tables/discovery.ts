/** EndpointSlices: ADDRESSTYPE, PORTS and ENDPOINTS (at most three of each, then "+ N more..."; "<unset>" when empty). */
import type { EndpointSlice } from "../../apimachinery/api/discovery/v1.js";
import type { KubeObject } from "../../apimachinery/types.js";
import { ageColumn, col, nameColumn } from "./columns.js";
import { translateTimestampSince } from "./duration.js";
import type { PrintContext, PrintedRow, Printer } from "./types.js";

const DISCOVERY = "io.k8s.api.discovery.v1";

/** listWithMoreString. */
function listWithMore(items: string[], count: number, max: number): string {
  const shown = items.slice(0, max).join(",");
  if (count > max) return `${shown} + ${count - max} more...`;
  return shown === "" ? "<unset>" : shown;
}

export function formatDiscoveryPorts(ports: EndpointSlice["ports"]): string {
  const list = (ports ?? []).map((p) => (p.port != null ? String(p.port) : p.name != null ? p.name : "*"));
  return listWithMore(list, list.length, 3);
}

export function formatDiscoveryEndpoints(endpoints: EndpointSlice["endpoints"]): string {
  const list = (endpoints ?? []).flatMap((e) => e.addresses ?? []);
  return listWithMore(list, list.length, 3);
}

export function printEndpointSlice(obj: KubeObject, ctx: PrintContext): PrintedRow {
  const es = obj as unknown as EndpointSlice;
  return {
    cells: [
      es.metadata?.name ?? "",
      es.addressType ?? "",
      formatDiscoveryPorts(es.ports),
      formatDiscoveryEndpoints(es.endpoints),
      translateTimestampSince(es.metadata?.creationTimestamp, ctx.now),
    ],
  };
}

export const endpointSlicePrinter = (): Printer => ({
  columns: [
    nameColumn(),
    col("AddressType", "string", `${DISCOVERY}.EndpointSlice`, "addressType"),
    col("Ports", "string", `${DISCOVERY}.EndpointSlice`, "ports"),
    col("Endpoints", "string", `${DISCOVERY}.EndpointSlice`, "endpoints"),
    ageColumn(),
  ],
  print: printEndpointSlice,
});
