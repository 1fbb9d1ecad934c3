/**
 * Jobs end to end with the real kubectl: the Job controller and the simulated kubelet running
 * `sh -c "exit N"` containers to completion.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import type { RunningControlPlane } from "../../src/controlplane/index.js";
import { missingResources } from "../../src/controllers/registry.js";
import type { Kubectl } from "./kubectl.js";
import { eventually, startTestControlPlane } from "./controlplane-env.js";

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

it("the control plane's registry carries the Job controller's metrics under upstream's names", async () => {
  // Job x (above) completed: one succeeded NonIndexed Job, its one pod counted and created.
  const text = await cp.registry.metrics();
  const value = (series: string) => Number(text.split("\n").find((l) => l.startsWith(`${series} `))?.split(" ")[1] ?? NaN);
  expect(value('job_controller_jobs_finished_total{completion_mode="NonIndexed",result="succeeded",reason="CompletionsReached"}')).toBeGreaterThanOrEqual(1);
  expect(value('job_controller_job_pods_finished_total{completion_mode="NonIndexed",result="succeeded"}')).toBeGreaterThanOrEqual(1);
  expect(value('job_controller_job_pods_creation_total{reason="new",status="succeeded"}')).toBeGreaterThanOrEqual(1);
  expect(value('job_controller_terminated_pods_tracking_finalizer_total{event="add"}')).toBeGreaterThanOrEqual(1);
  expect(text).toMatch(/^job_controller_job_syncs_total\{completion_mode="NonIndexed",result="success",action="pods_created"\} [1-9]/m);
  expect(text).toContain("# TYPE job_controller_job_sync_duration_seconds histogram");
});

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

interface PodList {
  items: Array<{ metadata: { name: string; annotations?: Record<string, string> }; status: { phase: string } }>;
}

it("a podFailurePolicy FailJob rule on exit code 3 fails the job at the first failure with reason PodFailurePolicy", async () => {
  const manifest = await k.manifest(
    "failjob.yaml",
    `apiVersion: batch/v1
kind: Job
metadata:
  name: failjob
spec:
  backoffLimit: 6
  podFailurePolicy:
    rules:
    - action: Ignore
      onPodConditions:
      - type: DisruptionTarget
    - action: FailJob
      onExitCodes:
        containerName: main
        operator: In
        values: [3]
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: main
        image: busybox
        command: ["sh", "-c", "exit 3"]
`,
  );
  await k.ok(["apply", "-f", manifest]);
  const r = await k.run(["wait", "--for=condition=Failed", "job/failjob", "--timeout=60s"], undefined, 70_000);
  expect(r.stderr).toBe("");
  expect(r.stdout).toContain("job.batch/failjob condition met");
  const job = JSON.parse(await k.ok(["get", "job", "failjob", "-o", "json"])) as JobJSON & { spec: { podReplacementPolicy?: string } };
  // A podFailurePolicy makes the API server default podReplacementPolicy to Failed.
  expect(job.spec.podReplacementPolicy).toBe("Failed");
  const pods = JSON.parse(await k.ok(["get", "pods", "-l", "batch.kubernetes.io/job-name=failjob", "-o", "json"])) as PodList;
  // No retry despite backoffLimit 6: the one pod's failure matched the FailJob rule.
  expect(pods.items.map((p) => p.status.phase)).toEqual(["Failed"]);
  expect(job.status.failed).toBe(1);
  const message = `Container main for pod default/${pods.items[0].metadata.name} failed with exit code 3 matching FailJob rule at index 1`;
  expect(job.status.conditions?.filter((c) => c.status === "True")).toEqual([
    expect.objectContaining({ type: "FailureTarget", reason: "PodFailurePolicy", message }),
    expect.objectContaining({ type: "Failed", reason: "PodFailurePolicy", message }),
  ]);
  const describe = await k.ok(["describe", "job", "failjob"]);
  // The Warning event upstream records when the Job fails.
  expect(describe.split("\n").filter((l) => /^\s+Warning\s+PodFailurePolicy\s+\S+\s+job-controller\s+/.test(l) && l.trimEnd().endsWith(message))).toHaveLength(1);
}, 90_000);

it("backoffLimitPerIndex with a FailIndex rule: each index fails on its own, then the job fails with FailedIndexes", async () => {
  const manifest = await k.manifest(
    "failindex.yaml",
    `apiVersion: batch/v1
kind: Job
metadata:
  name: failindex
spec:
  completions: 2
  parallelism: 2
  completionMode: Indexed
  backoffLimitPerIndex: 1
  podFailurePolicy:
    rules:
    - action: FailIndex
      onExitCodes:
        operator: In
        values: [3]
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: main
        image: busybox
        command: ["sh", "-c", "exit 3"]
`,
  );
  await k.ok(["apply", "-f", manifest]);
  const r = await k.run(["wait", "--for=condition=Failed", "job/failindex", "--timeout=60s"], undefined, 70_000);
  expect(r.stderr).toBe("");
  const job = JSON.parse(await k.ok(["get", "job", "failindex", "-o", "json"])) as JobJSON & { spec: { backoffLimit?: number }; status: { failedIndexes?: string } };
  expect(job.spec.backoffLimit).toBe(2147483647);
  expect(job.status.failedIndexes).toBe("0,1");
  expect(job.status.failed).toBe(2);
  expect(job.status.conditions?.find((c) => c.type === "Failed")).toMatchObject({ status: "True", reason: "FailedIndexes" });
  const pods = JSON.parse(await k.ok(["get", "pods", "-l", "batch.kubernetes.io/job-name=failindex", "-o", "json"])) as PodList;
  // One pod per index, never replaced (FailIndex), each created with a failure count of 0.
  expect(pods.items.map((p) => p.metadata.annotations?.["batch.kubernetes.io/job-completion-index"]).sort()).toEqual(["0", "1"]);
  expect(pods.items.map((p) => p.metadata.annotations?.["batch.kubernetes.io/job-index-failure-count"])).toEqual(["0", "0"]);
}, 90_000);

it("an evicted pod of a Job ignoring DisruptionTarget ends Failed, is not counted, and is replaced", async () => {
  const manifest = await k.manifest(
    "ignore-disruption.yaml",
    `apiVersion: batch/v1
kind: Job
metadata:
  name: disrupted
spec:
  backoffLimit: 0
  podFailurePolicy:
    rules:
    - action: Ignore
      onPodConditions:
      - type: DisruptionTarget
  template:
    spec:
      restartPolicy: Never
      terminationGracePeriodSeconds: 100
      containers:
      - name: main
        image: nginx
`,
  );
  await k.ok(["apply", "-f", manifest]);
  const podsOf = async () => (JSON.parse(await k.ok(["get", "pods", "-l", "batch.kubernetes.io/job-name=disrupted", "-o", "json"])) as PodList & {
    items: Array<{ status: { conditions?: Array<{ type: string; status: string }> } }>;
  }).items;
  const first = await eventually("the Job's pod runs", async () => {
    const items = await podsOf();
    return items.length === 1 && items[0].status.phase === "Running" ? items[0] : undefined;
  });
  const eviction = await k.manifest("eviction.json", JSON.stringify({ apiVersion: "policy/v1", kind: "Eviction", metadata: { name: first.metadata.name, namespace: "default" } }));
  await k.ok(["create", "--raw", `/api/v1/namespaces/default/pods/${first.metadata.name}/eviction`, "-f", eviction]);
  // The simulated kubelet stops it after the grace period and writes the terminal phase; the
  // DisruptionTarget condition the eviction added matches the Ignore rule.
  // With podReplacementPolicy Failed (implied by the podFailurePolicy) the replacement comes only
  // once the evicted pod is terminal; the evicted pod then loses its finalizer and goes.
  const job = await eventually("a replacement pod runs and the evicted pod is gone", async () => {
    const items = await podsOf();
    if (items.length !== 1 || items[0].metadata.name === first.metadata.name || items[0].status.phase !== "Running") return undefined;
    const j = JSON.parse(await k.ok(["get", "job", "disrupted", "-o", "json"])) as JobJSON & { status: { active?: number; terminating?: number } };
    return j.status.active === 1 && (j.status.terminating ?? 0) === 0 ? j : undefined;
  });
  expect(job.status.failed ?? 0).toBe(0);
  expect(job.status.conditions?.filter((c) => c.status === "True") ?? []).toEqual([]);
  await k.ok(["delete", "job", "disrupted", "--cascade=foreground", "--wait=false"]);
}, 90_000);
