/**
 * The Application controller end to end: the real kubectl 1.35 against the embedded control
 * plane, the Application controller running in-process on the shared informer factory.
 */
import { readFileSync } from "node:fs";
import type { Deployment } from "../../src/apimachinery/api/apps/v1.js";
import type { Endpoints, Event, Service } from "../../src/apimachinery/api/core/v1.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { setupApplicationController, type Application } from "../../src/controllers/application/index.js";
import { ClientEventSink, EventBroadcaster } from "../../src/events/index.js";
import { silentLogger } from "../../src/runtime/logging.js";
import { Manager } from "../../src/runtime/manager.js";
import { eventually, newRegistry, startApplicationEnv, type ApplicationEnv } from "./application-env.js";
import { Kubectl } from "./kubectl.js";

let env: ApplicationEnv;
let kubectl: Kubectl;
const stop = new AbortController();
let running: Promise<void>;
let broadcaster: EventBroadcaster;

beforeAll(async () => {
  env = await startApplicationEnv();
  kubectl = new Kubectl(env.cp.api.kubeconfigPath);
  broadcaster = new EventBroadcaster();
  broadcaster.startRecordingToSink(new ClientEventSink(env.cp.client));
  // A manager of its own (its own informers), beside the control plane's controllers.
  const manager = new Manager({
    client: env.cp.client,
    logger: silentLogger(),
    registry: newRegistry(),
    recorderProvider: (component) => broadcaster.newRecorder({ component }),
  });
  setupApplicationController(manager);
  running = manager.start(stop.signal);
}, 60_000);

afterAll(async () => {
  stop.abort();
  await running;
  await broadcaster?.shutdown();
  await env?.stop();
});

async function getJSON<T>(args: string[]): Promise<T | undefined> {
  const r = await kubectl.run([...args, "-o", "json"]);
  if (r.code !== 0) return undefined;
  return JSON.parse(r.stdout) as T;
}

const example = readFileSync(new URL("../../examples/application.yaml", import.meta.url), "utf8");

describe("Application end to end (kubectl)", () => {
  it("apply examples/application.yaml → an owned Deployment and Service, converging to availableReplicas = replicas with endpoints", async () => {
    await kubectl.ok(["apply", "-f", "-"], example);
    const app = await eventually("the Application", () => getJSON<Application>(["get", "app", "web"]));
    const dep = await eventually("the Deployment", () => getJSON<Deployment>(["get", "deployment", "web", "--show-managed-fields"]));
    const svc = await eventually("the Service", () => getJSON<Service>(["get", "service", "web", "--show-managed-fields"]));
    for (const child of [dep, svc]) {
      expect(child.metadata?.ownerReferences).toEqual([
        { apiVersion: "kubeloop.dev/v1alpha1", kind: "Application", name: "web", uid: app.metadata?.uid, controller: true, blockOwnerDeletion: true },
      ]);
      expect(child.metadata?.labels).toMatchObject({ "app.kubernetes.io/managed-by": "kubeloop", "app.kubernetes.io/name": "web" });
      expect(child.metadata?.managedFields?.some((m) => m.manager === "kubeloop-application")).toBe(true);
    }
    expect(dep.spec?.replicas).toBe(3);
    expect(svc.spec?.selector).toEqual(dep.spec?.template.metadata?.labels);

    await kubectl.ok(["wait", "--for=condition=Available", "app/web", "--timeout=30s"]);
    const ready = await eventually("availableReplicas = 3", async () => {
      const a = await getJSON<Application>(["get", "app", "web"]);
      return a?.status?.availableReplicas === 3 && a.status.readyReplicas === 3 ? a : undefined;
    });
    expect(ready.status?.observedGeneration).toBe(ready.metadata?.generation);
    expect(ready.status?.serviceName).toBe("web");
    const ep = await eventually("endpoints listing 3 pods", async () => {
      const e = await getJSON<Endpoints>(["get", "endpoints", "web"]);
      return (e?.subsets?.[0]?.addresses?.length ?? 0) === 3 ? e : undefined;
    });
    expect(ep.subsets?.[0]?.ports?.[0]?.port).toBe(80);
    const pods = await getJSON<{ items: Array<{ status?: { podIP?: string } }> }>(["get", "pods", "-l", "app.kubernetes.io/instance=web"]);
    expect(new Set(ep.subsets?.[0]?.addresses?.map((a) => a.ip))).toEqual(new Set(pods?.items.map((p) => p.status?.podIP)));

    const table = await kubectl.ok(["get", "app", "web"]);
    expect(table.split("\n")[0]).toMatch(/^NAME\s+READY\s+AVAILABLE\s+IMAGE\s+AGE/);
    expect(table).toMatch(/web\s+3\s+3\s+nginx:1\.27/);

    const events = await eventually("a Synced event", async () => {
      const list = await getJSON<{ items: Event[] }>(["get", "events", "--field-selector", "involvedObject.name=web,involvedObject.kind=Application"]);
      return list?.items.some((e) => e.reason === "Synced") ? list : undefined;
    });
    expect(events.items.find((e) => e.reason === "Synced")?.message).toBe("Application synced successfully");

    // Steady state: with everything converged, the controller writes nothing (a quiet window).
    const rv = async () => [
      (await getJSON<Application>(["get", "app", "web"]))?.metadata?.resourceVersion,
      (await getJSON<Deployment>(["get", "deployment", "web"]))?.metadata?.resourceVersion,
      (await getJSON<Service>(["get", "service", "web"]))?.metadata?.resourceVersion,
    ];
    const first = await rv();
    await new Promise((r) => setTimeout(r, 1000));
    expect(await rv()).toEqual(first);
  }, 90_000);

  it("changing replicas → the Deployment follows; kubectl scale app works through /scale", async () => {
    await kubectl.ok(["patch", "app", "web", "--type", "merge", "-p", '{"spec":{"replicas":2}}']);
    await eventually("the Deployment at 2 replicas", async () => (await getJSON<Deployment>(["get", "deployment", "web"]))?.spec?.replicas === 2);

    const scale = JSON.parse(await kubectl.ok(["get", "--raw", "/apis/kubeloop.dev/v1alpha1/namespaces/default/applications/web/scale"])) as {
      spec?: { replicas?: number };
      status?: { selector?: string };
    };
    expect(scale?.spec?.replicas).toBe(2);
    expect(scale?.status?.selector).toBe("app.kubernetes.io/instance=web,app.kubernetes.io/name=web");

    await kubectl.ok(["scale", "app", "web", "--replicas=4"]);
    expect((await getJSON<Application>(["get", "app", "web"]))?.spec?.replicas).toBe(4);
    await eventually("the Deployment at 4 replicas", async () => (await getJSON<Deployment>(["get", "deployment", "web"]))?.spec?.replicas === 4);
    await eventually("4 available", async () => (await getJSON<Application>(["get", "app", "web"]))?.status?.availableReplicas === 4);
  }, 60_000);

  it("a Deployment deleted by hand is recreated", async () => {
    const before = await getJSON<Deployment>(["get", "deployment", "web"]);
    await kubectl.ok(["delete", "deployment", "web", "--wait=false"]);
    const after = await eventually("a new Deployment", async () => {
      const d = await getJSON<Deployment>(["get", "deployment", "web"]);
      return d && d.metadata?.uid !== before?.metadata?.uid ? d : undefined;
    });
    expect(after.spec?.replicas).toBe(4);
    expect(after.metadata?.ownerReferences?.[0]?.kind).toBe("Application");
  }, 60_000);

  it("an invalid Application is rejected by the schema with a clear message", async () => {
    const bad = "apiVersion: kubeloop.dev/v1alpha1\nkind: Application\nmetadata:\n  name: bad\nspec:\n  replicas: -1\n";
    const r = await kubectl.run(["apply", "-f", "-"], bad);
    expect(r.code).not.toBe(0);
    // kubectl prints the server's 422 (Application.kubeloop.dev "bad" is invalid) cause by cause.
    expect(r.stderr).toContain('The Application "bad" is invalid');
    expect(r.stderr).toContain("spec.replicas: Invalid value: -1: spec.replicas in body should be greater than or equal to 0");
    expect(r.stderr).toContain("spec.image: Required value");
    const tooMany = await kubectl.run(["scale", "app", "web", "--replicas=1001"]);
    expect(tooMany.code).not.toBe(0);
    expect(tooMany.stderr).toContain("less than or equal to 1000");
  }, 30_000);

  it("deleting the Application removes its children through the garbage collector", async () => {
    await kubectl.ok(["delete", "app", "web"]);
    await eventually("the Deployment gone", async () => (await kubectl.run(["get", "deployment", "web"])).code !== 0, 30_000);
    await eventually("the Service gone", async () => (await kubectl.run(["get", "service", "web"])).code !== 0, 30_000);
  }, 60_000);
});
