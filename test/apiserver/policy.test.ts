/**
 * ValidatingAdmissionPolicy through the server: bindings, validation actions, messages and
 * reasons, params (name, selector, namespace, parameterNotFoundAction), matchConditions,
 * variables, selectors and exclusions, failure policies, audit annotations, the authorizer
 * library, type-checking status, and compilation once per generation.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { KubeObject } from "../../src/apimachinery/types.js";
import { FakeClock } from "../../src/apimachinery/clock.js";
import { MemoryStorage } from "../../src/apiserver/storage/memory.js";
import { ResourceRegistry } from "../../src/apiserver/server/resources.js";
import { newAttributes } from "../../src/apiserver/admission/attributes.js";
import { CompiledPolicies } from "../../src/apiserver/admission/policy/compiled.js";
import { collectParams } from "../../src/apiserver/admission/policy/params.js";
import { compileValidatingPolicy, validatingAdmissionPolicyPlugin } from "../../src/apiserver/admission/policy/validating.js";
import { objectKey } from "../../src/apiserver/rest/keys.js";
import { ResourceStore } from "../../src/apiserver/rest/store.js";
import { builtinServerConfig } from "../../src/apiserver/index.js";
import { TestServer } from "./harness.js";

const VAP = "/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies";
const VAPB = "/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings";
const DEP = (ns = "default") => `/apis/apps/v1/namespaces/${ns}/deployments`;

const policy = (name: string, spec: Record<string, unknown>) => ({
  apiVersion: "admissionregistration.k8s.io/v1",
  kind: "ValidatingAdmissionPolicy",
  metadata: { name },
  spec: { matchConstraints: { resourceRules: [{ apiGroups: ["apps"], apiVersions: ["v1"], operations: ["CREATE", "UPDATE"], resources: ["deployments"] }] }, ...spec },
});
const binding = (name: string, policyName: string, spec: Record<string, unknown> = {}) => ({
  apiVersion: "admissionregistration.k8s.io/v1",
  kind: "ValidatingAdmissionPolicyBinding",
  metadata: { name },
  spec: { policyName, validationActions: ["Deny"], ...spec },
});
const deployment = (name: string, replicas: number, labels: Record<string, string> = {}) => ({
  apiVersion: "apps/v1",
  kind: "Deployment",
  metadata: { name, labels },
  spec: { replicas, selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: "c", image: "nginx" }] } } },
});
const warnings = (h: Headers) => (h.get("warning") ?? "").split(/,\s*(?=299 )/).filter((w) => w !== "");

describe("ValidatingAdmissionPolicy", () => {
  const t = new TestServer({ strategies: builtinServerConfig().strategies });
  beforeAll(() => t.start());
  afterAll(() => t.stop());

  async function install(p: unknown, b: unknown): Promise<void> {
    expect((await t.post(VAP, p)).status).toBe(201);
    expect((await t.post(VAPB, b)).status).toBe(201);
  }
  async function remove(p: string, b: string): Promise<void> {
    await t.del(`${VAPB}/${b}`);
    await t.del(`${VAP}/${p}`);
  }

  it("denies a Deployment with more than 5 replicas with upstream's text, from the moment the binding is stored", async () => {
    await install(policy("max-replicas", { validations: [{ expression: "object.spec.replicas <= 5", message: "replicas must be no greater than 5" }] }), binding("max-replicas-b", "max-replicas"));
    const r = await t.post(DEP(), deployment("big", 6));
    expect(r.status).toBe(422);
    expect(r.body.reason).toBe("Invalid");
    expect(r.body.message).toBe("deployments.apps \"big\" is forbidden: ValidatingAdmissionPolicy 'max-replicas' with binding 'max-replicas-b' denied request: replicas must be no greater than 5");
    expect(r.body.details.causes).toEqual([{ message: "ValidatingAdmissionPolicy 'max-replicas' with binding 'max-replicas-b' denied request: replicas must be no greater than 5" }]);
    expect((await t.post(DEP(), deployment("small", 3))).status).toBe(201);
    // Updates and scale-ups through a patch are checked too.
    const up = await t.patch(`${DEP()}/small`, { spec: { replicas: 9 } });
    expect(up.status).toBe(422);
    await remove("max-replicas", "max-replicas-b");
    expect((await t.post(DEP(), deployment("big", 6))).status).toBe(201);
  });

  it("uses messageExpression, reason and the failed expression as messages; Warn and Audit do not deny", async () => {
    await install(
      policy("msg", {
        validations: [
          { expression: "object.spec.replicas < 100", messageExpression: "'too many: ' + string(object.spec.replicas)", reason: "Forbidden" },
          { expression: "object.metadata.name != 'x'" },
        ],
      }),
      binding("msg-b", "msg"),
    );
    const r = await t.post(DEP(), deployment("huge", 100));
    expect(r.status).toBe(403);
    expect(r.body.message).toBe("deployments.apps \"huge\" is forbidden: ValidatingAdmissionPolicy 'msg' with binding 'msg-b' denied request: too many: 100");
    const x = await t.post(DEP(), deployment("x", 1));
    expect(x.status).toBe(422);
    expect(x.body.message).toContain("denied request: failed expression: object.metadata.name != 'x'");
    await t.patch(`${VAPB}/msg-b`, { spec: { validationActions: ["Warn", "Audit"] } });
    const w = await t.post(DEP(), deployment("huge", 100));
    expect(w.status).toBe(201);
    expect(warnings(w.headers)).toEqual(["299 - \"Validation failed for ValidatingAdmissionPolicy 'msg' with binding 'msg-b': too many: 100\""]);
    await remove("msg", "msg-b");
  });

  it("binds params by name, by selector, in the request's namespace, and follows parameterNotFoundAction", async () => {
    await t.post("/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name: "team" } });
    await t.post("/api/v1/namespaces/team/configmaps", { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "limits", labels: { kind: "limits" } }, data: { max: "2" } });
    await install(
      policy("param", {
        paramKind: { apiVersion: "v1", kind: "ConfigMap" },
        validations: [{ expression: "object.spec.replicas <= int(params.data.max)", messageExpression: "'at most ' + params.data.max" }],
      }),
      binding("param-b", "param", { paramRef: { name: "limits", parameterNotFoundAction: "Deny" } }),
    );
    await t.server.controllers.idle();
    const r = await t.post(DEP("team"), deployment("d", 3));
    expect(r.status).toBe(422);
    expect(r.body.message).toContain("denied request: at most 2");
    // No such ConfigMap in default: Deny → refused; Allow → admitted.
    const missing = await t.post(DEP(), deployment("d", 3));
    expect(missing.body.message).toBe(
      "deployments.apps \"d\" is forbidden: ValidatingAdmissionPolicy 'param' with binding 'param-b' denied request: failed to configure binding: no params found for policy binding with `Deny` parameterNotFoundAction",
    );
    await t.patch(`${VAPB}/param-b`, { spec: { paramRef: { name: null, selector: { matchLabels: { kind: "limits" } }, parameterNotFoundAction: "Allow" } } });
    expect((await t.post(DEP(), deployment("d", 3))).status).toBe(201);
    expect((await t.post(DEP("team"), deployment("d", 3))).status).toBe(422);
    await remove("param", "param-b");
  });

  it("evaluates matchConditions, variables, selectors and exclusions", async () => {
    await install(
      policy("scoped", {
        matchConstraints: {
          resourceRules: [{ apiGroups: ["*"], apiVersions: ["*"], operations: ["CREATE"], resources: ["deployments", "configmaps"] }],
          excludeResourceRules: [{ apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["configmaps"], resourceNames: ["exempt"] }],
          objectSelector: { matchExpressions: [{ key: "skip", operator: "DoesNotExist" }] },
        },
        matchConditions: [{ name: "not-system", expression: "!request.userInfo.username.startsWith('system:')" }],
        variables: [
          { name: "kind", expression: "request.kind.kind" },
          { name: "isDeployment", expression: "variables.kind == 'Deployment'" },
        ],
        validations: [{ expression: "!variables.isDeployment || has(object.metadata.labels) && 'team' in object.metadata.labels", messageExpression: "variables.kind + ' needs a team label'" }],
      }),
      binding("scoped-b", "scoped", { matchResources: { namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": "default" } } } }),
    );
    const r = await t.post(DEP(), deployment("nolabel", 1));
    expect(r.status).toBe(422);
    expect(r.body.message).toContain("denied request: Deployment needs a team label");
    expect((await t.post(DEP(), deployment("labelled", 1, { team: "a" }))).status).toBe(201);
    expect((await t.post(DEP(), deployment("skipped", 1, { skip: "yes" }))).status).toBe(201);
    expect((await t.post(DEP("team"), deployment("elsewhere", 1))).status).toBe(201);
    expect((await t.post("/api/v1/namespaces/default/configmaps", { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "exempt" } })).status).toBe(201);
    await remove("scoped", "scoped-b");
  });

  it("applies failurePolicy to evaluation errors and reports expressions that do not compile in status", async () => {
    await install(policy("broken", { validations: [{ expression: "object.spec.nope.deeper == 1" }] }), binding("broken-b", "broken"));
    const r = await t.post(DEP(), deployment("e", 1));
    expect(r.status).toBe(422);
    expect(r.body.message).toBe("deployments.apps \"e\" is forbidden: ValidatingAdmissionPolicy 'broken' with binding 'broken-b' denied request: expression 'object.spec.nope.deeper == 1' resulted in error: no such key: nope");
    await t.patch(`${VAP}/broken`, { spec: { failurePolicy: "Ignore" } });
    expect((await t.post(DEP(), deployment("e", 1))).status).toBe(201);
    await t.patch(`${VAP}/broken`, { spec: { validations: [{ expression: "object.spec.replicas ==" }] } });
    // The status loop has seen the new generation once the next read shows it.
    let status: { observedGeneration?: number; typeChecking?: { expressionWarnings?: { fieldRef: string; warning: string }[] } } = {};
    for (let i = 0; i < 50 && status.observedGeneration !== 3; i++) {
      await new Promise((res) => setImmediate(res));
      status = (await t.get(`${VAP}/broken`)).body.status ?? {};
    }
    expect(status.observedGeneration).toBe(3);
    expect(status.typeChecking?.expressionWarnings?.[0].fieldRef).toBe("spec.validations[0].expression");
    expect(status.typeChecking?.expressionWarnings?.[0].warning).toMatch(/^compilation failed: ERROR: <input>:1:/);
    await remove("broken", "broken-b");
  });
});

describe("ValidatingAdmissionPolicy on its own", () => {
  const storage = new MemoryStorage();
  const decisions: string[] = [];
  const plugin = validatingAdmissionPolicyPlugin({
    storage,
    registry: () => new ResourceRegistry(),
    clock: new FakeClock(),
    authorize: (a) => {
      decisions.push(`${a.user.username} ${a.verb} ${a.apiGroup}/${a.resource}/${a.subresource} ${a.namespace}/${a.name}`);
      return { allowed: a.verb === "approve", reason: a.verb === "approve" ? "RBAC: allowed" : "" };
    },
  });
  const put = (resource: string, obj: KubeObject) => storage.create(objectKey("admissionregistration.k8s.io", resource, undefined, obj.metadata!.name!), obj);

  it("checks the authorizer as the requesting user, for any resource and for the request's own", async () => {
    await put("validatingadmissionpolicies", {
      ...policy("authz", {
        matchConstraints: { resourceRules: [{ apiGroups: ["*"], apiVersions: ["*"], operations: ["*"], resources: ["*"] }] },
        validations: [
          { expression: "authorizer.group('example.com').resource('widgets').subresource('x').namespace('ns').name('w').check('approve').allowed()", message: "needs approve" },
          { expression: "!authorizer.requestResource.check('create').allowed()", message: "create allowed?" },
        ],
      }),
      metadata: { name: "authz", uid: "u1", generation: 1 },
    } as KubeObject);
    await put("validatingadmissionpolicybindings", binding("authz-b", "authz") as KubeObject);
    const a = newAttributes({
      operation: "CREATE",
      kind: { group: "", version: "v1", kind: "ConfigMap" },
      resource: { group: "", version: "v1", resource: "configmaps" },
      namespace: "ns",
      name: "cm",
      object: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "cm", namespace: "ns" } },
      userInfo: { username: "alice", groups: [] },
    });
    await plugin.validate!(a, new AbortController().signal);
    expect(decisions).toEqual(["alice approve example.com/widgets/x ns/w", "alice create /configmaps/ ns/cm"]);
  });

  it("collects params as upstream's CollectParams: none without paramRef, scope errors, selectors", async () => {
    const registry = new ResourceRegistry();
    for (const st of builtinServerConfig().strategies.filter((x) => x.names.group === "" && ["configmaps", "namespaces"].includes(x.names.resource))) {
      registry.add(new ResourceStore(st, { storage, clock: new FakeClock() }));
    }
    const ctx = { storage, registry: () => registry, clock: new FakeClock() };
    const a = newAttributes({
      operation: "CREATE",
      kind: { group: "", version: "v1", kind: "ConfigMap" },
      resource: { group: "", version: "v1", resource: "configmaps" },
      namespace: "ns",
      name: "cm",
      object: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "cm", namespace: "ns" } },
      userInfo: { username: "alice", groups: [] },
    });
    const cmKind = { apiVersion: "v1", kind: "ConfigMap" };
    const nsKind = { apiVersion: "v1", kind: "Namespace" };
    expect(await collectParams(ctx, undefined, { name: "x" }, a)).toEqual([undefined]);
    // A binding that does not use the policy's paramKind evaluates it with null params.
    expect(await collectParams(ctx, cmKind, undefined, a)).toEqual([undefined]);
    await expect(collectParams(ctx, nsKind, { name: "ns", namespace: "other" }, a)).rejects.toThrow("paramRef.namespace must not be provided for a cluster-scoped `paramKind`");
    await expect(collectParams(ctx, { apiVersion: "example.com/v1", kind: "Nope" }, { name: "x" }, a)).rejects.toThrow("failed to find resource referenced by paramKind: 'example.com/v1, Kind=Nope'");
    await expect(collectParams(ctx, cmKind, { name: "missing", parameterNotFoundAction: "Deny" }, a)).rejects.toThrow("no params found for policy binding with `Deny` parameterNotFoundAction");
    expect(await collectParams(ctx, cmKind, { name: "missing", parameterNotFoundAction: "Allow" }, a)).toEqual([]);
  });

  it("compiles a policy once per generation", () => {
    let builds = 0;
    const cache = new CompiledPolicies((p: KubeObject) => {
      builds++;
      return compileValidatingPolicy(p);
    });
    const p = { metadata: { name: "p", uid: "u", generation: 1 }, spec: { validations: [{ expression: "true" }] } };
    cache.get(p);
    cache.get(p);
    expect(builds).toBe(1);
    cache.get({ ...p, metadata: { ...p.metadata, generation: 2 } });
    expect(builds).toBe(2);
  });
});
