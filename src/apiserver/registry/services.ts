/**
 * core/v1 Services: SetDefaults_Service, ValidateService / ValidateServiceUpdate (the essential
 * rules), and the strategy's preparations. Status is reset to `{loadBalancer: {}}` on create and
 * kept on update. On create and update `clusterIP`/`clusterIPs` are kept in sync
 * (normalizeClusterIPs); on update values the client left out are patched back from the stored
 * object (patchAllocatedValues: cluster IPs, IP families and policy, node ports, health-check
 * node port) and type-dependent fields are dropped when the type changes (dropTypeDependentFields).
 *
 * Allocation of cluster IPs and node ports is not done here: it needs cluster state and belongs to
 * the REST layer, as upstream's service storage does it. `prepareForCreate` does fill
 * `ipFamilyPolicy: SingleStack` and `ipFamilies: [IPv4]` for non-ExternalName services, which is
 * what upstream's allocator records on a single-stack IPv4 cluster.
 */
import type { Service, ServicePort } from "../../apimachinery/api/core/v1.js";
import { fieldErrors, type FieldError } from "../../apimachinery/fielderrors.js";
import type { KubeObject } from "../../apimachinery/types.js";
import {
  isDNS1123Subdomain,
  isQualifiedName,
  isValidIP,
  isValidPortName,
  isValidPortNum,
  nameIsDNS1035Label,
  parseIPSloppy,
} from "../../apimachinery/validation.js";
import { defineStrategy, standardVerbs } from "./define.js";
import { semanticEqual } from "../../apimachinery/equality.js";
import { validateLabels } from "./meta.js";
import { child, index } from "./path.js";
import { supportedPortProtocols, validateDNS1123Label } from "./podvalidation.js";
import type { ResourceStrategy } from "./strategy.js";

type MutableService = Service & { spec: NonNullable<Service["spec"]> };
const asService = (o: KubeObject) => o as unknown as MutableService;

/** SetDefaults_Service. */
export function defaultService(obj: KubeObject): void {
  const svc = asService(obj);
  svc.spec ??= {};
  const spec = svc.spec;
  spec.sessionAffinity ||= "None";
  spec.type ||= "ClusterIP";
  for (const p of spec.ports ?? []) {
    p.protocol ||= "TCP";
    if (p.targetPort === undefined || p.targetPort === 0 || p.targetPort === "") p.targetPort = p.port;
  }
  if ((spec.type === "NodePort" || spec.type === "LoadBalancer") && !spec.externalTrafficPolicy) {
    spec.externalTrafficPolicy = "Cluster";
  }
  if (spec.type !== "ExternalName" && !spec.internalTrafficPolicy) spec.internalTrafficPolicy = "Cluster";
  if (spec.type === "LoadBalancer" && spec.allocateLoadBalancerNodePorts == null) spec.allocateLoadBalancerNodePorts = true;
  if (spec.sessionAffinity === "ClientIP") {
    spec.sessionAffinityConfig ??= {};
    spec.sessionAffinityConfig.clientIP ??= {};
    spec.sessionAffinityConfig.clientIP.timeoutSeconds ??= 10800;
  }
}

function isHeadless(svc: MutableService): boolean {
  return svc.spec.clusterIPs?.[0] === "None" || svc.spec.clusterIP === "None";
}

function needsNodePort(svc: MutableService): boolean {
  if (svc.spec.type === "NodePort") return true;
  return svc.spec.type === "LoadBalancer" && svc.spec.allocateLoadBalancerNodePorts !== false;
}

function needsHealthCheck(svc: MutableService): boolean {
  return svc.spec.type === "LoadBalancer" && svc.spec.externalTrafficPolicy === "Local";
}

function sameClusterIPs(a: MutableService, b: MutableService): boolean {
  return semanticEqual(a.spec.clusterIPs, b.spec.clusterIPs);
}

/** normalizeClusterIPs: keep `clusterIP` and `clusterIPs` consistent (old clients set one only). */
export function normalizeClusterIPs(newSvc: MutableService, oldSvc: MutableService | undefined): void {
  const n = newSvc.spec;
  if (!oldSvc) {
    if (n.clusterIP && (n.clusterIPs ?? []).length === 0) n.clusterIPs = [n.clusterIP];
    return;
  }
  const o = oldSvc.spec;
  if ((o.clusterIPs ?? []).length > 0 && (n.clusterIPs ?? []).length === 0 && (o.clusterIP ?? "") === (n.clusterIP ?? "")) {
    n.clusterIPs = structuredClone(o.clusterIPs);
  }
  if ((o.clusterIP ?? "") !== (n.clusterIP ?? "")) {
    if (o.clusterIP && !n.clusterIP) {
      if (sameClusterIPs(oldSvc, newSvc)) delete n.clusterIPs;
    } else if (sameClusterIPs(oldSvc, newSvc)) {
      n.clusterIPs = [n.clusterIP ?? ""];
    }
  }
}

/** patchAllocatedValues: fill in what the client omitted but the server allocated. */
export function patchAllocatedValues(newSvc: MutableService, oldSvc: MutableService): void {
  const n = newSvc.spec;
  const o = oldSvc.spec;
  const hasIPs = (t: string | undefined) => t !== "ExternalName";
  if (hasIPs(o.type) && hasIPs(n.type)) {
    if (!n.clusterIP && o.clusterIP) {
      n.clusterIP = o.clusterIP;
      if ((n.clusterIPs ?? []).length === 0) n.clusterIPs = structuredClone(o.clusterIPs);
    }
    if ((n.ipFamilies ?? []).length === 0 && o.ipFamilies) n.ipFamilies = structuredClone(o.ipFamilies);
    if (n.ipFamilyPolicy == null && o.ipFamilyPolicy != null) n.ipFamilyPolicy = o.ipFamilyPolicy;
  }
  if (needsNodePort(oldSvc) && needsNodePort(newSvc)) {
    const used = (s: MutableService) => new Set((s.spec.ports ?? []).map((p) => p.nodePort ?? 0).filter((x) => x !== 0));
    const oldUsed = used(oldSvc);
    const both = new Set([...used(newSvc)].filter((x) => oldUsed.has(x)));
    const byName = new Map<string, number>();
    for (const p of o.ports ?? []) byName.set(p.name ?? "", p.nodePort ?? 0);
    for (const p of n.ports ?? []) {
      if (!p.nodePort) {
        const v = byName.get(p.name ?? "") ?? 0;
        if (v !== 0 && !both.has(v)) p.nodePort = v;
      }
    }
  }
  if (needsHealthCheck(oldSvc) && needsHealthCheck(newSvc) && !n.healthCheckNodePort && o.healthCheckNodePort) {
    n.healthCheckNodePort = o.healthCheckNodePort;
  }
}

/** dropTypeDependentFields: values that only make sense for the old type go when the type changes. */
export function dropTypeDependentFields(newSvc: MutableService, oldSvc: MutableService): void {
  const n = newSvc.spec;
  const o = oldSvc.spec;
  if (n.type === o.type) return;
  if (n.type === "ExternalName" && o.type !== "ExternalName") {
    if (sameClusterIPs(oldSvc, newSvc) && (n.clusterIP ?? "") === (o.clusterIP ?? "")) {
      delete n.clusterIP;
      delete n.clusterIPs;
    }
    if (semanticEqual(n.ipFamilies, o.ipFamilies)) delete n.ipFamilies;
    if (n.ipFamilyPolicy === o.ipFamilyPolicy) delete n.ipFamilyPolicy;
  }
  if (needsNodePort(oldSvc) && !needsNodePort(newSvc)) {
    const oldPorts = new Map((o.ports ?? []).map((p) => [p.name ?? "", p.nodePort]));
    for (const p of n.ports ?? []) if (p.nodePort && oldPorts.get(p.name ?? "") === p.nodePort) delete p.nodePort;
  }
  if (needsHealthCheck(oldSvc) && !needsHealthCheck(newSvc) && n.healthCheckNodePort === o.healthCheckNodePort) {
    delete n.healthCheckNodePort;
  }
  if (n.type !== "LoadBalancer" && o.type === "LoadBalancer" && n.allocateLoadBalancerNodePorts === o.allocateLoadBalancerNodePorts) {
    delete n.allocateLoadBalancerNodePorts;
  }
  if (n.type !== "NodePort" && n.type !== "LoadBalancer" && n.externalTrafficPolicy === o.externalTrafficPolicy) {
    delete n.externalTrafficPolicy;
  }
}

function validatePortNumOrName(v: number | string | undefined, field: string): FieldError[] {
  if (typeof v === "number") return isValidPortNum(v).map((m) => fieldErrors.invalid(field, v, m));
  if (typeof v === "string") {
    if (v === "") return [fieldErrors.required(field, "")];
    return isValidPortName(v).map((m) => fieldErrors.invalid(field, v, m));
  }
  return [fieldErrors.invalid(field, v ?? null, "must be an integer or string")];
}

function validateServicePort(sp: ServicePort, requireName: boolean, names: Set<string>, field: string): FieldError[] {
  const errs: FieldError[] = [];
  if (requireName && !sp.name) errs.push(fieldErrors.required(child(field, "name"), ""));
  else if (sp.name) {
    errs.push(...validateDNS1123Label(sp.name, child(field, "name")));
    if (names.has(sp.name)) errs.push(fieldErrors.duplicate(child(field, "name"), sp.name));
    else names.add(sp.name);
  }
  for (const msg of isValidPortNum(sp.port ?? 0)) errs.push(fieldErrors.invalid(child(field, "port"), sp.port ?? 0, msg));
  if (!sp.protocol) errs.push(fieldErrors.required(child(field, "protocol"), ""));
  else if (!supportedPortProtocols.includes(sp.protocol)) {
    errs.push(fieldErrors.notSupported(child(field, "protocol"), sp.protocol, supportedPortProtocols));
  }
  errs.push(...validatePortNumOrName(sp.targetPort, child(field, "targetPort")));
  if (sp.appProtocol != null) {
    for (const msg of isQualifiedName(sp.appProtocol)) errs.push(fieldErrors.invalid(child(field, "appProtocol"), sp.appProtocol, msg));
  }
  return errs;
}

const serviceTypes = ["ClusterIP", "ExternalName", "LoadBalancer", "NodePort"];
const ipFamilies = ["IPv4", "IPv6"];
const ipFamilyPolicies = ["PreferDualStack", "RequireDualStack", "SingleStack"];

function validateClusterIPsRelated(svc: MutableService): FieldError[] {
  const s = svc.spec;
  if (s.type === "ExternalName") return [];
  const errs: FieldError[] = [];
  const ips = s.clusterIPs ?? [];
  if (s.clusterIP) {
    if (ips.length === 0) errs.push(fieldErrors.required("spec.clusterIPs", ""));
    else if (ips[0] !== s.clusterIP) errs.push(fieldErrors.invalid("spec.clusterIPs", ips, "first value must match `clusterIP`"));
  } else if (ips.length !== 0) {
    errs.push(fieldErrors.invalid("spec.clusterIPs", ips, "must be empty when `clusterIP` is not specified"));
  }
  const seen = new Set<string>();
  (s.ipFamilies ?? []).forEach((f, i) => {
    if (!ipFamilies.includes(f)) errs.push(fieldErrors.notSupported(index("spec.ipFamilies", i), f, ipFamilies));
    if (seen.has(f)) errs.push(fieldErrors.duplicate(index("spec.ipFamilies", i), f));
    seen.add(f);
  });
  if (s.ipFamilyPolicy != null && !ipFamilyPolicies.includes(s.ipFamilyPolicy)) {
    errs.push(fieldErrors.notSupported("spec.ipFamilyPolicy", s.ipFamilyPolicy, ipFamilyPolicies));
  }
  ips.forEach((ip, i) => {
    if (i === 0 && ip === "None") {
      if (ips.length > 1) errs.push(fieldErrors.invalid("spec.clusterIPs", ips, "'None' must be the first and only value"));
      return;
    }
    for (const msg of isValidIP(ip)) errs.push(fieldErrors.invalid(index("spec.clusterIPs", i), ip, msg));
  });
  if (ips.length > 2) errs.push(fieldErrors.invalid("spec.clusterIPs", ips, "may only hold up to 2 values"));
  if ((s.ipFamilies ?? []).length > 2) errs.push(fieldErrors.invalid("spec.ipFamilies", s.ipFamilies, "may only hold up to 2 values"));
  if (s.ipFamilyPolicy === "SingleStack") {
    if (ips.length > 1) errs.push(fieldErrors.invalid("spec.clusterIPs", ips, "must have at most one value when `ipFamilyPolicy` is 'SingleStack'"));
    if ((s.ipFamilies ?? []).length > 1) {
      errs.push(fieldErrors.invalid("spec.ipFamilies", s.ipFamilies, "must have at most one value when `ipFamilyPolicy` is 'SingleStack'"));
    }
  }
  return errs;
}

/** ValidateService (without ObjectMeta, which the skeleton validates). */
export function validateServiceSpec(obj: KubeObject): FieldError[] {
  const svc = asService(obj);
  const s = svc.spec ?? {};
  svc.spec = s;
  const errs: FieldError[] = [];
  const headless = isHeadless(svc);
  if ((s.ports ?? []).length === 0 && !headless && s.type !== "ExternalName") errs.push(fieldErrors.required("spec.ports", ""));
  switch (s.type) {
    case "LoadBalancer":
    case "NodePort":
      if (headless) {
        errs.push(
          fieldErrors.invalid("spec.clusterIPs[0]", (s.clusterIPs ?? [s.clusterIP])[0] ?? "None", `may not be set to 'None' for ${s.type} services`),
        );
      }
      break;
    case "ExternalName": {
      if ((s.clusterIPs ?? []).length > 0) errs.push(fieldErrors.forbidden("spec.clusterIPs", "may not be set for ExternalName services"));
      if ((s.ipFamilies ?? []).length > 0) errs.push(fieldErrors.forbidden("spec.ipFamilies", "may not be set for ExternalName services"));
      if (s.ipFamilyPolicy != null) errs.push(fieldErrors.forbidden("spec.ipFamilyPolicy", "may not be set for ExternalName services"));
      const cname = (s.externalName ?? "").replace(/\.$/, "");
      if (cname) for (const msg of isDNS1123Subdomain(cname)) errs.push(fieldErrors.invalid("spec.externalName", cname, msg));
      else errs.push(fieldErrors.required("spec.externalName", ""));
      break;
    }
  }
  const names = new Set<string>();
  const ports = s.ports ?? [];
  ports.forEach((p, i) => errs.push(...validateServicePort(p, ports.length > 1, names, index("spec.ports", i))));
  if (s.selector) errs.push(...validateLabels(s.selector, "spec.selector"));
  if (!s.sessionAffinity) errs.push(fieldErrors.required("spec.sessionAffinity", ""));
  else if (s.sessionAffinity !== "ClientIP" && s.sessionAffinity !== "None") {
    errs.push(fieldErrors.notSupported("spec.sessionAffinity", s.sessionAffinity, ["ClientIP", "None"]));
  }
  if (s.sessionAffinity === "ClientIP") {
    const t = s.sessionAffinityConfig?.clientIP?.timeoutSeconds;
    if (t == null) errs.push(fieldErrors.required("spec.sessionAffinityConfig.clientIP.timeoutSeconds", ""));
    else if (t <= 0 || t > 86400) {
      errs.push(fieldErrors.invalid("spec.sessionAffinityConfig.clientIP.timeoutSeconds", t, "must be greater than 0 and less than 86400"));
    }
  } else if (s.sessionAffinity === "None" && s.sessionAffinityConfig != null) {
    errs.push(fieldErrors.forbidden("spec.sessionAffinityConfig", "must not be set when session affinity is None"));
  }
  errs.push(...validateClusterIPsRelated(svc));
  (s.externalIPs ?? []).forEach((ip, i) => {
    const msgs = isValidIP(ip);
    for (const msg of msgs) errs.push(fieldErrors.invalid(index("spec.externalIPs", i), ip, msg));
    if (msgs.length === 0) {
      const b = parseIPSloppy(ip) ?? [];
      const v4 = b.slice(0, 10).every((x) => x === 0) && b[10] === 255 && b[11] === 255;
      if (v4 ? b[12] === 127 : b.slice(0, 15).every((x) => x === 0) && b[15] === 1) {
        errs.push(fieldErrors.invalid(index("spec.externalIPs", i), ip, "may not be in the loopback range (127.0.0.0/8, ::1/128)"));
      }
    }
  });
  if (!s.type) errs.push(fieldErrors.required("spec.type", ""));
  else if (!serviceTypes.includes(s.type)) errs.push(fieldErrors.notSupported("spec.type", s.type, serviceTypes));
  if (s.type === "ClusterIP") {
    ports.forEach((p, i) => {
      if (p.nodePort) errs.push(fieldErrors.forbidden(child(index("spec.ports", i), "nodePort"), "may not be used when `type` is 'ClusterIP'"));
    });
  }
  const nodePorts = new Set<string>();
  ports.forEach((p, i) => {
    if (!p.nodePort) return;
    const k = `${p.protocol}/${p.nodePort}`;
    if (nodePorts.has(k)) errs.push(fieldErrors.duplicate(child(index("spec.ports", i), "nodePort"), p.nodePort));
    nodePorts.add(k);
  });
  const seenPorts = new Set<string>();
  ports.forEach((p, i) => {
    const k = `${p.protocol}/${p.port}`;
    if (seenPorts.has(k)) errs.push(fieldErrors.duplicate(index("spec.ports", i), { port: p.port, protocol: p.protocol }));
    seenPorts.add(k);
  });
  if ((s.loadBalancerSourceRanges ?? []).length > 0 && s.type !== "LoadBalancer") {
    errs.push(fieldErrors.forbidden("spec.LoadBalancerSourceRanges", "may only be used when `type` is 'LoadBalancer'"));
  }
  if (s.allocateLoadBalancerNodePorts != null && s.type !== "LoadBalancer") {
    errs.push(fieldErrors.forbidden("spec.allocateLoadBalancerNodePorts", "may only be used when `type` is 'LoadBalancer'"));
  }
  if (s.type === "LoadBalancer" && s.allocateLoadBalancerNodePorts == null) {
    errs.push(fieldErrors.required("allocateLoadBalancerNodePorts", ""));
  }
  const external = s.type === "NodePort" || s.type === "LoadBalancer" || (s.externalIPs ?? []).length > 0;
  if (!external) {
    if (s.externalTrafficPolicy) {
      errs.push(fieldErrors.invalid("spec.externalTrafficPolicy", s.externalTrafficPolicy, "may only be set for externally-accessible services"));
    }
  } else if (!s.externalTrafficPolicy) errs.push(fieldErrors.required("spec.externalTrafficPolicy", ""));
  else if (s.externalTrafficPolicy !== "Cluster" && s.externalTrafficPolicy !== "Local") {
    errs.push(fieldErrors.notSupported("spec.externalTrafficPolicy", s.externalTrafficPolicy, ["Cluster", "Local"]));
  }
  if (!needsHealthCheck(svc)) {
    if (s.healthCheckNodePort) {
      errs.push(
        fieldErrors.invalid("spec.healthCheckNodePort", s.healthCheckNodePort, "may only be set when `type` is 'LoadBalancer' and `externalTrafficPolicy` is 'Local'"),
      );
    }
  }
  if (s.internalTrafficPolicy == null) {
    if (s.type === "NodePort" || s.type === "LoadBalancer" || s.type === "ClusterIP") errs.push(fieldErrors.required("spec.internalTrafficPolicy", ""));
  } else if (s.internalTrafficPolicy !== "Cluster" && s.internalTrafficPolicy !== "Local") {
    errs.push(fieldErrors.notSupported("spec.internalTrafficPolicy", s.internalTrafficPolicy, ["Cluster", "Local"]));
  }
  if (s.trafficDistribution != null && s.trafficDistribution !== "PreferClose" && s.trafficDistribution !== "PreferSameZone" && s.trafficDistribution !== "PreferSameNode") {
    errs.push(fieldErrors.notSupported("spec.trafficDistribution", s.trafficDistribution, ["PreferClose", "PreferSameZone", "PreferSameNode"]));
  }
  return errs;
}

/** validateUpgradeDowngradeClusterIPs / IPFamilies and the health-check node port rule. */
export function validateServiceUpdate(obj: KubeObject, old: KubeObject): FieldError[] {
  const n = asService(obj);
  const o = asService(old);
  const errs: FieldError[] = [];
  if (n.spec.type === "ExternalName" || o.spec.type === "ExternalName") return errs;
  const nIPs = n.spec.clusterIPs ?? [];
  const oIPs = o.spec.clusterIPs ?? [];
  if (!(isHeadless(n) && isHeadless(o))) {
    if (oIPs.length === nIPs.length) {
      oIPs.forEach((ip, i) => {
        if (ip !== nIPs[i]) errs.push(fieldErrors.invalid(index("spec.clusterIPs", i), nIPs, "may not change once set"));
      });
    } else if (oIPs.length > nIPs.length) {
      if (nIPs.length === 0) errs.push(fieldErrors.invalid("spec.clusterIPs[0]", nIPs, "primary clusterIP can not be unset"));
      if (nIPs.length > 0 && nIPs[0] !== oIPs[0]) errs.push(fieldErrors.invalid("spec.clusterIPs[0]", nIPs, "may not change once set"));
      if (nIPs.length === 1 && n.spec.ipFamilyPolicy !== "SingleStack") {
        errs.push(
          fieldErrors.invalid("spec.clusterIPs[0]", nIPs, "`ipFamilyPolicy` must be set to 'SingleStack' when releasing the secondary clusterIP"),
        );
      }
    } else if (oIPs.length > 0 && nIPs[0] !== oIPs[0]) {
      errs.push(fieldErrors.invalid("spec.clusterIPs[0]", nIPs, "may not change once set"));
    }
  }
  const nf = n.spec.ipFamilies ?? [];
  const of = o.spec.ipFamilies ?? [];
  if (of.length > 0 && nf.length > 0 && nf[0] !== of[0]) {
    errs.push(fieldErrors.invalid("spec.ipFamilies[0]", nf, "may not change once set"));
  }
  if (needsHealthCheck(o) && needsHealthCheck(n) && n.spec.healthCheckNodePort !== o.spec.healthCheckNodePort) {
    errs.push(fieldErrors.forbidden("spec.healthCheckNodePort", "field is immutable"));
  }
  return errs;
}

function defaultIPFamilies(svc: MutableService): void {
  if (svc.spec.type === "ExternalName") return;
  svc.spec.ipFamilyPolicy ??= "SingleStack";
  if ((svc.spec.ipFamilies ?? []).length === 0) svc.spec.ipFamilies = ["IPv4"];
}

export const serviceStrategy: ResourceStrategy = defineStrategy({
  names: {
    group: "",
    version: "v1",
    kind: "Service",
    resource: "services",
    singular: "service",
    listKind: "ServiceList",
    shortNames: ["svc"],
    categories: ["all"],
    namespaced: true,
  },
  // No deletecollection: upstream's Service REST does not offer it (+genclient:skipVerbs=deleteCollection;
  // a Service's deletion releases its IPs and ports one by one).
  verbs: standardVerbs.filter((v) => v !== "deletecollection"),
  subresources: { status: true },
  nameFn: nameIsDNS1035Label,
  emptyStatus: () => ({ loadBalancer: {} }),
  defaults: defaultService,
  prepareForCreate(obj) {
    const svc = asService(obj);
    svc.spec ??= {};
    normalizeClusterIPs(svc, undefined);
    defaultIPFamilies(svc);
  },
  prepareForUpdate(obj, old) {
    const svc = asService(obj);
    const oldSvc = asService(old);
    svc.spec ??= {};
    oldSvc.spec ??= {};
    patchAllocatedValues(svc, oldSvc);
    normalizeClusterIPs(svc, oldSvc);
    dropTypeDependentFields(svc, oldSvc);
    defaultIPFamilies(svc);
  },
  validateSpec: validateServiceSpec,
  updateChecksFirst: true,
  validateUpdate: validateServiceUpdate,
  validateStatus: (obj) => {
    const errs: FieldError[] = [];
    const ingress = (asService(obj).status?.loadBalancer?.ingress ?? []) as { ip?: string; hostname?: string }[];
    ingress.forEach((ing, i) => {
      const p = index("status.loadBalancer.ingress", i);
      if (ing.ip) for (const msg of isValidIP(ing.ip)) errs.push(fieldErrors.invalid(child(p, "ip"), ing.ip, msg));
      if (ing.hostname) {
        for (const msg of isDNS1123Subdomain(ing.hostname)) errs.push(fieldErrors.invalid(child(p, "hostname"), ing.hostname, msg));
        if (isValidIP(ing.hostname).length === 0) errs.push(fieldErrors.invalid(child(p, "hostname"), ing.hostname, "must be a DNS name, not an IP address"));
      }
    });
    return errs;
  },
});
