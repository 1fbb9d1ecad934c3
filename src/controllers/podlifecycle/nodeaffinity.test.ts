/**
 * Required node affinity as kube-scheduler's NodeAffinity filter reads it (component-helpers
 * nodeaffinity tests restated), and the simulated scheduler placing a pod pinned by
 * `metadata.name In [node]` — the DaemonSet controller's pods — on exactly that node, cordoned or not.
 */
import type { Node, NodeSelectorRequirement, Pod } from "../../apimachinery/api/core/v1.js";
import { describe, expect, it } from "vitest";
import { nodeSelectorTermMatches, podMatchesNodeAffinity } from "./nodeaffinity.js";
import { pickNode, type NodeUsage } from "./scheduler.js";

const node = (name: string, labels: Record<string, string> = {}, unschedulable = false): Node => ({
  metadata: { name, labels },
  spec: unschedulable ? { unschedulable: true } : {},
  status: { conditions: [{ type: "Ready", status: "True" }], allocatable: { pods: "110", cpu: "4", memory: "8Gi" } },
});

describe("nodeSelectorTermMatches", () => {
  const n = node("n1", { zone: "a", cores: "8" });
  it.each<{ name: string; exprs?: NodeSelectorRequirement[]; fields?: NodeSelectorRequirement[]; match: boolean }>([
    { name: "In", exprs: [{ key: "zone", operator: "In", values: ["a", "b"] }], match: true },
    { name: "In, other value", exprs: [{ key: "zone", operator: "In", values: ["b"] }], match: false },
    { name: "NotIn on a missing label", exprs: [{ key: "rack", operator: "NotIn", values: ["r1"] }], match: true },
    { name: "Exists", exprs: [{ key: "zone", operator: "Exists" }], match: true },
    { name: "DoesNotExist", exprs: [{ key: "zone", operator: "DoesNotExist" }], match: false },
    { name: "Gt", exprs: [{ key: "cores", operator: "Gt", values: ["4"] }], match: true },
    { name: "Lt", exprs: [{ key: "cores", operator: "Lt", values: ["4"] }], match: false },
    { name: "Gt with two values is invalid", exprs: [{ key: "cores", operator: "Gt", values: ["4", "5"] }], match: false },
    { name: "expressions are ANDed", exprs: [{ key: "zone", operator: "In", values: ["a"] }, { key: "cores", operator: "Lt", values: ["4"] }], match: false },
    { name: "matchFields metadata.name In", fields: [{ key: "metadata.name", operator: "In", values: ["n1"] }], match: true },
    { name: "matchFields metadata.name In another node", fields: [{ key: "metadata.name", operator: "In", values: ["n2"] }], match: false },
    { name: "matchFields on another field is invalid", fields: [{ key: "metadata.uid", operator: "In", values: ["x"] }], match: false },
    { name: "an empty term matches nothing", match: false },
  ])("$name", ({ exprs, fields, match }) => {
    expect(nodeSelectorTermMatches({ matchExpressions: exprs, matchFields: fields }, n)).toBe(match);
  });
});

const pinned = (nodeName: string, tolerateUnschedulable = false): Pod => ({
  metadata: { name: "ds-pod", namespace: "default" },
  spec: {
    containers: [{ name: "c", image: "i" }],
    affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchFields: [{ key: "metadata.name", operator: "In", values: [nodeName] }] }] } } },
    ...(tolerateUnschedulable ? { tolerations: [{ key: "node.kubernetes.io/unschedulable", operator: "Exists", effect: "NoSchedule" }] } : {}),
  },
});

describe("the simulated scheduler and node affinity", () => {
  const usage = (nodes: Node[]): NodeUsage[] => nodes.map((n) => ({ node: n, requested: {}, pods: 0 }));

  it("places a pod pinned by metadata.name on that node, not on the least loaded one", () => {
    const nodes = usage([node("kubeloop-node-1"), node("kubeloop-node-2"), node("kubeloop-node-3")]);
    nodes[1].pods = 50;
    expect(pickNode(pinned("kubeloop-node-2"), nodes)).toEqual({ node: "kubeloop-node-2" });
  });

  it("a cordoned node takes a pod tolerating the unschedulable taint, and no other", () => {
    const nodes = usage([node("n1", {}, true)]);
    expect(pickNode(pinned("n1", true), nodes)).toEqual({ node: "n1" });
    expect(pickNode(pinned("n1"), nodes)).toEqual({ message: "0/1 nodes are available: 1 node(s) were unschedulable." });
  });

  it("a pod pinned to a node that does not fit is reported as an affinity mismatch", () => {
    expect(pickNode(pinned("gone"), usage([node("n1"), node("n2")]))).toEqual({ message: "0/2 nodes are available: 2 node(s) didn't match Pod's node affinity/selector." });
  });

  it("nodeSelector and required affinity both apply", () => {
    const p = pinned("n1");
    p.spec!.nodeSelector = { disk: "ssd" };
    expect(podMatchesNodeAffinity(p, node("n1"))).toBe(false);
    expect(podMatchesNodeAffinity(p, node("n1", { disk: "ssd" }))).toBe(true);
  });
});
