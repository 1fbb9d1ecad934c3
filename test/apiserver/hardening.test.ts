/**
 * The defects of issue 18 (hardening), each as a request that used to crash the server, hang,
 * or get an answer other than upstream's Status — now answered properly while the server goes
 * on serving.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { builtinServerConfig } from "../../src/apiserver/index.js";
import { encodeProtobufBody } from "../../src/apiserver/protobuf/index.js";
import { maxNestingDepth } from "../../src/apiserver/server/decodelimits.js";
import { TestServer } from "./harness.js";
import { RawConnection, rawRequest } from "./raw.js";

const CM = "/api/v1/namespaces/default/configmaps";
const SSAR = "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews";
const nested = (n: number) => "[".repeat(n) + "]".repeat(n);

function expectStatus(body: unknown, code: number, reason?: string): void {
  expect(body).toMatchObject({ kind: "Status", apiVersion: "v1", status: "Failure", code });
  if (reason !== undefined) expect((body as { reason: string }).reason).toBe(reason);
}

describe("hardening: no input crashes the server, every error is a Status", () => {
  const admin = new TestServer(builtinServerConfig({ security: {} }));
  // A user with no permissions at all (RBAC allows only discovery and the self reviews).
  const nobody = new TestServer(builtinServerConfig({ security: { insecureUser: { username: "nobody", groups: [] } } }));
  beforeAll(async () => {
    await Promise.all([admin.start(), nobody.start()]);
    expect((await admin.post(CM, { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "keep" } })).status).toBe(201);
    expect(
      (await admin.post("/api/v1/namespaces/default/secrets", { apiVersion: "v1", kind: "Secret", metadata: { name: "x" }, stringData: { k: "secret" } })).status,
    ).toBe(201);
  });
  afterAll(() => Promise.all([admin.stop(), nobody.stop()]));

  it("defect 1: deeply nested YAML from a user without permissions is a 400, twice, and the server lives on", async () => {
    const doc = `apiVersion: authorization.k8s.io/v1\nkind: SelfSubjectAccessReview\nspec:\n  x: ${nested(1000)}\n`;
    const seq = `apiVersion: authorization.k8s.io/v1\nkind: SelfSubjectAccessReview\nspec:\n  x:\n    ${"- ".repeat(1000)}x\n`;
    for (const body of [doc, doc, seq, seq]) {
      const r = await nobody.post(SSAR, body, { "Content-Type": "application/yaml" });
      expect(r.status).toBe(400);
      expectStatus(r.body, 400, "BadRequest");
      expect(r.body.message).toBe(`error converting YAML to JSON: yaml: exceeded max depth of ${maxNestingDepth}`);
    }
    const apply = `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: deep\ndata:\n  x: ${nested(1000)}\n`;
    const r = await admin.patch(`${CM}/deep?fieldManager=t`, apply, "application/apply-patch+yaml");
    expectStatus(r.body, 400, "BadRequest");
    expect(r.body.message).toContain("exceeded max depth");
    const ok = await nobody.post(SSAR, { apiVersion: "authorization.k8s.io/v1", kind: "SelfSubjectAccessReview", spec: { resourceAttributes: { verb: "get", resource: "pods" } } });
    expect(ok.status).toBe(201);
    expect(ok.body.status.allowed).toBe(false);
  });

  it("defect 5: dot segments are names (400 Name parameter invalid), never resolved", async () => {
    const del = await rawRequest(admin.url, "DELETE", `${CM}/..`);
    expect(del.status).toBe(400);
    expectStatus(del.body, 400, "BadRequest");
    expect(del.body.message).toBe(`Name parameter invalid: "..": may not be '..'`);
    expect((await admin.get("/api/v1/namespaces/default")).body.status.phase).toBe("Active");
    expect((await admin.get(`${CM}/keep`)).status).toBe(200);

    const traversal = await rawRequest(admin.url, "GET", `${CM}/../secrets/x`);
    expect(traversal.status).toBe(404);
    expect(traversal.text).not.toContain("secret");
    expectStatus(traversal.body, 404, "NotFound");

    for (const [path, message] of [
      [`${CM}/.`, `Name parameter invalid: ".": may not be '.'`],
      [`${CM}/a%2Fb`, `Name parameter invalid: "a/b": may not contain '/'`],
      [`${CM}/a%25b`, `Name parameter invalid: "a%b": may not contain '%'`],
      [`${CM}/%2e%2e`, `Name parameter invalid: "..": may not be '..'`],
    ]) {
      const r = await rawRequest(admin.url, "GET", path);
      expect(r.status, path).toBe(400);
      expect(r.body.message, path).toBe(message);
    }
    // Backslashes are not slashes.
    expect((await rawRequest(admin.url, "GET", "/api/v1/namespaces\\default/configmaps")).status).toBe(404);
  });

  it("defect 6: malformed escapes, deep documents and wrong-typed metadata are 400s, not 500s", async () => {
    const esc = await rawRequest(admin.url, "GET", `${CM}/a%zz`);
    expect(esc.status).toBe(400);
    expectStatus(esc.body, 400, "BadRequest");
    expect(esc.body.message).toBe('invalid URL escape "%zz"');

    const deepJSON = `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"d"},"data":{"x":${nested(5000)}}}`;
    const dj = await admin.post(CM, deepJSON);
    expect(dj.status).toBe(400);
    expect(dj.body.message).toBe(`couldn't get version/kind; json parse error: exceeded max depth of ${maxNestingDepth}`);
    const deepYAML = await admin.post(CM, `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: d}\ndata:\n  x: ${nested(5000)}\n`, { "Content-Type": "application/yaml" });
    expect(deepYAML.status).toBe(400);
    const deepMerge = await admin.patch(`${CM}/keep`, `{"metadata":{"annotations":${nested(5000)}}}`);
    expect(deepMerge.status).toBe(400);
    expect(deepMerge.body.message).toContain("exceeded max depth");
    // JSON patch: copying a value into itself cannot build what the decoder would refuse.
    const doubling = Array.from({ length: 40 }, (_, i) => ({ op: "copy", from: "/metadata/labels", path: `/metadata/labels/x${i}` }));
    const jp = await admin.patch(`${CM}/keep`, [{ op: "add", path: "/metadata/labels", value: { a: "b".repeat(60) } }, ...doubling], "application/json-patch+json");
    expect([400, 422]).toContain(jp.status);
    expectStatus(jp.body, jp.status);

    const fin = await admin.post(CM, { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "f", finalizers: "x" } });
    expect(fin.status).toBe(400);
    expect(fin.body.message).toBe(
      'ConfigMap in version "v1" cannot be handled as a ConfigMap: json: cannot unmarshal string into Go struct field ObjectMeta.metadata.finalizers of type []string',
    );
    const labels = await admin.put(`${CM}/keep`, { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "keep", labels: { a: 1 } } });
    expect(labels.status).toBe(400);
    const patched = await admin.patch(`${CM}/keep`, { metadata: { finalizers: "x" } });
    expect(patched.status).toBe(422);
    expectStatus(patched.body, 422, "Invalid");
    expect(patched.body.details.causes[0]).toMatchObject({ field: "patch", reason: "FieldValueInvalid" });
    expect(patched.body.message).toContain("json: cannot unmarshal string into Go struct field ObjectMeta.metadata.finalizers of type []string");
    const applied = await admin.patch(`${CM}/keep?fieldManager=t`, JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "keep", ownerReferences: "x" } }), "application/apply-patch+yaml");
    expect(applied.status).toBe(400);
    // Nothing of it was stored.
    const keep = await admin.get(`${CM}/keep`);
    expect(keep.body.metadata.finalizers).toBeUndefined();
    expect(keep.body.metadata.ownerReferences).toBeUndefined();
    expect((await admin.get(`${CM}/f`)).status).toBe(404);
  });

  it("bounds protobuf bodies: recursive messages past the decoder's depth are a 400", async () => {
    let schema: Record<string, unknown> = { type: "string" };
    for (let i = 0; i < 300; i++) schema = { type: "object", properties: { a: schema } };
    const crd = {
      apiVersion: "apiextensions.k8s.io/v1",
      kind: "CustomResourceDefinition",
      metadata: { name: "deeps.example.com" },
      spec: {
        group: "example.com",
        scope: "Namespaced",
        names: { plural: "deeps", singular: "deep", kind: "Deep" },
        versions: [{ name: "v1", served: true, storage: true, schema: { openAPIV3Schema: schema } }],
      },
    };
    const path = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";
    const pb = await admin.post(path, Buffer.from(encodeProtobufBody(crd)), { "Content-Type": "application/vnd.kubernetes.protobuf" });
    expect(pb.status).toBe(400);
    expectStatus(pb.body, 400, "BadRequest");
    expect(pb.body.message).toMatch(/^protobuf decoding error: message nesting deeper than \d+$/);
    const json = await admin.post(path, crd);
    expect(json.status).toBe(400);
    expect(json.body.message).toContain("exceeded max depth");
  });

  it("defect 6: a watch with an invalid resourceVersion is answered with an error before any stream", async () => {
    const r = await admin.get(`${CM}?watch=true&resourceVersion=abc`);
    expect(r.status).toBe(400);
    expectStatus(r.body, 400, "BadRequest");
    expect(r.body.message).toBe('invalid resourceVersion: "abc"');
    const w = await admin.get(`/api/v1/watch/namespaces/default/configmaps?resourceVersion=-1`);
    expect(w.status).toBe(400);
  });

  it("defect 8: 16 KiB+ of headers are accepted, more than 1 MiB is a 431 Status", async () => {
    const big = await rawRequest(admin.url, "GET", `${CM}/keep`, { "X-Padding": "a".repeat(64 * 1024) });
    expect(big.status).toBe(200);
    const c = new RawConnection(admin.url, `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Padding: ${"a".repeat(1100 * 1024)}\r\n\r\n`);
    await c.closed;
    const r = c.reply();
    expect(r.status).toBe(431);
    expectStatus(r.body, 431);
  });

  it("defect 8: unknown methods, CONNECT and unsupported expectations get Status answers", async () => {
    for (const line of ["FOO /api/v1/namespaces HTTP/1.1", "CONNECT example.com:443 HTTP/1.1"]) {
      const c = new RawConnection(admin.url, `${line}\r\nHost: x\r\n\r\n`);
      await c.closed;
      const r = c.reply();
      expect(r.status, line).toBe(405);
      expectStatus(r.body, 405, "MethodNotAllowed");
    }
    for (const method of ["OPTIONS", "PROPFIND", "TRACE"]) {
      const r = await rawRequest(admin.url, method, `${CM}/keep`);
      expect(r.status, method).toBe(405);
      expectStatus(r.body, 405, "MethodNotAllowed");
    }
    const c = new RawConnection(admin.url, `GET /healthz HTTP/1.1\r\nHost: x\r\nExpect: teapot\r\n\r\n`);
    await c.closed;
    expect(c.reply().status).toBe(417);
    expectStatus(c.reply().body, 417);
    const garbage = new RawConnection(admin.url, "\x16\x03\x01 not http at all\r\n\r\n");
    await garbage.closed;
    expect(garbage.reply().status).toBe(400);
    expectStatus(garbage.reply().body, 400);
  });

  it("answers a malformed timeout parameter with upstream's 400", async () => {
    const r = await admin.get(`${CM}?timeout=soon`);
    expect(r.status).toBe(400);
    expect(r.body.message).toBe('invalid timeout specified in the request URL - time: invalid duration "soon"');
    expect((await admin.get(`${CM}?timeout=30s`)).status).toBe(200);
  });

  it("still serves everyone after all of it", async () => {
    expect((await admin.get("/healthz")).text).toBe("ok");
    expect((await admin.get(`${CM}/keep`)).status).toBe(200);
    expect((await nobody.get(`${CM}/keep`)).status).toBe(403);
  });
});
