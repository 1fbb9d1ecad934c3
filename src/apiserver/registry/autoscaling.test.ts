/**
 * HorizontalPodAutoscalers: v2 and v1 defaults (defaults_test.go), validation
 * (autoscaling/validation's TestValidateHorizontalPodAutoscaler*), and the v1 ⇄ v2 conversion
 * with its round-trip annotations (autoscaling/v1 conversion_test.go).
 */
import { describe, expect, it } from "vitest";
import type { KubeObject } from "../../apimachinery/types.js";
import { horizontalPodAutoscalerStrategy as hpaV2, horizontalPodAutoscalerV1Strategy as hpaV1 } from "./horizontalpodautoscalers.js";
import { behaviorSpecsAnnotation, conditionsAnnotation, hpaV1ToV2, hpaV2ToV1, metricSpecsAnnotation, metricStatusesAnnotation } from "./hpaconversion.js";

const v2 = (spec: Record<string, unknown> = {}): KubeObject => ({
  apiVersion: "autoscaling/v2",
  kind: "HorizontalPodAutoscaler",
  metadata: { name: "web", namespace: "default" },
  spec: { scaleTargetRef: { apiVersion: "apps/v1", kind: "Deployment", name: "web" }, maxReplicas: 5, ...spec },
});

function createdV2(obj: KubeObject): { obj: KubeObject; errs: string[] } {
  hpaV2.defaults(obj);
  hpaV2.prepareForCreate(obj);
  return { obj, errs: hpaV2.validate(obj).map(String) };
}

describe("HPA defaults", () => {
  it("v2: minReplicas 1 and an 80% CPU target when there is no metric", () => {
    const { obj, errs } = createdV2(v2());
    expect(errs).toEqual([]);
    expect(obj.spec).toMatchObject({
      minReplicas: 1,
      metrics: [{ type: "Resource", resource: { name: "cpu", target: { type: "Utilization", averageUtilization: 80 } } }],
    });
    expect(obj.metadata?.generation).toBeUndefined();
    expect(obj.status).toEqual({ desiredReplicas: 0 });
  });

  it("v2: a given behavior is completed with upstream's rules", () => {
    const { obj } = createdV2(v2({ behavior: { scaleDown: { stabilizationWindowSeconds: 60 } } }));
    expect((obj.spec as { behavior: unknown }).behavior).toEqual({
      scaleUp: {
        stabilizationWindowSeconds: 0,
        selectPolicy: "Max",
        policies: [
          { type: "Pods", value: 4, periodSeconds: 15 },
          { type: "Percent", value: 100, periodSeconds: 15 },
        ],
      },
      scaleDown: { stabilizationWindowSeconds: 60, selectPolicy: "Max", policies: [{ type: "Percent", value: 100, periodSeconds: 15 }] },
    });
  });

  it("v1: minReplicas 1; the CPU default comes with the conversion", () => {
    const obj: KubeObject = { apiVersion: "autoscaling/v1", kind: "HorizontalPodAutoscaler", metadata: { name: "a" }, spec: { scaleTargetRef: { kind: "Deployment", name: "a" }, maxReplicas: 3 } };
    hpaV1.defaults(obj);
    const stored = hpaV1.conversion!.toStorage(obj);
    expect(stored.apiVersion).toBe("autoscaling/v2");
    expect(stored.spec).toMatchObject({ minReplicas: 1, metrics: [{ type: "Resource", resource: { name: "cpu", target: { type: "Utilization", averageUtilization: 80 } } }] });
  });
});

describe("HPA validation (TestValidateHorizontalPodAutoscaler)", () => {
  it.each<[string, Record<string, unknown>, string[]]>([
    [
      "minReplicas 0 without object metrics (HPAScaleToZero is alpha)",
      { minReplicas: 0 },
      [
        "spec.minReplicas: Invalid value: 0: must be greater than or equal to 1",
        "spec.metrics: Forbidden: must specify at least one Object or External metric to support scaling to zero replicas",
      ],
    ],
    ["maxReplicas 0", { maxReplicas: 0 }, ["spec.maxReplicas: Invalid value: 0: must be greater than 0", "spec.maxReplicas: Invalid value: 0: must be greater than or equal to `minReplicas`"]],
    ["max below min", { minReplicas: 7 }, ["spec.maxReplicas: Invalid value: 5: must be greater than or equal to `minReplicas`"]],
    ["missing target", { scaleTargetRef: {} }, ["spec.scaleTargetRef.kind: Required value", "spec.scaleTargetRef.name: Required value"]],
    ["target name with a slash", { scaleTargetRef: { kind: "Deployment", name: "a/b" } }, ['spec.scaleTargetRef.name: Invalid value: "a/b": may not contain \'/\'']],
    [
      "utilization of zero",
      { metrics: [{ type: "Resource", resource: { name: "cpu", target: { type: "Utilization", averageUtilization: 0 } } }] },
      ["spec.metrics[0].resource.target.averageUtilization: Invalid value: 0: must be greater than 0"],
    ],
    [
      "both raw value and utilization",
      { metrics: [{ type: "Resource", resource: { name: "cpu", target: { type: "Utilization", averageUtilization: 50, averageValue: "100m" } } }] },
      ["spec.metrics[0].resource.target.averageValue: Forbidden: may not set both a target raw value and a target utilization"],
    ],
    [
      "source missing for its type",
      { metrics: [{ type: "Pods" }] },
      ["spec.metrics[0].pods: Required value: must populate information for the given metric source"],
    ],
    [
      "two sources",
      {
        metrics: [
          {
            type: "Resource",
            resource: { name: "cpu", target: { type: "Utilization", averageUtilization: 50 } },
            pods: { metric: { name: "qps" }, target: { type: "AverageValue", averageValue: "1" } },
          },
        ],
      },
      ["spec.metrics[0].pods: Forbidden: must populate the given metric source only"],
    ],
    [
      "unknown type",
      { metrics: [{ type: "Magic" }] },
      ['spec.metrics[0].type: Unsupported value: "Magic": supported values: "ContainerResource", "External", "Object", "Pods", "Resource"'],
    ],
    [
      "negative target value",
      { metrics: [{ type: "External", external: { metric: { name: "queue" }, target: { type: "Value", value: "-1" } } }] },
      ['spec.metrics[0].external.target.value: Invalid value: "-1": must be positive'],
    ],
    [
      "behavior policies and windows",
      { behavior: { scaleUp: { stabilizationWindowSeconds: 3601, policies: [{ type: "Pods", value: 0, periodSeconds: 1801 }] }, scaleDown: { policies: [] } } },
      [
        "spec.behavior.scaleUp.stabilizationWindowSeconds: Invalid value: 3601: must be less than or equal to 3600",
        "spec.behavior.scaleUp.policies[0].value: Invalid value: 0: must be greater than zero",
        "spec.behavior.scaleUp.policies[0].periodSeconds: Invalid value: 1801: must be less than or equal to 1800",
        "spec.behavior.scaleDown.policies: Required value: must specify at least one Policy",
      ],
    ],
  ])("%s", (_name, spec, want) => {
    expect(createdV2(v2(spec)).errs).toEqual(want);
  });

  it("v1 requests are validated on the stored v2 shape, with v2 field paths", () => {
    const obj: KubeObject = {
      apiVersion: "autoscaling/v1",
      kind: "HorizontalPodAutoscaler",
      metadata: { name: "a", namespace: "default" },
      spec: { scaleTargetRef: { kind: "Deployment", name: "a" }, maxReplicas: 3, targetCPUUtilizationPercentage: 0 },
    };
    hpaV1.defaults(obj);
    const stored = hpaV1.conversion!.toStorage(obj);
    hpaV1.prepareForCreate(stored);
    expect(hpaV1.validate(stored).map(String)).toEqual(["spec.metrics[0].resource.target.averageUtilization: Invalid value: 0: must be greater than 0"]);
  });
});

describe("autoscaling/v1 ⇄ v2 conversion", () => {
  it("maps the CPU target to targetCPUUtilizationPercentage and back, with no annotations", () => {
    const stored = createdV2(v2({ metrics: [{ type: "Resource", resource: { name: "cpu", target: { type: "Utilization", averageUtilization: 55 } } }] })).obj;
    const one = hpaV2ToV1(stored);
    expect(one.apiVersion).toBe("autoscaling/v1");
    expect(one.spec).toEqual({ scaleTargetRef: { kind: "Deployment", name: "web", apiVersion: "apps/v1" }, minReplicas: 1, maxReplicas: 5, targetCPUUtilizationPercentage: 55 });
    expect(one.status).toEqual({ currentReplicas: 0, desiredReplicas: 0 });
    expect(one.metadata?.annotations).toBeUndefined();
    expect(hpaV1ToV2(one).spec).toEqual(stored.spec);
  });

  it("carries other metrics, behavior, current metrics and conditions in annotations, losslessly", () => {
    const stored = createdV2(
      v2({
        metrics: [
          { type: "Resource", resource: { name: "memory", target: { type: "Utilization", averageUtilization: 60 } } },
          { type: "Pods", pods: { metric: { name: "qps" }, target: { type: "AverageValue", averageValue: "10" } } },
          { type: "External", external: { metric: { name: "queue", selector: { matchLabels: { q: "jobs" } } }, target: { type: "Value", value: "30" } } },
          { type: "Resource", resource: { name: "cpu", target: { type: "Utilization", averageUtilization: 70 } } },
        ],
        behavior: { scaleDown: { stabilizationWindowSeconds: 120, policies: [{ type: "Pods", value: 1, periodSeconds: 60 }] } },
      }),
    ).obj;
    stored.metadata!.annotations = { owner: "team-a" };
    stored.status = {
      currentReplicas: 2,
      desiredReplicas: 3,
      currentMetrics: [{ type: "Resource", resource: { name: "cpu", current: { averageUtilization: 42, averageValue: "120m" } } }],
      conditions: [{ type: "AbleToScale", status: "True", lastTransitionTime: "2026-01-01T00:00:00Z", reason: "ReadyForNewScale", message: "ok" }],
    };
    const one = hpaV2ToV1(stored);
    expect(one.spec).toMatchObject({ targetCPUUtilizationPercentage: 70 });
    expect(one.status).toMatchObject({ currentReplicas: 2, desiredReplicas: 3, currentCPUUtilizationPercentage: 42 });
    const ann = one.metadata!.annotations!;
    expect(ann.owner).toBe("team-a");
    expect(JSON.parse(ann[metricSpecsAnnotation])).toEqual([
      { type: "Resource", resource: { name: "memory", targetAverageUtilization: 60 } },
      { type: "Pods", pods: { metricName: "qps", targetAverageValue: "10" } },
      { type: "External", external: { metricName: "queue", metricSelector: { matchLabels: { q: "jobs" } }, targetValue: "30" } },
    ]);
    expect(JSON.parse(ann[metricStatusesAnnotation])).toEqual([{ type: "Resource", resource: { name: "cpu", currentAverageUtilization: 42, currentAverageValue: "120m" } }]);
    // The internal type marshalled without JSON tags.
    expect(JSON.parse(ann[behaviorSpecsAnnotation]).ScaleDown).toEqual({
      StabilizationWindowSeconds: 120,
      SelectPolicy: "Max",
      Policies: [{ Type: "Pods", Value: 1, PeriodSeconds: 60 }],
      Tolerance: null,
    });
    expect(JSON.parse(ann[conditionsAnnotation])).toEqual((stored.status as { conditions: unknown }).conditions);

    const back = hpaV1ToV2(one);
    expect(back.metadata?.annotations).toEqual({ owner: "team-a" });
    expect(back.spec).toEqual(stored.spec);
    expect(back.status).toEqual(stored.status);
  });

  it("drops stale round-trip annotations and ignores malformed ones", () => {
    const one: KubeObject = {
      apiVersion: "autoscaling/v1",
      kind: "HorizontalPodAutoscaler",
      metadata: { name: "a", annotations: { [metricSpecsAnnotation]: "{not json", [behaviorSpecsAnnotation]: "{}" } },
      spec: { scaleTargetRef: { kind: "Deployment", name: "a" }, maxReplicas: 2, targetCPUUtilizationPercentage: 30 },
    };
    const two = hpaV1ToV2(one);
    expect(two.metadata?.annotations).toBeUndefined();
    expect((two.spec as { behavior?: unknown }).behavior).toBeUndefined();
    expect((two.spec as { metrics: unknown[] }).metrics).toEqual([{ type: "Resource", resource: { name: "cpu", target: { type: "Utilization", averageUtilization: 30 } } }]);
    const stale = createdV2(v2()).obj;
    stale.metadata!.annotations = { [metricStatusesAnnotation]: "[]" };
    expect(hpaV2ToV1(stale).metadata?.annotations).toBeUndefined();
  });
});
