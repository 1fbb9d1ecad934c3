import { describe, expect, it } from "vitest";
import { FakeClock } from "../../apimachinery/clock.js";
import { deepFreeze } from "../../apimachinery/deepcopy.js";
import { StatusError } from "../../apimachinery/errors.js";
import type { KubeObject } from "../../apimachinery/types.js";
import { FieldSet, pathString } from "./fieldpath.js";
import { FieldManager, fieldView, buildLastApplied, lastAppliedAnnotation } from "./fieldmanager.js";
import { builtinTypeFor } from "./schema.js";
import { addedFieldsV1, compare, merge, toFieldSet } from "./typed.js";
import { deducedType, type TypeNode } from "./schema.js";
import fc from "fast-check";

const depType = builtinTypeFor({ group: "apps", version: "v1", kind: "Deployment" })!;

function deployment(spec: Record<string, unknown>, metadata: Record<string, unknown> = {}): KubeObject {
  return { apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "web", namespace: "default", ...metadata }, spec };
}

const container = (name: string, extra: Record<string, unknown> = {}) => ({ name, image: `${name}:1`, ...extra });
const template = (...containers: unknown[]) => ({ metadata: { labels: { app: "web" } }, spec: { containers } });

function newManager(): FieldManager {
  return new FieldManager({ clock: new FakeClock(Date.parse("2026-01-02T03:04:05Z")) });
}

function entries(obj: KubeObject) {
  return (obj.metadata?.managedFields ?? []).map((e) => ({ manager: e.manager, operation: e.operation, fieldsV1: e.fieldsV1, subresource: e.subresource }));
}

function conflictOf(fn: () => unknown): StatusError {
  try {
    fn();
  } catch (err) {
    if (err instanceof StatusError) return err;
    throw err;
  }
  throw new Error("expected a conflict");
}

describe("FieldsV1 encoding", () => {
  it.each([
    ["scalar field", { spec: { replicas: 3 } }, { "f:spec": { "f:replicas": {} } }],
    ["granular map keys", { metadata: { labels: { app: "web", tier: "fe" } } }, { "f:metadata": { "f:labels": { "f:app": {}, "f:tier": {} } } }],
    [
      "list-map items by key, with '.' for the item itself",
      { spec: { template: { spec: { containers: [{ name: "web", image: "nginx" }] } } } },
      { "f:spec": { "f:template": { "f:spec": { "f:containers": { 'k:{"name":"web"}': { ".": {}, "f:image": {}, "f:name": {} } } } } } },
    ],
    [
      "multi-key items with a defaulted key field",
      { spec: { template: { spec: { containers: [{ name: "web", ports: [{ containerPort: 80 }] }] } } } },
      {
        "f:spec": {
          "f:template": {
            "f:spec": {
              "f:containers": {
                'k:{"name":"web"}': { ".": {}, "f:name": {}, "f:ports": { 'k:{"containerPort":80,"protocol":"TCP"}': { ".": {}, "f:containerPort": {} } } },
              },
            },
          },
        },
      },
    ],
    ["set items by value", { metadata: { finalizers: ["a", "b"] } }, { "f:metadata": { "f:finalizers": { 'v:"a"': {}, 'v:"b"': {} } } }],
    ["atomic lists are one leaf", { spec: { template: { spec: { containers: [{ name: "c", args: ["x", "y"] }] } } } }, undefined],
    ["empty struct is a leaf", { spec: { strategy: {} } }, { "f:spec": { "f:strategy": {} } }],
    ["atomic struct (LabelSelector) is a leaf", { spec: { selector: { matchLabels: { app: "web" } } } }, { "f:spec": { "f:selector": {} } }],
  ])("%s", (_name, value, want) => {
    const set = toFieldSet(value, depType);
    if (want) expect(set.toFieldsV1()).toEqual(want);
    else expect(set.has(["f:spec", "f:template", "f:spec", "f:containers", 'k:{"name":"c"}', "f:args"])).toBe(true);
    // Round trip.
    expect(FieldSet.fromFieldsV1(set.toFieldsV1()).equals(set)).toBe(true);
  });

  it.each([
    [["f:spec", "f:replicas"], ".spec.replicas"],
    [["f:spec", "f:template", "f:spec", "f:containers", 'k:{"name":"web"}', "f:image"], '.spec.template.spec.containers[name="web"].image'],
    [["f:metadata", "f:finalizers", 'v:"x"'], '.metadata.finalizers[="x"]'],
    [["f:spec", "f:ports", 'k:{"port":80,"protocol":"TCP"}'], '.spec.ports[port=80,protocol="TCP"]'],
    [["f:items", "i:3"], ".items[3]"],
  ])("path %j prints as %s", (path, text) => {
    expect(pathString(path)).toBe(text);
  });

  it("strips server-owned metadata and type meta from field sets", () => {
    const view = fieldView({
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "a", namespace: "b", uid: "u", resourceVersion: "1", generation: 1, creationTimestamp: "t", labels: { x: "y" } },
    });
    expect(view).toEqual({ metadata: { labels: { x: "y" } } });
  });
});

describe("typed merge and compare", () => {
  it("merges list-map items by key: live order for untouched items, the configuration's order for its own", () => {
    const live = { spec: { template: template(container("a"), container("b"), container("c")) } };
    const config = { spec: { template: { spec: { containers: [container("d"), { name: "b", image: "b:2" }] } } } };
    const out = merge(live, config, depType) as { spec: { template: { spec: { containers: Array<{ name: string; image: string }> } } } };
    expect(out.spec.template.spec.containers.map((c) => `${c.name}=${c.image}`)).toEqual(["a=a:1", "d=d:1", "b=b:2", "c=c:1"]);
  });

  it("replaces atomic lists and merges sets by value", () => {
    const live = { metadata: { finalizers: ["x", "y"] }, spec: { template: { spec: { containers: [container("a", { args: ["1", "2"] })] } } } };
    const config = { metadata: { finalizers: ["z"] }, spec: { template: { spec: { containers: [{ name: "a", args: ["3"] }] } } } };
    const out = merge(live, config, depType) as KubeObject & { spec: { template: { spec: { containers: Array<{ args: string[] }> } } } };
    expect(out.metadata?.finalizers).toEqual(["x", "y", "z"]);
    expect(out.spec.template.spec.containers[0].args).toEqual(["3"]);
  });

  it("reports added, modified and removed leaves and containers", () => {
    const c = compare(
      { metadata: { labels: { a: "1", b: "2" } }, spec: { replicas: 1 } },
      { metadata: { labels: { a: "1", c: "3" } }, spec: { replicas: 2, paused: true } },
      depType,
    );
    expect(c.added.paths().map(pathString)).toEqual([".metadata.labels.c", ".spec.paused"]);
    expect(c.modified.paths().map(pathString)).toEqual([".spec.replicas"]);
    expect(c.removed.paths().map(pathString)).toEqual([".metadata.labels.b"]);
  });

  const podType = builtinTypeFor({ group: "", version: "v1", kind: "Pod" })!;
  const serviceType = builtinTypeFor({ group: "", version: "v1", kind: "Service" })!;
  const viaCompare = (v: unknown, t: TypeNode) => {
    const added = compare({}, v, t).added;
    return added.empty() ? undefined : added.toFieldsV1();
  };
  it.each<[string, unknown, TypeNode]>([
    ["a deployment", fieldView(deployment({ replicas: 2, template: template(container("b"), container("a", { ports: [{ containerPort: 80 }, { containerPort: 80, protocol: "UDP" }] })) }, { labels: { z: "1", a: "2" }, finalizers: ["y", "x", "y"] })), depType],
    ["empty and null values", { metadata: { labels: {}, annotations: null }, spec: { replicas: null, selector: {}, template: { spec: { containers: [] } } } }, depType],
    ["a pod with list maps, sets and duplicates", { spec: { containers: [container("a", { env: [{ name: "X", value: "1" }, { name: "X", value: "2" }] }), container("a")], tolerations: [{ key: "k" }] } }, podType],
    ["a service (ports keyed by port and protocol)", { spec: { ports: [{ port: 80 }, { port: 80, protocol: "UDP" }], selector: { app: "x" }, type: "ClusterIP" } }, serviceType],
    ["an undeclared kind (deduced)", { spec: { a: [1, { b: 2 }], c: { d: { e: null } }, f: {} }, data: { k: "v" } }, deducedType],
    ["nothing", {}, depType],
    ["a struct with undefined fields only", { spec: { replicas: undefined } }, depType],
    // compare skips keys an empty object inherits; the direct build does the same.
    ["keys named like Object.prototype members", { metadata: { labels: { toString: "x", constructor: "y", a: "z" } }, data: { valueOf: "1" } }, deducedType],
  ])("builds a create's field set directly, as compare does: %s", (_, value, t) => {
    expect(addedFieldsV1(value, t)).toEqual(viaCompare(value, t));
  });

  it("builds a create's field set directly, as compare does, for any JSON value", () => {
    const json = fc.jsonValue({ maxDepth: 4 });
    const object = fc.dictionary(fc.constantFrom("metadata", "spec", "status", "data", "x", "containers", "labels", "template", "ports", "name", "toString"), json, { maxKeys: 5 });
    fc.assert(
      fc.property(object, fc.constantFrom(depType, podType, serviceType, deducedType), (v, t) => {
        expect(addedFieldsV1(v, t)).toEqual(viaCompare(v, t));
      }),
      { numRuns: 500 },
    );
  });
});

describe("FieldManager", () => {
  it("records creates and updates as Update operations by their manager", () => {
    const fm = newManager();
    const created = deployment({ replicas: 1, template: template(container("web")) }, { labels: { app: "web" } });
    fm.update(undefined, created, "kubectl-create");
    expect(entries(created)).toEqual([
      {
        manager: "kubectl-create",
        operation: "Update",
        subresource: undefined,
        fieldsV1: {
          "f:metadata": { "f:labels": { ".": {}, "f:app": {} } },
          "f:spec": {
            "f:replicas": {},
            "f:template": {
              "f:metadata": { "f:labels": { ".": {}, "f:app": {} } },
              "f:spec": { "f:containers": { 'k:{"name":"web"}': { ".": {}, "f:image": {}, "f:name": {} } } },
            },
          },
        },
      },
    ]);
    expect(created.metadata?.managedFields?.[0]).toMatchObject({ apiVersion: "apps/v1", fieldsType: "FieldsV1", time: "2026-01-02T03:04:05Z" });

    const scaled = structuredClone(created);
    (scaled.spec as { replicas: number }).replicas = 3;
    fm.update(created, scaled, "kubectl-scale");
    const byManager = Object.fromEntries(entries(scaled).map((e) => [e.manager, e.fieldsV1]));
    expect(byManager["kubectl-scale"]).toEqual({ "f:spec": { "f:replicas": {} } });
    expect((byManager["kubectl-create"] as { "f:spec": Record<string, unknown> })["f:spec"]["f:replicas"]).toBeUndefined();
  });

  it("tracks the same from a stored (frozen) live object, reused, as from a plain copy, with or without managedFields sent back", () => {
    const fm = newManager();
    const live = deployment({ replicas: 1, template: template(container("web")) }, { labels: { app: "web" } });
    fm.update(undefined, live, "creator");
    const frozen = deepFreeze(structuredClone(live));
    const variants = [
      (o: KubeObject) => o, // sent back as read (client-go)
      (o: KubeObject) => ({ ...o, metadata: { ...o.metadata, managedFields: undefined } }), // dropped
    ];
    for (let round = 0; round < 2; round++) {
      for (const [i, variant] of variants.entries()) {
        // Each variant changes a different field, so leftovers of an earlier round would show.
        const change = (o: KubeObject): KubeObject =>
          i === 0 ? { ...o, spec: { ...(o.spec as object), replicas: 2 + round } } : { ...o, metadata: { ...o.metadata, labels: { app: "web", round: String(round) } } };
        const fromFrozen = variant(change(structuredClone(live)));
        fm.update(frozen, fromFrozen, "changer");
        const fromPlain = variant(change(structuredClone(live)));
        fm.update(structuredClone(live), fromPlain, "changer");
        expect(fromFrozen.metadata?.managedFields).toEqual(fromPlain.metadata?.managedFields);
        expect(entries(fromFrozen).find((e) => e.manager === "changer")?.fieldsV1).toEqual(
          i === 0 ? { "f:spec": { "f:replicas": {} } } : { "f:metadata": { "f:labels": { "f:round": {} } } },
        );
      }
    }
    // The stored object itself never changes.
    expect(frozen.metadata?.managedFields).toEqual(live.metadata?.managedFields);
  });

  it("carries a write's managers over to the stored copy (written) with the same results as decoding it", () => {
    const fast = newManager();
    const reference = newManager();
    type Step = (fm: FieldManager, live: KubeObject | undefined) => KubeObject;
    const steps: Step[] = [
      (fm) => {
        const o = deployment({ replicas: 1, template: template(container("web")) }, { labels: { app: "web" } });
        fm.update(undefined, o, "creator");
        return o;
      },
      (fm, live) => {
        const o = structuredClone(live!);
        (o.spec as { replicas: number }).replicas = 2;
        fm.update(live, o, "scaler");
        return o;
      },
      (fm, live) => {
        const o = structuredClone(live!);
        o.metadata!.labels = { app: "web", tier: "fe" };
        delete o.metadata!.managedFields;
        fm.update(live, o, "labeller");
        return o;
      },
      (fm, live) => fm.apply(live, deployment({ replicas: 5 }), { manager: "applier", force: true }),
      (fm, live) => {
        // The scaler loses its last field to the applier, then writes again.
        const o = structuredClone(live!);
        (o.spec as { replicas: number }).replicas = 6;
        fm.update(live, o, "scaler");
        return o;
      },
      (fm, live) => {
        const o = structuredClone(live!);
        o.metadata!.labels = { app: "web" };
        fm.update(live, o, "labeller", "status");
        return o;
      },
      // The same manager changing only values it already owns: nobody's fields change.
      ...[7, 8].map(
        (replicas): Step =>
          (fm, live) => {
            const o = structuredClone(live!);
            (o.spec as { replicas: number }).replicas = replicas;
            delete o.metadata!.managedFields;
            fm.update(live, o, "scaler");
            return o;
          },
      ),
    ];
    let fastLive: KubeObject | undefined;
    let refLive: KubeObject | undefined;
    for (const step of steps) {
      const tracked = step(fast, fastLive);
      if (step === steps[steps.length - 1]) {
        // Known managers, all unchanged: the live array itself is kept.
        expect(tracked.metadata?.managedFields).toBe(fastLive?.metadata?.managedFields);
      }
      // What storage does: a frozen copy; the tracker is told.
      const stored = deepFreeze(structuredClone(tracked));
      fast.written(tracked, stored);
      fastLive = stored;
      refLive = structuredClone(step(reference, refLive));
      expect(fastLive.metadata?.managedFields).toEqual(refLive.metadata?.managedFields);
    }
  });

  it("leaves managedFields untouched by a no-op update and honours a reset with [{}]", () => {
    const fm = newManager();
    const obj = deployment({ replicas: 1 });
    fm.update(undefined, obj, "a");
    const same = structuredClone(obj);
    fm.update(obj, same, "b");
    expect(same.metadata?.managedFields).toEqual(obj.metadata?.managedFields);
    const reset = structuredClone(obj);
    reset.metadata!.managedFields = [{}];
    fm.update(obj, reset, "b");
    expect(reset.metadata?.managedFields).toBeUndefined();
  });

  it("applies: owns what the configuration sets, shares equal values, and creates when absent", () => {
    const fm = newManager();
    const applied = fm.apply(undefined, deployment({ replicas: 2, template: template(container("web")) }), { manager: "kubectl", force: false });
    expect(entries(applied)).toEqual([
      {
        manager: "kubectl",
        operation: "Apply",
        subresource: undefined,
        fieldsV1: {
          "f:spec": {
            "f:replicas": {},
            "f:template": {
              "f:metadata": { "f:labels": { "f:app": {} } },
              "f:spec": { "f:containers": { 'k:{"name":"web"}': { ".": {}, "f:image": {}, "f:name": {} } } },
            },
          },
        },
      },
    ]);
    // Another applier with the same replicas value shares the field.
    const shared = fm.apply(applied, deployment({ replicas: 2 }), { manager: "other", force: false });
    expect(entries(shared).map((e) => e.manager)).toEqual(["kubectl", "other"]);
  });

  it("refuses to change another manager's field with upstream's message, naming every field", () => {
    const fm = newManager();
    const live = deployment({ replicas: 1, paused: false });
    fm.update(undefined, live, "kubectl-client-side-apply");
    const one = conflictOf(() => fm.apply(live, deployment({ replicas: 3 }), { manager: "ssa", force: false }));
    expect(one.code).toBe(409);
    expect(one.reason).toBe("Conflict");
    expect(one.message).toBe('Apply failed with 1 conflict: conflict with "kubectl-client-side-apply" using apps/v1: .spec.replicas');
    expect(one.status.details?.causes).toEqual([
      { reason: "FieldManagerConflict", message: 'conflict with "kubectl-client-side-apply" using apps/v1', field: ".spec.replicas" },
    ]);

    const applied = fm.apply(live, deployment({ minReadySeconds: 5 }), { manager: "applier", force: false });
    const two = conflictOf(() => fm.apply(applied, deployment({ replicas: 4, paused: true, minReadySeconds: 6 }), { manager: "ssa", force: false }));
    expect(two.message).toBe(
      'Apply failed with 3 conflicts: conflicts with "applier":\n- .spec.minReadySeconds\nconflicts with "kubectl-client-side-apply" using apps/v1:\n- .spec.paused\n- .spec.replicas',
    );
  });

  it("force takes ownership away from the other managers", () => {
    const fm = newManager();
    const live = deployment({ replicas: 1, paused: false });
    fm.update(undefined, live, "kubectl-client-side-apply");
    const forced = fm.apply(live, deployment({ replicas: 3 }), { manager: "ssa", force: true });
    expect((forced.spec as { replicas: number }).replicas).toBe(3);
    const byManager = Object.fromEntries(entries(forced).map((e) => [e.manager, e.fieldsV1]));
    expect(byManager["ssa"]).toEqual({ "f:spec": { "f:replicas": {} } });
    expect(byManager["kubectl-client-side-apply"]).toEqual({ "f:spec": { "f:paused": {} } });
    // Now the applier owns it: no conflict any more for it, but for the old owner's apply there would be.
    expect(() => fm.apply(forced, deployment({ replicas: 5 }), { manager: "ssa", force: false })).not.toThrow();
  });

  it("removes fields the applier stops applying when nobody else owns them", () => {
    const fm = newManager();
    const v1 = fm.apply(
      undefined,
      deployment({ replicas: 2, template: template(container("web"), container("sidecar")) }, { labels: { a: "1", b: "2" } }),
      { manager: "kubectl", force: false },
    );
    // Someone else takes an interest in label b.
    const other = structuredClone(v1);
    other.metadata!.labels = { ...other.metadata!.labels, b: "2", c: "3" };
    fm.update(v1, other, "labeller");
    const v2 = fm.apply(other, deployment({ template: template(container("web")) }, { labels: { a: "1" } }), { manager: "kubectl", force: false });
    expect(v2.metadata?.labels).toEqual({ a: "1", c: "3" });
    expect((v2.spec as { replicas?: number }).replicas).toBeUndefined();
    const containers = (v2.spec as { template: { spec: { containers: Array<{ name: string }> } } }).template.spec.containers;
    expect(containers.map((c) => c.name)).toEqual(["web"]);
  });

  it("keeps a label an Update manager also owns when the applier drops it", () => {
    const fm = newManager();
    const v1 = fm.apply(undefined, deployment({}, { labels: { a: "1" } }), { manager: "kubectl", force: false });
    const touched = structuredClone(v1);
    touched.metadata!.labels = { a: "1" };
    touched.metadata!.managedFields = v1.metadata!.managedFields;
    // An Update that sets the same value takes it from the applier.
    touched.metadata!.labels.a = "2";
    fm.update(v1, touched, "editor");
    const v2 = fm.apply(touched, deployment({}), { manager: "kubectl", force: false });
    expect(v2.metadata?.labels).toEqual({ a: "2" });
  });

  it("merges list-map items by key across managers (containers by name)", () => {
    const fm = newManager();
    const v1 = fm.apply(undefined, deployment({ template: template(container("web")) }), { manager: "team-a", force: false });
    const v2 = fm.apply(v1, deployment({ template: { spec: { containers: [container("proxy")] } } }), { manager: "team-b", force: false });
    const names = (v2.spec as { template: { spec: { containers: Array<{ name: string }> } } }).template.spec.containers.map((c) => c.name);
    expect(names).toEqual(["web", "proxy"]);
    // team-b changing web's image conflicts with team-a.
    const err = conflictOf(() =>
      fm.apply(v2, deployment({ template: { spec: { containers: [container("proxy"), { name: "web", image: "web:2" }] } } }), { manager: "team-b", force: false }),
    );
    expect(err.message).toBe('Apply failed with 1 conflict: conflict with "team-a": .spec.template.spec.containers[name="web"].image');
  });

  it("ignores status in an apply to the main resource and records the subresource", () => {
    const fm = newManager();
    const applied = fm.apply(undefined, { ...deployment({ replicas: 1 }), status: { replicas: 5 } }, { manager: "m", force: false });
    expect(entries(applied)[0].fieldsV1).toEqual({ "f:spec": { "f:replicas": {} } });
    const status = fm.apply(applied, { ...deployment({}), status: { replicas: 5 } }, { manager: "ctrl", force: false, subresource: "status" });
    expect(entries(status).find((e) => e.manager === "ctrl")).toEqual({ manager: "ctrl", operation: "Apply", subresource: "status", fieldsV1: { "f:status": { "f:replicas": {} } } });
  });

  it("lets kubectl take over fields unchanged since its last client-side apply, and syncs the annotation", () => {
    const fm = newManager();
    const lastApplied = deployment({ replicas: 2 });
    const live = deployment({ replicas: 2 }, { annotations: { [lastAppliedAnnotation]: buildLastApplied(lastApplied) } });
    fm.update(undefined, live, "kubectl-client-side-apply");
    const config = deployment({ replicas: 3 });
    const out = fm.apply(live, config, { manager: "kubectl", force: false });
    expect((out.spec as { replicas: number }).replicas).toBe(3);
    expect(out.metadata?.annotations?.[lastAppliedAnnotation]).toBe(buildLastApplied(config));
    // Another manager gets no such help.
    expect(() => fm.apply(live, config, { manager: "other", force: false })).toThrow(/Apply failed with 1 conflict/);
  });

  it("rejects a configuration that carries managedFields", () => {
    const fm = newManager();
    const cfg = deployment({});
    cfg.metadata!.managedFields = [];
    expect(conflictOf(() => fm.apply(undefined, cfg, { manager: "m", force: false })).message).toBe("metadata.managedFields must be nil");
  });
});

describe("FieldManager with a registered custom resource type", () => {
  it("uses the registered schema's list-map keys, and deduces types for unknown kinds", async () => {
    const { SchemaTypes } = await import("./schema.js");
    const fm = newManager();
    const gvk = { group: "example.com", version: "v1", kind: "Foo" };
    const foo = (items: unknown[]) => ({ apiVersion: "example.com/v1", kind: "Foo", metadata: { name: "f" }, spec: { items } });
    // Without a schema: lists are atomic, so a second applier's list replaces the first one's.
    const deduced = fm.apply(fm.apply(undefined, foo([{ id: "a" }]), { manager: "one", force: false }), foo([{ id: "b" }]), { manager: "two", force: true });
    expect((deduced.spec as { items: unknown[] }).items).toEqual([{ id: "b" }]);
    fm.setType(
      gvk,
      new SchemaTypes({}).convert({
        type: "object",
        properties: {
          spec: {
            type: "object",
            properties: { items: { type: "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["id"], items: { type: "object", properties: { id: { type: "string" }, v: { type: "string" } } } } },
          },
        },
      }),
    );
    const merged = fm.apply(fm.apply(undefined, foo([{ id: "a" }]), { manager: "one", force: false }), foo([{ id: "b" }]), { manager: "two", force: false });
    expect((merged.spec as { items: unknown[] }).items).toEqual([{ id: "a" }, { id: "b" }]);
    expect(merged.metadata?.managedFields?.find((e) => e.manager === "two")?.fieldsV1).toEqual({ "f:spec": { "f:items": { 'k:{"id":"b"}': { ".": {}, "f:id": {} } } } });
  });
});
