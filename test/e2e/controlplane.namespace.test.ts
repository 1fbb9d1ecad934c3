/**
 * Issue 16, end to end: asynchronous namespace deletion through the real kubectl v1.35 against
 * the embedded control plane. `kubectl delete -f` of a file holding a namespace and objects in it
 * succeeds (the namespace controller waits its 5 s grace period, so kubectl's own deletes of the
 * objects find them), the namespace reads Terminating, then goes; custom resources are deleted by
 * discovery, and content held by a finalizer shows in the namespace's conditions until released.
 */
import type { Namespace } from "../../src/apimachinery/api/core/v1.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { builtin } from "../../src/client/typed.js";
import type { RunningControlPlane } from "../../src/controlplane/index.js";
import { eventually, startTestControlPlane } from "./controlplane-env.js";
import type { Kubectl } from "./kubectl.js";

let cp: RunningControlPlane;
let k: Kubectl;

beforeAll(async () => {
  ({ cp, k } = await startTestControlPlane());
}, 60_000);

afterAll(async () => {
  await cp?.stop();
});

const file = (ns: string) => `apiVersion: v1
kind: Namespace
metadata:
  name: ${ns}
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
  namespace: ${ns}
data:
  a: "1"
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: ${ns}
spec:
  replicas: 2
  selector:
    matchLabels: { app: web }
  template:
    metadata:
      labels: { app: web }
    spec:
      terminationGracePeriodSeconds: 100
      containers:
      - name: web
        image: nginx:1.27
---
apiVersion: v1
kind: Service
metadata:
  name: web
  namespace: ${ns}
spec:
  selector: { app: web }
  ports:
  - port: 80
`;

const crd = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  scope: Namespaced
  names: { plural: widgets, singular: widget, kind: Widget }
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        x-kubernetes-preserve-unknown-fields: true
`;

async function namespaceGone(ns: string): Promise<void> {
  const w = await k.run(["wait", "--for=delete", `namespace/${ns}`, "--timeout=60s"], undefined, 70_000);
  expect(w.code).toBe(0);
  const get = await k.run(["get", "namespace", ns]);
  expect(get.code).toBe(1);
  expect(get.stderr.trim()).toBe(`Error from server (NotFound): namespaces "${ns}" not found`);
}

describe("namespace deletion is asynchronous", () => {
  it("kubectl delete -f of a namespace and its objects succeeds; the namespace is Terminating, then gone", async () => {
    const ns = "e2e-nsfile";
    const path = await k.manifest(`${ns}.yaml`, file(ns));
    await k.ok(["apply", "-f", path]);
    const rollout = await k.run(["-n", ns, "rollout", "status", "deployment/web", "--timeout=60s"], undefined, 70_000);
    expect(rollout.code).toBe(0);

    const del = await k.run(["delete", "-f", path, "--wait=false"]);
    expect(del.stderr).toBe("");
    expect(del.code).toBe(0);
    expect(del.stdout.trim().split("\n")).toEqual([
      `namespace "${ns}" deleted`,
      `configmap "settings" deleted from ${ns} namespace`,
      `deployment.apps "web" deleted from ${ns} namespace`,
      `service "web" deleted from ${ns} namespace`,
    ]);
    const phase = await k.run(["get", "namespace", ns, "-o", "jsonpath={.status.phase}"]);
    expect(phase).toMatchObject({ code: 0, stdout: "Terminating" });
    await namespaceGone(ns);
    expect((await cp.client.resource(builtin.pods, ns).list()).items).toHaveLength(0);
  }, 120_000);

  it("kubectl delete -f, waiting (the default), returns once everything, the namespace included, is gone", async () => {
    const ns = "e2e-nsfile-wait";
    const path = await k.manifest(`${ns}.yaml`, file(ns));
    await k.ok(["apply", "-f", path]);
    const del = await k.run(["delete", "-f", path, "--timeout=60s"], undefined, 70_000);
    expect(del.stderr).toBe("");
    expect(del.code).toBe(0);
    const get = await k.run(["get", "namespace", ns]);
    expect(get.code).toBe(1);
  }, 120_000);

  it("deletes custom resources found by discovery; a finalizer holds the namespace with conditions saying why", async () => {
    const ns = "e2e-nscr";
    await k.ok(["apply", "-f", await k.manifest("widgets-crd.yaml", crd)]);
    await eventually("the Widget CRD to be served", async () => ((await k.run(["get", "widgets", "-A"])).code === 0 ? true : undefined));
    await k.ok(["create", "namespace", ns]);
    const widgets = `apiVersion: example.com/v1
kind: Widget
metadata: { name: plain, namespace: ${ns} }
---
apiVersion: example.com/v1
kind: Widget
metadata: { name: held, namespace: ${ns}, finalizers: [example.com/hold] }
`;
    await k.ok(["apply", "-f", await k.manifest(`${ns}-widgets.yaml`, widgets)]);

    const del = await k.run(["delete", "namespace", ns, "--wait=false"]);
    expect(del.code).toBe(0);
    const conditions = await eventually("the namespace conditions to name the held widget", async () => {
      const got = JSON.parse(await k.ok(["get", "namespace", ns, "-o", "json"])) as Namespace;
      const byType = new Map((got.status?.conditions ?? []).map((c) => [c.type, c]));
      return byType.get("NamespaceFinalizersRemaining")?.status === "True" ? byType : undefined;
    });
    expect(conditions.get("NamespaceContentRemaining")).toMatchObject({
      status: "True",
      reason: "SomeResourcesRemain",
      message: "Some resources are remaining: widgets.example.com has 1 resource instances",
    });
    expect(conditions.get("NamespaceFinalizersRemaining")).toMatchObject({
      reason: "SomeFinalizersRemain",
      message: "Some content in the namespace has finalizers remaining: example.com/hold in 1 resource instances",
    });
    expect(conditions.get("NamespaceDeletionDiscoveryFailure")).toMatchObject({ status: "False", reason: "ResourcesDiscovered" });
    const left = await k.ok(["-n", ns, "get", "widgets", "-o", "name"]);
    expect(left.trim()).toBe("widget.example.com/held");
    // kubectl describe shows them too.
    const described = await k.ok(["describe", "namespace", ns]);
    expect(described).toMatch(/Status:\s+Terminating/);

    await k.ok(["-n", ns, "patch", "widget", "held", "--type=merge", "-p", '{"metadata":{"finalizers":null}}']);
    await namespaceGone(ns);
  }, 120_000);
});
