import type { ConfigMap, Pod, Secret } from "../apimachinery/api/core/v1.js";
import type { OwnerReference } from "../apimachinery/api/meta/v1.js";
import { describe, expect, it } from "vitest";
import { ObjectName } from "../apimachinery/objectname.js";
import { defineResource, metadataOnly, type PartialObjectMetadata } from "../apimachinery/resource.js";
import type { TypedObject } from "../apimachinery/types.js";
import { builtin } from "../client/typed.js";
import { ControllerFixture } from "../testing/fixture.js";
import { ControllerBuilderError } from "./builder.js";
import { ownerRequests, type RequestQueue } from "./handler.js";
import { controllerMetricNames } from "./metrics.js";
import {
  and,
  annotationsChanged,
  generationChanged,
  labelSelectorPredicate,
  labelsChanged,
  newPredicateFuncs,
  not,
  or,
  resourceVersionChanged,
  type Predicate,
} from "./predicate.js";

interface Widget extends TypedObject {
  spec?: { size?: number };
}
const widgets = defineResource<Widget>({ group: "example.com", version: "v1", resource: "widgets", kind: "Widget", namespaced: true });
const clusterWidgets = defineResource<Widget>({ group: "example.com", version: "v1", resource: "clusterwidgets", kind: "ClusterWidget", namespaced: false });

function ref(kind: string, apiVersion: string, name: string, controller?: boolean): OwnerReference {
  return { apiVersion, kind, name, uid: `uid-${name}`, ...(controller !== undefined ? { controller } : {}) };
}

function cm(name: string, owners: OwnerReference[] = [], extra: Partial<ConfigMap["metadata"]> = {}): ConfigMap {
  return { apiVersion: "v1", kind: "ConfigMap", metadata: { name, namespace: "ns", ownerReferences: owners, ...extra } };
}

/** A queue that records what handlers add. */
function recordingQueue(): RequestQueue & { added: string[] } {
  const added: string[] = [];
  return { added, add: (r) => added.push(String(r)), addAfter: (r, ms) => added.push(`${String(r)} after ${ms}`), addRateLimited: (r) => added.push(`${String(r)} rate-limited`) };
}

// controller-runtime pkg/handler eventhandler_test.go, EnqueueRequestForOwner, restated.
describe("ownerRequests (handler.EnqueueRequestForOwner)", () => {
  const owner = { group: "example.com", kind: "Widget", namespaced: true };
  const cases: Array<{ name: string; refs: OwnerReference[]; onlyController: boolean; owner?: typeof owner; want: string[] }> = [
    { name: "enqueues the owner of the matching group and kind", refs: [ref("Widget", "example.com/v1", "w1")], onlyController: false, want: ["ns/w1"] },
    { name: "any version of the group matches", refs: [ref("Widget", "example.com/v2beta1", "w1")], onlyController: false, want: ["ns/w1"] },
    { name: "another kind does not match", refs: [ref("Gadget", "example.com/v1", "g1")], onlyController: false, want: [] },
    { name: "another group does not match", refs: [ref("Widget", "other.io/v1", "w1")], onlyController: false, want: [] },
    {
      name: "every matching owner",
      refs: [ref("Widget", "example.com/v1", "w1"), ref("Widget", "example.com/v1", "w2"), ref("Gadget", "example.com/v1", "g")],
      onlyController: false,
      want: ["ns/w1", "ns/w2"],
    },
    {
      name: "OnlyControllerOwner: only the controller reference",
      refs: [ref("Widget", "example.com/v1", "w1"), ref("Widget", "example.com/v1", "w2", true)],
      onlyController: true,
      want: ["ns/w2"],
    },
    { name: "OnlyControllerOwner: no controller reference, nothing", refs: [ref("Widget", "example.com/v1", "w1", false)], onlyController: true, want: [] },
    {
      name: "a cluster-scoped owner gets no namespace",
      refs: [ref("ClusterWidget", "example.com/v1", "c1")],
      onlyController: false,
      owner: { group: "example.com", kind: "ClusterWidget", namespaced: false },
      want: ["c1"],
    },
    {
      name: "an unparsable apiVersion ends the lookup",
      refs: [ref("Widget", "example.com/v1", "w1"), ref("Widget", "a/b/c", "bad"), ref("Widget", "example.com/v1", "w3")],
      onlyController: false,
      want: ["ns/w1"],
    },
  ];
  it.each(cases)("$name", (c) => {
    expect(ownerRequests(cm("child", c.refs), c.owner ?? owner, c.onlyController).map(String)).toEqual(c.want);
  });
});

// controller-runtime pkg/predicate predicate_test.go, restated.
describe("predicates", () => {
  const o = (meta: Partial<NonNullable<TypedObject["metadata"]>>): TypedObject => ({ metadata: { name: "x", namespace: "ns", ...meta } });
  const update = (p: Predicate<TypedObject>, a: TypedObject, b: TypedObject) => p.update!({ objectOld: a, objectNew: b });
  it.each([
    ["resourceVersionChanged: same version (a resync)", resourceVersionChanged, o({ resourceVersion: "1" }), o({ resourceVersion: "1" }), false],
    ["resourceVersionChanged: new version", resourceVersionChanged, o({ resourceVersion: "1" }), o({ resourceVersion: "2" }), true],
    ["generationChanged: status-only change", generationChanged, o({ generation: 1, resourceVersion: "1" }), o({ generation: 1, resourceVersion: "2" }), false],
    ["generationChanged: spec change", generationChanged, o({ generation: 1 }), o({ generation: 2 }), true],
    ["labelsChanged: same labels", labelsChanged, o({ labels: { a: "1" } }), o({ labels: { a: "1" } }), false],
    ["labelsChanged: a label added", labelsChanged, o({ labels: { a: "1" } }), o({ labels: { a: "1", b: "2" } }), true],
    ["labelsChanged: nil vs empty map differ (reflect.DeepEqual)", labelsChanged, o({}), o({ labels: {} }), true],
    ["annotationsChanged: same", annotationsChanged, o({ annotations: { a: "1" } }), o({ annotations: { a: "1" } }), false],
    ["annotationsChanged: a value changed", annotationsChanged, o({ annotations: { a: "1" } }), o({ annotations: { a: "2" } }), true],
  ] as Array<[string, Predicate<TypedObject>, TypedObject, TypedObject, boolean]>)("%s", (_name, p, a, b, want) => {
    expect(update(p, a, b)).toBe(want);
    // Creates and deletes pass the change predicates (predicate.Funcs with nil funcs).
    expect(p.create?.({ object: b, isInInitialList: false }) ?? true).toBe(true);
    expect(p.delete?.({ object: b, deleteStateUnknown: false }) ?? true).toBe(true);
  });

  it("labelSelectorPredicate matches every event type, the new object on updates", () => {
    const p = labelSelectorPredicate({ matchLabels: { app: "web" } });
    expect(p.create!({ object: o({ labels: { app: "web" } }), isInInitialList: false })).toBe(true);
    expect(p.create!({ object: o({ labels: { app: "db" } }), isInInitialList: false })).toBe(false);
    expect(update(p, o({ labels: { app: "db" } }), o({ labels: { app: "web" } }))).toBe(true);
    expect(update(p, o({ labels: { app: "web" } }), o({ labels: { app: "db" } }))).toBe(false);
    expect(p.delete!({ object: o({ labels: { app: "web" } }), deleteStateUnknown: true })).toBe(true);
    expect(() => labelSelectorPredicate({ matchExpressions: [{ key: "a", operator: "Nope" }] })).toThrow(/is not a valid label selector operator/);
  });

  it("and, or and not combine them (or of nothing fails, and of nothing passes)", () => {
    const yes = newPredicateFuncs(() => true);
    const no = newPredicateFuncs(() => false);
    const e = { object: o({}), isInInitialList: false };
    expect(and(yes, no).create!(e)).toBe(false);
    expect(and().create!(e)).toBe(true);
    expect(or(yes, no).create!(e)).toBe(true);
    expect(or().create!(e)).toBe(false);
    expect(not(no).create!(e)).toBe(true);
  });
});

describe("the builder", () => {
  it("for(): each event enqueues the object; owns(): the controlling owner of the For kind", async () => {
    const f = new ControllerFixture();
    const seen: string[] = [];
    const c = f.manager
      .controller("widgets")
      .for(widgets)
      .owns(builtin.configMaps)
      .reconcile(async (req) => void seen.push(req.toString()));
    const owner: Widget = { apiVersion: "example.com/v1", kind: "Widget", metadata: { name: "w1", namespace: "ns" } };
    f.seedAPI(widgets, owner);
    f.seedAPI(
      builtin.configMaps,
      cm("owned", [{ ...ref("Widget", "example.com/v1", "w3"), controller: true }]),
      cm("owned-not-controller", [ref("Widget", "example.com/v1", "w2")]),
      cm("orphan"),
    );
    await f.start();
    await f.eventually(() => seen.length >= 2 && c.queue.len() === 0);
    await f.settle();
    // w1 from its own event; w3 as the controller of "owned"; w2 only owns without controlling.
    expect([...new Set(seen)].sort()).toEqual(["ns/w1", "ns/w3"]);
    await f.stop();
  });

  it("watches() with a map function enqueues whatever it returns", async () => {
    const f = new ControllerFixture();
    const seen: string[] = [];
    f.manager
      .controller("by-label")
      .watches(builtin.secrets, (s: Secret) => (s.metadata?.labels?.app ? [new ObjectName("ns", s.metadata.labels.app)] : []))
      .reconcile(async (req) => void seen.push(req.toString()));
    f.seedAPI(builtin.secrets, { metadata: { name: "s1", namespace: "ns", labels: { app: "web" } } }, { metadata: { name: "s2", namespace: "ns" } });
    await f.start();
    await f.eventually(() => seen.includes("ns/web"));
    await f.settle();
    expect(seen).toEqual(["ns/web"]);
    await f.stop();
  });

  it("applies global event filters and each watch's predicates", async () => {
    const f = new ControllerFixture();
    const seen: string[] = [];
    f.manager
      .controller("filtered")
      .for(builtin.configMaps, { predicates: [newPredicateFuncs((o: ConfigMap) => o.metadata?.name !== "skip-me")] })
      .withEventFilter(labelSelectorPredicate({ matchLabels: { team: "a" } }))
      .reconcile(async (req) => void seen.push(req.name));
    f.seedAPI(
      builtin.configMaps,
      cm("a1", [], { labels: { team: "a" } }),
      cm("b1", [], { labels: { team: "b" } }),
      cm("skip-me", [], { labels: { team: "a" } }),
    );
    await f.start();
    await f.eventually(() => seen.includes("a1"));
    await f.settle();
    expect(seen).toEqual(["a1"]);
    await f.stop();
  });

  it("isolates an event handler that throws: counted, logged, the other events go on", async () => {
    const f = new ControllerFixture();
    const seen: string[] = [];
    f.manager
      .controller("fragile")
      .watches(builtin.configMaps, (o: ConfigMap) => {
        if (o.metadata?.name === "bad") throw new TypeError("boom");
        return [ObjectName.of(o)];
      })
      .reconcile(async (req) => void seen.push(req.name));
    f.seedAPI(builtin.configMaps, cm("bad"), cm("good"));
    await f.start();
    await f.eventually(() => seen.includes("good"));
    const text = await f.registry.metrics();
    expect(text).toContain(`${controllerMetricNames.eventHandlerErrors}{controller="fragile"} 1`);
    await f.stop();
  });

  it("custom EventHandlers receive the queue (addAfter, rate limited) and the initial-list flag", async () => {
    const f = new ControllerFixture();
    const initial: boolean[] = [];
    const c = f.manager
      .controller("custom")
      .watches(builtin.configMaps, {
        create: (e, q) => {
          initial.push(e.isInInitialList);
          q.addAfter(ObjectName.of(e.object), 5_000);
        },
      })
      .reconcile(async () => {});
    f.seedAPI(builtin.configMaps, cm("later"));
    await f.start();
    await f.eventually(() => initial.length === 1);
    expect(initial).toEqual([true]);
    expect(c.queue.len()).toBe(0);
    await f.client.resource(builtin.configMaps, "ns").create(cm("new"));
    await f.eventually(() => initial.length === 2);
    expect(initial).toEqual([true, false]);
    await f.stop();
  });

  it("watches a metadata-only view: the informer caches PartialObjectMetadata, not whole objects", async () => {
    const f = new ControllerFixture();
    const names: string[] = [];
    const pods = metadataOnly(builtin.pods);
    f.manager
      .controller("pod-owners")
      .watches(pods, (p: PartialObjectMetadata) => [ObjectName.of(p)])
      .reconcile(async (req, ctx) => {
        const p = ctx.cache.get(pods, req);
        if (p) names.push(`${p.kind} ${p.metadata?.name} spec=${"spec" in p}`);
      });
    const pod: Pod = { apiVersion: "v1", kind: "Pod", metadata: { name: "p1", namespace: "ns", labels: { a: "b" } }, spec: { containers: [{ name: "c", image: "i" }] } };
    f.seedAPI(builtin.pods, pod);
    await f.start();
    await f.eventually(() => names.length === 1);
    expect(names).toEqual(["PartialObjectMetadata p1 spec=false"]);
    const cached = f.manager.cache.get(pods, { namespace: "ns", name: "p1" });
    expect(cached?.metadata?.labels).toEqual({ a: "b" });
    // The full resource has an informer of its own (none was asked for here).
    expect(f.informers.existing(builtin.pods)).toBeUndefined();
    await f.stop();
  });

  it("cache reads of resources nothing watches fail clearly", async () => {
    const f = new ControllerFixture();
    const c = f.manager
      .controller("reader")
      .for(builtin.configMaps)
      .reconcile(async (_req, ctx) => void ctx.cache.get(clusterWidgets, { name: "x" }));
    await expect(f.reconcile(c, "ns/a")).rejects.toThrow(/no informer watches clusterwidgets.example.com/);
  });

  it("refuses duplicate names, owns() without for(), and an empty controller", () => {
    const f = new ControllerFixture();
    f.manager.controller("one").for(builtin.configMaps).reconcile(async () => {});
    expect(() => f.manager.controller("one").for(builtin.secrets).reconcile(async () => {})).toThrow(ControllerBuilderError);
    expect(() => f.manager.controller("two").owns(builtin.secrets)).toThrow(/owns\(\) needs for\(\) first/);
    expect(() => f.manager.controller("three").reconcile(async () => {})).toThrow(/nothing to watch/);
    expect(() => f.manager.controller("Bad Name")).toThrow(ControllerBuilderError);
    expect(() => f.manager.controller("four").for(builtin.secrets).withOptions({ maxConcurrentReconciles: 0 }).reconcile(async () => {})).toThrow(
      /maxConcurrentReconciles must be a positive integer/,
    );
  });

  it("raw sources deliver requests once the controller starts", async () => {
    const f = new ControllerFixture();
    const seen: string[] = [];
    f.manager
      .controller("raw")
      .watchesRawSource({ start: (q) => q.add(new ObjectName("", "tick")) })
      .reconcile(async (req) => void seen.push(req.toString()));
    await f.start();
    await f.eventually(() => seen.length === 1);
    expect(seen).toEqual(["tick"]);
    await f.stop();
  });

  it("records the queue adds handlers make (the queue handlers see)", () => {
    const q = recordingQueue();
    q.addAfter(new ObjectName("a", "b"), 10);
    expect(q.added).toEqual(["a/b after 10"]);
  });
});
