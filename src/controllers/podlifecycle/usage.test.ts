/** The simulated containers' usage (usage.ts): annotations, requests, defaults; Running pods only. */
import { describe, expect, it } from "vitest";
import type { Pod } from "../../apimachinery/api/core/v1.js";
import type { KubeObject } from "../../apimachinery/types.js";
import { parseContainerUsage, simulatedPodUsage, simulatedResourceMetrics } from "./usage.js";

const running = { state: { running: { startedAt: "2026-01-01T00:00:00Z" } } };
const pod = (o: { annotations?: Record<string, string>; phase?: string; requests?: Record<string, string>; containers?: string[]; sidecar?: boolean; waiting?: string[] } = {}): Pod => {
  const names = o.containers ?? ["app"];
  return {
    metadata: { name: "p", annotations: o.annotations },
    spec: {
      containers: names.map((name) => ({ name, image: "x", ...(o.requests ? { resources: { requests: o.requests } } : {}) })),
      ...(o.sidecar ? { initContainers: [{ name: "proxy", image: "x", restartPolicy: "Always" }, { name: "setup", image: "x" }] } : {}),
    },
    status: {
      phase: o.phase ?? "Running",
      containerStatuses: names.map((name) => ({ name, image: "x", imageID: "", ready: true, restartCount: 0, ...((o.waiting ?? []).includes(name) ? { state: { waiting: { reason: "ContainerCreating" } } } : running) })),
      ...(o.sidecar ? { initContainerStatuses: [{ name: "proxy", image: "x", imageID: "", ready: true, restartCount: 0, ...running }, { name: "setup", image: "x", imageID: "", ready: false, restartCount: 0, state: { terminated: { exitCode: 0 } } }] } : {}),
    },
  } as Pod;
};

describe("simulated container usage", () => {
  it.each<[string, Pod, Array<[string, Record<string, string>]> | undefined]>([
    ["requests by default", pod({ requests: { cpu: "200m", memory: "128Mi" } }), [["app", { cpu: "200m", memory: "128Mi" }]]],
    ["the small constants without requests", pod(), [["app", { cpu: "1m", memory: "1Mi" }]]],
    ["pod-wide annotations for every container", pod({ containers: ["a", "b"], annotations: { "sim.kubeloop.dev/cpu-usage": "750m" }, requests: { memory: "10Mi" } }), [["a", { cpu: "750m", memory: "10Mi" }], ["b", { cpu: "750m", memory: "10Mi" }]]],
    [
      "a container's own annotation wins",
      pod({ containers: ["a", "b"], annotations: { "sim.kubeloop.dev/cpu-usage": "750m", "sim.kubeloop.dev/memory-usage": "1Gi", "sim.kubeloop.dev/usage.b": "cpu=2" } }),
      [["a", { cpu: "750m", memory: "1Gi" }], ["b", { cpu: "2", memory: "1Gi" }]],
    ],
    ["an invalid value is ignored", pod({ annotations: { "sim.kubeloop.dev/cpu-usage": "lots" }, requests: { cpu: "100m" } }), [["app", { cpu: "100m", memory: "1Mi" }]]],
    ["running sidecars report, finished init containers do not", pod({ sidecar: true }), [["proxy", { cpu: "1m", memory: "1Mi" }], ["app", { cpu: "1m", memory: "1Mi" }]]],
    ["containers not running yet are left out", pod({ containers: ["a", "b"], waiting: ["b"] }), [["a", { cpu: "1m", memory: "1Mi" }]]],
    ["a Pending pod has no metrics", pod({ phase: "Pending" }), undefined],
    ["a Succeeded pod has no metrics", pod({ phase: "Succeeded" }), undefined],
    ["a pod with nothing running has none", pod({ waiting: ["app"] }), undefined],
  ])("%s", (_n, p, want) => {
    const got = simulatedPodUsage(p as unknown as KubeObject);
    expect(got?.map((c) => [c.name, c.usage])).toEqual(want);
  });

  it.each<[string, Record<string, string>]>([
    ["cpu=250m,memory=64Mi", { cpu: "250m", memory: "64Mi" }],
    [" memory = 1Gi ", { memory: "1Gi" }],
    ["cpu=x,gpu=1,memory", {}],
  ])("parses %j", (v, want) => {
    expect(parseContainerUsage(v)).toEqual(want);
  });

  it("the window is metrics-server's 15 s resolution scaled by the kubelet's speedFactor", () => {
    expect(simulatedResourceMetrics({ speedFactor: 1 }).windowMs).toBe(15_000);
    expect(simulatedResourceMetrics({ speedFactor: 0.01 }).windowMs).toBe(150);
    expect(simulatedResourceMetrics().windowMs).toBe(1_500);
  });
});
