/**
 * core/v1 Endpoints: subsets need addresses or notReadyAddresses; addresses are valid,
 * non-special IPs with DNS-label hostnames and DNS-subdomain node names; ports are valid, named
 * when there are several, protocol defaults to TCP. Endpoints may be created by an update
 * (AllowCreateOnUpdate), as upstream allows for them.
 */
import type { EndpointAddress, Endpoints } from "../../apimachinery/api/core/v1.js";
import { fieldErrors, type FieldError } from "../../apimachinery/fielderrors.js";
import type { KubeObject } from "../../apimachinery/types.js";
import { isQualifiedName, isValidIP, isValidPortNum, nameIsDNSSubdomain, parseIPSloppy } from "../../apimachinery/validation.js";
import { defineStrategy } from "./define.js";
import { child, index } from "./path.js";
import { supportedPortProtocols, validateDNS1123Label } from "./podvalidation.js";
import type { ResourceStrategy } from "./strategy.js";

const asEndpoints = (o: KubeObject) => o as unknown as Endpoints;

export function defaultEndpoints(obj: KubeObject): void {
  for (const ss of asEndpoints(obj).subsets ?? []) for (const p of ss.ports ?? []) p.protocol ||= "TCP";
}

/** ValidateNonSpecialIP: no unspecified, loopback, link-local or link-local multicast addresses. */
export function validateNonSpecialIP(ip: string, field: string): FieldError[] {
  const b = parseIPSloppy(ip);
  if (!b) return [fieldErrors.invalid(field, ip, "must be a valid IP address")];
  const errs: FieldError[] = [];
  const v4 = b.slice(0, 10).every((x) => x === 0) && b[10] === 0xff && b[11] === 0xff;
  if (v4) {
    if (b[12] === 0 && b[13] === 0 && b[14] === 0 && b[15] === 0) errs.push(fieldErrors.invalid(field, ip, `may not be unspecified (${ip})`));
    if (b[12] === 127) errs.push(fieldErrors.invalid(field, ip, "may not be in the loopback range (127.0.0.0/8, ::1/128)"));
    if (b[12] === 169 && b[13] === 254) errs.push(fieldErrors.invalid(field, ip, "may not be in the link-local range (169.254.0.0/16, fe80::/10)"));
    if (b[12] === 224 && b[13] === 0 && b[14] === 0) {
      errs.push(fieldErrors.invalid(field, ip, "may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)"));
    }
  } else {
    if (b.every((x) => x === 0)) errs.push(fieldErrors.invalid(field, ip, `may not be unspecified (${ip})`));
    if (b.slice(0, 15).every((x) => x === 0) && b[15] === 1) {
      errs.push(fieldErrors.invalid(field, ip, "may not be in the loopback range (127.0.0.0/8, ::1/128)"));
    }
    if (b[0] === 0xfe && (b[1] & 0xc0) === 0x80) errs.push(fieldErrors.invalid(field, ip, "may not be in the link-local range (169.254.0.0/16, fe80::/10)"));
    if (b[0] === 0xff && (b[1] & 0x0f) === 0x02) {
      errs.push(fieldErrors.invalid(field, ip, "may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)"));
    }
  }
  return errs;
}

function validateAddress(a: EndpointAddress, field: string): FieldError[] {
  const errs: FieldError[] = [];
  for (const msg of isValidIP(a.ip ?? "")) errs.push(fieldErrors.invalid(child(field, "ip"), a.ip ?? "", msg));
  if (a.hostname) errs.push(...validateDNS1123Label(a.hostname, child(field, "hostname")));
  if (a.nodeName != null) {
    for (const msg of nameIsDNSSubdomain(a.nodeName, false)) errs.push(fieldErrors.invalid(child(field, "nodeName"), a.nodeName, msg));
  }
  errs.push(...validateNonSpecialIP(a.ip ?? "", child(field, "ip")));
  return errs;
}

export function validateEndpointSubsets(obj: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  (asEndpoints(obj).subsets ?? []).forEach((ss, i) => {
    const p = index("subsets", i);
    if ((ss.addresses ?? []).length === 0 && (ss.notReadyAddresses ?? []).length === 0) {
      errs.push(fieldErrors.required(p, "must specify `addresses` or `notReadyAddresses`"));
    }
    (ss.addresses ?? []).forEach((a, j) => errs.push(...validateAddress(a, index(child(p, "addresses"), j))));
    (ss.notReadyAddresses ?? []).forEach((a, j) => errs.push(...validateAddress(a, index(child(p, "notReadyAddresses"), j))));
    const ports = ss.ports ?? [];
    ports.forEach((port, j) => {
      const pp = index(child(p, "ports"), j);
      if (ports.length > 1 && !port.name) errs.push(fieldErrors.required(child(pp, "name"), ""));
      else if (port.name) errs.push(...validateDNS1123Label(port.name, child(pp, "name")));
      for (const msg of isValidPortNum(port.port ?? 0)) errs.push(fieldErrors.invalid(child(pp, "port"), port.port ?? 0, msg));
      if (!port.protocol) errs.push(fieldErrors.required(child(pp, "protocol"), ""));
      else if (!supportedPortProtocols.includes(port.protocol)) {
        errs.push(fieldErrors.notSupported(child(pp, "protocol"), port.protocol, supportedPortProtocols));
      }
      if (port.appProtocol != null) {
        for (const msg of isQualifiedName(port.appProtocol)) errs.push(fieldErrors.invalid(child(pp, "appProtocol"), port.appProtocol, msg));
      }
    });
  });
  return errs;
}

export const endpointsStrategy: ResourceStrategy = defineStrategy({
  names: {
    group: "",
    version: "v1",
    kind: "Endpoints",
    resource: "endpoints",
    singular: "endpoints",
    listKind: "EndpointsList",
    shortNames: ["ep"],
    categories: [],
    namespaced: true,
  },
  nameFn: nameIsDNSSubdomain,
  defaults: defaultEndpoints,
  validateSpec: validateEndpointSubsets,
  allowCreateOnUpdate: true,
});
