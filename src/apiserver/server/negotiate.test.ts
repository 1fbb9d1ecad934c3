import { describe, expect, it } from "vitest";
import { bodyFormat, negotiateDiscovery, negotiateEncoding, negotiateObject, parseAccept } from "./negotiate.js";
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

  const builtin = { table: true, partial: true, protobuf: true };
  it.each([
    ["application/vnd.kubernetes.protobuf,application/json", { kind: "protobuf" }],
    ["application/vnd.kubernetes.protobuf", { kind: "protobuf" }],
    ["application/vnd.kubernetes.protobuf;stream=watch", { kind: "protobuf" }],
    ["application/json,application/vnd.kubernetes.protobuf", { kind: "json" }],
    ["application/vnd.kubernetes.protobuf;q=0.5,application/json", { kind: "json" }],
    // goautoneg: concrete types before wildcards at the same q.
    ["*/*,application/vnd.kubernetes.protobuf", { kind: "protobuf" }],
    // Tables are JSON (or YAML) only upstream: a protobuf Table entry is skipped.
    ["application/vnd.kubernetes.protobuf;as=Table;v=v1;g=meta.k8s.io,application/json", { kind: "json" }],
    [
      "application/vnd.kubernetes.protobuf;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json",
      { kind: "partial", version: "v1", protobuf: true },
    ],
    ["application/vnd.kubernetes.protobuf;as=PartialObjectMetadata;g=meta.k8s.io;v=v1beta1,application/json", { kind: "json" }],
  ])("Accept %s for a built-in kind", (accept, want) => {
    expect(negotiateObject(accept, builtin)).toEqual(want);
  });

  it("custom resources skip protobuf entries (JSON next, else 406); PartialObjectMetadata may still be protobuf", () => {
    const cr = { table: true, partial: true, protobuf: false };
    expect(negotiateObject("application/vnd.kubernetes.protobuf,application/json", cr)).toEqual({ kind: "json" });
    expect(() => negotiateObject("application/vnd.kubernetes.protobuf", cr)).toThrow(/unable to respond/);
    expect(negotiateObject("application/vnd.kubernetes.protobuf;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1", cr)).toEqual({ kind: "partial", version: "v1", protobuf: true });
  });

  it.each([
    [undefined, true, "json"],
    ["application/vnd.kubernetes.protobuf,application/json", true, "protobuf"],
    ["application/vnd.kubernetes.protobuf,application/json", false, "json"],
    ["application/json;as=Table;v=v1;g=meta.k8s.io", true, "json"],
    ["application/yaml,application/vnd.kubernetes.protobuf", true, "protobuf"],
  ])("write responses: Accept %s (protobuf-capable %s) → %s", (accept, protobuf, want) => {
    expect(negotiateEncoding(accept, protobuf).kind).toBe(want);
  });

  it("refuses an Accept with neither JSON nor a usable protobuf", () => {
    expect(() => negotiateEncoding("application/vnd.kubernetes.protobuf", false)).toThrow(/unable to respond/);
    expect(() => negotiateEncoding("text/html", true)).toThrow(/unable to respond/);
  });

  it("orders Accept entries like goautoneg: q, then concrete before wildcard, then the client's order", () => {
    const order = (h: string) => parseAccept(h).map((m) => `${m.type}/${m.subtype}`);
    expect(order("*/*;q=0.8,application/*,text/plain,application/json")).toEqual(["text/plain", "application/json", "application/*", "*/*"]);
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
    [
      "/api/v1/namespaces/d/pods/p/proxy/metrics/x",
      { kind: "resource", info: { group: "", version: "v1", namespace: "d", resource: "pods", name: "p", subresource: "proxy", watchPath: false } },
    ],
    ["/api/v1/nodes/n1/proxy/stats/summary", { kind: "resource", info: { group: "", version: "v1", resource: "nodes", name: "n1", subresource: "proxy", watchPath: false } }],
    ["/metrics", { kind: "notFound" }],
  ])("%s", (path, want) => {
    expect(parsePath(path)).toEqual(want);
  });
});
