import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { customResourceDefinitionStrategy } from "../../src/apiserver/crd/crdstrategy.js";
import { openAPIV2, openAPIV3GroupVersion, openAPIV3Paths } from "../../src/apiserver/openapi/index.js";
import { toTable } from "../../src/apiserver/tables/index.js";
import { TestServer } from "./harness.js";
import { testStrategies } from "./fixtures.js";

const CRDS = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";
const WIDGETS = "/apis/stable.example.com/v1/namespaces/default/widgets";

const widgetSchema = {
  type: "object",
  properties: {
    spec: {
      type: "object",
      required: ["size"],
      properties: {
        size: { type: "integer", minimum: 0, maximum: 10 },
        color: { type: "string", enum: ["red", "blue"], default: "red" },
        replicas: { type: "integer", default: 1 },
        selector: { type: "string" },
        ports: {
          type: "array",
          "x-kubernetes-list-type": "map",
          "x-kubernetes-list-map-keys": ["name"],
          items: { type: "object", required: ["name"], properties: { name: { type: "string" }, port: { type: "integer" } } },
        },
      },
    },
    status: {
      type: "object",
      properties: {
        replicas: { type: "integer" },
        selector: { type: "string" },
        conditions: {
          type: "array",
          items: { type: "object", properties: { type: { type: "string" }, status: { type: "string" } } },
        },
      },
    },
  },
};

function widgetCRD(extra: Record<string, unknown> = {}) {
  return {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: "widgets.stable.example.com" },
    spec: {
      group: "stable.example.com",
      scope: "Namespaced",
      names: { plural: "widgets", singular: "widget", kind: "Widget", shortNames: ["wd"], categories: ["all"] },
      versions: [
        {
          name: "v1",
          served: true,
          storage: true,
          schema: { openAPIV3Schema: widgetSchema },
          subresources: { status: {}, scale: { specReplicasPath: ".spec.replicas", statusReplicasPath: ".status.replicas", labelSelectorPath: ".status.selector" } },
          additionalPrinterColumns: [
            { name: "Size", type: "integer", jsonPath: ".spec.size" },
            { name: "Color", type: "string", jsonPath: ".spec.color" },
            { name: "Ready", type: "string", jsonPath: '.status.conditions[?(@.type=="Ready")].status' },
            { name: "Age", type: "date", jsonPath: ".metadata.creationTimestamp" },
          ],
        },
        { name: "v1beta1", served: true, storage: false, schema: { openAPIV3Schema: widgetSchema }, subresources: { status: {} } },
      ],
      ...extra,
    },
  };
}

const widget = (name: string, spec: Record<string, unknown> = { size: 3 }, apiVersion = "stable.example.com/v1") => ({
  apiVersion,
  kind: "Widget",
  metadata: { name },
  spec,
});

describe("CustomResourceDefinitions over HTTP", () => {
  const t = new TestServer({
    strategies: [...testStrategies(), customResourceDefinitionStrategy],
    toTable: (gk, objects, opts) => toTable(gk, objects, opts),
    openapi: { v2: openAPIV2, v3Paths: openAPIV3Paths, v3GroupVersion: openAPIV3GroupVersion },
  });
  const settle = () => t.server.customResources.idle();
  beforeAll(async () => {
    await t.start();
  });
  afterAll(() => t.stop());

  it("creates a CRD, establishes it and serves the custom resource", async () => {
    const r = await t.post(CRDS, widgetCRD());
    expect(r.status).toBe(201);
    expect(r.body.status.storedVersions).toEqual(["v1"]);
    expect(r.body.metadata.generation).toBe(1);
    expect(r.body.spec.conversion).toEqual({ strategy: "None" });
    await settle();
    const g = await t.get(`${CRDS}/widgets.stable.example.com`);
    const conds = g.body.status.conditions.map((c: { type: string; status: string; reason: string }) => [c.type, c.status, c.reason]);
    expect(conds).toEqual([
      ["NamesAccepted", "True", "NoConflicts"],
      ["Established", "True", "InitialNamesAccepted"],
    ]);
    expect(g.body.status.acceptedNames).toMatchObject({ plural: "widgets", kind: "Widget", listKind: "WidgetList", shortNames: ["wd"], categories: ["all"] });
    const created = await t.post(WIDGETS, widget("w1"));
    expect(created.status).toBe(201);
    expect(created.body.spec).toEqual({ size: 3, color: "red", replicas: 1 });
    expect(created.body.metadata.generation).toBe(1);
  });

  it("lists the resource in discovery (legacy and aggregated) and OpenAPI", async () => {
    const legacy = await t.get("/apis/stable.example.com/v1");
    expect(legacy.status).toBe(200);
    const names = legacy.body.resources.map((r: { name: string }) => r.name);
    expect(names).toEqual(["widgets", "widgets/scale", "widgets/status"]);
    expect(legacy.body.resources[0]).toMatchObject({ kind: "Widget", singularName: "widget", namespaced: true, shortNames: ["wd"], categories: ["all"] });
    const group = await t.get("/apis/stable.example.com");
    expect(group.body.preferredVersion).toEqual({ groupVersion: "stable.example.com/v1", version: "v1" });
    expect(group.body.versions.map((v: { version: string }) => v.version)).toEqual(["v1", "v1beta1"]);
    const agg = await t.get("/apis", { Accept: "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList" });
    const item = agg.body.items.find((i: { metadata: { name: string } }) => i.metadata.name === "stable.example.com");
    expect(item.versions[0].resources[0]).toMatchObject({ resource: "widgets", scope: "Namespaced" });
    const root = await t.get("/openapi/v3");
    expect(Object.keys(root.body.paths)).toContain("apis/stable.example.com/v1");
    const doc = await t.get(root.body.paths["apis/stable.example.com/v1"].serverRelativeURL);
    expect(doc.status).toBe(200);
    const schema = doc.body.components.schemas["com.example.stable.v1.Widget"];
    expect(schema.properties.spec.properties.size).toEqual({ type: "integer", minimum: 0, maximum: 10 });
    expect(schema["x-kubernetes-group-version-kind"]).toEqual([{ group: "stable.example.com", kind: "Widget", version: "v1" }]);
  });

  it("rejects invalid objects with kube-apiserver's messages", async () => {
    const bad = await t.post(WIDGETS, widget("bad", { size: 20, color: "pink" }));
    expect(bad.status).toBe(422);
    expect(bad.body.message).toBe(
      'Widget.stable.example.com "bad" is invalid: [spec.size: Invalid value: 20: spec.size in body should be less than or equal to 10, spec.color: Unsupported value: "pink": supported values: "red", "blue"]',
    );
    expect(bad.body.details).toMatchObject({ name: "bad", group: "stable.example.com", kind: "Widget" });
    const typed = await t.post(WIDGETS, widget("typed", { size: "big" }));
    expect(typed.body.message).toBe('Widget.stable.example.com "typed" is invalid: spec.size: Invalid value: "string": spec.size in body must be of type integer: "string"');
    const missing = await t.post(WIDGETS, widget("missing", {}));
    expect(missing.body.message).toBe('Widget.stable.example.com "missing" is invalid: spec.size: Required value');
    const dup = await t.post(
      WIDGETS,
      widget("dup", {
        size: 1,
        ports: [
          { name: "a", port: 1 },
          { name: "a", port: 2 },
        ],
      }),
    );
    expect(dup.body.message).toBe('Widget.stable.example.com "dup" is invalid: spec.ports[1]: Duplicate value: map[string]interface {}{"name":"a"}');
  });

  it("prunes unknown fields: warnings by default, 400 with fieldValidation=Strict", async () => {
    const warn = await t.post(WIDGETS, widget("pruned", { size: 1, extra: true }));
    expect(warn.status).toBe(201);
    expect(warn.body.spec.extra).toBeUndefined();
    expect(warn.headers.get("warning")).toBe('299 - "unknown field \\"spec.extra\\""');
    const strict = await t.post(`${WIDGETS}?fieldValidation=Strict`, widget("strict", { size: 1, extra: true }));
    expect(strict.status).toBe(400);
    expect(strict.body.message).toBe('strict decoding error: unknown field "spec.extra"');
  });

  it("serves every version from one storage version (apiVersion rewritten)", async () => {
    const beta = await t.post("/apis/stable.example.com/v1beta1/namespaces/default/widgets", widget("beta", { size: 2 }, "stable.example.com/v1beta1"));
    expect(beta.status).toBe(201);
    expect(beta.body.apiVersion).toBe("stable.example.com/v1beta1");
    const asV1 = await t.get(`${WIDGETS}/beta`);
    expect(asV1.body.apiVersion).toBe("stable.example.com/v1");
    expect(asV1.body.spec.size).toBe(2);
    const stored = await t.server.storage.get("/registry/stable.example.com/widgets/default/beta");
    expect(stored?.object.apiVersion).toBe("stable.example.com/v1");
  });

  it("bumps generation on spec changes only and splits status", async () => {
    const p1 = await t.patch(`${WIDGETS}/w1`, { spec: { size: 4 } });
    expect(p1.status).toBe(200);
    expect(p1.body.metadata.generation).toBe(2);
    const p2 = await t.patch(`${WIDGETS}/w1`, { metadata: { labels: { a: "b" } }, status: { replicas: 9 } });
    expect(p2.body.metadata.generation).toBe(2);
    expect(p2.body.status).toBeUndefined();
    const s = await t.patch(`${WIDGETS}/w1/status`, { status: { replicas: 1, selector: "app=w", conditions: [{ type: "Ready", status: "True" }] }, spec: { size: 9 } });
    expect(s.status).toBe(200);
    expect(s.body.spec.size).toBe(4);
    expect(s.body.status.replicas).toBe(1);
    expect(s.body.metadata.generation).toBe(2);
  });

  it("serves the scale subresource from the CRD's paths", async () => {
    const scale = await t.get(`${WIDGETS}/w1/scale`);
    expect(scale.body).toMatchObject({ kind: "Scale", apiVersion: "autoscaling/v1", spec: { replicas: 1 }, status: { replicas: 1, selector: "app=w" } });
    const up = await t.patch(`${WIDGETS}/w1/scale`, { spec: { replicas: 5 } });
    expect(up.status).toBe(200);
    expect(up.body.spec.replicas).toBe(5);
    const obj = await t.get(`${WIDGETS}/w1`);
    expect(obj.body.spec.replicas).toBe(5);
    expect(obj.body.metadata.generation).toBe(3);
    const neg = await t.patch(`${WIDGETS}/w1/scale`, { spec: { replicas: -1 } });
    expect(neg.status).toBe(422);
  });

  it("answers strategic merge patches with 415 and applies JSON and merge patches", async () => {
    const smp = await t.patch(`${WIDGETS}/w1`, { spec: { size: 5 } }, "application/strategic-merge-patch+json");
    expect(smp.status).toBe(415);
    expect(smp.body.message).toBe(
      "the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml",
    );
    const jp = await t.patch(`${WIDGETS}/w1`, [{ op: "replace", path: "/spec/size", value: 6 }], "application/json-patch+json");
    expect(jp.status).toBe(200);
    expect(jp.body.spec.size).toBe(6);
  });

  it("prints tables with the additional printer columns", async () => {
    const tbl = await t.get(WIDGETS, { Accept: "application/json;as=Table;v=v1;g=meta.k8s.io" });
    expect(tbl.status).toBe(200);
    expect(tbl.body.columnDefinitions.map((c: { name: string; type: string }) => `${c.name}:${c.type}`)).toEqual([
      "Name:string",
      "Size:integer",
      "Color:string",
      "Ready:string",
      "Age:date",
    ]);
    const row = tbl.body.rows.find((r: { cells: unknown[] }) => r.cells[0] === "w1");
    expect(row.cells.slice(0, 4)).toEqual(["w1", 6, "red", "True"]);
    expect(row.cells[4]).toMatch(/^\d+s$/);
    const beta = await t.get("/apis/stable.example.com/v1beta1/namespaces/default/widgets/beta", { Accept: "application/json;as=Table;v=v1;g=meta.k8s.io" });
    expect(beta.body.columnDefinitions.map((c: { name: string }) => c.name)).toEqual(["Name", "Age"]);
  });

  it("watches a version other than the one written (events converted)", async () => {
    const w = await t.watch("/apis/stable.example.com/v1beta1/namespaces/default/widgets?watch=true&resourceVersion=" + (await t.get(WIDGETS)).body.metadata.resourceVersion);
    const created = await t.post(WIDGETS, widget("watched"));
    expect(created.status).toBe(201);
    const [ev] = await w.take(1);
    w.close();
    expect(ev.type).toBe("ADDED");
    expect(ev.object.apiVersion).toBe("stable.example.com/v1beta1");
    expect(ev.object.metadata.name).toBe("watched");
  });

  it("publishes the schema in OpenAPI v2 too", async () => {
    const v2 = await t.get("/openapi/v2");
    expect(v2.body.definitions["com.example.stable.v1.Widget"].properties.spec.required).toEqual(["size"]);
    expect(Object.keys(v2.body.paths)).toContain("/apis/stable.example.com/v1/namespaces/{namespace}/widgets/{name}/scale");
  });

  it("re-serves a CRD after a change (new printer column, schema default)", async () => {
    const cur = (await t.get(`${CRDS}/widgets.stable.example.com`)).body;
    const next = structuredClone(cur);
    next.spec.versions[1].additionalPrinterColumns = [{ name: "Color", type: "string", jsonPath: ".spec.color" }];
    next.spec.versions[1].schema.openAPIV3Schema.properties.spec.properties.shape = { type: "string", default: "round" };
    const r = await t.put(`${CRDS}/widgets.stable.example.com`, next);
    expect(r.status).toBe(200);
    expect(r.body.metadata.generation).toBe(2);
    await settle();
    const tbl = await t.get("/apis/stable.example.com/v1beta1/namespaces/default/widgets/beta", { Accept: "application/json;as=Table;v=v1;g=meta.k8s.io" });
    expect(tbl.body.columnDefinitions.map((c: { name: string }) => c.name)).toEqual(["Name", "Color"]);
    // Defaults apply on read too (the storage codec), so existing objects show the new default.
    const beta = await t.get("/apis/stable.example.com/v1beta1/namespaces/default/widgets/beta");
    expect(beta.body.spec.shape).toBe("round");
    const v1 = await t.get(`${WIDGETS}/beta`);
    expect(v1.body.spec.shape).toBeUndefined();
  });

  it("needs resourceVersion on PUT, as upstream's custom resource strategy", async () => {
    const cur = await t.get(`${WIDGETS}/w1`);
    const { resourceVersion: _rv, ...meta } = cur.body.metadata;
    void _rv;
    const put = await t.put(`${WIDGETS}/w1`, { ...cur.body, metadata: meta });
    expect(put.status).toBe(422);
    expect(put.body.message).toContain("metadata.resourceVersion: Invalid value: 0: must be specified for an update");
  });

  it("refuses non-structural schemas without compiling their CEL rules", async () => {
    const crd = widgetCRD();
    crd.metadata.name = "gadgets.stable.example.com";
    crd.spec.names = { plural: "gadgets", singular: "gadget", kind: "Gadget", shortNames: [], categories: [] };
    crd.spec.versions = [
      {
        name: "v1",
        served: true,
        storage: true,
        schema: { openAPIV3Schema: { type: "object", properties: { spec: { properties: { a: { type: "string", "x-kubernetes-validations": [{ rule: "self.size() > 1" }] } } } } } },
      } as never,
    ];
    const r = await t.post(CRDS, crd);
    expect(r.status).toBe(422);
    expect(r.body.message).toContain("spec.validation.openAPIV3Schema.properties[spec].type: Required value: must not be empty for specified object fields");
    expect(r.body.message).not.toContain("x-kubernetes-validations");
  });

  it("rejects a CRD whose name is not <plural>.<group>", async () => {
    const crd = widgetCRD();
    crd.metadata.name = "things.stable.example.com";
    const r = await t.post(CRDS, crd);
    expect(r.status).toBe(422);
    expect(r.body.message).toBe(
      'CustomResourceDefinition.apiextensions.k8s.io "things.stable.example.com" is invalid: metadata.name: Invalid value: "things.stable.example.com": must be spec.names.plural+"."+spec.group',
    );
  });

  it("deletes every custom resource before the CRD goes away", async () => {
    const blocked = await t.post(WIDGETS, { ...widget("held"), metadata: { name: "held", finalizers: ["example.com/hold"] } });
    expect(blocked.status).toBe(201);
    const del = await t.del(`${CRDS}/widgets.stable.example.com`);
    expect(del.status).toBe(200);
    expect(del.body.metadata.finalizers).toContain("customresourcecleanup.apiextensions.k8s.io");
    expect(del.body.metadata.deletionTimestamp).toBeDefined();
    await settle();
    const refused = await t.post(WIDGETS, widget("late"));
    expect(refused.status).toBe(405);
    expect(refused.body.message).toBe("create not allowed while custom resource definition is terminating");
    const crd = await t.get(`${CRDS}/widgets.stable.example.com`);
    expect(crd.status).toBe(200);
    const term = crd.body.status.conditions.find((c: { type: string }) => c.type === "Terminating");
    expect(term).toMatchObject({ status: "True", reason: "InstanceDeletionInProgress" });
    const held = await t.get(`${WIDGETS}/held`);
    expect(held.body.metadata.deletionTimestamp).toBeDefined();
    const cur = held.body;
    const released = await t.put(`${WIDGETS}/held`, { ...cur, metadata: { ...cur.metadata, finalizers: [] } });
    expect(released.status).toBe(200);
    await settle();
    const gone = await t.get(`${CRDS}/widgets.stable.example.com`);
    expect(gone.status).toBe(404);
    const notServed = await t.get(WIDGETS);
    expect(notServed.status).toBe(404);
    const disc = await t.get("/apis/stable.example.com/v1");
    expect(disc.status).toBe(404);
  });
});
