import type { Pod } from "../../apimachinery/api/core/v1.js";
import { describe, expect, it } from "vitest";
import { detectFault, faultFromImage, FAULT_ANNOTATION, InvalidFaultError, parseFault } from "./faults.js";
import { QuantityError, quantityValue } from "../../apimachinery/quantity.js";
import { podRequests, toleratesTaint } from "./scheduler.js";
import { imageID, observeStage } from "./podstatus.js";

describe("quantityValue (the scheduler's sums, from apimachinery's Quantity)", () => {
  it.each([
    ["1", 1],
    ["500m", 0.5],
    ["1.5", 1.5],
    ["2k", 2000],
    ["1Ki", 1024],
    ["8Gi", 8 * 2 ** 30],
    ["128Mi", 128 * 2 ** 20],
    ["1e3", 1000],
    ["1E-3", 0.001],
    [".5", 0.5],
  ])("%s → %d", (q, want) => expect(quantityValue(q)).toBeCloseTo(want, 9));
  it.each(["", "abc", "1Qi", "1.2.3", "--1"])("rejects %j", (q) => expect(() => quantityValue(q)).toThrow(QuantityError));
});

describe("faults", () => {
  it.each([
    ["never-ready", { kind: "never-ready" }],
    ["crash-loop", { kind: "crash-loop" }],
    ["fail-after=30", { kind: "fail-after", seconds: 30 }],
    ["fail-after=2.5s", { kind: "fail-after", seconds: 2.5 }],
  ])("annotation %s", (v, want) => expect(parseFault(v)).toEqual(want));
  it("rejects unknown annotation values", () => expect(() => parseFault("fail-after=")).toThrow(InvalidFaultError));
  it.each([
    ["registry.local/never-ready:1", { kind: "never-ready" }],
    ["example/crashloop", { kind: "crash-loop" }],
    ["app:fail-after-10s", { kind: "fail-after", seconds: 10 }],
    ["nginx:1.27", undefined],
  ])("image %s", (image, want) => expect(faultFromImage(image)).toEqual(want));
  it("prefers the annotation over images, and reports an invalid annotation", () => {
    const pod: Pod = { metadata: { annotations: { [FAULT_ANNOTATION]: "never-ready" } }, spec: { containers: [{ name: "c", image: "crashloop" }] } };
    expect(detectFault(pod)).toEqual({ kind: "never-ready" });
    const bad: Pod = { metadata: { annotations: { [FAULT_ANNOTATION]: "boom" } }, spec: { containers: [{ name: "c", image: "crashloop" }] } };
    const seen: string[] = [];
    expect(detectFault(bad, (e) => seen.push(e.value))).toEqual({ kind: "crash-loop" });
    expect(seen).toEqual(["boom"]);
  });
});

describe("podRequests", () => {
  it("takes the larger of the containers' sum and the biggest init container, plus overhead", () => {
    const pod: Pod = {
      spec: {
        containers: [
          { name: "a", resources: { requests: { cpu: "100m", memory: "64Mi" } } },
          { name: "b", resources: { requests: { cpu: "200m" } } },
        ],
        initContainers: [{ name: "i", resources: { requests: { cpu: "500m", memory: "32Mi" } } }],
        overhead: { cpu: "10m" },
      },
    };
    const r = podRequests(pod);
    expect(r.cpu).toBeCloseTo(0.51, 9);
    expect(r.memory).toBe(64 * 2 ** 20);
  });
});

// The rules of component-helpers resource.PodRequests (v1.36), one case each: sidecars, init containers beside them, pod-level requests, overhead.
describe("podRequests with sidecars and pod-level resources", () => {
  const c = (name: string, cpu: string, sidecar = false) => ({ name, ...(sidecar ? { restartPolicy: "Always" } : {}), resources: { requests: { cpu } } });
  const cases: Array<{ name: string; containers: ReturnType<typeof c>[]; inits?: ReturnType<typeof c>[]; podCPU?: string; overhead?: string; want: number }> = [
    { name: "a sidecar adds to the containers", containers: [c("a", "1")], inits: [c("s", "1", true)], want: 2 },
    { name: "an init container after a sidecar needs the sidecar beside it", containers: [c("a", "1")], inits: [c("s", "1", true), c("i", "3")], want: 4 },
    { name: "an init container before the sidecar does not", containers: [c("a", "1")], inits: [c("i", "3"), c("s", "1", true)], want: 3 },
    { name: "containers and sidecars beat a small init container", containers: [c("a", "2")], inits: [c("s1", "1", true), c("i", "1"), c("s2", "1", true)], want: 4 },
    { name: "several sidecars and a large init container between them", containers: [c("a", "1")], inits: [c("s1", "1", true), c("i", "5"), c("s2", "2", true)], want: 6 },
    { name: "pod-level requests replace the containers' figure", containers: [c("a", "1"), c("b", "1")], podCPU: "500m", want: 0.5 },
    { name: "pod-level requests, then the overhead", containers: [c("a", "1")], podCPU: "2", overhead: "250m", want: 2.25 },
  ];
  it.each(cases)("$name", (t) => {
    const pod: Pod = {
      spec: {
        containers: t.containers,
        ...(t.inits ? { initContainers: t.inits } : {}),
        ...(t.podCPU ? { resources: { requests: { cpu: t.podCPU } } } : {}),
        ...(t.overhead ? { overhead: { cpu: t.overhead } } : {}),
      },
    };
    expect(podRequests(pod).cpu).toBeCloseTo(t.want, 9);
  });
});

describe("toleratesTaint", () => {
  const taint = { key: "k", value: "v", effect: "NoSchedule" };
  it.each([
    [{ key: "k", operator: "Equal", value: "v", effect: "NoSchedule" }, true],
    [{ key: "k", operator: "Exists" }, true],
    [{ operator: "Exists" }, true],
    [{ key: "k", value: "other" }, false],
    [{ key: "k", operator: "Exists", effect: "NoExecute" }, false],
    [{ key: "other", operator: "Exists" }, false],
  ])("%j → %s", (t, want) => expect(toleratesTaint(t, taint)).toBe(want));
});

describe("podstatus helpers", () => {
  it.each([
    ["nginx", "docker.io/library/nginx"],
    ["nginx:1.27", "docker.io/library/nginx"],
    ["bitnami/redis:7", "docker.io/bitnami/redis"],
    ["registry.k8s.io/pause:3.10", "registry.k8s.io/pause"],
    ["localhost:5000/app:v1", "localhost:5000/app"],
  ])("imageID(%s) names %s", (image, repo) => expect(imageID(image)).toMatch(new RegExp(`^${repo.replace(/[.]/g, "\\.")}@sha256:[0-9a-f]{64}$`)));

  it("reads the stage from the status", () => {
    const base: Pod = { spec: { containers: [{ name: "c" }] }, status: { phase: "Pending" } };
    expect(observeStage(base)).toBe("Unscheduled");
    expect(observeStage({ ...base, spec: { ...base.spec!, nodeName: "n" } })).toBe("Scheduled");
    expect(observeStage({ ...base, status: { phase: "Failed" } })).toBe("Terminal");
    expect(
      observeStage({
        ...base,
        status: { phase: "Pending", nominatedNodeName: "n", conditions: [{ type: "PodScheduled", status: "True" }], containerStatuses: [{ name: "c", image: "", imageID: "", ready: false, restartCount: 0, state: { waiting: { reason: "ContainerCreating" } } }] },
      }),
    ).toBe("Creating");
  });
});
