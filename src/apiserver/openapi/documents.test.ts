import { describe, expect, test } from "vitest";
import { builtinDefinitions, openAPIV2, openAPIV3GroupVersion, openAPIV3Hash, openAPIV3Paths, type Schema, type ServedResource } from "./index.js";
import { groupIdentifier, tagFor } from "./routes.js";

const ALL_VERBS = ["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"];
const res = (r: Partial<ServedResource> & Pick<ServedResource, "group" | "kind" | "resource">): ServedResource => ({
  version: "v1",
  listKind: `${r.kind}List`,
  namespaced: true,
  verbs: ALL_VERBS,
  subresources: [],
  shortNames: [],
  categories: [],
  singular: r.kind.toLowerCase(),
  ...r,
});

const RESOURCES: ServedResource[] = [
  res({ group: "", kind: "Pod", resource: "pods", subresources: ["status", "log", "binding", "eviction", "ephemeralcontainers"] }),
  res({ group: "", kind: "Namespace", resource: "namespaces", namespaced: false, subresources: ["status", "finalize"] }),
  res({ group: "", kind: "ServiceAccount", resource: "serviceaccounts", subresources: ["token"] }),
  res({ group: "", kind: "Service", resource: "services", subresources: ["status"] }),
  res({ group: "", kind: "Event", resource: "events" }),
  res({ group: "apps", kind: "Deployment", resource: "deployments", subresources: ["status", "scale"] }),
  res({ group: "apps", kind: "ReplicaSet", resource: "replicasets", subresources: ["status", "scale"] }),
  res({ group: "coordination.k8s.io", kind: "Lease", resource: "leases" }),
  res({ group: "rbac.authorization.k8s.io", kind: "ClusterRole", resource: "clusterroles", namespaced: false }),
  res({ group: "events.k8s.io", kind: "Event", resource: "events" }),
  res({ group: "authorization.k8s.io", kind: "SelfSubjectAccessReview", resource: "selfsubjectaccessreviews", namespaced: false, verbs: ["create"] }),
  res({ group: "apiextensions.k8s.io", kind: "CustomResourceDefinition", resource: "customresourcedefinitions", namespaced: false, subresources: ["status"] }),
];

type Json = Record<string, unknown>;

/** Every "$ref" string anywhere in a document. */
function refsIn(value: unknown, out: string[] = []): string[] {
  if (Array.isArray(value)) for (const v of value) refsIn(v, out);
  else if (value && typeof value === "object") {
    for (const [k, v] of Object.entries(value)) {
      if (k === "$ref" && typeof v === "string") out.push(v);
      else refsIn(v, out);
    }
  }
  return out;
}

/** Schemas holding a $ref next to other keywords (invalid in OpenAPI 3.0). */
function refsWithSiblings(value: unknown, out: Json[] = []): Json[] {
  if (Array.isArray(value)) for (const v of value) refsWithSiblings(v, out);
  else if (value && typeof value === "object") {
    const o = value as Json;
    if (typeof o.$ref === "string" && Object.keys(o).length > 1) out.push(o);
    for (const v of Object.values(o)) refsWithSiblings(v, out);
  }
  return out;
}

describe("generated definitions (scripts/apigen/generate.mjs; test/apigen/generate.test.ts checks they are current)", () => {
  const defs = builtinDefinitions();

  test("Deployment: group-version-kind, spec.strategy with its description, required fields", () => {
    const deployment = defs["io.k8s.api.apps.v1.Deployment"]!;
    expect(deployment["x-kubernetes-group-version-kind"]).toEqual([{ group: "apps", kind: "Deployment", version: "v1" }]);
    expect(deployment.properties!.spec).toMatchObject({ $ref: "#/definitions/io.k8s.api.apps.v1.DeploymentSpec" });
    const spec = defs["io.k8s.api.apps.v1.DeploymentSpec"]!;
    expect(spec.properties!.strategy).toEqual({
      $ref: "#/definitions/io.k8s.api.apps.v1.DeploymentStrategy",
      description: "The deployment strategy to use to replace existing pods with new ones.",
      "x-kubernetes-patch-strategy": "retainKeys",
    });
    expect(spec.required).toEqual(["selector", "template"]);
    expect(spec.properties!.replicas).toMatchObject({ type: "integer", format: "int32" });
    expect(defs["io.k8s.api.apps.v1.DeploymentList"]!["x-kubernetes-group-version-kind"]).toEqual([
      { group: "apps", kind: "DeploymentList", version: "v1" },
    ]);
    expect(defs["io.k8s.api.core.v1.Pod"]!["x-kubernetes-group-version-kind"]).toEqual([{ group: "", kind: "Pod", version: "v1" }]);
  });

  test("formats: int64 facts, date-time, byte, IntOrString, Quantity", () => {
    const meta = defs["io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"]!.properties!;
    expect(meta.generation).toMatchObject({ type: "integer", format: "int64" });
    expect(meta.creationTimestamp).toMatchObject({ $ref: "#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.Time" });
    expect(defs["io.k8s.apimachinery.pkg.apis.meta.v1.Time"]).toMatchObject({ type: "string", format: "date-time" });
    expect(defs["io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime"]).toMatchObject({ type: "string", format: "date-time" });
    expect(defs["io.k8s.api.core.v1.PodSpec"]!.properties!.terminationGracePeriodSeconds).toMatchObject({ type: "integer", format: "int64" });
    expect(defs["io.k8s.api.core.v1.Secret"]!.properties!.data).toMatchObject({ type: "object", additionalProperties: { type: "string", format: "byte" } });
    expect(defs["io.k8s.api.apps.v1.RollingUpdateDeployment"]!.properties!.maxSurge).toMatchObject({
      $ref: "#/definitions/io.k8s.apimachinery.pkg.util.intstr.IntOrString",
    });
    expect(defs["io.k8s.apimachinery.pkg.util.intstr.IntOrString"]).toMatchObject({ type: "string", format: "int-or-string" });
    expect(defs["io.k8s.api.core.v1.ResourceRequirements"]!.properties!.limits).toMatchObject({
      additionalProperties: { $ref: "#/definitions/io.k8s.apimachinery.pkg.api.resource.Quantity" },
    });
    expect(defs["io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaProps"]!.properties!.maximum).toMatchObject({ type: "number", format: "double" });
    expect(defs["io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaProps"]!.properties!["x-kubernetes-preserve-unknown-fields"]).toMatchObject({ type: "boolean" });
  });

  test("cover every resource kube-apiserver 1.36 serves by default", () => {
    for (const name of [
      "io.k8s.api.batch.v1.CronJob",
      "io.k8s.api.autoscaling.v2.HorizontalPodAutoscaler",
      "io.k8s.api.autoscaling.v1.HorizontalPodAutoscaler",
      "io.k8s.api.policy.v1.PodDisruptionBudget",
      "io.k8s.api.policy.v1.Eviction",
      "io.k8s.api.networking.v1.Ingress",
      "io.k8s.api.discovery.v1.EndpointSlice",
      "io.k8s.api.resource.v1.ResourceClaim",
      "io.k8s.api.admissionregistration.v1.MutatingAdmissionPolicy",
      "io.k8s.kube-aggregator.pkg.apis.apiregistration.v1.APIService",
      "io.k8s.apimachinery.pkg.version.Info",
    ]) {
      expect(defs[name], name).toBeDefined();
    }
    expect(Object.keys(defs).some((n) => /\.v\d+(alpha|beta)\d+\./.test(n))).toBe(false);
  });

  test("every reference resolves and the file stays small", () => {
    for (const ref of refsIn(defs)) {
      expect(ref.startsWith("#/definitions/")).toBe(true);
      expect(defs[ref.slice("#/definitions/".length)], ref).toBeDefined();
    }
    expect(JSON.stringify(defs).length).toBeLessThan(3_000_000);
  });
});

describe("merge metadata", () => {
  test("list types, map keys, patch strategies and merge keys from the Go markers and struct tags", () => {
    const defs = builtinDefinitions();
    expect(defs["io.k8s.api.core.v1.PodSpec"]!.properties!.containers).toMatchObject({
      "x-kubernetes-patch-merge-key": "name",
      "x-kubernetes-patch-strategy": "merge",
      "x-kubernetes-list-type": "map",
      "x-kubernetes-list-map-keys": ["name"],
    });
    expect(defs["io.k8s.api.core.v1.Container"]!.properties!.ports).toMatchObject({
      "x-kubernetes-patch-merge-key": "containerPort",
      "x-kubernetes-list-map-keys": ["containerPort", "protocol"],
    });
    expect(defs["io.k8s.api.apps.v1.DeploymentSpec"]!.properties!.strategy!["x-kubernetes-patch-strategy"]).toBe("retainKeys");
    expect(defs["io.k8s.api.core.v1.PodSpec"]!.properties!.volumes!["x-kubernetes-patch-strategy"]).toBe("merge,retainKeys");
    expect(defs["io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"]!.properties!.finalizers).toMatchObject({
      "x-kubernetes-patch-strategy": "merge",
      "x-kubernetes-list-type": "set",
    });
    expect(defs["io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelector"]!["x-kubernetes-map-type"]).toBe("atomic");
  });
});

describe("operation naming", () => {
  test.each([
    ["", "Core", "core_v1"],
    ["apps", "Apps", "apps_v1"],
    ["rbac.authorization.k8s.io", "RbacAuthorization", "rbacAuthorization_v1"],
    ["apiextensions.k8s.io", "Apiextensions", "apiextensions_v1"],
    ["stable.example.com", "StableExampleCom", "stableExampleCom_v1"],
  ])("%j → %s / %s", (group, id, tag) => {
    expect(groupIdentifier(group)).toBe(id);
    expect(tagFor(group, "v1")).toBe(tag);
  });
});

describe("/openapi/v2", () => {
  const doc = openAPIV2(RESOURCES) as { swagger: string; paths: Record<string, Json>; definitions: Record<string, Schema> };

  test("is Swagger 2.0 whose references all resolve", () => {
    expect(doc.swagger).toBe("2.0");
    const refs = refsIn(doc);
    expect(refs.length).toBeGreaterThan(100);
    for (const ref of refs) expect(doc.definitions[ref.slice("#/definitions/".length)], ref).toBeDefined();
  });

  test("patch operations carry fieldValidation, the action and the kind", () => {
    const patch = doc.paths["/apis/apps/v1/namespaces/{namespace}/deployments/{name}"]!.patch as Json;
    expect(patch["x-kubernetes-action"]).toBe("patch");
    expect(patch["x-kubernetes-group-version-kind"]).toEqual({ group: "apps", kind: "Deployment", version: "v1" });
    expect(patch.operationId).toBe("patchAppsV1NamespacedDeployment");
    const names = (patch.parameters as Json[]).map((p) => p.name);
    expect(names).toEqual(expect.arrayContaining(["body", "dryRun", "fieldManager", "fieldValidation", "force"]));
    expect(patch.consumes).toContain("application/strategic-merge-patch+json");
  });
});

describe("/openapi/v3", () => {
  test("the index lists each group-version with a content hash", () => {
    const index = openAPIV3Paths(RESOURCES);
    expect(Object.keys(index.paths)).toEqual([
      "api/v1",
      "apis/apiextensions.k8s.io/v1",
      "apis/apps/v1",
      "apis/authorization.k8s.io/v1",
      "apis/coordination.k8s.io/v1",
      "apis/events.k8s.io/v1",
      "apis/rbac.authorization.k8s.io/v1",
    ]);
    const url = index.paths["apis/apps/v1"]!.serverRelativeURL;
    expect(url).toMatch(/^\/openapi\/v3\/apis\/apps\/v1\?hash=[0-9A-F]{128}$/);
    expect(url.endsWith(openAPIV3Hash("apis/apps/v1", RESOURCES)!)).toBe(true);
    // The same resources in another order (another array) give the same documents.
    expect(openAPIV3Paths([...RESOURCES].reverse())).toEqual(index);
  });

  test("a new kind changes exactly its group-version's hash", () => {
    const before = openAPIV3Paths(RESOURCES).paths;
    const withCR = [
      ...RESOURCES,
      res({ group: "stable.example.com", kind: "CronTab", resource: "crontabs" }),
      res({ group: "apps", kind: "StatefulSet", resource: "statefulsets" }),
    ];
    const after = openAPIV3Paths(withCR).paths;
    expect(after["api/v1"]).toEqual(before["api/v1"]);
    expect(after["apis/apps/v1"]).not.toEqual(before["apis/apps/v1"]);
    expect(after["apis/stable.example.com/v1"]).toBeDefined();
  });

  for (const gv of Object.keys(openAPIV3Paths(RESOURCES).paths)) {
    test(`${gv}: OpenAPI 3.0, references resolve, no $ref siblings`, () => {
      const doc = openAPIV3GroupVersion(gv, RESOURCES) as { openapi: string; paths: Json; components: { schemas: Record<string, Schema> } };
      expect(doc.openapi).toBe("3.0.0");
      for (const ref of refsIn(doc)) {
        expect(ref.startsWith("#/components/schemas/"), ref).toBe(true);
        expect(doc.components.schemas[ref.slice("#/components/schemas/".length)], ref).toBeDefined();
      }
      expect(refsWithSiblings(doc)).toEqual([]);
      for (const [path, item] of Object.entries(doc.paths)) {
        for (const method of ["get", "put", "post", "patch", "delete"]) {
          const op = (item as Json)[method] as Json | undefined;
          if (!op) continue;
          expect(op["x-kubernetes-action"], `${method} ${path}`).toBeDefined();
          expect(op["x-kubernetes-group-version-kind"], `${method} ${path}`).toBeDefined();
          if (method === "patch" || method === "put" || (method === "post" && !path.endsWith("/"))) {
            expect((op.parameters as Json[]).map((p) => p.name), `${method} ${path}`).toContain("fieldValidation");
          }
        }
      }
    });
  }

  test("apps/v1: schemas as upstream shapes them, with operations for status and scale", () => {
    const doc = openAPIV3GroupVersion("apis/apps/v1", RESOURCES) as { paths: Record<string, Json>; components: { schemas: Record<string, Schema> } };
    const schemas = doc.components.schemas;
    expect(schemas["io.k8s.api.apps.v1.DeploymentSpec"]!.properties!.strategy).toEqual({
      allOf: [{ $ref: "#/components/schemas/io.k8s.api.apps.v1.DeploymentStrategy" }],
      description: "The deployment strategy to use to replace existing pods with new ones.",
      "x-kubernetes-patch-strategy": "retainKeys",
    });
    expect(schemas["io.k8s.apimachinery.pkg.util.intstr.IntOrString"]).toMatchObject({ format: "int-or-string", oneOf: [{ type: "integer" }, { type: "string" }] });
    expect(schemas["io.k8s.apimachinery.pkg.api.resource.Quantity"]).toMatchObject({ oneOf: [{ type: "string" }, { type: "number" }] });
    const scale = doc.paths["/apis/apps/v1/namespaces/{namespace}/deployments/{name}/scale"]!;
    expect((scale.put as Json)["x-kubernetes-group-version-kind"]).toEqual({ group: "autoscaling", kind: "Scale", version: "v1" });
    expect((scale.get as Json).operationId).toBe("readAppsV1NamespacedDeploymentScale");
    expect(schemas["io.k8s.api.autoscaling.v1.Scale"]).toBeDefined();
    const status = doc.paths["/apis/apps/v1/namespaces/{namespace}/deployments/{name}/status"]!;
    expect(Object.keys(status).sort()).toEqual(["get", "parameters", "patch", "put"]);
    const collection = doc.paths["/apis/apps/v1/namespaces/{namespace}/deployments"]!;
    expect((collection.delete as Json)["x-kubernetes-action"]).toBe("deletecollection");
    expect((collection.get as Json)["x-kubernetes-action"]).toBe("list");
    expect(doc.paths["/apis/apps/v1/deployments"]).toBeDefined();
    expect(doc.paths["/apis/apps/v1/watch/namespaces/{namespace}/deployments/{name}"]).toBeDefined();
    const patchBody = ((doc.paths["/apis/apps/v1/namespaces/{namespace}/deployments/{name}"]!.patch as Json).requestBody as Json).content as Json;
    expect(Object.keys(patchBody)).toContain("application/apply-patch+yaml");
    expect(Object.keys(patchBody)).toContain("application/strategic-merge-patch+json");
  });

  test("core/v1: cluster-scoped and subresource routes", () => {
    const doc = openAPIV3GroupVersion("api/v1", RESOURCES) as { paths: Record<string, Json> };
    expect(doc.paths["/api/v1/namespaces/{name}"]).toBeDefined();
    expect(((doc.paths["/api/v1/namespaces/{name}/finalize"]!.put as Json).operationId)).toBe("replaceCoreV1NamespaceFinalize");
    expect((doc.paths["/api/v1/namespaces/{namespace}/pods/{name}/eviction"]!.post as Json)["x-kubernetes-group-version-kind"]).toEqual({
      group: "policy",
      kind: "Eviction",
      version: "v1",
    });
    expect((doc.paths["/api/v1/namespaces/{namespace}/serviceaccounts/{name}/token"]!.post as Json).operationId).toBe("createCoreV1NamespacedServiceAccountToken");
    expect((doc.paths["/api/v1/namespaces/{namespace}/pods/{name}/log"]!.get as Json).operationId).toBe("readCoreV1NamespacedPodLog");
    expect(doc.paths["/api/v1/pods"]).toBeDefined();
    expect(doc.paths["/api/v1/namespaces"]).toBeDefined();
  });

  test("a create-only kind has only its POST", () => {
    const doc = openAPIV3GroupVersion("apis/authorization.k8s.io/v1", RESOURCES) as { paths: Record<string, Json> };
    expect(Object.keys(doc.paths).sort()).toEqual(["/apis/authorization.k8s.io/v1/", "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews"]);
    expect(Object.keys(doc.paths["/apis/authorization.k8s.io/v1/selfsubjectaccessreviews"]!).sort()).toEqual(["parameters", "post"]);
  });

  test("custom resources: their schema, or any object, under the reversed-group name", () => {
    const withCR = [
      ...RESOURCES,
      res({
        group: "stable.example.com",
        kind: "CronTab",
        resource: "crontabs",
        subresources: ["status", "scale"],
        openAPIV3Schema: { type: "object", properties: { spec: { type: "object", properties: { cronSpec: { type: "string" } } } } },
      }),
      res({ group: "stable.example.com", kind: "Widget", resource: "widgets" }),
    ];
    const doc = openAPIV3GroupVersion("apis/stable.example.com/v1", withCR) as { paths: Record<string, Json>; components: { schemas: Record<string, Schema> } };
    const cronTab = doc.components.schemas["com.example.stable.v1.CronTab"]!;
    expect(cronTab["x-kubernetes-group-version-kind"]).toEqual([{ group: "stable.example.com", kind: "CronTab", version: "v1" }]);
    expect(cronTab.properties!.spec).toEqual({ type: "object", properties: { cronSpec: { type: "string" } } });
    expect(cronTab.properties!.metadata).toMatchObject({ allOf: [{ $ref: "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta" }] });
    expect(doc.components.schemas["com.example.stable.v1.Widget"]).toMatchObject({ type: "object", "x-kubernetes-preserve-unknown-fields": true });
    expect(doc.components.schemas["com.example.stable.v1.CronTabList"]!.required).toEqual(["items"]);
    const patch = doc.paths["/apis/stable.example.com/v1/namespaces/{namespace}/crontabs/{name}"]!.patch as Json;
    expect(patch.operationId).toBe("patchStableExampleComV1NamespacedCronTab");
    expect(Object.keys((patch.requestBody as Json).content as Json)).not.toContain("application/strategic-merge-patch+json");
    expect(Object.keys(((patch.responses as Json)["200"] as Json).content as Json)).toEqual(["application/json", "application/yaml"]);
  });

  test("an unknown group-version has no document", () => {
    expect(openAPIV3GroupVersion("apis/nope/v1", RESOURCES)).toBeUndefined();
    expect(openAPIV3GroupVersion("/apis/apps/v1", RESOURCES)).toBe(openAPIV3GroupVersion("apis/apps/v1", RESOURCES));
  });
});
