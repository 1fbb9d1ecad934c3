/**
 * discovery.k8s.io/v1 EndpointSlices: port defaults (name "", protocol TCP) and validation
 * (discovery/validation): addressType required and one of IPv4, IPv6, FQDN (immutable); at most
 * 1000 endpoints, each with 1 to 100 addresses valid for the address type (IPs not special),
 * a DNS-label hostname, a valid nodeName, at most 16 deprecated topology labels, zone and node
 * hints; at most 20000 ports with unique DNS-label names, protocol TCP/UDP/SCTP and a qualified
 * appProtocol. Created and written by the EndpointSlice controller; `kubectl describe svc`
 * lists them by the kubernetes.io/service-name label.
 */
import { fieldErrors, type FieldError } from "../../apimachinery/fielderrors.js";
import type { KubeObject } from "../../apimachinery/types.js";
import { isDNS1123Label, isDNS1123Subdomain, isQualifiedName, isValidIPv4, isValidIPv6, isValidLabelValue, nameIsDNSSubdomain } from "../../apimachinery/validation.js";
import { defineStrategy } from "./define.js";
import { validateNonSpecialIP } from "./endpoints.js";
import { validateImmutableField, validateLabels } from "./meta.js";
import { child, index } from "./path.js";
import { rec, list, str } from "./shape.js";
import type { ResourceStrategy } from "./strategy.js";

const addressTypes = ["FQDN", "IPv4", "IPv6"];
const protocols = ["SCTP", "TCP", "UDP"];
const maxTopologyLabels = 16;
const maxAddresses = 100;
const maxPorts = 20000;
const maxEndpoints = 1000;
const maxZoneHints = 8;
const maxNodeHints = 8;

export function defaultEndpointSlice(obj: KubeObject): void {
  for (const p of list<Record<string, unknown>>(obj.ports)) {
    if (!rec(p)) continue;
    p.name ??= "";
    p.protocol ??= "TCP";
  }
}

/** validation.IsFullyQualifiedDomainName. */
export function validateFQDN(name: string, field: string): FieldError[] {
  if (name === "") return [fieldErrors.required(field, "")];
  const n = name.endsWith(".") ? name.slice(0, -1) : name;
  const sub = isDNS1123Subdomain(n);
  if (sub.length > 0) return [fieldErrors.invalid(field, n, sub.join(","))];
  const labels = n.split(".");
  if (labels.length < 2) return [fieldErrors.invalid(field, n, "should be a domain with at least two segments separated by dots")];
  for (const l of labels) {
    const errs = isDNS1123Label(l);
    if (errs.length > 0) return [fieldErrors.invalid(field, l, errs.join(","))];
  }
  return [];
}

function validateHints(hints: Record<string, unknown>, field: string): FieldError[] {
  const errs: FieldError[] = [];
  for (const [k, max, check] of [
    ["forZones", maxZoneHints, (v: string) => isValidLabelValue(v)],
    ["forNodes", maxNodeHints, (v: string) => nameIsDNSSubdomain(v, false)],
  ] as const) {
    const items = list<Record<string, unknown>>(hints[k]);
    const p = child(field, k);
    if (items.length > max) {
      errs.push(fieldErrors.tooMany(p, items.length, max));
      continue;
    }
    const seen = new Set<string>();
    items.forEach((h, i) => {
      const np = child(index(p, i), "name");
      const name = str(rec(h)?.name) ?? "";
      if (seen.has(name)) errs.push(fieldErrors.duplicate(np, name));
      else seen.add(name);
      for (const msg of check(name)) errs.push(fieldErrors.invalid(np, name, msg));
    });
  }
  return errs;
}

function validateEndpoints(obj: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  const endpoints = list<Record<string, unknown>>(obj.endpoints);
  if (endpoints.length > maxEndpoints) return [fieldErrors.tooMany("endpoints", endpoints.length, maxEndpoints)];
  const addrType = obj.addressType;
  endpoints.forEach((raw, i) => {
    const ep = rec(raw) ?? {};
    const p = index("endpoints", i);
    const ap = child(p, "addresses");
    const addresses = list<unknown>(ep.addresses);
    if (addresses.length === 0) errs.push(fieldErrors.required(ap, "must contain at least 1 address"));
    else if (addresses.length > maxAddresses) errs.push(fieldErrors.tooMany(ap, addresses.length, maxAddresses));
    addresses.forEach((a, j) => {
      const path = index(ap, j);
      const s = typeof a === "string" ? a : "";
      switch (addrType) {
        case "IPv4": {
          const e = isValidIPv4(s);
          if (e.length > 0) errs.push(...e.map((m) => fieldErrors.invalid(path, s, m)));
          else errs.push(...validateNonSpecialIP(s, path));
          break;
        }
        case "IPv6": {
          const e = isValidIPv6(s);
          if (e.length > 0) errs.push(...e.map((m) => fieldErrors.invalid(path, s, m)));
          else errs.push(...validateNonSpecialIP(s, path));
          break;
        }
        case "FQDN":
          errs.push(...validateFQDN(s, path));
          break;
      }
    });
    const nodeName = ep.nodeName;
    if (typeof nodeName === "string") for (const msg of nameIsDNSSubdomain(nodeName, false)) errs.push(fieldErrors.invalid(child(p, "nodeName"), nodeName, msg));
    const topo = rec(ep.deprecatedTopology);
    const tp = child(p, "deprecatedTopology");
    if (topo && Object.keys(topo).length > maxTopologyLabels) errs.push(fieldErrors.tooMany(tp, Object.keys(topo).length, maxTopologyLabels));
    errs.push(...validateLabels(topo as Record<string, string> | undefined, tp));
    if (typeof ep.zone === "string") for (const msg of isValidLabelValue(ep.zone)) errs.push(fieldErrors.invalid(child(p, "zone"), ep.zone, msg));
    if (typeof ep.hostname === "string") for (const msg of isDNS1123Label(ep.hostname)) errs.push(fieldErrors.invalid(child(p, "hostname"), ep.hostname, msg));
    const hints = rec(ep.hints);
    if (hints) errs.push(...validateHints(hints, child(p, "hints")));
  });
  return errs;
}

function validatePorts(obj: KubeObject): FieldError[] {
  const ports = list<Record<string, unknown>>(obj.ports);
  if (ports.length > maxPorts) return [fieldErrors.tooMany("ports", ports.length, maxPorts)];
  const errs: FieldError[] = [];
  const names = new Set<string>();
  ports.forEach((raw, i) => {
    const port = rec(raw) ?? {};
    const p = index("ports", i);
    const name = str(port.name) ?? "";
    if (name.length > 0) for (const msg of isDNS1123Label(name)) errs.push(fieldErrors.invalid(child(p, "name"), name, msg));
    if (names.has(name)) errs.push(fieldErrors.duplicate(child(p, "name"), name));
    else names.add(name);
    if (port.protocol === undefined || port.protocol === null) errs.push(fieldErrors.required(child(p, "protocol"), ""));
    else if (typeof port.protocol !== "string" || !protocols.includes(port.protocol)) errs.push(fieldErrors.notSupported(child(p, "protocol"), port.protocol, protocols));
    if (typeof port.appProtocol === "string") for (const msg of isQualifiedName(port.appProtocol)) errs.push(fieldErrors.invalid(child(p, "appProtocol"), port.appProtocol, msg));
  });
  return errs;
}

/** ValidateEndpointSlice without ObjectMeta. */
export function validateEndpointSlice(obj: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  const t = obj.addressType;
  if (t === undefined || t === null || t === "") errs.push(fieldErrors.required("addressType", ""));
  else if (typeof t !== "string" || !addressTypes.includes(t)) errs.push(fieldErrors.notSupported("addressType", t, addressTypes));
  errs.push(...validateEndpoints(obj));
  errs.push(...validatePorts(obj));
  return errs;
}

export const endpointSliceStrategy: ResourceStrategy = defineStrategy({
  names: {
    group: "discovery.k8s.io",
    version: "v1",
    kind: "EndpointSlice",
    resource: "endpointslices",
    singular: "endpointslice",
    listKind: "EndpointSliceList",
    shortNames: [],
    categories: [],
    namespaced: true,
  },
  nameFn: nameIsDNSSubdomain,
  tracksGeneration: true,
  // Everything but metadata counts, and the labels (the strategy compares them too).
  generationInputs: (o) => ({ addressType: o.addressType, endpoints: o.endpoints, ports: o.ports, labels: o.metadata?.labels }),
  defaults: defaultEndpointSlice,
  validateSpec: validateEndpointSlice,
  validateUpdate: (obj, old) => validateImmutableField(obj.addressType, old.addressType, "addressType"),
});
