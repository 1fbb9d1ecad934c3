import type { Deployment, ReplicaSet } from "../apimachinery/api/apps/v1.js";
import type { Pod } from "../apimachinery/api/core/v1.js";
import { describe, expect, it } from "vitest";
import { deploymentSummary, LiveView, progressBar, renderTree } from "./view.js";

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
const pod = (name: string, rs: string, ready: boolean, phase = "Running"): Pod => ({
  metadata: { name, ownerReferences: owner(rs, "ReplicaSet") },
  spec: { containers: [], nodeName: "kubeloop-node-1" },
  status: { phase, podIP: "10.244.1.2", conditions: [{ type: "Ready", status: ready ? "True" : "False" }] },
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
});
