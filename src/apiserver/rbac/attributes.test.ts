/** RequestInfo parsing, restating apiserver's endpoints/request/requestinfo_test.go, and Forbidden messages. */
import { describe, expect, it } from "vitest";
import { forbiddenError, requestInfoOf, type Attributes } from "./attributes.js";

describe("requestInfoOf (requestinfo_test.go TestGetAPIRequestInfo)", () => {
  // method, url, verb, group, version, namespace, resource, subresource, name
  const cases: [string, string, string, string, string, string, string, string, string][] = [
    ["GET", "/api/v1/namespaces", "list", "", "v1", "", "namespaces", "", ""],
    ["GET", "/api/v1/namespaces/other", "get", "", "v1", "other", "namespaces", "", "other"],
    ["GET", "/api/v1/namespaces/other/pods", "list", "", "v1", "other", "pods", "", ""],
    ["GET", "/api/v1/namespaces/other/pods/foo", "get", "", "v1", "other", "pods", "", "foo"],
    ["HEAD", "/api/v1/namespaces/other/pods/foo", "get", "", "v1", "other", "pods", "", "foo"],
    ["GET", "/api/v1/pods", "list", "", "v1", "", "pods", "", ""],
    ["HEAD", "/api/v1/pods", "list", "", "v1", "", "pods", "", ""],
    ["GET", "/api/v1/proxy/namespaces/other/pods/foo", "proxy", "", "v1", "other", "pods", "", "foo"],
    ["GET", "/api/v1/proxy/namespaces/other/pods/foo/subpath/not/a/subresource", "proxy", "", "v1", "other", "pods", "", "foo"],
    ["GET", "/api/v1/watch/pods", "watch", "", "v1", "", "pods", "", ""],
    ["GET", "/api/v1/pods?watch=true", "watch", "", "v1", "", "pods", "", ""],
    ["GET", "/api/v1/pods?watch=false", "list", "", "v1", "", "pods", "", ""],
    ["GET", "/api/v1/watch/namespaces/other/pods", "watch", "", "v1", "other", "pods", "", ""],
    ["GET", "/api/v1/namespaces/other/pods?watch=1", "watch", "", "v1", "other", "pods", "", ""],
    ["GET", "/api/v1/namespaces/other/pods?watch=0", "list", "", "v1", "other", "pods", "", ""],
    ["GET", "/api/v1/namespaces/other/pods/foo/status", "get", "", "v1", "other", "pods", "status", "foo"],
    ["GET", "/api/v1/namespaces/other/pods/foo/proxy/subpath", "get", "", "v1", "other", "pods", "proxy", "foo"],
    ["PUT", "/api/v1/namespaces/other/finalize", "update", "", "v1", "other", "namespaces", "finalize", "other"],
    ["PUT", "/api/v1/namespaces/other/status", "update", "", "v1", "other", "namespaces", "status", "other"],
    ["PATCH", "/api/v1/namespaces/other/pods/foo", "patch", "", "v1", "other", "pods", "", "foo"],
    ["DELETE", "/api/v1/namespaces/other/pods/foo", "delete", "", "v1", "other", "pods", "", "foo"],
    ["POST", "/api/v1/namespaces/other/pods", "create", "", "v1", "other", "pods", "", ""],
    ["DELETE", "/api/v1/nodes", "deletecollection", "", "v1", "", "nodes", "", ""],
    ["DELETE", "/api/v1/namespaces", "deletecollection", "", "v1", "", "namespaces", "", ""],
    ["DELETE", "/api/v1/namespaces/other/pods", "deletecollection", "", "v1", "other", "pods", "", ""],
    ["DELETE", "/apis/extensions/v1/namespaces/other/pods", "deletecollection", "extensions", "v1", "other", "pods", "", ""],
    ["POST", "/apis/extensions/v1/namespaces/other/pods", "create", "extensions", "v1", "other", "pods", "", ""],
    ["POST", "/apis/extensions/v1beta3/namespaces/other/pods", "create", "extensions", "v1beta3", "other", "pods", "", ""],
    ["PUT", "/apis/apps/v1/namespaces/ns/deployments/web/scale", "update", "apps", "v1", "ns", "deployments", "scale", "web"],
    ["GET", "/api/v1/namespaces/other/pods?fieldSelector=metadata.name%3Dfoo", "list", "", "v1", "other", "pods", "", "foo"],
    ["GET", "/api/v1/namespaces/other/pods?fieldSelector=metadata.name%3D%3Dfoo&watch=true", "watch", "", "v1", "other", "pods", "", "foo"],
    ["GET", "/api/v1/namespaces/other/pods?fieldSelector=metadata.name%3D%2Ffoo", "list", "", "v1", "other", "pods", "", ""],
  ];
  for (const [method, url, verb, apiGroup, apiVersion, namespace, resource, subresource, name] of cases) {
    it(`${method} ${url}`, () => {
      const info = requestInfoOf(method, new URL(url, "https://x"));
      expect(info).toMatchObject({ resourceRequest: true, verb, apiGroup, apiVersion, namespace, resource, subresource, name });
    });
  }

  it("non-resource requests keep the path and the lower-cased method as verb", () => {
    for (const [m, p] of [
      ["GET", "/"],
      ["GET", "/healthz"],
      ["GET", "/api"],
      ["GET", "/api/v1"],
      ["GET", "/apis"],
      ["GET", "/apis/extensions"],
      ["GET", "/apis/extensions/v1"],
      ["POST", "/foo/bar/baz"],
    ]) {
      const info = requestInfoOf(m, new URL(p, "https://x"));
      expect(info.resourceRequest, p).toBe(false);
      expect(info.path).toBe(p);
      expect(info.verb).toBe(m.toLowerCase());
    }
  });

  it("errors for a special verb with nothing after it", () => {
    expect(() => requestInfoOf("GET", new URL("/api/v1/watch", "https://x"))).toThrow(/unable to determine kind and namespace/);
  });
});

describe("forbidden messages (responsewriters.forbiddenMessage)", () => {
  const base: Attributes = { user: { username: "bob", groups: [] }, verb: "create", resourceRequest: true, path: "", apiGroup: "apps", apiVersion: "v1", namespace: "ns", resource: "deployments", subresource: "", name: "" };
  it.each([
    [base, "", 'deployments.apps is forbidden: User "bob" cannot create resource "deployments" in API group "apps" in the namespace "ns"'],
    [{ ...base, verb: "get", name: "web" }, "", 'deployments.apps "web" is forbidden: User "bob" cannot get resource "deployments" in API group "apps" in the namespace "ns"'],
    [{ ...base, verb: "update", name: "web", subresource: "scale" }, "", 'deployments.apps "web" is forbidden: User "bob" cannot update resource "deployments/scale" in API group "apps" in the namespace "ns"'],
    [{ ...base, verb: "list", apiGroup: "", resource: "nodes", namespace: "" }, "", 'nodes is forbidden: User "bob" cannot list resource "nodes" in API group "" at the cluster scope'],
    [{ ...base, resourceRequest: false, verb: "get", path: "/metrics", resource: "", apiGroup: "" }, "", 'forbidden: User "bob" cannot get path "/metrics"'],
    [base, 'RBAC: role.rbac.authorization.k8s.io "x" not found', 'deployments.apps is forbidden: User "bob" cannot create resource "deployments" in API group "apps" in the namespace "ns": RBAC: role.rbac.authorization.k8s.io "x" not found'],
  ] as [Attributes, string, string][])("%#", (a, reason, want) => {
    const err = forbiddenError(a, reason);
    expect(err.code).toBe(403);
    expect(err.status.reason).toBe("Forbidden");
    expect(err.message).toBe(want);
  });
});
