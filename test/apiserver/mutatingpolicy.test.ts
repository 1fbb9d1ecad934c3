/**
 * MutatingAdmissionPolicy through the server: ApplyConfiguration (structured merge, typed
 * initializers, atomic fields refused) and JSONPatch mutations (escapeKey, failed tests), params
 * and matchConditions, defaults after a mutation, failure policies with upstream's texts,
 * reinvocation (IfNeeded vs Never), and type checking in status; plus the CEL side (Object{...}
 * and JSONPatch{...} construction) on its own.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { builtinServerConfig } from "../../src/apiserver/index.js";
import { compile, valToJSON } from "../../src/apiserver/admission/policy/cel.js";
import { compileMutatingPolicy, escapeKey, mutationPolicyEnv } from "../../src/apiserver/admission/policy/mutating.js";
import { StructValue } from "../../src/apiserver/cel/values.js";
import { TestServer } from "./harness.js";

const MAP = "/apis/admissionregistration.k8s.io/v1/mutatingadmissionpolicies";
const MAPB = "/apis/admissionregistration.k8s.io/v1/mutatingadmissionpolicybindings";
const DEP = (ns = "default") => `/apis/apps/v1/namespaces/${ns}/deployments`;
const CM = (ns = "default") => `/api/v1/namespaces/${ns}/configmaps`;

const rules = (resources: string[], apiGroups = ["", "apps"]) => ({ resourceRules: [{ apiGroups, apiVersions: ["v1"], operations: ["CREATE", "UPDATE"], resources }] });
const policy = (name: string, spec: Record<string, unknown>) => ({
  apiVersion: "admissionregistration.k8s.io/v1",
  kind: "MutatingAdmissionPolicy",
  metadata: { name },
  spec: { matchConstraints: rules(["deployments", "configmaps"]), reinvocationPolicy: "Never", ...spec },
});
const apply = (expression: string) => ({ patchType: "ApplyConfiguration", applyConfiguration: { expression } });
const jsonPatch = (expression: string) => ({ patchType: "JSONPatch", jsonPatch: { expression } });
const binding = (name: string, policyName: string, spec: Record<string, unknown> = {}) => ({
  apiVersion: "admissionregistration.k8s.io/v1",
  kind: "MutatingAdmissionPolicyBinding",
  metadata: { name },
  spec: { policyName, ...spec },
});
const deployment = (name: string, replicas: number) => ({
  apiVersion: "apps/v1",
  kind: "Deployment",
  metadata: { name },
  spec: { replicas, selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: "c", image: "nginx" }, { name: "d", image: "busybox" }] } } },
});
const configMap = (name: string, data: Record<string, string> = {}, labels?: Record<string, string>) => ({ apiVersion: "v1", kind: "ConfigMap", metadata: { name, labels }, data });

describe("MutatingAdmissionPolicy", () => {
  const t = new TestServer({ strategies: builtinServerConfig().strategies });
  beforeAll(() => t.start());
  afterAll(() => t.stop());

  async function install(p: unknown, ...bs: unknown[]): Promise<void> {
    expect((await t.post(MAP, p)).status).toBe(201);
    for (const b of bs) expect((await t.post(MAPB, b)).status).toBe(201);
  }
  async function remove(policies: string[], bindings: string[]): Promise<void> {
    for (const b of bindings) await t.del(`${MAPB}/${b}`);
    for (const p of policies) await t.del(`${MAP}/${p}`);
  }

  it("merges an ApplyConfiguration into the object (maps merged, containers by name) and defaults what it added", async () => {
    await install(
      policy("sidecar", {
        mutations: [
          apply(`Object{metadata: Object.metadata{labels: {"mutated": "true"}}}`),
          apply(
            `Object{spec: Object.spec{template: Object.spec.template{spec: Object.spec.template.spec{containers: [Object.spec.template.spec.containers{name: "d", image: "busybox:1.36"}, Object.spec.template.spec.containers{name: "proxy", image: "mesh/proxy:v1"}]}}}}`,
          ),
        ],
      }),
      binding("sidecar-b", "sidecar", { matchResources: { resourceRules: [{ apiGroups: ["apps"], apiVersions: ["v1"], operations: ["CREATE"], resources: ["deployments"] }] } }),
    );
    const r = await t.post(DEP(), deployment("web", 2));
    expect(r.status).toBe(201);
    expect(r.body.metadata.labels).toEqual({ mutated: "true" });
    const containers = r.body.spec.template.spec.containers as { name: string; image: string; imagePullPolicy?: string; terminationMessagePath?: string }[];
    expect(containers.map((c) => `${c.name}=${c.image}`)).toEqual(["c=nginx", "d=busybox:1.36", "proxy=mesh/proxy:v1"]);
    // The added container got the Pod template's defaults, as upstream re-defaults after each patch.
    expect(containers[2].imagePullPolicy).toBe("IfNotPresent");
    expect(containers[2].terminationMessagePath).toBe("/dev/termination-log");
    // The binding matches CREATE only: an update keeps what the client sends.
    const u = await t.patch(`${DEP()}/web`, { metadata: { labels: { mutated: "no" } } });
    expect(u.body.metadata.labels).toEqual({ mutated: "no" });
    await remove(["sidecar"], ["sidecar-b"]);
  });

  it("refuses apply configurations that set atomic fields or misname their initializers, with upstream's texts", async () => {
    await install(policy("atomic", { mutations: [apply(`Object{spec: Object.spec{selector: Object.spec.selector{matchLabels: {"x": "y"}}}}`)] }), binding("atomic-b", "atomic"));
    const r = await t.post(DEP(), deployment("a", 1));
    expect(r.status).toBe(403);
    expect(r.body.reason).toBe("Invalid");
    const msg = "policy 'atomic' with binding 'atomic-b' denied request: error applying patch: invalid ApplyConfiguration: may not mutate atomic arrays, maps or structs: .spec.selector";
    expect(r.body.message).toBe(msg);
    expect(r.body.details.causes).toEqual([{ message: msg }]);
    expect((await t.get(`${DEP()}/a`)).status).toBe(404);
    await t.patch(`${MAP}/atomic`, { spec: { mutations: [apply(`Object{spec: Object.spec.wrong{replicas: 3}}`)] } });
    const w = await t.post(DEP(), deployment("a", 1));
    expect(w.body.message).toBe(
      `policy 'atomic' with binding 'atomic-b' denied request: type mismatch: unexpected type name "Object.spec.wrong", expected "Object.spec", which matches field name path from root Object type`,
    );
    // failurePolicy Ignore: the request goes through unmutated.
    await t.patch(`${MAP}/atomic`, { spec: { failurePolicy: "Ignore" } });
    const ok = await t.post(DEP(), deployment("a", 1));
    expect(ok.status).toBe(201);
    expect(ok.body.spec.replicas).toBe(1);
    await remove(["atomic"], ["atomic-b"]);
  });

  it("applies JSONPatch mutations (escapeKey, values from params and the request), skips a patch whose test fails", async () => {
    await t.post(CM(), configMap("owner", { team: "payments" }));
    await install(
      policy("annotate", {
        paramKind: { apiVersion: "v1", kind: "ConfigMap" },
        matchConstraints: rules(["configmaps"]),
        matchConditions: [{ name: "not-the-param", expression: "object.metadata.name != 'owner'" }],
        mutations: [
          jsonPatch(`[JSONPatch{op: "add", path: "/metadata/labels/" + jsonpatch.escapeKey("example.com/team"), value: params.data.team}, JSONPatch{op: "add", path: "/data/op", value: request.operation}]`),
          jsonPatch(`[JSONPatch{op: "test", path: "/metadata/labels/keep", value: "no"}, JSONPatch{op: "remove", path: "/metadata/labels/keep"}]`),
        ],
      }),
      binding("annotate-b", "annotate", { paramRef: { name: "owner", parameterNotFoundAction: "Deny" } }),
    );
    const r = await t.post(CM(), configMap("c1", {}, { keep: "yes" }));
    expect(r.status).toBe(201);
    expect(r.body.metadata.labels).toEqual({ keep: "yes", "example.com/team": "payments" });
    expect(r.body.data).toEqual({ op: "CREATE" });
    // A patch that does not apply is an error; a missing param is a configuration error (reason Forbidden).
    await t.patch(`${MAP}/annotate`, { spec: { mutations: [jsonPatch(`[JSONPatch{op: "replace", path: "/data/missing", value: "x"}]`)] } });
    const bad = await t.post(CM(), configMap("c2"));
    expect(bad.status).toBe(403);
    expect(bad.body.message).toBe("policy 'annotate' with binding 'annotate-b' denied request: JSONPath: replace operation does not apply: doc is missing key: /data/missing: missing value");
    await t.post("/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name: "other" } });
    const missing = await t.post(CM("other"), configMap("c3"));
    expect(missing.status).toBe(403);
    expect(missing.body.reason).toBe("Forbidden");
    expect(missing.body.message).toBe("policy 'annotate' with binding 'annotate-b' denied request: failed to configure binding: no params found for policy binding with `Deny` parameterNotFoundAction");
    await remove(["annotate"], ["annotate-b"]);
  });

  it("reinvokes IfNeeded policies when a later policy changed the object, and not Never ones", async () => {
    const first = (reinvocationPolicy: string) =>
      policy("a-first", {
        reinvocationPolicy,
        mutations: [apply(`Object{metadata: Object.metadata{labels: {"first": has(object.metadata.labels) && "second" in object.metadata.labels ? "after-second" : "before-second"}}}`)],
      });
    await install(first("IfNeeded"), binding("a-first-b", "a-first"));
    await install(policy("b-second", { mutations: [apply(`Object{metadata: Object.metadata{labels: {"second": "yes"}}}`)] }), binding("b-second-b", "b-second"));
    const r = await t.post(CM(), configMap("re1"));
    expect(r.body.metadata.labels).toEqual({ first: "after-second", second: "yes" });
    await t.put(`${MAP}/a-first`, { ...first("Never"), metadata: { name: "a-first", resourceVersion: (await t.get(`${MAP}/a-first`)).body.metadata.resourceVersion } });
    const n = await t.post(CM(), configMap("re2"));
    expect(n.body.metadata.labels).toEqual({ first: "before-second", second: "yes" });
    await remove(["a-first", "b-second"], ["a-first-b", "b-second-b"]);
  });

  it("reports expressions that do not compile or return the wrong type in status, and denies with them under Fail", async () => {
    await install(policy("broken", { mutations: [apply(`"not an object"`), jsonPatch(`[JSONPatch{op: "add"`)] }), binding("broken-b", "broken"));
    const r = await t.post(CM(), configMap("x"));
    expect(r.status).toBe(403);
    expect(r.body.message).toBe("policy 'broken' with binding 'broken-b' denied request: must evaluate to Object but got string");
    expect(r.body.details.causes).toHaveLength(2);
    expect(r.body.details.causes[1].message).toMatch(/^policy 'broken' with binding 'broken-b' denied request: compilation failed: ERROR: <input>:1:/);
    let status: { observedGeneration?: number; typeChecking?: { expressionWarnings?: { fieldRef: string; warning: string }[] } } = {};
    for (let i = 0; i < 50 && status.observedGeneration !== 1; i++) {
      await new Promise((res) => setImmediate(res));
      status = (await t.get(`${MAP}/broken`)).body.status ?? {};
    }
    expect(status.observedGeneration).toBe(1);
    expect(status.typeChecking?.expressionWarnings?.map((w) => w.fieldRef)).toEqual(["spec.mutations[0].applyConfiguration.expression", "spec.mutations[1].jsonPatch.expression"]);
    await remove(["broken"], ["broken-b"]);
  });
});

describe("MutatingAdmissionPolicy CEL", () => {
  it.each([
    ["a.b/c~d", "a.b~1c~0d"],
    ["plain", "plain"],
    ["~/", "~0~1"],
  ])("jsonpatch.escapeKey(%j) = %j", (input, want) => {
    expect(escapeKey(input)).toBe(want);
    const c = compile(`jsonpatch.escapeKey(${JSON.stringify(input)})`, mutationPolicyEnv());
    expect(c.program!.eval({}).value).toBe(want);
  });

  it("constructs Object{...} and JSONPatch{...} values, optional fields included; other message types stay undeclared", () => {
    const env = mutationPolicyEnv();
    const c = compile(`Object{spec: Object.spec{replicas: 3, ?paused: optional.none(), ?minReadySeconds: optional.of(5)}}`, env);
    expect(c.error).toBeUndefined();
    expect(c.type).toEqual({ kind: "object", name: "Object" });
    const v = c.program!.eval({}).value;
    expect(v).toBeInstanceOf(StructValue);
    expect(valToJSON(v!)).toEqual({ spec: { replicas: 3, minReadySeconds: 5 } });
    const p = compile(`[JSONPatch{op: "add", path: "/x", value: {"k": [1, 2]}}]`, env);
    expect(valToJSON(p.program!.eval({}).value!)).toEqual([{ op: "add", path: "/x", value: { k: [1, 2] } }]);
    expect(compile(`JSONPatch{op: "a"} == JSONPatch{op: "a"}`, env).program!.eval({}).value).toBe(true);
    expect(compile(`Other{a: 1}`, env).error).toBe("compilation failed: ERROR: <input>:1:6: undeclared reference to 'Other' (in container '')\n | Other{a: 1}\n | .....^");
    // The plain policy environment (ValidatingAdmissionPolicy) has no message types at all.
    expect(compile(`Object{}`).error).toMatch(/undeclared reference to 'Object'/);
  });

  it("checks mutation result types at compile time", () => {
    const p = compileMutatingPolicy({ metadata: { name: "p" }, spec: { mutations: [apply("Object{}"), jsonPatch("[]"), jsonPatch("[JSONPatch{}]"), jsonPatch("Object{}"), apply("object")] } });
    expect(p.warnings).toEqual([{ fieldRef: "spec.mutations[3].jsonPatch.expression", warning: "must evaluate to list(JSONPatch) but got Object" }]);
  });
});
