/**
 * DaemonSets end to end with the real kubectl: `kubectl apply` of a DaemonSet to the control plane
 * (the simulated kubelet's nodes), `kubectl rollout status daemonset/x`, an image change rolled
 * out the same way, `kubectl rollout history` listing both ControllerRevisions, and `rollout undo`.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import type { RunningControlPlane } from "../../src/controlplane/index.js";
import { missingResources } from "../../src/controllers/registry.js";
import type { Kubectl } from "./kubectl.js";
import { startTestControlPlane } from "./controlplane-env.js";

let cp: RunningControlPlane;
let k: Kubectl;

beforeAll(async () => {
  ({ cp, k } = await startTestControlPlane());
  expect(await missingResources("daemonset", cp.client.discoveryClient)).toBeUndefined();
}, 60_000);

afterAll(async () => {
  await cp?.stop();
});

const manifest = (image: string) => `apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: agent
spec:
  selector:
    matchLabels: { app: agent }
  updateStrategy:
    type: RollingUpdate
    rollingUpdate: { maxUnavailable: 1 }
  template:
    metadata:
      labels: { app: agent }
    spec:
      containers:
      - name: agent
        image: ${image}
`;

interface PodJSON {
  metadata: { labels: Record<string, string> };
  spec: { nodeName?: string; containers: Array<{ image: string }>; affinity?: { nodeAffinity?: { requiredDuringSchedulingIgnoredDuringExecution?: { nodeSelectorTerms: Array<{ matchFields?: Array<{ values: string[] }> }> } } } };
  status: { phase: string };
}

async function rolloutStatus(): Promise<string> {
  const r = await k.run(["rollout", "status", "daemonset/agent", "--timeout=60s"], undefined, 70_000);
  expect(r.stderr).toBe("");
  expect(r.code).toBe(0);
  return r.stdout;
}

async function agentPods(): Promise<PodJSON[]> {
  const list = JSON.parse(await k.ok(["get", "pods", "-l", "app=agent", "-o", "json"])) as { items: PodJSON[] };
  return list.items;
}

it("apply → rollout status: one running pod per node, each on the node its affinity names", async () => {
  const nodes = (await k.ok(["get", "nodes", "-o", "name"])).trim().split("\n").map((n) => n.replace(/^node\//, ""));
  expect(nodes.length).toBeGreaterThan(1);
  await k.ok(["apply", "-f", await k.manifest("ds-v1.yaml", manifest("agent:1"))]);
  expect(await rolloutStatus()).toContain('daemon set "agent" successfully rolled out');
  const pods = await agentPods();
  expect(pods).toHaveLength(nodes.length);
  expect(new Set(pods.map((p) => p.spec.nodeName))).toEqual(new Set(nodes));
  for (const p of pods) {
    expect(p.spec.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms[0].matchFields?.[0].values).toEqual([p.spec.nodeName]);
    expect(p.spec.containers[0].image).toBe("agent:1");
  }
  const ds = JSON.parse(await k.ok(["get", "daemonset", "agent", "-o", "json"])) as { metadata: { generation: number }; status: Record<string, number> };
  expect(ds.status).toMatchObject({
    desiredNumberScheduled: nodes.length,
    currentNumberScheduled: nodes.length,
    numberReady: nodes.length,
    updatedNumberScheduled: nodes.length,
    numberAvailable: nodes.length,
    numberMisscheduled: 0,
    observedGeneration: ds.metadata.generation,
  });
}, 90_000);

it("an image change rolls out one node at a time; rollout status and history follow it", async () => {
  await k.ok(["apply", "-f", await k.manifest("ds-v2.yaml", manifest("agent:2"))]);
  const out = await rolloutStatus();
  expect(out).toContain('daemon set "agent" successfully rolled out');
  const pods = await agentPods();
  const nodes = (await k.ok(["get", "nodes", "-o", "name"])).trim().split("\n");
  expect(pods).toHaveLength(nodes.length);
  for (const p of pods) expect(p.spec.containers[0].image).toBe("agent:2");
  expect(new Set(pods.map((p) => p.metadata.labels["controller-revision-hash"])).size).toBe(1);
  const revisions = JSON.parse(await k.ok(["get", "controllerrevisions", "-o", "json"])) as { items: Array<{ revision: number }> };
  expect(revisions.items.map((r) => r.revision).sort()).toEqual([1, 2]);
  const history = await k.ok(["rollout", "history", "daemonset/agent"]);
  expect(history).toMatch(/REVISION\s+CHANGE-CAUSE\s*\n1\s+<none>\s*\n2\s+<none>/);
}, 90_000);

it("rollout undo applies revision 1's template back: the pods return to agent:1", async () => {
  expect((await k.ok(["rollout", "undo", "daemonset/agent"])).trim()).toBe("daemonset.apps/agent rolled back");
  expect(await rolloutStatus()).toContain('daemon set "agent" successfully rolled out');
  const pods = await agentPods();
  for (const p of pods) expect(p.spec.containers[0].image).toBe("agent:1");
  // Revision 1's template is current again: renumbered 3, as constructHistory does.
  const revisions = JSON.parse(await k.ok(["get", "controllerrevisions", "-o", "json"])) as { items: Array<{ revision: number }> };
  expect(revisions.items.map((r) => r.revision).sort()).toEqual([2, 3]);
}, 90_000);
