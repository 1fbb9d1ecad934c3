import type { Job } from "../../apimachinery/api/batch/v1.js";
import type { Pod } from "../../apimachinery/api/core/v1.js";
import { describe, expect, it } from "vitest";
import { formatTime } from "../../apimachinery/time.js";
import { builtin } from "../../client/typed.js";
import { ControllerFixture } from "../../testing/fixture.js";
import { JOB_COMPLETION_INDEX_ANNOTATION, JOB_TRACKING_FINALIZER } from "./constants.js";
import { JobController } from "./controller.js";

const selector = { "batch.kubernetes.io/controller-uid": "uid-foobar" };

interface JobOpts {
  parallelism?: number;
  /** -1: unset (work queue job). */
  completions?: number;
  backoffLimit?: number;
  indexed?: boolean;
  suspend?: boolean;
  deleting?: boolean;
  activeDeadlineSeconds?: number;
  startTime?: number;
  restartPolicy?: string;
  status?: Job["status"];
}

function newJob(o: JobOpts = {}): Job {
  return {
    apiVersion: "batch/v1",
    kind: "Job",
    metadata: {
      name: "foobar",
      namespace: "default",
      uid: "uid-foobar",
      ...(o.deleting ? { deletionTimestamp: formatTime(Date.UTC(2026, 0, 1)), finalizers: ["test/keep"] } : {}),
    },
    spec: {
      parallelism: o.parallelism ?? 2,
      ...(o.completions === -1 ? {} : { completions: o.completions ?? 5 }),
      backoffLimit: o.backoffLimit ?? 6,
      completionMode: o.indexed ? "Indexed" : "NonIndexed",
      suspend: o.suspend ?? false,
      ...(o.activeDeadlineSeconds !== undefined ? { activeDeadlineSeconds: o.activeDeadlineSeconds } : {}),
      selector: { matchLabels: selector },
      template: {
        metadata: { labels: { ...selector, "batch.kubernetes.io/job-name": "foobar" } },
        spec: { restartPolicy: o.restartPolicy ?? "Never", containers: [{ name: "c", image: "busybox", command: ["true"] }] },
      },
    },
    status: { ...(o.startTime !== undefined ? { startTime: formatTime(o.startTime) } : {}), ...o.status },
  };
}

let podSeq = 0;
/** A pod of the Job with the tracking finalizer; finished pods finished an hour before the fixture's start. */
function newPod(phase: string, o: { index?: string; ready?: boolean; finalizer?: boolean; deleting?: boolean } = {}): Pod {
  const name = `pod-${podSeq++}`;
  const finished = formatTime(Date.UTC(2025, 11, 31, 23));
  const terminal = phase === "Succeeded" || phase === "Failed";
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: {
      name,
      namespace: "default",
      uid: `uid-${name}`,
      labels: { ...selector },
      ...(o.index !== undefined ? { annotations: { [JOB_COMPLETION_INDEX_ANNOTATION]: o.index } } : {}),
      ...(o.finalizer === false ? {} : { finalizers: [JOB_TRACKING_FINALIZER] }),
      ...(o.deleting ? { deletionTimestamp: finished } : {}),
      ownerReferences: [{ apiVersion: "batch/v1", kind: "Job", name: "foobar", uid: "uid-foobar", controller: true, blockOwnerDeletion: true }],
    },
    spec: { containers: [{ name: "c", image: "busybox" }] },
    status: {
      phase,
      ...(o.ready || (phase === "Running" && o.ready !== false) ? { conditions: [{ type: "Ready", status: "True" }] } : {}),
      ...(terminal
        ? { containerStatuses: [{ name: "c", image: "busybox", imageID: "", ready: false, restartCount: 0, state: { terminated: { exitCode: phase === "Succeeded" ? 0 : 1, finishedAt: finished } } }] }
        : {}),
    },
  };
}

function pods(n: number, phase: string, o: { ready?: boolean } = {}): Pod[] {
  return Array.from({ length: n }, () => newPod(phase, o));
}

function setup(job: Job, podList: Pod[]) {
  const f = new ControllerFixture();
  const jc = new JobController(f.manager);
  f.seed(builtin.jobs, job);
  if (podList.length > 0) f.seed(builtin.pods, ...podList);
  const sync = () => f.reconcile(jc.controller, "default/foobar");
  const job$ = () => f.client.tracker.get(builtin.jobs, "default", "foobar") as unknown as Job;
  const count = (verb: string, resource = "pods") => f.actions().filter((a) => a.verb === verb && a.resource === resource && !a.subresource).length;
  return { f, jc, sync, job$, count };
}

interface SyncCase {
  name: string;
  job: JobOpts;
  pods: () => Pod[];
  creations?: number;
  deletions?: number;
  active?: number;
  ready?: number;
  succeeded?: number;
  failed?: number;
  terminating?: number;
  completedIndexes?: string;
  createdIndexes?: string[];
  /** Condition types that are True, in order. */
  conditions?: string[];
  reason?: string;
}

// Restated from upstream's TestControllerSyncJob (job_controller_test.go), with 1.36's delayed
// terminal conditions (SuccessCriteriaMet/FailureTarget before Complete/Failed).
const syncCases: SyncCase[] = [
  { name: "job start", job: { parallelism: 2, completions: 5 }, pods: () => [], creations: 2, active: 2, ready: 0 },
  { name: "WQ job start", job: { parallelism: 2, completions: -1 }, pods: () => [], creations: 2, active: 2 },
  { name: "pending pods", job: { parallelism: 2, completions: 5 }, pods: () => pods(2, "Pending"), creations: 0, active: 2 },
  {
    name: "correct # of pods",
    job: { parallelism: 3, completions: 5 },
    pods: () => [...pods(2, "Running"), ...pods(1, "Running", { ready: false })],
    active: 3,
    ready: 2,
  },
  { name: "WQ job: correct # of pods", job: { parallelism: 2, completions: -1 }, pods: () => pods(2, "Running"), active: 2 },
  { name: "too few active pods", job: { parallelism: 2, completions: 5 }, pods: () => [...pods(1, "Running"), ...pods(1, "Succeeded")], creations: 1, active: 2, succeeded: 1 },
  { name: "too many active pods", job: { parallelism: 2, completions: 5 }, pods: () => pods(3, "Running"), deletions: 1, active: 2 },
  {
    name: "failed + succeed pods: reset backoff delay",
    job: { parallelism: 2, completions: 5 },
    pods: () => [...pods(1, "Running"), ...pods(1, "Succeeded"), ...pods(1, "Failed")],
    creations: 1,
    active: 2,
    succeeded: 1,
    failed: 1,
  },
  { name: "new failed pod", job: { parallelism: 2, completions: 5 }, pods: () => [...pods(1, "Running"), ...pods(1, "Failed")], creations: 1, active: 2, failed: 1 },
  { name: "only new failed pod", job: { parallelism: 2, completions: 5 }, pods: () => pods(1, "Failed"), creations: 2, active: 2, failed: 1 },
  {
    name: "job finish",
    job: { parallelism: 2, completions: 5 },
    pods: () => pods(5, "Succeeded"),
    succeeded: 5,
    conditions: ["SuccessCriteriaMet", "Complete"],
    reason: "CompletionsReached",
  },
  { name: "WQ job finishing", job: { parallelism: 2, completions: -1 }, pods: () => [...pods(1, "Running"), ...pods(1, "Succeeded")], active: 1, succeeded: 1 },
  { name: "WQ job all finished", job: { parallelism: 2, completions: -1 }, pods: () => pods(2, "Succeeded"), succeeded: 2, conditions: ["SuccessCriteriaMet", "Complete"] },
  {
    name: "WQ job all finished despite one failure",
    job: { parallelism: 2, completions: -1 },
    pods: () => [...pods(1, "Succeeded"), ...pods(1, "Failed")],
    succeeded: 1,
    failed: 1,
    conditions: ["SuccessCriteriaMet", "Complete"],
  },
  { name: "more active pods than parallelism", job: { parallelism: 2, completions: 5 }, pods: () => pods(10, "Running"), deletions: 8, active: 2 },
  {
    name: "more active pods than remaining completions",
    job: { parallelism: 3, completions: 4 },
    pods: () => [...pods(3, "Running"), ...pods(2, "Succeeded")],
    deletions: 1,
    active: 2,
    succeeded: 2,
  },
  { name: "status change", job: { parallelism: 2, completions: 5 }, pods: () => [...pods(2, "Running"), ...pods(2, "Succeeded")], active: 2, succeeded: 2 },
  {
    name: "deleting job",
    job: { parallelism: 2, completions: 5, deleting: true },
    pods: () => [...pods(1, "Pending"), ...pods(1, "Running"), ...pods(1, "Succeeded")],
    creations: 0,
    active: 2,
    succeeded: 1,
  },
  {
    name: "too many job failures",
    job: { parallelism: 2, completions: 5, backoffLimit: 0 },
    pods: () => pods(1, "Failed"),
    failed: 1,
    conditions: ["FailureTarget", "Failed"],
    reason: "BackoffLimitExceeded",
  },
  {
    name: "too many job failures with active pods: deleted and counted as failed, Failed waits for them",
    job: { parallelism: 2, completions: 5, backoffLimit: 0 },
    pods: () => [...pods(1, "Running"), ...pods(1, "Failed")],
    deletions: 1,
    active: 0,
    terminating: 1,
    failed: 2,
    conditions: ["FailureTarget"],
    reason: "BackoffLimitExceeded",
  },
  {
    name: "OnFailure pods restarting past backoffLimit fail the job",
    job: { parallelism: 1, completions: 1, backoffLimit: 2, restartPolicy: "OnFailure" },
    pods: () => {
      const p = newPod("Running");
      p.status!.containerStatuses = [{ name: "c", image: "busybox", imageID: "", ready: true, restartCount: 2, state: { running: {} } }];
      return [p];
    },
    deletions: 1,
    active: 0,
    terminating: 1,
    failed: 1,
    conditions: ["FailureTarget"],
    reason: "BackoffLimitExceeded",
  },
  { name: "indexed job start", job: { parallelism: 2, completions: 5, indexed: true }, pods: () => [], creations: 2, active: 2, createdIndexes: ["0", "1"], completedIndexes: "" },
  {
    name: "indexed job completed",
    job: { parallelism: 2, completions: 3, indexed: true },
    pods: () => [newPod("Succeeded", { index: "0" }), newPod("Failed", { index: "1" }), newPod("Succeeded", { index: "1" }), newPod("Succeeded", { index: "2" })],
    succeeded: 3,
    failed: 1,
    completedIndexes: "0-2",
    conditions: ["SuccessCriteriaMet", "Complete"],
  },
  {
    name: "indexed job repeated completed index",
    job: { parallelism: 2, completions: 3, indexed: true },
    pods: () => [newPod("Succeeded", { index: "0" }), newPod("Succeeded", { index: "1" }), newPod("Succeeded", { index: "1" })],
    creations: 1,
    active: 1,
    succeeded: 2,
    completedIndexes: "0,1",
    createdIndexes: ["2"],
  },
  {
    name: "indexed job some running and completed pods",
    job: { parallelism: 8, completions: 20, indexed: true },
    pods: () => [
      newPod("Running", { index: "0" }),
      newPod("Succeeded", { index: "1" }),
      newPod("Running", { index: "3" }),
      newPod("Succeeded", { index: "4" }),
      newPod("Succeeded", { index: "5" }),
      newPod("Succeeded", { index: "7" }),
      newPod("Succeeded", { index: "8" }),
      newPod("Succeeded", { index: "9" }),
    ],
    creations: 6,
    active: 8,
    succeeded: 6,
    completedIndexes: "1,4,5,7-9",
    createdIndexes: ["2", "6", "10", "11", "12", "13"],
  },
  {
    name: "indexed job some failed pods",
    job: { parallelism: 3, completions: 4, indexed: true },
    pods: () => [newPod("Failed", { index: "0" }), newPod("Succeeded", { index: "1" }), newPod("Failed", { index: "2" })],
    creations: 3,
    active: 3,
    succeeded: 1,
    failed: 2,
    completedIndexes: "1",
    createdIndexes: ["0", "2", "3"],
  },
  {
    name: "indexed job some pods without index",
    job: { parallelism: 2, completions: 5, indexed: true },
    pods: () => [
      newPod("Running", { index: "invalid" }),
      newPod("Succeeded", { index: "invalid" }),
      newPod("Failed", { index: "invalid" }),
      newPod("Succeeded", { index: "0" }),
      newPod("Running", { index: "1" }),
    ],
    deletions: 1,
    creations: 0,
    active: 1,
    succeeded: 1,
    completedIndexes: "0",
  },
  {
    name: "indexed job repeated indexes",
    job: { parallelism: 5, completions: 5, indexed: true },
    pods: () => [
      newPod("Succeeded", { index: "0" }),
      newPod("Running", { index: "1" }),
      newPod("Running", { index: "1" }),
      newPod("Pending", { index: "2" }),
      newPod("Running", { index: "2" }),
    ],
    deletions: 2,
    active: 2,
    succeeded: 1,
    completedIndexes: "0",
  },
  {
    name: "suspending a job with satisfied expectations",
    job: { parallelism: 2, completions: 4, suspend: true },
    pods: () => pods(2, "Running"),
    deletions: 2,
    active: 0,
    terminating: 2,
    conditions: ["Suspended"],
    reason: "JobSuspended",
  },
];

describe("syncJob (upstream TestControllerSyncJob)", () => {
  for (const c of syncCases) {
    it(c.name, async () => {
      const { f, sync, job$, count } = setup(newJob(c.job), c.pods());
      await sync();
      expect(count("create")).toBe(c.creations ?? 0);
      expect(count("delete")).toBe(c.deletions ?? 0);
      const job = job$();
      const s = job.status ?? {};
      expect(s.active ?? 0).toBe(c.active ?? 0);
      if (c.ready !== undefined) expect(s.ready).toBe(c.ready);
      expect(s.succeeded ?? 0).toBe(c.succeeded ?? 0);
      expect(s.failed ?? 0).toBe(c.failed ?? 0);
      if (c.terminating !== undefined) expect(s.terminating).toBe(c.terminating);
      if (c.completedIndexes !== undefined) expect(s.completedIndexes ?? "").toBe(c.completedIndexes);
      expect(s.uncountedTerminatedPods?.succeeded ?? []).toEqual([]);
      expect(s.uncountedTerminatedPods?.failed ?? []).toEqual([]);
      if (c.conditions !== undefined) {
        expect((s.conditions ?? []).filter((x) => x.status === "True").map((x) => x.type)).toEqual(c.conditions);
        if (c.reason) expect(s.conditions?.[s.conditions.length - 1]?.reason).toBe(c.reason);
      }
      if (c.createdIndexes) {
        const created = f
          .actions()
          .filter((a) => a.verb === "create" && a.resource === "pods")
          .map((a) => (a.object as Pod).metadata?.annotations?.[JOB_COMPLETION_INDEX_ANNOTATION]);
        expect(created.sort()).toEqual([...c.createdIndexes].sort());
      }
      // Every pod created carries the tracking finalizer and the controller reference.
      for (const a of f.actions().filter((x) => x.verb === "create" && x.resource === "pods")) {
        const p = a.object as Pod;
        expect(p.metadata?.finalizers).toContain(JOB_TRACKING_FINALIZER);
        expect(p.metadata?.ownerReferences?.[0]).toMatchObject({ kind: "Job", name: "foobar", controller: true });
      }
    });
  }
});

describe("job details", () => {
  it("Indexed pods get the index annotation and label, hostname, generateName and JOB_COMPLETION_INDEX", async () => {
    const { f, sync } = setup(newJob({ parallelism: 1, completions: 3, indexed: true }), []);
    await sync();
    const p = f.actions().find((a) => a.verb === "create")?.object as Pod;
    expect(p.metadata?.generateName).toBe("foobar-0-");
    expect(p.metadata?.labels?.["batch.kubernetes.io/job-completion-index"]).toBe("0");
    expect(p.spec?.hostname).toBe("foobar-0");
    expect(p.spec?.containers[0].env).toEqual([
      { name: "JOB_COMPLETION_INDEX", valueFrom: { fieldRef: { fieldPath: "metadata.annotations['batch.kubernetes.io/job-completion-index']" } } },
    ]);
  });

  it("counts finished pods through uncountedTerminatedPods, removes finalizers, then the counters (two status writes)", async () => {
    const { f, sync, job$ } = setup(newJob({ parallelism: 1, completions: 2 }), [...pods(1, "Succeeded"), ...pods(1, "Running")]);
    await sync();
    const writes = f.actions().filter((a) => a.verb !== "get");
    expect(writes.map((a) => `${a.verb} ${a.resource}${a.subresource ? "/" + a.subresource : ""}`)).toEqual(["update jobs/status", "patch pods", "update jobs/status"]);
    const first = writes[0].object as Job;
    expect(first.status?.uncountedTerminatedPods?.succeeded).toHaveLength(1);
    expect(first.status?.succeeded ?? 0).toBe(0);
    expect(writes[1].patch).toEqual({ metadata: { "$deleteFromPrimitiveList/finalizers": [JOB_TRACKING_FINALIZER], uid: expect.any(String) } });
    expect(job$().status).toMatchObject({ succeeded: 1, active: 1, uncountedTerminatedPods: { succeeded: [] } });
  });

  it("the terminal condition waits for terminating pods: FailureTarget first, Failed once they are gone", async () => {
    const running = newPod("Running");
    const { f, sync, job$ } = setup(newJob({ parallelism: 1, completions: 1, backoffLimit: 0 }), [running, newPod("Failed")]);
    await sync();
    expect(job$().status?.conditions?.map((c) => c.type)).toEqual(["FailureTarget"]);
    expect(job$().status?.terminating).toBe(1);
    // The informer catches up: the deleted pod (its finalizer removed) is gone.
    f.informers.forResource(builtin.pods).getIndexer().replace(f.client.tracker.list(builtin.pods, "default") as unknown as Pod[], "");
    f.informers.forResource(builtin.jobs).getIndexer().replace([job$()], "");
    await sync();
    const s = job$().status;
    expect(s?.conditions?.map((c) => `${c.type}=${c.status}:${c.reason}`)).toEqual(["FailureTarget=True:BackoffLimitExceeded", "Failed=True:BackoffLimitExceeded"]);
    expect(s?.failed).toBe(2);
    expect(f.recorder.events).toContain("Warning BackoffLimitExceeded Job has reached the specified backoff limit");
  });

  it("Complete records completionTime and a Completed event", async () => {
    const { f, sync, job$ } = setup(newJob({ parallelism: 1, completions: 1 }), pods(1, "Succeeded"));
    await sync();
    expect(job$().status?.completionTime).toBe(formatTime(f.clock.now()));
    expect(f.recorder.events).toContain("Normal Completed Job completed");
    const complete = job$().status?.conditions?.find((c) => c.type === "Complete");
    expect(complete).toMatchObject({ status: "True", reason: "CompletionsReached", message: "Reached expected number of succeeded pods" });
  });

  it("activeDeadlineSeconds: requeues at the deadline, then fails with DeadlineExceeded deleting active pods", async () => {
    const start = Date.UTC(2026, 0, 1) - 5000;
    const { sync } = setup(newJob({ parallelism: 1, completions: 1, activeDeadlineSeconds: 10, startTime: start }), pods(1, "Running"));
    expect(await sync()).toEqual({ requeueAfterMs: 5000 });
    const { sync: sync2, job$: job2, count: count2 } = setup(newJob({ parallelism: 1, completions: 1, activeDeadlineSeconds: 4, startTime: start }), pods(1, "Running"));
    await sync2();
    expect(count2("delete")).toBe(1);
    expect(job2().status?.conditions?.map((c) => `${c.type}:${c.reason}`)).toEqual(["FailureTarget:DeadlineExceeded"]);
  });

  it("pod failure back-off: new pods wait 10 s after a recent failure, doubling", async () => {
    const failed = newPod("Failed");
    failed.status!.containerStatuses![0].state!.terminated!.finishedAt = formatTime(Date.UTC(2026, 0, 1) - 4000);
    const { sync, count } = setup(newJob({ parallelism: 1, completions: 1 }), [failed]);
    expect(await sync()).toEqual({ requeueAfterMs: 6000 });
    expect(count("create")).toBe(0);
  });

  it("resuming a suspended job records Suspended False (JobResumed), resets startTime and creates pods", async () => {
    const cond = { type: "Suspended", status: "True", reason: "JobSuspended", message: "Job suspended", lastProbeTime: "2025-01-01T00:00:00Z", lastTransitionTime: "2025-01-01T00:00:00Z" };
    const { f, sync, job$, count } = setup(newJob({ parallelism: 2, completions: 4, startTime: Date.UTC(2025, 0, 1), status: { conditions: [cond] } }), []);
    await sync();
    expect(count("create")).toBe(2);
    expect(job$().status?.conditions?.[0]).toMatchObject({ type: "Suspended", status: "False", reason: "JobResumed", message: "Job resumed" });
    expect(job$().status?.startTime).toBe(formatTime(f.clock.now()));
    expect(f.recorder.events).toContain("Normal Resumed Job resumed");
  });

  it("a finished job is left alone", async () => {
    const done = newJob({ status: { conditions: [{ type: "Complete", status: "True" }] } });
    const { f, sync } = setup(done, pods(1, "Running"));
    await sync();
    expect(f.writeActions()).toEqual([]);
  });

  it("adopts orphans adding the tracking finalizer", async () => {
    const orphan = newPod("Running");
    delete orphan.metadata!.ownerReferences;
    delete orphan.metadata!.finalizers;
    const { f, sync } = setup(newJob({ parallelism: 1, completions: 1 }), [orphan]);
    await sync();
    const patch = f.actions().find((a) => a.verb === "patch")?.patch as { metadata: { finalizers?: string[] } };
    expect(patch.metadata.finalizers).toEqual([JOB_TRACKING_FINALIZER]);
    expect(f.actions().filter((a) => a.verb === "create")).toHaveLength(0);
  });

  it("the orphan controller removes the finalizer of a pod whose job is gone", async () => {
    const f = new ControllerFixture();
    const jc = new JobController(f.manager);
    const [p] = f.seed(builtin.pods, newPod("Succeeded"));
    await f.reconcile(jc.orphanController, `default/${p.metadata?.name}`);
    const got = f.client.tracker.get(builtin.pods, "default", p.metadata!.name!) as unknown as Pod;
    expect(got.metadata?.finalizers ?? []).toEqual([]);
  });
});

/** The value of `name`'s series with exactly `labels` in the fixture's registry (undefined: no such series). */
async function metricValue(f: ControllerFixture, name: string, labels: Record<string, string>): Promise<number | undefined> {
  const m = f.registry.getSingleMetric(name);
  if (!m) throw new Error(`${name} is not registered`);
  const { values } = await m.get();
  const same = (l: Partial<Record<string, string | number>>) => Object.keys(l).length === Object.keys(labels).length && Object.entries(labels).every(([k, v]) => String(l[k]) === v);
  return values.find((v) => same(v.labels))?.value;
}

// Upstream's TestControllerSyncJob checks job_syncs_total through its metrics and the
// integration tests (TestMetricsOnSuccesses/Failures, TestJobPodFailurePolicy...) the rest.
describe("job_controller_* metrics", () => {
  it("a sync that creates pods: job_syncs_total and job_sync_duration_seconds with action pods_created, job_pods_creation_total new", async () => {
    const { f, sync } = setup(newJob({ parallelism: 2, completions: 5 }), []);
    await sync();
    const labels = { completion_mode: "NonIndexed", result: "success", action: "pods_created" };
    expect(await metricValue(f, "job_controller_job_syncs_total", labels)).toBe(1);
    const hist = (await f.registry.getSingleMetric("job_controller_job_sync_duration_seconds")!.get()).values;
    expect(hist.find((v) => (v as { metricName?: string }).metricName === "job_controller_job_sync_duration_seconds_count" && v.labels.action === "pods_created")?.value).toBe(1);
    expect(await metricValue(f, "job_controller_job_pods_creation_total", { reason: "new", status: "succeeded" })).toBe(2);
    expect(await metricValue(f, "job_controller_job_pods_creation_total", { reason: "new", status: "failed" })).toBeUndefined();
  });

  it("replacing a failed pod is recreate_terminating_or_failed (recreate_failed with podReplacementPolicy Failed)", async () => {
    for (const [policy, reason] of [
      [undefined, "recreate_terminating_or_failed"],
      ["Failed", "recreate_failed"],
    ] as const) {
      const job = newJob({ parallelism: 1, completions: 1 });
      if (policy) job.spec!.podReplacementPolicy = policy;
      const { f, sync } = setup(job, [newPod("Failed")]);
      await sync();
      expect(await metricValue(f, "job_controller_job_pods_creation_total", { reason, status: "succeeded" }), policy).toBe(1);
    }
  });

  it("a Job that completes: tracking sync, jobs_finished_total succeeded CompletionsReached, job_pods_finished_total", async () => {
    const { f, sync } = setup(newJob({ parallelism: 2, completions: 5 }), pods(5, "Succeeded"));
    await sync();
    expect(await metricValue(f, "job_controller_job_syncs_total", { completion_mode: "NonIndexed", result: "success", action: "tracking" })).toBe(1);
    expect(await metricValue(f, "job_controller_jobs_finished_total", { completion_mode: "NonIndexed", result: "succeeded", reason: "CompletionsReached" })).toBe(1);
    expect(await metricValue(f, "job_controller_job_pods_finished_total", { completion_mode: "NonIndexed", result: "succeeded" })).toBe(5);
    expect(await metricValue(f, "job_controller_job_pods_finished_total", { completion_mode: "NonIndexed", result: "failed" })).toBe(0);
    // Nothing finished twice: a second sync of the finished Job is not even measured.
    f.informers.forResource(builtin.jobs).getIndexer().replace([f.client.tracker.get(builtin.jobs, "default", "foobar") as unknown as Job], "");
    await sync();
    expect(await metricValue(f, "job_controller_jobs_finished_total", { completion_mode: "NonIndexed", result: "succeeded", reason: "CompletionsReached" })).toBe(1);
    expect(await metricValue(f, "job_controller_job_syncs_total", { completion_mode: "NonIndexed", result: "success", action: "tracking" })).toBe(1);
  });

  it("too many active pods: action pods_deleted; backoffLimit exceeded: jobs_finished_total failed BackoffLimitExceeded", async () => {
    const a = setup(newJob({ parallelism: 2, completions: 5 }), pods(3, "Running"));
    await a.sync();
    expect(await metricValue(a.f, "job_controller_job_syncs_total", { completion_mode: "NonIndexed", result: "success", action: "pods_deleted" })).toBe(1);
    const b = setup(newJob({ parallelism: 2, completions: 5, backoffLimit: 0 }), pods(1, "Failed"));
    await b.sync();
    expect(await metricValue(b.f, "job_controller_jobs_finished_total", { completion_mode: "NonIndexed", result: "failed", reason: "BackoffLimitExceeded" })).toBe(1);
    expect(await metricValue(b.f, "job_controller_job_pods_finished_total", { completion_mode: "NonIndexed", result: "failed" })).toBe(1);
  });

  it("podFailurePolicy: pod_failures_handled_by_failure_policy_total by the matched rule's action; FailJob finishes with PodFailurePolicy", async () => {
    const failJob = newJob({ parallelism: 1, completions: 1 });
    failJob.spec!.podFailurePolicy = { rules: [{ action: "FailJob", onExitCodes: { operator: "In", values: [1] } }] };
    const a = setup(failJob, [newPod("Failed")]);
    await a.sync();
    expect(await metricValue(a.f, "job_controller_pod_failures_handled_by_failure_policy_total", { action: "FailJob" })).toBe(1);
    expect(await metricValue(a.f, "job_controller_jobs_finished_total", { completion_mode: "NonIndexed", result: "failed", reason: "PodFailurePolicy" })).toBe(1);
    expect(await metricValue(a.f, "job_controller_job_pods_finished_total", { completion_mode: "NonIndexed", result: "failed" })).toBe(1);

    const ignore = newJob({ parallelism: 1, completions: 1, backoffLimit: 0 });
    ignore.spec!.podFailurePolicy = { rules: [{ action: "Ignore", onExitCodes: { operator: "In", values: [1] } }] };
    const b = setup(ignore, [newPod("Failed"), newPod("Failed")]);
    await b.sync();
    expect(await metricValue(b.f, "job_controller_pod_failures_handled_by_failure_policy_total", { action: "Ignore" })).toBe(2);
    // An ignored failure is not counted: no failed pods finished, the Job goes on.
    expect(await metricValue(b.f, "job_controller_job_pods_finished_total", { completion_mode: "NonIndexed", result: "failed" })).toBe(0);
    expect(await metricValue(b.f, "job_controller_jobs_finished_total", { completion_mode: "NonIndexed", result: "failed", reason: "BackoffLimitExceeded" })).toBeUndefined();
  });

  it("Indexed: job_finished_indexes_total (global), job_pods_finished_total and jobs_finished_total labelled Indexed", async () => {
    const { f, sync } = setup(newJob({ parallelism: 2, completions: 3, indexed: true }), [
      newPod("Succeeded", { index: "0" }),
      newPod("Failed", { index: "1" }),
      newPod("Succeeded", { index: "1" }),
      newPod("Succeeded", { index: "2" }),
    ]);
    await sync();
    expect(await metricValue(f, "job_controller_job_finished_indexes_total", { status: "succeeded", backoffLimit: "global" })).toBe(3);
    expect(await metricValue(f, "job_controller_job_pods_finished_total", { completion_mode: "Indexed", result: "succeeded" })).toBe(3);
    expect(await metricValue(f, "job_controller_job_pods_finished_total", { completion_mode: "Indexed", result: "failed" })).toBe(1);
    expect(await metricValue(f, "job_controller_jobs_finished_total", { completion_mode: "Indexed", result: "succeeded", reason: "CompletionsReached" })).toBe(1);
  });

  it("backoffLimitPerIndex: a failed index counts under job_finished_indexes_total failed perIndex", async () => {
    const job = newJob({ parallelism: 2, completions: 2, indexed: true, status: { failedIndexes: "" } });
    job.spec!.backoffLimitPerIndex = 0;
    job.spec!.backoffLimit = 2 ** 31 - 1;
    const { f, sync } = setup(job, [newPod("Failed", { index: "0" }), newPod("Running", { index: "1" })]);
    await sync();
    expect(await metricValue(f, "job_controller_job_finished_indexes_total", { status: "failed", backoffLimit: "perIndex" })).toBe(1);
    expect(await metricValue(f, "job_controller_job_finished_indexes_total", { status: "succeeded", backoffLimit: "perIndex" })).toBe(0);
  });

  it("a sync that fails is counted with result error", async () => {
    const { f, sync } = setup(newJob({ parallelism: 1, completions: 1 }), pods(1, "Succeeded"));
    f.client.failNth("update", "jobs", 1, new Error("boom"));
    await expect(sync()).rejects.toThrow("boom");
    expect(await metricValue(f, "job_controller_job_syncs_total", { completion_mode: "NonIndexed", result: "error", action: "tracking" })).toBe(1);
  });
});
