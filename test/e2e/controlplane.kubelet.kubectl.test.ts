/**
 * The simulated kubelet's probes, sidecars and per-node accounting end to end with the real
 * kubectl: a failing liveness probe restarts its container (RESTARTS grows; `describe pod` shows
 * the Unhealthy and Killing events), a failing readiness probe keeps a pod unready, a Job whose
 * pod has a sidecar completes, and `describe node` adds up the requests of the node's pods.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import type { RunningControlPlane } from "../../src/controlplane/index.js";
import type { Kubectl } from "./kubectl.js";
import { eventually, startTestControlPlane } from "./controlplane-env.js";

let cp: RunningControlPlane;
let k: Kubectl;

beforeAll(async () => {
  ({ cp, k } = await startTestControlPlane());
}, 60_000);

afterAll(async () => {
  await cp?.stop();
});

async function jsonpath(what: string[], path: string): Promise<string> {
  return (await k.ok(["get", ...what, "-o", `jsonpath=${path}`])).trim();
}

it("a failing liveness probe: RESTARTS grows, describe shows Unhealthy and Killing", async () => {
  const manifest = await k.manifest(
    "live.yaml",
    `apiVersion: v1
kind: Pod
metadata:
  name: live
  annotations:
    sim.kubeloop.dev/probe.app.liveness: fail
spec:
  containers:
  - name: app
    image: nginx
    livenessProbe:
      httpGet: { path: /healthz, port: 80 }
      periodSeconds: 1
      failureThreshold: 1
`,
  );
  await k.ok(["apply", "-f", manifest]);
  // Killed at its first probe, restarted at once, then again after the 10 s back-off.
  await eventually("two restarts", async () => (Number(await jsonpath(["pod", "live"], "{.status.containerStatuses[0].restartCount}")) >= 2 ? true : undefined), 40_000);
  const table = await k.ok(["get", "pod", "live"]);
  expect(table).toMatch(/^live\s+\S+\s+\S+\s+[2-9] \(\S+ ago\)\s+\S+$/m);
  expect(await jsonpath(["pod", "live"], "{.status.containerStatuses[0].lastState.terminated.exitCode}")).toBe("137");
  const describe = await k.ok(["describe", "pod", "live"]);
  expect(describe).toMatch(/Warning\s+Unhealthy\s+.*kubelet\s+Liveness probe failed: HTTP probe failed with statuscode: 500/);
  expect(describe).toMatch(/Normal\s+Killing\s+.*kubelet\s+Container app failed liveness probe, will be restarted/);
}, 60_000);

it("a failing readiness probe keeps the pod Running and not ready", async () => {
  const manifest = await k.manifest(
    "unready.yaml",
    `apiVersion: v1
kind: Pod
metadata:
  name: unready
  annotations:
    sim.kubeloop.dev/probe.app.readiness: fail
spec:
  containers:
  - name: app
    image: nginx
    readinessProbe:
      tcpSocket: { port: 80 }
      periodSeconds: 1
`,
  );
  await k.ok(["apply", "-f", manifest]);
  await eventually("an Unhealthy event", async () => ((await k.ok(["describe", "pod", "unready"])).includes("Readiness probe failed: dial tcp") ? true : undefined));
  expect(await jsonpath(["pod", "unready"], "{.status.phase}")).toBe("Running");
  expect(await jsonpath(["pod", "unready"], '{.status.conditions[?(@.type=="Ready")].reason}')).toBe("ContainersNotReady");
  expect(await k.ok(["get", "pod", "unready"])).toMatch(/^unready\s+0\/1\s+Running\s+0\s/m);
}, 60_000);

it("a Job whose pod has a sidecar completes; the sidecar is stopped", async () => {
  const manifest = await k.manifest(
    "sidecar-job.yaml",
    `apiVersion: batch/v1
kind: Job
metadata:
  name: with-sidecar
spec:
  template:
    spec:
      restartPolicy: Never
      initContainers:
      - name: proxy
        image: busybox
        restartPolicy: Always
        command: ["sh", "-c", "sleep infinity"]
      containers:
      - name: main
        image: busybox
        command: ["sh", "-c", "echo working; sleep 1"]
`,
  );
  await k.ok(["apply", "-f", manifest]);
  const r = await k.run(["wait", "--for=condition=Complete", "job/with-sidecar", "--timeout=60s"], undefined, 70_000);
  expect(r.stderr).toBe("");
  const pod = await jsonpath(["pods", "-l", "job-name=with-sidecar"], "{.items[0].metadata.name}");
  expect(await jsonpath(["pod", pod], "{.status.phase}")).toBe("Succeeded");
  expect(await jsonpath(["pod", pod], "{.status.initContainerStatuses[0].state.terminated.exitCode}")).toBe("137");
  expect(await jsonpath(["pod", pod], "{.status.containerStatuses[0].state.terminated.reason}")).toBe("Completed");
  expect(await k.ok(["logs", pod, "-c", "main"])).toBe("working\n");
}, 90_000);

it("describe node adds up the requests of the pods on the node (Allocated resources)", async () => {
  const node = "kubeloop-node-3";
  const manifest = await k.manifest(
    "requests.yaml",
    `apiVersion: v1
kind: Pod
metadata:
  name: heavy
spec:
  nodeSelector: { kubernetes.io/hostname: ${node} }
  initContainers:
  - name: init
    image: busybox
    command: ["true"]
    resources: { requests: { cpu: "3", memory: 64Mi } }
  containers:
  - name: a
    image: nginx
    resources: { requests: { cpu: 500m, memory: 1Gi }, limits: { cpu: "1", memory: 2Gi } }
  - name: b
    image: nginx
    resources: { requests: { cpu: 500m, memory: 1Gi } }
`,
  );
  await k.ok(["apply", "-f", manifest]);
  await eventually("the pod to run", async () => ((await jsonpath(["pod", "heavy"], "{.status.phase}")) === "Running" ? true : undefined));
  const describe = await k.ok(["describe", "node", node]);
  expect(describe).toMatch(/Capacity:\n\s+cpu:\s+4\n\s+memory:\s+8Gi\n\s+pods:\s+110/);
  expect(describe).toMatch(/Allocatable:\n\s+cpu:\s+4\n\s+memory:\s+8Gi\n\s+pods:\s+110/);
  // kubectl sums the pod's requests as the scheduler does: max(init 3, 500m + 500m) CPU.
  const allocated = describe.slice(describe.indexOf("Allocated resources:"));
  expect(allocated).toMatch(/cpu\s+3 \(75%\)\s+1 \(25%\)/);
  expect(allocated).toMatch(/memory\s+2Gi \(25%\)\s+2Gi \(25%\)/);
  expect(describe).toMatch(/default\s+heavy\s+3 \(75%\)/);
}, 60_000);
