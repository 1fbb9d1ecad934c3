/**
 * Webhooks that fail, end to end with the real kubectl 1.35 against the embedded API server:
 * admission and conversion webhooks that answer garbage (a clear error, nothing stored), that
 * never answer (timeoutSeconds, on the server's fake clock: Fail refuses with upstream's text,
 * Ignore admits), and Ignore over garbage.
 *
 * The webhook here is a bare HTTPS server (test/webhook/helpers.ts) whose answer each test sets,
 * so that it can misbehave in ways the runtime's WebhookServer never does. The admission chain
 * comes from test/webhook/testchain.ts (TEST-ONLY, until the chain is wired into the store).
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { FakeClock } from "../../src/apimachinery/clock.js";
import type { KubeObject } from "../../src/apimachinery/types.js";
import { startApiServer, type RunningApiServer } from "../../src/apiserver/index.js";
import { webhookAdmissionPlugins } from "../../src/apiserver/admission/webhook/index.js";
import { allow, patchOf, startTestWebhook, type Answer, type ReceivedReview, type TestWebhook } from "../webhook/helpers.js";
import { installTestAdmission } from "../webhook/testchain.js";
import { eventually } from "./application-env.js";
import { Kubectl } from "./kubectl.js";

type Rec = Record<string, unknown>;

let api: RunningApiServer;
let k: Kubectl;
let hook: TestWebhook;
let clock: FakeClock;
/** What the webhook answers; each test sets it. */
let answer: (r: ReceivedReview) => Answer = (r) => allow(r.request);

const crd = {
  apiVersion: "apiextensions.k8s.io/v1",
  kind: "CustomResourceDefinition",
  metadata: { name: "gizmos.e2e.example.com" },
  spec: {
    group: "e2e.example.com",
    scope: "Namespaced",
    names: { plural: "gizmos", singular: "gizmo", kind: "Gizmo" },
    versions: [
      { name: "v1", served: true, storage: true, schema: { openAPIV3Schema: { type: "object", properties: { spec: { type: "object", properties: { size: { type: "string" } } } } } } },
      { name: "v2", served: true, storage: false, schema: { openAPIV3Schema: { type: "object", properties: { spec: { type: "object", properties: { dimensions: { type: "object", properties: { size: { type: "string" } } } } } } } } },
    ],
  },
};

/** A working v1 <-> v2 conversion (spec.size <-> spec.dimensions.size). */
function converted(r: ReceivedReview): Answer {
  const objects = (r.request.objects as KubeObject[]).map((o) => {
    const spec = { ...((o.spec ?? {}) as Rec) };
    const to = String(r.request.desiredAPIVersion);
    if (to.endsWith("/v2") && "size" in spec) {
      spec.dimensions = { size: spec.size };
      delete spec.size;
    } else if (to.endsWith("/v1") && typeof spec.dimensions === "object" && spec.dimensions !== null) {
      spec.size = (spec.dimensions as Rec).size;
      delete spec.dimensions;
    }
    return { ...o, apiVersion: to, spec };
  });
  return { review: { apiVersion: "apiextensions.k8s.io/v1", kind: "ConversionReview", response: { uid: r.request.uid, result: { status: "Success" }, convertedObjects: objects } } };
}

beforeAll(async () => {
  clock = new FakeClock(new Date());
  api = await startApiServer({ port: 0, clock });
  const { mutating, validating } = webhookAdmissionPlugins({ webhooks: api.server.webhooks, objects: api.server.objectInterfaces });
  installTestAdmission(api.server, { mutating: [mutating], validating: [validating] });
  k = new Kubectl(api.kubeconfigPath);
  hook = await startTestWebhook((r) => answer(r));
  answer = (r) => (r.path === "/convert" ? converted(r) : allow(r.request));
  const conversion = { strategy: "Webhook", webhook: { conversionReviewVersions: ["v1"], clientConfig: { url: `${hook.url}/convert`, caBundle: hook.caBundle } } };
  await k.ok(["apply", "-f", "-"], JSON.stringify({ ...crd, spec: { ...crd.spec, conversion } }));
  await k.ok(["wait", "--for=condition=Established", "crd/gizmos.e2e.example.com", "--timeout=30s"]);
}, 60_000);

afterAll(async () => {
  await api?.stop();
  await hook?.close();
});

afterEach(async () => {
  await k.run(["delete", "mutatingwebhookconfiguration,validatingwebhookconfiguration", "--all"]);
  await api.server.webhooks.cache.synced();
  answer = (r) => (r.path === "/convert" ? converted(r) : allow(r.request));
});

/** Installs one admission webhook for ConfigMaps labelled `e2e: webhook`, and waits until the server sees it. */
async function configure(flavor: "mutating" | "validating", name: string, extra: Rec = {}): Promise<void> {
  const kind = flavor === "mutating" ? "MutatingWebhookConfiguration" : "ValidatingWebhookConfiguration";
  const config = {
    apiVersion: "admissionregistration.k8s.io/v1",
    kind,
    metadata: { name: `e2e-${flavor}` },
    webhooks: [
      {
        name,
        clientConfig: { url: `${hook.url}/${flavor}`, caBundle: hook.caBundle },
        rules: [{ operations: ["CREATE", "UPDATE"], apiGroups: [""], apiVersions: ["v1"], resources: ["configmaps"] }],
        objectSelector: { matchLabels: { e2e: "webhook" } },
        sideEffects: "None",
        admissionReviewVersions: ["v1"],
        ...extra,
      },
    ],
  };
  await k.ok(["apply", "-f", "-"], JSON.stringify(config));
  await api.server.webhooks.cache.synced();
}

const configMap = (name: string) => JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name, namespace: "default", labels: { e2e: "webhook" } }, data: { a: "1" } });

async function notStored(name: string): Promise<void> {
  const r = await k.run(["get", "configmap", name]);
  expect(r.code).not.toBe(0);
  expect(r.stderr.trim()).toBe(`Error from server (NotFound): configmaps "${name}" not found`);
}

describe("admission webhooks that answer garbage: kubectl shows a clear error and nothing is stored", () => {
  const cases: { name: string; flavor: "mutating" | "validating"; answer: (r: ReceivedReview) => Answer; message: (r: ReceivedReview) => string }[] = [
    {
      name: "mutating, not JSON",
      flavor: "mutating",
      answer: () => ({ text: "<html>oops</html>" }),
      message: () => `failed calling webhook "garbage.example.com": failed to call webhook: couldn't get version/kind; json parse error: invalid character '<' looking for beginning of value`,
    },
    {
      name: "validating, allowed as a string",
      flavor: "validating",
      answer: (r) => ({ review: { apiVersion: "admission.k8s.io/v1", kind: "AdmissionReview", response: { uid: r.request.uid, allowed: "yes" } } }),
      message: () => `failed calling webhook "garbage.example.com": failed to call webhook: json: cannot unmarshal string into Go struct field AdmissionReview.response.allowed of type bool`,
    },
    {
      name: "validating, another uid",
      flavor: "validating",
      answer: () => ({ review: { apiVersion: "admission.k8s.io/v1", kind: "AdmissionReview", response: { uid: "x", allowed: true } } }),
      message: (r) => `failed calling webhook "garbage.example.com": received invalid webhook response: expected response.uid="${String(r.request.uid)}", got "x"`,
    },
    {
      name: "mutating, a patch that does not apply",
      flavor: "mutating",
      answer: (r) => allow(r.request, patchOf([{ op: "replace", path: "/spec/nothing", value: 1 }])),
      message: () => "replace operation does not apply: doc is missing key: /spec/nothing: missing value",
    },
  ];
  for (const c of cases) {
    it(c.name, async () => {
      await configure(c.flavor, "garbage.example.com");
      answer = c.answer;
      const before = hook.received.length;
      const name = `garbage-${c.flavor}-${cases.indexOf(c)}`;
      const r = await k.run(["apply", "-f", "-"], configMap(name));
      expect(r.code).not.toBe(0);
      const received = hook.received.slice(before);
      expect(received.map((x) => x.path)).toEqual([`/${c.flavor}`]);
      expect(r.stderr.trim()).toBe(`Error from server (InternalError): error when creating "STDIN": Internal error occurred: ${c.message(received[0])}`);
      await notStored(name);
    });
  }

  it("under failurePolicy Ignore, garbage is ignored and the object is stored unchanged", async () => {
    await configure("mutating", "garbage.example.com", { failurePolicy: "Ignore" });
    answer = () => ({ text: "not json" });
    const before = hook.received.length;
    await k.ok(["apply", "-f", "-"], configMap("garbage-ignored"));
    expect(hook.received.length).toBe(before + 1);
    expect(JSON.parse(await k.ok(["get", "configmap", "garbage-ignored", "-o", "json"])).data).toEqual({ a: "1" });
  });
});

describe("admission webhooks that never answer: timeoutSeconds on the server's clock", () => {
  async function hanging(name: string): Promise<{ run: ReturnType<Kubectl["run"]>; received: ReceivedReview }> {
    answer = () => ({ hang: true });
    const before = hook.received.length;
    const run = k.run(["apply", "-f", "-"], configMap(name));
    await hook.waitFor(before + 1);
    return { run, received: hook.received[before] };
  }

  it("Fail: refused with upstream's deadline text once timeoutSeconds pass; nothing stored", async () => {
    await configure("validating", "slow.example.com", { timeoutSeconds: 3 });
    const { run, received } = await hanging("slow-fail");
    expect(received.query).toBe("?timeout=3s");
    await clock.advance(3000);
    const r = await run;
    expect(r.code).not.toBe(0);
    expect(r.stderr.trim()).toBe(
      `Error from server (InternalError): error when creating "STDIN": Internal error occurred: failed calling webhook "slow.example.com": failed to call webhook: Post "${hook.url}/validating?timeout=3s": context deadline exceeded`,
    );
    await notStored("slow-fail");
  });

  it("Ignore: admitted once timeoutSeconds pass", async () => {
    await configure("mutating", "slow.example.com", { timeoutSeconds: 2, failurePolicy: "Ignore" });
    const { run } = await hanging("slow-ignore");
    await clock.advance(2000);
    const r = await run;
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain("configmap/slow-ignore created");
    expect(JSON.parse(await k.ok(["get", "configmap", "slow-ignore", "-o", "json"])).data).toEqual({ a: "1" });
  });
});

describe("a conversion webhook that fails, read with kubectl", () => {
  const gizmo = (name: string, version: "v1" | "v2", spec: Rec) => JSON.stringify({ apiVersion: `e2e.example.com/${version}`, kind: "Gizmo", metadata: { name, namespace: "default" }, spec });

  it("works at both versions while the webhook answers", async () => {
    await k.ok(["apply", "-f", "-"], gizmo("good", "v2", { dimensions: { size: "L" } }));
    expect(await k.ok(["get", "gizmos.v1.e2e.example.com", "good", "-o", "jsonpath={.spec.size}"])).toBe("L");
    expect(await k.ok(["get", "gizmos.v2.e2e.example.com", "good", "-o", "jsonpath={.spec.dimensions.size}"])).toBe("L");
  });

  it("garbage: reads in the other version fail with upstream's 500 text; a write in it stores nothing", async () => {
    await k.ok(["apply", "-f", "-"], gizmo("stored", "v1", { size: "S" }));
    answer = (r) => (r.path === "/convert" ? { text: "<html>oops</html>" } : allow(r.request));
    const prefix = `Error from server: conversion webhook for e2e.example.com/v1, Kind=Gizmo failed: couldn't get version/kind; json parse error: invalid character '<' looking for beginning of value`;
    const read = await k.run(["get", "gizmos.v2.e2e.example.com", "stored"]);
    expect(read.code).not.toBe(0);
    expect(read.stderr.trim()).toBe(prefix);
    // The storage version needs no webhook.
    expect(await k.ok(["get", "gizmos.v1.e2e.example.com", "stored", "-o", "jsonpath={.spec.size}"])).toBe("S");
    const write = await k.run(["create", "-f", "-"], gizmo("unconverted", "v2", { dimensions: { size: "M" } }));
    expect(write.code).not.toBe(0);
    expect(write.stderr).toContain("conversion webhook for e2e.example.com/v2, Kind=Gizmo failed: couldn't get version/kind; json parse error: invalid character '<'");
    expect((await k.run(["get", "gizmos.v1.e2e.example.com", "unconverted"])).stderr.trim()).toBe('Error from server (NotFound): gizmos.e2e.example.com "unconverted" not found');
  });

  it("a webhook that never answers: the read fails after upstream's 30 s on the server's clock", async () => {
    await k.ok(["apply", "-f", "-"], gizmo("slow", "v1", { size: "XS" }));
    answer = (r) => (r.path === "/convert" ? { hang: true } : allow(r.request));
    const before = hook.received.length;
    const read = k.run(["get", "gizmos.v2.e2e.example.com", "slow"]);
    await hook.waitFor(before + 1);
    await clock.advance(30_000);
    const r = await read;
    expect(r.code).not.toBe(0);
    expect(r.stderr.trim()).toBe(`Error from server: conversion webhook for e2e.example.com/v1, Kind=Gizmo failed: Post "${hook.url}/convert?timeout=30s": context deadline exceeded`);
    // Nothing failed is remembered: with the webhook back, the same object converts.
    answer = (x) => (x.path === "/convert" ? converted(x) : allow(x.request));
    expect(await eventually("converted again", async () => (await k.run(["get", "gizmos.v2.e2e.example.com", "slow", "-o", "jsonpath={.spec.dimensions.size}"])).stdout || undefined)).toBe("XS");
  });
});
