/**
 * Jobs end to end with the real kubectl: the Job controller and the simulated kubelet running
 * `sh -c "exit N"` containers to completion.
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
  // The server serves batch/v1: a missing resource is a failure here, not a reason to skip.
  expect(await missingResources("job", cp.client.discoveryClient)).toBeUndefined();
}, 60_000);

afterAll(async () => {
  await cp?.stop();
});

interface JobJSON {
  spec: { selector?: unknown };
  status: { succeeded?: number; failed?: number; conditions?: Array<{ type: string; status: string; reason?: string }> };
}

it('kubectl create job x --image=busybox -- sh -c "exit 0" → wait --for=condition=Complete succeeds', async () => {
  await k.ok(["create", "job", "x", "--image=busybox", "--", "sh", "-c", "exit 0"]);
  const created = JSON.parse(await k.ok(["get", "job", "x", "-o", "json"])) as JobJSON;
  // The API server generates the selector (the batch registry's PrepareForCreate); without it
  // the controller refuses the Job with an InvalidSelector event.
  expect(created.spec.selector, "the API server did not generate the Job's selector").toBeDefined();
  const r = await k.run(["wait", "--for=condition=Complete", "job/x", "--timeout=60s"], undefined, 70_000);
  expect(r.stderr).toBe("");
  expect(r.stdout).toContain("job.batch/x condition met");
  const job = JSON.parse(await k.ok(["get", "job", "x", "-o", "json"])) as JobJSON;
  expect(job.status.succeeded).toBe(1);
  const pods = JSON.parse(await k.ok(["get", "pods", "-l", "batch.kubernetes.io/job-name=x", "-o", "json"])) as {
    items: Array<{ metadata: { finalizers?: string[] }; status: { phase: string; containerStatuses: Array<{ state: { terminated?: { exitCode: number; reason: string } } }> } }>;
  };
  expect(pods.items).toHaveLength(1);
  expect(pods.items[0].status.phase).toBe("Succeeded");
  expect(pods.items[0].status.containerStatuses[0].state.terminated).toMatchObject({ exitCode: 0, reason: "Completed" });
  expect(pods.items[0].metadata.finalizers ?? []).toEqual([]);
  const describe = await k.ok(["describe", "job", "x"]);
  expect(describe).toMatch(/Pods Statuses:\s+0 Active \(0 Ready\) \/ 1 Succeeded \/ 0 Failed/);
  expect(describe).toContain("Completed");
}, 90_000);

it("a failing job is retried after the pod failure back-off and reaches Failed with BackoffLimitExceeded", async () => {
  const manifest = await k.manifest(
    "failing-job.yaml",
    `apiVersion: batch/v1
kind: Job
metadata:
  name: fails
spec:
  backoffLimit: 1
  manualSelector: true
  selector:
    matchLabels: { app: fails }
  template:
    metadata:
      labels: { app: fails }
    spec:
      restartPolicy: Never
      containers:
      - name: main
        image: busybox
        command: ["sh", "-c", "exit 3"]
`,
  );
  await k.ok(["apply", "-f", manifest]);
  const r = await k.run(["wait", "--for=condition=Failed", "job/fails", "--timeout=60s"], undefined, 70_000);
  expect(r.stderr).toBe("");
  expect(r.stdout).toContain("job.batch/fails condition met");
  const job = JSON.parse(await k.ok(["get", "job", "fails", "-o", "json"])) as JobJSON;
  expect(job.status.failed).toBe(2);
  expect(job.status.conditions?.find((c) => c.type === "Failed")).toMatchObject({ status: "True", reason: "BackoffLimitExceeded" });
  const pods = JSON.parse(await k.ok(["get", "pods", "-l", "app=fails", "-o", "json"])) as {
    items: Array<{ status: { phase: string; containerStatuses: Array<{ state: { terminated?: { exitCode: number; reason: string } } }> } }>;
  };
  expect(pods.items.map((p) => p.status.phase)).toEqual(["Failed", "Failed"]);
  expect(pods.items[0].status.containerStatuses[0].state.terminated).toMatchObject({ exitCode: 3, reason: "Error" });
}, 90_000);
