/**
 * networking.k8s.io/v1 NetworkPolicies: policyTypes default to [Ingress] (plus Egress when egress
 * rules are given), port protocols to TCP; validation (ValidateNetworkPolicySpec): label
 * selectors, ports (protocol TCP/UDP/SCTP, a port number or name, endPort only after a numeric
 * port and not below it), peers (exactly one kind, ipBlock alone, ipBlock cidr and except a strict
 * subset of it), at most two policyTypes among Ingress and Egress. Generation 1 on create,
 * bumped on spec changes. No status (removed in 1.28).
 */
import { fieldErrors, type FieldError } from "../../apimachinery/fielderrors.js";
import type { KubeObject } from "../../apimachinery/types.js";
import { isValidPortName, isValidPortNum, nameIsDNSSubdomain } from "../../apimachinery/validation.js";
import { cidrContains, parseCIDR, validateCIDRLegacy } from "./cidrs.js";
import { defineStrategy } from "./define.js";
import { validateLabelSelector } from "./meta.js";
import { child, index } from "./path.js";
import { rec, ensureRecord, list, objOf } from "./shape.js";
import type { ResourceStrategy } from "./strategy.js";

type Json = Record<string, unknown>;

export function defaultNetworkPolicy(obj: KubeObject): void {
  const spec = ensureRecord(obj, "spec");
  if (!spec) return;
  for (const dir of ["ingress", "egress"]) {
    for (const rule of list<unknown>(spec[dir])) for (const port of list<Json>(objOf(rule).ports)) if (rec(port)) port.protocol ??= "TCP";
  }
  if (list(spec.policyTypes).length === 0 && !(spec.policyTypes !== undefined && spec.policyTypes !== null && !Array.isArray(spec.policyTypes))) {
    spec.policyTypes = list(spec.egress).length > 0 ? ["Ingress", "Egress"] : ["Ingress"];
  }
}

function validatePort(port: Json, field: string): FieldError[] {
  const errs: FieldError[] = [];
  const proto = port.protocol;
  if (proto !== undefined && proto !== null && proto !== "TCP" && proto !== "UDP" && proto !== "SCTP") {
    errs.push(fieldErrors.notSupported(child(field, "protocol"), proto, ["TCP", "UDP", "SCTP"]));
  }
  const endPort = port.endPort;
  const hasEnd = endPort !== undefined && endPort !== null;
  if (port.port !== undefined && port.port !== null) {
    if (typeof port.port === "number") {
      for (const msg of isValidPortNum(port.port)) errs.push(fieldErrors.invalid(child(field, "port"), port.port, msg));
      if (hasEnd) {
        const e = typeof endPort === "number" ? endPort : 0;
        if (e < port.port) errs.push(fieldErrors.invalid(child(field, "endPort"), port.port, "must be greater than or equal to `port`"));
        for (const msg of isValidPortNum(e)) errs.push(fieldErrors.invalid(child(field, "endPort"), e, msg));
      }
    } else {
      if (hasEnd) errs.push(fieldErrors.invalid(child(field, "endPort"), endPort, "may not be specified when `port` is non-numeric"));
      const name = String(port.port);
      for (const msg of isValidPortName(name)) errs.push(fieldErrors.invalid(child(field, "port"), name, msg));
    }
  } else if (hasEnd) {
    errs.push(fieldErrors.invalid(child(field, "endPort"), endPort, "may not be specified when `port` is not specified"));
  }
  return errs;
}

function validateIPBlock(block: Json, field: string): FieldError[] {
  const cidr = typeof block.cidr === "string" ? block.cidr : "";
  if (cidr === "") return [fieldErrors.required(child(field, "cidr"), "")];
  const errs = validateCIDRLegacy(cidr, child(field, "cidr"));
  const outer = parseCIDR(cidr);
  if (!outer) return errs;
  list<unknown>(block.except).forEach((e, i) => {
    const p = index(child(field, "except"), i);
    const s = typeof e === "string" ? e : "";
    const bad = validateCIDRLegacy(s, p);
    errs.push(...bad);
    const inner = parseCIDR(s);
    if (!inner) return;
    if (!cidrContains(outer, inner.ip) || outer.prefix >= inner.prefix) errs.push(fieldErrors.invalid(p, s, "must be a strict subset of `cidr`"));
  });
  return errs;
}

function validatePeer(peer: Json, field: string): FieldError[] {
  const errs: FieldError[] = [];
  let n = 0;
  for (const k of ["podSelector", "namespaceSelector"]) {
    if (peer[k] === undefined || peer[k] === null) continue;
    n++;
    errs.push(...validateLabelSelector(peer[k] as never, child(field, k)));
  }
  const hasBlock = peer.ipBlock !== undefined && peer.ipBlock !== null;
  if (hasBlock) {
    n++;
    errs.push(...validateIPBlock(objOf(peer.ipBlock), child(field, "ipBlock")));
  }
  if (n === 0) errs.push(fieldErrors.required(field, "must specify a peer"));
  else if (n > 1 && hasBlock) errs.push(fieldErrors.forbidden(field, "may not specify both ipBlock and another peer"));
  return errs;
}

export function validateNetworkPolicySpec(obj: KubeObject): FieldError[] {
  const spec = objOf(obj.spec);
  const errs = validateLabelSelector(objOf(spec.podSelector) as never, "spec.podSelector");
  for (const [dir, peers] of [
    ["ingress", "from"],
    ["egress", "to"],
  ] as const) {
    list<unknown>(spec[dir]).map(objOf).forEach((rule, i) => {
      const p = index(child("spec", dir), i);
      list<unknown>(rule.ports).forEach((port, j) => errs.push(...validatePort(objOf(port), index(child(p, "ports"), j))));
      list<unknown>(rule[peers]).forEach((peer, j) => errs.push(...validatePeer(objOf(peer), index(child(p, peers), j))));
    });
  }
  const types = list<unknown>(spec.policyTypes);
  if (types.length > 2) {
    errs.push(fieldErrors.invalid("spec.policyTypes", types, "may not specify more than two policyTypes"));
    return errs;
  }
  types.forEach((t, i) => {
    if (t !== "Ingress" && t !== "Egress") errs.push(fieldErrors.notSupported(index("spec.policyTypes", i), t, ["Ingress", "Egress"]));
  });
  return errs;
}

export const networkPolicyStrategy: ResourceStrategy = defineStrategy({
  names: {
    group: "networking.k8s.io",
    version: "v1",
    kind: "NetworkPolicy",
    resource: "networkpolicies",
    singular: "networkpolicy",
    listKind: "NetworkPolicyList",
    shortNames: ["netpol"],
    categories: [],
    namespaced: true,
  },
  nameFn: nameIsDNSSubdomain,
  tracksGeneration: true,
  defaults: defaultNetworkPolicy,
  validateSpec: validateNetworkPolicySpec,
});
