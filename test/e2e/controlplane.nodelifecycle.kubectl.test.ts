/**
 * A node whose simulated kubelet stops, end to end with the real kubectl: `kubectl annotate node
 * … sim.kubeloop.dev/heartbeat=stopped` → the node turns NotReady (Unknown) after the grace
 * period, is tainted unreachable, the Deployment's pods there are evicted once their toleration
 * has passed and replaced on other nodes; removing the annotation brings the node back Ready and
 * untainted. The grace period (2 s) and the pods' tolerations (1 s) are short so the test takes
 * seconds; the pods' default 300 s tolerations come from the DefaultTolerationSeconds plugin.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { startControlPlane, type RunningControlPlane } from "../../src/controlplane/index.js";
import { Kubectl } from "./kubectl.js";
import { eventually } from "./controlplane-env.js";

let cp: RunningControlPlane;
let k: Kubectl;

beforeAll(async () => {
  cp = await startControlPlane({
    port: 0,
    kubelet: { nodes: 2, heartbeatIntervalMs: 300, speedFactor: 0.01, delays: { schedule: 0, containerCreating: 10, running: 10 } },
    nodeLifecycle: { nodeMonitorGracePeriodMs: 2000 },
  });
  await cp.ready;
  k = new Kubectl(cp.api.kubeconfigPath);
}, 60_000);

afterAll(async () => {
  await cp?.stop();
});

interface PodJSON {
  metadata: { name: string; deletionTimestamp?: string };
  spec: { nodeName?: string; tolerations?: Array<{ key?: string; effect?: string; tolerationSeconds?: number }> };
  status: { phase?: string; conditions?: Array<{ type: string; status: string; reason?: string }> };
}

async function pods(selector: string): Promise<PodJSON[]> {
  return (JSON.parse(await k.ok(["get", "pods", "-l", selector, "-o", "json"])) as { items: PodJSON[] }).items;
}

it("kubectl run pods get the DefaultTolerationSeconds tolerations", async () => {
  await k.ok(["run", "plain", "--image=nginx"]);
  const p = JSON.parse(await k.ok(["get", "pod", "plain", "-o", "json"])) as PodJSON;
  expect(p.spec.tolerations).toEqual([
    { key: "node.kubernetes.io/not-ready", operator: "Exists", effect: "NoExecute", tolerationSeconds: 300 },
    { key: "node.kubernetes.io/unreachable", operator: "Exists", effect: "NoExecute", tolerationSeconds: 300 },
  ]);
}, 30_000);

it("a stopped node goes NotReady, is tainted, its pods are evicted and replaced; it comes back when restarted", async () => {
  const manifest = await k.manifest(
    "web.yaml",
    `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 4
  selector: { matchLabels: { app: web } }
  template:
    metadata: { labels: { app: web } }
    spec:
      terminationGracePeriodSeconds: 1
      tolerations:
      - { key: node.kubernetes.io/unreachable, operator: Exists, effect: NoExecute, tolerationSeconds: 1 }
      - { key: node.kubernetes.io/not-ready, operator: Exists, effect: NoExecute, tolerationSeconds: 1 }
      containers:
      - { name: web, image: nginx }
`,
  );
  await k.ok(["apply", "-f", manifest]);
  await k.ok(["rollout", "status", "deployment/web", "--timeout=60s"]);
  const before = await pods("app=web");
  const victim = before[0].spec.nodeName!;
  const victims = before.filter((p) => p.spec.nodeName === victim).map((p) => p.metadata.name);

  await k.ok(["annotate", "node", victim, "sim.kubeloop.dev/heartbeat=stopped"]);
  await eventually("the node NotReady", async () => ((await k.ok(["get", "node", victim])).includes("NotReady") ? true : undefined), 30_000);
  const describe = await k.ok(["describe", "node", victim]);
  expect(describe).toContain("node.kubernetes.io/unreachable:NoExecute");
  expect(describe).toContain("node.kubernetes.io/unreachable:NoSchedule");
  expect(describe).toMatch(/Ready\s+Unknown.*NodeStatusUnknown\s+Kubelet stopped posting node status\./);

  // Evicted after 1 s: being deleted (their kubelet is gone, so they stay Terminating), DisruptionTarget set; replaced elsewhere.
  await eventually(
    "the pods evicted and replaced",
    async () => {
      const now = await pods("app=web");
      const evicted = victims.every((n) => now.find((p) => p.metadata.name === n)?.metadata.deletionTimestamp);
      const ready = now.filter((p) => !p.metadata.deletionTimestamp && p.spec.nodeName !== victim && p.status.conditions?.some((c) => c.type === "Ready" && c.status === "True"));
      return evicted && ready.length === 4 ? now : undefined;
    },
    30_000,
  );
  const evicted = (await pods("app=web")).filter((p) => victims.includes(p.metadata.name));
  for (const p of evicted) expect(p.status.conditions?.find((c) => c.type === "DisruptionTarget")).toMatchObject({ status: "True", reason: "DeletionByTaintManager" });
  const events = await k.ok(["get", "events", "--field-selector", "reason=TaintManagerEviction", "-o", "jsonpath={.items[*].message}"]);
  for (const n of victims) expect(events).toContain(`Marking for deletion Pod default/${n}`);

  await k.ok(["annotate", "node", victim, "sim.kubeloop.dev/heartbeat-"]);
  await eventually(
    "the node Ready and untainted",
    async () => {
      const n = JSON.parse(await k.ok(["get", "node", victim, "-o", "json"])) as { spec: { taints?: unknown[] }; status: { conditions: Array<{ type: string; status: string }> } };
      return n.status.conditions.some((c) => c.type === "Ready" && c.status === "True") && (n.spec.taints ?? []).length === 0 ? true : undefined;
    },
    30_000,
  );
  // The restarted kubelet finishes the evicted pods' deletions.
  await eventually("the evicted pods gone", async () => ((await pods("app=web")).some((p) => victims.includes(p.metadata.name)) ? undefined : true), 30_000);
}, 120_000);
