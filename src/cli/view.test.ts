import type { DaemonSet, Deployment, ReplicaSet, StatefulSet } from "../apimachinery/api/apps/v1.js";
import type { CronJob, Job } from "../apimachinery/api/batch/v1.js";
import type { Pod } from "../apimachinery/api/core/v1.js";
import { describe, expect, it } from "vitest";
import type { Application } from "../controllers/application/types.js";
import { daemonSetSummary, deploymentSummary, jobSummary, LiveView, progressBar, renderTree, rootSummaries, statefulSetSummary } from "./view.js";

const dep: Deployment = {
  metadata: { name: "web", uid: "d1", generation: 2, annotations: { "deployment.kubernetes.io/revision": "2" } },
  spec: { replicas: 2, selector: {}, template: {} },
  status: {
    observedGeneration: 2,
    replicas: 3,
    updatedReplicas: 1,
    readyReplicas: 2,
    availableReplicas: 2,
    conditions: [{ type: "Progressing", status: "True", reason: "ReplicaSetUpdated" }],
  },
};
const owner = (uid: string, kind: string) => [{ apiVersion: "apps/v1", kind, name: "x", uid, controller: true }];
const rsNew: ReplicaSet = {
  metadata: { name: "web-new", uid: "r2", ownerReferences: owner("d1", "Deployment"), annotations: { "deployment.kubernetes.io/revision": "2" } },
  spec: { replicas: 1, selector: {} },
  status: { replicas: 1, readyReplicas: 0 },
};
const rsOld: ReplicaSet = {
  metadata: { name: "web-old", uid: "r1", ownerReferences: owner("d1", "Deployment"), annotations: { "deployment.kubernetes.io/revision": "1" } },
  spec: { replicas: 2, selector: {} },
  status: { replicas: 2, readyReplicas: 2 },
};
const pod = (name: string, rs: string, ready: boolean, phase = "Running", o: { kind?: string; node?: string; annotations?: Record<string, string>; labels?: Record<string, string> } = {}): Pod => ({
  metadata: { name, ownerReferences: owner(rs, o.kind ?? "ReplicaSet"), ...(o.annotations ? { annotations: o.annotations } : {}), ...(o.labels ? { labels: o.labels } : {}) },
  spec: { containers: [], nodeName: o.node ?? "kubeloop-node-1" },
  status: { phase, podIP: "10.244.1.2", conditions: [{ type: "Ready", status: ready ? "True" : "False" }] },
});
const bar = progressBar;
const job = (name: string, o: { uid?: string; completions?: number; parallelism?: number; status?: Job["status"]; owner?: string; created?: string } = {}): Job => ({
  metadata: { name, uid: o.uid ?? `uid-${name}`, ...(o.owner ? { ownerReferences: [{ apiVersion: "batch/v1", kind: "CronJob", name: "x", uid: o.owner, controller: true }] } : {}), ...(o.created ? { creationTimestamp: o.created } : {}) },
  spec: { template: {}, ...(o.completions !== undefined ? { completions: o.completions } : {}), ...(o.parallelism !== undefined ? { parallelism: o.parallelism } : {}) },
  status: o.status ?? {},
});

describe("live view", () => {
  it("progressBar clamps and rounds", () => {
    expect(progressBar(1, 2, 10)).toBe("[█████░░░░░]  50%");
    expect(progressBar(5, 2, 4)).toBe("[████] 100%");
    expect(progressBar(0, 0, 4)).toBe("[████] 100%");
  });

  it("summarises a rollout in progress and a complete one", () => {
    expect(deploymentSummary(dep, 0)).toEqual({
      line: "deployment/web  2/2 ready  rev 2  [░░░░░░░░░░░░░░░░░░░░]   0%  ReplicaSetUpdated",
      complete: false,
    });
    const done = { ...dep, status: { ...dep.status, replicas: 2, updatedReplicas: 2, availableReplicas: 2 } };
    expect(deploymentSummary(done).complete).toBe(true);
    expect(deploymentSummary(done).line).toContain("rollout complete");
  });

  it("renders Deployment → ReplicaSets (newest first) → Pods", () => {
    const out = renderTree({
      deployments: [dep],
      replicaSets: [rsOld, rsNew],
      pods: [pod("web-old-a", "r1", true), pod("web-new-a", "r2", false, "Pending"), pod("web-old-b", "r1", true)],
    });
    expect(out.split("\n")).toEqual([
      "deployment/web  2/2 ready  rev 2  [░░░░░░░░░░░░░░░░░░░░]   0%  ReplicaSetUpdated",
      "├─ replicaset/web-new  rev 2  0/1 ready  (new)",
      "│  └─ pod/web-new-a  Pending  kubeloop-node-1  10.244.1.2",
      "└─ replicaset/web-old  rev 1  2/2 ready",
      "   ├─ pod/web-old-a  Running  ready  kubeloop-node-1  10.244.1.2",
      "   └─ pod/web-old-b  Running  ready  kubeloop-node-1  10.244.1.2",
    ]);
  });

  it("redraws in place on a TTY and prints only changes otherwise", () => {
    let tty = "";
    const v = new LiveView({ isTTY: true, write: (s) => (tty += s) });
    v.draw({ deployments: [dep], replicaSets: [], pods: [] });
    v.draw({ deployments: [dep], replicaSets: [], pods: [] });
    expect(tty).toContain("\x1b[1F\x1b[J");
    let plain = "";
    const p = new LiveView({ isTTY: false, write: (s) => (plain += s) });
    p.draw({ deployments: [dep], replicaSets: [], pods: [] });
    p.draw({ deployments: [dep], replicaSets: [], pods: [] });
    expect(plain.split("\n").filter(Boolean)).toHaveLength(1);
  });

  it.each<[string, Parameters<typeof job>[1], string, boolean]>([
    ["running, fixed completions", { completions: 5, status: { succeeded: 2, active: 2, failed: 1 } }, `job/j  2/5 succeeded  2 active  1 failed  ${bar(2, 5)}  Running`, false],
    ["complete", { completions: 1, status: { succeeded: 1, conditions: [{ type: "SuccessCriteriaMet", status: "True" }, { type: "Complete", status: "True" }] } }, `job/j  1/1 succeeded  0 active  0 failed  ${bar(1, 1)}  Complete`, true],
    ["failed, with the reason", { completions: 3, status: { failed: 7, conditions: [{ type: "Failed", status: "True", reason: "BackoffLimitExceeded" }] } }, `job/j  0/3 succeeded  0 active  7 failed  ${bar(0, 3)}  Failed (BackoffLimitExceeded)`, true],
    ["parallel workers without completions: kubectl's 0/1 of 3", { parallelism: 3, status: { active: 3 } }, `job/j  0/1 of 3 succeeded  3 active  0 failed  ${bar(0, 1)}  Running`, false],
    ["suspended", { completions: 2, status: { conditions: [{ type: "Suspended", status: "True" }] } }, `job/j  0/2 succeeded  0 active  0 failed  ${bar(0, 2)}  Suspended`, false],
  ])("jobSummary: %s", (_n, o, line, complete) => {
    expect(jobSummary(job("j", o))).toEqual({ line, complete });
  });

  it("renders CronJob → Jobs (oldest first) → Pods, an Indexed Job's pods by index, and a Job of its own as a root", () => {
    const cj: CronJob = { metadata: { name: "nightly", uid: "cj1" }, spec: { schedule: "0 3 * * *", timeZone: "Europe/Paris", jobTemplate: {} }, status: { active: [{ name: "nightly-2" }], lastScheduleTime: "2026-01-02T02:00:00Z", lastSuccessfulTime: "2026-01-01T02:00:05Z" } };
    const out = renderTree({
      deployments: [],
      replicaSets: [],
      cronJobs: [cj],
      jobs: [
        job("nightly-2", { owner: "cj1", completions: 1, created: "2026-01-02T02:00:00Z", status: { active: 1 } }),
        job("nightly-1", { owner: "cj1", completions: 1, created: "2026-01-01T02:00:00Z", status: { succeeded: 1, conditions: [{ type: "Complete", status: "True" }] } }),
        job("indexed", { completions: 2, status: { succeeded: 1, active: 1 } }),
      ],
      pods: [
        pod("nightly-2-x", "uid-nightly-2", true, "Running", { kind: "Job" }),
        pod("indexed-1-b", "uid-indexed", true, "Running", { kind: "Job", annotations: { "batch.kubernetes.io/job-completion-index": "1" } }),
        pod("indexed-0-a", "uid-indexed", false, "Succeeded", { kind: "Job", annotations: { "batch.kubernetes.io/job-completion-index": "0" } }),
      ],
    });
    expect(out.split("\n")).toEqual([
      'cronjob/nightly  schedule "0 3 * * *" Europe/Paris  1 active  last schedule 2026-01-02T02:00:00Z  last success 2026-01-01T02:00:05Z',
      `├─ job/nightly-1  1/1 succeeded  0 active  0 failed  ${bar(1, 1)}  Complete`,
      `└─ job/nightly-2  0/1 succeeded  1 active  0 failed  ${bar(0, 1)}  Running`,
      "   └─ pod/nightly-2-x  Running  ready  kubeloop-node-1  10.244.1.2",
      `job/indexed  1/2 succeeded  1 active  0 failed  ${bar(1, 2)}  Running`,
      "├─ pod/indexed-0-a  Succeeded  kubeloop-node-1  10.244.1.2  index 0",
      "└─ pod/indexed-1-b  Running  ready  kubeloop-node-1  10.244.1.2  index 1",
    ]);
  });

  const sts = (status: StatefulSet["status"], o: { partition?: number; generation?: number } = {}): StatefulSet => ({
    metadata: { name: "db", uid: "s1", generation: o.generation ?? 1 },
    spec: { replicas: 3, selector: {}, template: {}, serviceName: "db", ...(o.partition !== undefined ? { updateStrategy: { type: "RollingUpdate", rollingUpdate: { partition: o.partition } } } : {}) },
    status,
  });
  it.each<[string, StatefulSet, string, boolean]>([
    ["scaling up", sts({ replicas: 2, readyReplicas: 1, currentRevision: "db-a", updateRevision: "db-a", observedGeneration: 1 }), `statefulset/db  1/3 ready  rev db-a  ${bar(1, 3)}  waiting`, false],
    ["ready", sts({ replicas: 3, readyReplicas: 3, currentRevision: "db-a", updateRevision: "db-a", observedGeneration: 1 }), `statefulset/db  3/3 ready  rev db-a  ${bar(3, 3)}  rollout complete`, true],
    [
      "rolling to a new revision: the bar counts updated ready replicas",
      sts({ replicas: 3, readyReplicas: 3, updatedReplicas: 1, currentRevision: "db-a", updateRevision: "db-b", observedGeneration: 2 }, { generation: 2 }),
      `statefulset/db  3/3 ready  rev db-a → db-b  ${bar(1, 3)}  updating`,
      false,
    ],
    [
      "a partitioned update is complete once the replicas at or above the partition are updated",
      sts({ replicas: 3, readyReplicas: 3, updatedReplicas: 1, currentRevision: "db-a", updateRevision: "db-b", observedGeneration: 2 }, { generation: 2, partition: 2 }),
      `statefulset/db  3/3 ready  rev db-a → db-b  ${bar(1, 1)}  rollout complete`,
      true,
    ],
    ["a generation not yet observed", sts({ replicas: 3, readyReplicas: 3, currentRevision: "db-a", updateRevision: "db-a", observedGeneration: 1 }, { generation: 2 }), `statefulset/db  3/3 ready  rev db-a  ${bar(3, 3)}  waiting`, false],
  ])("statefulSetSummary: %s", (_n, s, line, complete) => {
    expect(statefulSetSummary(s)).toEqual({ line, complete });
  });

  it("renders StatefulSet → Pods by ordinal, marking the old revision's", () => {
    const s = sts({ replicas: 3, readyReplicas: 2, updatedReplicas: 1, currentRevision: "db-a", updateRevision: "db-b", observedGeneration: 2 }, { generation: 2 });
    const p = (n: string, rev: string, ready: boolean) => pod(n, "s1", ready, "Running", { kind: "StatefulSet", labels: { "controller-revision-hash": rev } });
    expect(renderTree({ deployments: [], replicaSets: [], statefulSets: [s], pods: [p("db-10", "db-a", true), p("db-2", "db-b", false), p("db-0", "db-a", true)] }).split("\n")).toEqual([
      `statefulset/db  2/3 ready  rev db-a → db-b  ${bar(1, 3)}  updating`,
      "├─ pod/db-0  Running  ready  kubeloop-node-1  10.244.1.2  rev db-a (old)",
      "├─ pod/db-2  Running  kubeloop-node-1  10.244.1.2  rev db-b",
      "└─ pod/db-10  Running  ready  kubeloop-node-1  10.244.1.2  rev db-a (old)",
    ]);
  });

  it("daemonSetSummary and DaemonSet → Pods by node", () => {
    const ds: DaemonSet = {
      metadata: { name: "agent", uid: "ds1", generation: 3 },
      spec: { selector: {}, template: {} },
      status: { desiredNumberScheduled: 3, currentNumberScheduled: 3, numberReady: 2, updatedNumberScheduled: 2, numberAvailable: 2, numberMisscheduled: 0, observedGeneration: 3 },
    };
    expect(daemonSetSummary(ds).complete).toBe(false);
    const done = { ...ds, status: { ...ds.status!, numberReady: 3, updatedNumberScheduled: 3, numberAvailable: 3 } };
    expect(daemonSetSummary(done)).toEqual({ line: `daemonset/agent  desired 3  current 3  ready 3  up-to-date 3  available 3  ${bar(3, 3)}  rollout complete`, complete: true });
    const p = (n: string, node: string) => pod(n, "ds1", true, "Running", { kind: "DaemonSet", node });
    expect(renderTree({ deployments: [], replicaSets: [], daemonSets: [ds], pods: [p("agent-x", "kubeloop-node-2"), p("agent-y", "kubeloop-node-1"), p("agent-z", "kubeloop-node-3")] }).split("\n")).toEqual([
      `daemonset/agent  desired 3  current 3  ready 2  up-to-date 2  available 2  ${bar(2, 3)}  updating`,
      "├─ pod/agent-y  Running  ready  kubeloop-node-1  10.244.1.2",
      "├─ pod/agent-x  Running  ready  kubeloop-node-2  10.244.1.2",
      "└─ pod/agent-z  Running  ready  kubeloop-node-3  10.244.1.2",
    ]);
  });

  it("with Applications: their Deployments under them, other Deployments and workloads as roots after them", () => {
    const app: Application = { apiVersion: "kubeloop.dev/v1alpha1", kind: "Application", metadata: { name: "web", uid: "a1", generation: 1 }, spec: { image: "nginx", replicas: 2 }, status: {} } as Application;
    const owned = { ...dep, metadata: { ...dep.metadata, ownerReferences: owner("a1", "Application") } };
    const other = { ...dep, metadata: { ...dep.metadata, name: "api", uid: "d2" } };
    const roots = rootSummaries({ applications: [app], deployments: [owned, other], replicaSets: [], pods: [], jobs: [job("j", { completions: 1 })] });
    expect(roots.map((l) => l.split("  ")[0])).toEqual(["application/web", "deployment/api", "job/j"]);
    expect(renderTree({ applications: [app], deployments: [owned, other], replicaSets: [], pods: [] }).split("\n").map((l) => l.split("  ")[0])).toEqual(["application/web", "└─ deployment/web", "deployment/api"]);
  });

  it("without a TTY prints a line when a Job's counts change", () => {
    let plain = "";
    const v = new LiveView({ isTTY: false, write: (s) => (plain += s) });
    v.draw({ deployments: [], replicaSets: [], pods: [], jobs: [job("j", { completions: 2, status: { active: 2 } })] });
    v.draw({ deployments: [], replicaSets: [], pods: [], jobs: [job("j", { completions: 2, status: { active: 2 } })] });
    v.draw({ deployments: [], replicaSets: [], pods: [], jobs: [job("j", { completions: 2, status: { succeeded: 1, active: 1 } })] });
    expect(plain.split("\n").filter(Boolean)).toEqual(["job/j  0/2 succeeded  2 active  0 failed  0%  Running", "job/j  1/2 succeeded  1 active  0 failed  50%  Running"]);
  });
});
