import { describe, expect, it } from "vitest";
import { deepEqual, semanticEqual } from "./equality.js";

// apimachinery's equality.Semantic.DeepEqual, restated on JSON: empty and nil slices and maps are
// equal (the forked reflect.DeepEqual), Quantities compare by amount, Times by instant.
const semantic: Array<[string, unknown, unknown, boolean]> = [
  ["identical scalars", "a", "a", true],
  ["different scalars", "a", "b", false],
  ["string vs number never equal", "1", 1, false],
  ["absent vs empty list (nil vs empty slice)", { finalizers: [] }, {}, true],
  ["null vs empty list", { finalizers: null }, { finalizers: [] }, true],
  ["absent vs empty map", { labels: {} }, {}, true],
  ["empty map vs empty list", { x: {} }, { x: [] }, true],
  ["nested empties", { spec: { template: { metadata: { labels: {} } } } }, { spec: {} }, true],
  ["non-empty list vs absent", { finalizers: ["a"] }, {}, false],
  ["list order matters", { a: [1, 2] }, { a: [2, 1] }, false],
  ["list lengths differ", { a: [1] }, { a: [1, 1] }, false],
  ["empty string is not absent", { name: "" }, {}, false],
  ["zero is not absent", { replicas: 0 }, {}, false],
  ["false is not absent", { paused: false }, {}, false],
  // Quantity equality (resource.Quantity Cmp)
  ["requests by amount", { resources: { requests: { cpu: "1", memory: "1Gi" } } }, { resources: { requests: { cpu: "1000m", memory: "1024Mi" } } }, true],
  ["limits by amount", { limits: { cpu: "500m" } }, { limits: { cpu: "0.5" } }, true],
  ["limits differ", { limits: { cpu: "500m" } }, { limits: { cpu: "501m" } }, false],
  ["quantity as a JSON number", { requests: { cpu: 1 } }, { requests: { cpu: "1" } }, true],
  ["capacity (a ResourceList)", { status: { capacity: { pods: "110" } } }, { status: { capacity: { pods: "1.1e2" } } }, true],
  ["sizeLimit (a Quantity)", { emptyDir: { sizeLimit: "1Gi" } }, { emptyDir: { sizeLimit: "1073741824" } }, true],
  ["unparsable quantities compare as strings", { limits: { cpu: "x" } }, { limits: { cpu: "x" } }, true],
  ["env values are strings, not quantities", { env: [{ name: "A", value: "1" }] }, { env: [{ name: "A", value: "1.0" }] }, false],
  ["labels are strings, not quantities", { labels: { a: "1" } }, { labels: { a: "1000m" } }, false],
  ["LimitRange limits is a list, not a ResourceList", { limits: [{ type: "Pod" }] }, { limits: [{ type: "Pod" }] }, true],
  // metav1.Time equality (a.UTC() == b.UTC())
  ["same instant, other zone", { lastTransitionTime: "2026-01-01T01:00:00+01:00" }, { lastTransitionTime: "2026-01-01T00:00:00Z" }, true],
  ["same instant, fraction", { creationTimestamp: "2026-01-01T00:00:00.000Z" }, { creationTimestamp: "2026-01-01T00:00:00Z" }, true],
  ["MicroTime precision", { renewTime: "2026-01-01T00:00:00.000001Z" }, { renewTime: "2026-01-01T00:00:00.000002Z" }, false],
  ["different instants", { lastTransitionTime: "2026-01-01T00:00:01Z" }, { lastTransitionTime: "2026-01-01T00:00:00Z" }, false],
  ["times inside conditions", { conditions: [{ type: "Ready", lastProbeTime: "2026-01-01T00:00:00Z" }] }, { conditions: [{ type: "Ready", lastProbeTime: "2026-01-01T02:00:00+02:00" }] }, true],
  ["annotations are strings, not times", { annotations: { t: "2026-01-01T01:00:00+01:00" } }, { annotations: { t: "2026-01-01T00:00:00Z" } }, false],
];

describe("semanticEqual (apimachinery equality.Semantic)", () => {
  it.each(semantic)("%s", (_name, a, b, want) => {
    expect(semanticEqual(a, b)).toBe(want);
    expect(semanticEqual(b, a)).toBe(want);
  });
});

describe("deepEqual (structural)", () => {
  it.each([
    ["absent vs undefined", { a: 1, b: undefined }, { a: 1 }, true],
    ["absent vs empty list", { a: [] }, {}, false],
    ["absent vs null", { a: null }, {}, false],
    ["quantities by text", { limits: { cpu: "1" } }, { limits: { cpu: "1000m" } }, false],
    ["own keys only", JSON.parse('{"constructor":1}'), {}, false],
  ] as const)("%s", (_name, a, b, want) => {
    expect(deepEqual(a, b)).toBe(want);
    expect(deepEqual(b, a)).toBe(want);
  });
});
