/**
 * daemon/util, restating upstream's daemonset_util_test.go: TestCreatePodTemplate,
 * TestReplaceDaemonSetPodNodeNameNodeAffinity, TestGetTargetNodeName, IsPodUpdated, and
 * AddOrUpdateTolerationInPodSpec.
 */
import type { Affinity, Pod, PodSpec } from "../../apimachinery/api/core/v1.js";
import { describe, expect, it } from "vitest";
import { newDaemonSet } from "./fixture.js";
import { addOrUpdateTolerationInPodSpec, createPodTemplate, getTargetNodeName, getTemplateGeneration, isPodUpdated, replaceDaemonSetPodNodeNameNodeAffinity } from "./util.js";

describe("createPodTemplate (TestCreatePodTemplate)", () => {
  it.each([
    { generation: undefined, hash: "", labels: { name: "simple-daemon", type: "production" } },
    { generation: 1, hash: "", labels: { name: "simple-daemon", type: "production", "pod-template-generation": "1" } },
    { generation: 1, hash: "abc", labels: { name: "simple-daemon", type: "production", "pod-template-generation": "1", "controller-revision-hash": "abc" } },
    { generation: undefined, hash: "abc", labels: { name: "simple-daemon", type: "production", "controller-revision-hash": "abc" } },
  ])("generation $generation, hash '$hash'", ({ generation, hash, labels }) => {
    const ds = newDaemonSet("foo");
    const t = createPodTemplate(ds.spec?.template, generation, hash);
    expect(t.metadata?.labels).toEqual(labels);
    expect(t.spec?.tolerations?.map((x) => x.key)).toEqual([
      "node.kubernetes.io/not-ready",
      "node.kubernetes.io/unreachable",
      "node.kubernetes.io/disk-pressure",
      "node.kubernetes.io/memory-pressure",
      "node.kubernetes.io/pid-pressure",
      "node.kubernetes.io/unschedulable",
    ]);
    // The DaemonSet's own template is not changed.
    expect(ds.spec?.template.metadata?.labels).toEqual({ name: "simple-daemon", type: "production" });
    expect(ds.spec?.template.spec?.tolerations).toBeUndefined();
  });
});

describe("addOrUpdateTolerationInPodSpec", () => {
  it("appends a new toleration, replaces a matching one, leaves an equal one", () => {
    const spec: PodSpec = { containers: [], tolerations: [{ key: "a", operator: "Exists", effect: "NoExecute", tolerationSeconds: 10 }] };
    expect(addOrUpdateTolerationInPodSpec(spec, { key: "b", operator: "Exists", effect: "NoSchedule" })).toBe(true);
    expect(addOrUpdateTolerationInPodSpec(spec, { key: "a", operator: "Exists", effect: "NoExecute" })).toBe(true);
    expect(spec.tolerations).toEqual([
      { key: "a", operator: "Exists", effect: "NoExecute" },
      { key: "b", operator: "Exists", effect: "NoSchedule" },
    ]);
    expect(addOrUpdateTolerationInPodSpec(spec, { key: "b", operator: "Exists", effect: "NoSchedule" })).toBe(false);
  });
});

const pinned = { nodeSelectorTerms: [{ matchFields: [{ key: "metadata.name", operator: "In", values: ["host_1"] }] }] };

describe("replaceDaemonSetPodNodeNameNodeAffinity (TestReplaceDaemonSetPodNodeNameNodeAffinity)", () => {
  it.each<{ name: string; affinity: Affinity | undefined; expected: Affinity }>([
    { name: "no affinity", affinity: undefined, expected: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: pinned } } },
    {
      name: "pod affinity kept, node affinity added",
      affinity: { podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ topologyKey: "zone" }] } },
      expected: { podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ topologyKey: "zone" }] }, nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: pinned } },
    },
    {
      name: "required node affinity replaced",
      affinity: {
        nodeAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: {
            nodeSelectorTerms: [{ matchFields: [{ key: "metadata.name", operator: "In", values: ["host_1", "host_2"] }] }, { matchExpressions: [{ key: "hostname", operator: "In", values: ["host_1"] }] }],
          },
        },
      },
      expected: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: pinned } },
    },
    {
      name: "preferred node affinity kept",
      affinity: { nodeAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 100, preference: { matchExpressions: [{ key: "hostname", operator: "In", values: ["host_2"] }] } }] } },
      expected: {
        nodeAffinity: {
          preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 100, preference: { matchExpressions: [{ key: "hostname", operator: "In", values: ["host_2"] }] } }],
          requiredDuringSchedulingIgnoredDuringExecution: pinned,
        },
      },
    },
  ])("$name", ({ affinity, expected }) => {
    const before = JSON.stringify(affinity);
    expect(replaceDaemonSetPodNodeNameNodeAffinity(affinity, "host_1")).toEqual(expected);
    expect(JSON.stringify(affinity)).toBe(before);
  });
});

const podWith = (spec: Partial<PodSpec>): Pod => ({ metadata: { name: "pod1", namespace: "default" }, spec: { containers: [], ...spec } });

describe("getTargetNodeName (TestGetTargetNodeName)", () => {
  it.each<{ name: string; pod: Pod; node?: string; error?: RegExp }>([
    { name: "spec.nodeName", pod: podWith({ nodeName: "node-1" }), node: "node-1" },
    { name: "node affinity", pod: podWith({ affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: pinned } } }), node: "host_1" },
    {
      name: "more than one value",
      pod: podWith({ affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchFields: [{ key: "metadata.name", operator: "In", values: ["a", "b"] }] }] } } } }),
      error: /the matchFields value of 'metadata.name' is not unique for pod default\/pod1/,
    },
    { name: "neither", pod: podWith({}), error: /no spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution for pod default\/pod1/ },
    {
      name: "a term without metadata.name",
      pod: podWith({ affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: "zone", operator: "Exists" }] }] } } } }),
      error: /no node name found for pod default\/pod1/,
    },
  ])("$name", ({ pod, node, error }) => {
    if (error) expect(() => getTargetNodeName(pod)).toThrow(error);
    else expect(getTargetNodeName(pod)).toBe(node);
  });
});

describe("isPodUpdated and the template generation", () => {
  const pod = (labels: Record<string, string>): Pod => ({ metadata: { labels } });
  it.each<{ labels: Record<string, string>; hash: string; generation: number | undefined; updated: boolean }>([
    { labels: { "controller-revision-hash": "h1" }, hash: "h1", generation: undefined, updated: true },
    { labels: { "controller-revision-hash": "h0" }, hash: "h1", generation: undefined, updated: false },
    { labels: { "pod-template-generation": "2" }, hash: "h1", generation: 2, updated: true },
    { labels: { "pod-template-generation": "1" }, hash: "h1", generation: 2, updated: false },
    { labels: {}, hash: "", generation: undefined, updated: false },
  ])("labels $labels, hash '$hash', generation $generation → $updated", ({ labels, hash, generation, updated }) => {
    expect(isPodUpdated(pod(labels), hash, generation)).toBe(updated);
  });

  it("reads the deprecated annotation; a bad value is an error", () => {
    const ds = newDaemonSet("foo");
    expect(getTemplateGeneration(ds)).toBeUndefined();
    ds.metadata!.annotations = { "deprecated.daemonset.template.generation": "7" };
    expect(getTemplateGeneration(ds)).toBe(7);
    ds.metadata!.annotations = { "deprecated.daemonset.template.generation": "x" };
    expect(() => getTemplateGeneration(ds)).toThrow(/invalid syntax/);
  });
});
