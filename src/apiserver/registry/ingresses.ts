/**
 * networking.k8s.io/v1 Ingresses (networking/validation): either a default backend or rules;
 * rule hosts are DNS names (wildcards as `*.example.com`), not IPs; every HTTP path has a
 * pathType (Exact and Prefix need an absolute path without `//`, `/./`, `/../`, `%2f` or a
 * trailing `/.` or `/..`); a backend is a Service (with a valid name and a port name or number,
 * not both) or a resource, not both; TLS hosts are DNS names and secret names valid Secret
 * names (invalid ones already stored stay allowed); ingressClassName is a DNS subdomain and on
 * create must agree with the legacy kubernetes.io/ingress.class annotation. Status: load-balancer
 * ingress IPs and hostnames. Generation 1 on create, bumped on spec changes.
 */
import { fieldErrors, type FieldError } from "../../apimachinery/fielderrors.js";
import type { KubeObject } from "../../apimachinery/types.js";
import {
  isDNS1035Label,
  isDNS1123Subdomain,
  isValidPortName,
  isValidPortNum,
  isWildcardDNS1123Subdomain,
  nameIsDNSSubdomain,
} from "../../apimachinery/validation.js";
import { parseIP } from "./cidrs.js";
import { defineStrategy } from "./define.js";
import { pathSegmentErrors } from "./identifiers.js";
import { child, index } from "./path.js";
import { rec, list, str, objOf } from "./shape.js";
import type { ResourceStrategy } from "./strategy.js";

type Json = Record<string, unknown>;

export const ingressClassAnnotation = "kubernetes.io/ingress.class";
const pathTypes = ["Exact", "ImplementationSpecific", "Prefix"];
const invalidPathSequences = ["//", "/./", "/../", "%2f", "%2F"];
const invalidPathSuffixes = ["/..", "/."];

/** validateIngressTypedLocalObjectReference. */
export function validateTypedLocalObjectReference(ref: Json, field: string): FieldError[] {
  const errs: FieldError[] = [];
  if (typeof ref.apiGroup === "string") for (const msg of isDNS1123Subdomain(ref.apiGroup)) errs.push(fieldErrors.invalid(child(field, "apiGroup"), ref.apiGroup, msg));
  for (const k of ["kind", "name"]) {
    const v = str(ref[k]) ?? "";
    if (v === "") errs.push(fieldErrors.required(child(field, k), `${k} is required`));
    else for (const msg of pathSegmentErrors(v)) errs.push(fieldErrors.invalid(child(field, k), v, msg));
  }
  return errs;
}

function validateBackend(backend: Json, field: string): FieldError[] {
  const hasResource = backend.resource !== undefined && backend.resource !== null;
  const hasService = backend.service !== undefined && backend.service !== null;
  if (hasResource && hasService) return [fieldErrors.invalid(field, "", "cannot set both resource and service backends")];
  if (hasResource) return validateTypedLocalObjectReference(objOf(backend.resource), child(field, "resource"));
  if (!hasService) return [fieldErrors.invalid(field, "", "resource or service backend is required")];
  const errs: FieldError[] = [];
  const svc = objOf(backend.service);
  const name = str(svc.name) ?? "";
  if (name === "") errs.push(fieldErrors.required(child(field, "service", "name"), ""));
  else for (const msg of isDNS1035Label(name)) errs.push(fieldErrors.invalid(child(field, "service", "name"), name, msg));
  const port = objOf(svc.port);
  const portName = str(port.name) ?? "";
  const portNumber = typeof port.number === "number" ? port.number : 0;
  if (portName !== "" && portNumber !== 0) errs.push(fieldErrors.invalid(field, "", "cannot set both port name & port number"));
  else if (portName !== "") for (const msg of isValidPortName(portName)) errs.push(fieldErrors.invalid(child(field, "service", "port", "name"), portName, msg));
  else if (portNumber !== 0) for (const msg of isValidPortNum(portNumber)) errs.push(fieldErrors.invalid(child(field, "service", "port", "number"), portNumber, msg));
  else errs.push(fieldErrors.required(field, "port name or number is required"));
  return errs;
}

function validatePath(p: Json, field: string): FieldError[] {
  const errs: FieldError[] = [];
  const type = p.pathType;
  if (type === undefined || type === null) return [fieldErrors.required(child(field, "pathType"), "pathType must be specified")];
  const path = str(p.path) ?? "";
  switch (type) {
    case "Exact":
    case "Prefix":
      if (!path.startsWith("/")) errs.push(fieldErrors.invalid(child(field, "path"), path, "must be an absolute path"));
      if (path.length > 0) {
        for (const seq of invalidPathSequences) if (path.includes(seq)) errs.push(fieldErrors.invalid(child(field, "path"), path, `must not contain '${seq}'`));
        for (const suf of invalidPathSuffixes) if (path.endsWith(suf)) errs.push(fieldErrors.invalid(child(field, "path"), path, `cannot end with '${suf}'`));
      }
      break;
    case "ImplementationSpecific":
      if (path.length > 0 && !path.startsWith("/")) errs.push(fieldErrors.invalid(child(field, "path"), path, "must be an absolute path"));
      break;
    default:
      errs.push(fieldErrors.notSupported(child(field, "pathType"), type, pathTypes));
  }
  errs.push(...validateBackend(objOf(p.backend), child(field, "backend")));
  return errs;
}

function validateRuleValue(rule: Json, field: string): FieldError[] {
  const http = rec(rule.http);
  if (!http) return [];
  const errs: FieldError[] = [];
  const paths = list<unknown>(http.paths);
  if (paths.length === 0) errs.push(fieldErrors.required(child(field, "http", "paths"), ""));
  paths.forEach((p, i) => errs.push(...validatePath(objOf(p), index(child(field, "http", "paths"), i))));
  return errs;
}

function validateTLSSecretName(name: string): string[] {
  return name === "" ? [] : nameIsDNSSubdomain(name, false);
}

/** ValidateIngressSpec. */
export function validateIngressSpec(obj: KubeObject, old: KubeObject | undefined): FieldError[] {
  const spec = objOf(obj.spec);
  const errs: FieldError[] = [];
  const rules = list<unknown>(spec.rules).map(objOf);
  const hasDefault = spec.defaultBackend !== undefined && spec.defaultBackend !== null;
  if (rules.length === 0 && !hasDefault) errs.push(fieldErrors.invalid("spec", spec.rules ?? null, "either `defaultBackend` or `rules` must be specified"));
  if (hasDefault) errs.push(...validateBackend(objOf(spec.defaultBackend), "spec.defaultBackend"));
  // Stored objects that predate a rule keep validating (allowInvalidWildcardHostRule, allowInvalidSecretName).
  const oldSpec = objOf(old?.spec);
  const allowInvalidWildcard =
    old !== undefined && list<unknown>(oldSpec.rules).map(objOf).some((r) => (str(r.host) ?? "").includes("*") && validateRuleValue(r, "").length > 0);
  const allowInvalidSecret =
    old !== undefined && list<unknown>(oldSpec.tls).map(objOf).some((t) => validateTLSSecretName(str(t.secretName) ?? "").length > 0);
  rules.forEach((rule, i) => {
    const p = index("spec.rules", i);
    const host = str(rule.host) ?? "";
    let wildcard = false;
    if (host.length > 0) {
      if (parseIP(host)) errs.push(fieldErrors.invalid(child(p, "host"), host, "must be a DNS name, not an IP address"));
      if (host.includes("*")) {
        for (const msg of isWildcardDNS1123Subdomain(host)) errs.push(fieldErrors.invalid(child(p, "host"), host, msg));
        wildcard = true;
      } else for (const msg of isDNS1123Subdomain(host)) errs.push(fieldErrors.invalid(child(p, "host"), host, msg));
    }
    if (!wildcard || !allowInvalidWildcard) errs.push(...validateRuleValue(rule, p));
  });
  list<unknown>(spec.tls).map(objOf).forEach((tls, i) => {
    const p = index("spec.tls", i);
    list<unknown>(tls.hosts).forEach((h, j) => {
      const host = typeof h === "string" ? h : "";
      const check = host.includes("*") ? isWildcardDNS1123Subdomain(host) : isDNS1123Subdomain(host);
      for (const msg of check) errs.push(fieldErrors.invalid(index(child(p, "hosts"), j), host, msg));
    });
    if (!allowInvalidSecret) {
      const secret = str(tls.secretName) ?? "";
      for (const msg of validateTLSSecretName(secret)) errs.push(fieldErrors.invalid(child(p, "secretName"), secret, msg));
    }
  });
  if (typeof spec.ingressClassName === "string") {
    for (const msg of nameIsDNSSubdomain(spec.ingressClassName, false)) errs.push(fieldErrors.invalid("spec.ingressClassName", spec.ingressClassName, msg));
  }
  return errs;
}

/** ValidateIngressLoadBalancerStatus. */
export function validateIngressStatus(obj: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  list<unknown>(objOf(objOf(obj.status).loadBalancer).ingress).map(objOf).forEach((ing, i) => {
    const p = index("status.loadBalancer.ingress", i);
    const ip = str(ing.ip) ?? "";
    if (ip.length > 0 && !parseIP(ip)) errs.push(fieldErrors.invalid(child(p, "ip"), ip, "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)"));
    const hostname = str(ing.hostname) ?? "";
    if (hostname.length > 0) {
      for (const msg of isDNS1123Subdomain(hostname)) errs.push(fieldErrors.invalid(child(p, "hostname"), hostname, msg));
      if (parseIP(hostname)) errs.push(fieldErrors.invalid(child(p, "hostname"), hostname, "must be a DNS name, not an IP address"));
    }
  });
  return errs;
}

export const ingressStrategy: ResourceStrategy = defineStrategy({
  names: {
    group: "networking.k8s.io",
    version: "v1",
    kind: "Ingress",
    resource: "ingresses",
    singular: "ingress",
    listKind: "IngressList",
    shortNames: ["ing"],
    categories: [],
    namespaced: true,
  },
  subresources: { status: true },
  nameFn: nameIsDNSSubdomain,
  tracksGeneration: true,
  validateCreate: (obj) => {
    const errs = validateIngressSpec(obj, undefined);
    const ann = obj.metadata?.annotations?.[ingressClassAnnotation];
    const className = objOf(obj.spec).ingressClassName;
    if (ann !== undefined && typeof className === "string" && ann !== className) {
      // Upstream builds this path with Child, not Key: "annotations.kubernetes.io/ingress.class".
      errs.push(fieldErrors.invalid(child("annotations", ingressClassAnnotation), ann, "must match `ingressClassName` when both are specified"));
    }
    return errs;
  },
  validateUpdate: (obj, old) => validateIngressSpec(obj, old),
  validateStatus: validateIngressStatus,
});
