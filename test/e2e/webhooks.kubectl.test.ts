/**
 * Webhooks end to end, both directions, with the real kubectl 1.35: a controller's webhook
 * server (runtime/webhook, run by a Manager) defaults, validates and converts a two-version
 * custom resource; installWebhookConfigurations registers it on the embedded API server; the
 * API server's admission and conversion webhooks call it over HTTPS.
 *
 * The API server here gets its admission chain from test/webhook/testchain.ts (TEST-ONLY, until
 * the chain is wired into the store); conversion is the server's own.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Registry } from "prom-client";
import { startApiServer, type RunningApiServer } from "../../src/apiserver/index.js";
import { webhookAdmissionPlugins } from "../../src/apiserver/admission/webhook/index.js";
import { KubeClient } from "../../src/client/kubeclient.js";
import type { KubeObject } from "../../src/apimachinery/types.js";
import { silentLogger } from "../../src/runtime/logging.js";
import { Manager } from "../../src/runtime/manager.js";
import { allowed, denied, installWebhookConfigurations, WebhookServer } from "../../src/runtime/webhook/index.js";
import { installTestAdmission } from "../webhook/testchain.js";
import { eventually } from "./application-env.js";
import { Kubectl } from "./kubectl.js";

type Spec = Record<string, unknown>;

const widgets = { group: "e2e.example.com", version: "v1", kind: "Widget", resource: "widgets", namespaced: true };

const crd = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.e2e.example.com
spec:
  group: e2e.example.com
  scope: Namespaced
  names: { plural: widgets, singular: widget, kind: Widget }
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              size: { type: string }
              color: { type: string }
    additionalPrinterColumns:
    - { name: Size, type: string, jsonPath: .spec.size }
  - name: v2
    served: true
    storage: false
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              dimensions: { type: object, properties: { size: { type: string } } }
              color: { type: string }
    additionalPrinterColumns:
    - { name: Dimensions, type: string, jsonPath: .spec.dimensions.size }
`;

/** v1 spec.size <-> v2 spec.dimensions.size */
function convertWidget(obj: KubeObject, to: string): KubeObject {
  const spec = { ...((obj.spec ?? {}) as Spec) };
  if (to.endsWith("/v2") && "size" in spec) {
    spec.dimensions = { size: spec.size };
    delete spec.size;
  } else if (to.endsWith("/v1") && typeof spec.dimensions === "object" && spec.dimensions !== null) {
    spec.size = (spec.dimensions as Spec).size;
    delete spec.dimensions;
  }
  return { ...obj, apiVersion: to, spec };
}

let api: RunningApiServer;
let client: KubeClient;
let k: Kubectl;
let server: WebhookServer;
let manager: Manager;
let stopManager: AbortController;
let running: Promise<void>;
const dryRuns: boolean[] = [];

beforeAll(async () => {
  api = await startApiServer({ port: 0 });
  const { mutating, validating } = webhookAdmissionPlugins({ webhooks: api.server.webhooks, objects: api.server.objectInterfaces });
  installTestAdmission(api.server, { mutating: [mutating], validating: [validating] });
  k = new Kubectl(api.kubeconfigPath);
  client = KubeClient.fromKubeconfig({ kubeconfigPath: api.kubeconfigPath, kubeconfigEnv: "" });

  server = new WebhookServer({ port: 0, host: "127.0.0.1", generateCertificate: true, logger: silentLogger(), registry: new Registry() });
  server.mutating<KubeObject>(widgets, (w, req) => {
    dryRuns.push(req.dryRun);
    const spec = (w.spec ??= {}) as Spec;
    spec.color ??= "blue";
    w.metadata = { ...w.metadata, labels: { ...w.metadata?.labels, "e2e.example.com/defaulted": "true" } };
  });
  server.validating<KubeObject>(widgets, (w) => {
    const spec = (w.spec ?? {}) as Spec;
    if (spec.color === "red") return denied("spec.color: red widgets are not allowed");
    if (spec.size === undefined) return allowed(["spec.size is empty; the widget will be small"]);
    return undefined;
  });
  server.conversion(widgets, convertWidget);
  manager = new Manager({ client, leaderElection: false, logger: silentLogger(), registry: new Registry() });
  manager.addWebhookServer(server);
  stopManager = new AbortController();
  running = manager.start(stopManager.signal);
  await eventually("webhook server listening", () => server.started);

  await k.ok(["apply", "-f", "-"], crd);
  await k.ok(["wait", "--for=condition=Established", "crd/widgets.e2e.example.com", "--timeout=30s"]);
  await installWebhookConfigurations(client, server, { name: "widgets", conversionCRDs: ["widgets.e2e.example.com"] });
}, 60_000);

afterAll(async () => {
  stopManager?.abort();
  await running;
  await client?.close();
  await api?.stop();
});

const widget = (name: string, spec: Spec, apiVersion = "e2e.example.com/v1") => `apiVersion: ${apiVersion}\nkind: Widget\nmetadata:\n  name: ${name}\n  namespace: default\nspec: ${JSON.stringify(spec)}\n`;

async function getJSON(args: string[]): Promise<KubeObject> {
  return JSON.parse(await k.ok([...args, "-o", "json"])) as KubeObject;
}

describe("admission webhooks with kubectl", () => {
  it("the configurations the helper installed carry the server's CA and URL", async () => {
    const m = await getJSON(["get", "mutatingwebhookconfiguration", "widgets-mutating"]);
    const hook = (m.webhooks as Spec[])[0];
    expect(hook.name).toBe("mwidget-v1.e2e.example.com");
    expect(hook.clientConfig).toEqual({ url: `${server.url}/mutate-e2e-example-com-v1-widget`, caBundle: server.caBundle });
    expect(hook.rules).toEqual([{ operations: ["CREATE", "UPDATE"], apiGroups: ["e2e.example.com"], apiVersions: ["v1"], resources: ["widgets"], scope: "*" }]);
  });

  it("an applied object comes back defaulted, with the validator's warning", async () => {
    const r = await k.run(["apply", "-f", "-"], widget("plain", {}));
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain("widget.e2e.example.com/plain created");
    expect(r.stderr).toContain("Warning: spec.size is empty; the widget will be small");
    const w = await getJSON(["get", "widget", "plain"]);
    expect(w.spec).toEqual({ color: "blue" });
    expect(w.metadata?.labels).toEqual({ "e2e.example.com/defaulted": "true" });
  });

  it("an invalid object is refused with the validator's message and is not stored", async () => {
    const r = await k.run(["apply", "-f", "-"], widget("red", { size: "L", color: "red" }));
    expect(r.code).not.toBe(0);
    expect(r.stderr.trim()).toBe('Error from server (Forbidden): error when creating "STDIN": admission webhook "vwidget-v1.e2e.example.com" denied the request: spec.color: red widgets are not allowed');
    expect((await k.run(["get", "widget", "red"])).stderr).toContain('widgets.e2e.example.com "red" not found');
  });

  it("a server-side dry run reaches the webhooks (sideEffects None) flagged as dry run, and stores nothing", async () => {
    dryRuns.length = 0;
    const out = await k.ok(["apply", "--dry-run=server", "-f", "-"], widget("dry", { size: "S" }));
    expect(out).toContain("widget.e2e.example.com/dry created (server dry run)");
    expect(dryRuns).toEqual([true]);
    expect((await k.run(["get", "widget", "dry"])).code).not.toBe(0);
  });
});

describe("conversion webhooks with kubectl", () => {
  it("an object written in v1 reads in v2 and back, kubectl get in both versions", async () => {
    await k.ok(["apply", "-f", "-"], widget("round", { size: "M" }));
    const v2 = await getJSON(["get", "widgets.v2.e2e.example.com", "round"]);
    expect(v2.apiVersion).toBe("e2e.example.com/v2");
    expect(v2.spec).toEqual({ dimensions: { size: "M" }, color: "blue" });
    const v1 = await getJSON(["get", "widgets.v1.e2e.example.com", "round"]);
    expect(v1.spec).toEqual({ size: "M", color: "blue" });
    // The printer columns are each version's own.
    expect(await k.ok(["get", "widgets.v2.e2e.example.com", "round"])).toMatch(/^NAME\s+DIMENSIONS\nround\s+M\n$/);
    expect(await k.ok(["get", "widgets.v1.e2e.example.com", "round"])).toMatch(/^NAME\s+SIZE\nround\s+M\n$/);
  });

  it("an object written in v2 is stored in v1 and lists in both", async () => {
    await k.ok(["apply", "-f", "-"], widget("from-v2", { dimensions: { size: "XL" } }, "e2e.example.com/v2"));
    const stored = await api.server.storage.get("/registry/e2e.example.com/widgets/default/from-v2");
    expect(stored?.object.apiVersion).toBe("e2e.example.com/v1");
    expect(stored?.object.spec).toEqual({ size: "XL", color: "blue" });
    const list = await getJSON(["get", "widgets.v2.e2e.example.com"]);
    const sizes = Object.fromEntries((list.items as KubeObject[]).map((i) => [i.metadata?.name, ((i.spec as Spec).dimensions as Spec | undefined)?.size]));
    expect(sizes).toMatchObject({ round: "M", "from-v2": "XL" });
    expect(await k.ok(["get", "widgets.v1.e2e.example.com", "from-v2", "-o", "jsonpath={.spec.size}"])).toBe("XL");
  });
});

describe("a dead webhook server", () => {
  it("Fail: kubectl shows upstream's errors for admission and conversion; Ignore lets writes through", async () => {
    const url = server.url!;
    stopManager.abort();
    await running;
    const port = new URL(url).port;
    const r = await k.run(["apply", "-f", "-"], widget("while-dead", { size: "S" }));
    expect(r.code).not.toBe(0);
    expect(r.stderr.trim()).toBe(
      `Error from server (InternalError): error when creating "STDIN": Internal error occurred: failed calling webhook "mwidget-v1.e2e.example.com": failed to call webhook: Post "${url}/mutate-e2e-example-com-v1-widget?timeout=10s": dial tcp 127.0.0.1:${port}: connect: connection refused`,
    );
    // A changed CRD gets new codecs (nothing converted is remembered): the conversion webhook is called, and fails.
    await k.ok(["patch", "crd", "widgets.e2e.example.com", "--type=merge", "-p", JSON.stringify({ spec: { versions: [{ name: "v1", served: true, storage: true, schema: { openAPIV3Schema: { type: "object", properties: { spec: { type: "object", properties: { size: { type: "string" }, color: { type: "string" }, note: { type: "string" } } } } } } }, { name: "v2", served: true, storage: false, schema: { openAPIV3Schema: { type: "object", properties: { spec: { type: "object", properties: { dimensions: { type: "object", properties: { size: { type: "string" } } }, color: { type: "string" } } } } } } }] } })]);
    const conv = await eventually("conversion fails", async () => {
      const x = await k.run(["get", "widgets.v2.e2e.example.com", "round"]);
      return x.code !== 0 ? x : undefined;
    });
    expect(conv.stderr.trim()).toBe(`Error from server: conversion webhook for e2e.example.com/v1, Kind=Widget failed: Post "${url}/convert?timeout=30s": dial tcp 127.0.0.1:${port}: connect: connection refused`);
    // The storage version needs no conversion.
    expect((await k.run(["get", "widgets.v1.e2e.example.com", "round"])).code).toBe(0);
    for (const kind of ["mutatingwebhookconfiguration/widgets-mutating", "validatingwebhookconfiguration/widgets-validating"]) {
      await k.ok(["patch", kind, "--type=json", "-p", JSON.stringify([{ op: "replace", path: "/webhooks/0/failurePolicy", value: "Ignore" }])]);
    }
    const ok = await k.run(["apply", "-f", "-"], widget("while-dead", { size: "S" }));
    expect(ok.code, ok.stderr).toBe(0);
    expect((await getJSON(["get", "widgets.v1.e2e.example.com", "while-dead"])).spec).toEqual({ size: "S" });
  });
});
