import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { json, TestServer } from "../../test/client/server.js";
import { AGGREGATED_DISCOVERY_ACCEPT } from "./discovery.js";
import { KubeClient } from "./kubeclient.js";
import { NoKindMatchError, NoResourceMatchError } from "./restmapper.js";

const server = new TestServer();
beforeAll(async () => {
  await server.start();
});
afterAll(async () => {
  await server.stop();
});
afterEach(() => {
  server.requests.length = 0;
});

const AGG_CT = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList";

function aggregated(withFoo: boolean) {
  const core = {
    kind: "APIGroupDiscoveryList",
    apiVersion: "apidiscovery.k8s.io/v2",
    items: [
      {
        metadata: { name: "" },
        versions: [
          {
            version: "v1",
            resources: [
              {
                resource: "pods",
                responseKind: { group: "", version: "v1", kind: "Pod" },
                scope: "Namespaced",
                singularResource: "pod",
                verbs: ["get", "list"],
                shortNames: ["po"],
                categories: ["all"],
                subresources: [{ subresource: "status", responseKind: { kind: "Pod" }, verbs: ["get", "patch"] }],
              },
              { resource: "nodes", responseKind: { kind: "Node" }, scope: "Cluster", singularResource: "node", verbs: ["get"] },
            ],
          },
        ],
      },
    ],
  };
  const apis = {
    kind: "APIGroupDiscoveryList",
    apiVersion: "apidiscovery.k8s.io/v2",
    items: [
      {
        metadata: { name: "apps" },
        versions: [{ version: "v1", resources: [{ resource: "deployments", responseKind: { kind: "Deployment" }, scope: "Namespaced", singularResource: "deployment", shortNames: ["deploy"], verbs: ["get"] }] }],
      },
      ...(withFoo
        ? [
            {
              metadata: { name: "x.io" },
              versions: [
                { version: "v2", resources: [{ resource: "foos", responseKind: { kind: "Foo" }, scope: "Namespaced", singularResource: "foo", verbs: ["get"] }] },
                { version: "v1", resources: [{ resource: "foos", responseKind: { kind: "Foo" }, scope: "Namespaced", singularResource: "foo", verbs: ["get"] }] },
              ],
            },
          ]
        : []),
    ],
  };
  return { core, apis };
}

describe("discovery", () => {
  it("uses aggregated discovery when offered, fetching nothing else", async () => {
    const docs = aggregated(false);
    server.handler = (r, res) => {
      if (r.path === "/api") json(res, 200, docs.core, { "content-type": AGG_CT });
      else if (r.path === "/apis") json(res, 200, docs.apis, { "content-type": AGG_CT });
      else json(res, 404, {});
    };
    const c = new KubeClient({ host: server.url, qps: -1 });
    const snap = await c.discoveryClient.serverGroupsAndResources();
    expect(snap.aggregated).toBe(true);
    expect(server.requests.map((r) => r.path).sort()).toEqual(["/api", "/apis"]);
    expect(server.requests[0].headers.accept).toBe(AGGREGATED_DISCOVERY_ACCEPT);
    expect(server.requests[0].query.get("timeout")).toBe("32s");
    expect(snap.groups.map((g) => g.name)).toEqual(["", "apps"]);
    expect(snap.resources.find((r) => r.resource === "pods")).toEqual({
      group: "",
      version: "v1",
      resource: "pods",
      kind: "Pod",
      namespaced: true,
      singularName: "pod",
      verbs: ["get", "list"],
      shortNames: ["po"],
      categories: ["all"],
      subresources: [{ name: "status", kind: "Pod", verbs: ["get", "patch"] }],
    });
    await c.close();
  });

  it("falls back to the legacy endpoints, per group/version, reporting failures", async () => {
    server.handler = (r, res) => {
      switch (r.path) {
        case "/api":
          return json(res, 200, { kind: "APIVersions", versions: ["v1"] });
        case "/apis":
          return json(res, 200, {
            kind: "APIGroupList",
            groups: [
              { name: "apps", versions: [{ groupVersion: "apps/v1", version: "v1" }], preferredVersion: { groupVersion: "apps/v1", version: "v1" } },
              { name: "broken.io", versions: [{ groupVersion: "broken.io/v1", version: "v1" }] },
            ],
          });
        case "/api/v1":
          return json(res, 200, {
            kind: "APIResourceList",
            groupVersion: "v1",
            resources: [
              { name: "pods", singularName: "pod", namespaced: true, kind: "Pod", verbs: ["get"], shortNames: ["po"] },
              { name: "pods/status", singularName: "", namespaced: true, kind: "Pod", verbs: ["get"] },
            ],
          });
        case "/apis/apps/v1":
          return json(res, 200, {
            kind: "APIResourceList",
            groupVersion: "apps/v1",
            resources: [{ name: "deployments", singularName: "deployment", namespaced: true, kind: "Deployment", verbs: ["get"] }],
          });
        default:
          return json(res, 503, {});
      }
    };
    const c = new KubeClient({ host: server.url, qps: -1, maxRetries: 0 });
    const snap = await c.discoveryClient.serverGroupsAndResources();
    expect(snap.aggregated).toBe(false);
    expect(snap.resources.map((r) => `${r.group}/${r.version}/${r.resource}`)).toEqual(["/v1/pods", "apps/v1/deployments"]);
    expect(snap.resources[0].subresources).toEqual([{ name: "status", kind: "Pod", verbs: ["get"] }]);
    expect(snap.failedGroupVersions.map((f) => f.groupVersion)).toEqual(["broken.io/v1"]);
    await c.close();
  });

  it("serverVersion", async () => {
    server.handler = (_r, res) => json(res, 200, { major: "1", minor: "35", gitVersion: "v1.35.0" });
    const c = new KubeClient({ host: server.url, qps: -1 });
    expect(await c.discoveryClient.serverVersion()).toMatchObject({ gitVersion: "v1.35.0" });
    expect(server.requests[0].path).toBe("/version");
    await c.close();
  });
});

describe("REST mapper", () => {
  it("maps kinds and resources from the cache; re-fetches once on a miss", async () => {
    let withFoo = false;
    server.handler = (r, res) => {
      const docs = aggregated(withFoo);
      json(res, 200, r.path === "/api" ? docs.core : docs.apis, { "content-type": AGG_CT });
    };
    const c = new KubeClient({ host: server.url, qps: -1 });
    expect(await c.mapper.restMapping({ group: "apps", kind: "Deployment" })).toEqual({
      resource: { group: "apps", version: "v1", resource: "deployments" },
      groupVersionKind: { group: "apps", version: "v1", kind: "Deployment" },
      namespaced: true,
    });
    expect(await c.mapper.resourceFor({ resource: "po" })).toEqual({ group: "", version: "v1", resource: "pods" });
    expect(await c.mapper.kindFor({ resource: "deployment" })).toEqual({ group: "apps", version: "v1", kind: "Deployment" });
    expect(c.discoveryClient.fetches).toBe(1);

    // A CRD appears: the miss invalidates the cache and the retry finds it (preferred version first).
    withFoo = true;
    expect(await c.mapper.descriptorForKind({ group: "x.io", version: "", kind: "Foo" })).toEqual({
      group: "x.io",
      version: "v2",
      resource: "foos",
      kind: "Foo",
      namespaced: true,
    });
    expect(c.discoveryClient.fetches).toBe(2);
    expect((await c.mapper.restMapping({ group: "x.io", kind: "Foo" }, ["v1"])).resource.version).toBe("v1");

    // A true miss costs one re-fetch and reports upstream's message.
    const err = await c.mapper.restMapping({ group: "y.io", kind: "Bar" }, ["v1"]).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NoKindMatchError);
    expect((err as Error).message).toBe('no matches for kind "Bar" in version "y.io/v1"');
    expect(c.discoveryClient.fetches).toBe(3);
    await expect(c.mapper.resourceFor({ resource: "widgets" })).rejects.toBeInstanceOf(NoResourceMatchError);

    // The dynamic client resolves a kind through the mapper.
    const foo = await c.dynamic.forKind({ group: "x.io", version: "v1", kind: "Foo" }, "ns");
    expect(foo.resource.resource).toBe("foos");
    expect(foo.namespace).toBe("ns");
    await c.close();
  });
});
