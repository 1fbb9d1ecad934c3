/**
 * freezeForCache: the cache's deep freeze, which also makes every empty plain object inside a
 * cached object one shared frozen `{}` (managedFields' fieldsV1 trees are mostly such leaves).
 * What readers can observe must not change: values, JSON, keys, prototypes; only the identity of
 * empty objects does.
 */
import { describe, expect, it } from "vitest";
import type { KubeObject } from "../../src/apimachinery/types.js";
import { CacheIndexer, freezeForCache } from "../../src/informers/store.js";

function managedPod(name: string): KubeObject {
  return JSON.parse(
    JSON.stringify({
      apiVersion: "v1",
      kind: "Pod",
      metadata: {
        name,
        namespace: "default",
        labels: {},
        managedFields: [
          {
            manager: "kubectl",
            operation: "Update",
            fieldsType: "FieldsV1",
            fieldsV1: { "f:metadata": { "f:labels": { ".": {}, "f:app": {} } }, "f:spec": { "f:containers": { 'k:{"name":"c"}': { ".": {}, "f:image": {} } } } },
          },
        ],
      },
      spec: { containers: [{ name: "c", image: "nginx", args: [], env: [{}] }], securityContext: {} },
    }),
  ) as KubeObject;
}

type Tree = Record<string, unknown>;

describe("freezeForCache", () => {
  it("deep-freezes and keeps every value, key and the JSON form", () => {
    const pod = managedPod("a");
    const before = JSON.stringify(pod);
    const out = freezeForCache(pod);
    expect(out).toBe(pod);
    expect(JSON.stringify(pod)).toBe(before);
    const all: unknown[] = [];
    const walk = (v: unknown) => {
      if (typeof v !== "object" || v === null) return;
      all.push(v);
      for (const x of Object.values(v)) walk(x);
    };
    walk(pod);
    expect(all.every((o) => Object.isFrozen(o))).toBe(true);
    expect(() => {
      (pod.metadata as Tree).name = "b";
    }).toThrow(TypeError);
  });

  it("shares one empty object across objects and positions, arrays included", () => {
    const a = freezeForCache(managedPod("a"));
    const b = freezeForCache(managedPod("b"));
    const fa = (a.metadata!.managedFields![0].fieldsV1 as Tree)["f:metadata"] as Tree;
    const fb = (b.metadata!.managedFields![0].fieldsV1 as Tree)["f:metadata"] as Tree;
    const la = fa["f:labels"] as Tree;
    const lb = fb["f:labels"] as Tree;
    expect(la["."]).toBe(lb["f:app"]);
    expect(la["."]).toBe(a.metadata!.labels);
    const spec = a.spec as { containers: Array<{ env: unknown[]; args: unknown[] }>; securityContext: unknown };
    expect(spec.containers[0].env[0]).toBe(la["."]);
    expect(spec.securityContext).toBe(la["."]);
    // Empty arrays are left as they are (an array is not interchangeable with `{}`).
    expect(Array.isArray(spec.containers[0].args)).toBe(true);
  });

  it("leaves null-prototype objects, __proto__ data keys and already frozen parts alone", () => {
    const bare = Object.create(null) as Tree;
    const frozenChild = Object.freeze({ inner: {} });
    const obj = JSON.parse('{"metadata":{"name":"x","annotations":{"__proto__":{}}}}') as Tree;
    (obj as Tree).bare = bare;
    (obj as Tree).frozen = frozenChild;
    freezeForCache(obj);
    expect(obj.bare).toBe(bare);
    expect(Object.getPrototypeOf(obj.bare)).toBe(null);
    const annotations = (obj.metadata as Tree).annotations as Tree;
    expect(Object.getPrototypeOf(annotations)).toBe(Object.prototype);
    expect(Object.keys(annotations)).toEqual(["__proto__"]);
    expect(Object.isFrozen(Object.getOwnPropertyDescriptor(annotations, "__proto__")!.value)).toBe(true);
    // A frozen object is taken as deep-frozen and not entered.
    expect(obj.frozen).toBe(frozenChild);
    expect(Object.isFrozen(frozenChild.inner)).toBe(false);
  });

  it("is what the indexer applies to every object it stores", () => {
    const idx = new CacheIndexer<KubeObject>();
    idx.add(managedPod("a"));
    idx.add(managedPod("b"));
    const [a, b] = [idx.getByKey("default/a")!, idx.getByKey("default/b")!];
    expect(Object.isFrozen(a.metadata!.managedFields![0])).toBe(true);
    expect(a.metadata!.labels).toBe(b.metadata!.labels);
  });
});
