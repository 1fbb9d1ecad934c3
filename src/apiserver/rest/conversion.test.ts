/**
 * One stored kind served at two versions: HorizontalPodAutoscalers written through
 * autoscaling/v1 and autoscaling/v2 stores over one storage, read back in either version by
 * GET, LIST, watch and write responses; storage holds the v2 form only.
 */
import { describe, expect, it } from "vitest";
import { FakeClock } from "../../apimachinery/clock.js";
import type { KubeObject } from "../../apimachinery/types.js";
import { horizontalPodAutoscalerStrategy, horizontalPodAutoscalerV1Strategy } from "../registry/horizontalpodautoscalers.js";
import { metricSpecsAnnotation } from "../registry/hpaconversion.js";
import { MemoryStorage } from "../storage/memory.js";
import { defaultWriteContext } from "./context.js";
import type { ListOptions } from "./options.js";
import { ResourceStore } from "./store.js";
import { watchCollection, type WatchOutEvent } from "./watch.js";

const listAll: ListOptions = { labelSelector: "", fieldSelector: "", resourceVersion: "", limit: 0, continue: "", watch: false, allowWatchBookmarks: false };

function stores() {
  const storage = new MemoryStorage();
  const clock = new FakeClock();
  const v2 = new ResourceStore(horizontalPodAutoscalerStrategy, { storage, clock });
  const v1 = new ResourceStore(horizontalPodAutoscalerV1Strategy, { storage, clock });
  return { storage, clock, v1, v2 };
}

const v1Body = (): KubeObject => ({
  apiVersion: "autoscaling/v1",
  kind: "HorizontalPodAutoscaler",
  metadata: { name: "web" },
  spec: { scaleTargetRef: { apiVersion: "apps/v1", kind: "Deployment", name: "web" }, maxReplicas: 4, targetCPUUtilizationPercentage: 60 },
});

describe("a resource served at two versions", () => {
  it("stores the storage version and answers in the version asked", async () => {
    const { storage, v1, v2 } = stores();
    expect(v1.converts).toBe(true);
    expect(v2.converts).toBe(false);
    const created = await v1.create("default", v1Body(), defaultWriteContext());
    expect(created.apiVersion).toBe("autoscaling/v1");
    expect(created.spec).toMatchObject({ minReplicas: 1, targetCPUUtilizationPercentage: 60 });

    const raw = await storage.get(v2.key("default", "web"));
    expect(raw?.object.apiVersion).toBe("autoscaling/v2");
    expect(raw?.object.spec).toMatchObject({ metrics: [{ type: "Resource", resource: { name: "cpu", target: { type: "Utilization", averageUtilization: 60 } } }] });

    const asV2 = await v2.get("default", "web");
    expect(asV2.apiVersion).toBe("autoscaling/v2");
    expect(asV2.metadata?.resourceVersion).toBe(created.metadata?.resourceVersion);
    const list = await v1.list("default", listAll);
    expect(list.apiVersion).toBe("autoscaling/v1");
    expect(list.items.map((i) => i.apiVersion)).toEqual(["autoscaling/v1"]);
    // Conversions of one stored object are shared (frozen, cached).
    expect(await v1.get("default", "web")).toBe(list.items[0]);
  });

  it("keeps v2-only fields through a v1 update (round-trip annotations)", async () => {
    const { v1, v2 } = stores();
    await v2.create(
      "default",
      {
        apiVersion: "autoscaling/v2",
        kind: "HorizontalPodAutoscaler",
        metadata: { name: "web" },
        spec: {
          scaleTargetRef: { kind: "Deployment", name: "web" },
          maxReplicas: 4,
          metrics: [{ type: "Pods", pods: { metric: { name: "qps" }, target: { type: "AverageValue", averageValue: "5" } } }],
        },
      },
      defaultWriteContext(),
    );
    const seen = await v1.get("default", "web");
    expect(JSON.parse(seen.metadata!.annotations![metricSpecsAnnotation])).toEqual([{ type: "Pods", pods: { metricName: "qps", targetAverageValue: "5" } }]);
    // A v1 client changes maxReplicas and writes the object back as it read it.
    const r = await v1.update("default", "web", (cur) => ({ ...structuredClone(cur!), spec: { ...structuredClone(cur!.spec as object), maxReplicas: 8 } }), defaultWriteContext());
    expect(r.object.apiVersion).toBe("autoscaling/v1");
    const after = await v2.get("default", "web");
    expect(after.spec).toMatchObject({ maxReplicas: 8, metrics: [{ type: "Pods", pods: { metric: { name: "qps" } } }] });
    expect(after.metadata?.annotations).toBeUndefined();
  });

  it("validates v1 requests on the storage shape", async () => {
    const { v1 } = stores();
    const body = v1Body();
    (body.spec as Record<string, unknown>).targetCPUUtilizationPercentage = 0;
    await expect(v1.create("default", body, defaultWriteContext())).rejects.toMatchObject({
      status: { code: 422, message: 'HorizontalPodAutoscaler.autoscaling "web" is invalid: spec.metrics[0].resource.target.averageUtilization: Invalid value: 0: must be greater than 0' },
    });
  });

  it("watches in either version", async () => {
    const { clock, v1, v2 } = stores();
    await v2.create("default", { ...v1Body(), apiVersion: "autoscaling/v2", spec: { scaleTargetRef: { kind: "Deployment", name: "web" }, maxReplicas: 2 } }, defaultWriteContext());
    const ac = new AbortController();
    const events: WatchOutEvent[] = [];
    let started!: () => void;
    const initial = new Promise<void>((r) => (started = r));
    const done = (async () => {
      for await (const ev of watchCollection(v1, "default", { ...listAll, watch: true }, { clock }, ac.signal)) {
        events.push(ev);
        if (events.length === 1) started();
        if (events.length === 3) ac.abort();
      }
    })();
    await initial;
    await v2.update("default", "web", (cur) => ({ ...structuredClone(cur!), spec: { ...structuredClone(cur!.spec as object), maxReplicas: 3 } }), defaultWriteContext());
    await v2.delete("default", "web", { dryRun: false }, defaultWriteContext());
    await done;
    expect(events.map((e) => `${e.type}:${(e.object as KubeObject).apiVersion}`)).toEqual(["ADDED:autoscaling/v1", "MODIFIED:autoscaling/v1", "DELETED:autoscaling/v1"]);
    expect(events.every((e) => e.source === undefined)).toBe(true);
    expect((events[1].object as KubeObject).spec).toMatchObject({ maxReplicas: 3, targetCPUUtilizationPercentage: 80 });
  });

  it("answers deletes in the version asked", async () => {
    const { v1, v2 } = stores();
    await v2.create("default", { ...v1Body(), apiVersion: "autoscaling/v2", spec: { scaleTargetRef: { kind: "Deployment", name: "web" }, maxReplicas: 2 } }, defaultWriteContext());
    const r = await v1.delete("default", "web", { dryRun: false }, defaultWriteContext());
    expect(r).toMatchObject({ deleted: true, object: { apiVersion: "autoscaling/v1" } });
  });
});
