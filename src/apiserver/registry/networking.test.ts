/**
 * policy/v1 PodDisruptionBudgets, discovery.k8s.io/v1 EndpointSlices and networking.k8s.io/v1
 * Ingresses, IngressClasses, NetworkPolicies, IPAddresses and ServiceCIDRs: defaults and the
 * validation cases of policy/, discovery/ and networking/validation's tests that users hit.
 */
import { describe, expect, it } from "vitest";
import type { KubeObject } from "../../apimachinery/types.js";
import { endpointSliceStrategy } from "./endpointslices.js";
import { ingressClassStrategy } from "./ingressclasses.js";
import { ingressStrategy } from "./ingresses.js";
import { ipAddressStrategy, serviceCIDRStrategy } from "./ipaddresses.js";
import { networkPolicyStrategy } from "./networkpolicies.js";
import { podDisruptionBudgetStrategy } from "./poddisruptionbudgets.js";
import type { ResourceStrategy } from "./strategy.js";

function created(s: ResourceStrategy, obj: KubeObject): { obj: KubeObject; errs: string[] } {
  s.defaults(obj);
  s.prepareForCreate(obj);
  return { obj, errs: s.validate(obj).map(String) };
}

function updated(s: ResourceStrategy, old: KubeObject, mutate: (o: KubeObject) => void): { obj: KubeObject; errs: string[] } {
  Object.assign(old.metadata as object, { resourceVersion: "1", uid: "u" });
  const obj = structuredClone(old);
  mutate(obj);
  s.defaults(obj);
  s.prepareForUpdate(obj, old);
  return { obj, errs: s.validateUpdate(obj, old).map(String) };
}

const ns = (name: string) => ({ name, namespace: "default" });

describe("PodDisruptionBudgets (TestValidatePodDisruptionBudgetSpec)", () => {
  const pdb = (spec: Record<string, unknown>): KubeObject => ({ apiVersion: "policy/v1", kind: "PodDisruptionBudget", metadata: ns("p"), spec });
  it.each<[string, Record<string, unknown>, string[]]>([
    ["valid int", { minAvailable: 1, selector: { matchLabels: { a: "b" } } }, []],
    ["valid percent", { maxUnavailable: "50%" }, []],
    ["both set", { minAvailable: 1, maxUnavailable: 1 }, ['spec: Invalid value: {"minAvailable":1,"maxUnavailable":1}: minAvailable and maxUnavailable cannot be both set']],
    ["negative", { minAvailable: -1 }, ["spec.minAvailable: Invalid value: -1: must be greater than or equal to 0"]],
    ["over 100%", { maxUnavailable: "110%" }, ['spec.maxUnavailable: Invalid value: "110%": must not be greater than 100%']],
    ["bad policy", { unhealthyPodEvictionPolicy: "Sometimes" }, ['spec.unhealthyPodEvictionPolicy: Unsupported value: "Sometimes": supported values: "AlwaysAllow", "IfHealthyBudget"']],
  ])("%s", (_name, spec, want) => {
    expect(created(podDisruptionBudgetStrategy, pdb(spec)).errs).toEqual(want);
  });

  it("starts with a zero status and generation 1; the spec may change", () => {
    const { obj } = created(podDisruptionBudgetStrategy, pdb({ minAvailable: 1 }));
    expect(obj.status).toEqual({ disruptionsAllowed: 0, currentHealthy: 0, desiredHealthy: 0, expectedPods: 0 });
    expect(obj.metadata?.generation).toBe(1);
    const u = updated(podDisruptionBudgetStrategy, obj, (o) => ((o.spec as Record<string, unknown>).minAvailable = 2));
    expect(u.errs).toEqual([]);
    expect(u.obj.metadata?.generation).toBe(2);
  });

  it("validates the status conditions (ValidatePodDisruptionBudgetStatusUpdate)", () => {
    const old = created(podDisruptionBudgetStrategy, pdb({ minAvailable: 1 })).obj;
    old.metadata!.resourceVersion = "1";
    const obj = structuredClone(old);
    obj.status = { disruptionsAllowed: -1, currentHealthy: 0, desiredHealthy: 0, expectedPods: 0, conditions: [{ type: "DisruptionAllowed", status: "Maybe" }] };
    expect(podDisruptionBudgetStrategy.validateStatusUpdate(obj, old).map(String)).toEqual([
      'status.conditions[0].status: Unsupported value: "Maybe": supported values: "False", "True", "Unknown"',
      "status.conditions[0].lastTransitionTime: Required value: must be set",
      "status.conditions[0].reason: Required value: must be set",
      "status.disruptionsAllowed: Invalid value: -1: must be greater than or equal to 0",
    ]);
  });
});

describe("EndpointSlices (discovery/validation)", () => {
  const es = (extra: Record<string, unknown>): KubeObject => ({ apiVersion: "discovery.k8s.io/v1", kind: "EndpointSlice", metadata: ns("web-abc"), addressType: "IPv4", ...extra });
  it("defaults port names and protocols", () => {
    const { obj, errs } = created(endpointSliceStrategy, es({ ports: [{ port: 80 }], endpoints: [{ addresses: ["10.1.2.3"] }] }));
    expect(errs).toEqual([]);
    expect(obj.ports).toEqual([{ port: 80, name: "", protocol: "TCP" }]);
    expect(obj.metadata?.generation).toBe(1);
  });
  it.each<[string, Record<string, unknown>, string[]]>([
    ["addressType required", { addressType: undefined }, ["addressType: Required value"]],
    ["unknown addressType", { addressType: "IP" }, ['addressType: Unsupported value: "IP": supported values: "FQDN", "IPv4", "IPv6"']],
    ["no address", { endpoints: [{ addresses: [] }] }, ["endpoints[0].addresses: Required value: must contain at least 1 address"]],
    ["IPv6 in an IPv4 slice", { endpoints: [{ addresses: ["fd00::1"] }] }, ['endpoints[0].addresses[0]: Invalid value: "fd00::1": must be a valid IPv4 address']],
    ["loopback", { endpoints: [{ addresses: ["127.0.0.1"] }] }, ['endpoints[0].addresses[0]: Invalid value: "127.0.0.1": may not be in the loopback range (127.0.0.0/8, ::1/128)']],
    ["FQDN with one label", { addressType: "FQDN", endpoints: [{ addresses: ["localhost"] }] }, ['endpoints[0].addresses[0]: Invalid value: "localhost": should be a domain with at least two segments separated by dots']],
    ["duplicate port names", { ports: [{ name: "http", port: 80 }, { name: "http", port: 81 }] }, ['ports[1].name: Duplicate value: "http"']],
    ["bad protocol", { ports: [{ name: "x", port: 80, protocol: "HTTP" }] }, ['ports[0].protocol: Unsupported value: "HTTP": supported values: "SCTP", "TCP", "UDP"']],
  ])("%s", (_name, extra, want) => {
    expect(created(endpointSliceStrategy, es(extra)).errs).toEqual(want);
  });
  it("keeps addressType immutable", () => {
    const old = created(endpointSliceStrategy, es({})).obj;
    expect(updated(endpointSliceStrategy, old, (o) => (o.addressType = "IPv6")).errs).toEqual(['addressType: Invalid value: "IPv6": field is immutable']);
  });
});

describe("Ingresses (TestValidateIngress*)", () => {
  const backend = { service: { name: "web", port: { number: 80 } } };
  const ing = (spec: Record<string, unknown>, annotations?: Record<string, string>): KubeObject => ({
    apiVersion: "networking.k8s.io/v1",
    kind: "Ingress",
    metadata: { ...ns("web"), ...(annotations ? { annotations } : {}) },
    spec,
  });
  const rule = (path: Record<string, unknown>, host = "example.com") => ({ host, http: { paths: [{ backend, ...path }] } });
  it.each<[string, Record<string, unknown>, string[]]>([
    ["valid", { rules: [rule({ path: "/", pathType: "Prefix" })] }, []],
    ["wildcard host", { rules: [rule({ path: "/", pathType: "Prefix" }, "*.example.com")] }, []],
    ["nothing", {}, ["spec: Invalid value: null: either `defaultBackend` or `rules` must be specified"]],
    ["no pathType", { rules: [rule({ path: "/" })] }, ["spec.rules[0].http.paths[0].pathType: Required value: pathType must be specified"]],
    ["relative Prefix path", { rules: [rule({ path: "foo", pathType: "Prefix" })] }, ['spec.rules[0].http.paths[0].path: Invalid value: "foo": must be an absolute path']],
    ["double slash", { rules: [rule({ path: "/a//b", pathType: "Exact" })] }, ['spec.rules[0].http.paths[0].path: Invalid value: "/a//b": must not contain \'//\'']],
    ["IP host", { rules: [rule({ path: "/", pathType: "Prefix" }, "1.2.3.4")] }, ['spec.rules[0].host: Invalid value: "1.2.3.4": must be a DNS name, not an IP address']],
    [
      "port name and number",
      { defaultBackend: { service: { name: "web", port: { name: "http", number: 80 } } } },
      ['spec.defaultBackend: Invalid value: "": cannot set both port name & port number'],
    ],
    ["no port", { defaultBackend: { service: { name: "web", port: {} } } }, ["spec.defaultBackend: Required value: port name or number is required"]],
    [
      "bad TLS secret name",
      { defaultBackend: backend, tls: [{ hosts: ["example.com"], secretName: "Bad_Name" }] },
      ["spec.tls[0].secretName: Invalid value: \"Bad_Name\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"],
    ],
  ])("%s", (_name, spec, want) => {
    expect(created(ingressStrategy, ing(spec)).errs).toEqual(want);
  });
  it("requires the legacy class annotation to agree with ingressClassName on create", () => {
    const obj = ing({ defaultBackend: backend, ingressClassName: "nginx" }, { "kubernetes.io/ingress.class": "traefik" });
    expect(created(ingressStrategy, obj).errs).toEqual(['annotations.kubernetes.io/ingress.class: Invalid value: "traefik": must match `ingressClassName` when both are specified']);
  });
  it("validates load-balancer status", () => {
    const old = created(ingressStrategy, ing({ defaultBackend: backend })).obj;
    old.metadata!.resourceVersion = "1";
    const obj = structuredClone(old);
    obj.status = { loadBalancer: { ingress: [{ ip: "not-an-ip" }, { hostname: "10.0.0.1" }] } };
    expect(ingressStrategy.validateStatusUpdate(obj, old).map(String)).toEqual([
      'status.loadBalancer.ingress[0].ip: Invalid value: "not-an-ip": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)',
      'status.loadBalancer.ingress[1].hostname: Invalid value: "10.0.0.1": must be a DNS name, not an IP address',
    ]);
  });
});

describe("IngressClasses", () => {
  const ic = (spec: Record<string, unknown>): KubeObject => ({ apiVersion: "networking.k8s.io/v1", kind: "IngressClass", metadata: { name: "nginx" }, spec });
  it("defaults parameters to Cluster scope and validates the controller", () => {
    const { obj, errs } = created(ingressClassStrategy, ic({ controller: "k8s.io/ingress-nginx", parameters: { kind: "Config", name: "c" } }));
    expect(errs).toEqual([]);
    expect(obj.spec).toMatchObject({ parameters: { scope: "Cluster" } });
    expect(created(ingressClassStrategy, ic({ controller: "nginx" })).errs).toEqual(['spec.controller: Invalid value: "nginx": must be a domain-prefixed path (such as "acme.io/foo")']);
    expect(created(ingressClassStrategy, ic({ controller: "a.io/b", parameters: { kind: "C", name: "c", scope: "Namespace" } })).errs).toEqual([
      "spec.parameters.namespace: Required value: `parameters.scope` is set to 'Namespace'",
    ]);
  });
  it("keeps the controller immutable", () => {
    const old = created(ingressClassStrategy, ic({ controller: "k8s.io/a" })).obj;
    expect(updated(ingressClassStrategy, old, (o) => ((o.spec as Record<string, unknown>).controller = "k8s.io/b")).errs).toEqual(['spec.controller: Invalid value: "k8s.io/b": field is immutable']);
  });
});

describe("NetworkPolicies (TestValidateNetworkPolicy)", () => {
  const np = (spec: Record<string, unknown>): KubeObject => ({ apiVersion: "networking.k8s.io/v1", kind: "NetworkPolicy", metadata: ns("deny"), spec: { podSelector: {}, ...spec } });
  it("defaults policyTypes and port protocols", () => {
    expect(created(networkPolicyStrategy, np({})).obj.spec).toEqual({ podSelector: {}, policyTypes: ["Ingress"] });
    const { obj } = created(networkPolicyStrategy, np({ egress: [{ ports: [{ port: 53 }] }] }));
    expect(obj.spec).toEqual({ podSelector: {}, egress: [{ ports: [{ port: 53, protocol: "TCP" }] }], policyTypes: ["Ingress", "Egress"] });
  });
  it.each<[string, Record<string, unknown>, string[]]>([
    ["empty peer", { ingress: [{ from: [{}] }] }, ["spec.ingress[0].from[0]: Required value: must specify a peer"]],
    [
      "ipBlock with a selector",
      { ingress: [{ from: [{ ipBlock: { cidr: "10.0.0.0/8" }, podSelector: {} }] }] },
      ["spec.ingress[0].from[0]: Forbidden: may not specify both ipBlock and another peer"],
    ],
    ["bad cidr", { ingress: [{ from: [{ ipBlock: { cidr: "10.0.0.0/33" } }] }] }, ['spec.ingress[0].from[0].ipBlock.cidr: Invalid value: "10.0.0.0/33": must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)']],
    [
      "except not inside cidr",
      { ingress: [{ from: [{ ipBlock: { cidr: "10.0.0.0/16", except: ["10.1.0.0/24"] } }] }] },
      ['spec.ingress[0].from[0].ipBlock.except[0]: Invalid value: "10.1.0.0/24": must be a strict subset of `cidr`'],
    ],
    ["endPort below port", { egress: [{ ports: [{ port: 90, endPort: 80 }] }] }, ["spec.egress[0].ports[0].endPort: Invalid value: 90: must be greater than or equal to `port`"]],
    ["endPort with a named port", { egress: [{ ports: [{ port: "http", endPort: 80 }] }] }, ["spec.egress[0].ports[0].endPort: Invalid value: 80: may not be specified when `port` is non-numeric"]],
    ["unknown policy type", { policyTypes: ["Sideways"] }, ['spec.policyTypes[0]: Unsupported value: "Sideways": supported values: "Ingress", "Egress"']],
  ])("%s", (_name, spec, want) => {
    expect(created(networkPolicyStrategy, np(spec)).errs).toEqual(want);
  });
});

describe("IPAddresses and ServiceCIDRs", () => {
  const ip = (name: string, spec: Record<string, unknown>): KubeObject => ({ apiVersion: "networking.k8s.io/v1", kind: "IPAddress", metadata: { name }, spec });
  const parentRef = { group: "", resource: "services", namespace: "default", name: "web" };
  it("names an IPAddress by its canonical address and requires a parent", () => {
    expect(created(ipAddressStrategy, ip("10.96.0.10", { parentRef })).errs).toEqual([]);
    expect(created(ipAddressStrategy, ip("2001:db8:0:0::1", { parentRef })).errs).toEqual(['metadata.name: Invalid value: "2001:db8:0:0::1": must be in canonical form ("2001:db8::1")']);
    expect(created(ipAddressStrategy, ip("10.96.0.11", {})).errs).toEqual(["spec.parentRef: Required value"]);
  });
  it("validates ServiceCIDRs and keeps them immutable", () => {
    const sc = (cidrs: string[]): KubeObject => ({ apiVersion: "networking.k8s.io/v1", kind: "ServiceCIDR", metadata: { name: "extra" }, spec: { cidrs } });
    expect(created(serviceCIDRStrategy, sc(["10.100.0.0/16", "fd00::/108"])).errs).toEqual([]);
    expect(created(serviceCIDRStrategy, sc([])).errs).toEqual(["spec.cidrs: Required value: at least one CIDR required"]);
    expect(created(serviceCIDRStrategy, sc(["10.100.0.1/16"])).errs).toEqual(['spec.cidrs[0]: Invalid value: "10.100.0.1/16": must be in canonical form ("10.100.0.0/16")']);
    expect(created(serviceCIDRStrategy, sc(["10.0.0.0/16", "10.1.0.0/16"])).errs).toEqual([
      'spec.cidrs: Invalid value: {"cidrs":["10.0.0.0/16","10.1.0.0/16"]}: may specify no more than one IP for each IP family, i.e 192.168.0.0/24 and 2001:db8::/64',
    ]);
    const old = created(serviceCIDRStrategy, sc(["10.100.0.0/16"])).obj;
    expect(updated(serviceCIDRStrategy, old, (o) => ((o.spec as { cidrs: string[] }).cidrs = ["10.101.0.0/16"])).errs).toEqual([
      'spec.cidrs: Invalid value: ["10.101.0.0/16"]: field is immutable',
    ]);
  });
});
