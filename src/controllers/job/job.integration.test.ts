import type { Job } from "../../apimachinery/api/batch/v1.js";
import type { Pod } from "../../apimachinery/api/core/v1.js";
import { describe, expect, it } from "vitest";
import { FakeClock } from "../../apimachinery/clock.js";
import { builtin } from "../../client/typed.js";
import { ControllerFixture } from "../../testing/fixture.js";
import { PodLifecycleSimulator } from "../podlifecycle/simulator.js";
import { JobController } from "./controller.js";

function job(name: string, o: { command: string[]; completions?: number; parallelism?: number; backoffLimit?: number; indexed?: boolean }): Job {
  const sel = { "batch.kubernetes.io/controller-uid": `uid-${name}` };
  return {
    apiVersion: "batch/v1",
    kind: "Job",
    metadata: { name, namespace: "default", uid: `uid-${name}` },
    spec: {
      completions: o.completions ?? 1,
      parallelism: o.parallelism ?? 1,
      backoffLimit: o.backoffLimit ?? 6,
      completionMode: o.indexed ? "Indexed" : "NonIndexed",
      selector: { matchLabels: sel },
      template: { metadata: { labels: { ...sel, "batch.kubernetes.io/job-name": name } }, spec: { restartPolicy: "Never", containers: [{ name: "c", image: "busybox", command: o.command }] } },
    },
  };
}

describe("Job controller with the simulated kubelet, on the fake clock", () => {
  async function run(j: Job, until: (j: Job) => boolean, stepMs = 50) {
    const f = new ControllerFixture({ clock: new FakeClock() });
    new PodLifecycleSimulator(f.manager, { heartbeatIntervalMs: 0, workers: 2 });
    new JobController(f.manager, { workers: 2 });
    f.seedAPI(builtin.jobs, j);
    await f.start();
    const now = () => f.client.tracker.get(builtin.jobs, "default", j.metadata!.name!) as unknown as Job;
    try {
      await f.eventually(() => until(now()), { maxSteps: 5000, stepMs });
      return { job: now(), pods: f.client.tracker.list(builtin.pods, "default") as unknown as Pod[], events: f.recorder.events, metrics: await f.registry.metrics() };
    } finally {
      await f.stop();
    }
  }
  const has = (type: string) => (j: Job) => (j.status?.conditions ?? []).some((c) => c.type === type && c.status === "True");

  it("sh -c 'exit 0' with completions 3, parallelism 2: Complete, pods Succeeded without the finalizer", async () => {
    const { job: done, pods, events, metrics } = await run(job("ok", { command: ["sh", "-c", "sleep 2; exit 0"], completions: 3, parallelism: 2 }), has("Complete"));
    expect(done.status?.failed).toBeUndefined();
    expect(done.status).toMatchObject({ succeeded: 3, ready: 0, terminating: 0, uncountedTerminatedPods: { succeeded: [], failed: [] } });
    expect(done.status?.active).toBeUndefined();
    expect(done.status?.conditions?.map((c) => c.type)).toEqual(["SuccessCriteriaMet", "Complete"]);
    expect(done.status?.completionTime).toBeDefined();
    expect(pods).toHaveLength(3);
    for (const p of pods) {
      expect(p.status?.phase).toBe("Succeeded");
      expect(p.metadata?.finalizers ?? []).toEqual([]);
    }
    expect(events.filter((e) => e.startsWith("Normal SuccessfulCreate Created pod: ok-"))).toHaveLength(3);
    expect(events).toContain("Normal Completed Job completed");
    // Each pod was seen terminal with the tracking finalizer, then without it.
    expect(metrics).toContain('job_controller_terminated_pods_tracking_finalizer_total{event="add"} 3');
    expect(metrics).toContain('job_controller_terminated_pods_tracking_finalizer_total{event="delete"} 3');
    expect(metrics).toContain('job_controller_jobs_finished_total{completion_mode="NonIndexed",result="succeeded",reason="CompletionsReached"} 1');
    expect(metrics).toContain('job_controller_job_pods_finished_total{completion_mode="NonIndexed",result="succeeded"} 3');
    expect(metrics).toContain('job_controller_job_pods_creation_total{reason="new",status="succeeded"} 3');
    expect(metrics).toMatch(/^# HELP job_controller_job_sync_duration_seconds \[STABLE\] The time it took to sync a job$/m);
    expect(metrics).toMatch(/^job_controller_job_sync_duration_seconds_bucket\{le="65.536",completion_mode="NonIndexed",result="success",action="tracking"\} \d+$/m);
  });

  it("a Job another controller manages (spec.managedBy) is counted in jobs_by_external_controller_total and left alone", async () => {
    const j = job("elsewhere", { command: ["true"] });
    j.spec!.managedBy = "example.com/other-controller";
    const f = new ControllerFixture({ clock: new FakeClock() });
    new JobController(f.manager);
    f.seedAPI(builtin.jobs, j);
    await f.start();
    try {
      await f.settle();
      const metrics = await f.registry.metrics();
      expect(metrics).toContain('job_controller_jobs_by_external_controller_total{controller_name="example.com/other-controller"} 1');
      expect(metrics).not.toMatch(/^job_controller_job_syncs_total\{/m);
      expect(f.client.tracker.list(builtin.pods, "default")).toEqual([]);
    } finally {
      await f.stop();
    }
  });

  it("a failing job retries with back-off and fails after backoffLimit", async () => {
    const { job: failed, pods } = await run(job("bad", { command: ["sh", "-c", "exit 1"], backoffLimit: 2 }), has("Failed"), 500);
    expect(failed.status?.failed).toBe(3);
    expect(failed.status?.conditions?.map((c) => `${c.type}:${c.reason}`)).toEqual(["FailureTarget:BackoffLimitExceeded", "Failed:BackoffLimitExceeded"]);
    expect(pods).toHaveLength(3);
    // The replacements waited out the pod failure back-off: 10 s, then 20 s.
    const created = pods.map((p) => Date.parse(p.metadata?.creationTimestamp ?? "")).sort((a, b) => a - b);
    expect(created[1] - created[0]).toBeGreaterThanOrEqual(10_000);
    expect(created[2] - created[1]).toBeGreaterThanOrEqual(20_000);
  });

  it("Indexed: each index succeeds once, completedIndexes covers them all", async () => {
    const { job: done, pods } = await run(job("idx", { command: ["true"], completions: 4, parallelism: 2, indexed: true }), has("Complete"));
    expect(done.status?.completedIndexes).toBe("0-3");
    expect(pods.map((p) => p.metadata?.annotations?.["batch.kubernetes.io/job-completion-index"]).sort()).toEqual(["0", "1", "2", "3"]);
  });
});
