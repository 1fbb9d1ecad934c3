/**
 * Issue 16, end to end: a Service with a selector gets an EndpointSlice of its ready pods, which
 * the real kubectl 1.35 reads — `get endpointslices -l kubernetes.io/service-name=<svc>` shows one
 * slice with the pod IPs, `describe svc` lists them as its endpoints (read from slices).
 */
import type { Pod } from "../../src/apimachinery/api/core/v1.js";
import type { EndpointSlice } from "../../src/apimachinery/api/discovery/v1.js";
import { afterAll, beforeAll, expect, it } from "vitest";
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

it("a Service's EndpointSlice lists its ready pods; kubectl get endpointslices and describe svc show them", async () => {
  const ns = "e2e-slices";
  await k.ok(["create", "namespace", ns]);
  await k.ok(["-n", ns, "create", "deployment", "web", "--image=nginx:1.27", "--replicas=2", "--port=8080"]);
  await k.ok(["-n", ns, "expose", "deployment", "web", "--port=80", "--target-port=8080"]);
  expect((await k.run(["-n", ns, "rollout", "status", "deployment/web", "--timeout=60s"], undefined, 70_000)).code).toBe(0);
  const running = (await cp.client.resource<Pod>(builtin.pods, ns).list({ labelSelector: "app=web" })).items
    .filter((p) => !p.metadata?.deletionTimestamp)
    .map((p) => p.status?.podIP ?? "")
    .sort();
  expect(running).toHaveLength(2);

  const slice = await eventually("one slice with the two ready pod IPs", async () => {
    const list = JSON.parse(await k.ok(["-n", ns, "get", "endpointslices", "-l", "kubernetes.io/service-name=web", "-o", "json"])) as { items: EndpointSlice[] };
    const ready = list.items.flatMap((s) => s.endpoints ?? []).filter((e) => e.conditions?.ready).flatMap((e) => e.addresses);
    return list.items.length === 1 && ready.length === 2 ? list.items[0] : undefined;
  });
  expect(slice.metadata?.labels?.["endpointslice.kubernetes.io/managed-by"]).toBe("endpointslice-controller.k8s.io");
  expect(slice.metadata?.ownerReferences?.[0]).toMatchObject({ kind: "Service", name: "web", controller: true });
  expect(slice.addressType).toBe("IPv4");
  expect(slice.ports).toEqual([{ name: "", port: 8080, protocol: "TCP" }]);
  expect((slice.endpoints ?? []).flatMap((e) => e.addresses).sort()).toEqual(running);

  const table = await k.ok(["-n", ns, "get", "endpointslices", "-l", "kubernetes.io/service-name=web"]);
  expect(table).toMatch(/^NAME\s+ADDRESSTYPE\s+PORTS\s+ENDPOINTS\s+AGE/m);
  const row = table.split("\n").find((l) => l.startsWith("web-"));
  expect(row).toBeDefined();
  for (const ip of running) expect(row).toContain(ip);

  const described = await k.ok(["-n", ns, "describe", "svc", "web"]);
  const line = described.split("\n").find((l) => l.startsWith("Endpoints:"));
  expect(line).toBeDefined();
  for (const ip of running) expect(line).toContain(`${ip}:8080`);
  expect(line).not.toContain("<none>");
}, 120_000);
