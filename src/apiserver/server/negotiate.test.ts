import { describe, expect, it } from "vitest";
import { bodyFormat, negotiateDiscovery, negotiateObject } from "./negotiate.js";
import { parsePath } from "./requestinfo.js";

describe("content negotiation", () => {
  const both = { table: true, partial: true };
  it.each([
    ["application/json;as=Table;v=v1;g=meta.k8s.io,application/json", { kind: "table", version: "v1" }],
    ["application/json;as=Table;v=v1beta1;g=meta.k8s.io", { kind: "table", version: "v1beta1" }],
    ["application/vnd.kubernetes.protobuf,application/json", { kind: "json" }],
    ["application/json, */*", { kind: "json" }],
    ["", { kind: "json" }],
    ["*/*;q=0.8", { kind: "json" }],
    ["application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io", { kind: "partial", version: "v1" }],
  ])("Accept %s", (accept, want) => {
    expect(negotiateObject(accept, both)).toEqual(want);
  });

  it("falls back to JSON without a Table converter and refuses protobuf-only", () => {
    expect(negotiateObject("application/json;as=Table;v=v1;g=meta.k8s.io,application/json", { table: false, partial: true })).toEqual({ kind: "json" });
    expect(() => negotiateObject("application/vnd.kubernetes.protobuf", both)).toThrow(/unable to respond/);
  });

  it("chooses aggregated discovery v2 first", () => {
    const agg =
      "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json";
    expect(negotiateDiscovery(agg)).toEqual({ kind: "aggregated", version: "v2" });
    expect(negotiateDiscovery("application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList")).toEqual({ kind: "aggregated", version: "v2beta1" });
    expect(negotiateDiscovery("application/json, */*")).toEqual({ kind: "legacy" });
  });

  it.each([
    [undefined, "json"],
    ["application/json; charset=utf-8", "json"],
    ["application/yaml", "yaml"],
    ["application/vnd.kubernetes.protobuf", "protobuf"],
  ])("body Content-Type %s", (ct, want) => {
    expect(bodyFormat(ct)).toBe(want);
  });
});

describe("request paths", () => {
  it.each([
    ["/api", { kind: "apiVersions" }],
    ["/apis/apps", { kind: "apiGroup", group: "apps" }],
    ["/apis/apps/v1", { kind: "resourceList", group: "apps", version: "v1" }],
    ["/api/v1/namespaces", { kind: "resource", info: { group: "", version: "v1", resource: "namespaces", watchPath: false } }],
    ["/api/v1/namespaces/ns1", { kind: "resource", info: { group: "", version: "v1", namespace: "ns1", resource: "namespaces", name: "ns1", watchPath: false } }],
    [
      "/api/v1/namespaces/ns1/finalize",
      { kind: "resource", info: { group: "", version: "v1", namespace: "ns1", resource: "namespaces", name: "ns1", subresource: "finalize", watchPath: false } },
    ],
    [
      "/apis/apps/v1/namespaces/d/deployments/web/scale",
      { kind: "resource", info: { group: "apps", version: "v1", namespace: "d", resource: "deployments", name: "web", subresource: "scale", watchPath: false } },
    ],
    ["/api/v1/watch/namespaces/d/pods", { kind: "resource", info: { group: "", version: "v1", namespace: "d", resource: "pods", watchPath: true } }],
    ["/api/v1/namespaces/d/pods/p/log/extra", { kind: "notFound" }],
    ["/metrics", { kind: "notFound" }],
  ])("%s", (path, want) => {
    expect(parsePath(path)).toEqual(want);
  });
});
