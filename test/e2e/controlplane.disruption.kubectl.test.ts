/**
 * Issue 16, end to end with the real kubectl 1.35: `kubectl get pdb` shows ALLOWED DISRUPTIONS from
 * the status the disruption controller keeps, and `kubectl drain` of a node is refused while a PDB
 * with minAvailable equal to the replica count protects the pods; with room in the budget it drains.
 */
import type { Pod } from "../../src/apimachinery/api/core/v1.js";
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

it("drain is refused while a PDB allows no disruption; get pdb shows ALLOWED DISRUPTIONS", async () => {
  const ns = "e2e-pdb";
  await k.ok(["create", "namespace", ns]);
  await k.ok(["-n", ns, "create", "deployment", "web", "--image=nginx:1.27", "--replicas=3"]);
  expect((await k.run(["-n", ns, "rollout", "status", "deployment/web", "--timeout=60s"], undefined, 70_000)).code).toBe(0);
  await k.ok(["-n", ns, "create", "pdb", "web", "--selector=app=web", "--min-available=3"]);

  const row = await eventually("the PDB's status: 0 allowed of 3 healthy", async () => {
    const t = await k.ok(["-n", ns, "get", "pdb", "web"]);
    const line = t.split("\n").find((l) => l.startsWith("web "));
    return line && /^web\s+3\s+N\/A\s+0\s+/.test(line) ? t : undefined;
  });
  expect(row).toMatch(/^NAME\s+MIN AVAILABLE\s+MAX UNAVAILABLE\s+ALLOWED DISRUPTIONS\s+AGE/m);
  const status = JSON.parse(await k.ok(["-n", ns, "get", "pdb", "web", "-o", "json"])) as { status: Record<string, unknown> & { conditions: Array<{ type: string; status: string; reason: string }> } };
  expect(status.status).toMatchObject({ currentHealthy: 3, desiredHealthy: 3, expectedPods: 3, disruptionsAllowed: 0 });
  expect(status.status.conditions.map((c) => [c.type, c.status, c.reason])).toEqual([["DisruptionAllowed", "False", "InsufficientPods"]]);

  const pods = (await cp.client.resource<Pod>(builtin.pods, ns).list({ labelSelector: "app=web" })).items;
  const node = pods[0].spec?.nodeName ?? "";
  expect(node).toMatch(/^kubeloop-node-/);
  const drained = await k.run(["drain", node, "--ignore-daemonsets", "--timeout=3s"], undefined, 30_000);
  expect(drained.code).not.toBe(0);
  expect(drained.stderr).toContain("Cannot evict pod as it would violate the pod's disruption budget");
  // Nothing was evicted.
  expect((await cp.client.resource<Pod>(builtin.pods, ns).list({ labelSelector: "app=web" })).items.filter((p) => !p.metadata?.deletionTimestamp)).toHaveLength(3);

  // With room in the budget the status says so, and the drain goes through.
  await k.ok(["-n", ns, "patch", "pdb", "web", "--type=merge", "-p", '{"spec":{"minAvailable":2}}']);
  await eventually("one disruption allowed", async () => {
    const line = (await k.ok(["-n", ns, "get", "pdb", "web"])).split("\n").find((l) => l.startsWith("web "));
    return line && /^web\s+2\s+N\/A\s+1\s+/.test(line) ? line : undefined;
  });
  const ok = await k.run(["drain", node, "--ignore-daemonsets", "--timeout=60s"], undefined, 70_000);
  expect(ok.code).toBe(0);
  expect(ok.stdout).toContain(`node/${node} drained`);
}, 150_000);
