import { describe, expect, it } from "vitest";
import { FakeClock } from "../apimachinery/clock.js";
import { isAlreadyExists, isConflict, isGone, isNotFound, StatusError } from "../apimachinery/errors.js";
import type { KubeObject } from "../apimachinery/types.js";
import { defineResource, metadataOnly } from "../apimachinery/resource.js";
import type { WatchEvent } from "../client/interfaces.js";
import { FakeClient } from "./fakeclient.js";

// Unstructured views of three resources (the tests read and write arbitrary fields).
const deployments = defineResource<KubeObject>({ group: "apps", version: "v1", resource: "deployments", kind: "Deployment", namespaced: true });
const nodes = defineResource<KubeObject>({ group: "", version: "v1", resource: "nodes", kind: "Node", namespaced: false });
const pods = defineResource<KubeObject>({ group: "", version: "v1", resource: "pods", kind: "Pod", namespaced: true });

function dep(name: string, labels: Record<string, string> = {}, replicas = 1): KubeObject {
  return { metadata: { name, namespace: "default", labels }, spec: { replicas } };
}

async function take<T>(it: AsyncIterator<T>, n: number): Promise<T[]> {
  const out: T[] = [];
  for (let i = 0; i < n; i++) {
    const r = await it.next();
    if (r.done) break;
    out.push(r.value);
  }
  return out;
}

describe("FakeClient CRUD semantics", () => {
  it("assigns resourceVersions, uid, apiVersion/kind, and keeps copies apart", async () => {
    const fake = new FakeClient({ clock: new FakeClock(Date.UTC(2026, 0, 1)) });
    const c = fake.resource(deployments, "default");
    const input = dep("web");
    const created = await c.create(input);
    expect(created.metadata?.resourceVersion).toBe("1");
    expect(created.metadata?.uid).toBeTruthy();
    expect(created.metadata?.creationTimestamp).toBe("2026-01-01T00:00:00Z");
    expect(created.apiVersion).toBe("apps/v1");
    expect(created.kind).toBe("Deployment");
    expect(input.metadata?.resourceVersion).toBeUndefined();
    created.spec = { replicas: 99 };
    expect((await c.get("web")).spec).toEqual({ replicas: 1 });
  });

  it("returns AlreadyExists, NotFound and Conflict as StatusErrors", async () => {
    const fake = new FakeClient();
    const c = fake.resource(deployments, "default");
    const d = await c.create(dep("web"));
    await expect(c.create(dep("web"))).rejects.toSatisfy(isAlreadyExists);
    await expect(c.get("nope")).rejects.toSatisfy(isNotFound);
    const updated = await c.update({ ...d, spec: { replicas: 2 } });
    expect(updated.metadata?.resourceVersion).toBe("2");
    await expect(c.update({ ...d, spec: { replicas: 3 } })).rejects.toSatisfy(isConflict);
    // no resourceVersion → unconditional update
    const { resourceVersion: _rv, ...meta } = d.metadata!;
    await expect(c.update({ ...d, metadata: meta, spec: { replicas: 4 } })).resolves.toBeTruthy();
  });

  it("generateName makes a unique name", async () => {
    const fake = new FakeClient();
    const c = fake.resource(pods, "default");
    const a = await c.create({ metadata: { generateName: "web-" } });
    const b = await c.create({ metadata: { generateName: "web-" } });
    expect(a.metadata?.name).toMatch(/^web-[a-z0-9]{5}$/);
    expect(a.metadata?.name).not.toBe(b.metadata?.name);
  });

  it("updateStatus changes only status", async () => {
    const fake = new FakeClient();
    const c = fake.resource(deployments, "default");
    const d = await c.create(dep("web"));
    const s = await c.updateStatus({ ...d, spec: { replicas: 50 }, status: { replicas: 1 } });
    expect(s.spec).toEqual({ replicas: 1 });
    expect(s.status).toEqual({ replicas: 1 });
  });

  it("deletion waits for finalizers", async () => {
    const fake = new FakeClient();
    const c = fake.resource(deployments, "default");
    await c.create({ ...dep("web"), metadata: { name: "web", namespace: "default", finalizers: ["x/y"] } });
    const r = (await c.delete("web")) as KubeObject;
    expect(r.metadata?.deletionTimestamp).toBeTruthy();
    const cur = await c.get("web");
    await c.update({ ...cur, metadata: { ...cur.metadata, finalizers: [] } });
    await expect(c.get("web")).rejects.toSatisfy(isNotFound);
  });

  it("delete preconditions conflict", async () => {
    const fake = new FakeClient();
    const c = fake.resource(deployments, "default");
    await c.create(dep("web"));
    await expect(c.delete("web", { preconditions: { uid: "other" } })).rejects.toSatisfy(isConflict);
  });

  it("a write that changes nothing keeps the resourceVersion and emits no event, as the server", async () => {
    const fake = new FakeClient({ clock: new FakeClock(Date.UTC(2026, 0, 1)) });
    const c = fake.resource(deployments, "default");
    const created = await c.create(dep("web", { app: "web" }));
    const ac = new AbortController();
    const events = (await c.watch({ resourceVersion: created.metadata?.resourceVersion, signal: ac.signal }))[Symbol.asyncIterator]();
    const same = await c.update(created);
    expect(same.metadata?.resourceVersion).toBe(created.metadata?.resourceVersion);
    const sameStatus = await c.updateStatus(created);
    expect(sameStatus.metadata?.resourceVersion).toBe(created.metadata?.resourceVersion);
    const noopPatch = await c.patch("web", "merge", { spec: { replicas: 1 } });
    expect(noopPatch.metadata?.resourceVersion).toBe(created.metadata?.resourceVersion);
    const changed = await c.update({ ...created, spec: { replicas: 2 } });
    expect(Number(changed.metadata?.resourceVersion)).toBe(Number(created.metadata?.resourceVersion) + 1);
    const [first] = await take(events, 1);
    expect(first?.type).toBe("MODIFIED");
    expect(first?.object.metadata?.resourceVersion).toBe(changed.metadata?.resourceVersion);
    ac.abort();
  });

  it("cluster-scoped resources ignore namespaces", async () => {
    const fake = new FakeClient();
    const c = fake.resource(nodes);
    const n = await c.create({ metadata: { name: "n1", namespace: "junk" } });
    expect(n.metadata?.namespace).toBeUndefined();
    expect((await c.list()).items).toHaveLength(1);
  });
});

describe("FakeClient list", () => {
  it("filters by label and field selectors and namespaces", async () => {
    const fake = new FakeClient();
    await fake.resource(deployments, "default").create(dep("a", { app: "x" }));
    await fake.resource(deployments, "default").create(dep("b", { app: "y" }));
    await fake.resource(deployments, "other").create({ ...dep("c", { app: "x" }), metadata: { name: "c", labels: { app: "x" } } });
    const all = fake.resource(deployments, "");
    expect((await all.list()).items.map((o) => o.metadata?.name)).toEqual(["a", "b", "c"]);
    expect((await all.list({ labelSelector: "app=x" })).items.map((o) => o.metadata?.name)).toEqual(["a", "c"]);
    expect((await all.list({ fieldSelector: "metadata.namespace=other" })).items.map((o) => o.metadata?.name)).toEqual(["c"]);
    expect((await fake.resource(deployments, "default").list({ labelSelector: "app in (x,y)" })).items).toHaveLength(2);
  });

  it("paginates with limit and continue", async () => {
    const fake = new FakeClient();
    const c = fake.resource(deployments, "default");
    for (const n of ["a", "b", "c", "d", "e"]) await c.create(dep(n));
    const p1 = await c.list({ limit: 2 });
    expect(p1.items.map((o) => o.metadata?.name)).toEqual(["a", "b"]);
    expect(p1.metadata?.remainingItemCount).toBe(3);
    const p2 = await c.list({ limit: 2, continue: p1.metadata?.continue });
    expect(p2.items.map((o) => o.metadata?.name)).toEqual(["c", "d"]);
    const p3 = await c.list({ limit: 2, continue: p2.metadata?.continue });
    expect(p3.items.map((o) => o.metadata?.name)).toEqual(["e"]);
    expect(p3.metadata?.continue).toBeUndefined();
  });
});

describe("FakeClient watch", () => {
  it("streams future events, ends on abort", async () => {
    const fake = new FakeClient();
    const c = fake.resource(deployments, "default");
    const ac = new AbortController();
    const w = (await c.watch({ signal: ac.signal }))[Symbol.asyncIterator]();
    const d = await c.create(dep("web"));
    await c.update({ ...d, spec: { replicas: 2 } });
    await c.delete("web");
    const events = await take(w, 3);
    expect(events.map((e) => e.type)).toEqual(["ADDED", "MODIFIED", "DELETED"]);
    ac.abort();
    expect((await w.next()).done).toBe(true);
    expect(fake.tracker.openWatches).toBe(0);
  });

  it("replays from a resourceVersion and answers 410 beyond the history", async () => {
    const fake = new FakeClient({ historyLimit: 3 });
    const c = fake.resource(deployments, "default");
    for (const n of ["a", "b", "c", "d", "e"]) await c.create(dep(n));
    const w = (await c.watch({ resourceVersion: "3" }))[Symbol.asyncIterator]();
    const ev = await take(w, 2);
    expect(ev.map((e) => (e.object as KubeObject).metadata?.name)).toEqual(["d", "e"]);
    await expect(c.watch({ resourceVersion: "1" })).rejects.toSatisfy(isGone);
    fake.tracker.compact();
    await expect(c.watch({ resourceVersion: "4" })).rejects.toSatisfy(isGone);
  });

  it("a label change across the selector edge is ADDED or DELETED for that watcher", async () => {
    const fake = new FakeClient();
    const c = fake.resource(deployments, "default");
    const w = (await c.watch({ labelSelector: "app=x" }))[Symbol.asyncIterator]();
    const d = await c.create(dep("web", { app: "y" }));
    const d2 = await c.update({ ...d, metadata: { ...d.metadata, labels: { app: "x" } } });
    await c.update({ ...d2, metadata: { ...d2.metadata, labels: { app: "z" } } });
    const ev = await take(w, 2);
    expect(ev.map((e) => e.type)).toEqual(["ADDED", "DELETED"]);
  });

  it("watch-list sends initial events then the initial-events-end bookmark", async () => {
    const fake = new FakeClient();
    const c = fake.resource(deployments, "default");
    await c.create(dep("a"));
    await c.create(dep("b"));
    const w = (await c.watch({ sendInitialEvents: true, allowWatchBookmarks: true }))[Symbol.asyncIterator]();
    const ev = (await take(w, 3)) as WatchEvent[];
    expect(ev.map((e) => e.type)).toEqual(["ADDED", "ADDED", "BOOKMARK"]);
    const bm = ev[2].object as KubeObject;
    expect(bm.metadata?.annotations?.["k8s.io/initial-events-end"]).toBe("true");
    expect(bm.metadata?.resourceVersion).toBe("2");
  });

  it("closeWatches and failWatches end streams", async () => {
    const fake = new FakeClient();
    const c = fake.resource(deployments, "default");
    const w1 = (await c.watch())[Symbol.asyncIterator]();
    fake.tracker.closeWatches();
    expect((await w1.next()).done).toBe(true);
    const w2 = (await c.watch())[Symbol.asyncIterator]();
    fake.tracker.failWatches(deployments, StatusError.expired("too old resource version: 1 (2)").status);
    const e = await w2.next();
    expect(e.value?.type).toBe("ERROR");
    expect((await w2.next()).done).toBe(true);
  });
});

describe("FakeClient actions and reactors", () => {
  it("records actions in order", async () => {
    const fake = new FakeClient();
    const c = fake.resource(deployments, "default");
    const d = await c.create(dep("web"));
    await c.get("web");
    await c.update({ ...d, spec: { replicas: 2 } });
    await c.patch("web", "merge", { spec: { replicas: 3 } });
    await c.list();
    expect(fake.actions().map((a) => [a.verb, a.resource, a.namespace, a.name ?? ""])).toEqual([
      ["create", "deployments", "default", "web"],
      ["get", "deployments", "default", "web"],
      ["update", "deployments", "default", "web"],
      ["patch", "deployments", "default", "web"],
      ["list", "deployments", "default", ""],
    ]);
    expect(fake.writeActions()).toHaveLength(3);
    fake.clearActions();
    expect(fake.actions()).toEqual([]);
  });

  it("failNth injects an error on the nth call", async () => {
    const fake = new FakeClient();
    const c = fake.resource(deployments, "default");
    const d = await c.create(dep("web"));
    fake.failNth("update", "deployments", 2, StatusError.conflict(deployments, "web", "injected"));
    const u1 = await c.update({ ...d, spec: { replicas: 2 } });
    await expect(c.update({ ...u1, spec: { replicas: 3 } })).rejects.toSatisfy(isConflict);
    await expect(c.update({ ...u1, spec: { replicas: 3 } })).resolves.toBeTruthy();
  });

  it("a reactor may return a result instead of the tracker's", async () => {
    const fake = new FakeClient();
    fake.prependReactor("get", "deployments", () => ({ handled: true, result: dep("virtual") }));
    expect((await fake.resource(deployments, "default").get("anything")).metadata?.name).toBe("virtual");
  });
});

describe("FakeClient patches and scale", () => {
  it("applies merge, json and strategic patches", async () => {
    const fake = new FakeClient();
    const c = fake.resource(deployments, "default");
    await c.create({
      metadata: { name: "web", namespace: "default" },
      spec: { replicas: 1, template: { spec: { containers: [{ name: "a", image: "nginx:1" }, { name: "b", image: "busybox" }] } } },
    });
    await c.patch("web", "merge", { spec: { replicas: 2 } });
    await c.patch("web", "json", [{ op: "replace", path: "/spec/replicas", value: 3 }]);
    const p = await c.patch("web", "strategic", { spec: { template: { spec: { containers: [{ name: "a", image: "nginx:2" }] } } } });
    const spec = p.spec as { replicas: number; template: { spec: { containers: Array<{ name: string; image: string }> } } };
    expect(spec.replicas).toBe(3);
    expect(spec.template.spec.containers).toEqual([
      { name: "a", image: "nginx:2" },
      { name: "b", image: "busybox" },
    ]);
    await expect(c.patch("web", "apply", {})).rejects.toBeInstanceOf(StatusError);
  });

  it("scale subresource reads and writes spec.replicas", async () => {
    const fake = new FakeClient();
    const c = fake.resource(deployments, "default");
    await c.create({ metadata: { name: "web", namespace: "default" }, spec: { replicas: 2, selector: { matchLabels: { app: "web" } } }, status: { replicas: 2 } });
    const s = await c.getScale("web");
    expect(s.spec?.replicas).toBe(2);
    expect(s.status?.selector).toBe("app=web");
    await c.updateScale("web", { ...s, spec: { replicas: 5 } });
    expect(((await c.get("web")).spec as { replicas: number }).replicas).toBe(5);
  });
});

describe("FakeClient mirrors server rules controllers depend on", () => {
  it("status writes keep spec and labels but take annotations", async () => {
    const fake = new FakeClient();
    const c = fake.resource(deployments, "default");
    const d = await c.create(dep("web", { app: "web" }));
    const s = await c.updateStatus({
      ...d,
      metadata: { ...d.metadata, labels: { app: "changed" }, annotations: { "deployment.kubernetes.io/revision": "1" } },
      spec: { replicas: 9 },
      status: { observedGeneration: 1 },
    });
    expect(s.metadata?.labels).toEqual({ app: "web" });
    expect(s.metadata?.annotations).toEqual({ "deployment.kubernetes.io/revision": "1" });
    expect(s.spec).toEqual({ replicas: 1 });
    expect(s.status).toEqual({ observedGeneration: 1 });
  });

  it("a changed metadata.uid is Invalid", async () => {
    const fake = new FakeClient();
    const c = fake.resource(deployments, "default");
    const d = await c.create(dep("web"));
    await expect(c.update({ ...d, metadata: { ...d.metadata, uid: "other" } })).rejects.toSatisfy(
      (e: unknown) => e instanceof StatusError && e.code === 422 && e.message.includes("metadata.uid"),
    );
  });

  it("Orphan and Foreground deletion leave the object with the matching finalizer", async () => {
    const fake = new FakeClient();
    const c = fake.resource(deployments, "default");
    await c.create(dep("a"));
    await c.create(dep("b"));
    await c.create(dep("c"));
    await c.delete("a", { propagationPolicy: "Orphan" });
    await c.delete("b", { propagationPolicy: "Foreground" });
    await c.delete("c", { propagationPolicy: "Background" });
    expect((await c.get("a")).metadata?.finalizers).toEqual(["orphan"]);
    expect((await c.get("b")).metadata?.finalizers).toEqual(["foregroundDeletion"]);
    expect((await c.get("a")).metadata?.deletionTimestamp).toBeTruthy();
    await expect(c.get("c")).rejects.toSatisfy(isNotFound);
  });
});

describe("FakeClient metadata-only views", () => {
  const cms = metadataOnly(defineResource<KubeObject>({ group: "", version: "v1", resource: "configmaps", kind: "ConfigMap", namespaced: true }));
  it("reads, watches, patches and deletes as PartialObjectMetadata; refuses whole-object writes", async () => {
    const fake = new FakeClient();
    fake.seed(pods, { metadata: { name: "p", namespace: "default" }, spec: { x: 1 } });
    fake.seed(defineResource<KubeObject>({ group: "", version: "v1", resource: "configmaps", kind: "ConfigMap", namespaced: true }), {
      metadata: { name: "c", namespace: "default", labels: { a: "b" } },
      data: { k: "v" },
    });
    const c = fake.resource(cms, "default");
    expect(await c.get("c")).toEqual({ apiVersion: "meta.k8s.io/v1", kind: "PartialObjectMetadata", metadata: expect.objectContaining({ name: "c", labels: { a: "b" } }) });
    const list = await c.list();
    expect(list.kind).toBe("PartialObjectMetadataList");
    expect(list.items.map((i) => i.kind)).toEqual(["PartialObjectMetadata"]);
    const w = (await c.watch({ resourceVersion: list.metadata?.resourceVersion }))[Symbol.asyncIterator]();
    const patched = await c.patch("c", "merge", { metadata: { annotations: { x: "y" } } });
    expect(patched).not.toHaveProperty("data");
    const ev = await w.next();
    expect(ev.value).toMatchObject({ type: "MODIFIED", object: { kind: "PartialObjectMetadata" } });
    await w.return?.();
    await expect(c.create({ metadata: { name: "n" } })).rejects.toThrow(/create is not supported on a metadata-only client/);
    await expect(c.update({ metadata: { name: "c" } })).rejects.toThrow(/metadata-only/);
    expect(await c.delete("c")).toMatchObject({ kind: "Status", status: "Success" });
  });
});

describe("FakeClient namespaces", () => {
  const namespaces = defineResource<KubeObject>({ group: "", version: "v1", resource: "namespaces", kind: "Namespace", namespaced: false });

  it("a namespace with spec.finalizers turns Terminating on delete and goes once finalize empties them", async () => {
    const fake = new FakeClient({ clock: new FakeClock(Date.UTC(2026, 0, 1)) });
    const c = fake.resource(namespaces);
    await c.create({ metadata: { name: "ns" }, spec: { finalizers: ["kubernetes", "other"] }, status: { phase: "Active" } });
    const deleting = await c.delete("ns");
    expect(deleting).toMatchObject({ metadata: { deletionTimestamp: "2026-01-01T00:00:00Z" }, status: { phase: "Terminating" } });
    // A status update does not remove it; finalize changes spec.finalizers only.
    const cur = await c.get("ns");
    await c.updateStatus({ ...cur, status: { phase: "Terminating", conditions: [] } });
    const fin = await c.update({ ...(await c.get("ns")), metadata: { name: "ns", labels: { ignored: "yes" } }, spec: { finalizers: ["other"] } }, { subresource: "finalize" });
    expect(fin.spec).toEqual({ finalizers: ["other"] });
    expect(fin.metadata?.labels).toBeUndefined();
    expect(fake.actions().at(-1)).toMatchObject({ verb: "update", resource: "namespaces", subresource: "finalize", name: "ns" });
    await c.update({ ...(await c.get("ns")), spec: {} }, { subresource: "finalize" });
    await expect(c.get("ns")).rejects.toSatisfy(isNotFound);
  });

  it("finalize is a namespaces subresource only; other subresources of update are not found", async () => {
    const fake = new FakeClient();
    await fake.resource(deployments, "default").create(dep("web"));
    await expect(fake.resource(deployments, "default").update(dep("web"), { subresource: "finalize" })).rejects.toSatisfy(isNotFound);
  });
});
