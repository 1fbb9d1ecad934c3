/**
 * networking.k8s.io/v1 IPAddresses and ServiceCIDRs (the service IP allocator's objects, GA in
 * 1.33). An IPAddress is named by the address it records, in canonical form, and references its
 * parent (resource and name required, group a DNS subdomain, path-segment names), immutable. A
 * ServiceCIDR holds one CIDR or one of each family, canonical, immutable; its status is the
 * allocator's. Neither tracks a generation.
 */
import { fieldErrors, type FieldError } from "../../apimachinery/fielderrors.js";
import type { KubeObject } from "../../apimachinery/types.js";
import { isDNS1123Subdomain, nameIsDNSSubdomain } from "../../apimachinery/validation.js";
import { parseCIDR, validateCIDRStrict, validateIP } from "./cidrs.js";
import { defineStrategy } from "./define.js";
import { pathSegmentErrors } from "./identifiers.js";
import { validateImmutableField } from "./meta.js";
import { child, index } from "./path.js";
import { rec, list, str } from "./shape.js";
import type { ResourceStrategy } from "./strategy.js";

/** ValidateIPAddressName: the name is an IP in canonical form (no generateName prefixes). */
export function ipAddressName(name: string): string[] {
  return validateIP(name, "").map((e) => e.detail);
}

function validateParentRef(obj: KubeObject): FieldError[] {
  const ref = rec(rec(obj.spec)?.parentRef);
  if (!ref) return [fieldErrors.required("spec.parentRef", "")];
  const p = "spec.parentRef";
  const errs: FieldError[] = [];
  const group = str(ref.group) ?? "";
  if (group !== "") for (const msg of isDNS1123Subdomain(group)) errs.push(fieldErrors.invalid(child(p, "group"), group, msg));
  for (const k of ["resource", "name"]) {
    const v = str(ref[k]) ?? "";
    if (v === "") errs.push(fieldErrors.required(child(p, k), ""));
    else for (const msg of pathSegmentErrors(v)) errs.push(fieldErrors.invalid(child(p, k), v, msg));
  }
  const ns = str(ref.namespace) ?? "";
  if (ns !== "") for (const msg of pathSegmentErrors(ns)) errs.push(fieldErrors.invalid(child(p, "namespace"), ns, msg));
  return errs;
}

export const ipAddressStrategy: ResourceStrategy = defineStrategy({
  names: {
    group: "networking.k8s.io",
    version: "v1",
    kind: "IPAddress",
    resource: "ipaddresses",
    singular: "ipaddress",
    listKind: "IPAddressList",
    shortNames: ["ip"],
    categories: [],
    namespaced: false,
  },
  nameFn: (name) => ipAddressName(name),
  validateCreate: validateParentRef,
  validateUpdate: (obj, old) => validateImmutableField(rec(obj.spec)?.parentRef, rec(old.spec)?.parentRef, "spec.parentRef"),
});

export function validateServiceCIDRSpec(obj: KubeObject): FieldError[] {
  const cidrs = list<unknown>(rec(obj.spec)?.cidrs);
  const p = "spec.cidrs";
  if (cidrs.length === 0) return [fieldErrors.required(p, "at least one CIDR required")];
  if (cidrs.length > 2) return [fieldErrors.invalid(p, obj.spec, "may only hold up to 2 values")];
  if (cidrs.length === 2) {
    const a = parseCIDR(String(cidrs[0]));
    const b = parseCIDR(String(cidrs[1]));
    if (!a || !b || a.ip.family === b.ip.family) {
      return [fieldErrors.invalid(p, obj.spec, "may specify no more than one IP for each IP family, i.e 192.168.0.0/24 and 2001:db8::/64")];
    }
  }
  const errs: FieldError[] = [];
  cidrs.forEach((c, i) => errs.push(...validateCIDRStrict(typeof c === "string" ? c : "", index(p, i))));
  return errs;
}

export const serviceCIDRStrategy: ResourceStrategy = defineStrategy({
  names: {
    group: "networking.k8s.io",
    version: "v1",
    kind: "ServiceCIDR",
    resource: "servicecidrs",
    singular: "servicecidr",
    listKind: "ServiceCIDRList",
    shortNames: [],
    categories: [],
    namespaced: false,
  },
  subresources: { status: true },
  nameFn: nameIsDNSSubdomain,
  validateCreate: validateServiceCIDRSpec,
  validateUpdate: (obj, old) => validateImmutableField(rec(obj.spec)?.cidrs, rec(old.spec)?.cidrs, "spec.cidrs"),
});
