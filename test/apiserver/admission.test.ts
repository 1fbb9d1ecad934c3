/**
 * The admission chain as the server runs it: where the store calls mutating and validating
 * plugins (what they see at each point: operation, kind, subresource, dry run, old object),
 * upstream's plugin order whatever the registration order, reinvocation, and the default
 * built-in plugins on the real strategies through HTTP.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { KubeObject } from "../../src/apimachinery/types.js";
import { StatusError } from "../../src/apimachinery/errors.js";
import { Admission, orderRegistrations, type AdmissionPluginRegistration } from "../../src/apiserver/admission/chain.js";
import { defaultAdmissionPlugins } from "../../src/apiserver/admission/defaults.js";
import { newAttributes } from "../../src/apiserver/admission/attributes.js";
import type { AdmissionAttributes } from "../../src/apiserver/admission/interfaces.js";
import { builtinServerConfig } from "../../src/apiserver/index.js";
import { TestServer, cm, deployment } from "./harness.js";

interface Seen {
  phase: "mutate" | "validate";
  operation: string;
  kind: string;
  subresource: string;
  name: string;
  dryRun: boolean;
  hasOld: boolean;
  objectKind?: string;
  uid?: string;
  labels?: Record<string, string>;
}

function recorder(seen: Seen[], mutate?: (a: AdmissionAttributes) => void): AdmissionPluginRegistration {
  const note = (phase: Seen["phase"], a: AdmissionAttributes): void => {
    seen.push({
      phase,
      operation: a.operation,
      kind: `${a.kind.group}/${a.kind.version}/${a.kind.kind}`,
      subresource: a.subresource,
      name: a.name,
      dryRun: a.dryRun,
      hasOld: a.oldObject !== undefined,
      objectKind: a.object?.kind,
      uid: a.object?.metadata?.uid,
      labels: a.object?.metadata?.labels,
    });
  };
  return {
    name: "Recorder",
    create: () => ({
      name: "Recorder",
      handles: () => true,
      async admit(a) {
        note("mutate", a);
        mutate?.(a);
      },
      async validate(a) {
        note("validate", a);
        if (a.object?.metadata?.labels?.deny === "yes") throw StatusError.forbidden({ group: a.resource.group, resource: a.resource.resource }, a.name, "denied by the recorder");
      },
    }),
  };
}

describe("the admission chain in the store", () => {
  const seen: Seen[] = [];
  const t = new TestServer({
    admissionPlugins: [
      recorder(seen, (a) => {
        if (a.operation === "CREATE" && a.object?.kind === "ConfigMap") a.object.metadata = { ...a.object.metadata, labels: { ...a.object.metadata?.labels, mutated: "true" } };
      }),
    ],
  });
  beforeAll(() => t.start());
  afterAll(() => t.stop());
  const CM = "/api/v1/namespaces/default/configmaps";

  it("mutates before the strategy (no uid yet, name not generated) and validates after it", async () => {
    seen.length = 0;
    const r = await t.post(CM, { apiVersion: "v1", kind: "ConfigMap", metadata: { generateName: "gen-" } });
    expect(r.status).toBe(201);
    expect(r.body.metadata.labels).toEqual({ mutated: "true" });
    const [m, v] = seen;
    expect(m).toMatchObject({ phase: "mutate", operation: "CREATE", kind: "/v1/ConfigMap", name: "", uid: undefined, hasOld: false });
    expect(v).toMatchObject({ phase: "validate", operation: "CREATE", name: r.body.metadata.name, uid: r.body.metadata.uid, labels: { mutated: "true" } });
  });

  it("passes dryRun and stores nothing when a validating plugin denies", async () => {
    seen.length = 0;
    const dry = await t.post(`${CM}?dryRun=All`, cm("dry"));
    expect(dry.status).toBe(201);
    expect(seen.every((s) => s.dryRun)).toBe(true);
    const denied = await t.post(CM, cm("no", {}, { labels: { deny: "yes" } }));
    expect(denied.status).toBe(403);
    expect(denied.body.message).toBe('configmaps "no" is forbidden: denied by the recorder');
    expect((await t.get(`${CM}/no`)).status).toBe(404);
  });

  it("admits updates and patches on the updated object with the stored one as oldObject", async () => {
    await t.post(CM, cm("upd"));
    seen.length = 0;
    const r = await t.patch(`${CM}/upd`, { data: { a: "b" } });
    expect(r.status).toBe(200);
    expect(seen.map((s) => [s.phase, s.operation, s.hasOld])).toEqual([
      ["mutate", "UPDATE", true],
      ["validate", "UPDATE", true],
    ]);
  });

  it("admits DELETE with the stored object, and deletecollection once for the collection then per item", async () => {
    await t.post(CM, cm("del"));
    seen.length = 0;
    expect((await t.del(`${CM}/del`)).status).toBe(200);
    expect(seen.map((s) => [s.phase, s.operation, s.name, s.hasOld, s.objectKind])).toEqual([
      ["mutate", "DELETE", "del", true, undefined],
      ["validate", "DELETE", "del", true, undefined],
    ]);
    await t.post(CM, cm("dc1", {}, { labels: { set: "x" } }));
    seen.length = 0;
    expect((await t.req("DELETE", `${CM}?labelSelector=set%3Dx`)).status).toBe(200);
    expect(seen.map((s) => [s.operation, s.name, s.hasOld])).toEqual([
      ["DELETE", "", false],
      ["DELETE", "", false],
      ["DELETE", "dc1", true],
      ["DELETE", "dc1", true],
    ]);
  });

  it("admits the scale subresource as autoscaling/v1 Scale and status with the resource's kind", async () => {
    const DEP = "/apis/apps/v1/namespaces/default/deployments";
    await t.post(DEP, deployment("web", 2));
    seen.length = 0;
    const r = await t.patch(`${DEP}/web/scale`, { spec: { replicas: 4 } });
    expect(r.status).toBe(200);
    expect(seen.map((s) => [s.phase, s.operation, s.kind, s.subresource, s.objectKind])).toEqual([
      ["mutate", "UPDATE", "autoscaling/v1/Scale", "scale", "Scale"],
      ["validate", "UPDATE", "autoscaling/v1/Scale", "scale", "Scale"],
    ]);
    seen.length = 0;
    const cur = await t.get(`${DEP}/web`);
    expect((await t.put(`${DEP}/web/status`, { ...cur.body, status: { replicas: 1 } })).status).toBe(200);
    expect(seen.map((s) => [s.kind, s.subresource])).toEqual([
      ["apps/v1/Deployment", "status"],
      ["apps/v1/Deployment", "status"],
    ]);
  });

  it("admits pods/binding as a CREATE of a v1 Binding", async () => {
    // The built-in pods strategy serves pods/binding.
    const b = new TestServer({ strategies: builtinServerConfig().strategies, admissionPlugins: [recorder(seen, () => {})] });
    await b.start();
    try {
      await b.post("/api/v1/namespaces/default/pods", { apiVersion: "v1", kind: "Pod", metadata: { name: "b" }, spec: { containers: [{ name: "c", image: "x" }] } });
      seen.length = 0;
      const r = await b.post("/api/v1/namespaces/default/pods/b/binding", { apiVersion: "v1", kind: "Binding", metadata: { name: "b" }, target: { kind: "Node", name: "n1" } });
      expect(r.status).toBe(201);
      expect(seen.map((s) => [s.operation, s.kind, s.subresource, s.objectKind, s.hasOld])).toEqual([
        ["CREATE", "/v1/Binding", "binding", "Binding", false],
        ["CREATE", "/v1/Binding", "binding", "Binding", false],
      ]);
      // The older POST .../bindings is admitted the same way.
      await b.post("/api/v1/namespaces/default/pods", { apiVersion: "v1", kind: "Pod", metadata: { name: "b2" }, spec: { containers: [{ name: "c", image: "x" }] } });
      seen.length = 0;
      expect((await b.post("/api/v1/namespaces/default/bindings", { apiVersion: "v1", kind: "Binding", metadata: { name: "b2" }, target: { kind: "Node", name: "n1" } })).status).toBe(201);
      expect(seen.map((s) => [s.operation, s.kind, s.subresource, s.objectKind])).toEqual([
        ["CREATE", "/v1/Binding", "binding", "Binding"],
        ["CREATE", "/v1/Binding", "binding", "Binding"],
      ]);
    } finally {
      await b.stop();
    }
  });
});

describe("plugin order and reinvocation", () => {
  const named = (name: string, log: string[]): AdmissionPluginRegistration => ({
    name,
    create: () => ({
      name,
      handles: () => true,
      async admit(a) {
        log.push(`${name}${a.reinvocation?.isReinvoke ? "*" : ""}`);
        if (name === "MutatingAdmissionWebhook" && !a.reinvocation!.isReinvoke) a.reinvocation!.shouldReinvoke = true;
      },
      async validate() {
        log.push(`v:${name}`);
      },
    }),
  });

  it("runs plugins in kube-apiserver's order whatever order they are registered in, unknown names before the policy plugins", async () => {
    const log: string[] = [];
    const regs = ["ResourceQuota", "ValidatingAdmissionWebhook", "MutatingAdmissionWebhook", "Mine", "ValidatingAdmissionPolicy", "MutatingAdmissionPolicy", "NamespaceLifecycle"].map((n) => named(n, log));
    expect(orderRegistrations(regs).map((r) => r.name)).toEqual([
      "NamespaceLifecycle",
      "Mine",
      "MutatingAdmissionPolicy",
      "MutatingAdmissionWebhook",
      "ValidatingAdmissionPolicy",
      "ValidatingAdmissionWebhook",
      "ResourceQuota",
    ]);
    const chain = Admission.build({ plugins: regs, disable: ["Mine"] }, {} as never);
    const attrs = newAttributes({
      operation: "CREATE",
      kind: { group: "", version: "v1", kind: "ConfigMap" },
      resource: { group: "", version: "v1", resource: "configmaps" },
      object: {},
    });
    await chain.mutate(attrs);
    // A reinvocation request runs the whole mutating list once more.
    expect(log.splice(0)).toEqual([
      "NamespaceLifecycle",
      "MutatingAdmissionPolicy",
      "MutatingAdmissionWebhook",
      "ValidatingAdmissionPolicy",
      "ValidatingAdmissionWebhook",
      "ResourceQuota",
      "NamespaceLifecycle*",
      "MutatingAdmissionPolicy*",
      "MutatingAdmissionWebhook*",
      "ValidatingAdmissionPolicy*",
      "ValidatingAdmissionWebhook*",
      "ResourceQuota*",
    ]);
    await chain.validate(attrs);
    expect(log[0]).toBe("v:NamespaceLifecycle");
    expect(() => Admission.build({ plugins: regs, disable: ["Nope"] }, {} as never)).toThrow('unknown admission plugin "Nope"');
    expect(() => orderRegistrations([named("A", log), named("A", log)])).toThrow("registered twice");
  });

  it("passes a request only to the plugins whose handlesResource takes its resource and subresource, asking each once", async () => {
    const calls: string[] = [];
    const asked: string[] = [];
    const podsOnly: AdmissionPluginRegistration = {
      name: "PodsOnly",
      create: () => ({
        name: "PodsOnly",
        handles: () => true,
        handlesResource: (r, sub) => {
          asked.push(`${r.resource}/${sub}`);
          return r.group === "" && r.resource === "pods" && sub === "";
        },
        admit: (a) => void calls.push(`m:${a.resource.resource}/${a.subresource}`),
        validate: (a) => void calls.push(`v:${a.resource.resource}/${a.subresource}`),
      }),
    };
    const chain = Admission.build({ plugins: [podsOnly] }, {} as never);
    const req = (resource: string, subresource = "") =>
      newAttributes({ operation: "CREATE", kind: { group: "", version: "v1", kind: "X" }, resource: { group: "", version: "v1", resource }, subresource, object: {} });
    for (const a of [req("configmaps"), req("pods"), req("pods", "binding"), req("pods"), req("configmaps")]) {
      await chain.mutate(a);
      await chain.validate(a);
    }
    expect(calls).toEqual(["m:pods/", "v:pods/", "m:pods/", "v:pods/"]);
    // Once per (operation, resource, subresource) for each phase.
    expect(asked).toEqual(["configmaps/", "configmaps/", "pods/", "pods/", "pods/binding", "pods/binding"]);
  });

  it("keeps TaintNodesByCondition off by default and turns it on when enabled", () => {
    const ctx = {} as never;
    expect(Admission.build({ plugins: defaultAdmissionPlugins() }, ctx).names).not.toContain("TaintNodesByCondition");
    expect(Admission.build({ plugins: defaultAdmissionPlugins(), enable: ["TaintNodesByCondition"] }, ctx).names).toContain("TaintNodesByCondition");
  });
});

describe("the default plugins on the real strategies", () => {
  const t = new TestServer({ strategies: builtinServerConfig().strategies });
  beforeAll(() => t.start());
  afterAll(() => t.stop());
  const pod = (name: string): KubeObject => ({ apiVersion: "v1", kind: "Pod", metadata: { name }, spec: { containers: [{ name: "c", image: "nginx" }] } });

  it("gives a pod its service account, token volume, tolerations and priority", async () => {
    const r = await t.post("/api/v1/namespaces/default/pods", pod("p"));
    expect(r.status).toBe(201);
    const spec = r.body.spec;
    expect(spec.serviceAccountName).toBe("default");
    expect(spec.volumes[0].name).toMatch(/^kube-api-access-[a-z0-9]{5}$/);
    expect(spec.containers[0].volumeMounts[0]).toMatchObject({ mountPath: "/var/run/secrets/kubernetes.io/serviceaccount", readOnly: true });
    expect(spec.tolerations.map((x: { key: string }) => x.key)).toEqual(["node.kubernetes.io/not-ready", "node.kubernetes.io/unreachable"]);
    expect(spec.priority).toBe(0);
    expect(spec.enableServiceLinks).toBe(true);
  });

  it("refuses content in a missing or terminating namespace and the deletion of kube-system", async () => {
    const missing = await t.post("/api/v1/namespaces/nowhere/configmaps", cm("x"));
    expect(missing.status).toBe(404);
    expect(missing.body.message).toBe('namespaces "nowhere" not found');
    await t.post("/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name: "going" }, spec: { finalizers: ["kubernetes"] } });
    await t.post("/api/v1/namespaces/going/configmaps", cm("held", {}, { finalizers: ["example.com/hold"] }));
    expect((await t.del("/api/v1/namespaces/going")).status).toBe(200);
    const refused = await t.post("/api/v1/namespaces/going/configmaps", cm("late"));
    expect(refused.status).toBe(403);
    expect(refused.body.message).toBe('configmaps "late" is forbidden: unable to create new content in namespace going because it is being terminated');
    expect(refused.body.details.causes).toEqual([{ reason: "NamespaceTerminating", message: "namespace going is being terminated", field: "metadata.namespace" }]);
    const ks = await t.del("/api/v1/namespaces/kube-system");
    expect(ks.status).toBe(403);
    expect(ks.body.message).toBe('namespaces "kube-system" is forbidden: this namespace may not be deleted');
  });

  it("runs without admission when admissionPlugins is false", async () => {
    const bare = new TestServer({ strategies: builtinServerConfig().strategies, admissionPlugins: false });
    await bare.start();
    try {
      const r = await bare.post("/api/v1/namespaces/nowhere/configmaps", cm("x"));
      expect(r.status).toBe(201);
    } finally {
      await bare.stop();
    }
  });
});
