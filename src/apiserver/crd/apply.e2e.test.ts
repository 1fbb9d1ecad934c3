/**
 * Server-side apply on custom resources: the CRD's schema (x-kubernetes-list-type and friends)
 * decides how applies of different managers merge, over HTTP and with the real kubectl 1.35.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApiServer, type RunningApiServer } from "../index.js";
import { Kubectl } from "../../../test/e2e/kubectl.js";
import { customResourceType } from "./fieldtypes.js";

let api: RunningApiServer;
let k: Kubectl;

interface Reply {
  status: number;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
}

async function req(method: string, path: string, body: unknown, contentType = "application/json"): Promise<Reply> {
  const res = await fetch(api.url + path, {
    method,
    body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
    headers: body === undefined ? {} : { "Content-Type": contentType },
  });
  return { status: res.status, body: await res.json() };
}

const GADGETS = (version: string) => `/apis/ssa.example.com/${version}/namespaces/default/gadgets`;
const CRD_NAME = "gadgets.ssa.example.com";

const gadgetSchema = {
  type: "object",
  properties: {
    spec: {
      type: "object",
      properties: {
        ports: {
          type: "array",
          "x-kubernetes-list-type": "map",
          "x-kubernetes-list-map-keys": ["name"],
          items: { type: "object", required: ["name"], properties: { name: { type: "string" }, port: { type: "integer" } } },
        },
        tags: { type: "array", "x-kubernetes-list-type": "set", items: { type: "string" } },
        args: { type: "array", items: { type: "string" } },
        selector: { type: "object", "x-kubernetes-map-type": "atomic", additionalProperties: { type: "string" } },
        env: { type: "object", additionalProperties: { type: "string" } },
      },
    },
  },
};

const gadgetCRD = {
  apiVersion: "apiextensions.k8s.io/v1",
  kind: "CustomResourceDefinition",
  metadata: { name: CRD_NAME },
  spec: {
    group: "ssa.example.com",
    scope: "Namespaced",
    names: { plural: "gadgets", singular: "gadget", kind: "Gadget" },
    versions: [
      { name: "v1", served: true, storage: true, schema: { openAPIV3Schema: gadgetSchema } },
      { name: "v1beta1", served: true, storage: false, schema: { openAPIV3Schema: gadgetSchema } },
    ],
  },
};

const gadget = (name: string, spec: Record<string, unknown>, version = "v1") => ({
  apiVersion: `ssa.example.com/${version}`,
  kind: "Gadget",
  metadata: { name },
  spec,
});

const apply = (name: string, manager: string, body: unknown, extra = "", version = "v1") =>
  req("PATCH", `${GADGETS(version)}/${name}?fieldManager=${manager}${extra}`, body, "application/apply-patch+yaml");

// eslint-disable-next-line @typescript-eslint/no-explicit-any
const fieldsOf = (obj: any, manager: string) => obj.metadata.managedFields.find((e: { manager: string }) => e.manager === manager)?.fieldsV1;

beforeAll(async () => {
  api = await startApiServer({ port: 0, insecureHttp: true });
  k = new Kubectl(api.kubeconfigPath);
  const c = await req("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", gadgetCRD);
  expect(c.status).toBe(201);
  await k.ok(["wait", "--for=condition=Established", `crd/${CRD_NAME}`, "--timeout=20s"]);
}, 60_000);

afterAll(async () => {
  await api?.stop();
});

describe("server-side apply on custom resources", () => {
  it("merges a list-type map by key: each manager owns its entries, k:{...} in managedFields", async () => {
    const a = await apply("g1", "alpha", gadget("g1", { ports: [{ name: "http", port: 80 }] }));
    expect(a.status).toBe(201);
    const b = await apply("g1", "beta", gadget("g1", { ports: [{ name: "metrics", port: 9090 }] }));
    expect(b.status).toBe(200);
    expect(b.body.spec.ports).toEqual([
      { name: "http", port: 80 },
      { name: "metrics", port: 9090 },
    ]);
    expect(fieldsOf(b.body, "alpha")).toEqual({ "f:spec": { "f:ports": { 'k:{"name":"http"}': { ".": {}, "f:name": {}, "f:port": {} } } } });
    expect(fieldsOf(b.body, "beta")).toEqual({ "f:spec": { "f:ports": { 'k:{"name":"metrics"}': { ".": {}, "f:name": {}, "f:port": {} } } } });

    // alpha changes its own entry without touching beta's.
    const a2 = await apply("g1", "alpha", gadget("g1", { ports: [{ name: "http", port: 8080 }] }));
    expect(a2.status).toBe(200);
    expect(a2.body.spec.ports).toEqual([
      { name: "http", port: 8080 },
      { name: "metrics", port: 9090 },
    ]);

    // An entry its applier drops and nobody else owns goes away; the other manager's stays.
    const a3 = await apply("g1", "alpha", gadget("g1", {}));
    expect(a3.body.spec.ports).toEqual([{ name: "metrics", port: 9090 }]);
    expect(fieldsOf(a3.body, "alpha")?.["f:spec"]?.["f:ports"]).toBeUndefined();
  });

  it("reports a conflict on another manager's entry field with upstream's message; force takes it over", async () => {
    await apply("g2", "alpha", gadget("g2", { ports: [{ name: "http", port: 80 }] }));
    const conflict = await apply("g2", "beta", gadget("g2", { ports: [{ name: "http", port: 81 }] }));
    expect(conflict.status).toBe(409);
    expect(conflict.body).toMatchObject({
      kind: "Status",
      reason: "Conflict",
      code: 409,
      message: 'Apply failed with 1 conflict: conflict with "alpha": .spec.ports[name="http"].port',
      details: { causes: [{ reason: "FieldManagerConflict", message: 'conflict with "alpha"', field: '.spec.ports[name="http"].port' }] },
    });
    // The same value is shared, not a conflict.
    const shared = await apply("g2", "beta", gadget("g2", { ports: [{ name: "http", port: 80 }] }));
    expect(shared.status).toBe(200);
    const forced = await apply("g2", "beta", gadget("g2", { ports: [{ name: "http", port: 81 }] }), "&force=true");
    expect(forced.status).toBe(200);
    expect(forced.body.spec.ports).toEqual([{ name: "http", port: 81 }]);
    expect(fieldsOf(forced.body, "alpha")).toEqual({ "f:spec": { "f:ports": { 'k:{"name":"http"}': { ".": {}, "f:name": {} } } } });
  });

  it("honours set lists, atomic lists and atomic maps from the schema", async () => {
    await apply("g3", "alpha", gadget("g3", { tags: ["a"], args: ["--x"], selector: { app: "a" }, env: { A: "1" } }));
    const b = await apply("g3", "beta", gadget("g3", { tags: ["b"], env: { B: "2" } }));
    expect(b.status).toBe(200);
    expect(b.body.spec.tags).toEqual(["a", "b"]);
    expect(b.body.spec.env).toEqual({ A: "1", B: "2" });
    expect(fieldsOf(b.body, "beta")).toEqual({ "f:spec": { "f:env": { "f:B": {} }, "f:tags": { 'v:"b"': {} } } });
    // Atomic: a different value anywhere inside is a conflict on the whole list/map.
    const args = await apply("g3", "beta", gadget("g3", { args: ["--y"] }));
    expect(args.status).toBe(409);
    expect(args.body.message).toBe('Apply failed with 1 conflict: conflict with "alpha": .spec.args');
    const sel = await apply("g3", "beta", gadget("g3", { selector: { other: "b" } }));
    expect(sel.status).toBe(409);
    expect(sel.body.message).toBe('Apply failed with 1 conflict: conflict with "alpha": .spec.selector');
  });

  it("uses ObjectMeta's list types for metadata (finalizers are a set)", async () => {
    await apply("g4", "alpha", { ...gadget("g4", {}), metadata: { name: "g4", finalizers: ["example.com/a"] } });
    const b = await apply("g4", "beta", { ...gadget("g4", {}), metadata: { name: "g4", finalizers: ["example.com/b"] } });
    expect(b.status).toBe(200);
    expect(b.body.metadata.finalizers).toEqual(["example.com/a", "example.com/b"]);
    await apply("g4", "alpha", gadget("g4", {}));
    const c = await apply("g4", "beta", gadget("g4", {}));
    expect(c.body.metadata.finalizers ?? []).toEqual([]);
  });

  it("registers every served version", async () => {
    await apply("g5", "alpha", gadget("g5", { ports: [{ name: "a", port: 1 }] }, "v1beta1"), "", "v1beta1");
    const b = await apply("g5", "beta", gadget("g5", { ports: [{ name: "b", port: 2 }] }, "v1beta1"), "", "v1beta1");
    expect(b.status).toBe(200);
    expect(b.body.apiVersion).toBe("ssa.example.com/v1beta1");
    expect(b.body.spec.ports.map((p: { name: string }) => p.name)).toEqual(["a", "b"]);
    expect(Object.keys(fieldsOf(b.body, "beta")["f:spec"]["f:ports"])).toEqual(['k:{"name":"b"}']);
  });

  it("kubectl apply --server-side from two field managers keeps both entries", async () => {
    const yaml = (port: string) => `apiVersion: ssa.example.com/v1
kind: Gadget
metadata:
  name: g6
  namespace: default
spec:
  ports:
  - name: ${port}
    port: 1${port.length}
`;
    const one = await k.manifest("g6-one.yaml", yaml("one"));
    const three = await k.manifest("g6-three.yaml", yaml("three"));
    expect((await k.ok(["apply", "--server-side", "--field-manager=team-one", "-f", one])).trim()).toBe("gadget.ssa.example.com/g6 serverside-applied");
    expect((await k.ok(["apply", "--server-side", "--field-manager=team-three", "-f", three])).trim()).toBe("gadget.ssa.example.com/g6 serverside-applied");
    const got = JSON.parse(await k.ok(["get", "gadget", "g6", "-o", "json", "--show-managed-fields"]));
    expect(got.spec.ports).toEqual([
      { name: "one", port: 13 },
      { name: "three", port: 15 },
    ]);
    expect(Object.keys(fieldsOf(got, "team-one")["f:spec"]["f:ports"])).toEqual(['k:{"name":"one"}']);
    expect(Object.keys(fieldsOf(got, "team-three")["f:spec"]["f:ports"])).toEqual(['k:{"name":"three"}']);

    const clash = await k.run(["apply", "--server-side", "--field-manager=team-three", "-f", await k.manifest("g6-clash.yaml", yaml("one").replace("port: 13", "port: 99"))]);
    expect(clash.code).not.toBe(0);
    expect(clash.stderr).toContain('Apply failed with 1 conflict: conflict with "team-one": .spec.ports[name="one"].port');
  });

  it("forgets the types when the CRD is withdrawn", async () => {
    const fm = api.server.fieldManager;
    const probe = { apiVersion: "ssa.example.com/v1", kind: "Gadget" };
    expect(fm.typeOf(probe).kind).toBe("struct");
    expect(fm.typeOf({ ...probe, apiVersion: "ssa.example.com/v1beta1" }).kind).toBe("struct");
    const del = await req("DELETE", `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${CRD_NAME}`, undefined);
    expect(del.status).toBe(200);
    await k.ok(["wait", "--for=delete", `crd/${CRD_NAME}`, "--timeout=20s"]);
    await api.server.customResources.idle();
    expect(fm.typeOf(probe).kind).toBe("deduced");
    expect(fm.typeOf({ ...probe, apiVersion: "ssa.example.com/v1beta1" }).kind).toBe("deduced");
  });
});

describe("customResourceType", () => {
  it("types metadata as ObjectMeta and embedded resources' implicit fields, lists by their extensions", () => {
    const t = customResourceType({
      type: "object",
      properties: {
        metadata: { type: "object", properties: { name: { type: "string", maxLength: 5 } } },
        spec: {
          type: "object",
          properties: {
            template: { type: "object", "x-kubernetes-embedded-resource": true, "x-kubernetes-preserve-unknown-fields": true },
            items: { type: "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["a", "b"], items: { type: "object" } },
          },
        },
      },
    });
    if (t.kind !== "struct") throw new Error(`root is ${t.kind}`);
    const meta = t.field("metadata");
    if (meta?.kind !== "struct") throw new Error("metadata is not a struct");
    expect(meta.field("finalizers")).toMatchObject({ kind: "list", listType: "set" });
    expect(meta.field("ownerReferences")).toMatchObject({ kind: "list", listType: "map", keys: ["uid"] });
    expect(t.field("apiVersion")).toEqual({ kind: "scalar" });
    const spec = t.field("spec");
    if (spec?.kind !== "struct") throw new Error("spec is not a struct");
    expect(spec.field("items")).toMatchObject({ kind: "list", listType: "map", keys: ["a", "b"] });
    const tmpl = spec.field("template");
    if (tmpl?.kind !== "struct") throw new Error("embedded resource is not a struct");
    expect(tmpl.field("metadata")?.kind).toBe("struct");
    expect(tmpl.field("anything")).toBeUndefined();
  });

  it("without a schema, the object is open but metadata is still ObjectMeta", () => {
    const t = customResourceType(undefined);
    expect(t.kind).toBe("struct");
    if (t.kind === "struct") expect(t.field("metadata")?.kind).toBe("struct");
  });
});
