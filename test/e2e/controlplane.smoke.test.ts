import { afterAll, beforeAll, expect, it } from "vitest";
import { startControlPlane, type RunningControlPlane } from "../../src/controlplane/index.js";
import { Kubectl } from "./kubectl.js";

let cp: RunningControlPlane;
let k: Kubectl;

beforeAll(async () => {
  cp = await startControlPlane({ port: 0, kubelet: { heartbeatIntervalMs: 0, delays: { schedule: 0, containerCreating: 10, running: 10 } } });
  await cp.ready;
  k = new Kubectl(cp.api.kubeconfigPath);
}, 60_000);

afterAll(async () => {
  await cp?.stop();
});

it("create deployment → rollout status succeeds, pods bound to simulated nodes", async () => {
  await k.ok(["create", "deployment", "web", "--image=nginx", "--replicas=3"]);
  const r = await k.run(["rollout", "status", "deployment/web", "--timeout=60s"], undefined, 70_000);
  expect(r.stderr).toBe("");
  expect(r.stdout).toContain('deployment "web" successfully rolled out');
  const pods = JSON.parse(await k.ok(["get", "pods", "-o", "json"])) as { items: Array<{ spec: { nodeName?: string }; status: { phase: string } }> };
  expect(pods.items).toHaveLength(3);
  for (const p of pods.items) {
    expect(p.spec.nodeName).toMatch(/kubeloop-node-/);
    expect(p.status.phase).toBe("Running");
  }
}, 90_000);
