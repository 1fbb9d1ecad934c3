import { describe, expect, it } from "vitest";
import { openapiPrefixOf, pluralOf, versionOrder } from "../../scripts/apigen/model.mjs";

describe("pluralOf (gengo's plural namer, as client-gen and the registry name resources)", () => {
  const table: [string, string][] = [
    ["Pod", "pods"],
    ["Endpoints", "endpoints"],
    ["Ingress", "ingresses"],
    ["IngressClass", "ingressclasses"],
    ["NetworkPolicy", "networkpolicies"],
    ["PriorityLevelConfiguration", "prioritylevelconfigurations"],
    ["ComponentStatus", "componentstatuses"],
    ["CSIStorageCapacity", "csistoragecapacities"],
    ["IPAddress", "ipaddresses"],
    ["ServiceCIDR", "servicecidrs"],
    ["Lease", "leases"],
    ["Gateway", "gateways"],
    ["Patch", "patches"],
    ["Mesh", "meshes"],
    ["Graph", "graphs"],
    ["Leaf", "leaves"],
    ["Knife", "knives"],
  ];
  for (const [kind, want] of table) it(`${kind} → ${want}`, () => expect(pluralOf(kind)).toBe(want));
});

describe("openapiPrefixOf (kube-openapi canonical names)", () => {
  const table: [string, string][] = [
    ["k8s.io/api/core/v1", "io.k8s.api.core.v1"],
    ["k8s.io/apimachinery/pkg/apis/meta/v1", "io.k8s.apimachinery.pkg.apis.meta.v1"],
    ["k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1", "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1"],
    ["k8s.io/kube-aggregator/pkg/apis/apiregistration/v1", "io.k8s.kube-aggregator.pkg.apis.apiregistration.v1"],
  ];
  for (const [path, want] of table) it(path, () => expect(openapiPrefixOf(path)).toBe(want));
});

describe("versionOrder (discovery order: stable, beta, alpha; higher first)", () => {
  const table: [string, string[], string[]][] = [
    ["apps", ["v1beta1", "v1", "v1beta2"], ["v1", "v1beta2", "v1beta1"]],
    ["resource.k8s.io", ["v1alpha3", "v1beta1", "v1", "v1beta2"], ["v1", "v1beta2", "v1beta1", "v1alpha3"]],
    ["autoscaling", ["v1", "v2"], ["v2", "v1"]],
    ["example.com", ["v1", "v2", "v10"], ["v10", "v2", "v1"]],
  ];
  for (const [group, input, want] of table) {
    it(`${group}: ${input.join(",")}`, () => expect([...input].sort((a, b) => versionOrder(group, a, b))).toEqual(want));
  }
});
