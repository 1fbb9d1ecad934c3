/**
 * MutatingAdmissionWebhook and ValidatingAdmissionWebhook against real HTTPS webhooks on
 * loopback: the plugins read configurations from storage through the server's webhook cache,
 * exactly as the API server would, and are driven with admission attributes. The plugins
 * behind a running API server, called by kubectl writes, are tested in
 * test/e2e/webhooks.kubectl.test.ts.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { FakeClock } from "../../src/apimachinery/clock.js";
import { StatusError } from "../../src/apimachinery/errors.js";
import type { KubeObject } from "../../src/apimachinery/types.js";
import { registryObjectInterfaces } from "../../src/apiserver/admission/objects.js";
import { admitWithReinvocation } from "../../src/apiserver/admission/reinvocation.js";
import { webhookAdmissionPlugins, webhookAdmissionRegistrations, type MutatingWebhookPlugin, type ValidatingWebhookPlugin } from "../../src/apiserver/admission/webhook/index.js";
import { mutatingWebhookConfigurationStrategy, validatingWebhookConfigurationStrategy } from "../../src/apiserver/registry/admissionwebhooks.js";
import { objectKey } from "../../src/apiserver/rest/keys.js";
import { ResourceRegistry } from "../../src/apiserver/server/resources.js";
import { MemoryStorage } from "../../src/apiserver/storage/memory.js";
import { Webhooks } from "../../src/apiserver/webhook/index.js";
import { allow, attributes, deny, patchOf, startTestWebhook, type Answer, type ReceivedReview, type TestWebhook } from "./helpers.js";

let storage: MemoryStorage;
let webhooks: Webhooks;
let mutating: MutatingWebhookPlugin;
let validating: ValidatingWebhookPlugin;
let clock: FakeClock | undefined;
const servers: TestWebhook[] = [];

async function setup(opts: { fakeClock?: boolean } = {}): Promise<void> {
  storage = new MemoryStorage();
  clock = opts.fakeClock ? new FakeClock() : undefined;
  webhooks = new Webhooks(storage, { clock });
  await webhooks.start();
  ({ mutating, validating } = webhookAdmissionPlugins({ webhooks, objects: registryObjectInterfaces(new ResourceRegistry()) }));
}

beforeEach(async () => {
  await setup();
});

afterEach(async () => {
  await webhooks.stop();
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function hook(answer: (r: ReceivedReview) => Answer): Promise<TestWebhook> {
  const s = await startTestWebhook(answer);
  servers.push(s);
  return s;
}

const cmRule = { operations: ["CREATE", "UPDATE"], apiGroups: [""], apiVersions: ["v1"], resources: ["configmaps"] };

function webhook(name: string, server: TestWebhook | { url: string; caBundle: string }, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    name,
    clientConfig: { url: `${server.url}/hook`, caBundle: server.caBundle },
    rules: [cmRule],
    sideEffects: "None",
    admissionReviewVersions: ["v1"],
    ...extra,
  };
}

async function configure(flavor: "mutating" | "validating", name: string, hooks: Record<string, unknown>[]): Promise<void> {
  const kind = flavor === "mutating" ? "MutatingWebhookConfiguration" : "ValidatingWebhookConfiguration";
  const obj: KubeObject = { apiVersion: "admissionregistration.k8s.io/v1", kind, metadata: { name }, webhooks: hooks };
  (flavor === "mutating" ? mutatingWebhookConfigurationStrategy : validatingWebhookConfigurationStrategy).defaults(obj);
  await storage.create(objectKey("admissionregistration.k8s.io", `${kind.toLowerCase()}s`, undefined, name), obj);
}

async function denial(p: Promise<unknown> | void): Promise<StatusError> {
  try {
    await p;
  } catch (err) {
    if (err instanceof StatusError) return err;
    throw err;
  }
  throw new Error("expected the request to be refused");
}

const signal = () => new AbortController().signal;

describe("mutating webhooks", () => {
  it("send an AdmissionReview v1 and apply the JSONPatch, with warnings and audit annotations", async () => {
    const s = await hook((r) =>
      allow(r.request, { ...patchOf([{ op: "add", path: "/metadata/labels", value: { mutated: "yes" } }]), warnings: ["be careful"], auditAnnotations: { checked: "true" } }),
    );
    await configure("mutating", "m", [webhook("label.example.com", s)]);
    const a = attributes();
    await mutating.admit(a, signal());
    expect(a.object?.metadata?.labels).toEqual({ mutated: "yes" });
    expect(a.warnings).toEqual(["be careful"]);
    expect(a.auditAnnotations.get("label.example.com/checked")).toBe("true");
    expect(JSON.parse(a.auditAnnotations.get("mutation.webhook.admission.k8s.io/round_0_index_0")!)).toEqual({ configuration: "m", webhook: "label.example.com", mutated: true });
    expect(JSON.parse(a.auditAnnotations.get("patch.webhook.admission.k8s.io/round_0_index_0")!)).toEqual({
      configuration: "m",
      webhook: "label.example.com",
      patch: [{ op: "add", path: "/metadata/labels", value: { mutated: "yes" } }],
      patchType: "JSONPatch",
    });
    const r = s.received[0];
    expect(r.path).toBe("/hook");
    expect(r.query).toBe("?timeout=10s");
    expect(r.body.apiVersion).toBe("admission.k8s.io/v1");
    expect(r.body.kind).toBe("AdmissionReview");
    expect(Object.keys(r.request)).toEqual(["uid", "kind", "resource", "requestKind", "requestResource", "name", "namespace", "operation", "userInfo", "object", "oldObject", "dryRun", "options"]);
    expect(r.request).toMatchObject({
      kind: { group: "", version: "v1", kind: "ConfigMap" },
      resource: { group: "", version: "v1", resource: "configmaps" },
      name: "p",
      namespace: "default",
      operation: "CREATE",
      userInfo: { username: "alice", uid: "u-1", groups: ["devs", "system:authenticated"] },
      oldObject: null,
      dryRun: false,
      options: { kind: "CreateOptions" },
    });
  });

  it("speak v1beta1 when the webhook lists it first", async () => {
    const s = await hook(() => ({ review: { apiVersion: "admission.k8s.io/v1beta1", kind: "AdmissionReview", response: { allowed: true, patch: patchOf([{ op: "add", path: "/data/b", value: "2" }]).patch } } }));
    await configure("mutating", "m", [webhook("beta.example.com", s, { admissionReviewVersions: ["v1beta1", "v1"] })]);
    const a = attributes();
    await mutating.admit(a, signal());
    expect(s.received[0].body.apiVersion).toBe("admission.k8s.io/v1beta1");
    expect(a.object?.data).toEqual({ a: "1", b: "2" });
  });

  it("are called in configuration-name order, each seeing the previous patch", async () => {
    const seen: unknown[] = [];
    const s = await hook((r) => {
      const obj = r.request.object as KubeObject;
      seen.push(obj.data);
      const n = Object.keys(obj.data as object).length;
      return allow(r.request, patchOf([{ op: "add", path: `/data/k${n}`, value: r.path }]));
    });
    await configure("mutating", "b-second", [{ ...webhook("second.example.com", s), clientConfig: { url: `${s.url}/second`, caBundle: s.caBundle } }]);
    await configure("mutating", "a-first", [{ ...webhook("first.example.com", s), clientConfig: { url: `${s.url}/first`, caBundle: s.caBundle } }]);
    const a = attributes();
    await mutating.admit(a, signal());
    expect(seen).toEqual([{ a: "1" }, { a: "1", k1: "/first" }]);
    expect(a.object?.data).toEqual({ a: "1", k1: "/first", k2: "/second" });
  });

  it("denial: the webhook's status, with upstream's message", async () => {
    const s = await hook((r) => deny(r.request, { code: 403, reason: "Forbidden", message: "labels are required" }));
    await configure("mutating", "m", [webhook("deny.example.com", s)]);
    const err = await denial(mutating.admit(attributes(), signal()));
    expect(err.code).toBe(403);
    expect(err.reason).toBe("Forbidden");
    expect(err.message).toBe('admission webhook "deny.example.com" denied the request: labels are required');
  });

  it("reinvocation (IfNeeded): an earlier webhook is called again once a later one changed the object", async () => {
    const calls: string[] = [];
    const s = await hook((r) => {
      calls.push(r.path);
      const obj = r.request.object as KubeObject;
      if (r.path === "/second" && !obj.metadata?.labels?.second) return allow(r.request, patchOf([{ op: "add", path: "/metadata/labels", value: { second: "x" } }]));
      return allow(r.request);
    });
    await configure("mutating", "a", [{ ...webhook("first.example.com", s, { reinvocationPolicy: "IfNeeded" }), clientConfig: { url: `${s.url}/first`, caBundle: s.caBundle } }]);
    await configure("mutating", "b", [{ ...webhook("second.example.com", s), clientConfig: { url: `${s.url}/second`, caBundle: s.caBundle } }]);
    const a = attributes();
    await admitWithReinvocation([mutating], a, signal());
    expect(calls).toEqual(["/first", "/second", "/first"]);
    expect(a.object?.metadata?.labels).toEqual({ second: "x" });
    expect(a.auditAnnotations.has("mutation.webhook.admission.k8s.io/round_1_index_0")).toBe(true);
  });

  it("reinvocation through the chain's attributes.reinvocation (the contract): the plugin asks there, and keeps its state there", async () => {
    const calls: string[] = [];
    const s = await hook((r) => {
      calls.push(r.path);
      const obj = r.request.object as KubeObject;
      if (r.path === "/second" && !obj.metadata?.labels?.second) return allow(r.request, patchOf([{ op: "add", path: "/metadata/labels", value: { second: "x" } }]));
      return allow(r.request);
    });
    await configure("mutating", "a", [{ ...webhook("first.example.com", s, { reinvocationPolicy: "IfNeeded" }), clientConfig: { url: `${s.url}/first`, caBundle: s.caBundle } }]);
    await configure("mutating", "b", [{ ...webhook("second.example.com", s), clientConfig: { url: `${s.url}/second`, caBundle: s.caBundle } }]);
    // What an admission chain does: one context per request, a second pass when asked.
    const reinvocation = { isReinvoke: false, shouldReinvoke: false, values: new Map<string, unknown>() };
    const a = { ...attributes(), reinvocation };
    await mutating.admit(a, signal());
    expect(reinvocation.shouldReinvoke).toBe(true);
    expect(reinvocation.values.has(mutating.name)).toBe(true);
    reinvocation.isReinvoke = true;
    await mutating.admit(a, signal());
    expect(calls).toEqual(["/first", "/second", "/first"]);
    expect(a.object?.metadata?.labels).toEqual({ second: "x" });
  });

  it("reinvocation (Never): nothing is called twice", async () => {
    const calls: string[] = [];
    const s = await hook((r) => {
      calls.push(r.path);
      return r.path === "/second" ? allow(r.request, patchOf([{ op: "add", path: "/data/x", value: "y" }])) : allow(r.request);
    });
    await configure("mutating", "a", [{ ...webhook("first.example.com", s), clientConfig: { url: `${s.url}/first`, caBundle: s.caBundle } }]);
    await configure("mutating", "b", [{ ...webhook("second.example.com", s), clientConfig: { url: `${s.url}/second`, caBundle: s.caBundle } }]);
    await admitWithReinvocation([mutating], attributes(), signal());
    expect(calls).toEqual(["/first", "/second"]);
  });

  it("a patch on a DELETE (no object) is an internal error", async () => {
    const s = await hook((r) => allow(r.request, patchOf([{ op: "add", path: "/x", value: 1 }])));
    await configure("mutating", "m", [webhook("del.example.com", s, { rules: [{ ...cmRule, operations: ["DELETE"] }] })]);
    const err = await denial(mutating.admit(attributes({ operation: "DELETE", object: undefined, oldObject: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "p" } } }), signal()));
    expect(err.code).toBe(500);
    expect(err.message).toBe('Internal error occurred: admission webhook "del.example.com" attempted to modify the object, which is not supported for this operation');
  });
});

describe("validating webhooks", () => {
  it("all applicable webhooks are called; a denial refuses the request", async () => {
    const ok = await hook((r) => allow(r.request, { warnings: ["w1"] }));
    const no = await hook((r) => deny(r.request, { message: "replicas must be odd" }));
    await configure("validating", "v", [webhook("ok.example.com", ok), webhook("no.example.com", no)]);
    const a = attributes();
    const err = await denial(validating.validate(a, signal()));
    expect(err.code).toBe(400);
    expect(err.message).toBe('admission webhook "no.example.com" denied the request: replicas must be odd');
    expect(ok.received).toHaveLength(1);
    expect(a.warnings).toEqual(["w1"]);
  });

  it("a denial without a message says so", async () => {
    const no = await hook((r) => deny(r.request, {}));
    await configure("validating", "v", [webhook("quiet.example.com", no)]);
    expect((await denial(validating.validate(attributes(), signal()))).message).toBe('admission webhook "quiet.example.com" denied the request without explanation');
  });

  it("may not return a patch", async () => {
    const s = await hook((r) => allow(r.request, patchOf([{ op: "add", path: "/x", value: 1 }])));
    await configure("validating", "v", [webhook("patchy.example.com", s)]);
    const err = await denial(validating.validate(attributes(), signal()));
    expect(err.message).toBe('Internal error occurred: failed calling webhook "patchy.example.com": received invalid webhook response: validating webhook may not return response.patch');
  });
});

describe("failure policies", () => {
  async function deadURL(): Promise<{ url: string; caBundle: string; port: number }> {
    const s = await startTestWebhook(() => ({ text: "" }));
    await s.close();
    return { url: s.url, caBundle: s.caBundle, port: s.port };
  }

  it("Fail: a dead webhook refuses the request with upstream's text", async () => {
    const dead = await deadURL();
    await configure("validating", "v", [webhook("dead.example.com", dead)]);
    const err = await denial(validating.validate(attributes(), signal()));
    expect(err.code).toBe(500);
    expect(err.reason).toBe("InternalError");
    expect(err.message).toBe(
      `Internal error occurred: failed calling webhook "dead.example.com": failed to call webhook: Post "https://127.0.0.1:${dead.port}/hook?timeout=10s": dial tcp 127.0.0.1:${dead.port}: connect: connection refused`,
    );
  });

  it("Ignore: a dead webhook lets the request through, noted as failed open", async () => {
    const dead = await deadURL();
    await configure("validating", "v", [webhook("dead.example.com", dead, { failurePolicy: "Ignore" })]);
    await configure("mutating", "m", [webhook("dead.example.com", dead, { failurePolicy: "Ignore" })]);
    const a = attributes();
    await mutating.admit(a, signal());
    await validating.validate(a, signal());
    expect(a.auditAnnotations.get("failed-open.validating.webhook.admission.k8s.io/round_0_index_0")).toBe("dead.example.com");
    expect(a.auditAnnotations.get("failed-open.mutation.webhook.admission.k8s.io/round_0_index_0")).toBe("dead.example.com");
    expect(a.object?.data).toEqual({ a: "1" });
  });

  it("timeoutSeconds: a webhook that never answers fails the call when the deadline passes", async () => {
    await webhooks.stop();
    await setup({ fakeClock: true });
    const s = await hook(() => ({ hang: true }));
    await configure("validating", "v", [webhook("slow.example.com", s, { timeoutSeconds: 2 })]);
    await configure("mutating", "m", [webhook("slow.example.com", s, { timeoutSeconds: 2, failurePolicy: "Ignore" })]);
    const a = attributes();
    const admitted = mutating.admit(a, signal());
    await s.waitFor(1);
    await clock!.advance(2000);
    await admitted;
    expect(a.auditAnnotations.get("failed-open.mutation.webhook.admission.k8s.io/round_0_index_0")).toBe("slow.example.com");
    const validated = denial(validating.validate(a, signal()));
    await s.waitFor(2);
    expect(s.received[1].query).toBe("?timeout=2s");
    await clock!.advance(2000);
    const err = await validated;
    expect(err.message).toBe(`Internal error occurred: failed calling webhook "slow.example.com": failed to call webhook: Post "https://127.0.0.1:${s.port}/hook?timeout=2s": context deadline exceeded`);
  });

  it("a webhook signed by another CA is not trusted", async () => {
    const s = await hook((r) => allow(r.request));
    await configure("validating", "v", [webhook("untrusted.example.com", { url: s.url, caBundle: "" })]);
    const err = await denial(validating.validate(attributes(), signal()));
    expect(err.message).toContain('failed calling webhook "untrusted.example.com": failed to call webhook: Post');
    expect(err.message).toContain("tls: failed to verify certificate: x509: certificate signed by unknown authority");
    expect(s.received).toHaveLength(0);
  });

  it("an unusable caBundle is a client error", async () => {
    const s = await hook((r) => allow(r.request));
    await configure("validating", "v", [webhook("badca.example.com", { url: s.url, caBundle: Buffer.from("not a pem").toString("base64") })]);
    const err = await denial(validating.validate(attributes(), signal()));
    expect(err.message).toBe('Internal error occurred: failed calling webhook "badca.example.com": could not get REST client: unable to load root certificates: unable to parse bytes as PEM block');
  });
});

describe("webhooks that answer garbage: a clear error and nothing admitted", () => {
  const cases: { name: string; answer: (r: ReceivedReview) => Answer; message: string }[] = [
    { name: "not JSON", answer: () => ({ text: "<html>oops</html>" }), message: "failed to call webhook: couldn't get version/kind; json parse error: invalid character '<' looking for beginning of value" },
    { name: "an empty body", answer: () => ({ text: "" }), message: "failed to call webhook: couldn't get version/kind; json parse error: unexpected end of JSON input" },
    { name: "no kind", answer: () => ({ text: "{}" }), message: "failed to call webhook: Object 'Kind' is missing in '{}'" },
    {
      name: "allowed as a string",
      answer: (r) => ({ review: { apiVersion: "admission.k8s.io/v1", kind: "AdmissionReview", response: { uid: r.request.uid, allowed: "yes" } } }),
      message: "failed to call webhook: json: cannot unmarshal string into Go struct field AdmissionReview.response.allowed of type bool",
    },
    { name: "no response", answer: () => ({ review: { apiVersion: "admission.k8s.io/v1", kind: "AdmissionReview" } }), message: "received invalid webhook response: webhook response was absent" },
    { name: "another uid", answer: () => ({ review: { apiVersion: "admission.k8s.io/v1", kind: "AdmissionReview", response: { uid: "x", allowed: true } } }), message: 'received invalid webhook response: expected response.uid="UID", got "x"' },
    {
      name: "another kind",
      answer: (r) => ({ review: { apiVersion: "v1", kind: "Status", response: { uid: r.request.uid, allowed: true } } }),
      message: "received invalid webhook response: expected webhook response of admission.k8s.io/v1, Kind=AdmissionReview, got v1, Kind=Status",
    },
    { name: "a patch without patchType", answer: (r) => allow(r.request, { patch: patchOf([]).patch }), message: "received invalid webhook response: webhook returned response.patch but not response.patchType" },
    { name: "a patch that is not JSON Patch", answer: (r) => allow(r.request, { patchType: "JSONPatch", patch: Buffer.from('{"a":1}').toString("base64") }), message: "received undecodable patch in webhook response: json: cannot unmarshal object into Go value of type jsonpatch.Patch" },
    { name: "a 500 with a Status", answer: () => ({ status: 500, text: JSON.stringify({ kind: "Status", apiVersion: "v1", status: "Failure", message: "boom", code: 500 }) }), message: "failed to call webhook: boom" },
    { name: "a 500 with text", answer: () => ({ status: 500, text: "oops" }), message: 'failed to call webhook: an error on the server ("oops") has prevented the request from succeeding' },
  ];
  for (const c of cases) {
    it(c.name, async () => {
      const s = await hook(c.answer);
      await configure("mutating", "m", [webhook("garbage.example.com", s)]);
      const a = attributes();
      const err = await denial(mutating.admit(a, signal()));
      const uid = String(s.received[0].request.uid);
      expect(err.code).toBe(500);
      expect(err.message).toBe(`Internal error occurred: failed calling webhook "garbage.example.com": ${c.message.replace("UID", uid)}`);
      expect(a.object?.data).toEqual({ a: "1" });
    });
  }

  it("a patch that does not apply is an internal error", async () => {
    const s = await hook((r) => allow(r.request, patchOf([{ op: "replace", path: "/spec/nothing", value: 1 }])));
    await configure("mutating", "m", [webhook("badpatch.example.com", s)]);
    const err = await denial(mutating.admit(attributes(), signal()));
    expect(err.message).toBe("Internal error occurred: replace operation does not apply: doc is missing key: /spec/nothing: missing value");
  });
});

describe("matching", () => {
  it("rules: operation, resource and subresource must match", async () => {
    const s = await hook((r) => deny(r.request, { message: "no" }));
    await configure("validating", "v", [webhook("status.example.com", s, { rules: [{ operations: ["UPDATE"], apiGroups: ["*"], apiVersions: ["*"], resources: ["*/status"] }] })]);
    await validating.validate(attributes(), signal());
    await validating.validate(attributes({ operation: "UPDATE" }), signal());
    expect(s.received).toHaveLength(0);
    await denial(validating.validate(attributes({ operation: "UPDATE", subresource: "status" }), signal()));
    expect(s.received).toHaveLength(1);
  });

  it("namespaceSelector: by the namespace's labels; an unknown namespace is a 404", async () => {
    const s = await hook((r) => deny(r.request, { message: "no" }));
    await configure("validating", "v", [webhook("ns.example.com", s, { namespaceSelector: { matchLabels: { webhooks: "on" } } })]);
    await storage.create(objectKey("", "namespaces", undefined, "on"), { apiVersion: "v1", kind: "Namespace", metadata: { name: "on", labels: { webhooks: "on" } } });
    await storage.create(objectKey("", "namespaces", undefined, "off"), { apiVersion: "v1", kind: "Namespace", metadata: { name: "off" } });
    await validating.validate(attributes({ namespace: "off" }), signal());
    await denial(validating.validate(attributes({ namespace: "on" }), signal()));
    const missing = await denial(validating.validate(attributes({ namespace: "gone" }), signal()));
    expect(missing.code).toBe(404);
    expect(missing.message).toBe('namespaces "gone" not found');
    expect(s.received).toHaveLength(1);
  });

  it("namespaceSelector: a namespace being created or updated is judged by its own labels", async () => {
    const s = await hook((r) => deny(r.request, { message: "no" }));
    await configure("validating", "v", [webhook("ns.example.com", s, { rules: [{ ...cmRule, resources: ["namespaces"] }], namespaceSelector: { matchLabels: { webhooks: "on" } } })]);
    const ns = (labels?: Record<string, string>) =>
      attributes({
        namespace: "",
        name: "new",
        kind: { group: "", version: "v1", kind: "Namespace" },
        resource: { group: "", version: "v1", resource: "namespaces" },
        object: { apiVersion: "v1", kind: "Namespace", metadata: { name: "new", ...(labels ? { labels } : {}) } },
      });
    await validating.validate(ns(), signal());
    await denial(validating.validate(ns({ webhooks: "on" }), signal()));
    expect(s.received).toHaveLength(1);
  });

  it("objectSelector: by the object's or the old object's labels", async () => {
    const s = await hook((r) => deny(r.request, { message: "no" }));
    await configure("validating", "v", [webhook("obj.example.com", s, { objectSelector: { matchExpressions: [{ key: "tier", operator: "In", values: ["prod"] }] } })]);
    await validating.validate(attributes(), signal());
    const prod = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "p", labels: { tier: "prod" } } };
    await denial(validating.validate(attributes({ object: prod }), signal()));
    await denial(validating.validate(attributes({ operation: "UPDATE", object: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "p" } }, oldObject: prod }), signal()));
    expect(s.received).toHaveLength(2);
  });

  it("matchConditions: false skips, an error under Fail refuses (403), under Ignore skips", async () => {
    const s = await hook((r) => deny(r.request, { message: "called" }));
    await configure("validating", "v", [
      webhook("cond.example.com", s, {
        matchConditions: [
          { name: "not-alice", expression: "request.userInfo.username != 'alice'" },
          { name: "has-data", expression: "has(object.data)" },
        ],
      }),
    ]);
    await validating.validate(attributes(), signal());
    expect(s.received).toHaveLength(0);
    const a = attributes();
    (a as { userInfo: { username: string; groups: string[] } }).userInfo = { username: "bob", groups: [] };
    await denial(validating.validate(a, signal()));
    expect(s.received).toHaveLength(1);

    await storage.delete(objectKey("admissionregistration.k8s.io", "validatingwebhookconfigurations", undefined, "v"));
    await configure("validating", "v2", [webhook("err.example.com", s, { matchConditions: [{ name: "boom", expression: "object.nothing.here == 1" }] })]);
    const err = await denial(validating.validate(attributes(), signal()));
    expect(err.code).toBe(403);
    expect(err.message).toBe(`configmaps "p" is forbidden: expression 'object.nothing.here == 1' resulted in error: no such key: nothing`);
    await storage.delete(objectKey("admissionregistration.k8s.io", "validatingwebhookconfigurations", undefined, "v2"));
    await configure("validating", "v3", [webhook("ign.example.com", s, { failurePolicy: "Ignore", matchConditions: [{ name: "boom", expression: "object.nothing.here == 1" }] })]);
    await validating.validate(attributes(), signal());
    expect(s.received).toHaveLength(1);
  });

  it("a match condition that does not compile refuses under Fail", async () => {
    const s = await hook((r) => allow(r.request));
    await configure("validating", "v", [webhook("compile.example.com", s, { matchConditions: [{ name: "c", expression: "object.x +" }] })]);
    const err = await denial(validating.validate(attributes(), signal()));
    expect(err.code).toBe(403);
    expect(err.message).toMatch(/^configmaps "p" is forbidden: compilation error: compilation failed: ERROR: <input>:1:/);
  });

  it("admission configuration kinds never go to webhooks", async () => {
    const s = await hook((r) => deny(r.request, { message: "no" }));
    await configure("validating", "v", [webhook("all.example.com", s, { rules: [{ operations: ["*"], apiGroups: ["*"], apiVersions: ["*"], resources: ["*"] }] })]);
    await validating.validate(
      attributes({ kind: { group: "admissionregistration.k8s.io", version: "v1", kind: "ValidatingWebhookConfiguration" }, resource: { group: "admissionregistration.k8s.io", version: "v1", resource: "validatingwebhookconfigurations" }, namespace: "" }),
      signal(),
    );
    expect(s.received).toHaveLength(0);
  });
});

describe("dry run", () => {
  it("reaches webhooks without side effects and says so; refused by a webhook with side effects", async () => {
    const s = await hook((r) => allow(r.request));
    await configure("validating", "v", [webhook("dry.example.com", s, { sideEffects: "NoneOnDryRun" })]);
    await validating.validate(attributes({ dryRun: true }), signal());
    expect(s.received[0].request.dryRun).toBe(true);
    // sideEffects Some can no longer be created; stored ones (from before) still exist.
    await storage.create(objectKey("admissionregistration.k8s.io", "validatingwebhookconfigurations", undefined, "old"), {
      apiVersion: "admissionregistration.k8s.io/v1",
      kind: "ValidatingWebhookConfiguration",
      metadata: { name: "old" },
      webhooks: [{ ...webhook("some.example.com", s), sideEffects: "Some", failurePolicy: "Ignore", timeoutSeconds: 10 }],
    });
    const err = await denial(validating.validate(attributes({ dryRun: true }), signal()));
    expect(err.code).toBe(400);
    expect(err.message).toBe('admission webhook "some.example.com" does not support dry run');
  });
});

describe("clientConfig.service", () => {
  async function service(spec: Record<string, unknown>, name = "hook"): Promise<void> {
    await storage.create(objectKey("", "services", "webhooks", name), { apiVersion: "v1", kind: "Service", metadata: { name, namespace: "webhooks" }, spec });
  }

  it("an ExternalName Service points at a host process; TLS is checked against <svc>.<ns>.svc", async () => {
    const s = await hook((r) => deny(r.request, { message: "via service" }));
    await service({ type: "ExternalName", externalName: "127.0.0.1" });
    await configure("validating", "v", [webhook("svc.example.com", s, { clientConfig: { service: { namespace: "webhooks", name: "hook", path: "/validate", port: s.port }, caBundle: s.caBundle } })]);
    const err = await denial(validating.validate(attributes(), signal()));
    expect(err.message).toBe('admission webhook "svc.example.com" denied the request: via service');
    expect(s.received[0].path).toBe("/validate");

    await storage.delete(objectKey("admissionregistration.k8s.io", "validatingwebhookconfigurations", undefined, "v"));
    await service({ type: "ExternalName", externalName: "localhost" }, "wrongname");
    await configure("validating", "w", [webhook("name.example.com", s, { clientConfig: { service: { namespace: "webhooks", name: "wrongname", port: s.port }, caBundle: s.caBundle } })]);
    const bad = await denial(validating.validate(attributes(), signal()));
    expect(bad.message).toContain(`Post "https://wrongname.webhooks.svc:${s.port}/?timeout=10s": tls: failed to verify certificate: x509: certificate is valid for localhost, hook.webhooks.svc, other.webhooks.svc, 127.0.0.1, not wrongname.webhooks.svc`);
  });

  it("a ClusterIP Service goes to a ready endpoint of its port", async () => {
    const s = await hook((r) => deny(r.request, { message: "via endpoints" }));
    await service({ type: "ClusterIP", clusterIP: "10.96.0.10", ports: [{ name: "https", port: 443, targetPort: 9443 }] }, "other");
    await storage.create(objectKey("", "endpoints", "webhooks", "other"), {
      apiVersion: "v1",
      kind: "Endpoints",
      metadata: { name: "other", namespace: "webhooks" },
      subsets: [{ addresses: [{ ip: "127.0.0.1" }], notReadyAddresses: [{ ip: "10.0.0.9" }], ports: [{ name: "https", port: s.port }] }],
    });
    await configure("validating", "v", [webhook("ep.example.com", s, { clientConfig: { service: { namespace: "webhooks", name: "other", port: 443 }, caBundle: s.caBundle } })]);
    const err = await denial(validating.validate(attributes(), signal()));
    expect(err.message).toBe('admission webhook "ep.example.com" denied the request: via endpoints');
  });

  it("resolution failures name the service", async () => {
    await service({ type: "ClusterIP", ports: [{ name: "https", port: 443 }] }, "noeps");
    const cases: [Record<string, unknown>, string][] = [
      [{ namespace: "webhooks", name: "missing", port: 443 }, 'Post "https://missing.webhooks.svc:443/?timeout=10s": service "missing" not found'],
      [{ namespace: "webhooks", name: "noeps", port: 443 }, 'Post "https://noeps.webhooks.svc:443/?timeout=10s": no endpoints available for service "noeps"'],
      [{ namespace: "webhooks", name: "noeps", port: 8443 }, 'Post "https://noeps.webhooks.svc:8443/?timeout=10s": no service port 8443 found for service "noeps"'],
    ];
    for (const [i, [svc, reason]] of cases.entries()) {
      await configure("validating", `c${i}`, [webhook(`svc${i}.example.com`, { url: "", caBundle: "" }, { clientConfig: { service: svc }, failurePolicy: "Fail" })]);
      const err = await denial(validating.validate(attributes(), signal()));
      expect(err.message).toBe(`Internal error occurred: failed calling webhook "svc${i}.example.com": failed to call webhook: ${reason}`);
      await storage.delete(objectKey("admissionregistration.k8s.io", "validatingwebhookconfigurations", undefined, `c${i}`));
    }
  });
});

describe("registrations for a chain", () => {
  it("name the plugins as upstream and create them once, working as the plugins do", async () => {
    const [m, v] = webhookAdmissionRegistrations({ webhooks, objects: registryObjectInterfaces(new ResourceRegistry()) });
    expect([m.name, v.name]).toEqual(["MutatingAdmissionWebhook", "ValidatingAdmissionWebhook"]);
    expect(m.create()).toBe(m.create());
    expect([m.create().name, v.create().name]).toEqual([m.name, v.name]);
    const s = await hook((r) => deny(r.request, { message: "no" }));
    await configure("validating", "v", [webhook("deny.example.com", s)]);
    const err = await denial(v.create().validate(attributes(), signal()));
    expect(err.message).toBe('admission webhook "deny.example.com" denied the request: no');
  });
});
