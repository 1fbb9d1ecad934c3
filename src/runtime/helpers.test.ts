import type { ConfigMap } from "../apimachinery/api/core/v1.js";
import { describe, expect, it } from "vitest";
import { isConflict } from "../apimachinery/errors.js";
import { builtin } from "../client/typed.js";
import { FakeClient } from "../testing/fakeclient.js";
import { serverSideApply, serverSideApplyStatus } from "./apply.js";
import { createOrPatch, createOrUpdate, MutateChangedKeyError } from "./createorupdate.js";
import { addFinalizer, containsFinalizer, finalizer, removeFinalizer } from "./finalizers.js";

const NS = "ns";
const cmClient = (fake: FakeClient) => fake.resource(builtin.configMaps, NS);
const cm = (name: string, data?: Record<string, string>, extra: Partial<NonNullable<ConfigMap["metadata"]>> = {}): ConfigMap => ({
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: { name, namespace: NS, ...extra },
  ...(data ? { data } : {}),
});

describe("controllerutil finalizer helpers", () => {
  it.each([
    ["adds to none", [], "f", true, ["f"]],
    ["adds beside others", ["a"], "f", true, ["a", "f"]],
    ["does not add twice", ["f"], "f", false, ["f"]],
  ] as Array<[string, string[], string, boolean, string[]]>)("addFinalizer %s", (_n, before, f, changed, after) => {
    const o = cm("x", undefined, { finalizers: [...before] });
    expect(addFinalizer(o, f)).toBe(changed);
    expect(o.metadata?.finalizers).toEqual(after);
    expect(containsFinalizer(o, f)).toBe(true);
  });
  it.each([
    ["removes it", ["a", "f"], "f", true, ["a"]],
    ["removes duplicates", ["f", "a", "f"], "f", true, ["a"]],
    ["absent: no change", ["a"], "f", false, ["a"]],
  ] as Array<[string, string[], string, boolean, string[]]>)("removeFinalizer %s", (_n, before, f, changed, after) => {
    const o = cm("x", undefined, { finalizers: [...before] });
    expect(removeFinalizer(o, f)).toBe(changed);
    expect(o.metadata?.finalizers).toEqual(after);
  });
});

describe("finalizer() (kube-rs)", () => {
  const F = "example.com/cleanup";
  it("adds the finalizer first, without reconciling", async () => {
    const fake = new FakeClient();
    const [stored] = fake.seed(builtin.configMaps, cm("x"));
    const events: string[] = [];
    await finalizer(cmClient(fake), F, stored, async (e) => void events.push(e.type));
    expect(events).toEqual([]);
    expect(fake.tracker.get(builtin.configMaps, NS, "x").metadata?.finalizers).toEqual([F]);
    expect(fake.writeActions()[0]).toMatchObject({ verb: "patch", patchType: "merge", patch: { metadata: { finalizers: [F], resourceVersion: stored.metadata?.resourceVersion } } });
  });

  it("applies while the finalizer is there", async () => {
    const fake = new FakeClient();
    const [stored] = fake.seed(builtin.configMaps, cm("x", undefined, { finalizers: [F] }));
    const events: string[] = [];
    expect(await finalizer(cmClient(fake), F, stored, async (e) => (events.push(e.type), { requeueAfterMs: 7 }))).toEqual({ requeueAfterMs: 7 });
    expect(events).toEqual(["apply"]);
    expect(fake.writeActions()).toEqual([]);
  });

  it("cleans up on deletion, then removes only its own finalizer, and the object goes", async () => {
    const fake = new FakeClient();
    fake.seed(builtin.configMaps, cm("x", undefined, { finalizers: ["other", F] }));
    await cmClient(fake).delete("x");
    const deleting = await cmClient(fake).get("x");
    const events: string[] = [];
    await finalizer(cmClient(fake), F, deleting, async (e) => void events.push(e.type));
    expect(events).toEqual(["cleanup"]);
    expect(fake.tracker.get(builtin.configMaps, NS, "x").metadata?.finalizers).toEqual(["other"]);
  });

  it("a failed cleanup keeps the finalizer (the error retries the reconcile)", async () => {
    const fake = new FakeClient();
    fake.seed(builtin.configMaps, cm("x", undefined, { finalizers: [F] }));
    await cmClient(fake).delete("x");
    const deleting = await cmClient(fake).get("x");
    await expect(finalizer(cmClient(fake), F, deleting, async () => Promise.reject(new Error("cloud down")))).rejects.toThrow("cloud down");
    expect(fake.tracker.get(builtin.configMaps, NS, "x").metadata?.finalizers).toEqual([F]);
  });

  it("a concurrent change makes the guarded patch conflict instead of losing it", async () => {
    const fake = new FakeClient();
    const [stale] = fake.seed(builtin.configMaps, cm("x"));
    await cmClient(fake).update({ ...stale, data: { changed: "yes" } });
    await expect(finalizer(cmClient(fake), F, stale, async () => {})).rejects.toSatisfy(isConflict);
  });

  it("deleting without the finalizer: nothing to do", async () => {
    const fake = new FakeClient();
    const events: string[] = [];
    await finalizer(cmClient(fake), F, cm("x", undefined, { deletionTimestamp: "2026-01-01T00:00:00Z" }), async (e) => void events.push(e.type));
    expect(events).toEqual([]);
    expect(fake.actions()).toEqual([]);
  });
});

describe("createOrUpdate / createOrPatch (controllerutil)", () => {
  it("creates from the given object when absent", async () => {
    const fake = new FakeClient();
    const r = await createOrUpdate(cmClient(fake), cm("x"), (o) => void (o.data = { a: "1" }));
    expect(r.operation).toBe("created");
    expect(r.object.data).toEqual({ a: "1" });
    expect(fake.actions().map((a) => a.verb)).toEqual(["get", "create"]);
  });

  it("updates only when the mutation changed something (semantically)", async () => {
    const fake = new FakeClient();
    fake.seed(builtin.configMaps, cm("x", { a: "1" }));
    expect((await createOrUpdate(cmClient(fake), cm("x"), (o) => void (o.data = { a: "1" }))).operation).toBe("unchanged");
    expect((await createOrUpdate(cmClient(fake), cm("x"), (o) => void (o.metadata!.labels = {}))).operation).toBe("unchanged");
    const r = await createOrUpdate(cmClient(fake), cm("x"), (o) => void (o.data = { a: "2" }));
    expect(r.operation).toBe("updated");
    expect(fake.tracker.get(builtin.configMaps, NS, "x").data).toEqual({ a: "2" });
  });

  it("uses a cached object instead of a GET when given one (null: known absent)", async () => {
    const fake = new FakeClient();
    const [stored] = fake.seed(builtin.configMaps, cm("x", { a: "1" }));
    const cached: ConfigMap = Object.freeze(stored); // as a cache hands it out
    await createOrUpdate(cmClient(fake), cm("x"), (o) => void (o.data = { a: "1" }), { current: cached });
    expect(fake.actions()).toEqual([]);
    await createOrUpdate(cmClient(fake), cm("y"), () => {}, { current: null });
    expect(fake.actions().map((a) => a.verb)).toEqual(["create"]);
  });

  it("refuses a mutate that renames the object", async () => {
    const fake = new FakeClient();
    await expect(createOrUpdate(cmClient(fake), cm("x"), (o) => void (o.metadata!.name = "y"))).rejects.toBeInstanceOf(MutateChangedKeyError);
    expect(new MutateChangedKeyError().message).toBe("MutateFn cannot mutate object name and/or object namespace");
  });

  it("createOrPatch sends a merge patch of the changes, and patches status through its subresource", async () => {
    const fake = new FakeClient();
    const d = builtin.deployments;
    fake.seed(d, { apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "web", namespace: NS }, spec: { replicas: 1, selector: {}, template: {} } });
    const deployments = fake.resource(d, NS);
    const key = { metadata: { name: "web", namespace: NS } };
    expect((await createOrPatch(deployments, key, () => {})).operation).toBe("unchanged");
    let r = await createOrPatch(deployments, key, (o) => void (o.spec!.replicas = 3));
    expect(r.operation).toBe("updated");
    expect(fake.writeActions().at(-1)).toMatchObject({ verb: "patch", patchType: "merge", patch: { spec: { replicas: 3 } } });
    r = await createOrPatch(deployments, key, (o) => void (o.status = { replicas: 3 }));
    expect(r.operation).toBe("updatedStatusOnly");
    expect(fake.writeActions().at(-1)).toMatchObject({ verb: "patch", subresource: "status", patch: { status: { replicas: 3 } } });
    r = await createOrPatch(deployments, key, (o) => {
      o.spec!.replicas = 4;
      o.status = { replicas: 4 };
    });
    expect(r.operation).toBe("updatedStatus");
    expect(fake.tracker.get(d, NS, "web")).toMatchObject({ spec: { replicas: 4 }, status: { replicas: 4 } });
  });
});

describe("server-side apply helpers", () => {
  it("sends an apply patch with the field manager and force", async () => {
    const fake = new FakeClient();
    fake.prependReactor("patch", "configmaps", (a) => ({ handled: true, result: { ...(a.patch as object) } }));
    await serverSideApply(cmClient(fake), cm("x", { a: "1" }), { fieldManager: "mine", force: true });
    await serverSideApplyStatus(cmClient(fake), cm("x"), { fieldManager: "mine" });
    expect(fake.actions()).toMatchObject([
      { verb: "patch", name: "x", patchType: "apply", options: { fieldManager: "mine", force: true } },
      { verb: "patch", name: "x", patchType: "apply", subresource: "status", options: { fieldManager: "mine" } },
    ]);
  });

  it("refuses a configuration without a field manager, a kind or a name", () => {
    const c = cmClient(new FakeClient());
    expect(() => serverSideApply(c, cm("x"), { fieldManager: "" })).toThrow(/fieldManager/);
    expect(() => serverSideApply(c, { metadata: { name: "x" } }, { fieldManager: "m" })).toThrow(/apiVersion and kind/);
    expect(() => serverSideApply(c, { apiVersion: "v1", kind: "ConfigMap", metadata: {} }, { fieldManager: "m" })).toThrow(/metadata.name/);
  });

  it("the fake client answers apply with 415, as a server without server-side apply", async () => {
    await expect(serverSideApply(cmClient(new FakeClient()), cm("x"), { fieldManager: "m" })).rejects.toMatchObject({ code: 415 });
  });
});
