/**
 * Issue 16, end to end with the real kubectl 1.35: `kubectl top pod` / `top node` print the usage
 * the simulated kubelet reports (metrics.k8s.io from sim.kubeloop.dev/cpu-usage or the requests),
 * and `kubectl autoscale` makes a HorizontalPodAutoscaler that scales a Deployment whose pods run
 * at 200 % of their CPU request; `kubectl get hpa` shows TARGETS and REPLICAS. The HPA syncs every
 * 200 ms here (--horizontal-pod-autoscaler-sync-period) so nothing waits 15 s.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { startControlPlane, type RunningControlPlane } from "../../src/controlplane/index.js";
import { eventually } from "./controlplane-env.js";
import { Kubectl } from "./kubectl.js";

let cp: RunningControlPlane;
let k: Kubectl;

beforeAll(async () => {
  cp = await startControlPlane({
    port: 0,
    kubelet: { heartbeatIntervalMs: 0, speedFactor: 0.01, delays: { schedule: 0, containerCreating: 10, running: 10 } },
    podAutoscaler: { horizontalPodAutoscalerSyncPeriodMs: 200 },
  });
  await cp.ready;
  k = new Kubectl(cp.api.kubeconfigPath);
}, 60_000);

afterAll(async () => {
  await cp?.stop();
});

const deployment = (ns: string, name: string, replicas: number, cpuUsage: string) => `
apiVersion: apps/v1
kind: Deployment
metadata: { name: ${name}, namespace: ${ns} }
spec:
  replicas: ${replicas}
  selector: { matchLabels: { app: ${name} } }
  template:
    metadata:
      labels: { app: ${name} }
      annotations: { sim.kubeloop.dev/cpu-usage: "${cpuUsage}", sim.kubeloop.dev/memory-usage: "96Mi" }
    spec:
      containers:
      - name: app
        image: nginx:1.27
        resources: { requests: { cpu: 100m, memory: 64Mi } }
`;

it("kubectl top pod and top node print the simulated usage", async () => {
  const ns = "e2e-top";
  await k.ok(["create", "namespace", ns]);
  await k.ok(["apply", "-f", "-"], deployment(ns, "api", 2, "250m"));
  expect((await k.run(["-n", ns, "rollout", "status", "deployment/api", "--timeout=60s"], undefined, 70_000)).code).toBe(0);
  const top = await eventually("both pods in kubectl top pod", async () => {
    const r = await k.run(["-n", ns, "top", "pod"]);
    return r.code === 0 && r.stdout.split("\n").filter((l) => l.startsWith("api-")).length === 2 ? r.stdout : undefined;
  });
  expect(top).toMatch(/^NAME\s+CPU\(cores\)\s+MEMORY\(bytes\)\s*$/m);
  for (const line of top.split("\n").filter((l) => l.startsWith("api-"))) expect(line).toMatch(/^api-\S+\s+250m\s+96Mi\s*$/);

  const containers = await k.ok(["-n", ns, "top", "pod", "--containers", "-l", "app=api"]);
  expect(containers).toMatch(/^POD\s+NAME\s+CPU\(cores\)\s+MEMORY\(bytes\)\s*$/m);
  expect(containers).toMatch(/^api-\S+\s+app\s+250m\s+96Mi\s*$/m);

  const nodes = await k.ok(["top", "node"]);
  expect(nodes).toMatch(/^NAME\s+CPU\(cores\)\s+CPU\(%\)\s+MEMORY\(bytes\)\s+MEMORY\(%\)\s*$/m);
  // The two pods' 500m and 192Mi are spread over the nodes: the CPU column sums to 500m.
  const cpu = nodes
    .split("\n")
    .filter((l) => l.startsWith("kubeloop-node-"))
    .map((l) => Number(/^\S+\s+(\d+)m/.exec(l)?.[1] ?? NaN));
  expect(cpu.reduce((a, b) => a + b, 0)).toBe(500);

  const missing = await k.run(["-n", ns, "top", "pod", "nope"]);
  expect(missing.code).not.toBe(0);
  expect(missing.stderr).toContain('podmetrics.metrics.k8s.io "e2e-top/nope" not found');
  expect(await k.ok(["get", "apiservice", "v1beta1.metrics.k8s.io"])).toMatch(/^v1beta1\.metrics\.k8s\.io\s+Local\s+True\s+/m);
}, 120_000);

it("kubectl autoscale: pods at 200 % of their request scale the Deployment up; get hpa shows TARGETS and REPLICAS", async () => {
  const ns = "e2e-hpa";
  await k.ok(["create", "namespace", ns]);
  await k.ok(["apply", "-f", "-"], deployment(ns, "web", 1, "200m"));
  expect((await k.run(["-n", ns, "rollout", "status", "deployment/web", "--timeout=60s"], undefined, 70_000)).code).toBe(0);
  expect(await k.ok(["-n", ns, "autoscale", "deployment", "web", "--cpu-percent=50", "--min=1", "--max=5"])).toContain("horizontalpodautoscaler.autoscaling/web autoscaled");

  // 200 % against a 50 % target: 1 → 4 (ceil(4 × 1)); the new pods run at 200 % too, so 4 → 5 (the max).
  const row = await eventually(
    "the HPA at its maximum",
    async () => {
      const t = await k.ok(["-n", ns, "get", "hpa", "web"]);
      const line = t.split("\n").find((l) => l.startsWith("web "));
      return line && /^web\s+Deployment\/web\s+cpu: 200%\/50%\s+1\s+5\s+5\s+/.test(line) ? t : undefined;
    },
    60_000,
  );
  expect(row).toMatch(/^NAME\s+REFERENCE\s+TARGETS\s+MINPODS\s+MAXPODS\s+REPLICAS\s+AGE/m);
  const dep = JSON.parse(await k.ok(["-n", ns, "get", "deployment", "web", "-o", "json"])) as { spec: { replicas: number } };
  expect(dep.spec.replicas).toBe(5);

  const hpa = JSON.parse(await k.ok(["-n", ns, "get", "hpa", "web", "-o", "json"])) as {
    status: { currentReplicas: number; desiredReplicas: number; lastScaleTime?: string; currentMetrics: unknown[]; conditions: Array<{ type: string; status: string; reason: string }> };
  };
  expect(hpa.status).toMatchObject({ currentReplicas: 5, desiredReplicas: 5 });
  expect(hpa.status.lastScaleTime).toBeDefined();
  expect(hpa.status.currentMetrics).toEqual([{ type: "Resource", resource: { name: "cpu", current: { averageUtilization: 200, averageValue: "200m" } } }]);
  const conditions = Object.fromEntries(hpa.status.conditions.map((c) => [c.type, [c.status, c.reason]]));
  expect(conditions.ScalingActive).toEqual(["True", "ValidMetricFound"]);
  expect(conditions.ScalingLimited).toEqual(["True", "TooManyReplicas"]);
  expect(conditions.AbleToScale?.[0]).toBe("True");

  const events = await k.ok(["-n", ns, "get", "events", "--field-selector", "involvedObject.kind=HorizontalPodAutoscaler,reason=SuccessfulRescale", "-o", "jsonpath={range .items[*]}{.message}{\"\\n\"}{end}"]);
  expect(events).toContain("New size: 4; reason: cpu resource utilization (percentage of request) above target");
  expect(events).toContain("New size: 5; reason: cpu resource utilization (percentage of request) above target");

  const described = await k.ok(["-n", ns, "describe", "hpa", "web"]);
  expect(described).toMatch(/resource cpu on pods\s+\(as a percentage of request\):\s+200% \(200m\) \/ 50%/);
}, 150_000);
