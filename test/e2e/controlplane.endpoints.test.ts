/**
 * Issue 8, end to end: a Service with a selector gets Endpoints listing the IPs of the ready
 * pods it selects (not-ready ones under notReadyAddresses), kept up to date as the Deployment
 * scales — seen through the real kubectl v1.35.
 */
import type { Endpoints, Pod } from "../../src/apimachinery/api/core/v1.js";
import { afterAll, beforeAll, expect, it } from "vitest";
import { isNotFound } from "../../src/apimachinery/errors.js";
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

/** `kubectl get endpoints` as JSON. */
async function endpoints(ns: string, name: string): Promise<Endpoints> {
  return JSON.parse(await k.ok(["-n", ns, "get", "endpoints", name, "-o", "json"])) as Endpoints;
}

const ips = (addrs: ReadonlyArray<{ ip: string }> | undefined) => (addrs ?? []).map((a) => a.ip).sort();

it("a Service selecting a Deployment's pods gets Endpoints with the ready pods' IPs; scaling and not-ready pods are reflected", async () => {
  const ns = "e2e-endpoints";
  const podClient = cp.client.resource<Pod>(builtin.pods, ns);
  await k.ok(["create", "namespace", ns]);
  await k.ok(["-n", ns, "create", "deployment", "web", "--image=nginx:1.27", "--replicas=3", "--port=8080"]);
  expect((await k.ok(["-n", ns, "expose", "deployment", "web", "--port=80", "--target-port=8080"])).trim()).toBe("service/web exposed");
  const rolled = await k.run(["-n", ns, "rollout", "status", "deployment/web", "--timeout=60s"], undefined, 70_000);
  expect(rolled.code).toBe(0);

  const podIPs = async (pred: (p: Pod) => boolean = () => true) =>
    (await podClient.list({ labelSelector: "app=web" })).items
      .filter((p) => !p.metadata?.deletionTimestamp && pred(p))
      .map((p) => p.status?.podIP ?? "")
      .sort();
  const running = await podIPs();
  expect(running).toHaveLength(3);
  for (const ip of running) expect(ip).toMatch(/^10\.244\.\d+\.\d+$/);

  const ep = await eventually("Endpoints with the three pod IPs", async () => {
    const e = await endpoints(ns, "web");
    return ips(e.subsets?.[0]?.addresses).length === 3 ? e : undefined;
  });
  expect(ep.subsets).toHaveLength(1);
  expect(ips(ep.subsets?.[0].addresses)).toEqual(running);
  expect(ep.subsets?.[0].notReadyAddresses ?? []).toEqual([]);
  expect(ep.subsets?.[0].ports).toEqual([{ port: 8080, protocol: "TCP" }]);
  for (const a of ep.subsets?.[0].addresses ?? []) {
    expect(a.targetRef).toMatchObject({ kind: "Pod", namespace: ns });
    expect(a.nodeName).toMatch(/^kubeloop-node-/);
  }
  const table = await k.ok(["-n", ns, "get", "endpoints", "web"]);
  expect(table).toMatch(/^NAME\s+ENDPOINTS\s+AGE/m);
  const row = table.split("\n").find((l) => l.startsWith("web "));
  expect(row).toBeDefined();
  for (const ip of running) expect(row).toContain(`${ip}:8080`);

  // A pod the selector matches that never becomes ready is listed as not ready.
  await k.ok(["-n", ns, "run", "laggard", "--image=example/never-ready", "--labels=app=web"]);
  const laggardIP = await eventually("the laggard pod to run", async () => (await podClient.get("laggard")).status?.podIP);
  const withLaggard = await eventually("the laggard among notReadyAddresses", async () => {
    const e = await endpoints(ns, "web");
    return ips(e.subsets?.[0]?.notReadyAddresses).includes(laggardIP) ? e : undefined;
  });
  expect(ips(withLaggard.subsets?.[0].addresses)).toEqual(running);
  expect(ips(withLaggard.subsets?.[0].notReadyAddresses)).toEqual([laggardIP]);

  // Scaling the Deployment to 1 leaves one ready address.
  await k.ok(["-n", ns, "scale", "deployment/web", "--replicas=1"]);
  const scaled = await eventually("Endpoints with one ready address", async () => {
    const e = await endpoints(ns, "web");
    return ips(e.subsets?.[0]?.addresses).length === 1 ? e : undefined;
  });
  const remaining = await podIPs((p) => p.metadata?.name !== "laggard");
  expect(remaining).toHaveLength(1);
  expect(ips(scaled.subsets?.[0].addresses)).toEqual(remaining);

  // Deleting the Service deletes its Endpoints.
  await k.ok(["-n", ns, "delete", "service", "web"]);
  await eventually("the Endpoints to go", async () => {
    try {
      await cp.client.resource<Endpoints>(builtin.endpoints, ns).get("web");
      return undefined;
    } catch (err) {
      return isNotFound(err) ? true : undefined;
    }
  });
}, 90_000);
