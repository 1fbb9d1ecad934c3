import { describe, expect, it } from "vitest";
import type { Job, JobSpec } from "../../apimachinery/api/batch/v1.js";
import type { Pod, PodCondition } from "../../apimachinery/api/core/v1.js";
import { formatTime } from "../../apimachinery/time.js";
import { builtin } from "../../client/typed.js";
import { ControllerFixture, FIXTURE_START_TIME } from "../../testing/fixture.js";
import { JOB_COMPLETION_INDEX_ANNOTATION, JOB_INDEX_FAILURE_COUNT_ANNOTATION, JOB_INDEX_IGNORED_FAILURE_COUNT_ANNOTATION, JOB_TRACKING_FINALIZER } from "./constants.js";
import { JobController } from "./controller.js";

/*
 * The Job controller with podFailurePolicy, backoffLimitPerIndex and successPolicy: restated from
 * upstream's TestSyncJobWithJobPodFailurePolicy, TestSyncJobWithJobBackoffLimitPerIndex and
 * TestSyncJobWithJobSuccessPolicy (job_controller_test.go), one sync each, with 1.36's delayed
 * terminal conditions.
 */

const NOW = FIXTURE_START_TIME;
const selector = { "batch.kubernetes.io/controller-uid": "uid-foobar" };

function newJob(spec: Partial<JobSpec>, status: Job["status"] = {}): Job {
  return {
    apiVersion: "batch/v1",
    kind: "Job",
    metadata: { name: "foobar", namespace: "default", uid: "uid-foobar" },
    spec: {
      parallelism: 1,
      completions: 1,
      backoffLimit: 6,
      completionMode: "NonIndexed",
      selector: { matchLabels: selector },
      template: {
        metadata: { labels: { ...selector } },
        spec: { restartPolicy: "Never", containers: [{ name: "main-container", image: "busybox" }] },
      },
      ...spec,
    },
    status: { startTime: formatTime(NOW - 60_000), ...status },
  };
}

interface PodOpts {
  index?: number;
  exitCode?: number;
  conditions?: PodCondition[];
  failureCount?: number;
  ignoredCount?: number;
  deleting?: boolean;
  /** When the container finished, ms before the fixture's now (default an hour). */
  finishedAgoMs?: number;
  finalizer?: boolean;
  name?: string;
}

let seq = 0;
function pod(phase: string, o: PodOpts = {}): Pod {
  const name = o.name ?? `mypod-${seq++}`;
  const annotations: Record<string, string> = {};
  if (o.index !== undefined) annotations[JOB_COMPLETION_INDEX_ANNOTATION] = String(o.index);
  if (o.failureCount !== undefined) annotations[JOB_INDEX_FAILURE_COUNT_ANNOTATION] = String(o.failureCount);
  if (o.ignoredCount !== undefined) annotations[JOB_INDEX_IGNORED_FAILURE_COUNT_ANNOTATION] = String(o.ignoredCount);
  const finishedAt = formatTime(NOW - (o.finishedAgoMs ?? 3_600_000));
  const exitCode = o.exitCode ?? (phase === "Succeeded" ? 0 : phase === "Failed" ? 1 : undefined);
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: {
      name,
      namespace: "default",
      uid: `uid-${name}`,
      labels: { ...selector },
      annotations,
      ...(o.finalizer === false ? {} : { finalizers: [JOB_TRACKING_FINALIZER] }),
      ...(o.deleting ? { deletionTimestamp: formatTime(NOW - 1000) } : {}),
      ownerReferences: [{ apiVersion: "batch/v1", kind: "Job", name: "foobar", uid: "uid-foobar", controller: true, blockOwnerDeletion: true }],
    },
    spec: { containers: [{ name: "main-container", image: "busybox" }] },
    status: {
      phase,
      conditions: [...(phase === "Running" ? [{ type: "Ready", status: "True" }] : []), ...(o.conditions ?? [])],
      containerStatuses: [
        {
          name: "main-container",
          image: "busybox",
          imageID: "",
          ready: phase === "Running",
          restartCount: 0,
          state: exitCode === undefined ? { running: { startedAt: formatTime(NOW - 7_200_000) } } : { terminated: { exitCode, finishedAt } },
        },
      ],
    },
  };
}

interface Case {
  name: string;
  job: Job;
  pods: () => Pod[];
  creations?: number;
  deletions?: number;
  active?: number;
  failed?: number;
  succeeded?: number;
  terminating?: number;
  failedIndexes?: string;
  completedIndexes?: string;
  /** type=reason of the True conditions, in order. */
  conditions?: string[];
  /** message of the last condition. */
  message?: string;
  /** annotations of the created pods (in creation order). */
  createdAnnotations?: Record<string, string>[];
  requeueAfterMs?: number;
  /** no request at all. */
  untouched?: boolean;
}

async function run(c: Case) {
  const f = new ControllerFixture();
  const jc = new JobController(f.manager);
  f.seed(builtin.jobs, c.job);
  const ps = c.pods();
  if (ps.length > 0) f.seed(builtin.pods, ...ps);
  const result = await f.reconcile(jc.controller, "default/foobar");
  const job = f.client.tracker.get(builtin.jobs, "default", "foobar") as unknown as Job;
  const actions = f.actions().filter((a) => a.verb !== "get" && a.verb !== "list" && a.verb !== "watch");
  const count = (verb: string) => actions.filter((a) => a.verb === verb && a.resource === "pods" && !a.subresource).length;
  return { f, job, result, actions, count };
}

function check(c: Case) {
  it(c.name, async () => {
    const { job, result, actions, count } = await run(c);
    if (c.untouched) {
      expect(actions).toEqual([]);
      return;
    }
    expect(count("create")).toBe(c.creations ?? 0);
    expect(count("delete")).toBe(c.deletions ?? 0);
    const s = job.status ?? {};
    expect(s.active ?? 0).toBe(c.active ?? 0);
    expect(s.failed ?? 0).toBe(c.failed ?? 0);
    expect(s.succeeded ?? 0).toBe(c.succeeded ?? 0);
    if (c.terminating !== undefined) expect(s.terminating).toBe(c.terminating);
    if (c.failedIndexes !== undefined) expect(s.failedIndexes).toBe(c.failedIndexes);
    if (c.completedIndexes !== undefined) expect(s.completedIndexes ?? "").toBe(c.completedIndexes);
    expect((s.conditions ?? []).filter((x) => x.status === "True").map((x) => `${x.type}=${x.reason}`)).toEqual(c.conditions ?? []);
    if (c.message !== undefined) expect(s.conditions?.[s.conditions.length - 1]?.message).toBe(c.message);
    if (c.createdAnnotations) {
      const created = actions.filter((a) => a.verb === "create" && a.resource === "pods").map((a) => (a.object as Pod).metadata?.annotations ?? {});
      expect(created).toEqual(c.createdAnnotations.map((x) => expect.objectContaining(x)));
      for (const [i, want] of c.createdAnnotations.entries()) {
        if (!(JOB_INDEX_IGNORED_FAILURE_COUNT_ANNOTATION in want)) expect(created[i]).not.toHaveProperty([JOB_INDEX_IGNORED_FAILURE_COUNT_ANNOTATION]);
      }
    }
    if (c.requeueAfterMs !== undefined) expect(result).toEqual({ requeueAfterMs: c.requeueAfterMs });
  });
}

const onExit = (action: string, values: number[], operator = "In", containerName?: string) => ({ action, onExitCodes: { operator, values, ...(containerName ? { containerName } : {}) } });
const onCond = (action: string, type: string) => ({ action, onPodConditions: [{ type, status: "True" }] });
const disruption: PodCondition[] = [{ type: "DisruptionTarget", status: "True", reason: "PreemptionByScheduler" }];

const podFailurePolicyCases: Case[] = [
  {
    name: "default handling for pod failure if the container matching the exit codes does not match the containerName restriction",
    job: newJob({ backoffLimit: 0, podFailurePolicy: { rules: [onExit("Ignore", [1, 2, 3], "In", "main-container"), onExit("FailJob", [5, 6, 7], "In", "other")] } }),
    pods: () => [pod("Failed", { exitCode: 5 })],
    failed: 1,
    terminating: 0,
    conditions: ["FailureTarget=BackoffLimitExceeded", "Failed=BackoffLimitExceeded"],
    message: "Job has reached the specified backoff limit",
  },
  {
    name: "running pod should not result in job fail based on OnExitCodes",
    job: newJob({ podFailurePolicy: { rules: [onExit("FailJob", [5, 6, 7])] } }),
    pods: () => [pod("Running")],
    active: 1,
  },
  {
    name: "fail job based on OnExitCodes",
    job: newJob({ podFailurePolicy: { rules: [onExit("FailJob", [5, 6, 7])] } }),
    pods: () => [pod("Failed", { exitCode: 5, name: "mypod-0" })],
    failed: 1,
    conditions: ["FailureTarget=PodFailurePolicy", "Failed=PodFailurePolicy"],
    message: "Container main-container for pod default/mypod-0 failed with exit code 5 matching FailJob rule at index 0",
  },
  {
    name: "job marked already as failure target with failed pod",
    job: newJob(
      { podFailurePolicy: { rules: [onExit("FailJob", [5])] } },
      { startTime: formatTime(NOW - 60_000), conditions: [{ type: "FailureTarget", status: "True", reason: "PodFailurePolicy", message: "Container main-container for pod default/mypod-0 failed with exit code 5 matching FailJob rule at index 0" }] },
    ),
    pods: () => [pod("Failed", { exitCode: 5 })],
    failed: 1,
    conditions: ["FailureTarget=PodFailurePolicy", "Failed=PodFailurePolicy"],
    message: "Container main-container for pod default/mypod-0 failed with exit code 5 matching FailJob rule at index 0",
  },
  {
    name: "job marked already as failure target with failed pod, message based on already deleted pod",
    job: newJob(
      { podFailurePolicy: { rules: [onExit("FailJob", [5])] } },
      { startTime: formatTime(NOW - 60_000), failed: 1, conditions: [{ type: "FailureTarget", status: "True", reason: "PodFailurePolicy", message: "Container main-container for pod default/already-deleted-pod failed with exit code 5 matching FailJob rule at index 0" }] },
    ),
    pods: () => [],
    failed: 1,
    conditions: ["FailureTarget=PodFailurePolicy", "Failed=PodFailurePolicy"],
    message: "Container main-container for pod default/already-deleted-pod failed with exit code 5 matching FailJob rule at index 0",
  },
  {
    name: "fail job with multiple pods: the running ones are deleted, Failed waits for them",
    job: newJob({ parallelism: 2, completions: 2, podFailurePolicy: { rules: [onExit("FailJob", [5])] } }),
    pods: () => [pod("Running"), pod("Failed", { exitCode: 5 })],
    deletions: 1,
    failed: 2,
    terminating: 1,
    conditions: ["FailureTarget=PodFailurePolicy"],
  },
  {
    name: "fail job based on OnExitCodes with NotIn operator",
    job: newJob({ podFailurePolicy: { rules: [onExit("FailJob", [5, 6, 7], "NotIn")] } }),
    pods: () => [pod("Failed", { exitCode: 42 })],
    failed: 1,
    conditions: ["FailureTarget=PodFailurePolicy", "Failed=PodFailurePolicy"],
  },
  {
    name: "default handling job based on OnExitCodes with NotIn operator (code listed): counted, replaced",
    job: newJob({ podFailurePolicy: { rules: [onExit("FailJob", [5, 6, 7], "NotIn")] } }),
    pods: () => [pod("Failed", { exitCode: 5 })],
    creations: 1,
    active: 1,
    failed: 1,
  },
  {
    name: "fail job based on OnExitCodes for an init container",
    job: newJob({ podFailurePolicy: { rules: [onExit("FailJob", [5])] } }),
    pods: () => {
      const p = pod("Failed", { exitCode: 0, name: "mypod-0" });
      p.status!.initContainerStatuses = [{ name: "init-container", image: "busybox", imageID: "", ready: false, restartCount: 0, state: { terminated: { exitCode: 5 } } }];
      return [p];
    },
    failed: 1,
    conditions: ["FailureTarget=PodFailurePolicy", "Failed=PodFailurePolicy"],
    message: "Container init-container for pod default/mypod-0 failed with exit code 5 matching FailJob rule at index 0",
  },
  {
    name: "ignore rule on exit codes: the failure is not counted and the pod is replaced",
    job: newJob({ backoffLimit: 0, podFailurePolicy: { rules: [onExit("Ignore", [1, 2, 3])] } }),
    pods: () => [pod("Failed", { exitCode: 2 })],
    creations: 1,
    active: 1,
    failed: 0,
  },
  {
    name: "ignore pod failure based on DisruptionTarget condition",
    job: newJob({ backoffLimit: 0, podFailurePolicy: { rules: [onCond("Ignore", "DisruptionTarget")] } }),
    pods: () => [pod("Failed", { exitCode: 137, conditions: disruption })],
    creations: 1,
    active: 1,
    failed: 0,
  },
  {
    name: "fail job based on DisruptionTarget condition",
    job: newJob({ podFailurePolicy: { rules: [onCond("FailJob", "DisruptionTarget")] } }),
    pods: () => [pod("Failed", { exitCode: 137, conditions: disruption })],
    failed: 1,
    conditions: ["FailureTarget=PodFailurePolicy", "Failed=PodFailurePolicy"],
  },
  {
    name: "count pod failure based on DisruptionTarget condition",
    job: newJob({ backoffLimit: 0, podFailurePolicy: { rules: [onCond("Count", "DisruptionTarget")] } }),
    pods: () => [pod("Failed", { exitCode: 137, conditions: disruption })],
    failed: 1,
    conditions: ["FailureTarget=BackoffLimitExceeded", "Failed=BackoffLimitExceeded"],
  },
  {
    name: "terminating (not yet terminal) pod is neither matched nor counted nor replaced",
    job: newJob({ podFailurePolicy: { rules: [onCond("FailJob", "DisruptionTarget")] } }),
    pods: () => [pod("Running", { deleting: true, conditions: disruption })],
    terminating: 1,
    failed: 0,
  },
  {
    name: "a deleted pod that ended Failed counts once terminal (ignored by the DisruptionTarget rule)",
    job: newJob({ podFailurePolicy: { rules: [onCond("Ignore", "DisruptionTarget")] } }),
    pods: () => [pod("Failed", { deleting: true, exitCode: 137, conditions: disruption })],
    creations: 1,
    active: 1,
    failed: 0,
    terminating: 0,
  },
];
describe("syncJob with podFailurePolicy (upstream TestSyncJobWithJobPodFailurePolicy)", () => {
  for (const c of podFailurePolicyCases) check(c);
});

const perIndex = (o: Partial<JobSpec> = {}): Job =>
  newJob({ parallelism: 2, completions: 2, completionMode: "Indexed", backoffLimit: 2 ** 31 - 1, backoffLimitPerIndex: 1, podReplacementPolicy: "Failed", ...o }, { startTime: formatTime(NOW - 60_000), failedIndexes: "" });

const backoffLimitPerIndexCases: Case[] = [
  {
    name: "successful job after a single failure within index: replacement created with failure count 1, the failed pod kept",
    job: perIndex(),
    pods: () => [pod("Failed", { index: 0, failureCount: 0 }), pod("Running", { index: 1, failureCount: 0 })],
    creations: 1,
    active: 2,
    failed: 0,
    failedIndexes: "",
    createdAnnotations: [{ [JOB_COMPLETION_INDEX_ANNOTATION]: "0", [JOB_INDEX_FAILURE_COUNT_ANNOTATION]: "1" }],
  },
  {
    name: "single failed pod replaced already: now counted",
    job: perIndex(),
    pods: () => [pod("Failed", { index: 0, failureCount: 0 }), pod("Running", { index: 0, failureCount: 1 }), pod("Running", { index: 1, failureCount: 0 })],
    active: 2,
    failed: 1,
    failedIndexes: "",
  },
  {
    name: "single failed index due to exceeding the backoff limit per index, the job continues",
    job: perIndex(),
    pods: () => [pod("Failed", { index: 0, failureCount: 1 }), pod("Running", { index: 1, failureCount: 0 })],
    active: 1,
    failed: 1,
    failedIndexes: "0",
  },
  {
    name: "single failed index due to FailIndex action, the job continues",
    job: perIndex({ podFailurePolicy: { rules: [onExit("FailIndex", [3])] } }),
    pods: () => [pod("Failed", { index: 0, failureCount: 0, exitCode: 3 }), pod("Running", { index: 1, failureCount: 0 })],
    active: 1,
    failed: 1,
    failedIndexes: "0",
  },
  {
    name: "job failed index due to FailJob action",
    job: perIndex({ podFailurePolicy: { rules: [onExit("FailJob", [3])] } }),
    pods: () => [pod("Failed", { index: 0, failureCount: 0, exitCode: 3 }), pod("Running", { index: 1, failureCount: 0 })],
    deletions: 1,
    failed: 2,
    terminating: 1,
    failedIndexes: "",
    conditions: ["FailureTarget=PodFailurePolicy"],
  },
  {
    name: "job pod failure ignored due to matching Ignore action: replacement counts it as ignored",
    job: perIndex({ podFailurePolicy: { rules: [onExit("Ignore", [3])] } }),
    pods: () => [pod("Failed", { index: 0, failureCount: 0, exitCode: 3 }), pod("Running", { index: 1, failureCount: 0 })],
    creations: 1,
    active: 2,
    failed: 0,
    failedIndexes: "",
    createdAnnotations: [{ [JOB_INDEX_FAILURE_COUNT_ANNOTATION]: "0", [JOB_INDEX_IGNORED_FAILURE_COUNT_ANNOTATION]: "1" }],
  },
  {
    name: "job failed due to exceeding backoffLimitPerIndex: every index finished, one failed (FailedIndexes)",
    job: perIndex(),
    pods: () => [pod("Failed", { index: 0, failureCount: 1 }), pod("Succeeded", { index: 1 })],
    failed: 1,
    succeeded: 1,
    failedIndexes: "0",
    completedIndexes: "1",
    conditions: ["FailureTarget=FailedIndexes", "Failed=FailedIndexes"],
    message: "Job has failed indexes",
  },
  {
    name: "job failed due to exceeding maxFailedIndexes: running pods deleted",
    job: perIndex({ parallelism: 3, completions: 3, maxFailedIndexes: 0 }),
    pods: () => [pod("Failed", { index: 0, failureCount: 1 }), pod("Running", { index: 1 }), pod("Running", { index: 2 })],
    deletions: 2,
    failed: 3,
    terminating: 2,
    failedIndexes: "0",
    conditions: ["FailureTarget=MaxFailedIndexesExceeded"],
    message: "Job has exceeded the specified maximal number of failed indexes",
  },
  {
    name: "failed index is not recreated; pending indexes are",
    job: perIndex({ parallelism: 3, completions: 3 }),
    pods: () => [pod("Failed", { index: 0, failureCount: 1 })],
    creations: 2,
    active: 2,
    failed: 1,
    failedIndexes: "0",
    createdAnnotations: [
      { [JOB_COMPLETION_INDEX_ANNOTATION]: "1", [JOB_INDEX_FAILURE_COUNT_ANNOTATION]: "0" },
      { [JOB_COMPLETION_INDEX_ANNOTATION]: "2", [JOB_INDEX_FAILURE_COUNT_ANNOTATION]: "0" },
    ],
  },
  {
    name: "per-index back-off: a recent failure delays its index (10 s after the first failure)",
    job: perIndex({ parallelism: 1, completions: 1, backoffLimitPerIndex: 3 }),
    pods: () => [pod("Failed", { index: 0, failureCount: 0, finishedAgoMs: 4000 })],
    creations: 0,
    failed: 0,
    requeueAfterMs: 6000,
  },
  {
    name: "per-index back-off doubles with the index's failure count (20 s after the second)",
    job: perIndex({ parallelism: 1, completions: 1, backoffLimitPerIndex: 3 }),
    pods: () => [pod("Failed", { index: 0, failureCount: 1, finishedAgoMs: 4000 })],
    creations: 0,
    requeueAfterMs: 16_000,
  },
  {
    name: "global back-off does not apply: another index's recent failure does not delay a pending index",
    job: perIndex({ parallelism: 2, completions: 2, backoffLimitPerIndex: 3 }),
    pods: () => [pod("Failed", { index: 0, failureCount: 0, finishedAgoMs: 4000 })],
    creations: 1,
    active: 1,
    createdAnnotations: [{ [JOB_COMPLETION_INDEX_ANNOTATION]: "1", [JOB_INDEX_FAILURE_COUNT_ANNOTATION]: "0" }],
  },
  {
    name: "malformed failure-count annotations count as 0",
    job: perIndex({ parallelism: 1, completions: 1 }),
    pods: () => {
      const p = pod("Failed", { index: 0 });
      p.metadata!.annotations![JOB_INDEX_FAILURE_COUNT_ANNOTATION] = "invalid";
      return [p];
    },
    creations: 1,
    active: 1,
    createdAnnotations: [{ [JOB_INDEX_FAILURE_COUNT_ANNOTATION]: "1" }],
  },
];

describe("syncJob with backoffLimitPerIndex (upstream TestSyncJobWithJobBackoffLimitPerIndex)", () => {
  for (const c of backoffLimitPerIndexCases) check(c);
});

const withSuccessPolicy = (rules: NonNullable<JobSpec["successPolicy"]>["rules"], o: Partial<JobSpec> = {}, status: Job["status"] = {}): Job =>
  newJob({ parallelism: 3, completions: 3, completionMode: "Indexed", successPolicy: { rules }, ...o }, { startTime: formatTime(NOW - 60_000), ...status });

const successPolicyCases: Case[] = [
  {
    name: "succeededIndexes rule met: SuccessCriteriaMet, the remaining pods deleted, Complete waits for them",
    job: withSuccessPolicy([{ succeededIndexes: "0" }]),
    pods: () => [pod("Succeeded", { index: 0 }), pod("Running", { index: 1 }), pod("Running", { index: 2 })],
    deletions: 2,
    succeeded: 1,
    terminating: 2,
    completedIndexes: "0",
    conditions: ["SuccessCriteriaMet=SuccessPolicy"],
    message: "Matched rules at index 0",
  },
  {
    name: "succeededCount rule met with no pods left: SuccessCriteriaMet then Complete",
    job: withSuccessPolicy([{ succeededIndexes: "2" }, { succeededCount: 2 }]),
    pods: () => [pod("Succeeded", { index: 0 }), pod("Succeeded", { index: 1 })],
    succeeded: 2,
    completedIndexes: "0,1",
    conditions: ["SuccessCriteriaMet=SuccessPolicy", "Complete=SuccessPolicy"],
    message: "Matched rules at index 1",
  },
  {
    name: "rule not met yet: the job goes on",
    job: withSuccessPolicy([{ succeededIndexes: "0-2", succeededCount: 2 }]),
    pods: () => [pod("Succeeded", { index: 0 }), pod("Running", { index: 1 }), pod("Running", { index: 2 })],
    active: 2,
    succeeded: 1,
    completedIndexes: "0",
  },
  {
    name: "SuccessCriteriaMet already: a deleted pod that ended Failed is counted, then Complete",
    job: withSuccessPolicy([{ succeededIndexes: "0" }], {}, { succeeded: 1, completedIndexes: "0", conditions: [{ type: "SuccessCriteriaMet", status: "True", reason: "SuccessPolicy", message: "Matched rules at index 0" }] }),
    pods: () => [pod("Failed", { index: 1, deleting: true })],
    succeeded: 1,
    failed: 1,
    terminating: 0,
    conditions: ["SuccessCriteriaMet=SuccessPolicy", "Complete=SuccessPolicy"],
  },
  {
    name: "a pod failure policy FailJob is not evaluated once SuccessCriteriaMet",
    job: withSuccessPolicy([{ succeededIndexes: "0" }], { podFailurePolicy: { rules: [onExit("FailJob", [1])] }, podReplacementPolicy: "Failed" }, { succeeded: 1, completedIndexes: "0", conditions: [{ type: "SuccessCriteriaMet", status: "True", reason: "SuccessPolicy", message: "Matched rules at index 0" }] }),
    pods: () => [pod("Failed", { index: 1, exitCode: 1 })],
    succeeded: 1,
    failed: 1,
    conditions: ["SuccessCriteriaMet=SuccessPolicy", "Complete=SuccessPolicy"],
  },
  {
    name: "successPolicy and backoffLimitPerIndex: succeeded indexes meet the policy despite a failed index",
    job: withSuccessPolicy([{ succeededIndexes: "0,1" }], { backoffLimit: 2 ** 31 - 1, backoffLimitPerIndex: 0, podReplacementPolicy: "Failed" }, { failedIndexes: "" }),
    pods: () => [pod("Succeeded", { index: 0 }), pod("Succeeded", { index: 1 }), pod("Running", { index: 2 })],
    deletions: 1,
    succeeded: 2,
    terminating: 1,
    failedIndexes: "",
    conditions: ["SuccessCriteriaMet=SuccessPolicy"],
  },
];

describe("syncJob with successPolicy (upstream TestSyncJobWithJobSuccessPolicy)", () => {
  for (const c of successPolicyCases) check(c);
});

describe("managedBy (upstream JobManagedBy)", () => {
  check({
    name: "a Job managed by another controller is not synced",
    job: newJob({ managedBy: "example.com/custom-job-controller" }),
    pods: () => [pod("Failed"), pod("Running")],
    untouched: true,
  });
  check({
    name: "managedBy kubernetes.io/job-controller is synced as usual",
    job: newJob({ managedBy: "kubernetes.io/job-controller" }),
    pods: () => [],
    creations: 1,
    active: 1,
  });
  it("the orphan controller leaves the finalizers of pods of an externally managed finished Job", async () => {
    const f = new ControllerFixture();
    const jc = new JobController(f.manager);
    const job = newJob({ managedBy: "example.com/custom-job-controller" }, { conditions: [{ type: "Complete", status: "True" }] });
    const p = pod("Succeeded");
    f.seed(builtin.jobs, job);
    f.seed(builtin.pods, p);
    await f.reconcile(jc.orphanController, `default/${p.metadata?.name}`);
    expect(f.actions().filter((a) => a.verb === "patch")).toEqual([]);
  });
});
